//! `sightline bench snapshot`: how fast and how big snapshots are, page by page.
//!
//! Every page is served from an in-process static server on 127.0.0.1 and
//! loaded in one browser that cannot reach anything else (unless
//! `--allow-network`). Per page: `--warmup` untimed snapshots, then `--runs`
//! timed snapshots, reporting medians of
//! - `engine_ms`: the engine's own time (all frames), from its stats;
//! - `total_ms`: the whole [`Page::snapshot`] call as the driver sees it;
//! - `chars` and `tokens` (chars / 4) of the tree text, and the ref count;
//! - `floor_ms`: a plain-JS floor measured in the same page and the same
//!   isolated world: `getBoundingClientRect()` plus `getComputedStyle(el).display`
//!   for every element of `document.querySelectorAll('*')` (light DOM only),
//!   timed in-page with `performance.now()` (reading one property makes the
//!   style lookup real; `getComputedStyle` alone is lazy), in every frame
//!   of the page and summed, as `engine_ms` sums the engine's time over the
//!   frames (`floor_n` next to `elems` shows both sides' element counts;
//!   both skip child frames whose iframe isn't rendered, the floor by their
//!   zero-size viewport). Each timed
//!   snapshot is followed by one floor pass, and `ratio` is the median of the
//!   per-run `engine_ms / floor_ms`: how far the engine is from merely
//!   touching every element once, measured in pairs so that machine drift
//!   hits both sides alike.
//!
//! With `--playwright`, `scripts/pw-aria.mjs` (Node + playwright-core) takes
//! Playwright's `ariaSnapshot({ mode: 'ai' })` of the same URLs in its own
//! browser, and the table shows its size and time next to ours.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sightline_engine::protocol::{ObscuredMode, SnapshotMode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::browser::{Browser, LaunchOptions, ViewportSize};
use crate::error::{Error, Result};
use crate::page::Page;
use crate::snapshot::SnapshotOptions;

/// `sightline bench …`
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum BenchCommand {
    /// Time snapshots of local pages (a directory stands for its *.html files).
    Snapshot(BenchSnapshotArgs),
    /// Median latency of `click` and `fill` on a warm page (checks included).
    Actions(crate::bench_actions::BenchActionsArgs),
    /// Prompt tokens of `act` per page and its driver-side overhead (the
    /// model's time excluded; a loopback stand-in model by default).
    Act(crate::bench_act::BenchActArgs),
}

#[derive(Debug, clap::Args)]
pub struct BenchSnapshotArgs {
    /// HTML files, or directories of them.
    #[arg(value_name = "DIR|FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Timed snapshots per page (after the warm-ups); medians are reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Untimed snapshots per page before the timed ones. V8 runs the
    /// engine's WebAssembly on baseline (Liftoff) code first and tiers hot
    /// functions up to TurboFan in the background over the first few calls;
    /// an agent takes many snapshots in one renderer, so the timed runs
    /// measure the engine warm.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub warmup: u32,
    /// Bench viewport-mode snapshots instead of full ones.
    #[arg(long)]
    pub viewport_mode: bool,
    /// What becomes of the page behind an open modal: `outline` (the
    /// snapshot default), `mark` or `drop`.
    #[arg(long, value_name = "MODE", default_value = "outline", value_parser = ["outline", "mark", "drop"])]
    pub obscured: String,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    pub viewport: ViewportSize,
    /// Also measure Playwright's `ariaSnapshot({mode:'ai'})` (needs node and
    /// playwright-core, see scripts/pw-aria.mjs).
    #[arg(long)]
    pub playwright: bool,
    /// The Playwright helper script (default: scripts/pw-aria.mjs of this source tree).
    #[arg(long, value_name = "PATH")]
    pub pw_script: Option<PathBuf>,
    /// Let pages reach the network (by default only 127.0.0.1 answers).
    #[arg(long)]
    pub allow_network: bool,
    /// Print machine-readable results (one JSON object).
    #[arg(long)]
    pub json: bool,
}

