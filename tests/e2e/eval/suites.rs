//! `sightline eval` on the example suites (`tests/fixtures/eval/`), pages
//! served on 127.0.0.1 through `--web-base`: WebVoyager lines in the dom,
//! hybrid and cua modes, Online-Mind2Web's JSON array in two trials with
//! its levels, a rerun that resumes from the results file, and malformed
//! suites refused by line before anything runs.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sightline_testkit::{fixtures_dir, offline_switches};

use super::*;
use crate::batch::{latest, result_lines};
use crate::support::{run_cli_env, CliOutput};

fn example(name: &str) -> PathBuf {
    fixtures_dir().join("eval").join(name)
}

fn eval(suite: &Path, out: &Path, server: &LlmServer, files: &FixtureServer, extra: &[&str]) -> CliOutput {
    let args = eval_args(suite, out, server, files, extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_cli_env(&args, &[("ANTHROPIC_API_KEY", "test-key")])
}

/// The arguments of `sightline eval SUITE --out OUT …`, offline, with the
/// model at `server`.
fn eval_args(suite: &Path, out: &Path, server: &LlmServer, files: &FixtureServer, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "eval".into(),
        suite.display().to_string(),
        "--out".into(),
        out.display().to_string(),
        "--web-base".into(),
        files.url("eval/"),
        "--model".into(),
        MODEL.into(),
        "--base-url".into(),
        server.anthropic_base_url(),
        "--concurrency".into(),
        "2".into(),
    ];
    for switch in offline_switches() {
        args.push("--browser-arg".into());
        args.push(switch);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// The table row that starts with `name`, its cells split on runs of two spaces.
fn row<'a>(table: &'a str, name: &str) -> Vec<&'a str> {
    let line = table
        .lines()
        .find(|l| l.split("  ").next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} row in:\n{table}"));
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect()
}

#[test]
fn eval_runs_the_webvoyager_example_in_three_modes_and_resumes() {
    let files = FixtureServer::start();
    let server = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.jsonl");
    let suite = example("webvoyager-example.jsonl");
    let run = eval(&suite, &out, &server, &files, &["--modes", "dom,hybrid,cua"]);
    run.assert_success();
    let table = &run.stdout;
    assert!(
        table.contains("(WebVoyager: 2 task(s) × 3 mode(s) × 1 trial(s) = 6 runs; 0 already had a result)"),
        "{table}"
    );
    assert_eq!(row(table, "judge")[1], "anthropic/claude-sonnet-4-5");
    assert_eq!(row(table, "mode")[1..3], ["judged success", "agent's claim"]);
    // The agent claims both orders in every mode; the judge sees one sold out.
    for mode in ["dom", "hybrid", "cua"] {
        let cells = row(table, mode);
        assert_eq!(
            cells[1..4],
            ["1 of 2 (50.0%)", "2 of 2 (100.0%)", "1 of 2"],
            "{mode}: {table}"
        );
    }
    assert!(!table.contains("level"), "WebVoyager has no levels: {table}");
    // Per site: the shop's lamp is ordered, the outlet's kettle is sold out.
    assert_eq!(row(table, "site"), ["site", "dom", "hybrid", "cua"]);
    assert_eq!(row(table, "Outlet")[1..], ["0 of 1 (0.0%)"; 3]);
    assert_eq!(row(table, "Shop")[1..], ["1 of 1 (100.0%)"; 3]);
    let results = latest(&out);
    assert_eq!(results.len(), 6);
    for mode in ["dom", "hybrid", "cua"] {
        assert_eq!(results[&format!("Shop--0@{mode}#1")]["verdict"]["evaluation"], "YES");
        assert_eq!(results[&format!("Outlet--0@{mode}#1")]["verdict"]["evaluation"], "NO");
        assert_eq!(
            results[&format!("Outlet--0@{mode}#1")]["status"],
            "ok",
            "the agent's claim"
        );
    }
    let judged = judge_requests(&server);
    assert_eq!(judged.len(), 6);
    assert!(judged.iter().any(|r| r
        .last_user_text()
        .contains("Question: Was this task completed? Task: Order the kettle.")));
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.tool_names() == ["computer", "removeBlocker", "handleDialog", "done"]),
        "a cua run"
    );
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.tool_names().iter().any(|t| t == "clickAt")),
        "a hybrid run"
    );
    server.assert_no_malformed();

    // The same command again: every run has its verdict, nothing runs, the
    // figures come from the results file.
    let before = server.requests().len();
    let again = eval(&suite, &out, &server, &files, &["--modes", "dom,hybrid,cua", "--json"]);
    again.assert_success();
    assert_eq!(server.requests().len(), before, "nothing ran");
    assert_eq!(result_lines(&out).len(), 6);
    let report: Value = serde_json::from_str(again.stdout.trim()).unwrap();
    assert_eq!(report["already_done"], 6);
    assert_eq!(report["format"], "webvoyager");
    let modes: Vec<(&str, f64)> = report["by_mode"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["mode"].as_str().unwrap(), m["success_rate"].as_f64().unwrap()))
        .collect();
    assert_eq!(modes, [("dom", 0.5), ("hybrid", 0.5), ("cua", 0.5)]);
    assert_eq!(report["by_mode"][2]["claimed_rate"], 1.0);
    assert_eq!(report["by_site"][1]["site"], "Shop");
    assert_eq!(report["runs"][0]["site"], "Shop");
}

