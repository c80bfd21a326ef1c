//! What a tool runs against: the current tab, the browser it lives in, the
//! caller's model, and the caller's limits ([`ToolSettings`]).

use std::path::PathBuf;
use std::sync::Mutex;

use crate::ai::{ActOptions, Variables};
use crate::browser::Browser;
use crate::domains::AllowedDomains;
use crate::error::{Error, Result};
use crate::llm::Llm;
use crate::page::Page;

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
}

impl Default for ToolSettings {
    fn default() -> Self {
        ToolSettings {
            variables: Variables::default(),
            act: ActOptions::default(),
            allowed_domains: AllowedDomains::default(),
            snapshot_budget: 70_000,
            base_dir: None,
        }
    }
}

/// One caller's session, as tools see it.
pub struct ToolContext<'a> {
    /// The tab tools act on; a tool may switch it (a new tab, a popup).
    page: Mutex<Page>,
    browser: Option<&'a Browser>,
    llm: Option<&'a Llm>,
    pub settings: &'a ToolSettings,
}

impl<'a> ToolContext<'a> {
    pub fn new(page: Page, settings: &'a ToolSettings) -> ToolContext<'a> {
        ToolContext {
            page: Mutex::new(page),
            browser: None,
            llm: None,
            settings,
        }
    }

    /// Lets tools open, list and switch tabs.
    pub fn with_browser(mut self, browser: &'a Browser) -> Self {
        self.browser = Some(browser);
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

    /// Makes `page` the current tab.
    pub fn set_page(&self, page: Page) {
        *self.page.lock().unwrap() = page;
    }

    pub fn browser(&self) -> Option<&'a Browser> {
        self.browser
    }

    /// The model, or an error a caller can act on.
    pub fn llm(&self, tool: &str) -> Result<&'a Llm> {
        self.llm.ok_or_else(|| {
            Error::InvalidAction(format!(
                "{tool} needs a model: configure one (--model or $SIGHTLINE_MODEL)"
            ))
        })
    }

    pub fn has_llm(&self) -> bool {
        self.llm.is_some()
    }
}
