//! Gemini's computer use: coordinates on the 0–999 grid mapped onto a
//! 1000×700 viewport (so x and y scale differently), `type_text_at` with
//! its defaults (clear first) and `press_enter`, every function response
//! carrying the URL and the screenshot, and a `require_confirmation`
//! safety decision, through the command line: denied without
//! `--safety-checks allow`, acknowledged with it.

use serde_json::{json, Value};
use sightline_testkit::{LlmServer, Reply};

use super::*;
use crate::support::{run_cli_env, with_timeout};

const MODEL: &str = "google/gemini-2.5-computer-use-preview-10-2025";

/// A CSS point of the 1000×700 viewport on Gemini's grid.
fn grid(p: (f64, f64)) -> (f64, f64) {
    ((p.0 / 1000.0 * 1000.0).round(), (p.1 / 700.0 * 1000.0).round())
}

fn script() -> Vec<Reply> {
    let close = grid(CLOSE);
    let email = grid(EMAIL);
    vec![
        Reply::tool("click_at", json!({"x": close.0, "y": close.1})),
        Reply::tool(
            "type_text_at",
            json!({"x": email.0, "y": email.1, "text": ADDRESS, "press_enter": true,
                   "safety_decision": {"decision": "require_confirmation", "explanation": "Submits a form with an email address."}}),
        ),
        Reply::tool("done", json!({"reasoning": "Subscribed.", "taskComplete": true})),
    ]
}

