//! `sightline bench mcp-sessions`: the MCP HTTP server's memory over many
//! sessions, as raw protocol clients open them:
//!
//! - `--sessions` clients (100) open a session each, navigate (a browser
//!   context and a tab each), all at once, then end them (DELETE);
//! - `--initialize-only` clients (5,000) run `initialize` and go away
//!   without ending their session, which the idle timeout then closes.
//!
//! For each: the server's RSS (the `sightline` process alone) before, at
//! its peak and after, and the browser's PSS (its process tree) likewise.
//! "After" is measured once the sessions are gone (DELETE answered, or the
//! idle timeout and a sweep passed) and the browser has closed their contexts.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;
use sightline::{Error, Result};
use sightline_testkit::mcp_client::RawSession;
use sightline_testkit::{offline_switches, FixtureServer};

use super::memory;
use super::pages::print_report;

#[derive(Debug, Clone, clap::Args)]
pub struct BenchMcpSessionsArgs {
    /// Sessions open at once, each navigating (a context and a tab), then ended.
    #[arg(long, default_value_t = 100)]
    pub sessions: usize,
    /// Sessions that only run `initialize`, never ended (left to the idle timeout).
    #[arg(long, default_value_t = 5000)]
    pub initialize_only: usize,
    /// The server's --session-idle, in seconds.
    #[arg(long, default_value_t = 3)]
    pub session_idle: u64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One phase's memory, MB.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    pub name: String,
    pub sessions: usize,
    pub seconds: f64,
    pub server_rss_before_mb: f64,
    pub server_rss_peak_mb: f64,
    pub server_rss_after_mb: f64,
    pub browser_pss_before_mb: f64,
    pub browser_pss_peak_mb: f64,
    pub browser_pss_after_mb: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct McpSessionsReport {
    /// The server's RSS just after it started (no browser yet), MB.
    pub server_rss_started_mb: f64,
    pub phases: Vec<Phase>,
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// `sightline mcp --port 0 …`, its port read from its first line.
fn start_server(idle: u64, max: usize) -> Result<(Child, u16)> {
    let exe = std::env::current_exe().map_err(|e| Error::Io(format!("cannot find the sightline binary: {e}")))?;
    let mut cmd = Command::new(exe);
    cmd.args(["mcp", "--port", "0", "--session-idle", &idle.to_string()])
        .args(["--max-sessions", &max.to_string()]);
    for s in offline_switches() {
        cmd.arg("--chrome-arg").arg(s);
    }
    let mut child = cmd
        .env_remove("SIGHTLINE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Io(format!("cannot start sightline mcp: {e}")))?;
    let mut err = BufReader::new(child.stderr.take().expect("piped"));
    let mut line = String::new();
    let _ = err.read_line(&mut line);
    let port = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches("/mcp").parse().ok())
        .ok_or_else(|| Error::Io(format!("sightline mcp said {line:?}")))?;
    std::thread::spawn(move || {
        let mut sink = String::new();
        while err.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
            sink.clear();
        }
    });
    Ok((child, port))
}

/// The server's RSS and its browser's PSS (the tree below it, the server left out).
fn measure(server: u32) -> (u64, u64) {
    let own = memory::of_process(server);
    let tree = memory::of_tree(server);
    (own.rss, tree.pss.saturating_sub(own.pss))
}

/// Peaks sampled every 100 ms on a thread of its own until dropped.
struct Peaks {
    stop: Arc<AtomicBool>,
    server: Arc<AtomicU64>,
    browser: Arc<AtomicU64>,
}

impl Peaks {
    fn start(pid: u32) -> Peaks {
        let p = Peaks {
            stop: Arc::new(AtomicBool::new(false)),
            server: Arc::new(AtomicU64::new(0)),
            browser: Arc::new(AtomicU64::new(0)),
        };
        let (stop, server, browser) = (p.stop.clone(), p.server.clone(), p.browser.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let (s, b) = measure(pid);
                server.fetch_max(s, Ordering::Relaxed);
                browser.fetch_max(b, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        p
    }

    fn stop(self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        (
            self.server.load(Ordering::Relaxed),
            self.browser.load(Ordering::Relaxed),
        )
    }
}

/// Runs `work` between two measurements, with peaks sampled throughout.
fn phase(name: &str, sessions: usize, pid: u32, work: impl FnOnce() -> Result<()>) -> Result<Phase> {
    let (server_before, browser_before) = measure(pid);
    let started = Instant::now();
    let peaks = Peaks::start(pid);
    work()?;
    let (server_peak, browser_peak) = peaks.stop();
    let (server_after, browser_after) = measure(pid);
    Ok(Phase {
        name: name.into(),
        sessions,
        seconds: started.elapsed().as_secs_f64(),
        server_rss_before_mb: mb(server_before),
        server_rss_peak_mb: mb(server_peak.max(server_after)),
        server_rss_after_mb: mb(server_after),
        browser_pss_before_mb: mb(browser_before),
        browser_pss_peak_mb: mb(browser_peak.max(browser_after)),
        browser_pss_after_mb: mb(browser_after),
    })
}

fn open(port: u16) -> Result<RawSession> {
    RawSession::open(port).map_err(|(status, text)| Error::Io(format!("initialize: HTTP {status}: {text}")))
}

fn navigate(s: &mut RawSession, url: &str) -> Result<()> {
    let (status, text) = s.call("browser_navigate", json!({"url": url}));
    if status != 200 || !text.contains("\"result\"") || text.contains("\"isError\":true") {
        return Err(Error::Io(format!("browser_navigate: HTTP {status}: {text}")));
    }
    Ok(())
}

fn run_blocking(args: BenchMcpSessionsArgs) -> Result<McpSessionsReport> {
    let files = FixtureServer::start();
    let idle = args.session_idle.max(1);
    let (mut child, port) = start_server(idle, args.sessions + args.initialize_only + 16)?;
    let pid = child.id();
    let outcome = (|| {
        std::thread::sleep(Duration::from_millis(500));
        let started = memory::of_process(pid).rss;
        // One session first, so the browser is up before anything is measured.
        let mut warm = open(port)?;
        navigate(&mut warm, &files.url("short.html?warm-up"))?;
        warm.delete();
        std::thread::sleep(Duration::from_secs(1));

        let contexts = phase("sessions with a tab, ended", args.sessions, pid, || {
            let mut open_now = Vec::with_capacity(args.sessions);
            for i in 0..args.sessions {
                let mut s = open(port)?;
                navigate(&mut s, &files.url(&format!("short.html?session={i}")))?;
                open_now.push(s);
            }
            for s in open_now {
                s.delete();
            }
            // Contexts close after the answer to DELETE.
            std::thread::sleep(Duration::from_secs(3));
            Ok(())
        })?;
        let initialize_only = phase(
            "initialize only, left to the idle timeout",
            args.initialize_only,
            pid,
            || {
                let mut left = Vec::with_capacity(args.initialize_only);
                for _ in 0..args.initialize_only {
                    left.push(open(port)?);
                }
                // The idle timeout, a sweep, and a margin.
                std::thread::sleep(Duration::from_secs(idle * 2 + 3));
                Ok(())
            },
        )?;
        Ok(McpSessionsReport {
            server_rss_started_mb: mb(started),
            phases: vec![contexts, initialize_only],
        })
    })();
    // SIGTERM: the server closes its browser and removes its folder.
    let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    let _ = child.wait();
    outcome
}

pub async fn run(args: BenchMcpSessionsArgs) -> Result<()> {
    let json = args.json;
    let report = tokio::task::spawn_blocking(move || run_blocking(args))
        .await
        .map_err(|e| Error::Io(format!("the benchmark failed: {e}")))??;
    print_report(&report, json, render);
    Ok(())
}

fn render(r: &McpSessionsReport) -> String {
    let mut out = format!(
        "MCP server memory over sessions (server: the sightline process's RSS; browser: its tree's PSS)\n\
server just started: {:.0} MB\n\n\
phase                                        sessions   time     server before/peak/after    browser before/peak/after\n",
        r.server_rss_started_mb
    );
    for p in &r.phases {
        out.push_str(&format!(
            "{:<44} {:>8}   {:>5.1} s  {:>5.0} / {:>4.0} / {:>4.0} MB     {:>5.0} / {:>4.0} / {:>4.0} MB\n",
            p.name,
            p.sessions,
            p.seconds,
            p.server_rss_before_mb,
            p.server_rss_peak_mb,
            p.server_rss_after_mb,
            p.browser_pss_before_mb,
            p.browser_pss_peak_mb,
            p.browser_pss_after_mb
        ));
    }
    out
}
