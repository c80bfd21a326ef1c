//! Verdicts on batch lines: steps, extract and agent tasks with an
//! `evaluate` question are judged on their final screenshots and output,
//! a task whose page never loaded on the error page, and the summary and
//! `reports/index.html` show the judged success rate beside the run status.

use serde_json::json;

use super::*;
use sightline_testkit::offline_switches;

use crate::batch::{latest, result_lines, write_tasks};
use crate::support::{run_cli_env, CliOutput};

#[test]
fn batch_lines_get_verdicts_for_steps_extract_and_agent_tasks() {
    let files = FixtureServer::start();
    let model = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let order = json!([{"tool": "click", "target": "#buy"}]);
    let tasks = [
        json!({"id": "lamp-steps", "url": shop(&files, "item=lamp"), "steps": order, "evaluate": "Was the order placed?"}),
        json!({"id": "kettle-steps", "url": shop(&files, "item=kettle&stock=0"), "steps": order, "evaluate": "Was the order placed?"}),
        json!({"id": "kettle-extract", "url": shop(&files, "item=kettle&show=declined"),
               "extract": {"instruction": "the banner's text"}, "evaluate": "Was the order placed?"}),
        json!({"id": "lamp-agent", "url": shop(&files, "item=lamp"), "task": "Order the lamp.", "evaluate": true}),
        json!({"id": "hybrid-agent", "url": shop(&files, "item=kettle&stock=0"), "task": "Order the kettle.",
               "mode": "hybrid", "evaluate": true}),
        json!({"id": "unreachable", "url": "http://127.0.0.1:9/shop", "steps": order, "evaluate": "Was the order placed?"}),
        json!({"id": "plain", "url": shop(&files, "item=lamp"), "steps": order}),
    ];
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let reports = dir.path().join("reports");
    let reports_arg = reports.display().to_string();
    let run = batch_with(&file, &out, &model, &["--concurrency", "2", "--reports", &reports_arg]);
    assert_eq!(
        run.code(),
        Some(1),
        "the unreachable page fails its run\n{}",
        run.stderr
    );
    assert_eq!(result_lines(&out).len(), tasks.len(), "one line per task");
    let results = latest(&out);
    let verdict = |id: &str| -> (String, String) {
        let r = &results[id];
        (
            r["status"].as_str().unwrap().to_string(),
            r["verdict"]["evaluation"].as_str().unwrap_or("none").to_string(),
        )
    };
    let want = [
        ("lamp-steps", "ok", "YES"),
        ("kettle-steps", "ok", "NO"),
        ("kettle-extract", "ok", "NO"),
        ("lamp-agent", "ok", "YES"),
        ("hybrid-agent", "ok", "NO"),
        ("unreachable", "failed", "NO"),
        ("plain", "ok", "none"),
    ];
    for (id, status, evaluation) in want {
        assert_eq!(
            verdict(id),
            (status.to_string(), evaluation.to_string()),
            "{id}: {}",
            results[id]
        );
    }
    assert_eq!(
        results["kettle-steps"]["verdict"],
        json!({"evaluation": "NO", "reasoning": "The final screenshot shows a red failure banner."}),
        "a verdict line is evaluation and reasoning"
    );
    assert_eq!(results["kettle-extract"]["output"], json!({"extraction": "Sold out"}));
    // Every judge saw a screenshot of the task's last page.
    let judged = judge_requests(&model);
    assert_eq!(judged.len(), 6);
    assert!(judged.iter().all(|r| !r.screenshots().is_empty()));
    let unreachable = judged
        .iter()
        .find(|r| r.last_user_text().contains("127.0.0.1:9"))
        .expect("the error page was judged");
    assert!(unreachable
        .last_user_text()
        .contains("The task failed before it got going"));

    // The summary and the index: the judged rate beside the run status.
    assert!(run.stdout.contains("7 (6 ok, 85.7% success)"), "{}", run.stdout);
    assert!(
        run.stdout.contains("judged    2 of 6 judged YES (33.3%; 4 NO)"),
        "{}",
        run.stdout
    );
    let index = std::fs::read_to_string(reports.join("index.html")).unwrap();
    assert!(
        index.contains("<span id=\"judged\">2 of 6 judged YES (33.3%; 4 NO)</span>"),
        "{index}"
    );
    assert!(index.contains("<span class=\"s NO\" title=\"The final screenshot shows a red failure banner.\">NO</span>"));
    // Steps and extract tasks get a page with the verdict and the judge's prompt.
    let page = results["kettle-steps"]["report"].as_str().expect("a verdict page");
    let html = std::fs::read_to_string(reports.join(page)).unwrap();
    assert!(
        html.contains("Question: Was the order placed?"),
        "the judge's prompt: {html}"
    );
    assert!(html.contains(">NO</span>") && html.contains("class=\"judged-screenshot\""));
    let agent_report =
        std::fs::read_to_string(reports.join(results["lamp-agent"]["report"].as_str().unwrap())).unwrap();
    assert!(agent_report.contains("id=\"verdict-section\""));
    model.assert_no_malformed();
}

