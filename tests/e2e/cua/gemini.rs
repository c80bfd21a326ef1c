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
        Reply::text("Subscribed."),
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
        assert_eq!(tools, ["clickAt", "typeAt"]);
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
            assert_eq!(r.tool_names(), ["removeBlocker"]);
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
