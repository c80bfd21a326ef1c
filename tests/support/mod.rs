//! Shared helpers for the end-to-end tests: a static file server for
//! `tests/fixtures/` on 127.0.0.1, and runners for the `sightline` binary.
//!
//! Include with `#[path = "../support/mod.rs"] mod support;`.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sightline::protocol::SnapshotResult;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Generous per-run limit: Chromium on a busy 2-core machine can be slow.
pub const CLI_TIMEOUT: Duration = Duration::from_secs(180);

/// `tests/fixtures/` of this repository.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .canonicalize()
        .expect("tests/fixtures exists")
}

/// A static HTTP/1.1 file server on 127.0.0.1 (random free port), running on
/// its own thread so tests may block freely.
///
/// Extra response headers for `x.html` come from an optional sidecar file
/// `x.html.headers` (`Name: value` per line, `#` comments). `/__hang` never
/// answers; `/__slow?ms=N` answers `ok` after N milliseconds.
pub struct FixtureServer {
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FixtureServer {
    /// Serves `tests/fixtures/`.
    pub fn start() -> FixtureServer {
        FixtureServer::serve(fixtures_dir())
    }

    /// Two servers for the same directory: two origins, for cross-origin iframes.
    pub fn pair() -> (FixtureServer, FixtureServer) {
        (FixtureServer::start(), FixtureServer::start())
    }

    pub fn serve(root: PathBuf) -> FixtureServer {
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
                port_tx.send(listener.local_addr().unwrap().port()).unwrap();
                let root = Arc::new(root);
                let accept = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            continue;
                        };
                        let root = root.clone();
                        tokio::spawn(async move {
                            let _ = handle(sock, &root).await;
                        });
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stop_rx => {}
                }
            });
        });
        let port = port_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("fixture server started");
        FixtureServer {
            port,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT/<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}/{}", self.port, path.trim_start_matches('/'))
    }
}

impl Drop for FixtureServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "wasm" => "application/wasm",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Extra headers from `<file>.headers`.
fn sidecar_headers(file: &Path) -> Vec<(String, String)> {
    let mut name = file.as_os_str().to_owned();
    name.push(".headers");
    let Ok(text) = std::fs::read_to_string(PathBuf::from(name)) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

async fn handle(mut sock: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = sock.read(&mut chunk).await?;
        if n == 0 || buf.len() > 64 * 1024 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&buf);
    let mut parts = head.lines().next().unwrap_or("").split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let path = percent_decode(target.split(['?', '#']).next().unwrap_or("/"));

    if path == "/__hang" {
        // Never answers: for navigation timeouts and interrupt tests.
        tokio::time::sleep(Duration::from_secs(3600)).await;
        return Ok(());
    }
    if path == "/__slow" {
        // Answers "ok" after ?ms=N milliseconds: for settle tests.
        let ms: u64 = target
            .split_once("ms=")
            .and_then(|(_, v)| v.split('&').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        let out = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nok";
        sock.write_all(out.as_bytes()).await?;
        return sock.shutdown().await;
    }
    let rel = Path::new(path.trim_start_matches('/'));
    let safe = rel.components().all(|c| matches!(c, Component::Normal(_)));
    let mut file = root.join(rel);
    if safe && file.is_dir() {
        file = file.join("index.html");
    }
    let (status, body, mut headers) = if method != "GET" && method != "HEAD" {
        ("405 Method Not Allowed", b"method not allowed".to_vec(), vec![])
    } else if !safe || !file.is_file() || file.extension().is_some_and(|e| e == "headers") {
        (
            "404 Not Found",
            b"not found".to_vec(),
            vec![("Content-Type".to_string(), "text/plain".to_string())],
        )
    } else {
        let body = tokio::fs::read(&file).await?;
        let mut h = vec![("Content-Type".to_string(), content_type(&file).to_string())];
        h.extend(sidecar_headers(&file));
        ("200 OK", body, h)
    };
    headers.push(("Content-Length".into(), body.len().to_string()));
    headers.push(("Cache-Control".into(), "no-store".into()));
    headers.push(("Connection".into(), "close".into()));
    let mut out = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    sock.write_all(out.as_bytes()).await?;
    if method != "HEAD" {
        sock.write_all(&body).await?;
    }
    sock.shutdown().await
}

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
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.env_remove("SIGHTLINE_LOG");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn sightline");
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
        if let Some(status) = child.try_wait().expect("wait sightline") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "sightline {args:?} did not finish within {CLI_TIMEOUT:?}; stderr:\n{}",
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
