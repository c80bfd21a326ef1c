//! The local pool through the library: each worker has its own Chromium
//! with a fresh profile, recycled after `recycle_after` tasks and replaced
//! at once after a crash; progress arrives as events, nothing is printed.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use sightline::batch::{Batch, BatchEvent, BatchOptions, TaskFile, TaskStatus};
use sightline::LaunchOptions;
use sightline_testkit::offline_switches;

use super::{saved_title, steps_task, write_tasks};
use crate::support::*;

/// `--user-data-dir` of a running process.
fn profile_of(pid: u32) -> Option<String> {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    String::from_utf8_lossy(&cmd)
        .split('\0')
        .find_map(|a| a.strip_prefix("--user-data-dir=").map(str::to_string))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_worker_has_its_own_browser_recycled_and_replaced_after_a_crash() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let mut tasks: Vec<Value> = (1..=6).map(|n| steps_task(&files, &format!("p{n}"), n)).collect();
    tasks.insert(
        2,
        json!({"id": "crash", "url": files.url("batch/crash.html"), "steps": [{"tool": "snapshot"}]}),
    );
    let file = TaskFile::read(&write_tasks(dir.path(), &tasks)).unwrap();
    let events: Arc<Mutex<Vec<BatchEvent>>> = Arc::default();
    let profiles: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = {
        let (events, profiles) = (events.clone(), profiles.clone());
        Arc::new(move |e: &BatchEvent| {
            if let BatchEvent::BrowserStarted { pid: Some(pid), .. } = e {
                profiles.lock().unwrap().extend(profile_of(*pid));
            }
            events.lock().unwrap().push(e.clone());
        })
    };
    let options = BatchOptions {
        concurrency: 2,
        recycle_after: 2,
        launch: LaunchOptions {
            extra_args: offline_switches(),
            ..LaunchOptions::default()
        },
        out: dir.path().join("results.jsonl"),
        events: Some(sink),
        ..BatchOptions::default()
    };
    let report = with_timeout("the batch", Batch::new(file, options).unwrap().run())
        .await
        .unwrap();
    assert_eq!(report.summary.ok, 6, "{:?}", report.results);
    assert_eq!(report.summary.failures_text(), "1 crashed");
    for r in report.results.iter().filter(|r| r.id != "crash") {
        let n: u32 = r.id[1..].parse().unwrap();
        assert_eq!(r.output.as_ref().unwrap()["title"], json!(saved_title(&r.id, n)));
    }

    let events = events.lock().unwrap();
    let pids: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            BatchEvent::BrowserStarted { pid, .. } => Some(pid.expect("a launched browser has a pid")),
            _ => None,
        })
        .collect();
    let distinct: HashSet<_> = pids.iter().collect();
    assert_eq!(distinct.len(), pids.len(), "a new process every time: {pids:?}");
    let profiles = profiles.lock().unwrap();
    assert_eq!(profiles.len(), pids.len(), "{profiles:?}");
    assert_eq!(
        profiles.iter().collect::<HashSet<_>>().len(),
        profiles.len(),
        "fresh profiles"
    );
    assert!(
        profiles.iter().all(|p| !std::path::Path::new(p).exists()),
        "profiles are removed with their browser"
    );

    // Per worker: no browser serves more than two tasks, and the crash
    // retired its browser at once.
    let mut served: HashMap<usize, u32> = HashMap::new();
    for e in events.iter() {
        match e {
            BatchEvent::BrowserStarted { worker, .. } => {
                served.insert(*worker, 0);
            }
            BatchEvent::Started { worker, .. } => {
                let n = served.get_mut(worker).expect("a task runs on a started browser");
                *n += 1;
                assert!(*n <= 2, "worker {worker} kept its browser past --recycle-after");
            }
            _ => {}
        }
    }
    let crash_retired = events
        .iter()
        .any(|e| matches!(e, BatchEvent::BrowserRetired { reason, .. } if reason == "crashed after task crash"));
    assert!(crash_retired, "{events:#?}");
    assert!(events
        .iter()
        .any(|e| matches!(e, BatchEvent::BrowserRetired { reason, .. } if reason.starts_with("recycled after 2"))));
    assert!(events
        .iter()
        .any(|e| matches!(e, BatchEvent::Finished { result, .. } if result.status == TaskStatus::Crashed)));
}

