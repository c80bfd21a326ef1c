//! `sightline batch` end to end: real Chromium on pages served from
//! 127.0.0.1, agent and extract tasks against the scripted model, a page
//! that really kills its renderer, and (in `batch/fleets.rs`) a real
//! Selenium Grid 4 and browsers that are already running.
//!
//! Every check reads the results file, the reports or the grid itself;
//! nothing is timed.

mod fleets;
mod interrupts;
mod pool;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::*;
use serde_json::{json, Value};
use sightline_testkit::{offline_switches, LlmServer, Recorded, Reply};

/// The fixture page of item `n`: saving a name puts it in the title.
pub fn item_url(files: &FixtureServer, n: u32) -> String {
    files.url(&format!("batch/item.html?n={n}"))
}

/// Steps that fill in a name, save it and wait for the page to say so.
pub fn save_steps(name: &str) -> Value {
    json!([
        {"tool": "fill", "target": "#name", "value": name},
        {"tool": "click", "target": "#save"},
        {"tool": "wait", "text": format!("Saved {name}")}
    ])
}

/// A steps task on item `n`.
pub fn steps_task(files: &FixtureServer, id: &str, n: u32) -> Value {
    json!({"id": id, "url": item_url(files, n), "steps": save_steps(id)})
}

/// A [`steps_task`] that then pauses `ms`, to keep its browser busy.
pub fn paused_steps_task(files: &FixtureServer, id: &str, n: u32, ms: u64) -> Value {
    let mut task = steps_task(files, id, n);
    task["steps"]
        .as_array_mut()
        .unwrap()
        .push(json!({"tool": "wait", "ms": ms}));
    task
}

/// The title item `n` ends with after [`steps_task`] `id`.
pub fn saved_title(id: &str, n: u32) -> String {
    format!("Saved {id} on item {n}")
}

pub fn write_tasks(dir: &Path, tasks: &[Value]) -> PathBuf {
    let path = dir.join("tasks.jsonl");
    let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// Every line of a results file, parsed (a line that is not JSON fails the test).
pub fn result_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a results line is not JSON ({e}): {l}")))
        .collect()
}

/// The newest line of each id.
pub fn latest(path: &Path) -> BTreeMap<String, Value> {
    result_lines(path)
        .into_iter()
        .map(|v| (v["id"].as_str().unwrap().to_string(), v))
        .collect()
}

