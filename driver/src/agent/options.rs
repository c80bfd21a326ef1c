//! How an agent run is set up: [`AgentOptions`].

use std::sync::Arc;
use std::time::Duration;

use super::mode::{AgentMode, SafetyChecks};
use super::result::AgentAction;
use crate::ai::{ActOptions, Variables};
use crate::llm::{Llm, Usage};
use crate::tools::Registry;

/// Called after every tool call (the CLI's live progress line).
pub type ProgressFn = Arc<dyn Fn(&AgentAction, &Usage) + Send + Sync>;

/// Options of [`Agent`](super::Agent).
#[derive(Clone)]
pub struct AgentOptions {
    /// DOM (text tree and element tools), CUA (the provider's computer
    /// tool) or hybrid (both kinds of tools, an annotated screenshot).
    pub mode: AgentMode,
    /// Computer use: stop at a provider's safety check (default), or
    /// acknowledge it and record it in the result.
    pub safety_checks: SafetyChecks,
    /// Screenshots kept in the conversation (older ones become a short
    /// note). OpenAI's computer use keeps its history on the server
    /// (`previous_response_id`), where `truncation: auto` drops old turns.
    pub keep_screenshots: usize,
    /// Model turns before the run stops as not completed.
    pub max_steps: u32,
    /// Time limit of one tool call; a tool that runs out reports an error to the model.
    pub tool_timeout: Duration,
    /// Replaces the default system prompt (the goal is appended).
    pub system_instructions: Option<String>,
    /// Domains `goto` and any navigation may reach (empty: anywhere). The
    /// run checks `goto` before it and other navigations after them (and
    /// goes back); for the browser to refuse the request itself (a form's
    /// POST never sent), launch it with the same domains in
    /// `LaunchOptions::origins.allowed`, as `sightline agent` does.
    pub allowed_domains: Vec<String>,
    /// `%name%` secrets, as act handles them.
    pub variables: Variables,
    /// Options of the act pipeline the `act` and `fillForm` tools use.
    pub act: ActOptions,
    /// Token budget of the `snapshot` tool (chars/4).
    pub snapshot_budget: usize,
    /// Token budget of the viewport tree in each page message.
    pub page_message_budget: usize,
    /// Take a screenshot after every tool call (for `--report`).
    pub screenshots: bool,
    /// Have a judge look at the run when it ends (its final screenshots, its
    /// answer and account): the result's `verdict`.
    pub evaluate: Option<EvaluateOptions>,
    /// Open this URL first.
    pub start_url: Option<String>,
    /// Set to `true` to stop the run (Ctrl-C); the result is partial.
    pub cancel: Option<tokio::sync::watch::Receiver<bool>>,
    pub progress: Option<ProgressFn>,
    /// The tools the model is offered (the registry's agent tools).
    pub tools: Registry,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            mode: AgentMode::Dom,
            safety_checks: SafetyChecks::Deny,
            keep_screenshots: 3,
            max_steps: 20,
            tool_timeout: Duration::from_secs(45),
            system_instructions: None,
            allowed_domains: Vec::new(),
            variables: Variables::default(),
            act: ActOptions::default(),
            snapshot_budget: 70_000,
            page_message_budget: 20_000,
            screenshots: false,
            evaluate: None,
            start_url: None,
            cancel: None,
            progress: None,
            tools: Registry::standard(),
        }
    }
}

impl std::fmt::Debug for AgentOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentOptions")
            .field("mode", &self.mode)
            .field("safety_checks", &self.safety_checks)
            .field("max_steps", &self.max_steps)
            .field("tool_timeout", &self.tool_timeout)
            .field("allowed_domains", &self.allowed_domains)
            .field("variables", &self.variables)
            .field("evaluate", &self.evaluate)
            .finish_non_exhaustive()
    }
}

/// How a run is judged when it ends ([`AgentOptions::evaluate`]).
#[derive(Debug, Clone, Default)]
pub struct EvaluateOptions {
    /// What to ask; `None` asks whether the task was completed
    /// ([`task_question`](crate::eval::task_question)).
    pub question: Option<String>,
    /// The judge's model; `None`: the agent's own (its calls are counted
    /// apart from the run's).
    pub judge: Option<Llm>,
}
