//! Batch runs: many tasks from a JSON-lines file, on a pool of local
//! browsers (each worker its own Chromium and fresh profile), on browsers
//! that are already running, or on Selenium Grid 4 sessions.
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::batch::{Batch, BatchOptions, TaskFile};
//! let file = TaskFile::read("tasks.jsonl".as_ref())?;       // every line checked first
//! let options = BatchOptions { concurrency: 4, out: "results.jsonl".into(), ..Default::default() };
//! let report = Batch::new(file, options)?.run().await?;      // results appended as tasks end
//! println!("{} of {} ok", report.summary.ok, report.summary.tasks);
//! # Ok(()) }
//! ```
//!
//! A rerun with the same results file runs only what has no verdict yet;
//! results files of shards are joined with [`merge`].

mod execute;
mod grid;
mod judge;
mod lease;
mod options;
mod plan;
mod reports;
mod result;
mod results_file;
mod run;
mod summary;
mod task;
mod task_file;
mod worker;

pub use grid::{Grid, GridSession};
pub use options::{BatchEvent, BatchOptions, EventFn, Fleet, Stop};
pub use plan::{Plan, Planned, Shard};
pub use result::{TaskResult, TaskStatus};
pub use results_file::{merge, MergeReport, ResultLog, ResultWriter};
pub use run::{Batch, BatchReport};
pub use summary::Summary;
pub use task::{Task, TaskKind};
pub use task_file::{parse_task_line, parse_tasks, TaskFile, TASK_FIELDS};