/// Figures for one page (medians over the runs).
#[derive(Debug, Clone, Serialize, Default)]
pub struct PageBench {
    pub page: String,
    pub url: String,
    pub elements: u32,
    pub refs: usize,
    pub chars: usize,
    pub tokens: usize,
    pub engine_ms: f64,
    /// Occlusion and hit-testing time (modal detection, `[covered]` probes),
    /// part of `engine_ms`.
    pub occlusion_ms: f64,
    /// `occlusion_ms / engine_ms`, in percent.
    pub occlusion_pct: f64,
    pub total_ms: f64,
    pub floor_ms: f64,
    /// Elements the floor touched (`querySelectorAll('*').length`).
    pub floor_elements: u64,
    /// `engine_ms / floor_ms`.
    pub ratio: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pw_chars: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pw_ms: Option<f64>,
    /// `chars / pw_chars`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chars_vs_pw: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pw_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub mode: SnapshotMode,
    pub runs: u32,
    pub warmup: u32,
    pub viewport: String,
    /// Playwright's snapshot mode when it was measured ("ai", or "default" when unsupported).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pw_mode: Option<String>,
    pub pages: Vec<PageBench>,
    /// Median of each column over the pages that succeeded.
    pub median: PageBench,
}

/// The plain-JS floor: one rect and one computed-style read per element.
const FLOOR_JS: &str = "(() => {\
    const t0 = performance.now();\
    const els = document.querySelectorAll('*');\
    let acc = 0;\
    for (let i = 0; i < els.length; i++) {\
        const el = els[i];\
        const r = el.getBoundingClientRect();\
        const cs = getComputedStyle(el);\
        acc += r.width + cs.display.length;\
    }\
    const t1 = performance.now();\
    return { ms: t1 - t0, n: els.length, acc: acc > -1, area: innerWidth * innerHeight };\
})()";

pub fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The HTML files named by `inputs` (directories expand to their *.html, sorted).
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|_| Error::NoSuchFile {
                    path: input.clone(),
                    hint: None,
                })?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "html" || e == "htm"))
                .collect();
            if files.is_empty() {
                return Err(Error::NoSuchFile {
                    path: input.join("*.html"),
                    hint: Some(" (the directory has no .html files)".into()),
                });
            }
            files.sort();
            out.extend(files);
        } else if input.is_file() {
            out.push(input.clone());
        } else {
            return Err(Error::NoSuchFile {
                path: input.clone(),
                hint: None,
            });
        }
    }
    Ok(out)
}

/// Serves `files` from 127.0.0.1: the server and, per file, its name and URL.
pub(crate) async fn serve_files(files: &[PathBuf]) -> Result<(StaticServer, Vec<(String, String)>)> {
    // One served root per distinct directory.
    let mut roots: Vec<PathBuf> = Vec::new();
    let server_roots: Vec<(usize, String)> = files
        .iter()
        .map(|f| {
            let dir = f
                .parent()
                .map(|d| d.canonicalize().unwrap_or_else(|_| d.to_path_buf()))
                .unwrap_or_default();
            let i = roots.iter().position(|r| *r == dir).unwrap_or_else(|| {
                roots.push(dir);
                roots.len() - 1
            });
            (i, f.file_name().unwrap_or_default().to_string_lossy().into_owned())
        })
        .collect();
    let server = StaticServer::start(roots).await.map_err(|e| Error::Navigation {
        url: "http://127.0.0.1 (the bench's static server)".into(),
        kind: crate::error::NavigationErrorKind::Other(e.to_string()),
    })?;
    let served = server_roots
        .into_iter()
        .map(|(i, name)| {
            let encoded: String = url::form_urlencoded::byte_serialize(name.as_bytes())
                .collect::<String>()
                .replace('+', "%20");
            let url = format!("http://127.0.0.1:{}/{i}/{encoded}", server.port);
            (name, url)
        })
        .collect();
    Ok((server, served))
}

