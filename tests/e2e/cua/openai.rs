//! OpenAI's computer use through the Responses API: `computer_use_preview`
//! with the display size, each step chained on `previous_response_id`
//! (the scripted server checks every call of the previous response is
//! answered), `computer_call_output` with the screenshot and current URL,
//! and a pending safety check: denied by default (the run stops before the
//! action and says which check), acknowledged with `SafetyChecks::Allow`
//! (echoed in `acknowledged_safety_checks`, recorded in the result).

use serde_json::{json, Value};
use sightline::{Agent, AgentMode, AgentOptions, AgentResult, SafetyChecks};
use sightline_testkit::{LlmServer, Reply};

use super::*;
use crate::support::with_timeout;

fn click(p: (f64, f64)) -> Reply {
    Reply::computer(json!({"type": "click", "button": "left", "x": p.0, "y": p.1}))
}

fn script() -> Vec<Reply> {
    vec![
        // The promo in the way, closed by coordinates.
        click(CLOSE),
        click(EMAIL),
        Reply::computer(json!({"type": "type", "text": ADDRESS})),
        click(SUBSCRIBE).with_safety_check("sensitive_domain", "The page asks for an email address."),
        Reply::tool("done", json!({"reasoning": "Subscribed.", "taskComplete": true})),
    ]
}

