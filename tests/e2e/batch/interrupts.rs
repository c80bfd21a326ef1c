//! Ctrl-C during a batch: the first lets the running tasks finish and
//! starts no new one, the second cancels the running ones (`skipped`); no
//! finished result is lost, and a rerun picks up what was left.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sightline_testkit::offline_switches;

use super::{item_url, latest, paused_steps_task, result_lines, saved_title, write_tasks};
use crate::support::*;

fn spawn_batch(tasks: &Path, out: &Path, extra: &[&str]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sightline"));
    cmd.arg("batch").arg(tasks).arg("--out").arg(out);
    for switch in offline_switches() {
        cmd.arg("--browser-arg").arg(switch);
    }
    cmd.args(extra)
        .env_remove("SIGHTLINE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("spawn sightline")
}

fn interrupt(child: &Child) {
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -INT failed");
}

/// Waits (up to the CLI limit) until `ready` holds.
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + CLI_TIMEOUT;
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "{what} did not happen within {CLI_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Live Chromium processes started by `parent` (workers' browsers).
fn browsers_of(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
            let mut f = rest.split_whitespace();
            let state = f.next().unwrap_or("");
            let ppid: u32 = f.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            ppid == parent && state != "Z" && String::from_utf8_lossy(&cmd).contains("sightline-profile-")
        })
        .filter_map(|e| e.file_name().to_string_lossy().parse().ok())
        .collect()
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z"))
}

#[test]
fn ctrl_c_finishes_the_running_tasks_and_loses_no_result() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    // Tasks that take a while (a 3 s pause after saving), so the run is
    // still busy when the first result is in.
    let tasks: Vec<Value> = (1..=8)
        .map(|n| paused_steps_task(&files, &format!("t{n}"), n, 3000))
        .collect();
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let child = spawn_batch(&file, &out, &["--concurrency", "2"]);
    wait_until("a first result", || !result_lines(&out).is_empty());
    interrupt(&child);
    let run = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(130), "{stderr}");
    assert_eq!(stderr.trim(), "error: interrupted");
    let first = result_lines(&out);
    assert!(first.len() < 8, "the run stopped early: {first:?}");
    for r in &first {
        assert_eq!(r["status"], "ok", "running tasks were finished, not cancelled: {r}");
    }

    // The rerun runs only the rest; every task ends with exactly one result.
    let rerun = spawn_batch(&file, &out, &["--concurrency", "2"])
        .wait_with_output()
        .unwrap();
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    let lines = result_lines(&out);
    assert_eq!(lines.len(), 8, "no task ran twice, none was lost");
    assert_eq!(&lines[..first.len()], &first[..], "the first results are untouched");
    let results = latest(&out);
    for n in 1..=8 {
        let id = format!("t{n}");
        assert_eq!(results[&id]["output"]["title"], json!(saved_title(&id, n)));
    }
}

#[test]
fn a_second_ctrl_c_cancels_the_running_tasks_as_skipped() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks: Vec<Value> = (1..=2)
        .map(
            |n| json!({"id": format!("long{n}"), "url": item_url(&files, n), "steps": [{"tool": "wait", "ms": 30000}]}),
        )
        .collect();
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let child = spawn_batch(&file, &out, &["--concurrency", "2"]);
    let pid = child.id();
    // A worker launches its browser once it has taken its task.
    wait_until("both workers' browsers", || browsers_of(pid).len() == 2);
    interrupt(&child);
    // Two presses at once could reach the process as one signal.
    std::thread::sleep(Duration::from_millis(1000));
    interrupt(&child);
    let browsers = browsers_of(pid);
    let run = child.wait_with_output().unwrap();
    assert_eq!(run.status.code(), Some(130), "{}", String::from_utf8_lossy(&run.stderr));
    let results = latest(&out);
    assert_eq!(results.len(), 2, "each cancelled task has its line: {results:?}");
    for r in results.values() {
        assert_eq!(r["status"], "skipped", "{r}");
        assert!(r["error"].as_str().unwrap().contains("cancelled"), "{r}");
    }
    wait_until("the browsers to close", || browsers.iter().all(|p| !alive(*p)));
}
