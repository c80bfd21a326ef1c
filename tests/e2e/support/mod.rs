//! Shared helpers for the end-to-end tests: runners for the `sightline`
//! binary, tree helpers, and (from sightline-testkit) the file server.
#![allow(dead_code)]

pub mod ax;
pub mod extension_browser;
pub mod mcp_client;
pub mod packages;
mod remote_chrome;
pub mod world;

pub use remote_chrome::RemoteChrome;

pub use sightline_testkit::{fixtures_dir, FixtureServer, RecordingSite};

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use sightline::protocol::SnapshotResult;

/// Generous per-run limit: Chromium on a busy 2-core machine can be slow.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(180);

/// Output of one `sightline` run.
#[derive(Debug)]
pub struct CliOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl CliOutput {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// Panics with the full output unless the run succeeded.
    pub fn assert_success(&self) -> &Self {
        assert!(
            self.status.success(),
            "sightline failed ({:?})\nstdout:\n{}\nstderr:\n{}",
            self.status,
            self.stdout,
            self.stderr
        );
        self
    }

    /// The one-line `error: …` message of a failed run.
    pub fn assert_one_line_error(&self) -> String {
        assert!(
            !self.status.success(),
            "expected a failure, got success\nstdout:\n{}",
            self.stdout
        );
        let lines: Vec<&str> = self.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(
            lines.len(),
            1,
            "expected exactly one stderr line, got:\n{}",
            self.stderr
        );
        assert!(
            lines[0].starts_with("error: "),
            "stderr does not start with `error: `: {}",
            lines[0]
        );
        assert!(
            self.stdout.is_empty(),
            "stdout should be empty on error, got:\n{}",
            self.stdout
        );
        lines[0].to_string()
    }
}

/// Runs the `sightline` binary with `args`.
pub fn run_cli(args: &[&str]) -> CliOutput {
    run_cli_env(args, &[])
}

/// Runs the `sightline` binary with `args` and extra environment variables,
/// killing it after [`CLI_TIMEOUT`].
pub fn run_cli_env(args: &[&str], envs: &[(&str, &str)]) -> CliOutput {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sightline"));
    cmd.args(args);
    // Run as a user runs it, outside cargo: without the tests' larger
    // thread stacks (.cargo/config.toml), which hid a debug build's overflow.
    cmd.env_remove("SIGHTLINE_LOG").env_remove("RUST_MIN_STACK");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    run_with_limit(cmd, &format!("sightline {args:?}"))
}

/// Runs `cmd` with no input, collecting its output, killing it after [`CLI_TIMEOUT`].
pub fn run_with_limit(mut cmd: Command, what: &str) -> CliOutput {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + CLI_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the command") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what} did not finish within {CLI_TIMEOUT:?}; stderr:\n{}",
                err_reader.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    CliOutput {
        status,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// Runs `sightline snapshot <target> --json [extra…]`, asserts success and
/// returns the result both as raw JSON and typed.
pub fn snapshot_json(target: &str, extra: &[&str]) -> (serde_json::Value, SnapshotResult) {
    let mut args = vec!["snapshot", target, "--json"];
    args.extend_from_slice(extra);
    let out = run_cli(&args);
    out.assert_success();
    let raw: serde_json::Value = serde_json::from_str(out.stdout.trim_end())
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}):\n{}", out.stdout));
    let typed: SnapshotResult = serde_json::from_value(raw.clone()).expect("stdout is a SnapshotResult");
    (raw, typed)
}

/// Runs `sightline snapshot <target> [extra…]` (text output), asserts success, returns stdout.
pub fn snapshot_text(target: &str, extra: &[&str]) -> String {
    let mut args = vec!["snapshot", target];
    args.extend_from_slice(extra);
    let out = run_cli(&args);
    out.assert_success();
    out.stdout
}

/// The first tree line containing `needle` (panics with the tree otherwise).
pub fn line_with<'a>(tree: &'a str, needle: &str) -> &'a str {
    tree.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line contains {needle:?} in:\n{tree}"))
}

/// Index of the first line containing `needle`.
pub fn line_index(tree: &str, needle: &str) -> usize {
    tree.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line contains {needle:?} in:\n{tree}"))
}

/// The `[ref=…]` on a line, if any.
pub fn ref_of(line: &str) -> Option<String> {
    let start = line.find("[ref=")? + 5;
    let end = line[start..].find(']')? + start;
    Some(line[start..end].to_string())
}

/// Leading spaces of a line.
pub fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Runs an async test body with a generous timeout.
pub async fn with_timeout<T>(what: &str, fut: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(CLI_TIMEOUT, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {CLI_TIMEOUT:?}"),
    }
}

/// Lines above `idx` that enclose it (each with less indentation than the
/// previous), nearest first.
pub fn ancestors(tree: &str, idx: usize) -> Vec<&str> {
    let lines: Vec<&str> = tree.lines().collect();
    let mut out = Vec::new();
    let mut indent = indent_of(lines[idx]);
    for line in lines[..idx].iter().rev() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let i = indent_of(line);
        if i < indent {
            out.push(*line);
            indent = i;
        }
    }
    out
}

/// Every `[ref=…]` in the tree is in `refs` and vice versa, with a role.
pub fn assert_refs_consistent(result: &SnapshotResult) {
    let in_tree: Vec<String> = result.tree.lines().filter_map(ref_of).collect();
    let in_map: Vec<String> = result.refs.iter().map(|(k, _)| k.clone()).collect();
    for r in &in_tree {
        assert!(
            result.refs.get(r).is_some(),
            "tree ref {r} is missing from refs:\n{}",
            result.tree
        );
    }
    for r in &in_map {
        assert!(
            in_tree.contains(r),
            "ref {r} is in refs but not in the tree:\n{}",
            result.tree
        );
        assert!(!result.refs.get(r).unwrap().role.is_empty(), "ref {r} has no role");
    }
    let mut unique = in_tree.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        in_tree.len(),
        "duplicate refs in the tree:\n{}",
        result.tree
    );
}

/// The index of the first tab of a tab list (`- 2: [title](url)`) whose
/// line contains `needle` (panics if none does).
pub fn tab_index(listing: &str, needle: &str) -> u64 {
    listing
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.trim_start_matches("- ").split(':').next())
        .and_then(|i| i.parse().ok())
        .unwrap_or_else(|| panic!("no tab {needle:?} is listed: {listing}"))
}

/// The ref of the first line that contains `needle` (panics if it has none).
pub fn ref_with(tree: &str, needle: &str) -> String {
    let line = line_with(tree, needle);
    ref_of(line).unwrap_or_else(|| panic!("line {line:?} has no ref in:\n{tree}"))
}

/// True when the line containing `needle`, or a line enclosing it, is marked
/// `[offscreen]` (the engine marks only the highest offscreen node).
pub fn offscreen(tree: &str, needle: &str) -> bool {
    let idx = line_index(tree, needle);
    let line = tree.lines().nth(idx).unwrap();
    line.contains("[offscreen]") || ancestors(tree, idx).iter().any(|l| l.contains("[offscreen]"))
}
