//! `sightline snapshot`: load a page and print its snapshot.

use clap::{Args, ValueEnum};
use sightline::protocol::ObscuredMode;
use sightline::{resolve_target, Result, SnapshotMode, SnapshotOptions};

use crate::args::{OutputArgs, PageArgs};
use crate::output::print_out;
use crate::signals::{interruptible, shutdown_signal};

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// URL (http, https, file, about, data) or path to a local .html file.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// How much of the page to render in detail.
    #[arg(long, value_enum, default_value_t = ModeArg::Full)]
    pub mode: ModeArg,
    /// Scroll the page to this Y offset (CSS pixels) before the snapshot.
    #[arg(long, value_name = "PX", value_parser = parse_scroll)]
    pub scroll_y: Option<f64>,
    /// Elements outside an open modal: `outline` keeps their landmarks and
    /// first headings as `[obscured]` lines and counts the rest, one line
    /// per landmark; `mark` keeps every one as an `[obscured]` line
    /// without a ref; `drop` leaves them out (fewest tokens).
    #[arg(long, value_enum, default_value_t = ObscuredArg::Outline)]
    pub obscured: ObscuredArg,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub page: PageArgs,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObscuredArg {
    Outline,
    Mark,
    Drop,
}

impl From<ObscuredArg> for ObscuredMode {
    fn from(m: ObscuredArg) -> Self {
        match m {
            ObscuredArg::Outline => ObscuredMode::Outline,
            ObscuredArg::Mark => ObscuredMode::Mark,
            ObscuredArg::Drop => ObscuredMode::Drop,
        }
    }
}

pub fn parse_scroll(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected a non-negative number of pixels, got {s:?}")),
    }
}

pub async fn snapshot(args: SnapshotArgs) -> Result<()> {
    // Fail fast on a bad URL, a missing file or a bad configuration, before starting a browser.
    let url = resolve_target(&args.target)?;
    let launch = args.page.launch_options()?;
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), args.page.open_browser(launch)).await?;
    let options = SnapshotOptions {
        mode: args.mode.into(),
        scroll_y: args.scroll_y,
        obscured_mode: args.obscured.into(),
    };
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        let response = page.goto(&url).await?;
        Ok((response, page.snapshot(&options).await?))
    })
    .await;
    // Always close: no Chromium outlives the command, whatever happened.
    browser.close().await?;
    let (response, result) = outcome?;

    let mut text = if args.output.json {
        // The HTTP status rides along, so a script can tell a server's
        // error page from content (null: no HTTP, as for files).
        let mut object = serde_json::to_value(&result).expect("snapshot serialises");
        object["status"] = response.status.into();
        crate::output::json_text(&object)
    } else {
        if !response.ok() {
            eprintln!("note: {response}: this is the server's error page");
        }
        result.tree
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    print_out(&text);
    Ok(())
}
