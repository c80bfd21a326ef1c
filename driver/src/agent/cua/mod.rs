//! Computer use: Anthropic's, OpenAI's and Gemini's computer-use models
//! drive the page by screenshots and actions at coordinates.
//!
//! Each turn the model gets the screenshot at the declared display size
//! (`display.rs`: scaled down where the viewport is larger than the
//! provider recommends, coordinates mapped back), a note with the page's
//! position and modal state (`prompts.rs`), and may call removeBlocker
//! beside its computer tool. Its actions (`anthropic.rs`, `openai.rs`,
//! `gemini.rs` read them into `actions.rs`'s vocabulary) run as registry
//! calls (`clickAt`, `typeAt`, `press`…): the same trusted input and the
//! same readiness wait as the DOM agent, recorded with the element under
//! the point for replay. Safety checks stop the run unless the options
//! allow them (`run.rs`).

mod actions;
mod anthropic;
mod display;
mod gemini;
mod keys;
mod openai;
mod prompts;
mod provider;
mod run;

pub(super) use display::image_scale;

use super::harness::Harness;
use super::result::AgentResult;
use crate::error::Result;

/// Runs a computer-use agent to its end.
pub(super) async fn execute(mut h: Harness<'_>) -> Result<AgentResult> {
    h.start().await?;
    run::run(h).await
}