/// The arguments of `sightline batch TASKS --out OUT [extra…]`, offline,
/// with the model at `llm`.
fn batch_args(tasks: &Path, out: &Path, extra: &[&str], llm: Option<&LlmServer>) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "batch".into(),
        tasks.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    for switch in offline_switches() {
        args.push("--browser-arg".into());
        args.push(switch);
    }
    if let Some(server) = llm {
        args.extend([
            "--model".into(),
            "openai/gpt-4.1-mini".into(),
            "--base-url".into(),
            server.openai_base_url(),
        ]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Runs `sightline batch` (see [`batch_args`]).
pub fn batch(tasks: &Path, out: &Path, extra: &[&str], llm: Option<&LlmServer>) -> CliOutput {
    let args = batch_args(tasks, out, extra, llm);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_cli_env(&args, &[("OPENAI_API_KEY", "test-key")])
}

/// Runs `sightline batch` with a terminal for stdout and stderr, as a user
/// sees it (util-linux `script` gives it a pseudo-terminal). Everything
/// written to the terminal comes back as `stdout`.
pub fn batch_on_a_terminal(tasks: &Path, out: &Path, extra: &[&str]) -> CliOutput {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = quote(env!("CARGO_BIN_EXE_sightline"));
    for a in batch_args(tasks, out, extra, None) {
        line.push(' ');
        line.push_str(&quote(&a));
    }
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qefc", &line, "/dev/null"])
        .env_remove("SIGHTLINE_LOG")
        .env_remove("RUST_MIN_STACK");
    run_with_limit(cmd, "sightline batch on a terminal")
}

/// The first `heading "…"` of what the model was shown.
fn heading_in(rec: &Recorded) -> String {
    let text = rec.prompt_text();
    let start = text
        .find("heading \"")
        .unwrap_or_else(|| panic!("no heading in the prompt:\n{text}"))
        + 9;
    let end = text[start..].find('"').unwrap() + start;
    text[start..end].to_string()
}

/// A model for tasks running at once (a script's order would not hold):
/// agent turns answer `done` with the page's heading as the output;
/// extract answers `{"heading"}`, then that it is complete.
pub fn heading_model() -> LlmServer {
    LlmServer::answering(|rec: &Recorded| {
        let format_name = rec.body["response_format"]["json_schema"]["name"].as_str();
        match format_name {
            Some("metadata") => Reply::json(json!({"progress": "the heading", "completed": true})),
            Some(_) => Reply::json(json!({"heading": heading_in(rec)})),
            None => Reply::tool(
                "done",
                json!({"reasoning": "I read the heading.", "taskComplete": true, "output": heading_in(rec)}),
            ),
        }
    })
}

#[test]
fn a_local_pool_runs_steps_and_agent_tasks_and_a_crash_fails_alone() {
    let files = FixtureServer::start();
    let model = heading_model();
    let dir = tempfile::tempdir().unwrap();
    let mut tasks: Vec<Value> = (1..=8).map(|n| steps_task(&files, &format!("s{n}"), n)).collect();
    for n in 1..=3 {
        tasks.insert(
            (n * 3) as usize,
            json!({"id": format!("a{n}"), "task": "Report the page's main heading.", "url": item_url(&files, 10 + n)}),
        );
    }
    tasks.insert(
        5,
        json!({"id": "crash", "url": files.url("batch/crash.html"), "steps": [{"tool": "snapshot"}]}),
    );
    assert_eq!(tasks.len(), 12);
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");

    let run = batch(&file, &out, &["--concurrency", "3"], Some(&model));
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert_eq!(
        run.stderr.trim(),
        format!(
            "error: 1 of 12 task(s) did not succeed (1 crashed); see {}",
            out.display()
        ),
        "no progress when stderr is not a terminal, one error line"
    );
    assert!(run.stdout.contains("12 (11 ok, 91.7% success)"), "{}", run.stdout);
    assert!(run.stdout.contains("1 crashed"), "{}", run.stdout);
    let lines = result_lines(&out);
    assert_eq!(lines.len(), 12, "one line per task");
    let results = latest(&out);
    assert_eq!(results.len(), 12);
    for n in 1..=8 {
        let id = format!("s{n}");
        let r = &results[&id];
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["output"]["title"], json!(saved_title(&id, n)), "{r}");
        assert_eq!((r["steps"].as_u64(), r["attempts"].as_u64()), (Some(3), Some(1)), "{r}");
    }
    for n in 1..=3 {
        let r = &results[&format!("a{n}")];
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(
            r["output"],
            json!(format!("Item {}", 10 + n)),
            "the agent read its own page: {r}"
        );
        assert!(r["tokens"].as_u64().unwrap() > 0, "{r}");
    }
    let crash = &results["crash"];
    assert_eq!(crash["status"], "crashed", "{crash}");
    assert!(crash["error"].as_str().unwrap().contains("crashed"), "{crash}");
    model.assert_no_malformed();
    let calls = model.request_count();
    assert_eq!(calls, 3, "one turn per agent task");

    // Again with the same --out: only the crashed task runs.
    let rerun = batch(&file, &out, &["--concurrency", "3"], Some(&model));
    assert_eq!(rerun.code(), Some(1), "{}", rerun.stderr);
    assert!(
        rerun.stdout.contains("1 ran, 11 already had a result"),
        "{}",
        rerun.stdout
    );
    let lines = result_lines(&out);
    assert_eq!(lines.len(), 13, "the finished results are kept, one line added");
    assert_eq!(lines[12]["id"], "crash");
    assert_eq!(lines[12]["status"], "crashed");
    assert_eq!(lines[12]["attempts"], 2);
    assert_eq!(model.request_count(), calls, "no agent task ran again");
}

/// Each task runs in a browser context of its own: the cookie and the
/// local storage one task set are not there for the next on the same
/// browser. A task's `allowed_domains` are refused by the browser itself:
/// a page that sends it to another site never reaches that site.
#[test]
fn each_task_has_its_own_context_and_its_domains_are_enforced() {
    let files = FixtureServer::start();
    let outside = RecordingSite::start();
    let dir = tempfile::tempdir().unwrap();
    let page = files.url("short.html");
    let elsewhere = RecordingSite::start();
    let offers = FixtureServer::pages(&[(
        "offers.html",
        &format!(
            "<!doctype html><title>Offers</title><a id=partner target=_blank href={:?}>Partner offer</a>\
             <a id=prices download href={:?}>Price list</a>",
            elsewhere.url("offer?from=popup"),
            elsewhere.url("prices.csv?from=download")
        ),
    )]);
    let leave = format!("() => {{ location.href = {:?}; return 'sent'; }}", outside.url("leak"));
    let file = write_tasks(
        dir.path(),
        &[
            json!({"id": "set", "url": page, "steps": [{"tool": "evaluate", "function":
                "() => { document.cookie = 'who=ada; path=/'; localStorage.setItem('who', 'ada'); return document.cookie; }"}]}),
            json!({"id": "get", "url": page, "steps": [{"tool": "evaluate", "function":
                "() => document.cookie + '|' + localStorage.getItem('who')"}]}),
            json!({"id": "kept", "url": page, "allowed_domains": [format!("127.0.0.1:{}", files.port)], "steps": [
                {"tool": "evaluate", "function": leave},
                {"tool": "wait", "ms": 500}
            ]}),
            // A tab the page opens elsewhere is closed, not followed; neither
            // its first document nor a download is requested.
            json!({"id": "popup", "url": offers.url("offers.html"), "allowed_domains": [format!("127.0.0.1:{}", offers.port)], "steps": [
                {"tool": "click", "target": "#partner"},
                {"tool": "click", "target": "#prices"},
                {"tool": "wait", "ms": 300},
                {"tool": "evaluate", "function": "() => document.title"}
            ]}),
        ],
    );
    let out = dir.path().join("results.jsonl");
    let run = batch(&file, &out, &["--concurrency", "1"], None);
    let results = latest(&out);
    assert_eq!(results["set"]["output"]["value"], "who=ada", "{}", run.stderr);
    assert_eq!(
        results["get"]["output"]["value"], "|null",
        "the next task on the same browser starts clean: {}",
        results["get"]
    );
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(outside.seen(), Vec::<String>::new(), "{}", results["kept"]);
    assert!(
        !results["kept"]["output"]["url"]
            .as_str()
            .unwrap_or("")
            .contains(&outside.port.to_string()),
        "{}",
        results["kept"]
    );
    assert_eq!(results["popup"]["output"]["value"], "Offers", "{}", results["popup"]);
    assert_eq!(elsewhere.seen(), Vec::<String>::new(), "{}", results["popup"]);
}

#[test]
fn bad_task_files_fail_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tasks.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"id\": \"a\", \"steps\": [{\"method\": \"reload\"}]}\n",
            "{\"id\": \"a\", \"steps\": [{\"method\": \"reload\"}]}\n",
            "{\"id\": \"b\", \"steps\": [\n",
            "{\"id\": \"c\", \"task\": \"x\", \"colour\": \"red\"}\n",
            "{\"id\": \"c\", \"task\": \"y\", \"max_steps\": 0}\n",
        ),
    )
    .unwrap();
    let out = dir.path().join("results.jsonl");
    let run = batch(&file, &out, &[], None);
    let line = run.assert_one_line_error();
    assert!(
        line.contains("tasks.jsonl: line 2: duplicate id \"a\" (first on line 1)"),
        "{line}"
    );
    assert!(line.contains("line 3: not a JSON object"), "{line}");
    assert!(line.contains("line 4: unknown field \"colour\""), "{line}");
    // A duplicate id is named even on a line with other problems, and so are they.
    assert!(line.contains("line 5: duplicate id \"c\" (first on line 4)"), "{line}");
    assert!(line.contains("line 5: id \"c\": \"max_steps\" must be"), "{line}");
    assert!(!out.exists(), "nothing ran, nothing was written");

    // A task that needs a model, with none named.
    std::fs::write(&file, "{\"id\": \"a\", \"task\": \"find the price\"}\n").unwrap();
    let run = run_cli_env(
        &["batch", file.to_str().unwrap(), "--out", out.to_str().unwrap()],
        &[("SIGHTLINE_MODEL", "")],
    );
    let line = run.assert_one_line_error();
    assert!(line.contains("line 1: id \"a\" (agent task): no model given"), "{line}");
    assert!(!out.exists());

    // Results are never appended to the task file itself, nor given no time.
    std::fs::write(&file, "{\"id\": \"a\", \"steps\": [{\"method\": \"reload\"}]}\n").unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    let run = batch(&file, &dir.path().join(".").join("tasks.jsonl"), &[], None);
    let line = run.assert_one_line_error();
    assert!(line.contains("is the task file itself"), "{line}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let run = batch(&file, &out, &["--task-timeout", "0"], None);
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--task-timeout"), "{}", run.stderr);
    assert!(!out.exists());
}

