//! Anthropic's computer tool on a viewport larger than Anthropic
//! recommends: screenshots and coordinates at 1280×800 for a 1600×1000
//! viewport, removeBlocker beside the computer tool, old screenshots
//! dropped, the report's click points, and the run replayed with no model
//! (also after the layout moved).

use serde_json::{json, Value};
use sightline::{Agent, AgentMode, AgentOptions, ReplayOptions};
use sightline_testkit::{LlmServer, Recorded, Reply};

use super::*;
use crate::support::{run_cli, with_timeout};

/// A left click at a CSS point, in the display pixels the request declares.
fn click(css: (f64, f64), viewport_width: f64) -> Reply {
    Reply::dynamic(move |rec: &Recorded| {
        let (w, _) = rec.declared_display().expect("the request declares its display");
        let s = f64::from(w) / viewport_width;
        Reply::tool(
            "computer",
            json!({"action": "left_click", "coordinate": [(css.0 * s).round(), (css.1 * s).round()]}),
        )
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_on_a_scaled_display_removes_the_promo_subscribes_and_replays() {
    with_timeout("anthropic cua", async {
        let ctx = Ctx::new(1600, 1000).await;
        let server = LlmServer::with_script(vec![
            Reply::tool("computer", json!({"action": "screenshot"})),
            // A promo in the way: the page sense says so, removeBlocker closes it.
            Reply::tool("removeBlocker", json!({})),
            click(EMAIL, 1600.0),
            Reply::tool("computer", json!({"action": "type", "text": ADDRESS})),
            Reply::tool("computer", json!({"action": "key", "text": "Return"})),
            // A final message alone: asked to call done, which says whether it was done.
            Reply::text("Subscribed ada@example.org to the newsletter."),
            Reply::tool(
                "done",
                json!({"reasoning": "Subscribed ada@example.org to the newsletter.", "taskComplete": true}),
            ),
        ]);
        let llm = llm("anthropic/claude-sonnet-4-5-20250929", server.anthropic_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Cua,
            start_url: Some(ctx.url()),
            screenshots: true,
            ..AgentOptions::default()
        };
        let result = Agent::new(&page, &llm, opts)
            .execute("Subscribe ada@example.org to the newsletter")
            .await
            .unwrap();
        let tools: Vec<&str> = result.actions.iter().map(|a| a.tool.as_str()).collect();
        assert!(result.success && result.completed, "{}\n{tools:?}", result.message);
        assert_eq!(result.message, "Subscribed ada@example.org to the newsletter.");
        assert_eq!(
            tools,
            ["screenshot", "removeBlocker", "clickAt", "type", "press", "done"]
        );
        for a in &result.actions {
            assert!(a.trace.ok, "{} failed: {}", a.tool, a.result);
        }
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS));
        assert_eq!(js(&page, "document.getElementById('promo')").await, Value::Null);

        let reqs = server.requests();
        assert_eq!(reqs.len(), 7);
        for r in &reqs {
            assert_eq!(r.header("anthropic-beta"), Some("computer-use-2025-01-24"));
            assert_eq!(r.declared_display(), Some((1280, 800)), "the scaled display");
            assert_eq!(r.tool_names(), ["computer", "removeBlocker", "handleDialog", "done"]);
        }
        assert!(reqs[6]
            .last_user_text()
            .starts_with("You answered without calling done."));
        assert_eq!(reqs[6].body["tool_choice"], json!({"type": "tool", "name": "done"}));
        assert_eq!(reqs[5].body["tool_choice"], json!({"type": "auto"}));
        // Every screenshot sent is at the declared size, not the viewport's.
        assert!(assert_screenshots(&reqs, 1280, 800) >= 6);
        // The first turn: the task, the page note and a screenshot.
        let first = reqs[0].last_user_text();
        assert!(first.contains("Subscribe ada@example.org"), "{first}");
        assert!(
            first.contains("# Page position: at the top, 2 viewports below."),
            "{first}"
        );
        assert!(first.contains("A modal dialog is open (Spring sale)"), "{first}");
        assert_eq!(reqs[0].images().len(), 1);
        // A computer call's tool_result: the screenshot, the URL, the page note.
        let after_click = &reqs[3].body["messages"].as_array().unwrap().last().unwrap()["content"][0];
        assert_eq!(after_click["type"], "tool_result");
        assert_eq!(after_click["content"][0]["type"], "image");
        let note = after_click["content"][1]["text"].as_str().unwrap();
        assert!(note.starts_with(&format!("Current URL: {}", ctx.url())), "{note}");
        assert!(note.contains("# Page position"), "{note}");
        assert!(!note.contains("A modal dialog is open"), "the promo is gone: {note}");
        // Only the latest screenshots stay (3 by default).
        assert_eq!(reqs[5].images().len(), 3);
        assert!(reqs[5].prompt_text().contains("[older screenshot omitted]"));

        // The report marks where the click landed (in CSS pixels of the viewport).
        let click = &result.actions[2];
        assert_eq!(click.trace.point, Some((300.0, 220.0)));
        assert!(result.report_html().contains("class=\"point\" title=\"(300, 220)\""));

        // Replay: no model, the same effect.
        let run = result.run.clone();
        let steps: Vec<&str> = run.steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(steps, ["removeBlocker", "clickAt", "type", "press"]);
        assert_eq!(run.steps[1].args["target"], json!("#email"), "{:?}", run.steps[1]);
        let fresh = ctx.browser.new_page().await.unwrap();
        let replayed = replay_without_a_model(&run, &fresh).await;
        assert!(replayed.success, "{:?}", replayed.steps);
        assert_eq!(js(&fresh, "window.subscribed").await, json!(ADDRESS));
        // The form moved 70 px down: the recorded element is clicked where it
        // now is, at the same place on it.
        let mut shifted = run.clone();
        shifted.start_url = Some(format!("{}?shift", ctx.url()));
        let moved = ctx.browser.new_page().await.unwrap();
        let replayed = replay_without_a_model(&shifted, &moved).await;
        assert!(replayed.success, "{:?}", replayed.steps);
        assert!(
            replayed.steps[1]
                .detail
                .contains("(300, 290) on textbox \"Email\" (it moved from (300, 220): the same place on it)"),
            "{:?}",
            replayed.steps[1]
        );
        assert_eq!(js(&moved, "window.subscribed").await, json!(ADDRESS));
        // And through the command line, with no model configured.
        let dir = tempfile::tempdir().unwrap();
        let saved = dir.path().join("run.json");
        run.save(&saved).unwrap();
        let out = run_cli(&["replay", saved.to_str().unwrap(), "--json", "--viewport", "1600x1000"]);
        out.assert_success();
        let report: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(report["success"], json!(true), "{report}");
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// `run` played again on `page`, with no model.
async fn replay_without_a_model(run: &sightline::SavedRun, page: &sightline::Page) -> sightline::ReplayReport {
    let opts = ReplayOptions {
        variables: Default::default(),
        llm: None,
        browser: None,
    };
    run.replay(page, &opts).await.unwrap()
}

fn computer(input: Value) -> Reply {
    Reply::tool("computer", input)
}

/// Every action of the computer tool, each checked in the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_every_computer_action_reaches_the_page() {
    with_timeout("anthropic actions", async {
        let ctx = Ctx::new(1280, 720).await;
        let server = LlmServer::with_script(vec![
            Reply::tool("removeBlocker", json!({})),
            computer(json!({"action": "mouse_move", "coordinate": [200, 80]})),
            computer(json!({"action": "cursor_position"})),
            computer(json!({"action": "double_click", "coordinate": [250, 395]})),
            computer(json!({"action": "triple_click", "coordinate": [300, 220]})),
            computer(json!({"action": "type", "text": "x"})),
            computer(json!({"action": "key", "text": "ctrl+a BackSpace"})),
            computer(json!({"action": "hold_key", "text": "shift", "duration": 0.3})),
            computer(json!({"action": "left_click_drag", "start_coordinate": [510, 350], "coordinate": [700, 350]})),
            computer(json!({"action": "left_mouse_down", "coordinate": [700, 350]})),
            computer(json!({"action": "mouse_move", "coordinate": [800, 350]})),
            computer(json!({"action": "left_mouse_up"})),
            computer(json!({"action": "right_click", "coordinate": [1000, 500]})),
            computer(json!({"action": "middle_click", "coordinate": [1000, 500]})),
            computer(json!({"action": "wait", "duration": 0.1})),
            computer(json!({"action": "zoom", "region": [0, 0, 10, 10]})),
            computer(
                json!({"action": "scroll", "coordinate": [640, 400], "scroll_direction": "down", "scroll_amount": 3}),
            ),
            Reply::tool("done", json!({"reasoning": "Done.", "taskComplete": true})),
        ]);
        let llm = llm("anthropic/claude-sonnet-4-5-20250929", server.anthropic_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Cua,
            start_url: Some(ctx.url()),
            ..AgentOptions::default()
        };
        let result = Agent::new(&page, &llm, opts)
            .execute("Try every control")
            .await
            .unwrap();
        assert!(result.success, "{}\n{:#?}", result.message, result.actions);
        assert!(
            js(&page, "window.hovered").await.as_u64().unwrap() >= 1,
            "mouse_move hovers"
        );
        let pad = js(&page, "window.padClicks.length").await;
        assert_eq!(pad, json!(2), "a double click is two clicks");
        assert_eq!(
            js(&page, "document.getElementById('email').value").await,
            json!(""),
            "typed, then ctrl+a BackSpace"
        );
        let held = js(&page, "window.held.Shift").await.as_f64().unwrap();
        assert!(held >= 290.0, "shift held for the 0.3 s asked: {held} ms");
        assert_eq!(
            js(&page, "window.sliderValue").await,
            json!(76),
            "dragged, then pressed, moved (to 800) and released by hand"
        );
        assert_eq!(js(&page, "window.contextMenus").await, json!(1));
        assert_eq!(js(&page, "window.middleClicks").await, json!(1));
        assert_eq!(js(&page, "window.scrollY").await, json!(300), "three wheel notches");

        let reqs = server.requests();
        // cursor_position answers in display pixels.
        assert!(
            reqs[3].last_user_text().contains("X=200,Y=80"),
            "{}",
            reqs[3].last_user_text()
        );
        // zoom is not enabled: an error the model reads, and the run goes on.
        let zoomed = reqs[16].body["messages"].as_array().unwrap().last().unwrap()["content"][0].clone();
        assert_eq!(zoomed["is_error"], json!(true), "{zoomed}");
        let tools: Vec<&str> = result.actions.iter().map(|a| a.tool.as_str()).collect();
        for t in [
            "hoverAt",
            "cursor_position",
            "clickAt",
            "type",
            "press",
            "dragAt",
            "mouseDown",
            "mouseUp",
            "wait",
            "scrollAt",
        ] {
            assert!(tools.contains(&t), "{t} in {tools:?}");
        }
        // The drag by hand is recorded as done (press, move, release), and
        // replays to the same value with no model.
        let steps: Vec<&str> = result.run.steps.iter().map(|s| s.tool.as_str()).collect();
        let down = steps
            .iter()
            .position(|t| *t == "mouseDown")
            .expect("mouseDown recorded");
        assert_eq!(steps[down..down + 3], ["mouseDown", "hoverAt", "mouseUp"], "{steps:?}");
        // (A release with no coordinate is recorded where it happened.)
        assert_eq!(result.run.steps[down + 2].args, json!({"x": 800.0, "y": 350.0}));
        let fresh = ctx.browser.new_page().await.unwrap();
        let replayed = replay_without_a_model(&result.run, &fresh).await;
        assert!(replayed.success, "{:?}", replayed.steps);
        assert_eq!(js(&fresh, "window.sliderValue").await, json!(76), "{steps:?}");
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// Models of Anthropic's newer table get the 2025-11-24 tool and beta.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_newer_models_get_the_newer_computer_tool() {
    with_timeout("anthropic 20251124", async {
        let ctx = Ctx::new(1280, 720).await;
        let server = LlmServer::with_script(vec![
            computer(json!({"action": "left_click", "coordinate": [CLOSE.0, CLOSE.1]})),
            Reply::text("Closed the promo."),
            Reply::tool("done", json!({"reasoning": "Closed the promo.", "taskComplete": true})),
        ]);
        let llm = llm("anthropic/claude-sonnet-4-6", server.anthropic_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Cua,
            start_url: Some(ctx.url()),
            ..AgentOptions::default()
        };
        let result = Agent::new(&page, &llm, opts).execute("Close the promo").await.unwrap();
        assert!(result.success, "{}", result.message);
        assert_eq!(js(&page, "window.events[0]").await, json!("promo closed"));
        for r in server.requests() {
            assert_eq!(r.header("anthropic-beta"), Some("computer-use-2025-11-24"));
            assert_eq!(r.body["tools"][0]["type"], "computer_20251124");
        }
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// A `%name%` value typed into the page is covered in the screenshots the
/// model gets, as it is replaced in the text: the field is painted over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_secret_is_covered_in_the_screenshots() {
    with_timeout("anthropic secret screenshot", async {
        let ctx = Ctx::new(1280, 800).await;
        let server = LlmServer::with_script(vec![
            Reply::tool("removeBlocker", json!({})),
            click(EMAIL, 1280.0),
            Reply::tool("computer", json!({"action": "type", "text": "%email%"})),
            Reply::tool("done", json!({"reasoning": "Typed it.", "taskComplete": true})),
        ]);
        let email = sightline::Variables::new([("email".to_string(), ADDRESS.to_string())].into()).unwrap();
        let (result, page) = run_on(&ctx, &server, "Type my email", email).await;
        assert!(result.success, "{}", result.message);
        assert_eq!(
            js(&page, "document.getElementById('email').value").await,
            json!(ADDRESS)
        );
        let reqs = server.requests();
        let at_field = |i: usize| {
            let shot = reqs[i].screenshots().pop().expect("a screenshot");
            shot.pixel(EMAIL.0 as u32, EMAIL.1 as u32)
        };
        let covered = [60, 60, 60, 255];
        assert_ne!(at_field(2), covered, "the empty field shows as it is");
        assert_eq!(at_field(3), covered, "the field holding the secret is covered");
        server.assert_never_saw(ADDRESS);
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// A done sent beside an action that failed, in one turn, is not accepted:
/// the model has not seen the failure yet.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn done_beside_a_failed_action_is_not_accepted() {
    with_timeout("anthropic done after a failure", async {
        let ctx = Ctx::new(1280, 800).await;
        let server = LlmServer::with_script(vec![
            Reply::tools(vec![
                ("computer", json!({"action": "left_click", "coordinate": [5000, 10]})),
                ("done", json!({"reasoning": "Clicked it.", "taskComplete": true})),
            ]),
            Reply::tool(
                "done",
                json!({"reasoning": "The button is off the screen.", "taskComplete": false}),
            ),
        ]);
        let (result, _) = run_on(&ctx, &server, "Click the corner", sightline::Variables::default()).await;
        assert!(!result.success && result.completed, "{}", result.message);
        assert_eq!(result.message, "The button is off the screen.");
        let refused = server.requests()[1].raw.clone();
        assert!(
            refused.contains("done was not accepted: an action failed in this same turn"),
            "{refused}"
        );
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// Several computer actions in one turn: one screenshot answers them (on
/// the last result), so copies do not push the earlier ones out of the
/// history kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_actions_in_a_turn_get_one_screenshot() {
    with_timeout("anthropic one screenshot a turn", async {
        let ctx = Ctx::new(1280, 800).await;
        let server = LlmServer::with_script(vec![
            Reply::tools(vec![
                ("computer", json!({"action": "mouse_move", "coordinate": [100, 100]})),
                ("computer", json!({"action": "mouse_move", "coordinate": [200, 200]})),
                ("computer", json!({"action": "mouse_move", "coordinate": [300, 300]})),
            ]),
            Reply::tool("done", json!({"reasoning": "Moved.", "taskComplete": true})),
        ]);
        let (result, _) = run_on(&ctx, &server, "Move the mouse", sightline::Variables::default()).await;
        assert!(result.success, "{}", result.message);
        let requests = server.requests();
        let (first, second) = (requests[0].images().len(), requests[1].images().len());
        assert_eq!(second, first + 1, "one screenshot for the turn's three results");
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// A computer-use run of `task` on the fixture page with a Claude model,
/// with these `%name%` variables.
async fn run_on(
    ctx: &Ctx,
    server: &LlmServer,
    task: &str,
    variables: sightline::Variables,
) -> (sightline::AgentResult, sightline::Page) {
    let llm = llm("anthropic/claude-sonnet-4-5-20250929", server.anthropic_base_url());
    let page = ctx.browser.new_page().await.unwrap();
    let opts = AgentOptions {
        mode: AgentMode::Cua,
        start_url: Some(ctx.url()),
        variables,
        ..AgentOptions::default()
    };
    (Agent::new(&page, &llm, opts).execute(task).await.unwrap(), page)
}
