//! Sightline driver: launches Chromium over the DevTools protocol, installs
//! the in-page engine in every frame and turns pages into compact, ref-annotated
//! snapshots for LLM agents.
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::{Ai, Browser, LaunchOptions, SnapshotOptions};
//! let browser = Browser::launch(LaunchOptions::default()).await?;
//! let page = browser.new_page().await?;
//! page.goto("https://example.com").await?;
//! let snap = page.snapshot(&SnapshotOptions::default()).await?;
//! println!("{}", snap.tree);
//! page.fill("#email", "ada@example.com").await?; // a selector…
//! page.click("e12").await?; // …or a ref from the snapshot
//! # let llm = sightline::Llm::new(Default::default())?;
//! Ai::new(&llm).act(&page, "click the Add to cart button", &Default::default()).await?;
//! browser.close().await?;
//! # Ok(()) }
//! ```
//!
//! The library prints nothing; the `sightline` binary (driver/cli) does.
// A tool call's futures nest deep (MCP → session → registry → tool → page
// → readiness): their layout needs more than the default 128 levels.
#![recursion_limit = "256"]

pub mod agent;
pub mod ai;
pub mod base64;
pub mod batch;
pub mod bridge;
mod browser;
mod config;
mod domains;
mod error;
pub mod eval;
pub mod files;
mod html;
mod image;
mod lifetime;
pub mod llm;
pub mod mcp;
mod page;
pub mod readable;
pub mod steps;
pub mod suite;
mod text;
mod time;
pub mod tools;

pub use agent::{
    Agent, AgentAction, AgentMode, AgentOptions, AgentResult, EvaluateOptions, ReplayOptions, ReplayReport,
    SafetyChecks, SavedRun,
};
pub use ai::{
    page_text, ActOptions, ActRecord, ActResult, Ai, ExtractOptions, ExtractResult, ObserveOptions, ObserveResult,
    Variables,
};
pub use bridge::{BridgeOptions, ExtensionBridge};
pub use browser::{
    Browser, BrowserContext, Download, LaunchOptions, ListedTab, OriginStorage, StorageState, CHROME_ENV,
    DEFAULT_CHROME,
};
pub use config::{Config, ConsentPolicy, DomainOverride, RemoveBlockerConfig, RemoveBlockerOptions, WaitUntil};
pub use domains::{AllowedDomains, OriginPolicy, Refusal};
pub use error::{ActionErrorKind, Error, NavigationErrorKind, Result};
pub use files::{FileAccess, LocalInputs};
pub use llm::{Llm, LlmError, LlmOptions, Usage};
pub use page::{
    is_ref, key_by_name, parse_combo, resolve_target, Action, ActionResult, AnnotatedScreenshot, ClickButton,
    ClickOptions, Combo, ConsoleMessage, DialogInfo, DialogPolicy, KeyDef, Method, NavigationResponse, NetworkRecord,
    Page, PointClick, PointTarget, ReadyReport, RefBox, RemoveBlockerResult, ScriptValue, ScrollAmount,
    SnapshotOptions, StorageItem, Target, ViewportSize, AGGRESSIVE_HINT, CONTENT_REQUEST_AGE, DEFAULT_READY_TIMEOUT,
    ECHO_WINDOW, ENGINE_BUNDLE, LATE_WINDOW, MAIN_WORLD_HOOK, MAX_REQUEST_AGE, QUIET_WINDOW, QUIET_WINDOW_READY,
    USER_WORLD_NAME,
};
pub use text::shown_url;
pub use tools::{Registry, Tool, ToolContext, ToolOutput, ToolSettings};

/// Raw Chrome DevTools Protocol types, for use with [`Page::cdp`].
pub use chromiumoxide::cdp;

/// The typed protocol shared with the in-page engine (also the `--json` output types).
pub use sightline_engine::protocol;
pub use sightline_engine::protocol::{
    BlockerButton, BlockerCandidate, BlockerKind, BlockerScan, SnapshotMode, SnapshotResult,
};
/// The header line a snapshot starts with when a large overlay may cover the page.
pub use sightline_engine::stitch::OVERLAY_WARNING;