fn batch_with(file: &std::path::Path, out: &std::path::Path, model: &LlmServer, extra: &[&str]) -> CliOutput {
    let mut args: Vec<String> = vec![
        "batch".into(),
        file.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--model".into(),
        MODEL.into(),
        "--base-url".into(),
        model.anthropic_base_url(),
    ];
    for switch in offline_switches() {
        args.push("--browser-arg".into());
        args.push(switch);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_cli_env(&args, &[("ANTHROPIC_API_KEY", "test-key")])
}

/// A judge that cannot be asked (an outage) gives no verdict on the run:
/// the line says so apart from a judge's unreadable answer, the summary
/// says how to ask again, a plain rerun leaves it, and `--retry-failed`
/// runs the task again and judges it.
#[test]
fn a_judge_outage_is_not_a_verdict_and_retry_failed_asks_again() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let files = FixtureServer::start();
    let outage = Arc::new(AtomicBool::new(true));
    let down = outage.clone();
    let model = LlmServer::answering(move |rec: &Recorded| {
        if down.load(Ordering::SeqCst) {
            return Reply::status(500);
        }
        judge::verdict(rec)
    });
    let dir = tempfile::tempdir().unwrap();
    let order = json!([{"tool": "click", "target": "#buy"}]);
    let tasks =
        [json!({"id": "lamp", "url": shop(&files, "item=lamp"), "steps": order, "evaluate": "Was the order placed?"})];
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let run = batch_with(&file, &out, &model, &["--llm-retries", "0"]);
    let line = &latest(&out)["lamp"];
    assert_eq!(line["status"], "ok", "{line}");
    assert_eq!(line["verdict"]["evaluation"], "INVALID", "{line}");
    assert_eq!(line["verdict"]["unjudged"], true, "{line}");
    assert!(
        run.stdout
            .contains("1 the judge could not be asked about: --retry-failed asks again"),
        "{}",
        run.stdout
    );

    outage.store(false, Ordering::SeqCst);
    let asked = model.request_count();
    batch_with(&file, &out, &model, &[]);
    assert_eq!(model.request_count(), asked, "a plain rerun leaves an ok task alone");
    let again = batch_with(&file, &out, &model, &["--retry-failed"]);
    assert!(
        again
            .stderr
            .contains("warning: lamp ended ok but could not be judged: run again for a verdict, their actions repeat"),
        "{}",
        again.stderr
    );
    let line = &latest(&out)["lamp"];
    assert_eq!(line["verdict"]["evaluation"], "YES", "{line}\n{}", again.stdout);
    assert!(line.get("verdict").unwrap().get("unjudged").is_none(), "{line}");
    assert_eq!(line["attempts"], 2, "{line}");
}
