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
            Reply::text("Subscribed ada@example.org to the newsletter."),
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
        assert_eq!(tools, ["screenshot", "removeBlocker", "clickAt", "type", "press"]);
        for a in &result.actions {
            assert!(a.trace.ok, "{} failed: {}", a.tool, a.result);
        }
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS));
        assert_eq!(js(&page, "document.getElementById('promo')").await, Value::Null);

        let reqs = server.requests();
        assert_eq!(reqs.len(), 6);
        for r in &reqs {
            assert_eq!(r.header("anthropic-beta"), Some("computer-use-2025-01-24"));
            assert_eq!(r.declared_display(), Some((1280, 800)), "the scaled display");
            assert_eq!(r.tool_names(), ["computer", "removeBlocker"]);
        }
        // Every screenshot sent is at the declared size, not the viewport's.
        assert!(assert_screenshots(&reqs, 1280, 800) >= 6);
        // The first turn: the task, the page note and a screenshot.
        let first = reqs[0].last_user_text();
        assert!(first.contains("Subscribe ada@example.org"), "{first}");
        assert!(
            first.contains("# Page position: 0 viewports above, 1 viewport below."),
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
        let replayed = run
            .replay(
                &fresh,
                &ReplayOptions {
                    variables: Default::default(),
                    llm: None,
                },
            )
            .await
            .unwrap();
        assert!(replayed.success, "{:?}", replayed.steps);
        assert_eq!(js(&fresh, "window.subscribed").await, json!(ADDRESS));
        // The form moved 70 px down: the recorded element is clicked where it now is.
        let mut shifted = run.clone();
        shifted.start_url = Some(format!("{}?shift", ctx.url()));
        let moved = ctx.browser.new_page().await.unwrap();
        let replayed = shifted
            .replay(
                &moved,
                &ReplayOptions {
                    variables: Default::default(),
                    llm: None,
                },
            )
            .await
            .unwrap();
        assert!(replayed.success, "{:?}", replayed.steps);
        assert!(
            replayed.steps[1].detail.contains("moved away"),
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