#[test]
fn a_torn_last_line_is_dropped_when_the_run_resumes() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = write_tasks(dir.path(), &[steps_task(&files, "s1", 1), steps_task(&files, "s2", 2)]);
    let out = dir.path().join("results.jsonl");
    let run = batch(&file, &out, &[], None);
    run.assert_success();
    // Keep s1's line; s2's as a run killed while writing it left it.
    let text = std::fs::read_to_string(&out).unwrap();
    let s1 = text.lines().find(|l| l.contains("\"s1\"")).unwrap();
    let torn = r#"{"id":"s2","status":"o"#;
    std::fs::write(&out, format!("{s1}\n{torn}")).unwrap();

    let rerun = batch(&file, &out, &[], None);
    rerun.assert_success();
    assert!(
        rerun.stderr.contains("warning: skipped an unreadable results line"),
        "said on stderr, no terminal there: {}",
        rerun.stderr
    );
    assert!(
        rerun.stdout.contains("1 ran, 1 already had a result"),
        "{}",
        rerun.stdout
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.lines().any(|l| l == torn), "the torn line is gone:\n{text}");
    assert!(text.ends_with('\n'), "{text}");
    let lines = result_lines(&out);
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(
        (lines[0]["id"].as_str(), lines[1]["id"].as_str()),
        (Some("s1"), Some("s2"))
    );
    assert_eq!(lines[1]["status"], "ok", "{}", lines[1]);
}

