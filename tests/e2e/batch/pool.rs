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
