//! Computer use in the provider-neutral types: the computer tool a request
//! offers, and the answer to one of its calls (a screenshot, the page's URL,
//! notes, acknowledged safety checks). Each wire module shapes them its
//! provider's way: Anthropic's `computer` tool and `tool_result`, OpenAI's
//! `computer_use_preview` / `computer` tool and `computer_call_output`,
//! Gemini's `computerUse` tool and `functionResponse`.

use serde::{Deserialize, Serialize};

/// The name of a computer-use call in [`ToolCall`](super::ToolCall)s: the
/// Anthropic tool's name, and what OpenAI's `computer_call` items become.
/// (Gemini's computer actions keep their own function names, `click_at`…)
pub const COMPUTER_TOOL: &str = "computer";

/// The computer tool of a request: the model sees screenshots of a display
/// this size (pixels) and answers with actions at coordinates on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputerSpec {
    pub display_width: u32,
    pub display_height: u32,
}

/// A safety check a provider attached to a computer action (OpenAI's
/// `pending_safety_checks`, Gemini's `safety_decision`). Acknowledging it
/// means a person (or the `--safety-checks allow` policy) let it through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SafetyCheck {
    /// OpenAI's check id (`cu_sc_…`); for Gemini the function call's id or name.
    pub id: String,
    /// `malicious_instructions`, `irrelevant_domain`, `sensitive_domain`
    /// (OpenAI) or `require_confirmation` (Gemini).
    pub code: String,
    /// The provider's explanation.
    pub message: String,
}

/// The answer to one computer-use call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ComputerResult {
    pub call_id: String,
    /// The call's name: [`COMPUTER_TOOL`], or Gemini's function name.
    pub name: String,
    /// The screen after the call, at the declared display size (None once
    /// the conversation has dropped it as too old).
    pub screenshot_png_base64: Option<String>,
    /// The page's URL after the call.
    pub url: String,
    /// What else the model should read: the page position, the modal note.
    pub text: Option<String>,
    /// Why the action failed, if it did.
    pub error: Option<String>,
    /// The safety checks of this call that were acknowledged.
    pub acknowledged: Vec<SafetyCheck>,
}
