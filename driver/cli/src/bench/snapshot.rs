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
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sightline::{Browser, Error, LaunchOptions, Page, Result, SnapshotMode, SnapshotOptions, ViewportSize};
use sightline_testkit::offline_switches;

use super::pages::{expand_inputs, median, serve_files};
use crate::args::parse_viewport;
use crate::snapshot::ObscuredArg;

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
    #[arg(long, value_name = "MODE", value_enum, default_value_t = ObscuredArg::Outline)]
    pub obscured: ObscuredArg,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_viewport)]
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

/// One floor pass over every frame: summed milliseconds and element count.
async fn floor_pass(page: &Page) -> Result<(f64, u64)> {
    let (mut ms, mut n) = (0.0, 0);
    for (i, v) in page.evaluate_in_frames(FLOOR_JS).await?.iter().enumerate() {
        // (A child frame that could not answer is left out, as the snapshot
        // leaves it out.)
        let Some(v) = v else { continue };
        // A child frame with no viewport (its iframe isn't rendered): the
        // snapshot leaves it out, so the floor does too.
        if i > 0 && v["area"].as_f64().unwrap_or(0.0) <= 0.0 {
            continue;
        }
        ms += v["ms"].as_f64().unwrap_or(f64::NAN);
        n += v["n"].as_u64().unwrap_or(0);
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
    floor_pass(page).await?;
    let (mut engine, mut total, mut occlusion) = (Vec::new(), Vec::new(), Vec::new());
    let (mut floor, mut ratios) = (Vec::new(), Vec::new());
    let mut floor_n = 0;
    for _ in 0..runs {
        let s = page.snapshot(&options).await?;
        let (floor_ms, n) = floor_pass(page).await?;
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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pw-aria.mjs")
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
        obscured_mode: args.obscured.into(),
        ..Default::default()
    };
    let (_server, served) = serve_files(&files)?;
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

/// Prints the report (a table, or JSON).
pub async fn run(args: BenchSnapshotArgs) -> Result<()> {
    let report = bench_snapshot(&args).await?;
    super::pages::print_report(&report, args.json, render_table);
    Ok(())
}