#[test]
fn eval_reads_online_mind2web_and_reports_per_level_over_trials() {
    let files = FixtureServer::start();
    let server = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.jsonl");
    let run = eval(
        &example("mind2web-example.json"),
        &out,
        &server,
        &files,
        &["--modes", "dom", "--trials", "2"],
    );
    run.assert_success();
    let table = &run.stdout;
    assert!(
        table.contains("(Online-Mind2Web: 2 task(s) × 1 mode(s) × 2 trial(s) = 4 runs"),
        "{table}"
    );
    assert_eq!(
        row(table, "dom")[1..4],
        ["2 of 4 (50.0%)", "4 of 4 (100.0%)", "1 of 2"],
        "{table}"
    );
    assert_eq!(row(table, "level"), ["level", "dom"]);
    assert_eq!(row(table, "easy"), ["easy", "2 of 2 (100.0%)"]);
    assert_eq!(row(table, "hard"), ["hard", "0 of 2 (0.0%)"]);
    let results = latest(&out);
    let ids: Vec<&String> = results.keys().collect();
    assert_eq!(
        ids,
        [
            "shop-kettle@dom#1",
            "shop-kettle@dom#2",
            "shop-lamp@dom#1",
            "shop-lamp@dom#2"
        ]
    );
    server.assert_no_malformed();
}

#[test]
fn malformed_suites_are_refused_by_line_before_anything_runs() {
    let files = FixtureServer::start();
    let server = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.jsonl");
    let suite = dir.path().join("suite.jsonl");
    std::fs::write(
        &suite,
        concat!(
            r#"{"web_name": "Shop", "id": "Shop--0", "ques": "Order the lamp.", "web": "shop.html?item=lamp"}"#,
            "\n",
            r#"{"web_name": "Shop", "id": "Shop--1", "web": "shop.html"}"#,
            "\n",
            "{\"web_name\": \"Shop\", \"id\": \n",
        ),
    )
    .unwrap();
    let bad = eval(&suite, &out, &server, &files, &[]);
    let line = bad.assert_one_line_error();
    assert!(line.contains("suite.jsonl: line 3: not a JSON object"), "{line}");
    let json_fixed = suite.with_file_name("fixed.jsonl");
    std::fs::write(
        &json_fixed,
        concat!(
            r#"{"web_name": "Shop", "id": "Shop--0", "ques": "Order the lamp.", "web": "shop.html?item=lamp"}"#,
            "\n",
            r#"{"web_name": "Shop", "id": "Shop--1", "web": "shop.html"}"#,
            "\n",
            r#"{"task_id": "x", "confirmed_task": "Order", "website": "shop.html"}"#,
            "\n",
        ),
    )
    .unwrap();
    let bad = eval(&json_fixed, &out, &server, &files, &[]);
    let line = bad.assert_one_line_error();
    assert!(line.contains("line 2: id \"Shop--1\": no \"ques\""), "{line}");
    assert!(line.contains("line 3: not a WebVoyager record"), "{line}");
    assert!(!out.exists(), "nothing ran");
    assert!(server.requests().is_empty());
}