/// A static file server on 127.0.0.1 for a set of directories: `/N/rest`
/// serves `rest` from the N-th directory, so pages keep their relative links.
pub(crate) struct StaticServer {
    port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl StaticServer {
    async fn start(roots: Vec<PathBuf>) -> std::io::Result<StaticServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let roots = Arc::new(roots);
        let task = tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    continue;
                };
                let roots = roots.clone();
                tokio::spawn(async move {
                    let _ = serve_one(sock, &roots).await;
                });
            }
        });
        Ok(StaticServer { port, task })
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript",
        "css" => "text/css",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn serve_one(mut sock: TcpStream, roots: &[PathBuf]) -> std::io::Result<()> {
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
    let target = parts.next().unwrap_or("/");
    let path = percent_decode(target.split(['?', '#']).next().unwrap_or("/"));
    let mut segs = path.trim_start_matches('/').splitn(2, '/');
    let root = segs
        .next()
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|i| roots.get(i));
    let rel = Path::new(segs.next().unwrap_or(""));
    let safe = rel.components().all(|c| matches!(c, Component::Normal(_)));
    let file = root.filter(|_| safe).map(|r| r.join(rel));
    let (status, body, ctype) = match file {
        Some(f) if (method == "GET" || method == "HEAD") && f.is_file() => {
            let body = tokio::fs::read(&f).await?;
            ("200 OK", body, content_type(&f))
        }
        _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(header.as_bytes()).await?;
    if method != "HEAD" {
        sock.write_all(&body).await?;
    }
    sock.shutdown().await
}

/// Chromium switches that make every request to anything but 127.0.0.1 fail
/// at once: no host name resolves, and whatever needs no resolution (an IP
/// literal) goes to a proxy on a closed loopback port.
pub fn offline_switches() -> Vec<String> {
    vec![
        "host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1".to_string(),
        "proxy-server=http://127.0.0.1:9".to_string(),
        "proxy-bypass-list=127.0.0.1".to_string(),
    ]
}

type FrameContext = (
    chromiumoxide::cdp::browser_protocol::page::FrameId,
    chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId,
);

/// Every frame of the page whose engine world is up (the main frame first).
async fn frames_with_engine(page: &Page) -> Result<Vec<FrameContext>> {
    let tree = page.frame_tree().await?;
    let mut out = Vec::new();
    let mut stack = vec![&tree];
    while let Some(t) = stack.pop() {
        match page.ensure_engine(&t.frame.id).await {
            Ok(ctx) => out.push((t.frame.id.clone(), ctx)),
            // Only the main frame must work; a child that can't host the
            // engine is left out of the snapshot too.
            Err(e) if out.is_empty() => return Err(e),
            Err(_) => {}
        }
        stack.extend(t.child_frames.iter().flatten().rev());
    }
    Ok(out)
}

/// One floor pass over `frames`: summed milliseconds and element count.
async fn floor_pass(page: &Page, frames: &[FrameContext]) -> Result<(f64, u64)> {
    let (mut ms, mut n) = (0.0, 0);
    for (i, (frame, ctx)) in frames.iter().enumerate() {
        match page.evaluate_in(frame, *ctx, FLOOR_JS, false).await {
            // A child frame with no viewport (its iframe isn't rendered):
            // the snapshot leaves it out, so the floor does too.
            Ok(v) if i > 0 && v["area"].as_f64().unwrap_or(0.0) <= 0.0 => {}
            Ok(v) => {
                ms += v["ms"].as_f64().unwrap_or(f64::NAN);
                n += v["n"].as_u64().unwrap_or(0);
            }
            Err(e) if i == 0 => return Err(e),
            // A child frame that navigated away meanwhile.
            Err(_) => {}
        }
    }
    Ok((ms, n))
}

