//! Eval suites: standard task sets run the way their users run them, each
//! task by the agent in several modes and trials, every run judged by the
//! evaluator ([`crate::eval`]), and the success rate measured per mode and
//! per level.
//!
//! Reads WebVoyager's JSON lines, Online-Mind2Web's tasks (a JSON array or
//! JSON lines) and Sightline's own task lines ([`SuiteFormat`]); the
//! suites' data is not bundled. Runs go through the batch machinery
//! ([`crate::batch`]): the same pool, grid, shards, results file and resume.
//! Each judged run's evidence is kept beside the results, so [`rejudge`]
//! can judge the runs again (another judge) without running them.
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::batch::BatchOptions;
//! use sightline::suite::{Eval, EvalOptions, Suite};
//! use sightline::AgentMode;
//! let suite = Suite::read("webvoyager.jsonl".as_ref(), None)?;  // every record checked first
//! let options = EvalOptions {
//!     modes: vec![AgentMode::Dom, AgentMode::Cua],
//!     trials: 1,
//!     batch: BatchOptions { out: "eval.jsonl".into(), ..Default::default() },
//! };
//! let report = Eval::new(suite, options)?.run().await?;
//! for m in &report.by_mode {
//!     match m.figures.success_rate {
//!         Some(rate) => println!("{}: {:.0}% judged success", m.mode, rate * 100.0),
//!         None => println!("{}: no run could be judged", m.mode),
//!     }
//! }
//! # Ok(()) }
//! ```

mod figures;
mod file;
mod formats;
mod plan;
mod records;
mod rejudge;
mod run;
mod web_base;

pub use figures::{EvalReport, Figures, LevelFigures, ModeFigures, RunOutcome, SiteFigures, NO_LEVEL, NO_SITE};
pub use file::Suite;
pub use formats::{SuiteFormat, SuiteTask};
pub use plan::EvalRun;
pub use rejudge::{planned_in, rejudge, report_of, RejudgeOptions, Rejudged};
pub use run::{Eval, EvalOptions};
pub use web_base::WebBase;
