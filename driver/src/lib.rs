//! Sightline driver: launches Chromium over the DevTools protocol, installs
//! the in-page engine in every frame and turns pages into compact, ref-annotated
//! snapshots for LLM agents.
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::{Browser, LaunchOptions, SnapshotOptions};
//! let browser = Browser::launch(LaunchOptions::default()).await?;
//! let page = browser.new_page().await?;
//! page.goto("https://example.com").await?;
//! let snap = page.snapshot(&SnapshotOptions::default()).await?;
//! println!("{}", snap.tree);
//! browser.close().await?;
//! # Ok(()) }
//! ```

pub mod bench;
mod browser;
mod error;
mod page;
mod snapshot;

pub use browser::{Browser, LaunchOptions, ViewportSize, CHROME_ENV, DEFAULT_CHROME};
pub use error::{Error, NavigationErrorKind, Result};
pub use page::{resolve_target, Page, ENGINE_BUNDLE, MAIN_WORLD_HOOK};
pub use snapshot::SnapshotOptions;

/// Raw Chrome DevTools Protocol types, for use with [`Page::cdp`].
pub use chromiumoxide::cdp;

/// The typed protocol shared with the in-page engine (also the `--json` output types).
pub use sightline_engine::protocol;
pub use sightline_engine::protocol::{SnapshotMode, SnapshotResult};
