//! Judged runs: `sightline agent --evaluate` on a run that did its task and
//! one that only claims to have (the verdict in the result and the report,
//! with the judge's prompt and the screenshots it saw; the exit status
//! follows the verdict), a judge of another provider, runs that never
//! navigated or ended on an error page (judged on what the page shows),
//! and `sightline evaluate`.

use serde_json::{json, Value};
use sightline::eval::Evaluation;
use sightline::{Agent, AgentOptions, Browser, EvaluateOptions, LaunchOptions};
use sightline_testkit::{LlmServer, Recorded, Reply, Wire};

use super::*;
use crate::support::{run_cli_env, with_timeout, CliOutput};

fn agent(server: &LlmServer, task: &str, url: &str, extra: &[&str]) -> CliOutput {
    let base = server.anthropic_base_url();
    let mut args = vec![
        "agent",
        task,
        "--url",
        url,
        "--model",
        MODEL,
        "--base-url",
        &base,
        "--json",
    ];
    args.extend_from_slice(extra);
    run_cli_env(
        &args,
        &[("ANTHROPIC_API_KEY", "test-key"), ("OPENAI_API_KEY", "test-key")],
    )
}

fn json_of(out: &CliOutput) -> Value {
    serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", out.stdout, out.stderr))
}

#[test]
fn agent_evaluate_judges_the_final_page_not_the_agents_claim() {
    let files = FixtureServer::start();
    let server = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("lamp.html");
    let report_arg = report.display().to_string();
    let lamp = shop(&files, "item=lamp");
    let done = agent(
        &server,
        "Order the lamp.",
        &lamp,
        &["--evaluate", "--report", &report_arg],
    );
    done.assert_success();
    let r = json_of(&done);
    assert_eq!(r["success"], true);
    assert_eq!(
        r["verdict"],
        json!({"evaluation": "YES", "reasoning": "The final screenshot shows a green success banner."})
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("id=\"verdict-section\"") && html.contains(">YES</span>"),
        "the verdict is in the report"
    );
    assert!(
        html.contains("Question: Was this task completed? Task: Order the lamp."),
        "and the judge's prompt"
    );
    assert!(html.contains("class=\"judged-screenshot\""), "and what it saw");

    // The agent claims the sold-out kettle ordered too; the page says otherwise.
    let kettle = shop(&files, "item=kettle&stock=0");
    let claimed = agent(&server, "Order the kettle.", &kettle, &["--evaluate"]);
    assert_eq!(claimed.code(), Some(1), "{}", claimed.stderr);
    let r = json_of(&claimed);
    assert_eq!(
        (r["success"].as_bool(), r["output"].as_str()),
        (Some(true), Some("Ordered."))
    );
    assert_eq!(r["verdict"]["evaluation"], "NO");
    assert_eq!(
        claimed.stderr.trim(),
        "error: the judge answered NO: The final screenshot shows a red failure banner."
    );
    // Both judges saw the run's screenshots, the final page last.
    let judged = judge_requests(&server);
    assert_eq!(judged.len(), 2);
    for r in &judged {
        assert!(!r.screenshots().is_empty());
        assert!(r
            .prompt_text()
            .contains("How the run ended: the agent reported the task complete"));
    }
    server.assert_no_malformed();
}

/// A run whose model call failed measured nothing of the agent: the judge
/// is not asked (it would judge the start page), and the verdict says the
/// run was not judged.
#[test]
fn a_run_whose_model_failed_is_not_judged() {
    let files = FixtureServer::start();
    let server = LlmServer::answering(|rec: &Recorded| {
        if judge::is_judge_request(rec) {
            return judge::verdict(rec);
        }
        Reply::status(500)
    });
    let lamp = shop(&files, "item=lamp");
    let failed = agent(&server, "Order the lamp.", &lamp, &["--evaluate", "--llm-retries", "0"]);
    assert_eq!(failed.code(), Some(1), "{}", failed.stderr);
    let r = json_of(&failed);
    assert_eq!(r["success"], false);
    assert_eq!(r["verdict"]["evaluation"], "INVALID", "{r}");
    assert!(
        r["verdict"]["reasoning"]
            .as_str()
            .is_some_and(|t| t.starts_with("not judged: the run failed before its end (the model call failed")),
        "{r}"
    );
    assert!(judge_requests(&server).is_empty(), "the judge was asked");
}

