//! The autonomous agent: a tool loop over one page.
//!
//! Every step the model sees the conversation so far and calls tools from
//! the registry (act, click, fill, type, press, select, check, hover, drag,
//! upload, fillForm, goto, back, scroll, wait, snapshot, screenshot,
//! removeBlocker, extract, think, done). After any tool that may change the
//! page, the next call gets a page message: title, URL, page-position line,
//! modal note and the viewport tree, wrapped as untrusted content. The run
//! ends at `done`, at `max_steps`, or when cancelled (partial result).

mod context;
mod options;
pub mod prompts;
pub mod replay;
pub mod report;
mod result;
mod run;

pub use options::{AgentOptions, ProgressFn};
pub use replay::{ReplayOptions, ReplayReport, ReplayedStep, SavedRun};
pub use result::{ActionTrace, AgentAction, AgentResult, Screenshot};
pub use run::Agent;
