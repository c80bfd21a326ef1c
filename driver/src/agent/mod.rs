//! The autonomous agent: a tool loop over one page.
//!
//! Every step the model sees the conversation so far and calls tools (act,
//! ariaTree, extract, fillForm, goto, navback, screenshot, scroll, wait,
//! keys, think, removeBlocker, done). After any tool that may change the
//! page, the next call gets a page message: title, URL, page-position line,
//! modal note and the viewport tree, wrapped as untrusted content. The run
//! ends at `done`, at `max_steps`, or when cancelled (partial result).

mod context;
mod domains;
pub mod prompts;
pub mod replay;
pub mod report;
mod run;
pub mod tools;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::ai::{ActOptions, Variables};
use crate::llm::{Llm, Usage};
use crate::page::Page;

pub use domains::AllowedDomains;
pub use replay::{ReplayOptions, ReplayReport, ReplayStep, ReplayedStep, SavedRun};

/// Called after every tool call (the CLI's live progress line).
pub type ProgressFn = Arc<dyn Fn(&AgentAction, &Usage) + Send + Sync>;

/// Options of [`Agent`].
#[derive(Clone)]
pub struct AgentOptions {
    /// Model turns before the run stops as not completed.
    pub max_steps: u32,
    /// Time limit of one tool call; a tool that runs out reports an error to the model.
    pub tool_timeout: Duration,
    /// Replaces the default system prompt (the goal is appended).
    pub system_instructions: Option<String>,
    /// Domains `goto` and any navigation may reach (empty: anywhere).
    pub allowed_domains: Vec<String>,
    /// `%name%` secrets, as act handles them.
    pub variables: Variables,
    /// Options of the act pipeline the `act` and `fillForm` tools use.
    pub act: ActOptions,
    /// Token budget of the `ariaTree` tool (chars/4).
    pub aria_tree_budget: usize,
    /// Token budget of the viewport tree in each page message.
    pub page_message_budget: usize,
    /// Take a screenshot after every tool call (for `--report`).
    pub screenshots: bool,
    /// Open this URL first.
    pub start_url: Option<String>,
    /// Set to `true` to stop the run (Ctrl-C); the result is partial.
    pub cancel: Option<tokio::sync::watch::Receiver<bool>>,
    pub progress: Option<ProgressFn>,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            max_steps: 20,
            tool_timeout: Duration::from_secs(45),
            system_instructions: None,
            allowed_domains: Vec::new(),
            variables: Variables::default(),
            act: ActOptions::default(),
            aria_tree_budget: 70_000,
            page_message_budget: 20_000,
            screenshots: false,
            start_url: None,
            cancel: None,
            progress: None,
        }
    }
}

impl std::fmt::Debug for AgentOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentOptions")
            .field("max_steps", &self.max_steps)
            .field("tool_timeout", &self.tool_timeout)
            .field("allowed_domains", &self.allowed_domains)
            .field("variables", &self.variables)
            .finish_non_exhaustive()
    }
}

/// A viewport screenshot taken after a tool call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Screenshot {
    pub png_base64: String,
    /// The viewport in CSS pixels (boxes are drawn relative to it).
    pub width: f64,
    pub height: f64,
}

/// What the report shows beyond the result JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionTrace {
    /// The model turn this call belongs to (1-based).
    pub step: u32,
    pub ok: bool,
    /// The model's text in that turn (or a think tool's reasoning).
    pub reasoning: Option<String>,
    /// Usage of that turn's model call.
    pub step_usage: Usage,
    /// Model use inside the tool itself (act's, observe's or extract's calls).
    pub tool_usage: Usage,
    pub screenshot: Option<Screenshot>,
    /// The acted-on element's box in viewport CSS pixels (only when the
    /// page did not navigate, so the box fits the screenshot).
    pub rect: Option<sightline_engine::protocol::Rect>,
}

/// One tool call: `{"tool","arguments","result","url","timestamp"}`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgentAction {
    pub tool: String,
    pub arguments: Value,
    pub result: String,
    /// The page's URL after the call.
    pub url: String,
    /// RFC 3339, UTC.
    pub timestamp: String,
    #[serde(skip)]
    pub trace: ActionTrace,
}

/// `{"success","completed","message","output"?,"actions","usage","steps"}`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgentResult {
    /// The model called done with taskComplete: true.
    pub success: bool,
    /// The run ended with done (not by max_steps, a failure or Ctrl-C).
    pub completed: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    pub actions: Vec<AgentAction>,
    pub usage: Usage,
    /// Model turns taken.
    pub steps: u32,
    /// Stopped by Ctrl-C (or [`AgentOptions::cancel`]): the result is partial.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The task as given.
    #[serde(skip)]
    pub task: String,
    /// The deterministic steps, for `--save-run`.
    #[serde(skip)]
    pub run: SavedRun,
}

impl AgentResult {
    /// The self-contained HTML trace report.
    pub fn report_html(&self) -> String {
        report::render(self)
    }
}

/// An agent over one page and one model.
pub struct Agent<'a> {
    page: &'a Page,
    llm: &'a Llm,
    opts: AgentOptions,
}

impl<'a> Agent<'a> {
    pub fn new(page: &'a Page, llm: &'a Llm, opts: AgentOptions) -> Agent<'a> {
        Agent { page, llm, opts }
    }

    /// Runs the task to `done`, `max_steps` or cancellation. Errors only when
    /// the run cannot start (bad start URL, browser gone); everything later
    /// (model failures included) ends the run with `success: false`.
    pub async fn execute(&self, task: &str) -> crate::Result<AgentResult> {
        run::Run::new(self.page, self.llm, &self.opts, task).execute().await
    }
}

impl Page {
    /// Shorthand for `Agent::new(page, llm, opts).execute(task)`.
    pub async fn agent(&self, llm: &Llm, task: &str, opts: AgentOptions) -> crate::Result<AgentResult> {
        Agent::new(self, llm, opts).execute(task).await
    }
}
