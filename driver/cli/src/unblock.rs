//! `sightline unblock`: removeBlocker on a page, from the command line.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use sightline::{resolve_target, ConsentPolicy, Result};

use crate::args::{load_config, OutputArgs, PageArgs};
use crate::output::print_out;
use crate::signals::{interruptible, shutdown_signal};

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
    /// Append the audit line here (overrides the configuration's `audit_file`).
    #[arg(long, value_name = "FILE")]
    pub audit_file: Option<PathBuf>,
    /// Wait this long after loading before looking (pop-ups that open late).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub wait: u64,
    /// `--json` prints `{"removed","method","selector"?,"kind"?,"note"?}`.
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub page: PageArgs,
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

pub async fn unblock(args: UnblockArgs) -> Result<()> {
    let url = resolve_target(&args.target)?;
    let config = load_config(args.page.config.as_deref())?;
    // The policy comes from the flags below, not from after-navigation runs.
    let launch = sightline::LaunchOptions {
        remove_blocker: Default::default(),
        ..args.page.launch_options()?
    };
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), args.page.open_browser(launch)).await?;
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
    let text = if args.output.json {
        crate::output::json_text(&result)
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
