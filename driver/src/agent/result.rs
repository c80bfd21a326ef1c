//! What an agent run returns: [`AgentResult`], one [`AgentAction`] per tool
//! call, and what the trace report shows of each.

use serde::Serialize;
use serde_json::Value;

use super::mode::AgentMode;
use super::replay::SavedRun;
use crate::eval::Verdict;
use crate::llm::Usage;

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
    /// Where an action at coordinates happened, in viewport CSS pixels.
    pub point: Option<(f64, f64)>,
}

/// A provider's safety check met during a computer-use run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SafetyCheckRecord {
    /// The model turn (1-based).
    pub step: u32,
    /// The provider's check id.
    pub id: String,
    /// `malicious_instructions`, `sensitive_domain`… or `require_confirmation`.
    pub code: String,
    /// The provider's explanation.
    pub message: String,
    /// The action it was attached to (`click_at`, `click`…).
    pub action: String,
    /// Acknowledged under `--safety-checks allow` (the action ran); false:
    /// the run stopped before the action.
    pub acknowledged: bool,
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

/// `{"success","completed","message","output"?,"mode","actions","usage","steps","safety_checks"?,"verdict"?}`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgentResult {
    /// The model called done with taskComplete: true.
    pub success: bool,
    /// The run ended with done (not by max_steps, a failure or Ctrl-C).
    pub completed: bool,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// How the agent saw and acted: dom, cua or hybrid.
    pub mode: AgentMode,
    pub actions: Vec<AgentAction>,
    pub usage: Usage,
    /// Model turns taken.
    pub steps: u32,
    /// Stopped by Ctrl-C (or [`AgentOptions::cancel`](super::AgentOptions::cancel)): the result is partial.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Safety checks the provider raised (computer use): acknowledged ones,
    /// and the one that stopped the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub safety_checks: Vec<SafetyCheckRecord>,
    /// The judge's verdict on the run ([`AgentOptions::evaluate`](super::AgentOptions::evaluate)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The task as given.
    #[serde(skip)]
    pub task: String,
    /// The deterministic steps, for `--save-run`.
    #[serde(skip)]
    pub run: SavedRun,
}
