//! How to start a browser: [`LaunchOptions`] and the [`ViewportSize`].

use std::path::PathBuf;
use std::time::Duration;

use crate::config::RemoveBlockerConfig;
use crate::config::WaitUntil;
use crate::domains::OriginPolicy;
use crate::page::{PageConfig, ViewportSize, DEFAULT_READY_TIMEOUT};

/// Chromium used when neither [`LaunchOptions::executable`] nor `SIGHTLINE_CHROME` is set.
pub const DEFAULT_CHROME: &str = "/usr/bin/chromium";

/// Environment variable naming the Chromium executable.
pub const CHROME_ENV: &str = "SIGHTLINE_CHROME";

/// How to start the browser.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// Chromium executable; defaults to `$SIGHTLINE_CHROME`, then [`DEFAULT_CHROME`].
    pub executable: Option<PathBuf>,
    /// Show a window instead of running headless.
    pub headed: bool,
    /// Page viewport (and window) size.
    pub viewport: ViewportSize,
    /// Chromium's sandbox; `None` turns it off only when running as root
    /// (where Chromium refuses to start with it).
    pub sandbox: Option<bool>,
    /// How long Chromium may take to come up.
    pub launch_timeout: Duration,
    /// How long any single DevTools command may take.
    pub request_timeout: Duration,
    /// How long [`Page::goto`] waits for the new document (its load event
    /// with [`WaitUntil::Load`]).
    pub navigation_timeout: Duration,
    /// Time budget of [`Page::wait_ready`] (before snapshots, after
    /// navigations and actions); zero turns the wait off.
    pub ready_timeout: Duration,
    /// What steps wait for: ready as a user would see it (default), or the
    /// older load event or network quiet.
    pub wait_until: WaitUntil,
    /// How long element actions wait for their element to become actionable.
    pub action_timeout: Duration,
    /// Extra Chromium switches, without the leading `--` (e.g. `"lang=de"`).
    pub extra_args: Vec<String>,
    /// removeBlocker's policy for every page (`[remove_blocker]` of
    /// `sightline.toml`): used after navigations when configured, and when an
    /// action's target is covered.
    pub remove_blocker: RemoveBlockerConfig,
    /// A profile directory to keep (cookies and logins survive restarts);
    /// `None`: a fresh temporary profile, removed on close.
    pub user_data_dir: Option<PathBuf>,
    /// Where every page may navigate (documents, frames included); refused
    /// navigations fail as blocked.
    pub origins: OriginPolicy,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            executable: None,
            headed: false,
            viewport: ViewportSize::default(),
            sandbox: None,
            launch_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            navigation_timeout: Duration::from_secs(30),
            ready_timeout: DEFAULT_READY_TIMEOUT,
            wait_until: WaitUntil::Ready,
            action_timeout: Duration::from_secs(5),
            extra_args: Vec::new(),
            remove_blocker: Default::default(),
            user_data_dir: None,
            origins: OriginPolicy::default(),
        }
    }
}

impl LaunchOptions {
    pub(crate) fn page_config(&self) -> PageConfig {
        PageConfig {
            navigation_timeout: self.navigation_timeout,
            ready_timeout: self.ready_timeout,
            wait_until: self.wait_until,
            action_timeout: self.action_timeout,
        }
    }

    /// The executable this launch will use.
    pub fn resolved_executable(&self) -> PathBuf {
        if let Some(p) = &self.executable {
            return p.clone();
        }
        match std::env::var_os(CHROME_ENV) {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => PathBuf::from(DEFAULT_CHROME),
        }
    }
}
