//! The evaluator and evals end to end: real Chromium on the shop fixture
//! (`tests/fixtures/eval/shop.html`: ordering shows a big green banner, or
//! a red one when the item is sold out), the real binary, and the scripted
//! model server, whose judge (`sightline_testkit::judge`) decodes the
//! screenshot it is sent and answers from its pixels. A judge that got no
//! screenshot, or not the final page's, answers wrongly and fails the test.
//!
//! `eval/evaluator.rs`: the library's Evaluator on each provider's wire,
//! junk answers, batch_ask. `eval/runs.rs`: `agent --evaluate`, runs that
//! never navigated or ended on an error page, `sightline evaluate`.
//! `eval/batch.rs`: verdicts on batch lines. `eval/suites.rs`: `sightline
//! eval` on the example suites.

mod batch;
mod evaluator;
mod runs;
mod suites;

use std::time::Duration;

use serde_json::json;
use sightline::{Llm, LlmOptions};
use sightline_testkit::{judge, FixtureServer, LlmServer, Recorded, Reply, Wire};

use crate::support::ref_of;

/// The stand-in agent's model: it reads images and has a computer tool, so
/// one model serves the dom, hybrid and cua modes.
pub const MODEL: &str = "anthropic/claude-sonnet-4-5";

/// The centre of the fixture's "Place order" button, in CSS pixels.
pub const BUY: (f64, f64) = (160.0, 145.0);

/// The shop fixture with `query` (`item=lamp`, `item=kettle&stock=0`, `show=placed`).
pub fn shop(files: &FixtureServer, query: &str) -> String {
    files.url(&format!("eval/shop.html?{query}"))
}

pub fn llm_for(server: &LlmServer, wire: Wire) -> Llm {
    let (model, base) = match wire {
        Wire::OpenAi => ("openai/gpt-4.1-mini", server.openai_base_url()),
        Wire::Anthropic => (MODEL, server.anthropic_base_url()),
        Wire::OpenAiResponses => ("openai/computer-use-preview", server.openai_base_url()),
        Wire::Gemini => ("google/gemini-2.5-flash", server.gemini_base_url()),
    };
    Llm::new(LlmOptions {
        model: Some(model.into()),
        base_url: Some(base),
        api_key: Some("test-key".into()),
        retry_base_delay: Duration::from_millis(50),
        ..LlmOptions::default()
    })
    .expect("llm")
}

/// A model for runs in any mode and their judge, answering from each
/// request alone (runs go on at once): judge requests get the pixel judge;
/// agent turns order the item and then claim success, whatever the page
/// says (so only a judge that looks can tell the runs apart); extract gets
/// the banner's text.
pub fn stand_in() -> LlmServer {
    LlmServer::answering(|rec: &Recorded| {
        if judge::is_judge_request(rec) {
            return judge::verdict(rec);
        }
        stand_in_run(rec)
    })
}

/// [`stand_in`]'s answers to the runs (not to the judge).
pub fn stand_in_run(rec: &Recorded) -> Reply {
    let tools = rec.tool_names();
    if tools.iter().any(|t| t == "computer") {
        return computer_turn(rec);
    }
    if tools.iter().any(|t| t == "done") {
        return dom_turn(rec);
    }
    let schema = rec.response_schema().cloned().unwrap_or_default();
    if !schema["properties"]["completed"].is_null() {
        return Reply::json(json!({"progress": "the banner", "completed": true}));
    }
    let text = rec.prompt_text();
    let banner = ["Order placed", "Sold out"]
        .into_iter()
        .find(|b| text.contains(b))
        .unwrap_or("no banner");
    Reply::json(json!({"extraction": banner}))
}

/// A DOM or hybrid turn: click "Place order" while the page shows no
/// outcome, then claim the task done.
fn dom_turn(rec: &Recorded) -> Reply {
    let text = rec.last_user_text();
    if text.contains("Order placed") || text.contains("Sold out") {
        return Reply::tool(
            "done",
            json!({"reasoning": "I placed the order.", "taskComplete": true, "output": "Ordered."}),
        );
    }
    let target = text
        .lines()
        .rev()
        .filter(|l| l.contains("button \"Place order\""))
        .find_map(ref_of)
        .unwrap_or_else(|| panic!("no Place order button in:\n{text}"));
    Reply::tool("click", json!({"target": target}))
}

/// A computer-use turn (Anthropic's tool): click the button once, at its
/// point on the declared display, then answer.
fn computer_turn(rec: &Recorded) -> Reply {
    let clicked = rec.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .any(|b| b["type"] == "tool_use" && b["name"] == "computer");
    if rec.last_user_text().starts_with("You answered without calling done.") {
        return Reply::tool(
            "done",
            json!({"reasoning": "I placed the order.", "taskComplete": true, "output": "Ordered."}),
        );
    }
    if clicked {
        return Reply::text("I placed the order.");
    }
    let (w, _) = rec.declared_display().expect("the computer tool declares its display");
    let s = f64::from(w) / 1280.0;
    Reply::tool(
        "computer",
        json!({"action": "left_click", "coordinate": [(BUY.0 * s).round(), (BUY.1 * s).round()]}),
    )
}

/// Every judge request the server got.
pub fn judge_requests(server: &LlmServer) -> Vec<Recorded> {
    server.requests().into_iter().filter(judge::is_judge_request).collect()
}
