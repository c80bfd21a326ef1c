//! The LLM layer: one client for OpenAI-compatible Chat Completions, OpenAI
//! Responses, Anthropic Messages and Gemini `generateContent`, with
//! timeouts, bounded retries (exponential backoff with jitter, `Retry-After`
//! honoured), typed errors, usage accounting, secret redaction,
//! schema-validated structured output, and computer use (a computer tool
//! and its screenshot answers, [`ComputerSpec`], [`ComputerResult`]).
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::llm::{Llm, LlmOptions};
//! let llm = Llm::new(LlmOptions { model: Some("openai/gpt-4.1-mini".into()), ..Default::default() })?;
//! # Ok(()) }
//! ```

mod anthropic;
mod client;
mod computer;
pub(crate) mod errors;
mod gemini;
mod gemini_schema;
mod openai;
mod openai_responses;
mod retry;
pub mod schema;
mod secrets;
mod structured;
mod turns;
mod types;

pub use anthropic::computer_tool_version as anthropic_computer_tool;
pub use client::{CallRecord, Llm, LlmOptions, Provider, Secrets, MODEL_ENV};
pub use computer::{ComputerResult, ComputerSpec, SafetyCheck, COMPUTER_TOOL};
pub use errors::{LlmError, LlmErrorKind};
pub use structured::{feedback as feedback_message, StructuredReply};
pub use types::*;
