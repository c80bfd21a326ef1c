//! The `sightline` command line (thin: parsing, and printing what the library returns).

mod agent;
mod ai;

use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use sightline::run::{read_steps, Runner, StepReport};
use sightline::{
    resolve_target, Browser, Config, ConsentPolicy, Error, LaunchOptions, Result, SnapshotMode, SnapshotOptions,
    ViewportSize,
};

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
    /// Play a list of actions on a page, no LLM involved
    /// (`[{"method":"fill","selector":"#email","arguments":["a@b.c"]}, …]`).
    Run(RunArgs),
    /// Carry out one instruction with an LLM ("click the Add to cart button").
    Act(ai::ActArgs),
    /// List the elements that fit a request, as actions `sightline run` can play.
    Observe(ai::ObserveArgs),
    /// Extract data shaped by a JSON Schema (or the page's text).
    Extract(ai::ExtractArgs),
    /// Carry out a whole task autonomously with an LLM and the browser tools.
    Agent(agent::AgentArgs),
    /// Re-run a run saved by `agent --save-run`, with no LLM.
    Replay(agent::ReplayArgs),
    /// Close the pop-up, overlay or banner in the way (conservative by default;
    /// options also come from `./sightline.toml`).
    Unblock(UnblockArgs),
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
    /// Elements outside an open modal: `outline` keeps their landmarks and
    /// first headings as `[obscured]` lines and counts the rest, one line
    /// per landmark; `mark` keeps every one as an `[obscured]` line
    /// without a ref; `drop` leaves them out (fewest tokens).
    #[arg(long, value_enum, default_value_t = ObscuredArg::Outline)]
    pub obscured: ObscuredArg,
    /// Print the whole result as one JSON object instead of the tree text.
    #[arg(long)]
    pub json: bool,
    /// Configuration file (default: ./sightline.toml when present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Show the browser window.
    #[arg(long)]
    pub headed: bool,
    /// Use a running browser instead of launching one: `ws://…` or `http://host:port`.
    #[arg(long, value_name = "URL")]
    pub cdp_url: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// URL (http, https, file, about, data) or path to a local .html file to start on.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// The steps: a JSON list of actions (`-` reads standard input).
    /// Relative file paths in `setInputFiles` are taken against its directory.
    #[arg(long, value_name = "FILE")]
    pub steps: PathBuf,
    /// Print `{"steps":[{"ok","method","selector","error"?}],"url","title"}` instead of text.
    #[arg(long)]
    pub json: bool,
    /// After the steps, take a snapshot of the page the run ended on and
    /// print it (its tree after the steps; with `--json`, as `snapshot`).
    #[arg(long)]
    pub snapshot: bool,
    /// Configuration file (default: ./sightline.toml when present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_viewport)]
    pub viewport: ViewportSize,
    /// How long an action waits for its element to become actionable.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub action_timeout: u64,
    /// Time budget for the page to settle before snapshots and after actions (0: off).
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub settle_timeout: u64,
    /// How long navigations wait for the load event.
    #[arg(long, value_name = "MS", default_value_t = 30000)]
    pub navigation_timeout: u64,
    /// Show the browser window.
    #[arg(long)]
    pub headed: bool,
    /// Use a running browser instead of launching one: `ws://…` or `http://host:port`.
    #[arg(long, value_name = "URL")]
    pub cdp_url: Option<String>,
}

#[derive(Debug, Args)]
pub struct UnblockArgs {
    /// URL (http, https, file, about, data) or path to a local .html file.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// Also act on consent, login, age-gate and paywall dialogs, and allow DOM removal.
    #[arg(long)]
    pub aggressive: bool,
    /// What to do with cookie/privacy consent dialogs.
    #[arg(long, value_enum)]
    pub consent: Option<ConsentArg>,
    /// CSS selector of a blocker that may always be closed and removed (repeatable).
    #[arg(long = "allow", value_name = "SELECTOR")]
    pub allow: Vec<String>,
    /// Configuration file (default: ./sightline.toml when present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Append the audit line here (overrides the configuration's `audit_file`).
    #[arg(long, value_name = "FILE")]
    pub audit_file: Option<PathBuf>,
    /// Wait this long after loading before looking (pop-ups that open late).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub wait: u64,
    /// Print `{"removed","method","selector"?,"kind"?,"note"?}` instead of text.
    #[arg(long)]
    pub json: bool,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_viewport)]
    pub viewport: ViewportSize,
    /// Show the browser window.
    #[arg(long)]
    pub headed: bool,
    /// Use a running browser instead of launching one: `ws://…` or `http://host:port`.
    #[arg(long, value_name = "URL")]
    pub cdp_url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsentArg {
    Leave,
    Reject,
    Accept,
}

