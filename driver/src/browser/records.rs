//! Plain values a [`Browser`](super::Browser) keeps and hands out: a
//! browser context's id, a download's record. A leaf file (it knows no
//! `Browser`), so the browser's own struct can hold them without an import
//! cycle through the files that add its methods.

use std::path::PathBuf;

use serde::Serialize;

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
    /// Where the file is (once complete).
    pub path: PathBuf,
    pub bytes: u64,
    /// `inProgress`, `completed` or `canceled`.
    pub state: String,
    #[serde(skip)]
    pub(super) guid: String,
}
