//! Plain values a [`Browser`](super::Browser) keeps and hands out: a
//! browser context's id, a download's record. A leaf file (it knows no
//! `Browser`), so the browser's own struct can hold them without an import
//! cycle through the files that add its methods.

use std::path::PathBuf;

use serde::Serialize;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// An isolated context of a browser (like an incognito window).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserContext {
    pub(crate) id: String,
}

/// One download.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Download {
    /// Increases with every download of the browser.
    pub seq: u64,
    pub url: String,
    pub suggested_filename: String,
    /// Where the file is once complete (empty when the browser that saved
    /// it did not say).
    pub path: PathBuf,
    pub bytes: u64,
    /// `inProgress`, `completed` or `canceled`.
    pub state: String,
    #[serde(skip)]
    pub(super) guid: String,
    /// Begun in a tab Sightline acts in, in the default context of a
    /// browser reached with `--cdp-url` (the user's own profile): that
    /// browser saves it where it saves downloads.
    #[serde(skip)]
    pub by_the_browser: bool,
    /// Begun in one of the user's own tabs there: not Sightline's to report
    /// or to wait for.
    #[serde(skip)]
    pub users_own: bool,
}

/// The origin guard (`origin_guard.rs`): its own DevTools connection
/// (chromiumoxide's cannot be shared with a task), the task reading it, and
/// whether it pauses every document request or only `file:` ones (all
/// policies so far limit only local files).
#[derive(Default)]
pub(super) struct GuardState {
    pub(super) outgoing: Option<mpsc::UnboundedSender<String>>,
    pub(super) task: Option<JoinHandle<()>>,
    pub(super) every_url: bool,
}

impl Drop for GuardState {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}
