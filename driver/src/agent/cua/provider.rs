//! What differs between the three computer-use providers, behind one
//! interface: which screen size each is shown, which calls are computer
//! actions, how their arguments read, and whether the server keeps the
//! history (OpenAI's `previous_response_id`).

use super::actions::ModelCall;
use super::display::{Display, Fit};
use super::{anthropic, gemini, openai};
use crate::llm::{Llm, Provider as LlmProvider, ToolCall, COMPUTER_TOOL};

/// A computer-use provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Anthropic,
    OpenAi,
    Gemini,
}

impl Provider {
    /// The provider of the model: the wire format says which computer tool it has.
    pub fn of(llm: &Llm) -> Provider {
        match llm.provider() {
            LlmProvider::Anthropic => Provider::Anthropic,
            LlmProvider::OpenAi => Provider::OpenAi,
            LlmProvider::Google => Provider::Gemini,
        }
    }

    /// The largest screen this provider should be shown.
    pub fn fit(self, width: f64, height: f64) -> Fit {
        match self {
            Provider::Anthropic => Fit::anthropic(width, height),
            Provider::OpenAi => Fit::openai(width, height),
            Provider::Gemini => Fit::gemini(width, height),
        }
    }

    /// The server keeps the conversation; each request carries only what is new.
    pub fn chains(self) -> bool {
        self == Provider::OpenAi
    }

    /// Whether each computer call's result carries the screenshot: OpenAI's
    /// `computer_call_output` must, and Gemini's reference answers every
    /// function so. Anthropic's results take text: one screenshot a turn
    /// (on the last) is all a model needs, and copies would push earlier
    /// ones out of the history kept.
    pub fn screenshot_on_every_result(self) -> bool {
        self != Provider::Anthropic
    }

    /// Whether `call` is a computer action, not a function call (one of
    /// the function tools offered, or a function the model made up, which
    /// is answered as a function call).
    pub fn is_computer_call(self, call: &ToolCall, functions: &[&str]) -> bool {
        match self {
            // Each of Gemini's computer actions is a function of its own name.
            Provider::Gemini => !functions.contains(&call.name.as_str()),
            Provider::Anthropic | Provider::OpenAi => call.name == COMPUTER_TOOL,
        }
    }

    /// The actions of a computer call, mapped to viewport CSS pixels.
    pub fn read(self, call: &ToolCall, display: &Display) -> ModelCall {
        match self {
            Provider::Anthropic => anthropic::read(call, display),
            Provider::OpenAi => openai::read(call, display),
            Provider::Gemini => gemini::read(call, display),
        }
    }
}