impl From<ConsentArg> for ConsentPolicy {
    fn from(c: ConsentArg) -> Self {
        match c {
            ConsentArg::Leave => ConsentPolicy::Leave,
            ConsentArg::Reject => ConsentPolicy::Reject,
            ConsentArg::Accept => ConsentPolicy::Accept,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObscuredArg {
    Outline,
    Mark,
    Drop,
}

impl From<ObscuredArg> for sightline_engine::protocol::ObscuredMode {
    fn from(m: ObscuredArg) -> Self {
        match m {
            ObscuredArg::Outline => sightline_engine::protocol::ObscuredMode::Outline,
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
        Command::Run(args) => run_steps(args).await,
        Command::Unblock(args) => unblock(args).await,
        Command::Act(args) => ai::act(args).await,
        Command::Observe(args) => ai::observe(args).await,
        Command::Extract(args) => ai::extract(args).await,
        Command::Agent(args) => agent::agent(args).await,
        Command::Replay(args) => agent::replay(args).await,
        Command::Bench(args) => {
            let signal = shutdown_signal();
            tokio::pin!(signal);
            interruptible(signal.as_mut(), sightline::bench::run(args)).await
        }
    }
}

async fn snapshot(args: SnapshotArgs) -> Result<()> {
    // Fail fast on a bad URL, a missing file or a bad configuration, before starting a browser.
    let url = resolve_target(&args.target)?;
    let config = load_config(args.config.as_deref())?;
    let launch = LaunchOptions {
        headed: args.headed,
        viewport: args.viewport,
        remove_blocker: config.remove_blocker,
        ..LaunchOptions::default()
    };
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), open_browser(args.cdp_url.as_deref(), launch)).await?;
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
    print_out(&text);
    Ok(())
}

async fn unblock(args: UnblockArgs) -> Result<()> {
    let url = resolve_target(&args.target)?;
    let config = load_config(args.config.as_deref())?;
    let launch = LaunchOptions {
        headed: args.headed,
        viewport: args.viewport,
        ..LaunchOptions::default()
    };
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), open_browser(args.cdp_url.as_deref(), launch)).await?;
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        page.goto(&url).await?;
        if args.wait > 0 {
            page.wait(Duration::from_millis(args.wait)).await?;
        }
        let here = page.url().await.unwrap_or_else(|_| url.clone());
        // Config (with its domain override) first; flags win over it.
        let Some(mut opts) = config.remove_blocker.options_for(&here) else {
            return Ok(sightline::RemoveBlockerResult {
                removed: false,
                method: "none".into(),
                selector: None,
                kind: None,
                note: Some("removeBlocker is disabled for this site in the configuration".into()),
            });
        };
        opts.aggressive |= args.aggressive;
        if let Some(c) = args.consent {
            opts.consent = c.into();
        }
        opts.allowed_selectors.extend(args.allow.iter().cloned());
        if args.audit_file.is_some() {
            opts.audit_file = args.audit_file.clone();
        }
        page.remove_blocker(&opts).await
    })
    .await;
    browser.close().await?;
    let result = outcome?;
    let text = if args.json {
        serde_json::to_string(&result).expect("result serialises")
    } else {
        let mut line = if result.removed {
            format!("removed by {}", result.method)
        } else {
            "nothing removed".to_string()
        };
        if let Some(kind) = &result.kind {
            line.push_str(&format!(
                " · {}",
                serde_json::to_value(kind).unwrap().as_str().unwrap_or("")
            ));
        }
        if let Some(sel) = &result.selector {
            line.push_str(&format!(" · {sel}"));
        }
        if let Some(note) = &result.note {
            line.push_str(&format!(" · {note}"));
        }
        line
    };
    print_out(&format!("{text}\n"));
    Ok(())
}

