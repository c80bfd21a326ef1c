//! The `sightline` command line (thin: parsing, and printing what the library returns).

use std::future::Future;
use std::io::Write;
use std::pin::Pin;

use clap::{Args, Parser, Subcommand, ValueEnum};
use sightline::{resolve_target, Browser, Error, LaunchOptions, Result, SnapshotMode, SnapshotOptions, ViewportSize};

#[derive(Debug, Parser)]
#[command(
    name = "sightline",
    version,
    about = "Browser automation for LLM agents: compact, ref-annotated page snapshots"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load a page and print its snapshot (the text an LLM is given).
    Snapshot(SnapshotArgs),
    /// Measure snapshot speed and size on local pages (`bench snapshot DIR|FILE…`).
    Bench(sightline::bench::BenchArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// The whole page.
    Full,
    /// Only what intersects the viewport, plus counts of what lies outside.
    Viewport,
}

impl From<ModeArg> for SnapshotMode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Full => SnapshotMode::Full,
            ModeArg::Viewport => SnapshotMode::Viewport,
        }
    }
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// URL (http, https, file, about, data) or path to a local .html file.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// How much of the page to render in detail.
    #[arg(long, value_enum, default_value_t = ModeArg::Full)]
    pub mode: ModeArg,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_viewport)]
    pub viewport: ViewportSize,
    /// Scroll the page to this Y offset (CSS pixels) before the snapshot.
    #[arg(long, value_name = "PX", value_parser = parse_scroll)]
    pub scroll_y: Option<f64>,
    /// Elements outside an open modal: `mark` keeps them as `[obscured]`
    /// lines without refs; `drop` leaves them out (fewer tokens).
    #[arg(long, value_enum, default_value_t = ObscuredArg::Mark)]
    pub obscured: ObscuredArg,
    /// Print the whole result as one JSON object instead of the tree text.
    #[arg(long)]
    pub json: bool,
    /// Show the browser window.
    #[arg(long)]
    pub headed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObscuredArg {
    Mark,
    Drop,
}

impl From<ObscuredArg> for sightline_engine::protocol::ObscuredMode {
    fn from(m: ObscuredArg) -> Self {
        match m {
            ObscuredArg::Mark => sightline_engine::protocol::ObscuredMode::Mark,
            ObscuredArg::Drop => sightline_engine::protocol::ObscuredMode::Drop,
        }
    }
}

fn parse_viewport(s: &str) -> std::result::Result<ViewportSize, String> {
    s.parse()
}

fn parse_scroll(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected a non-negative number of pixels, got {s:?}")),
    }
}

/// Resolves on Ctrl-C (or SIGTERM).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs `fut` unless `signal` (one pinned [`shutdown_signal`] for the whole
/// command, so no Ctrl-C falls between two steps) fires first.
async fn interruptible<T>(
    signal: Pin<&mut impl Future<Output = ()>>,
    fut: impl Future<Output = Result<T>>,
) -> Result<T> {
    tokio::select! {
        r = fut => r,
        _ = signal => Err(Error::Interrupted),
    }
}

pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Snapshot(args) => snapshot(args).await,
        Command::Bench(args) => {
            let signal = shutdown_signal();
            tokio::pin!(signal);
            interruptible(signal.as_mut(), sightline::bench::run(args)).await
        }
    }
}

async fn snapshot(args: SnapshotArgs) -> Result<()> {
    // Fail fast on a bad URL or a missing file, before starting a browser.
    let url = resolve_target(&args.target)?;
    let launch = LaunchOptions {
        headed: args.headed,
        viewport: args.viewport,
        ..LaunchOptions::default()
    };
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), Browser::launch(launch)).await?;
    let options = SnapshotOptions {
        mode: args.mode.into(),
        scroll_y: args.scroll_y,
        obscured_mode: args.obscured.into(),
    };
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        page.goto(&url).await?;
        page.snapshot(&options).await
    })
    .await;
    // Always close: no Chromium outlives the command, whatever happened.
    browser.close().await?;
    let result = outcome?;

    let mut text = if args.json {
        serde_json::to_string(&result).expect("snapshot serialises")
    } else {
        result.tree
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // `sightline … | head`: the reader has gone, which is fine.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            Ok(())
        }
    }
}