async fn run(ctx: &Ctx, server: &LlmServer, safety_checks: SafetyChecks) -> (AgentResult, sightline::Page) {
    let llm = llm("openai/computer-use-preview", server.openai_base_url());
    let page = ctx.browser.new_page().await.unwrap();
    let opts = AgentOptions {
        mode: AgentMode::Cua,
        start_url: Some(ctx.url()),
        safety_checks,
        screenshots: true,
        ..AgentOptions::default()
    };
    let result = Agent::new(&page, &llm, opts)
        .execute("Subscribe ada@example.org to the newsletter")
        .await
        .unwrap();
    (result, page)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chains_responses_and_stops_at_a_safety_check_unless_allowed() {
    with_timeout("openai cua", async {
        let ctx = Ctx::new(1280, 720).await;

        // Denied by default: the run stops before the click, and says why.
        let server = LlmServer::with_script(script());
        let (result, page) = run(&ctx, &server, SafetyChecks::Deny).await;
        assert!(!result.success && !result.completed, "{}", result.message);
        assert!(result.message.contains("sensitive_domain"), "{}", result.message);
        assert!(result.message.contains("The page asks for an email address."), "{}", result.message);
        assert!(result.message.contains("--safety-checks allow"), "{}", result.message);
        assert_eq!(result.safety_checks.len(), 1);
        let check = &result.safety_checks[0];
        assert_eq!((check.code.as_str(), check.action.as_str(), check.acknowledged, check.step), ("sensitive_domain", "click", false, 4));
        assert_eq!(js(&page, "window.subscribed").await, Value::Null, "the flagged click never ran");
        assert_eq!(js(&page, "document.getElementById('email').value").await, json!(ADDRESS));
        assert_eq!(server.requests().len(), 4, "no request acknowledges the check");
        server.assert_no_malformed();
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["safety_checks"][0]["acknowledged"], json!(false));
        assert_eq!(json["mode"], json!("cua"));

        // Allowed: acknowledged, run, and recorded.
        let server = LlmServer::with_script(script());
        let (result, page) = run(&ctx, &server, SafetyChecks::Allow).await;
        assert!(result.success, "{}", result.message);
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS));
        assert_eq!(js(&page, "window.events[0]").await, json!("promo closed"), "closed by its own button");
        assert_eq!(result.safety_checks.len(), 1);
        assert!(result.safety_checks[0].acknowledged);
        assert!(result.report_html().contains("acknowledged under --safety-checks allow"));

        let reqs = server.requests();
        assert_eq!(reqs.len(), 5);
        assert_eq!(
            reqs[0].body["tools"][0],
            json!({"type": "computer_use_preview", "display_width": 1280, "display_height": 720, "environment": "browser"})
        );
        assert_eq!(reqs[0].tool_names(), ["computer", "removeBlocker", "handleDialog", "done"]);
        assert_eq!(reqs[0].body["truncation"], "auto");
        assert!(reqs[0].body.get("previous_response_id").is_none());
        assert_eq!(assert_screenshots(&reqs, 1280, 720), 5, "one screenshot per request");
        // Each request continues the response before it (the server refuses
        // an id it did not give, or a call left unanswered) and sends only
        // what is new.
        let ids: Vec<&str> = reqs[1..].iter().map(|r| r.body["previous_response_id"].as_str().unwrap()).collect();
        assert!(ids.iter().all(|id| id.starts_with("resp_")), "{ids:?}");
        assert!(ids.windows(2).all(|w| w[0] != w[1]), "{ids:?}");
        for after in &reqs[1..] {
            let input = after.body["input"].as_array().unwrap();
            assert_eq!(input[0]["type"], "computer_call_output");
            assert_eq!(input[0]["output"]["current_url"], json!(ctx.url()));
            assert!(input.iter().all(|i| i["type"] != "reasoning"), "history stays on the server");
        }
        // The acknowledgement answers the flagged call.
        let ack = &reqs[4].body["input"][0];
        assert_eq!(ack["acknowledged_safety_checks"][0]["code"], "sensitive_domain");
        assert_eq!(ack["acknowledged_safety_checks"][0]["id"], "cu_sc_1");
        // The page note rides along as user text.
        let note = reqs[1].last_user_text();
        assert!(note.contains("# Page position"), "{note}");
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// A GA model (`gpt-5.4`): the plain `computer` tool, and a batch of
/// actions in one `computer_call`, each reaching the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_ga_computer_tool_runs_a_batch_of_actions() {
    with_timeout("openai ga", async {
        let ctx = Ctx::new(1280, 720).await;
        let server = LlmServer::with_script(vec![
            Reply::computer_actions(vec![
                json!({"type": "click", "button": "left", "x": CLOSE.0, "y": CLOSE.1}),
                json!({"type": "double_click", "x": 250, "y": 395}),
                json!({"type": "click", "button": "left", "x": EMAIL.0, "y": EMAIL.1}),
                json!({"type": "type", "text": "wrong"}),
                json!({"type": "keypress", "keys": ["CTRL", "A"]}),
                json!({"type": "keypress", "keys": ["BACKSPACE"]}),
                json!({"type": "type", "text": ADDRESS}),
                json!({"type": "move", "x": 200, "y": 80}),
                json!({"type": "drag", "path": [{"x": 510, "y": 350}, {"x": 600, "y": 350}, {"x": 700, "y": 350}]}),
                json!({"type": "wait"}),
                json!({"type": "screenshot"}),
                json!({"type": "scroll", "x": 640, "y": 400, "scroll_x": 0, "scroll_y": 200}),
            ]),
            // A point off the screen is refused, not moved to its corner.
            Reply::computer(json!({"type": "click", "button": "right", "x": 5000, "y": -20})),
            // A function it was never offered: answered as a function call
            // (the API refuses a computer_call_output for it), and not run.
            Reply::tool("evaluate", json!({"function": "() => { window.ran = true }"})),
            Reply::tool("done", json!({"reasoning": "Done.", "taskComplete": true})),
        ]);
        let llm = llm("openai/gpt-5.4", server.openai_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Cua,
            start_url: Some(ctx.url()),
            ..AgentOptions::default()
        };
        let result = Agent::new(&page, &llm, opts).execute("Try the controls").await.unwrap();
        assert!(result.success, "{}\n{:#?}", result.message, result.actions);
        assert_eq!(js(&page, "window.events[0]").await, json!("promo closed"));
        assert_eq!(js(&page, "window.padClicks.length").await, json!(2));
        assert_eq!(
            js(&page, "document.getElementById('email').value").await,
            json!(ADDRESS)
        );
        assert!(js(&page, "window.hovered").await.as_u64().unwrap() >= 1);
        assert_eq!(js(&page, "window.sliderValue").await, json!(50));
        assert_eq!(js(&page, "window.scrollY").await, json!(200));

        let reqs = server.requests();
        assert_eq!(reqs.len(), 4);
        assert_eq!(reqs[0].body["tools"][0], json!({"type": "computer"}));
        assert!(
            reqs[2]
                .raw
                .contains("(5000, -20) is off the screen: it is 1280×720 (x 0-1279, y 0-719); nothing was done"),
            "{}",
            reqs[2].raw
        );
        assert_eq!(
            js(&page, "window.contextMenus").await,
            json!(0),
            "clicked at the corner"
        );
        let refused = &reqs[3].body["input"][0];
        assert_eq!(refused["type"], "function_call_output", "{refused}");
        assert!(
            refused["output"].as_str().is_some_and(
                |o| o.contains("there is no function \"evaluate\": your tools are the computer and removeBlocker")
            ),
            "{refused}"
        );
        assert_eq!(js(&page, "window.ran === undefined").await, json!(true), "evaluate ran");
        let output = &reqs[1].body["input"][0];
        assert_eq!(output["type"], "computer_call_output");
        assert_eq!(output["output"]["detail"], "original");
        assert!(
            output["output"].get("current_url").is_none(),
            "the GA output has no URL field"
        );
        assert!(
            reqs[1].last_user_text().contains(&ctx.url()),
            "the URL is in the page note"
        );
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// A refusal, or a turn with neither an action nor an answer, is no sign
/// the task was done: the run ends as not completed, with the model's
/// words. A final message is followed by done, which says whether it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_or_an_empty_answer_is_no_success() {
    with_timeout("openai refusal", async {
        let ctx = Ctx::new(1280, 720).await;
        let usage = json!({"input_tokens": 5, "output_tokens": 3, "total_tokens": 8});
        let refusal = json!({"id": "resp_r", "object": "response", "status": "completed", "usage": usage,
            "output": [{"type": "message", "id": "msg_r", "role": "assistant", "status": "completed",
                "content": [{"type": "refusal", "refusal": "I can't help with that."}]}]});
        let empty = json!({"id": "resp_e", "object": "response", "status": "completed", "usage": usage, "output": []});
        for (answer, said) in [
            (refusal, "the model refused: I can't help with that."),
            (empty, "the model ended its turn with neither an action nor an answer"),
        ] {
            let server = LlmServer::with_script(vec![click(CLOSE), Reply::raw(answer.to_string())]);
            let (result, _) = run(&ctx, &server, SafetyChecks::Deny).await;
            assert!(!result.success && !result.completed, "{}", result.message);
            assert_eq!(result.message, said);
            assert_eq!(result.actions.len(), 1, "the click before it is kept");
        }
        // A final message that says it could not: asked for done, which
        // says so too; completed, and no success.
        let server = LlmServer::with_script(vec![
            click(CLOSE),
            Reply::text("I could not subscribe: the form is closed."),
            Reply::tool(
                "done",
                json!({"reasoning": "The form is closed.", "taskComplete": false}),
            ),
        ]);
        let (result, _) = run(&ctx, &server, SafetyChecks::Deny).await;
        assert!(!result.success && result.completed, "{}", result.message);
        assert_eq!(result.message, "The form is closed.");
        let nudge = &server.requests()[2];
        assert_eq!(nudge.body["tool_choice"], json!({"type": "function", "name": "done"}));
        server.assert_no_malformed();
    })
    .await
}

/// A confirm() a click opens is in no screenshot: the turn's note says so
/// (with the last screenshot, as OpenAI needs one), other input waits for
/// its answer, and handleDialog gives it. Nothing waited out a CDP timeout
/// on the stopped page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dialog_is_told_and_waits_for_handle_dialog() {
    with_timeout("openai cua dialog", async {
        let ctx = Ctx::new(1280, 720).await;
        let server = LlmServer::with_script(vec![
            click((200.0, 125.0)),
            click((600.0, 400.0)),
            Reply::tool("handleDialog", json!({"accept": true})),
            Reply::tool("done", json!({"reasoning": "Deleted them.", "taskComplete": true})),
        ]);
        let llm = llm("openai/computer-use-preview", server.openai_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Cua,
            start_url: Some(ctx.files.url("cua/dialog.html")),
            ..AgentOptions::default()
        };
        let started = std::time::Instant::now();
        let result = Agent::new(&page, &llm, opts).execute("Delete all items").await.unwrap();
        assert!(result.success, "{result:?}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            js(&page, "document.getElementById('out').textContent").await,
            json!("Deleted")
        );
        let requests = server.requests();
        assert!(requests[0].tool_names().iter().any(|t| t == "handleDialog"), "offered");
        let open = "A confirm dialog is open: \\\"Delete all 500 items?\\\".";
        assert!(
            requests[1].raw.contains(open) && requests[1].raw.contains("does not show it"),
            "{}",
            requests[1].raw
        );
        // The second click was refused with the same words, and did nothing.
        let refused: Vec<&str> = result.actions.iter().map(|a| a.result.as_str()).collect();
        assert!(
            refused[1].contains("A confirm dialog is open") && !result.actions[1].trace.ok,
            "{refused:?}"
        );
        // Every computer call was answered with a screenshot at the display's size.
        assert!(assert_screenshots(&requests, 1280, 720) >= 3);
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}
