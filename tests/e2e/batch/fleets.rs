//! Where the browsers come from: a real Selenium Grid 4 standalone, and a
//! Chromium that is already running (`--cdp-endpoint`).

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sightline_testkit::{offline_switches, GridError, LocalGrid};

use super::{batch, latest, saved_title, steps_task, write_tasks};
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
    // A pause keeps each session busy long enough for the queue to be seen.
    let tasks: Vec<Value> = (1..=6)
        .map(|n| {
            let mut t = steps_task(&files, &format!("g{n}"), n);
            t["steps"]
                .as_array_mut()
                .unwrap()
                .push(json!({"tool": "wait", "ms": 1500}));
            t
        })
        .collect();
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
    let run = batch(&file, &out, &["--grid", &grid.url(), "--concurrency", "6"], None);
    done.store(true, Ordering::SeqCst);
    let (max_queue, max_sessions) = watcher.join().unwrap();
    assert!(
        run.status.success(),
        "{}\n{}\ngrid log:\n{}",
        run.stdout,
        run.stderr,
        grid.log_tail()
    );

    let results = latest(&out);
    assert_eq!(results.len(), 6);
    for n in 1..=6 {
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

/// A Chromium started by hand with a DevTools port, as a hosted browser service runs one.
struct RunningChromium {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
}

impl RunningChromium {
    fn start() -> RunningChromium {
        let profile = tempfile::tempdir().unwrap();
        let exe = std::env::var("SIGHTLINE_CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let mut cmd = Command::new(exe);
        cmd.args([
            "--headless=new",
            "--no-sandbox",
            "--remote-debugging-port=0",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()));
        for switch in offline_switches() {
            cmd.arg(format!("--{switch}"));
        }
        let child = cmd
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromium");
        let active = profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + CLI_TIMEOUT;
        let port = loop {
            let text = std::fs::read_to_string(&active).unwrap_or_default();
            if let Some(port) = text.lines().next().and_then(|l| l.trim().parse().ok()) {
                break port;
            }
            assert!(Instant::now() < deadline, "chromium wrote no DevToolsActivePort");
            std::thread::sleep(Duration::from_millis(50));
        };
        RunningChromium {
            child,
            port,
            _profile: profile,
        }
    }

    /// The URLs of its open tabs (`/json/list`).
    fn tab_urls(&self) -> Vec<String> {
        // DevTools answers HTTP/1.1 only, and keeps the connection open:
        // read the head, then Content-Length bytes.
        let mut sock = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(sock, "GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", self.port).unwrap();
        let mut raw = Vec::new();
        let mut chunk = [0u8; 8192];
        let body = loop {
            let n = sock.read(&mut chunk).unwrap();
            assert!(n > 0, "DevTools closed the connection");
            raw.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&raw).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().to_string())
                    })
                    .and_then(|v| v.parse().ok())
                    .expect("a Content-Length");
                if body.len() >= length {
                    break body.to_string();
                }
            }
        };
        let list: Vec<Value> = serde_json::from_str(&body).unwrap();
        list.iter()
            .filter(|t| t["type"] == "page")
            .map(|t| t["url"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

impl Drop for RunningChromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn cdp_endpoints_run_tasks_on_a_browser_that_is_already_running() {
    let chromium = RunningChromium::start();
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
