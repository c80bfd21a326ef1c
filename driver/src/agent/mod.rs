//! The autonomous agent over one page, in three modes ([`AgentMode`]).
//!
//! - **dom**: every step the model sees the conversation so far and calls
//!   tools from the registry (act, click, fill, type, press, select, check,
//!   hover, drag, upload, fillForm, goto, back, scroll, wait, snapshot,
//!   screenshot, removeBlocker, extract, think, done). After any tool that
//!   may change the page, the next call gets a page message: title, URL,
//!   page-position line, modal note and the viewport tree, wrapped as
//!   untrusted content. The run ends at `done`.
//! - **hybrid**: the same, plus the coordinate tools (`clickAt`, `typeAt`,
//!   `dragAt`, `hoverAt`, `scrollAt`) and, with every page message, the
//!   viewport screenshot with each ref's box labelled.
//! - **cua**: the provider's computer tool (`cua/`): screenshots in,
//!   actions at coordinates out, removeBlocker and the page note beside
//!   them. The run ends when the model answers.
//!
//! Every mode ends at `max_steps`, when cancelled (partial result), or when
//! the model repeats a turn on a page that stays as it was (`repeats.rs`:
//! it is told at the third time, stopped at the fifth), and
//! records registry calls for `sightline replay` (`harness.rs`). With
//! [`AgentOptions::evaluate`], a judge then looks at the final page
//! (`judge.rs`).

mod context;
mod cua;
mod harness;
mod judge;
mod mode;
mod options;
pub mod prompts;
mod repeats;
pub mod replay;
pub mod report;
mod result;
mod run;

pub use mode::{AgentMode, SafetyChecks};
pub use options::{AgentOptions, EvaluateOptions, ProgressFn};
pub use replay::{ReplayOptions, ReplayReport, ReplayedStep, SavedRun};
pub use result::{ActionTrace, AgentAction, AgentResult, SafetyCheckRecord, Screenshot};
pub use run::Agent;