/// Runs the timed snapshots and the floor on one loaded page.
async fn bench_page(page: &Page, url: &str, warmup: u32, runs: u32, options: SnapshotOptions) -> Result<PageBench> {
    page.goto(url).await?;
    // Warm-ups, then paired runs: each snapshot is followed by a floor pass,
    // so both see the same machine state (a 2-core VM drifts by ±30% over a
    // few seconds) and the ratio is the median of the per-run ratios.
    let mut last = page.snapshot(&options).await?;
    for _ in 1..warmup {
        last = page.snapshot(&options).await?;
    }
    let frames = frames_with_engine(page).await?;
    floor_pass(page, &frames).await?;
    let (mut engine, mut total, mut occlusion) = (Vec::new(), Vec::new(), Vec::new());
    let (mut floor, mut ratios) = (Vec::new(), Vec::new());
    let mut floor_n = 0;
    for _ in 0..runs {
        let s = page.snapshot(&options).await?;
        let (floor_ms, n) = floor_pass(page, &frames).await?;
        floor_n = n;
        engine.push(s.stats.engine_ms);
        occlusion.push(s.stats.occlusion_ms);
        total.push(s.stats.total_ms);
        floor.push(floor_ms);
        ratios.push(s.stats.engine_ms / floor_ms);
        last = s;
    }

    let chars = last.tree.chars().count();
    let engine_ms = median(&engine);
    let floor_ms = median(&floor);
    Ok(PageBench {
        url: url.to_string(),
        elements: last.stats.elements,
        refs: last.refs.len(),
        chars,
        tokens: chars / 4,
        engine_ms,
        occlusion_ms: median(&occlusion),
        occlusion_pct: 100.0 * median(&occlusion) / engine_ms,
        total_ms: median(&total),
        floor_ms,
        floor_elements: floor_n,
        ratio: median(&ratios),
        ..Default::default()
    })
}

/// Playwright's figures per URL, from `scripts/pw-aria.mjs`.
async fn playwright_figures(
    script: &Path,
    urls: &[String],
    (warmup, runs): (u32, u32),
    viewport: ViewportSize,
    allow_network: bool,
) -> std::result::Result<(HashMap<String, Value>, String), String> {
    if !script.is_file() {
        return Err(format!("{} not found (use --pw-script)", script.display()));
    }
    let mut cmd = tokio::process::Command::new("node");
    cmd.arg(script)
        .arg("--runs")
        .arg(runs.to_string())
        .arg("--warmup")
        .arg(warmup.to_string())
        .arg("--viewport")
        .arg(viewport.to_string());
    if allow_network {
        cmd.arg("--allow-network");
    }
    cmd.args(urls).stdin(std::process::Stdio::null()).kill_on_drop(true);
    let out = cmd.output().await.map_err(|e| format!("cannot run node: {e}"))?;
    let mut by_url = HashMap::new();
    let mut mode = String::from("ai");
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(m) = v["mode"].as_str() {
            mode = m.to_string();
        }
        if let Some(u) = v["url"].as_str() {
            by_url.insert(u.to_string(), v.clone());
        }
    }
    if by_url.is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "{} printed nothing usable ({}): {}",
            script.display(),
            out.status,
            err.lines().last().unwrap_or("")
        ));
    }
    Ok((by_url, mode))
}

fn default_pw_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pw-aria.mjs")
}

