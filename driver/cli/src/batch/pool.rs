//! The flags every command that runs tasks on the batch machinery shares
//! (`batch`, `eval`): the pool, running browsers or grid, shards, limits,
//! reports, the model and the judge; and running such a batch with live
//! progress and two-stage Ctrl-C.

use std::future::Future;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use sightline::batch::{BatchOptions, Fleet, Grid, Shard, Stop};
use sightline::{Error, LocalInputs, Result};

use super::progress::Progress;
use crate::args::{FileAccessArgs, JudgeArgs, LlmArgs, OutputArgs, PageArgs};
use crate::signals::ShutdownSignals;

#[derive(Debug, Args)]
pub struct PoolArgs {
    /// Workers at once (default: the CPU count; one per --cdp-endpoint; the grid's slots).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: Option<u32>,
    /// Replace a local browser after this many tasks (0: never; crashed
    /// and hung browsers are replaced at once).
    #[arg(long, value_name = "K", default_value_t = 25)]
    pub recycle_after: u32,
    /// Time limit of one task (at least 1).
    #[arg(long, value_name = "SECS", default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    pub task_timeout: u64,
    /// Also run again the tasks whose result is `failed` or `timeout`, and those the judge could not be
    /// asked about (an outage: their verdict is INVALID with `unjudged`).
    #[arg(long)]
    pub retry_failed: bool,
    /// Write each agent task's HTML trace report here, and an index.html.
    #[arg(long, value_name = "DIR")]
    pub reports: Option<PathBuf>,
    /// Run workers on browsers that are already running (`ws://…` or
    /// `http://host:port`); repeatable (--cdp-url adds one more).
    #[arg(long = "cdp-endpoint", value_name = "URL")]
    pub cdp_endpoints: Vec<String>,
    /// Give each task a Chromium session of this Selenium Grid 4 (e.g. `http://127.0.0.1:4444`).
    #[arg(long, value_name = "URL", conflicts_with = "cdp_endpoints")]
    pub grid: Option<String>,
    /// Run only the i-th of n slices of the task file (e.g. `2/4`).
    #[arg(long, value_name = "i/n", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Model turns of agent tasks that set no max_steps.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_steps: u32,
    /// Time limit of one agent tool call.
    #[arg(long, value_name = "SECS", default_value_t = 45)]
    pub tool_timeout: u64,
    /// An extra Chromium switch for every browser (local and grid), as
    /// --chrome-arg (both count); repeatable.
    #[arg(long = "browser-arg", value_name = "SWITCH", allow_hyphen_values = true)]
    pub browser_args: Vec<String>,
    /// No live progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// `--json` prints the run's report instead of the table.
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub page: PageArgs,
    #[command(flatten)]
    pub files: FileAccessArgs,
    /// The model of agent and extract tasks that name none.
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

fn parse_shard(s: &str) -> std::result::Result<Shard, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

impl PoolArgs {
    /// The batch options these flags give, writing results to `out`;
    /// `inputs`: the local files the task file or suite names, which its
    /// tasks may open and upload.
    pub async fn batch_options(
        &self,
        out: PathBuf,
        inputs: LocalInputs,
        stop: tokio::sync::watch::Receiver<Stop>,
    ) -> Result<BatchOptions> {
        let mut launch = self.page.launch_options()?;
        launch.origins.files = self.files.policy(inputs)?;
        launch.extra_args.extend(self.browser_args.iter().cloned());
        let (fleet, default_concurrency) = self.fleet().await?;
        Ok(BatchOptions {
            concurrency: self.concurrency.map_or(default_concurrency, |n| n as usize),
            fleet,
            launch,
            llm: self.llm.options(),
            judge: self.judge.options(&self.llm),
            recycle_after: self.recycle_after,
            task_timeout: Duration::from_secs(self.task_timeout),
            out,
            retry_failed: self.retry_failed,
            shard: self.shard,
            reports: self.reports.clone(),
            evidence: None,
            max_steps: self.max_steps.max(1),
            tool_timeout: Duration::from_secs(self.tool_timeout.max(1)),
            events: None,
            stop: Some(stop),
        })
    }

    /// Live progress on stderr, unless `--quiet` or stderr is no terminal.
    pub fn progress(&self, total: usize, already_done: usize) -> Option<Arc<Progress>> {
        Progress::new(total, already_done, !self.quiet && std::io::stderr().is_terminal())
    }

    /// Where the browsers come from, and how many workers suit it by default.
    async fn fleet(&self) -> Result<(Fleet, usize)> {
        let mut endpoints = self.cdp_endpoints.clone();
        endpoints.extend(self.page.cdp_url.iter().cloned());
        if let Some(url) = &self.grid {
            if !endpoints.is_empty() {
                return Err(Error::Batch("use either --grid or --cdp-endpoint/--cdp-url".into()));
            }
            // As many workers as the grid has slots, unless told otherwise.
            let slots = match self.concurrency {
                Some(_) => 1,
                None => Grid::new(url)?.slots().await?.max(1),
            };
            return Ok((Fleet::Grid(url.clone()), slots));
        }
        if !endpoints.is_empty() {
            let n = endpoints.len();
            return Ok((Fleet::Endpoints(endpoints), n));
        }
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        Ok((Fleet::Local, cpus))
    }
}

/// Runs `run` while Ctrl-C stops it in two stages: the first drains (no new
/// task; the running ones finish), the second cancels the running ones.
pub async fn with_two_stage_stop<T>(
    stop: tokio::sync::watch::Sender<Stop>,
    progress: Option<Arc<Progress>>,
    run: impl Future<Output = Result<T>>,
) -> Result<T> {
    let mut signals = ShutdownSignals::new()?;
    let notes = progress.clone();
    let stopper = tokio::spawn(async move {
        signals.next().await;
        let _ = stop.send(Stop::Drain);
        if let Some(p) = &notes {
            p.note("stopping: finishing the running tasks (Ctrl-C again cancels them)");
        }
        signals.next().await;
        let _ = stop.send(Stop::Cancel);
        if let Some(p) = &notes {
            p.note("cancelling the running tasks");
        }
    });
    let outcome = run.await;
    stopper.abort();
    if let Some(p) = &progress {
        p.finish();
    }
    outcome
}
