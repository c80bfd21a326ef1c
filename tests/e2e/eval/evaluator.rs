//! The library's Evaluator: the final page judged through each provider's
//! wire format (the screenshot sent the way each API takes images), the
//! agent's claim weighed against what the page shows, junk answers INVALID
//! after one retry, and several questions about one screenshot in one call.

use sightline::eval::{task_question, Evaluation, Evaluator, Evidence};
use sightline::{Browser, Error, LaunchOptions, Page};
use sightline_testkit::{judge, LlmServer, Reply, Wire};

use super::*;
use crate::support::with_timeout;

async fn order(page: &Page, url: &str) {
    page.goto(url).await.unwrap();
    page.click("#buy").await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judge_sees_the_final_page_on_every_providers_wire() {
    with_timeout("evaluator", async {
        let files = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.unwrap();
        let page = browser.new_page().await.unwrap();
        let server = LlmServer::answering(judge::verdict);
        let wires = [Wire::OpenAi, Wire::OpenAiResponses, Wire::Anthropic, Wire::Gemini];
        for wire in wires {
            let judge = Evaluator::new(&llm_for(&server, wire));
            // The run says it ordered the kettle; the page says sold out.
            order(&page, &shop(&files, "item=kettle&stock=0")).await;
            let claim = Evidence::new(task_question("Order the kettle.")).answer("I ordered the kettle.");
            let no = judge.judge_page(&page, claim).await.unwrap();
            assert_eq!(no.evaluation, Evaluation::No, "{wire:?}: {no:?}");
            assert_eq!(no.reasoning, "The final screenshot shows a red failure banner.");
            order(&page, &shop(&files, "item=lamp")).await;
            let yes = judge
                .judge_page(&page, Evidence::new(task_question("Order the lamp.")))
                .await
                .unwrap();
            assert_eq!(yes.evaluation, Evaluation::Yes, "{wire:?}: {yes:?}");
            let judged = yes.judged.as_ref().expect("the verdict says how it was reached");
            assert_eq!(judged.screenshots.len(), 1);
            assert!(judged
                .prompt
                .starts_with("Question: Was this task completed? Task: Order the lamp.\n"));
            assert!(
                judged.prompt.contains("Order placed: the lamp"),
                "the page's text: {}",
                judged.prompt
            );
            assert!(
                judged.usage.calls == 1 && judged.usage.input_tokens > 0,
                "{:?}",
                judged.usage
            );
        }
        server.assert_no_malformed();
        let requests = server.requests();
        let seen: Vec<Option<Wire>> = requests.iter().map(|r| r.wire).collect();
        let want: Vec<Option<Wire>> = wires.iter().flat_map(|w| [Some(*w), Some(*w)]).collect();
        assert_eq!(seen, want, "each provider's own API");
        for r in &requests {
            // One image, in the API's own form, decoded at the viewport's size.
            let shots = r.screenshots();
            assert_eq!(shots.len(), 1, "request #{}", r.index);
            assert_eq!((shots[0].width, shots[0].height), (1280, 720));
        }
        assert!(requests[0]
            .prompt_text()
            .contains("The agent's answer (a claim to check):\nI ordered the kettle."));
        browser.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_answers_are_invalid_after_one_retry_and_no_screenshot_is_refused() {
    with_timeout("junk", async {
        let files = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.unwrap();
        let page = browser.new_page().await.unwrap();
        page.goto(&shop(&files, "show=placed")).await.unwrap();
        let server = LlmServer::with_script(vec![
            Reply::text("Looks good to me!"),
            Reply::text("{\"evaluation\": \"MAYBE\"}"),
        ]);
        let judge = Evaluator::new(&llm_for(&server, Wire::OpenAi));
        let v = judge
            .judge_page(&page, Evidence::new("Was the order placed?"))
            .await
            .unwrap();
        assert_eq!(v.evaluation, Evaluation::Invalid, "{v:?}");
        assert!(
            v.reasoning.starts_with("the judge's answer could not be read"),
            "{}",
            v.reasoning
        );
        assert_eq!(server.request_count(), 2, "one retry");
        let retry = server.requests()[1].last_user_text();
        assert!(retry.contains("Your answer was not accepted"), "{retry}");
        server.assert_no_malformed();

        // The agent's word alone is no evidence: no screenshot, no verdict.
        let e = judge
            .evaluate(&Evidence::new("Was the order placed?").answer("Yes, order #42."))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::InvalidAction(_)), "{e}");
        assert!(e.to_string().contains("at least one"), "{e}");
        assert_eq!(server.request_count(), 2, "no model call");

        // A server without strict schemas lets a lower-case verdict through
        // (fenced, as chatty models write it): it is what the judge meant.
        let lax = LlmServer::with_script(vec![Reply::text(
            "```json\n{\"evaluation\": \"yes\", \"reasoning\": \"The banner says the order was placed.\"}\n```",
        )]);
        let v = Evaluator::new(&llm_for(&lax, Wire::OpenAi))
            .judge_page(&page, Evidence::new("Was the order placed?"))
            .await
            .unwrap();
        assert_eq!(v.evaluation, Evaluation::Yes, "{v:?}");
        assert_eq!(lax.request_count(), 1, "no retry");
        browser.close().await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_ask_answers_several_questions_about_one_screenshot_in_one_call() {
    with_timeout("batch_ask", async {
        let files = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.unwrap();
        let page = browser.new_page().await.unwrap();
        page.goto(&shop(&files, "item=kettle&show=declined")).await.unwrap();
        let png = page.screenshot().await.unwrap();
        let server = LlmServer::answering(judge::verdict);
        for wire in [Wire::Anthropic, Wire::Gemini] {
            let judge = Evaluator::new(&llm_for(&server, wire));
            let questions = [
                "Is there a green banner?".to_string(),
                "Is there a red banner?".to_string(),
                "Was an order placed?".to_string(),
            ];
            let verdicts = judge.batch_ask(&png, &questions).await.unwrap();
            let answers: Vec<Evaluation> = verdicts.iter().map(|v| v.evaluation).collect();
            assert_eq!(answers, [Evaluation::No, Evaluation::Yes, Evaluation::No], "{wire:?}");
        }
        assert_eq!(server.request_count(), 2, "one call per batch");
        server.assert_no_malformed();
        browser.close().await.unwrap();
    })
    .await;
}