/// Runs `bench snapshot` and returns the report.
pub async fn bench_snapshot(args: &BenchSnapshotArgs) -> Result<BenchReport> {
    let files = expand_inputs(&args.inputs)?;
    let mode = if args.viewport_mode {
        SnapshotMode::Viewport
    } else {
        SnapshotMode::Full
    };
    let options = SnapshotOptions {
        mode,
        obscured_mode: match args.obscured.as_str() {
            "mark" => ObscuredMode::Mark,
            "drop" => ObscuredMode::Drop,
            _ => ObscuredMode::Outline,
        },
        ..Default::default()
    };
    let (_server, served) = serve_files(&files).await?;
    let (server_roots, urls): (Vec<(usize, String)>, Vec<String>) =
        served.into_iter().map(|(name, url)| ((0, name), url)).unzip();
    let mut launch = LaunchOptions {
        viewport: args.viewport,
        navigation_timeout: Duration::from_secs(60),
        ..LaunchOptions::default()
    };
    if !args.allow_network {
        launch.extra_args.extend(offline_switches());
    }
    let browser = Browser::launch(launch).await?;
    let outcome = async {
        let page = browser.new_page().await?;
        let mut pages = Vec::new();
        for ((_, name), url) in server_roots.iter().zip(&urls) {
            if !args.json {
                eprintln!("bench: {name}");
            }
            let mut row = match bench_page(&page, url, args.warmup, args.runs, options).await {
                Ok(r) => r,
                Err(e) => PageBench {
                    url: url.clone(),
                    error: Some(e.to_string()),
                    ..Default::default()
                },
            };
            row.page = name.clone();
            pages.push(row);
        }
        Ok::<_, Error>(pages)
    }
    .await;
    browser.close().await?;
    let mut pages = outcome?;

    let mut pw_mode = None;
    if args.playwright {
        if !args.json {
            eprintln!("bench: Playwright ariaSnapshot");
        }
        let script = args.pw_script.clone().unwrap_or_else(default_pw_script);
        match playwright_figures(
            &script,
            &urls,
            (args.warmup, args.runs),
            args.viewport,
            args.allow_network,
        )
        .await
        {
            Ok((by_url, m)) => {
                for p in &mut pages {
                    match by_url.get(&p.url) {
                        Some(v) if v.get("error").is_none() => {
                            p.pw_chars = v["chars"].as_u64().map(|c| c as usize);
                            p.pw_ms = v["ms"].as_f64();
                            p.chars_vs_pw = p
                                .pw_chars
                                .filter(|c| *c > 0 && p.error.is_none())
                                .map(|c| p.chars as f64 / c as f64);
                        }
                        Some(v) => p.pw_error = v["error"].as_str().map(str::to_string),
                        None => p.pw_error = Some("no result".into()),
                    }
                }
                pw_mode = Some(m);
            }
            Err(e) => {
                eprintln!("warning: Playwright baseline skipped: {e}");
            }
        }
    }

    let ok: Vec<&PageBench> = pages.iter().filter(|p| p.error.is_none()).collect();
    let med = |f: &dyn Fn(&PageBench) -> f64| median(&ok.iter().map(|p| f(p)).collect::<Vec<_>>());
    let med_opt = |f: &dyn Fn(&PageBench) -> Option<f64>| {
        let v: Vec<f64> = ok.iter().filter_map(|p| f(p)).collect();
        (!v.is_empty()).then(|| median(&v))
    };
    let median_row = PageBench {
        page: "median".into(),
        elements: med(&|p| p.elements as f64) as u32,
        refs: med(&|p| p.refs as f64) as usize,
        chars: med(&|p| p.chars as f64) as usize,
        tokens: med(&|p| p.tokens as f64) as usize,
        engine_ms: med(&|p| p.engine_ms),
        occlusion_ms: med(&|p| p.occlusion_ms),
        occlusion_pct: med(&|p| p.occlusion_pct),
        total_ms: med(&|p| p.total_ms),
        floor_ms: med(&|p| p.floor_ms),
        floor_elements: med(&|p| p.floor_elements as f64) as u64,
        ratio: med(&|p| p.ratio),
        pw_chars: med_opt(&|p| p.pw_chars.map(|c| c as f64)).map(|c| c as usize),
        pw_ms: med_opt(&|p| p.pw_ms),
        chars_vs_pw: med_opt(&|p| p.chars_vs_pw),
        ..Default::default()
    };
    Ok(BenchReport {
        mode,
        runs: args.runs,
        warmup: args.warmup,
        viewport: args.viewport.to_string(),
        pw_mode,
        pages,
        median: median_row,
    })
}

fn fmt_opt_f(v: Option<f64>, prec: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.prec$}"),
        _ => "-".into(),
    }
}

