//! The evaluator: a model judges whether a browser task was done (or
//! answers a question about the browser) from screenshots, the page as a
//! run left it above all, weighing the agent's answer and account as
//! claims against them. It answers `{"evaluation": "YES"|"NO", "reasoning"}`,
//! or INVALID when its answer cannot be read after a retry.
//!
//! ```no_run
//! # async fn demo(page: &sightline::Page, llm: &sightline::Llm) -> sightline::Result<()> {
//! use sightline::eval::{Evaluator, Evidence};
//! let judge = Evaluator::new(llm);
//! let verdict = judge.judge_page(page, Evidence::new("Was the order placed?").answer("Order #42 placed")).await?;
//! println!("{}: {}", verdict.evaluation, verdict.reasoning);
//! # Ok(()) }
//! ```
//!
//! Agent runs are judged with [`AgentOptions::evaluate`](crate::AgentOptions),
//! batch tasks with an `evaluate` question, suites with `sightline eval`
//! ([`crate::suite`]), which keeps each run's evidence ([`kept`]) to judge
//! it again without running it.

mod evaluator;
mod evidence;
pub mod kept;
mod prompts;
pub mod report;
mod verdict;

pub use evaluator::Evaluator;
pub use evidence::{Evidence, FinalPage, PAGE_TEXT_CHARS};
pub use prompts::task_question;
pub use verdict::{Evaluation, Judged, Verdict};
