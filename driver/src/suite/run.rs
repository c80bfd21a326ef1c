//! [`Eval`]: a suite run on the batch machinery (one batch of every task
//! in every mode and trial), then measured ([`EvalReport`]).

use super::figures::EvalReport;
use super::file::Suite;
use super::plan::{expand, EvalRun};
use crate::agent::AgentMode;
use crate::batch::{Batch, BatchOptions, EventFn, TaskFile};
use crate::error::{Error, Result};
use crate::llm::Llm;

/// How a suite runs.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Each task runs in each of these modes (in this order in the report).
    pub modes: Vec<AgentMode>,
    /// Runs of each task in each mode.
    pub trials: u32,
    /// The pool, grid or running browsers, shard, model, judge (None: the
    /// run's model), results file and reports: as a batch's.
    pub batch: BatchOptions,
}

/// A suite ready to run.
#[derive(Debug)]
pub struct Eval {
    suite: Suite,
    runs: Vec<EvalRun>,
    modes: Vec<AgentMode>,
    trials: u32,
    judge: String,
    batch: Batch,
}

impl Eval {
    /// Plans the runs and checks everything a batch checks (models, keys,
    /// the judge, the browser) before anything starts.
    pub fn new(suite: Suite, options: EvalOptions) -> Result<Eval> {
        let mut modes = Vec::new();
        for m in options.modes {
            if !modes.contains(&m) {
                modes.push(m);
            }
        }
        if modes.is_empty() {
            return Err(Error::Eval("give at least one mode (dom, hybrid, cua)".into()));
        }
        if options.trials == 0 {
            return Err(Error::Eval("--trials must be at least 1".into()));
        }
        let (tasks, runs) = expand(&suite, &modes, options.trials);
        let judge_options = options.batch.judge.clone().unwrap_or_else(|| options.batch.llm.clone());
        let file = TaskFile {
            path: suite.path.clone(),
            tasks,
        };
        let batch = Batch::new(file, options.batch)?;
        // Checked by the batch: the judge's model resolves.
        let judge = Llm::new(judge_options).map(|l| l.model_spec()).unwrap_or_default();
        Ok(Eval {
            suite,
            runs,
            modes,
            trials: options.trials,
            judge,
            batch,
        })
    }

    /// The batch it runs (its plan: runs to do, runs already done).
    pub fn batch(&self) -> &Batch {
        &self.batch
    }

    pub fn runs(&self) -> &[EvalRun] {
        &self.runs
    }

    pub fn suite(&self) -> &Suite {
        &self.suite
    }

    /// Sends progress to `events`, as [`Batch::with_events`].
    pub fn with_events(mut self, events: EventFn) -> Eval {
        self.batch = self.batch.with_events(events);
        self
    }

    /// Runs what the results file has no verdict for, then measures every
    /// run the file holds (this run's and earlier ones').
    pub async fn run(self) -> Result<EvalReport> {
        let Eval {
            suite,
            runs,
            modes,
            trials,
            judge,
            batch,
        } = self;
        let report = batch.run().await?;
        let mut figures = EvalReport::new(&suite, &runs, &modes, trials, judge, &report.results);
        figures.already_done = report.already_done;
        figures.interrupted = report.interrupted;
        Ok(figures)
    }
}
