//! What a tool runs against: the current tab, the browser it lives in, the
//! caller's model, and the caller's limits ([`ToolSettings`]).

use std::path::PathBuf;
use std::sync::Mutex;

use crate::ai::{ActOptions, Variables};
use crate::browser::{Browser, BrowserContext};
use crate::domains::AllowedDomains;
use crate::error::{Error, Result};
use crate::llm::Llm;
use crate::page::{Page, Target};

/// The caller's choices that tools follow.
#[derive(Debug, Clone)]
pub struct ToolSettings {
    /// `%name%` values: substituted only when acting, never shown to a model.
    pub variables: Variables,
    /// Options of the act pipeline (`act`, `fillForm`).
    pub act: ActOptions,
    /// Where navigations may go (empty: anywhere).
    pub allowed_domains: AllowedDomains,
    /// Token budget (chars/4) of a full-page `snapshot` result.
    pub snapshot_budget: usize,
    /// Relative `upload` paths are taken against this directory.
    pub base_dir: Option<PathBuf>,
    /// Where files the tools write go (storage states, screenshots saved by name).
    pub output_dir: Option<PathBuf>,
    /// Snapshot results begin with the page's title and URL; false where
    /// the caller's response states the page itself (MCP's page section).
    pub tree_header: bool,
    /// Images go to files the caller reads, not into a model's context
    /// (the session commands): a full-page screenshot may be as tall as
    /// Chromium draws, not only what a model's API takes.
    pub images_to_files: bool,
}

impl Default for ToolSettings {
    fn default() -> Self {
        ToolSettings {
            variables: Variables::default(),
            act: ActOptions::default(),
            allowed_domains: AllowedDomains::default(),
            snapshot_budget: 70_000,
            base_dir: None,
            output_dir: None,
            tree_header: true,
            images_to_files: false,
        }
    }
}

/// One caller's session, as tools see it.
pub struct ToolContext<'a> {
    /// The tab tools act on; a tool may switch it (a new tab, a popup).
    page: Mutex<Page>,
    browser: Option<&'a Browser>,
    /// The browser context the session's tabs live in (None: the default one).
    context: Option<&'a BrowserContext>,
    llm: Option<&'a Llm>,
    pub settings: &'a ToolSettings,
}

/// How a tool that needs a model says to give it one (the session
/// commands say it in their own words: the model comes with `open`).
pub const CONFIGURE_A_MODEL: &str = "configure one (--model or $SIGHTLINE_MODEL)";

impl<'a> ToolContext<'a> {
    pub fn new(page: Page, settings: &'a ToolSettings) -> ToolContext<'a> {
        ToolContext {
            page: Mutex::new(page),
            browser: None,
            context: None,
            llm: None,
            settings,
        }
    }

    /// Lets tools open, list and switch tabs.
    pub fn with_browser(mut self, browser: &'a Browser) -> Self {
        self.browser = Some(browser);
        self
    }

    /// Keeps the session's tabs in `context`.
    pub fn in_context(mut self, context: Option<&'a BrowserContext>) -> Self {
        self.context = context;
        self
    }

    /// Lets model tools (act, observe, extract, fillForm) run.
    pub fn with_llm(mut self, llm: Option<&'a Llm>) -> Self {
        self.llm = llm;
        self
    }

    /// The current tab.
    pub fn page(&self) -> Page {
        self.page.lock().unwrap().clone()
    }

    /// `text` with its `%name%` variables filled in for the document it
    /// is typed into: `target`'s on the current tab, or with none the one
    /// holding focus (a variable bound to other sites is refused).
    pub async fn substitute(&self, text: &str, target: Option<&Target>) -> Result<String> {
        self.settings.variables.substitute_on(text, &self.page(), target).await
    }

    /// Makes `page` the current tab.
    pub fn set_page(&self, page: Page) {
        *self.page.lock().unwrap() = page;
    }

    /// The browser, or an error for callers that gave none (tab tools need one).
    pub fn browser(&self, tool: &str) -> Result<&'a Browser> {
        self.browser
            .ok_or_else(|| Error::InvalidAction(format!("{tool} needs the browser, which this caller does not share")))
    }

    /// Whether the browser this caller shares has died (crashed, killed,
    /// closed); false when it shares none.
    pub fn browser_is_gone(&self) -> bool {
        self.browser.is_some_and(|b| !b.is_connected())
    }

    /// The session's browser context (None: the default one).
    pub fn context(&self) -> Option<&'a BrowserContext> {
        self.context
    }

    /// The model, or an error a caller can act on (see [`CONFIGURE_A_MODEL`]).
    pub fn llm(&self, tool: &str) -> Result<&'a Llm> {
        self.llm
            .ok_or_else(|| Error::InvalidAction(format!("{tool} needs a model: {CONFIGURE_A_MODEL}")))
    }

    pub fn has_llm(&self) -> bool {
        self.llm.is_some()
    }
}