/// `--evaluate "TASK"` with the task missing before it: the question took
/// the task, and the error says so (not clap's "<TASK> not provided").
#[test]
fn evaluate_taking_the_task_for_its_question_is_said() {
    let out = run_cli_env(
        &["agent", "--evaluate", "Order the lamp.", "--model", MODEL],
        &[("ANTHROPIC_API_KEY", "test-key")],
    );
    assert_eq!(out.code(), Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "no task: --evaluate took \"Order the lamp.\" as its question. Put the task before --evaluate, or write --evaluate=QUESTION"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn agent_evaluate_asks_a_question_of_a_judge_of_another_provider() {
    let files = FixtureServer::start();
    let server = stand_in();
    let judge_base = server.openai_base_url();
    let out = agent(
        &server,
        "Order the lamp.",
        &shop(&files, "item=lamp"),
        &[
            "--evaluate",
            "Is there a red banner?",
            "--judge-model",
            "openai/gpt-4.1-mini",
            "--judge-base-url",
            &judge_base,
        ],
    );
    assert_eq!(out.code(), Some(1), "a green page: NO to a red banner\n{}", out.stderr);
    let r = json_of(&out);
    assert_eq!(r["verdict"]["evaluation"], "NO");
    let judged = judge_requests(&server);
    assert_eq!(judged.len(), 1);
    assert_eq!(judged[0].wire, Some(Wire::OpenAi), "the judge's own model and API");
    assert!(judged[0]
        .last_user_text()
        .starts_with("Question: Is there a red banner?\nThe agent's task: Order the lamp.\n"));
    // The run's tokens are the agent's: two turns, the judge's call apart.
    assert_eq!(r["usage"]["calls"], 2, "{}", r["usage"]);
    server.assert_no_malformed();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_that_never_navigated_or_ended_on_an_error_page_are_judged_on_what_shows() {
    with_timeout("unnavigated", async {
        let browser = Browser::launch(LaunchOptions::default()).await.unwrap();
        let server = LlmServer::with_script(vec![
            // Never navigates, claims success.
            Reply::tool("done", json!({"reasoning": "Done already.", "taskComplete": true})),
            judge::judge(),
            // Goes to a closed port, claims success.
            Reply::tool("goto", json!({"url": "http://127.0.0.1:9/checkout"})),
            Reply::tool("done", json!({"reasoning": "Ordered.", "taskComplete": true})),
            judge::judge(),
        ]);
        let llm = llm_for(&server, Wire::Anthropic);
        let evaluate = || AgentOptions {
            evaluate: Some(EvaluateOptions::default()),
            ..AgentOptions::default()
        };
        let page = browser.new_page().await.unwrap();
        let blank = Agent::new(&page, &llm, evaluate())
            .execute("Order the lamp.")
            .await
            .unwrap();
        assert!(blank.success, "the agent's claim");
        let v = blank.verdict.expect("judged");
        assert_eq!(v.evaluation, Evaluation::No, "{v:?}");
        assert_eq!(v.reasoning, "The final screenshot shows no banner.");
        assert!(v.judged.unwrap().prompt.contains("URL: about:blank"));

        let page = browser.new_page().await.unwrap();
        let error = Agent::new(&page, &llm, evaluate())
            .execute("Order the lamp.")
            .await
            .unwrap();
        assert!(error.success);
        let v = error.verdict.expect("judged");
        assert_eq!(v.evaluation, Evaluation::No, "{v:?}");
        let prompt = &v.judged.unwrap().prompt;
        assert!(
            prompt.contains("URL: chrome-error://"),
            "the error page it ended on: {prompt}"
        );
        assert!(
            prompt.contains("The webpage at http://127.0.0.1:9/checkout"),
            "its text: {prompt}"
        );
        assert!(
            prompt.contains("goto({\"url\":\"http://127.0.0.1:9/checkout\"})"),
            "{prompt}"
        );
        assert_eq!(server.remaining(), 0);
        server.assert_no_malformed();
        browser.close().await.unwrap();
    })
    .await;
}

#[test]
fn sightline_evaluate_answers_a_question_about_a_page() {
    let files = FixtureServer::start();
    let server = LlmServer::answering(judge::verdict);
    let base = server.gemini_base_url();
    let ask = |query: &str, extra: &[&str]| {
        let url = shop(&files, query);
        let mut args = vec![
            "evaluate",
            &url,
            "Was the order placed?",
            "--model",
            "google/gemini-2.5-flash",
            "--base-url",
            &base,
        ];
        args.extend_from_slice(extra);
        run_cli_env(&args, &[("GEMINI_API_KEY", "test-key")])
    };
    let yes = ask("show=placed", &["--answer", "Order #42 placed", "--json"]);
    yes.assert_success();
    assert_eq!(
        json_of(&yes),
        json!({"evaluation": "YES", "reasoning": "The final screenshot shows a green success banner."})
    );
    let no = ask("show=declined", &[]);
    assert_eq!(no.code(), Some(1));
    assert_eq!(no.stdout, "NO: The final screenshot shows a red failure banner.\n");
    assert_eq!(no.stderr.trim(), "error: the judge answered NO");
    let sent = judge_requests(&server);
    assert_eq!(sent.len(), 2);
    assert!(sent[0]
        .last_user_text()
        .contains("The agent's answer (a claim to check):\nOrder #42 placed"));
    assert_eq!(sent[1].wire, Some(Wire::Gemini));
    server.assert_no_malformed();
}
