//! `sightline batch TASKS.jsonl --out results.jsonl [...]`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use sightline::batch::{Batch, BatchOptions, Fleet, Grid, Shard, Stop, TaskFile};
use sightline::{Error, Result};

use super::merge::{merge_results, MergeArgs};
use super::progress::Progress;
use super::summary::table;
use crate::args::{LlmArgs, OutputArgs, PageArgs};
use crate::output::{print_json, print_out};
use crate::signals::ShutdownSignals;

/// `sightline batch`: run a task file, or `merge` results files.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BatchCommand {
    #[command(subcommand)]
    pub action: Option<BatchAction>,
    #[command(flatten)]
    pub run: BatchArgs,
}

#[derive(Debug, Subcommand)]
pub enum BatchAction {
    /// Join the results files of shards (`--shard i/n`) into one.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// One task per line: `{"id","task"}` (agent), `{"id","steps":[…]}` or
    /// `{"id","extract":{"instruction","schema"}}`, each with optional
    /// url, vars, max_steps, allowed_domains and model.
    #[arg(value_name = "TASKS.jsonl", required = true)]
    pub tasks: Option<PathBuf>,
    /// Results file (JSON lines, appended as tasks end). Rerunning with the
    /// same file runs only the tasks without a verdict.
    #[arg(long, value_name = "FILE", required = true)]
    pub out: Option<PathBuf>,
    /// Workers at once (default: the CPU count; one per --cdp-endpoint; the grid's slots).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: Option<u32>,
    /// Replace a local browser after this many tasks (0: never; crashed
    /// and hung browsers are replaced at once).
    #[arg(long, value_name = "K", default_value_t = 25)]
    pub recycle_after: u32,
    /// Time limit of one task.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub task_timeout: u64,
    /// Also run again the tasks whose result is `failed` or `timeout`.
    #[arg(long)]
    pub retry_failed: bool,
    /// Write each agent task's HTML trace report here, and an index.html.
    #[arg(long, value_name = "DIR")]
    pub reports: Option<PathBuf>,
    /// Run workers on browsers that are already running (`ws://…` or
    /// `http://host:port`); repeatable.
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
    /// An extra Chromium switch for every browser (local and grid); repeatable.
    #[arg(long = "browser-arg", value_name = "SWITCH", allow_hyphen_values = true)]
    pub browser_args: Vec<String>,
    /// No live progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// `--json` prints the run's report (`{"summary","results","ran",…}`) instead of the table.
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub page: PageArgs,
    /// The model of agent and extract tasks that name none.
    #[command(flatten)]
    pub llm: LlmArgs,
}

fn parse_shard(s: &str) -> std::result::Result<Shard, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

pub async fn batch(command: BatchCommand) -> Result<()> {
    match command.action {
        Some(BatchAction::Merge(args)) => merge_results(args),
        None => run(command.run).await,
    }
}

async fn run(args: BatchArgs) -> Result<()> {
    let (Some(tasks), Some(out)) = (args.tasks.clone(), args.out.clone()) else {
        return Err(Error::Batch("give a task file and --out".into()));
    };
    // Everything that can be checked without a browser, first.
    let file = TaskFile::read(&tasks)?;
    let mut launch = args.page.launch_options()?;
    launch.extra_args.extend(args.browser_args.iter().cloned());
    let (fleet, default_concurrency) = fleet(&args).await?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(Stop::Run);
    let options = BatchOptions {
        concurrency: args.concurrency.map_or(default_concurrency, |n| n as usize),
        fleet,
        launch,
        llm: args.llm.options(),
        recycle_after: args.recycle_after,
        task_timeout: Duration::from_secs(args.task_timeout.max(1)),
        out: out.clone(),
        retry_failed: args.retry_failed,
        shard: args.shard,
        reports: args.reports.clone(),
        max_steps: args.max_steps.max(1),
        tool_timeout: Duration::from_secs(args.tool_timeout.max(1)),
        events: None,
        stop: Some(stop_rx),
    };
    let show = !args.quiet && std::io::stderr().is_terminal();
    let mut batch = Batch::new(file, options)?;
    let progress = Progress::new(batch.plan().to_run.len(), batch.plan().already_done, show);
    if let Some(p) = &progress {
        for line in batch.unreadable_lines() {
            p.note(&format!("warning: skipped an unreadable results line: {line}"));
        }
        batch = batch.with_events(p.events());
    }

    let mut signals = ShutdownSignals::new()?;
    let notes = progress.clone();
    let stopper = tokio::spawn(async move {
        signals.next().await;
        let _ = stop_tx.send(Stop::Drain);
        if let Some(p) = &notes {
            p.note("stopping: finishing the running tasks (Ctrl-C again cancels them)");
        }
        signals.next().await;
        let _ = stop_tx.send(Stop::Cancel);
        if let Some(p) = &notes {
            p.note("cancelling the running tasks");
        }
    });
    let outcome = batch.run().await;
    stopper.abort();
    if let Some(p) = &progress {
        p.finish();
    }
    let report = outcome?;
    if args.output.json {
        print_json(&report);
    } else {
        print_out(&table(&report, &out, args.reports.as_deref()));
    }
    let s = &report.summary;
    if report.interrupted {
        Err(Error::Interrupted)
    } else if s.all_ok() {
        Ok(())
    } else {
        let mut why = s.failures_text();
        if s.not_run > 0 {
            why = [why, format!("{} not run", s.not_run)]
                .into_iter()
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(", ");
        }
        Err(Error::Batch(format!(
            "{} of {} task(s) did not succeed ({why}); see {}",
            s.tasks - s.ok,
            s.tasks,
            out.display()
        )))
    }
}

/// Where the browsers come from, and how many workers suit it by default.
async fn fleet(args: &BatchArgs) -> Result<(Fleet, usize)> {
    let mut endpoints = args.cdp_endpoints.clone();
    endpoints.extend(args.page.cdp_url.iter().cloned());
    if let Some(url) = &args.grid {
        if !endpoints.is_empty() {
            return Err(Error::Batch("use either --grid or --cdp-endpoint/--cdp-url".into()));
        }
        // As many workers as the grid has slots, unless told otherwise.
        let slots = match args.concurrency {
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