#[test]
fn failures_rerun_only_when_asked_and_reports_link_each_agent_run() {
    let files = FixtureServer::start();
    let model = heading_model();
    let dir = tempfile::tempdir().unwrap();
    let schema = json!({"type": "object", "properties": {"heading": {"type": "string"}}, "required": ["heading"]});
    let file = write_tasks(
        dir.path(),
        &[
            json!({"id": "agent", "task": "Report the page's main heading.", "url": item_url(&files, 21), "max_steps": 3}),
            json!({"id": "extract", "extract": {"instruction": "the page's heading", "schema": schema}, "url": item_url(&files, 22), "model": "openai/gpt-4.1-nano"}),
            json!({"id": "broken", "url": item_url(&files, 23), "steps": [{"tool": "click", "target": "#missing"}]}),
            json!({"id": "vars", "url": item_url(&files, 24), "steps": [
                {"tool": "fill", "target": "#name", "value": "%who%"},
                {"tool": "click", "target": "#save"},
                {"tool": "wait", "text": "Saved Ada"},
                {"tool": "evaluate", "function": "() => 'name=' + document.querySelector('#name').value"}
            ], "vars": {"who": "Ada"}, "allowed_domains": ["127.0.0.1"]}),
        ],
    );
    let out = dir.path().join("results.jsonl");
    let reports = dir.path().join("reports");
    let reports_arg = reports.to_str().unwrap();
    let flags = ["--reports", reports_arg, "--action-timeout", "500"];
    let run = batch(&file, &out, &flags, Some(&model));
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    let results = latest(&out);
    assert_eq!(results["agent"]["status"], "ok", "{}", results["agent"]);
    assert_eq!(results["agent"]["report"], "agent.html");
    assert_eq!(results["extract"]["status"], "ok", "{}", results["extract"]);
    assert_eq!(results["extract"]["output"], json!({"heading": "Item 22"}));
    assert!(results["extract"]["tokens"].as_u64().unwrap() > 0);
    let models: Vec<String> = model
        .requests()
        .iter()
        .filter_map(|r| r.model().map(str::to_string))
        .collect();
    assert!(
        models.contains(&"gpt-4.1-nano".to_string()),
        "the extract task's own model: {models:?}"
    );
    assert!(
        models.contains(&"gpt-4.1-mini".to_string()),
        "the batch's model: {models:?}"
    );
    // The value was filled in, the placeholder was what the step said.
    assert_eq!(
        results["vars"]["output"]["title"], "Saved Ada on item 24",
        "{}",
        results["vars"]
    );
    // The last step's value is kept (the task was run for it), with the
    // variable's value shown as its placeholder.
    // Evaluate's value itself, not the text a model reads (fenced, quoted).
    assert_eq!(
        results["vars"]["output"]["value"],
        json!("name=%who%"),
        "{}",
        results["vars"]
    );
    let broken = &results["broken"];
    assert_eq!(broken["status"], "failed", "{broken}");
    assert!(
        broken["error"]
            .as_str()
            .unwrap()
            .starts_with("step 1 of 1 (click #missing) failed"),
        "{broken}"
    );
    let trace = std::fs::read_to_string(reports.join("agent.html")).unwrap();
    assert!(trace.contains("<section class=\"step\""), "the agent's own report");
    let index = std::fs::read_to_string(reports.join("index.html")).unwrap();
    assert!(index.contains("<a href=\"agent.html\">agent</a>"), "{index}");
    assert!(index.contains("3 of 4 ok") && index.contains("1 failed"), "{index}");
    assert!(index.contains(">failed<") && index.contains("#missing"), "{index}");
    let calls = model.request_count();

    // Failures are verdicts: a plain rerun leaves them alone…
    let rerun = batch(&file, &out, &flags, Some(&model));
    assert_eq!(rerun.code(), Some(1));
    assert!(
        rerun.stdout.contains("0 ran, 4 already had a result"),
        "{}",
        rerun.stdout
    );
    assert_eq!(result_lines(&out).len(), 4);
    // …and --retry-failed runs only them.
    let mut retry = flags.to_vec();
    retry.push("--retry-failed");
    let rerun = batch(&file, &out, &retry, Some(&model));
    assert_eq!(rerun.code(), Some(1));
    let lines = result_lines(&out);
    assert_eq!(lines.len(), 5);
    assert_eq!(
        (lines[4]["id"].as_str(), lines[4]["attempts"].as_u64()),
        (Some("broken"), Some(2))
    );
    assert_eq!(model.request_count(), calls, "the ok tasks did not run again");
    model.assert_no_malformed();
}

