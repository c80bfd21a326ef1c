//! How a session's browser starts: the flags of `open`, which the client
//! passes on to the daemon it starts (`__session-daemon`).

use std::path::PathBuf;

use clap::Args;

use crate::args::{FileAccessArgs, LlmArgs, PageArgs};
use crate::extension::ExtensionArgs;

/// How the session's browser starts (flags of `open`, passed on to the daemon).
#[derive(Debug, Args, Clone)]
pub struct BrowserOptions {
    #[command(flatten)]
    pub page: PageArgs,
    #[command(flatten)]
    pub extension: ExtensionArgs,
    /// A persistent browser profile: logins stay for the next session.
    #[arg(long, value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// Load cookies and local storage from this file (Playwright's storage-state format).
    #[arg(long, value_name = "FILE")]
    pub storage_state: Option<PathBuf>,
    /// Close the session after this many seconds without a command.
    #[arg(long, value_name = "SECS", env = "SIGHTLINE_IDLE_TIMEOUT", default_value_t = 1800)]
    pub idle_timeout: u64,
    /// A model for `act`, `observe` and `extract` in the session.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// With a model: the local files its own choices (act) may upload or
    /// open; the session's commands themselves may use any.
    #[command(flatten)]
    pub files: FileAccessArgs,
}

/// `__session-daemon`: the daemon's own command line (hidden).
#[derive(Debug, Args)]
pub struct DaemonArgs {
    #[arg(long)]
    pub session: String,
    #[command(flatten)]
    pub browser: BrowserOptions,
}