/// Runs `tasks` one at a time, calling `on_event` with each event; returns
/// the report and the events.
async fn run_one_by_one(
    dir: &std::path::Path,
    tasks: &[Value],
    task_timeout: std::time::Duration,
    on_event: impl Fn(&BatchEvent) + Send + Sync + 'static,
) -> (sightline::batch::BatchReport, Vec<BatchEvent>) {
    let file = TaskFile::read(&write_tasks(dir, tasks)).unwrap();
    let events: Arc<Mutex<Vec<BatchEvent>>> = Arc::default();
    let sink = events.clone();
    let options = BatchOptions {
        concurrency: 1,
        task_timeout,
        launch: LaunchOptions {
            extra_args: offline_switches(),
            ..LaunchOptions::default()
        },
        out: dir.join("results.jsonl"),
        events: Some(Arc::new(move |e: &BatchEvent| {
            on_event(e);
            sink.lock().unwrap().push(e.clone());
        })),
        ..BatchOptions::default()
    };
    let report = with_timeout("the batch", Batch::new(file, options).unwrap().run())
        .await
        .unwrap();
    let events = events.lock().unwrap().clone();
    (report, events)
}

fn status_of(report: &sightline::batch::BatchReport, id: &str) -> TaskStatus {
    report.results.iter().find(|r| r.id == id).unwrap().status
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_over_its_time_limit_times_out_and_its_browser_is_replaced() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        json!({"id": "slow", "url": files.url("batch/item.html?n=1"), "steps": [{"tool": "wait", "ms": 30000}]}),
        steps_task(&files, "after", 2),
    ];
    let (report, events) = run_one_by_one(dir.path(), &tasks, std::time::Duration::from_secs(2), |_| {}).await;
    assert_eq!(status_of(&report, "slow"), TaskStatus::Timeout);
    assert_eq!(
        report.results[0].error.as_deref(),
        Some("timed out after 2 s during step 1 of 1 (wait)")
    );
    assert_eq!(status_of(&report, "after"), TaskStatus::Ok);
    assert!(events
        .iter()
        .any(|e| matches!(e, BatchEvent::BrowserRetired { reason, .. } if reason == "timeout after task slow")));
    let launched = events
        .iter()
        .filter(|e| matches!(e, BatchEvent::BrowserStarted { .. }))
        .count();
    assert_eq!(launched, 2, "the next task got a new browser");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_browser_fails_its_task_alone_as_crashed() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks = [
        steps_task(&files, "before", 1),
        json!({"id": "victim", "url": files.url("batch/item.html?n=2"), "steps": [{"tool": "wait", "ms": 20000}]}),
        steps_task(&files, "after", 3),
    ];
    // Kill the browser (SIGKILL) the moment the victim task starts on it.
    let pid: Arc<Mutex<Option<u32>>> = Arc::default();
    let (report, _) = run_one_by_one(
        dir.path(),
        &tasks,
        std::time::Duration::from_secs(120),
        move |e| match e {
            BatchEvent::BrowserStarted { pid: p, .. } => *pid.lock().unwrap() = *p,
            BatchEvent::Started { id, .. } if id == "victim" => {
                let p = pid.lock().unwrap().expect("a launched browser");
                std::process::Command::new("kill")
                    .args(["-KILL", &p.to_string()])
                    .status()
                    .unwrap();
            }
            _ => {}
        },
    )
    .await;
    assert_eq!(status_of(&report, "before"), TaskStatus::Ok);
    assert_eq!(
        status_of(&report, "victim"),
        TaskStatus::Crashed,
        "{:?}",
        report.results
    );
    assert_eq!(status_of(&report, "after"), TaskStatus::Ok, "{:?}", report.results);
}
