//! Where the browsers come from: a real Selenium Grid 4 standalone, and a
//! Chromium that is already running (`--cdp-endpoint`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use sightline_testkit::{GridError, LocalGrid};

use super::{batch, batch_on_a_terminal, latest, paused_steps_task, saved_title, steps_task, write_tasks};
use crate::support::*;

/// The grid, or `None` (loudly) when Java or the jar is truly absent.
/// `SIGHTLINE_REQUIRE_GRID=1` (scripts/test.sh) turns that into a failure.
fn grid_with(slots: u32) -> Option<LocalGrid> {
    match LocalGrid::start(slots) {
        Ok(grid) => Some(grid),
        Err(GridError::Missing(why)) if std::env::var_os("SIGHTLINE_REQUIRE_GRID").is_none() => {
            eprintln!(
                "\n######## SKIPPED the Selenium Grid test: {why}. `bash scripts/setup.sh` installs Java and the jar. ########\n"
            );
            None
        }
        Err(e) => panic!("no Selenium Grid: {e}"),
    }
}

#[test]
fn a_grid_queues_six_tasks_over_two_slots_and_deletes_every_session() {
    let Some(grid) = grid_with(2) else { return };
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    // A pause keeps each session busy long enough for the queue to be seen;
    // one task fails and one crashes its renderer: their sessions go too.
    let mut tasks: Vec<Value> = (1..=4)
        .map(|n| paused_steps_task(&files, &format!("g{n}"), n, 1500))
        .collect();
    tasks.push(json!({"id": "g-broken", "url": files.url("batch/item.html?n=5"), "steps": [{"tool": "click", "target": "#missing"}]}));
    tasks.push(json!({"id": "g-crash", "url": files.url("batch/crash.html"), "steps": [{"tool": "snapshot"}]}));
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");

    // Watch the grid itself while the batch runs.
    let grid = Arc::new(grid);
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (grid, done) = (grid.clone(), done.clone());
        std::thread::spawn(move || {
            let (mut max_queue, mut max_sessions) = (0, 0);
            while !done.load(Ordering::SeqCst) {
                max_queue = max_queue.max(grid.queue_size().unwrap_or(0));
                max_sessions = max_sessions.max(grid.sessions().unwrap_or(0));
                std::thread::sleep(Duration::from_millis(50));
            }
            (max_queue, max_sessions)
        })
    };
    // On a terminal, so the live progress line shows the waiting tasks.
    let run = batch_on_a_terminal(
        &file,
        &out,
        &["--grid", &grid.url(), "--concurrency", "6", "--action-timeout", "500"],
    );
    done.store(true, Ordering::SeqCst);
    let (max_queue, max_sessions) = watcher.join().unwrap();
    assert_eq!(
        run.code(),
        Some(1),
        "{}\n{}\ngrid log:\n{}",
        run.stdout,
        run.stderr,
        grid.log_tail()
    );
    let screen = run.stdout.replace('\r', "\n");
    assert!(
        screen
            .lines()
            .any(|l| l.contains(" done ") && l.contains("running") && l.contains("ETA")),
        "a progress line: {screen}"
    );
    assert!(
        (1..=4).any(|n| screen.contains(&format!("· {n} queued"))),
        "tasks waiting for a grid slot show as queued: {screen}"
    );
    assert!(screen.contains("6 (4 ok, 66.7% success)"), "the summary: {screen}");
    assert!(screen.contains("1 failed, 1 crashed"), "{screen}");

    let results = latest(&out);
    assert_eq!(results.len(), 6);
    assert_eq!(results["g-broken"]["status"], "failed", "{}", results["g-broken"]);
    assert_eq!(results["g-crash"]["status"], "crashed", "{}", results["g-crash"]);
    for n in 1..=4 {
        let id = format!("g{n}");
        let r = &results[&id];
        assert_eq!(r["status"], "ok", "{r}");
        assert_eq!(r["output"]["title"], json!(saved_title(&id, n)), "{r}");
    }
    assert!(max_queue >= 1, "the grid queued the requests beyond its 2 slots");
    assert_eq!(max_sessions, 2, "never more sessions than slots, and both used");
    assert_eq!(
        grid.sessions().unwrap(),
        0,
        "every session was deleted: {}",
        grid.status().unwrap()
    );
    assert_eq!(grid.queue_size().unwrap(), 0);
}

#[test]
fn cdp_endpoints_run_tasks_on_a_browser_that_is_already_running() {
    let chromium = RemoteChrome::start();
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks: Vec<Value> = (1..=3).map(|n| steps_task(&files, &format!("c{n}"), n)).collect();
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let endpoint = format!("http://127.0.0.1:{}", chromium.port);
    batch(&file, &out, &["--cdp-endpoint", &endpoint], None).assert_success();
    let results = latest(&out);
    for n in 1..=3 {
        let id = format!("c{n}");
        assert_eq!(
            results[&id]["output"]["title"],
            json!(saved_title(&id, n)),
            "{}",
            results[&id]
        );
    }
    let mut chromium = chromium;
    assert!(
        chromium.child.try_wait().unwrap().is_none(),
        "the browser is not ours to close"
    );
    let tabs = chromium.tab_urls();
    assert!(
        tabs.iter().all(|u| !u.contains("batch/item.html")),
        "each task's tab was closed: {tabs:?}"
    );
}

/// A grid that cannot give a browser (gone, or refusing every session)
/// stops the batch after three tries in a row: the tasks are left unrun
/// for the next run, not marked crashed one after another in no time.
#[test]
fn a_batch_stops_when_no_browser_can_be_had() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks: Vec<Value> = (1..=20).map(|n| steps_task(&files, &format!("g{n}"), n)).collect();
    let file = write_tasks(dir.path(), &tasks);
    let out = dir.path().join("results.jsonl");
    let dead = sightline_testkit::free_port();
    let grid = format!("http://127.0.0.1:{dead}");
    let run = batch(&file, &out, &["--grid", &grid, "--concurrency", "2"], None);
    assert_eq!(run.code(), Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("the batch stopped: no browser could be had")
            && run.stderr.contains("times in a row")
            && run.stderr.contains("20 task(s) not run"),
        "{}",
        run.stderr
    );
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    assert_eq!(written.lines().count(), 0, "no task is marked for an outage: {written}");
}
