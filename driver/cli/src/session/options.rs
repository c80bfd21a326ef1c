//! How a session's browser starts: the flags of `open`, which the client
//! passes on to the daemon it starts (`__session-daemon`).

use std::path::PathBuf;

use clap::Args;

use crate::args::{LlmArgs, PageArgs};
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
    /// A dotenv file of secrets (`NAME=value`): `fill e3 %NAME%` types one,
    /// and its value is redacted from every answer (a coding agent never
    /// sees the password it types).
    #[arg(long, value_name = "FILE")]
    pub secrets: Option<PathBuf>,
    /// A model for `act`, `observe` and `extract` in the session.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// With `--model`: local files the model's own choices (`act`) may
    /// upload, besides the working directory (not its hidden entries):
    /// directories or files (repeat the flag), or `all`. The session's
    /// commands themselves may use any file.
    #[arg(long = "allow-file-access", value_name = "PATH|all", action = clap::ArgAction::Append)]
    pub allow_file_access: Vec<PathBuf>,
}

/// `__session-daemon`: the daemon's own command line (hidden).
#[derive(Debug, Args)]
pub struct DaemonArgs {
    #[arg(long)]
    pub session: String,
    #[command(flatten)]
    pub browser: BrowserOptions,
}
