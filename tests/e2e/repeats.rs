//! An agent that goes round in circles: the same call again and again on a
//! page that stays as it was. The model is told at the third time, and the
//! run ends at the fifth, saying why, instead of running to `max_steps`.
//! The same call that changes the page each time, and waiting for a slow
//! page, go on. DOM mode (OpenAI Chat) and computer use (Anthropic).

use serde_json::json;
use sightline::{Agent, AgentMode, AgentOptions, Browser, LaunchOptions};
use sightline_testkit::{FixtureServer, LlmServer, Recorded, Reply};

use crate::cua::{self, Ctx};
use crate::support::{ref_of, with_timeout};

/// A click on the button named `name`, by its ref in the latest page message.
fn click_button(name: &'static str) -> Reply {
    Reply::dynamic(move |rec: &Recorded| {
        let text = rec.prompt_text();
        let needle = format!("button \"{name}\"");
        let target = text
            .lines()
            .rev()
            .filter(|l| l.contains(&needle))
            .find_map(ref_of)
            .unwrap_or_else(|| panic!("no ref for {needle} in:\n{text}"));
        Reply::tool("click", json!({ "target": target }))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dom_agent_repeating_a_click_that_changes_nothing_is_told_then_stopped() {
    with_timeout("repeats: dom", async {
        let files = FixtureServer::start();
        let done = Reply::tool("done", json!({"reasoning": "Checked.", "taskComplete": true}));
        let mut script = vec![click_button("Check status"); 4];
        script.extend(vec![click_button("Load more orders"); 8]);
        script.push(done);
        let server = LlmServer::with_script(script);
        let llm = cua::llm("openai/gpt-4.1-mini", server.openai_base_url());
        let browser = Browser::launch(LaunchOptions::default()).await.unwrap();
        let page = browser.new_page().await.unwrap();
        let opts = AgentOptions {
            start_url: Some(files.url("llm/stuck.html")),
            max_steps: 20,
            ..AgentOptions::default()
        };
        let r = Agent::new(&page, &llm, opts)
            .execute("Show all my orders")
            .await
            .unwrap();
        // Four clicks that each changed the page, then five that did not.
        assert!(!r.success && !r.completed, "{r:?}");
        assert_eq!(r.steps, 9, "{}", r.message);
        assert!(
            r.message.contains("the same thing 5 times in its last 5 turns") && r.message.contains("click {\"target\""),
            "{}",
            r.message
        );
        assert_eq!(cua::js(&page, "window.checks").await, json!(4));
        assert_eq!(cua::js(&page, "window.loadMoreClicks").await, json!(5));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 9, "no model call after the stop");
        let note = "this is the 3rd time in a row";
        let told: Vec<usize> = reqs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.last_user_text().contains(note))
            .map(|(i, _)| i)
            .collect();
        // The third "Load more" click's results (request 7) carry the note.
        assert_eq!(told, [7], "{}", reqs[7].last_user_text());
        server.assert_no_malformed();
        browser.close().await.unwrap();
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computer_use_agent_clicking_one_spot_in_vain_stops_and_waiting_is_no_loop() {
    with_timeout("repeats: cua", async {
        let ctx = Ctx::new(1280, 800).await;
        // Inside the promo dialog's text: nothing there reacts to a click.
        let inert = json!({"action": "left_click", "coordinate": [600, 400]});
        let wait = json!({"action": "wait", "duration": 0.2});
        let mut script = vec![Reply::tool("computer", wait); 6];
        script.extend(vec![Reply::tool("computer", inert); 7]);
        script.push(Reply::tool("done", json!({"reasoning": "Done.", "taskComplete": true})));
        let server = LlmServer::with_script(script);
        let llm = cua::llm("anthropic/claude-sonnet-4-5-20250929", server.anthropic_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Cua,
            start_url: Some(ctx.url()),
            max_steps: 20,
            ..AgentOptions::default()
        };
        let r = Agent::new(&page, &llm, opts)
            .execute("Subscribe ada@example.org to the newsletter")
            .await
            .unwrap();
        assert!(!r.success, "{r:?}");
        // Six waits go on; the fifth click in vain ends the run.
        assert_eq!(r.steps, 11, "{}", r.message);
        assert!(
            r.message.contains("the same thing 5 times in its last 5 turns"),
            "{}",
            r.message
        );
        let reqs = server.requests();
        assert_eq!(reqs.len(), 11);
        let note = "this is the 3rd time in a row";
        let told: Vec<usize> = reqs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.raw.contains(note))
            .map(|(i, _)| i)
            .collect();
        // From request 9 on, the history holds the note given after the third click.
        assert_eq!(told.first(), Some(&9), "{told:?}");
        server.assert_no_malformed();
    })
    .await
}
