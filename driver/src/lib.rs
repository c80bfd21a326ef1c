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
//! page.fill("#email", "ada@example.com").await?; // a selector…
//! page.click("e12").await?; // …or a ref from the snapshot
//! browser.close().await?;
//! # Ok(()) }
//! ```

mod action;
mod actions;
pub mod agent;
pub mod ai;
pub mod bench;
pub mod bench_act;
pub mod bench_actions;
mod blocker;
mod browser;
mod config;
mod connect;
mod drag;
mod error;
mod input;
pub mod llm;
mod navigation;
mod page;
pub mod run;
mod settle;
mod snapshot;
mod target;
mod time;
mod tools;

pub use action::{Action, Method};
pub use actions::{ActionResult, ClickOptions};
pub use agent::{Agent, AgentAction, AgentOptions, AgentResult, ReplayOptions, ReplayReport, SavedRun};
pub use ai::{
    ActOptions, ActRecord, ActResult, ExtractOptions, ExtractResult, ObserveOptions, ObserveResult, Variables,
};
pub use blocker::{ConsentPolicy, RemoveBlockerOptions, RemoveBlockerResult};
pub use browser::{Browser, LaunchOptions, ViewportSize, CHROME_ENV, DEFAULT_CHROME};
pub use config::{Config, DomainOverride, RemoveBlockerConfig};
pub use error::{ActionErrorKind, Error, NavigationErrorKind, Result};
pub use input::{key_by_name, parse_combo, Combo, KeyDef};
pub use llm::{Llm, LlmOptions, Usage};
pub use navigation::NavigationResponse;
pub use page::{resolve_target, Page, ENGINE_BUNDLE, MAIN_WORLD_HOOK, USER_WORLD_NAME};
pub use settle::{SettleReport, DEFAULT_SETTLE_TIMEOUT, MAX_REQUEST_AGE, QUIET_WINDOW};
pub use snapshot::SnapshotOptions;
pub use target::Target;
pub use tools::ScrollAmount;

/// Raw Chrome DevTools Protocol types, for use with [`Page::cdp`].
pub use chromiumoxide::cdp;

/// The typed protocol shared with the in-page engine (also the `--json` output types).
pub use sightline_engine::blockers::{BlockerButton, BlockerCandidate, BlockerKind, BlockerScan};
pub use sightline_engine::protocol;
pub use sightline_engine::protocol::{SnapshotMode, SnapshotResult};