/// The report as a text table.
pub fn render_table(r: &BenchReport) -> String {
    let with_pw = r.pw_mode.is_some();
    let mut out = format!(
        "sightline bench snapshot: {} mode, viewport {}, medians of {} run(s) after {} warm-up(s)\n",
        match r.mode {
            SnapshotMode::Full => "full",
            SnapshotMode::Viewport => "viewport",
        },
        r.viewport,
        r.runs,
        r.warmup
    );
    out.push_str(
        "(floor = getBoundingClientRect + getComputedStyle(el).display for each of the floor_n elements of \
         querySelectorAll('*'), light DOM only, in every frame (engine_ms covers every rendered frame too); ratio = median over runs of engine_ms / floor_ms, each snapshot paired with a floor pass; occl = modal detection and \
         [covered] hit-testing, part of engine_ms)\n",
    );
    out.push_str(&format!(
        "{:<28} {:>7} {:>6} {:>8} {:>7} {:>9} {:>8} {:>6} {:>9} {:>9} {:>7} {:>6}",
        "page",
        "elems",
        "refs",
        "chars",
        "tokens",
        "engine_ms",
        "occl_ms",
        "occl%",
        "total_ms",
        "floor_ms",
        "floor_n",
        "ratio"
    ));
    if with_pw {
        out.push_str(&format!(
            " {:>9} {:>8} {:>8}",
            format!("pw_{}_chr", r.pw_mode.as_deref().unwrap_or("ai")),
            "chr/pw",
            "pw_ms"
        ));
    }
    out.push('\n');
    let row = |p: &PageBench| -> String {
        let name: String = if p.page.chars().count() > 28 {
            format!("{}…", p.page.chars().take(27).collect::<String>())
        } else {
            p.page.clone()
        };
        if let Some(e) = &p.error {
            return format!("{name:<28} error: {e}\n");
        }
        let mut s = format!(
            "{name:<28} {:>7} {:>6} {:>8} {:>7} {:>9.2} {:>8.2} {:>6.1} {:>9.2} {:>9.2} {:>7} {:>6}",
            p.elements,
            p.refs,
            p.chars,
            p.tokens,
            p.engine_ms,
            p.occlusion_ms,
            p.occlusion_pct,
            p.total_ms,
            p.floor_ms,
            p.floor_elements,
            fmt_opt_f(Some(p.ratio), 2)
        );
        if with_pw {
            s.push_str(&format!(
                " {:>9} {:>8} {:>8}",
                p.pw_chars.map(|c| c.to_string()).unwrap_or_else(|| "-".into()),
                fmt_opt_f(p.chars_vs_pw, 2),
                fmt_opt_f(p.pw_ms, 1)
            ));
            if let Some(e) = &p.pw_error {
                s.push_str(&format!("  (playwright: {e})"));
            }
        }
        s.push('\n');
        s
    };
    for p in &r.pages {
        out.push_str(&row(p));
    }
    if r.pages.len() > 1 {
        out.push_str(&row(&r.median));
    }
    out
}

/// Entry point of `sightline bench`.
pub async fn run(args: BenchArgs) -> Result<()> {
    match args.command {
        BenchCommand::Actions(a) => crate::bench_actions::run(a).await,
        BenchCommand::Act(a) => crate::bench_act::run(a).await,
        BenchCommand::Snapshot(a) => {
            let report = bench_snapshot(&a).await?;
            let text = if a.json {
                serde_json::to_string(&report).expect("report serialises")
            } else {
                render_table(&report)
            };
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", text.trim_end());
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn directories_expand_to_html_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.html"), "<p>b</p>").unwrap();
        std::fs::write(dir.path().join("a.html"), "<p>a</p>").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let files = expand_inputs(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["a.html", "b.html"]);
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(
            expand_inputs(&[empty.path().to_path_buf()]),
            Err(Error::NoSuchFile { .. })
        ));
        assert!(expand_inputs(&[dir.path().join("missing.html")]).is_err());
    }
}
