//! `sightline batch TASKS.jsonl --out results.jsonl [...]`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use sightline::batch::{Batch, Stop, TaskFile};
use sightline::{Error, Result};

use super::merge::{merge_results, MergeArgs};
use super::pool::{with_two_stage_stop, PoolArgs};
use super::progress::events_for;
use super::summary::table;
use crate::output::{print_json, print_out};

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
    /// url, vars, max_steps, allowed_domains, model, mode and evaluate.
    #[arg(value_name = "TASKS.jsonl", required = true)]
    pub tasks: Option<PathBuf>,
    /// Results file (JSON lines, appended as tasks end). Rerunning with the
    /// same file runs only the tasks without a verdict.
    #[arg(long, value_name = "FILE", required = true)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub pool: PoolArgs,
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
    let pool = &args.pool;
    // Results are appended to --out: into the task file, they would spoil it.
    if same_file(&tasks, &out) {
        return Err(Error::Batch(format!(
            "--out {} is the task file itself: results are appended to --out, so name another file",
            out.display()
        )));
    }
    // Everything that can be checked without a browser, first.
    let file = TaskFile::read(&tasks)?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(Stop::Run);
    let options = pool.batch_options(out.clone(), file.local_inputs(), stop_rx).await?;
    let mut batch = Batch::new(file, options)?;
    let progress = pool.progress(batch.plan().to_run.len(), batch.plan().already_done);
    let events = events_for(progress.as_ref(), batch.unreadable_lines());
    batch = batch.with_events(events);
    let report = with_two_stage_stop(stop_tx, progress, batch.run()).await?;
    if pool.output.json {
        print_json(&report);
    } else {
        print_out(&table(&report, &out, pool.reports.as_deref()));
    }
    let s = &report.summary;
    if report.interrupted {
        Err(Error::Interrupted)
    } else if let Some(why) = &report.outage {
        Err(Error::Batch(format!(
            "the batch stopped: {why}; {} task(s) not run (run again with the same --out to take them up)",
            s.not_run
        )))
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

/// Whether two paths name one file (through links and `..`).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}