/// `--config FILE`, else `./sightline.toml` when present, else the defaults.
fn load_config(path: Option<&std::path::Path>) -> Result<Config> {
    match path {
        Some(path) => Config::load(path),
        None => Config::discover(),
    }
}

/// Launches Chromium, or connects to the browser at `cdp_url`.
async fn open_browser(cdp_url: Option<&str>, launch: LaunchOptions) -> Result<Browser> {
    match cdp_url {
        Some(url) => Browser::connect(url, launch).await,
        None => Browser::launch(launch).await,
    }
}

/// Writes to stdout, ignoring a reader that went away (`| head`).
fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => {}
        // `sightline … | head`: the reader has gone, which is fine.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => eprintln!("error: cannot write the output: {e}"),
    }
}

/// One line per step: `1/3 ok   fill #email  input#email "Email"  (12 ms)`.
fn step_line(i: usize, total: usize, r: &StepReport) -> String {
    let what = match (&r.ref_, &r.selector) {
        (Some(rf), _) => format!("{} {rf}", r.method),
        (None, Some(sel)) => format!("{} {sel}", r.method),
        (None, None) => r.method.clone(),
    };
    let mut line = format!("{}/{total} {} {what}", i + 1, if r.ok { "ok  " } else { "FAIL" });
    if let Some(e) = &r.element {
        line.push_str(&format!(" → {e}"));
    }
    if let Some(v) = &r.value {
        line.push_str(&format!(" = {v}"));
    }
    for n in &r.notes {
        line.push_str(&format!(" ({n})"));
    }
    if let Some(e) = &r.error {
        line.push_str(&format!(": {e}"));
    }
    line.push_str(&format!(" [{:.0} ms]\n", r.ms));
    line
}

async fn run_steps(args: RunArgs) -> Result<()> {
    // Everything that can be checked without a browser, first.
    let url = resolve_target(&args.target)?;
    let steps = read_steps(&args.steps)?;
    let config = load_config(args.config.as_deref())?;
    let base_dir = if args.steps.as_os_str() == "-" {
        None
    } else {
        args.steps.parent().map(|d| {
            if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d.to_path_buf()
            }
        })
    };
    let launch = LaunchOptions {
        headed: args.headed,
        viewport: args.viewport,
        action_timeout: Duration::from_millis(args.action_timeout),
        settle_timeout: Duration::from_millis(args.settle_timeout),
        navigation_timeout: Duration::from_millis(args.navigation_timeout),
        remove_blocker: config.remove_blocker,
        ..LaunchOptions::default()
    };
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), open_browser(args.cdp_url.as_deref(), launch)).await?;
    let total = steps.len();
    let json = args.json;
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        page.goto(&url).await?;
        let mut runner = Runner::new(&browser, page, base_dir);
        let (report, failure) = runner
            .run(&steps, |i, r| {
                if !json {
                    print_out(&step_line(i, total, r));
                }
            })
            .await;
        // The page after the steps, for a scripted flow checked without a model.
        let snapshot = match (&failure, args.snapshot) {
            (None, true) => Some(runner.page().snapshot(&SnapshotOptions::default()).await?),
            _ => None,
        };
        Ok((report, failure, snapshot))
    })
    .await;
    // Always close: no Chromium outlives the command, whatever happened.
    browser.close().await?;
    let (report, failure, snapshot) = outcome?;
    if json {
        let mut value = serde_json::to_value(&report).expect("report serialises");
        if let Some(snap) = &snapshot {
            value["snapshot"] = serde_json::to_value(snap).expect("snapshot serialises");
        }
        let mut text = value.to_string();
        text.push('\n');
        print_out(&text);
    } else if failure.is_none() {
        print_out(&format!(
            "done: {total} step(s); now at {}{}\n",
            report.url,
            if report.title.is_empty() {
                String::new()
            } else {
                format!(" \"{}\"", report.title)
            }
        ));
        if let Some(snap) = &snapshot {
            print_out(&format!("{}\n", snap.tree));
        }
    }
    match failure {
        None => Ok(()),
        Some(e) => Err(Error::StepFailed {
            step: report.steps.len(),
            total,
            action: steps[report.steps.len() - 1].label(),
            source: Box::new(e),
        }),
    }
}
