//! No Chromium outlives Sightline: after close, after drop, after Ctrl-C,
//! and (in `lifecycle/killed.rs`) after a SIGKILL.

mod killed;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::*;
use sightline::{Browser, LaunchOptions};

/// Live (non-zombie) processes whose command line mentions `needle`, as (pid, ppid).
fn processes_mentioning(needle: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if !String::from_utf8_lossy(&cmdline).contains(needle) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …; comm may contain spaces, so split after ')'.
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("");
        let ppid = fields.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if state != "Z" && state != "X" {
            out.push((pid, ppid));
        }
    }
    out
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit_once(')').map(|(_, r)| r.trim_start()).unwrap_or("");
            !(state.starts_with('Z') || state.starts_with('X'))
        })
        .unwrap_or(false)
}

fn wait_until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_waits_for_chromium_and_removes_the_profile() {
    with_timeout("close test", async {
        let server = FixtureServer::start();
        let mut browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let pid = browser.pid().expect("pid");
        let profile = browser.profile_dir().unwrap().to_path_buf();
        assert!(profile.is_dir());
        let page = browser.new_page().await.unwrap();
        page.goto(&server.url("short.html")).await.unwrap();
        browser.close().await.expect("close");
        assert!(!alive(pid), "chromium {pid} still runs after close");
        assert!(!profile.exists(), "profile {} left behind", profile.display());
        let profile = profile.to_string_lossy().into_owned();
        wait_until("chromium's helpers are gone", Duration::from_secs(10), || {
            processes_mentioning(&profile).is_empty()
        });
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_an_unclosed_browser_kills_chromium() {
    with_timeout("drop test", async {
        let mut browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let pid = browser.pid().expect("pid");
        let profile = browser.profile_dir().unwrap().to_string_lossy().into_owned();
        let _page = browser.new_page().await.unwrap();
        drop(browser);
        wait_until("chromium is killed", Duration::from_secs(10), || !alive(pid));
        wait_until("chromium's helpers are gone", Duration::from_secs(15), || {
            processes_mentioning(&profile).is_empty()
        });
        assert!(!Path::new(&profile).exists(), "profile {profile} left behind");
    })
    .await;
}

#[test]
fn ctrl_c_closes_the_browser() {
    stopping_closes_the_browser("-INT", 130);
}

/// SIGTERM (a supervisor stopping the command) closes the browser too, and
/// the exit status says which signal it was, as shells do.
#[test]
fn sigterm_closes_the_browser() {
    stopping_closes_the_browser("-TERM", 143);
}

fn stopping_closes_the_browser(signal: &str, exit_status: i32) {
    let server = FixtureServer::start();
    let child = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["snapshot", &server.url("__hang")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sightline");
    let cli = child.id();

    // Wait for its Chromium, and learn the profile directory from its command line.
    let mut chromium = None;
    wait_until("sightline starts chromium", Duration::from_secs(90), || {
        chromium = processes_mentioning("sightline-profile-")
            .into_iter()
            .find(|(_, ppid)| *ppid == cli);
        chromium.is_some()
    });
    let (chrome_pid, _) = chromium.unwrap();
    let cmdline = String::from_utf8_lossy(&std::fs::read(format!("/proc/{chrome_pid}/cmdline")).unwrap()).into_owned();
    let profile = cmdline
        .split('\0')
        .find_map(|a| a.strip_prefix("--user-data-dir="))
        .expect("chromium has a --user-data-dir")
        .to_string();
    // Let the navigation start (it never finishes: /__hang does not answer).
    std::thread::sleep(Duration::from_millis(1500));

    let status = Command::new("kill")
        .args([signal, &cli.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("wait sightline");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(exit_status), "stderr:\n{stderr}");
    assert_eq!(stderr.trim_end(), "error: interrupted");
    assert!(!alive(chrome_pid), "chromium {chrome_pid} survived kill {signal}");
    wait_until("chromium's helpers are gone", Duration::from_secs(15), || {
        processes_mentioning(&profile).is_empty()
    });
    assert!(!Path::new(&profile).exists(), "profile {profile} left behind");
}

/// A renderer crash is reported as such (not as a timeout), and navigating
/// gives the tab a new renderer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renderer_crash_is_reported_and_recovered_from() {
    use sightline::cdp::browser_protocol::page::CrashParams;
    use sightline::{Error, SnapshotOptions};
    with_timeout("crash test", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("short.html")).await.expect("goto");
        // Page.crash never answers: the renderer is gone.
        let _ = tokio::time::timeout(Duration::from_secs(3), page.cdp().execute(CrashParams::default())).await;
        let started = Instant::now();
        let err = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect_err("snapshot of a crashed tab");
        assert!(matches!(err, Error::PageCrashed), "{err:?}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        // Nothing else waits for the dead renderer either (CDP's own
        // timeout is a minute).
        let started = Instant::now();
        assert!(matches!(page.url().await, Err(Error::PageCrashed)));
        assert!(matches!(page.title().await, Err(Error::PageCrashed)));
        assert!(page.screenshot().await.is_err());
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
        // A reload brings the page back.
        page.reload().await.expect("reload after the crash");
        let snap = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("snapshot after the reload");
        assert!(snap.tree.contains(r#"button "Only button""#), "{}", snap.tree);

        page.goto(&server.url("long.html")).await.expect("goto");
        let _ = tokio::time::timeout(Duration::from_secs(3), page.cdp().execute(CrashParams::default())).await;
        page.goto(&server.url("short.html"))
            .await
            .expect("goto after the crash");
        let snap = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("snapshot after the crash");
        assert!(snap.tree.contains(r#"button "Only button""#), "{}", snap.tree);
        // And back, after another crash.
        let _ = tokio::time::timeout(Duration::from_secs(3), page.cdp().execute(CrashParams::default())).await;
        page.back().await.expect("back after the crash");
        let snap = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("snapshot after back");
        assert!(
            !snap.tree.contains(r#"button "Only button""#),
            "long.html again: {}",
            snap.tree
        );
        browser.close().await.expect("close");
    })
    .await;
}

#[tokio::test]
async fn a_page_that_keeps_replacing_its_document_gets_a_clear_error() {
    use sightline::{Error, SnapshotOptions, WaitUntil};
    with_timeout("refresh loop", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.set_wait_until(WaitUntil::Load);
        page.goto(&server.url("hung/refresh-loop.html")).await.expect("goto");
        // Read while it reloads ten times a second: the tree of one of its
        // documents, or an error that says what the page does (not CDP's
        // "cannot find context").
        for _ in 0..2 {
            match page.snapshot(&SnapshotOptions::default()).await {
                Ok(snap) => assert!(snap.tree.contains("Never still"), "{}", snap.tree),
                Err(e) => assert!(matches!(e, Error::DocumentKeptChanging), "{e}"),
            }
        }
        browser.close().await.expect("close");
    })
    .await;
}
