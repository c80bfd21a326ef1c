//! A Sightline process killed outright (SIGKILL: no handler runs) takes
//! its browsers and temporary folders with it (its reaper sees it go), and
//! whatever a run could not clean is swept at the next start, but only
//! when the run that owned it is over.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;
use sightline_testkit::offline_switches;

use super::{alive, processes_mentioning, wait_until};
use crate::batch::{paused_steps_task, write_tasks};
use crate::support::mcp_client::{McpClient, McpHttpServer};
use crate::support::*;

fn sigkill(pid: u32) {
    let ok = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -KILL {pid}");
}

/// The profiles of the browsers `parent` started (from their `--user-data-dir`).
fn profiles_of(parent: u32) -> Vec<String> {
    let mut out: Vec<String> = processes_mentioning("sightline-profile-")
        .into_iter()
        .filter(|(_, ppid)| *ppid == parent)
        .filter_map(|(pid, _)| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            String::from_utf8_lossy(&cmd)
                .split('\0')
                .find_map(|a| a.strip_prefix("--user-data-dir="))
                .map(str::to_string)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn assert_gone(profiles: &[String]) {
    for profile in profiles {
        wait_until(&format!("no process uses {profile}"), Duration::from_secs(20), || {
            processes_mentioning(profile).is_empty()
        });
        wait_until(&format!("{profile} is removed"), Duration::from_secs(20), || {
            !Path::new(profile).exists()
        });
    }
}

#[test]
fn a_sigkilled_batch_leaves_no_browser_and_no_profile() {
    let files = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let tasks: Vec<_> = (1..=4)
        .map(|n| paused_steps_task(&files, &format!("t{n}"), n, 25_000))
        .collect();
    let file = write_tasks(dir.path(), &tasks);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sightline"));
    cmd.arg("batch")
        .arg(&file)
        .arg("--out")
        .arg(dir.path().join("results.jsonl"));
    cmd.args(["--concurrency", "2"]);
    for switch in offline_switches() {
        cmd.arg("--browser-arg").arg(switch);
    }
    let mut batch = cmd
        .env_remove("SIGHTLINE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = batch.id();
    let mut profiles = Vec::new();
    wait_until("the batch runs two browsers", CLI_TIMEOUT, || {
        profiles = profiles_of(pid);
        profiles.len() == 2
    });
    sigkill(pid);
    let _ = batch.wait();
    assert_gone(&profiles);
}

#[test]
fn a_sigkilled_mcp_server_leaves_no_browser_and_no_output_folder() {
    let files = FixtureServer::start();
    let server = McpHttpServer::start(&[]);
    let mut c = McpClient::http(&server.url, None);
    c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    // Where the server keeps its files: a folder of its own in the temporary directory.
    let saved = c.ok("browser_take_screenshot", json!({"filename": "where.png"}));
    let output = saved
        .split("Saved to ")
        .nth(1)
        .and_then(|s| s.split(".png").next())
        .map(|s| PathBuf::from(format!("{s}.png")))
        .unwrap_or_else(|| panic!("no path in {saved}"));
    // (Over HTTP each session writes in a folder of its own in it.)
    let session = output.parent().unwrap().to_path_buf();
    assert!(
        session.file_name().unwrap().to_string_lossy().starts_with("session-"),
        "{session:?}"
    );
    let output = session.parent().unwrap().to_path_buf();
    assert!(
        output
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("sightline-mcp-"),
        "{output:?}"
    );
    let profiles = profiles_of(server.pid());
    assert_eq!(profiles.len(), 1, "{profiles:?}");
    sigkill(server.pid());
    assert_gone(&profiles);
    wait_until("the output folder is removed", Duration::from_secs(20), || {
        !output.exists()
    });
    drop(c);
}

#[test]
fn an_mcp_servers_own_output_folder_goes_when_it_ends() {
    let files = FixtureServer::start();
    let mut c = crate::support::mcp_client::stdio(&[]);
    c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let saved = c.ok("browser_take_screenshot", json!({"filename": "where.png"}));
    let output = PathBuf::from(
        saved
            .split("Saved to ")
            .nth(1)
            .unwrap()
            .split("where.png")
            .next()
            .unwrap(),
    );
    assert!(output.is_dir(), "{output:?}");
    drop(c);
    wait_until("the output folder is removed", Duration::from_secs(20), || {
        !output.exists()
    });
}

/// `<pid>.<start>` of a process (`/proc/<pid>/stat` field 22).
fn owner_token(pid: u32) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let start = stat.rsplit_once(')').unwrap().1.split_whitespace().nth(19).unwrap();
    format!("{pid}.{start}")
}

#[test]
fn the_next_start_sweeps_what_a_dead_run_left_and_spares_a_live_ones() {
    let files = FixtureServer::start();
    let tmp = std::env::temp_dir();
    let mut finished = Command::new("true").spawn().unwrap();
    let dead = finished.id();
    finished.wait().unwrap();
    let stale_profile = tmp.join(format!("sightline-profile-{dead}.1-e2esweep"));
    let stale_output = tmp.join(format!("sightline-mcp-{dead}.1-e2esweep"));
    let live = tmp.join(format!(
        "sightline-profile-{}-e2esweep",
        owner_token(std::process::id())
    ));
    for d in [&stale_profile, &stale_output, &live] {
        std::fs::create_dir_all(d.join("Default")).unwrap();
    }
    // An orphaned "browser" still using the stale profile.
    let mut orphan = Command::new("/bin/sh")
        .args(["-c", "while :; do sleep 1; done", "chromium"])
        .arg(format!("--user-data-dir={}", stale_profile.display()))
        .spawn()
        .unwrap();

    let out = run_cli(&["snapshot", &files.url("short.html")]);
    out.assert_success();
    assert!(
        !stale_profile.exists() && !stale_output.exists(),
        "the dead run's folders are gone"
    );
    let status = orphan.wait().unwrap();
    assert!(!status.success(), "the orphan using the stale profile was killed");
    assert!(live.exists(), "a live run's folder is never touched");
    std::fs::remove_dir_all(&live).unwrap();
    assert!(!alive(dead));
}
