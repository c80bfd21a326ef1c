//! Provider-neutral chat types: what the pipelines build and what the wire
//! formats (`openai.rs`, `openai_responses.rs`, `anthropic.rs`, `gemini.rs`)
//! translate to and from.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::computer::{ComputerResult, ComputerSpec};

/// The providers' APIs (wire formats) the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// OpenAI Chat Completions and every OpenAI-compatible server.
    ChatCompletions,
    /// OpenAI Responses (computer use, `previous_response_id` chaining).
    Responses,
    /// Anthropic Messages.
    Messages,
    /// Google Gemini `generateContent`.
    GenerateContent,
}

/// Who speaks a message. The system prompt is not a message (Anthropic puts
/// it at the top level), see [`ChatRequest::system`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// A PNG screenshot, for multimodal models.
    Image {
        png_base64: String,
    },
    /// The assistant called a tool (assistant messages only).
    ToolCall(ToolCall),
    /// The answer to a tool call (user messages only; OpenAI sends these as
    /// `tool` messages).
    ToolResult {
        call_id: String,
        content: String,
        is_error: bool,
    },
    /// The answer to a computer-use call (user messages only).
    ComputerResult(ComputerResult),
    /// An assistant turn exactly as the provider sent it (Anthropic's
    /// content blocks, OpenAI Responses' output items, Gemini's content),
    /// sent back unchanged to the same API: thinking blocks, reasoning items
    /// and thought signatures must survive the round trip. Other APIs skip it.
    Native {
        api: Api,
        value: Value,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Message {
    pub fn user(text: impl Into<String>) -> Message {
        Message {
            role: Role::User,
            parts: vec![Part::Text(text.into())],
        }
    }

    pub fn assistant(parts: Vec<Part>) -> Message {
        Message {
            role: Role::Assistant,
            parts,
        }
    }

    /// One user message answering tool calls.
    pub fn tool_results(results: Vec<(String, String, bool)>) -> Message {
        Message {
            role: Role::User,
            parts: results
                .into_iter()
                .map(|(call_id, content, is_error)| Part::ToolResult {
                    call_id,
                    content,
                    is_error,
                })
                .collect(),
        }
    }

    /// All text in the message (text parts, tool results, tool call arguments).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::ToolResult { content, .. } => out.push_str(content),
                Part::ToolCall(c) => out.push_str(&c.arguments.to_string()),
                Part::ComputerResult(r) => {
                    out.push_str(r.text.as_deref().unwrap_or_default());
                    out.push_str(r.error.as_deref().unwrap_or_default());
                }
                Part::Image { .. } | Part::Native { .. } => {}
            }
        }
        out
    }
}

/// A function the model may call; `parameters` is a JSON Schema object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

impl ToolSpec {
    pub fn new(name: &str, description: &str, parameters: Value) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            parameters,
        }
    }
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ToolChoice {
    /// The model decides (text or tool calls).
    #[default]
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must call this tool.
    Tool(String),
}

/// A tool call as the model made it; `arguments` is parsed JSON (or the raw
/// text as a JSON string when the model sent something that is not JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

impl ToolCall {
    /// The arguments as the JSON text the OpenAI formats carry: arguments
    /// that were junk (kept as the model's string, see the parsers) go
    /// back as that very text, not re-quoted.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(junk) => junk.clone(),
            other => other.to_string(),
        }
    }
}

/// Structured output: the reply must be JSON matching `schema`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseSchema {
    /// `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's rule for names).
    pub name: String,
    pub schema: Value,
}

/// One model call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub tool_choice: ToolChoice,
    pub response_schema: Option<ResponseSchema>,
    pub max_tokens: Option<u32>,
    /// What the call is for ("act", "extract", "agent step 3"): for the usage log.
    pub purpose: String,
    /// Offer the provider's computer-use tool (screenshots and coordinates).
    pub computer: Option<ComputerSpec>,
    /// OpenAI Responses: continue the conversation the server keeps under
    /// this response id; `messages` then holds only what is new.
    pub previous_response_id: Option<String>,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    /// The model declined (OpenAI's `refusal`, Anthropic's `refusal` stop,
    /// Gemini's safety stops); the text, when any, is its words.
    Refused,
    Other,
}

/// Token counts and time of one call, or totals of many.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    /// Wall time spent waiting for the model's answers (every attempt of a
    /// call, not the back-off pauses between them).
    pub inference_ms: u64,
    /// Successful model calls.
    #[serde(default)]
    pub calls: u32,
}

impl AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cached_input_tokens += o.cached_input_tokens;
        self.inference_ms += o.inference_ms;
        self.calls += o.calls;
    }
}

impl Usage {
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// Concatenated text blocks (None when there was no text).
    pub text: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub stop: StopReason,
    pub usage: Usage,
    /// The provider's id of this response (OpenAI Responses chains on it).
    pub id: Option<String>,
    /// The turn in the provider's own form, when it must be sent back as is
    /// (see [`Part::Native`]).
    pub native: Option<(Api, Value)>,
}

impl ChatResponse {
    /// The assistant message to append to a conversation.
    pub fn to_message(&self) -> Message {
        let mut parts = Vec::new();
        if let Some(t) = self.text.as_ref().filter(|t| !t.trim().is_empty()) {
            parts.push(Part::Text(t.clone()));
        }
        parts.extend(self.tool_calls.iter().cloned().map(Part::ToolCall));
        if let Some((api, value)) = &self.native {
            parts.push(Part::Native {
                api: *api,
                value: value.clone(),
            });
        }
        Message::assistant(parts)
    }

    /// Why an answer stopped short of what was asked, when it says so: a
    /// refusal (with the model's words) or the output limit.
    pub fn stopped_short(&self) -> Option<String> {
        let words = self.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
        match self.stop {
            StopReason::Refused => Some(match words {
                Some(w) => format!("the model refused: {}", crate::text::clip(w, 200)),
                None => "the model refused".into(),
            }),
            StopReason::MaxTokens => Some("the answer was cut off at the model's output limit (max_tokens)".into()),
            _ => None,
        }
    }

    /// `problem` with the reason the answer stopped short put first, when
    /// there is one (a refusal reads as one, not as a malformed answer).
    pub fn explain(&self, problem: String) -> String {
        match self.stopped_short() {
            Some(why) => format!("{why} ({problem})"),
            None => problem,
        }
    }
}