fn agent(ctx: &Ctx, server: &LlmServer, extra: &[&str]) -> crate::support::CliOutput {
    let url = ctx.url();
    let base = server.gemini_base_url();
    let mut args = vec![
        "agent",
        "Subscribe ada@example.org to the newsletter",
        "--mode",
        "cua",
        "--model",
        MODEL,
        "--base-url",
        &base,
        "--url",
        &url,
        "--viewport",
        "1000x700",
        "--json",
    ];
    args.extend_from_slice(extra);
    run_cli_env(&args, &[("GEMINI_API_KEY", "test-key")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_normalised_coordinates_and_safety_decisions_from_the_cli() {
    with_timeout("gemini cua", async {
        let ctx = Ctx::new(1000, 700).await;
        // Denied by default.
        let server = LlmServer::with_script(script());
        let out = agent(&ctx, &server, &[]);
        assert!(!out.status.success());
        let result: Value = serde_json::from_str(out.stdout.trim()).expect("the result is printed");
        assert_eq!(result["completed"], json!(false));
        assert_eq!(result["safety_checks"][0]["code"], "require_confirmation");
        assert_eq!(result["safety_checks"][0]["action"], "type_text_at");
        assert_eq!(result["safety_checks"][0]["acknowledged"], json!(false));
        let message = result["message"].as_str().unwrap();
        assert!(message.contains("Submits a form with an email address."), "{message}");
        assert!(out.stderr.contains("safety check"), "{}", out.stderr);
        assert_eq!(server.requests().len(), 2);
        server.assert_no_malformed();

        // Allowed: acknowledged in the function response, recorded in the result.
        let server = LlmServer::with_script(script());
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.html");
        let out = agent(
            &ctx,
            &server,
            &["--safety-checks", "allow", "--report", report.to_str().unwrap()],
        );
        out.assert_success();
        let result: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(result["success"], json!(true), "{result}");
        assert_eq!(result["message"], "Subscribed.");
        assert_eq!(result["safety_checks"][0]["acknowledged"], json!(true));
        let tools: Vec<&str> = result["actions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["tool"].as_str().unwrap())
            .collect();
        assert_eq!(tools, ["clickAt", "typeAt", "done"]);
        // The grid maps to CSS pixels per axis: x as is, y × 0.7 (floored,
        // as Google's reference does): 190 → 271 on the grid → 189.
        assert_eq!(result["actions"][0]["arguments"], json!({"x": 860.0, "y": 189.0}));
        let type_args = &result["actions"][1]["arguments"];
        assert_eq!(
            (type_args["x"].as_f64(), type_args["y"].as_f64()),
            (Some(300.0), Some(219.0))
        );
        assert_eq!(
            (type_args["clear"].as_bool(), type_args["submit"].as_bool()),
            (Some(true), Some(true))
        );
        let html = std::fs::read_to_string(&report).unwrap();
        assert!(html.contains("class=\"point\""), "the report marks the clicks");

        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        assert!(reqs
            .iter()
            .all(|r| r.model() == Some("gemini-2.5-computer-use-preview-10-2025")));
        for r in &reqs {
            assert_eq!(
                r.body["tools"][0],
                json!({"computerUse": {"environment": "ENVIRONMENT_BROWSER"}})
            );
            assert_eq!(r.tool_names(), ["removeBlocker", "handleDialog", "done"]);
            assert_eq!(r.header("x-goog-api-key"), Some("test-key"));
        }
        assert!(assert_screenshots(&reqs, 1000, 700) >= 3);
        // Every function response carries the URL and a screenshot.
        let turn = reqs[2].body["contents"].as_array().unwrap().last().unwrap().clone();
        let response = &turn["parts"][0]["functionResponse"];
        assert_eq!(response["name"], "type_text_at");
        assert_eq!(response["response"]["url"], json!(ctx.url()));
        assert_eq!(response["response"]["safety_acknowledgement"], "true");
        assert_eq!(response["parts"][0]["inlineData"]["mimeType"], "image/png");
        assert!(response["response"]["page"]
            .as_str()
            .unwrap()
            .contains("# Page position"));
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// Gemini's browser functions, each checked in the page (the viewport is
/// 1280×720: y and x scale differently on the grid).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_browser_functions_reach_the_page() {
    with_timeout("gemini functions", async {
        let ctx = Ctx::new(1280, 720).await;
        let g = |p: (f64, f64)| ((p.0 / 1280.0 * 1000.0).round(), (p.1 / 720.0 * 1000.0).round());
        let (close, email, knob, end, mid) = (g(CLOSE), g(EMAIL), g((510.0, 350.0)), g((700.0, 350.0)), g((640.0, 400.0)));
        let other = ctx.files.url("short.html");
        let server = LlmServer::with_script(vec![
            Reply::tool("open_web_browser", json!({})),
            Reply::tool("navigate", json!({"url": other})),
            Reply::tool("go_back", json!({})),
            Reply::tool("go_forward", json!({})),
            Reply::tool("go_back", json!({})),
            Reply::tool("click_at", json!({"x": close.0, "y": close.1})),
            Reply::tool("hover_at", json!({"x": g((200.0, 80.0)).0, "y": g((200.0, 80.0)).1})),
            Reply::tool(
                "type_text_at",
                json!({"x": email.0, "y": email.1, "text": ADDRESS, "clear_before_typing": false, "press_enter": false}),
            ),
            Reply::tool("key_combination", json!({"keys": "Enter"})),
            Reply::tool("drag_and_drop", json!({"x": knob.0, "y": knob.1, "destination_x": end.0, "destination_y": end.1})),
            Reply::tool("scroll_at", json!({"x": mid.0, "y": mid.1, "direction": "down", "magnitude": 100})),
            Reply::tool("scroll_document", json!({"direction": "down"})),
            Reply::tool("done", json!({"reasoning": "Done.", "taskComplete": true})),
        ]);
        let llm = llm(MODEL, server.gemini_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = sightline::AgentOptions {
            mode: sightline::AgentMode::Cua,
            start_url: Some(ctx.url()),
            ..sightline::AgentOptions::default()
        };
        let result = sightline::Agent::new(&page, &llm, opts).execute("Try the controls").await.unwrap();
        assert!(result.success, "{}\n{:#?}", result.message, result.actions);
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS), "typed, then Enter");
        assert!(js(&page, "window.hovered").await.as_u64().unwrap() >= 1);
        let slider = js(&page, "window.sliderValue").await.as_i64().unwrap();
        assert!((49..=51).contains(&slider), "{slider}");
        // 100 on the grid is 72 px; then a screen (720 px).
        assert_eq!(js(&page, "window.scrollY").await, json!(792));
        // Each function response names the page it left the browser on.
        let urls: Vec<String> = server
            .requests()
            .iter()
            .skip(2)
            .take(4)
            .map(|r| {
                let last = r.body["contents"].as_array().unwrap().last().unwrap().clone();
                last["parts"][0]["functionResponse"]["response"]["url"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(urls, [other.clone(), ctx.url(), other, ctx.url()]);
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// Gemini 3.5 Flash's function set (`click`, `type`, `hotkey`, `scroll`,
/// `key_down`…, each with an `intent`), each checked in the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_3_5_functions_reach_the_page() {
    with_timeout("gemini 3.5 functions", async {
        let ctx = Ctx::new(1280, 720).await;
        let g = |p: (f64, f64)| ((p.0 / 1280.0 * 1000.0).round(), (p.1 / 720.0 * 1000.0).round());
        let at = |p: (f64, f64), intent: &str| json!({"x": g(p).0, "y": g(p).1, "intent": intent});
        let (knob, end, pad) = (g((510.0, 350.0)), g((700.0, 350.0)), (250.0, 395.0));
        let server = LlmServer::with_script(vec![
            Reply::tool("click", at(CLOSE, "close the promo")),
            Reply::tool("move", at((200.0, 80.0), "look at the heading")),
            Reply::tool("click", at(EMAIL, "focus the email field")),
            Reply::tool("type", json!({"text": ADDRESS, "press_enter": true, "intent": "subscribe"})),
            Reply::tool("key_down", json!({"key": "shift", "intent": "hold shift"})),
            Reply::tool("click", at(pad, "shift-click the pad")),
            Reply::tool("key_up", json!({"key": "shift", "intent": "release shift"})),
            Reply::tool("click", at(pad, "click the pad")),
            Reply::tool("right_click", at(pad, "open the context menu")),
            Reply::tool("middle_click", at(pad, "middle click")),
            Reply::tool("press_key", json!({"key": "Escape", "intent": "close it"})),
            Reply::tool("drag_and_drop", json!({"start_x": knob.0, "start_y": knob.1, "end_x": end.0, "end_y": end.1, "intent": "slide"})),
            Reply::tool("scroll", json!({"x": g((640.0, 400.0)).0, "y": g((640.0, 400.0)).1, "direction": "down", "magnitude_in_pixels": 150, "intent": "scroll a bit"})),
            Reply::tool("wait", json!({"seconds": 1, "intent": "let it settle"})),
            // (Last: a drag inside a selection would drag its text.)
            Reply::tool("hotkey", json!({"keys": ["control", "a"], "intent": "select all"})),
            Reply::tool("take_screenshot", json!({"intent": "look"})),
            Reply::tool("done", json!({"reasoning": "Done.", "taskComplete": true})),
        ]);
        let llm = llm("google/gemini-3.5-flash", server.gemini_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = sightline::AgentOptions {
            mode: sightline::AgentMode::Cua,
            start_url: Some(ctx.url()),
            ..sightline::AgentOptions::default()
        };
        let result = sightline::Agent::new(&page, &llm, opts).execute("Try the controls").await.unwrap();
        assert!(result.success, "{}\n{:#?}", result.message, result.actions);
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS), "typed, then Enter");
        assert!(js(&page, "window.hovered").await.as_u64().unwrap() >= 1);
        let clicks = js(&page, "window.padClicks.map((c) => c[3])").await;
        assert_eq!(clicks, json!([true, false]), "Shift held for the first click only");
        assert_eq!(js(&page, "window.contextMenus").await, json!(1));
        assert_eq!(js(&page, "window.middleClicks").await, json!(1));
        let keys = js(&page, "window.keys.join(' ')").await;
        assert!(keys.as_str().unwrap().contains("Escape"), "{keys}");
        let slider = js(&page, "window.sliderValue").await.as_i64().unwrap();
        assert!((49..=51).contains(&slider), "{slider}");
        assert_eq!(js(&page, "window.scrollY").await, json!(150), "150 screenshot pixels");
        let selected = js(&page, "String(getSelection()).includes('Spring newsletter')").await;
        assert_eq!(selected, json!(true), "Control+A");
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}
