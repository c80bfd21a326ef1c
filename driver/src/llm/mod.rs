//! The LLM layer: one client for OpenAI-compatible Chat Completions and
//! Anthropic Messages, with timeouts, bounded retries (exponential backoff
//! with jitter, `Retry-After` honoured), typed errors, usage accounting,
//! secret redaction and schema-validated structured output.
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::llm::{Llm, LlmOptions};
//! let llm = Llm::new(LlmOptions { model: Some("openai/gpt-4.1-mini".into()), ..Default::default() })?;
//! # Ok(()) }
//! ```

mod anthropic;
mod client;
pub(crate) mod errors;
mod openai;
pub mod schema;
mod structured;
mod types;

pub use client::{CallRecord, Llm, LlmOptions, Provider, Secrets, MODEL_ENV};
pub use errors::{LlmError, LlmErrorKind};
pub use structured::{feedback as feedback_message, StructuredReply};
pub use types::*;