#[test]
fn shards_merged_equal_one_unsharded_run() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks: Vec<Value> = (1..=7).map(|n| steps_task(&files, &format!("t{n}"), n)).collect();
    let file = write_tasks(dir.path(), &tasks);
    let whole = dir.path().join("whole.jsonl");
    batch(&file, &whole, &["--concurrency", "2"], None).assert_success();
    let mut shards = Vec::new();
    for i in 1..=2 {
        let out = dir.path().join(format!("shard-{i}.jsonl"));
        batch(&file, &out, &["--shard", &format!("{i}/2"), "--concurrency", "2"], None).assert_success();
        shards.push(out);
    }
    let (one, two) = (latest(&shards[0]), latest(&shards[1]));
    assert!(!one.is_empty() && !two.is_empty(), "both shards ran tasks");
    assert!(one.keys().all(|id| !two.contains_key(id)), "the shards share no task");

    let merged = dir.path().join("merged.jsonl");
    let out = run_cli(&[
        "batch",
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    out.assert_success();
    assert!(
        out.stdout.contains("merged 7 result(s) from 2 file(s)"),
        "{}",
        out.stdout
    );
    // Equal but for the time each task took.
    let essence = |path: &Path| -> BTreeMap<String, Value> {
        latest(path)
            .into_iter()
            .map(|(id, mut v)| {
                v.as_object_mut().unwrap().remove("duration_ms");
                (id, v)
            })
            .collect()
    };
    assert_eq!(essence(&merged), essence(&whole));
    assert_eq!(result_lines(&merged).len(), 7);
}

#[test]
fn bench_batch_reports_throughput_and_memory_per_worker() {
    let out = run_cli(&[
        "bench",
        "batch",
        "--tasks",
        "4",
        "--concurrency",
        "1,2",
        "--no-grid",
        "--json",
    ]);
    out.assert_success();
    let v: Value = serde_json::from_str(out.stdout.trim()).expect("one JSON object");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{v}");
    for (run, workers) in runs.iter().zip([1, 2]) {
        assert_eq!(run["concurrency"], workers, "{run}");
        assert_eq!(run["ok"], 4, "every task ended ok: {run}");
        assert!(run["tasks_per_minute"].as_f64().unwrap() > 0.0, "{run}");
        let (rss, pss) = (
            run["peak_rss_mb_per_worker"].as_f64().unwrap(),
            run["peak_pss_mb_per_worker"].as_f64().unwrap(),
        );
        assert!(rss >= pss && pss > 10.0, "a browser tree takes memory: {run}");
    }
    assert!(v["speedup_at_2"].as_f64().unwrap() > 0.0);
    assert_eq!(v["goal_speedup_at_2"], 1.6);
    assert_eq!(v["grid_skipped"], "--no-grid");
}

/// An agent task out of time is asked to stop, and its line keeps what it
/// did: its steps and its trace report (they were lost with the run).
#[test]
fn an_agent_task_out_of_time_keeps_what_it_did() {
    let files = FixtureServer::start();
    let model = LlmServer::with_script(vec![
        Reply::tool("scroll", json!({"direction": "down"})),
        Reply::delay(
            60_000,
            Reply::tool("done", json!({"reasoning": "late", "taskComplete": true})),
        ),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        json!({"id": "slow-agent", "task": "Scroll down.", "url": item_url(&files, 1)}),
        json!({"id": "hung-steps", "url": files.url("hung/loop-button.html"), "steps": [
            {"tool": "click", "target": "#fine"},
            {"tool": "click", "target": "#spin"},
            {"tool": "click", "target": "#fine"}
        ]}),
    ];
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let reports = dir.path().join("reports");
    let started = std::time::Instant::now();
    let run = batch(
        &file,
        &out,
        &["--task-timeout", "4", "--reports", reports.to_str().unwrap()],
        Some(&model),
    );
    assert_eq!(run.code(), Some(1), "{}", run.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(40),
        "the late answer (60 s) was not waited for"
    );
    let r = &latest(&out)["slow-agent"];
    assert_eq!(r["status"], "timeout", "{r}");
    let error = r["error"].as_str().unwrap();
    assert!(error.starts_with("timed out after 4 s, stopped after "), "{r}");
    assert!(r["steps"].as_u64().unwrap() >= 1, "{r}");
    let report = std::fs::read_to_string(reports.join(r["report"].as_str().expect("a report"))).unwrap();
    assert!(report.contains("scroll"), "the trace has the step it took");
    // A steps task cut short counts the step under way (its click ran), and says which.
    let r = &latest(&out)["hung-steps"];
    assert_eq!(r["status"], "timeout", "{r}");
    assert_eq!(r["steps"], 2, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .ends_with("during step 2 of 3 (click #spin)"),
        "{r}"
    );
}

/// A result line names the model that ran it; a rerun with another model
/// does not keep it as its own (eval figures would be the old model's
/// under the new name), and says so before anything runs.
#[test]
fn a_rerun_with_another_model_does_not_keep_the_old_models_results() {
    let files = FixtureServer::start();
    let model = heading_model();
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        json!({"id": "agent", "task": "Report the page's main heading.", "url": item_url(&files, 4)}),
        steps_task(&files, "steps", 5),
    ];
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    batch(&file, &out, &[], Some(&model)).assert_success();
    let results = latest(&out);
    assert_eq!(results["agent"]["model"], "openai/gpt-4.1-mini", "{}", results["agent"]);
    assert!(
        results["steps"].get("model").is_none(),
        "no model ran it: {}",
        results["steps"]
    );

    let asked = model.request_count();
    let mut args = batch_args(&file, &out, &[], None);
    args.extend(["--model", "openai/gpt-4.1", "--base-url"].map(String::from));
    args.push(model.openai_base_url());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let other = run_cli_env(&args, &[("OPENAI_API_KEY", "test-key")]);
    assert_ne!(other.code(), Some(0));
    assert!(
        other
            .stderr
            .contains(r#"id "agent": its model was openai/gpt-4.1-mini, this run's is openai/gpt-4.1"#)
            && other.stderr.contains("Give another --out"),
        "{}",
        other.stderr
    );
    assert_eq!(model.request_count(), asked, "nothing ran");
    assert_eq!(result_lines(&out).len(), 2, "the results file is as it was");
}