/// A judge that never answers measured nothing: the runs count neither way
/// in the rates ("—"), and the command fails, saying how to judge them later.
#[test]
fn eval_fails_when_no_run_could_be_judged() {
    let files = FixtureServer::start();
    let server = LlmServer::answering(|rec: &Recorded| {
        if judge::is_judge_request(rec) {
            return Reply::status(503);
        }
        stand_in_run(rec)
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.jsonl");
    let suite = example("webvoyager-example.jsonl");
    let run = eval(&suite, &out, &server, &files, &["--modes", "dom", "--llm-retries", "0"]);
    assert_eq!(run.code(), Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("no run could be judged (2 not judged: the judge, or the agent's model, did not answer)"),
        "{}",
        run.stderr
    );
    assert_eq!(row(&run.stdout, "dom")[1], "— (2 not judged)", "{}", run.stdout);
    // What the judge was to be shown is kept all the same: once a judge
    // answers, --rejudge judges the runs, running nothing.
    for line in result_lines(&out) {
        let named = line["evidence"].as_str().unwrap_or_else(|| panic!("{line}"));
        let kept: Value = serde_json::from_slice(&std::fs::read(dir.path().join(named)).unwrap()).unwrap();
        assert!(!kept["screenshots"].as_array().unwrap().is_empty(), "{line}");
    }
    let answering = stand_in();
    let rejudged = dir.path().join("rejudged.jsonl");
    let from = out.display().to_string();
    let again = eval(&suite, &rejudged, &answering, &files, &["--rejudge", from.as_str()]);
    again.assert_success();
    assert!(answering.requests().iter().all(judge::is_judge_request));
    let now = latest(&rejudged);
    assert_eq!(now["Shop--0@dom#1"]["verdict"]["evaluation"], "YES");
    assert_eq!(now["Outlet--0@dom#1"]["verdict"]["evaluation"], "NO");
}

/// Each judged run's evidence is kept beside the results; `--rejudge`
/// judges the runs again from it with another judge, running nothing (no
/// agent turn, no browser): the pixel judge still tells the sold-out run
/// from the ordered one, so the kept screenshot is the final page's. The
/// old results stay; a rerun resumes; evidence that is gone or junk makes
/// that run "not judged", saying why.
#[test]
fn eval_judges_kept_runs_again_without_running_them() {
    let files = FixtureServer::start();
    let server = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.jsonl");
    let suite = example("webvoyager-example.jsonl");
    eval(&suite, &out, &server, &files, &["--modes", "dom"]).assert_success();
    let first = latest(&out);
    for id in ["Shop--0@dom#1", "Outlet--0@dom#1"] {
        let named = first[id]["evidence"]
            .as_str()
            .unwrap_or_else(|| panic!("{:?}", first[id]));
        assert!(named.starts_with("eval.evidence/"), "{named}");
        let kept: Value = serde_json::from_slice(&std::fs::read(dir.path().join(named)).unwrap()).unwrap();
        assert!(!kept["screenshots"].as_array().unwrap().is_empty(), "{id}");
        assert!(kept["page"]["url"].as_str().unwrap().contains("shop.html"), "{id}");
        assert!(kept["question"].as_str().unwrap().contains("Was this task completed?"));
    }
    let old_bytes = std::fs::read(&out).unwrap();
    let before = server.requests().len();
    let new = dir.path().join("rejudged.jsonl");
    // (The modes and trials are those of the runs in the file.)
    let rejudge = |into: &Path, from: &Path| {
        let from = from.display().to_string();
        let args = [
            "--rejudge",
            from.as_str(),
            "--judge-model",
            "anthropic/claude-haiku-4-5",
        ];
        eval(&suite, into, &server, &files, &args)
    };
    let again = rejudge(&new, &out);
    again.assert_success();
    let asked = &server.requests()[before..];
    assert_eq!(asked.len(), 2, "one judge call a run, nothing else");
    assert!(asked.iter().all(judge::is_judge_request));
    assert!(asked.iter().all(|r| r.body["model"] == "claude-haiku-4-5"));
    let table = &again.stdout;
    assert_eq!(row(table, "judge")[1], "anthropic/claude-haiku-4-5", "{table}");
    assert_eq!(row(table, "dom")[1], "1 of 2 (50.0%)", "{table}");
    assert!(table.contains("2 run(s) of"), "{table}");
    let now = latest(&new);
    assert_eq!(now["Shop--0@dom#1"]["verdict"]["evaluation"], "YES");
    assert_eq!(now["Outlet--0@dom#1"]["verdict"]["evaluation"], "NO");
    assert_eq!(now["Shop--0@dom#1"]["judge"], "anthropic/claude-haiku-4-5");
    assert_eq!(now["Shop--0@dom#1"]["evidence"], first["Shop--0@dom#1"]["evidence"]);
    assert_eq!(std::fs::read(&out).unwrap(), old_bytes, "the old results stay");
    // Resumed: nothing left to ask.
    let asked_so_far = server.requests().len();
    rejudge(&new, &out).assert_success();
    assert_eq!(server.requests().len(), asked_so_far);

    // A run with no verdict is copied; one whose evidence was not kept is
    // not judged, saying why (and with no run judged, the command fails).
    let edited = dir.path().join("edited.jsonl");
    let lines: Vec<String> = result_lines(&out)
        .into_iter()
        .map(|mut line| {
            let field = if line["id"] == "Shop--0@dom#1" {
                "verdict"
            } else {
                "evidence"
            };
            line.as_object_mut().unwrap().remove(field);
            line.to_string()
        })
        .collect();
    std::fs::write(&edited, lines.join("\n") + "\n").unwrap();
    let fourth = dir.path().join("fourth.jsonl");
    let none = rejudge(&fourth, &edited);
    assert_eq!(none.code(), Some(1), "{}\n{}", none.stdout, none.stderr);
    assert!(none.stderr.contains("no run could be judged again"), "{}", none.stderr);
    assert!(
        none.stdout.contains("1 copied") && none.stdout.contains("1 without evidence"),
        "{}",
        none.stdout
    );
    let copied = latest(&fourth);
    assert!(
        copied["Shop--0@dom#1"].get("verdict").is_none(),
        "{:?}",
        copied["Shop--0@dom#1"]
    );
    let reason = copied["Outlet--0@dom#1"]["verdict"]["reasoning"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("no evidence was kept of this run"), "{reason}");

    // A run the old file does not hold (an eval cut short) is left out of
    // the figures, not counted as failed.
    let half = dir.path().join("half.jsonl");
    let shop = result_lines(&out)
        .into_iter()
        .find(|l| l["id"] == "Shop--0@dom#1")
        .unwrap();
    std::fs::write(&half, format!("{shop}\n")).unwrap();
    let halved = rejudge(&dir.path().join("halved.jsonl"), &half);
    halved.assert_success();
    assert_eq!(row(&halved.stdout, "dom")[1], "1 of 1 (100.0%)", "{}", halved.stdout);
    assert!(
        halved.stdout.contains("1 planned run(s) it does not hold, left out"),
        "{}",
        halved.stdout
    );

    // An --out holding another judge's verdicts is refused (one table, one judge).
    let theirs = dir.path().join("theirs.jsonl");
    std::fs::copy(&out, &theirs).unwrap();
    let mixed = rejudge(&theirs, &new);
    let line = mixed.assert_one_line_error();
    assert!(
        line.contains("holds verdicts of the judge anthropic/claude-sonnet-4-5"),
        "{line}"
    );

    // Evidence gone bad: that run is not judged, and says why.
    let outlet = dir.path().join(first["Outlet--0@dom#1"]["evidence"].as_str().unwrap());
    std::fs::write(&outlet, "{\"question\": 7}").unwrap();
    let third = dir.path().join("third.jsonl");
    let partial = rejudge(&third, &out);
    partial.assert_success();
    let verdict = &latest(&third)["Outlet--0@dom#1"]["verdict"];
    assert_eq!(verdict["unjudged"], true, "{verdict}");
    assert!(
        verdict["reasoning"]
            .as_str()
            .unwrap()
            .contains("is not what the judge was shown"),
        "{verdict}"
    );
    assert!(partial.stdout.contains("1 without evidence"), "{}", partial.stdout);
    assert!(
        partial.stdout.contains("the same --rejudge asks again"),
        "{}",
        partial.stdout
    );
    // Nothing else is read as evidence: a results line naming another file.
    let hostile = dir.path().join("hostile.jsonl");
    let mut line = result_lines(&out).remove(0);
    line["evidence"] = serde_json::json!("/etc/passwd");
    std::fs::write(&hostile, format!("{line}\n")).unwrap();
    let fifth = dir.path().join("fifth.jsonl");
    let refused = rejudge(&fifth, &hostile);
    assert_eq!(refused.code(), Some(1), "{}", refused.stdout);
    let id = line["id"].as_str().unwrap();
    let reason = latest(&fifth)[id]["verdict"]["reasoning"].clone();
    assert!(reason.as_str().unwrap().contains("is not kept evidence"), "{reason}");

    // The old file is not overwritten, however it is named.
    let refused = rejudge(&out, &out);
    let line = refused.assert_one_line_error();
    assert!(line.contains("give --out a new file"), "{line}");
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    let roundabout = dir.path().join("sub").join("..").join("eval.jsonl");
    let refused = rejudge(&roundabout, &out);
    assert!(refused.assert_one_line_error().contains("give --out a new file"));
}

/// `--rejudge`: an answer the judge wrote that cannot be read (INVALID) is
/// asked again by the same command, and Ctrl-C stops it with the tables of
/// what it judged (every verdict given is kept; the same command resumes).
#[test]
fn rejudge_asks_unreadable_answers_again_and_stops_on_ctrl_c() {
    use std::sync::atomic::{AtomicU8, Ordering};
    use std::sync::Arc;
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.jsonl");
    let suite = example("webvoyager-example.jsonl");
    eval(&suite, &out, &stand_in(), &files, &["--modes", "dom"]).assert_success();
    // The judge: 0 writes junk, 1 reads the screenshot, 2 does so slowly.
    let how = Arc::new(AtomicU8::new(0));
    let judge = {
        let how = how.clone();
        LlmServer::answering(move |rec: &Recorded| {
            if !judge::is_judge_request(rec) {
                return stand_in_run(rec);
            }
            match how.load(Ordering::SeqCst) {
                0 => Reply::text("I would rather not say."),
                1 => judge::verdict(rec),
                _ => Reply::delay(2_000, judge::verdict(rec)),
            }
        })
    };
    let new = dir.path().join("new.jsonl");
    let from = out.display().to_string();
    let unread = eval(&suite, &new, &judge, &files, &["--rejudge", from.as_str()]);
    unread.assert_success();
    assert!(unread.stdout.contains("2 answer(s) unreadable"), "{}", unread.stdout);
    assert_eq!(latest(&new)["Shop--0@dom#1"]["verdict"]["evaluation"], "INVALID");
    how.store(1, Ordering::SeqCst);
    let read = eval(&suite, &new, &judge, &files, &["--rejudge", from.as_str()]);
    read.assert_success();
    let now = latest(&new);
    assert_eq!(now["Shop--0@dom#1"]["verdict"]["evaluation"], "YES", "asked again");
    assert_eq!(now["Outlet--0@dom#1"]["verdict"]["evaluation"], "NO");

    // Ctrl-C after the first slow verdict.
    how.store(2, Ordering::SeqCst);
    let cut = dir.path().join("cut.jsonl");
    // (One judge call at a time: the first verdict is written 2 s before the next.)
    let mut args = eval_args(&suite, &cut, &judge, &files, &["--rejudge", from.as_str()]);
    let at = args.iter().position(|a| a == "--concurrency").unwrap();
    args[at + 1] = "1".into();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(&args)
        .env("ANTHROPIC_API_KEY", "test-key")
        .env_remove("SIGHTLINE_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while result_lines(&cut).is_empty() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("it ended before a verdict was written: {status}");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "no verdict written"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let stopped = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&stopped.stdout);
    assert_eq!(stopped.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("interrupted"), "the tables of what it judged: {stdout}");
    assert_eq!(result_lines(&cut).len(), 1, "the verdict given is kept");
}
