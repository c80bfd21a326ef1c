//! `sightline eval SUITE --out results.jsonl [--modes dom,hybrid,cua] [--trials N] …`,
//! and `--rejudge OLD.jsonl`: those runs judged again, nothing run.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use sightline::batch::Stop;
use sightline::suite::{planned_in, rejudge, report_of, Eval, EvalOptions, RejudgeOptions, Rejudged, Suite};
use sightline::{AgentMode, Error, Result};

use super::table::{tables, Rejudging};
use crate::batch::{events_for, with_two_stage_stop, PoolArgs};
use crate::output::{print_json, print_out};

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The suite: WebVoyager JSON lines (`web_name`, `id`, `ques`, `web`),
    /// Online-Mind2Web (`task_id`, `confirmed_task`, `website`,
    /// `reference_length`, `level`; a JSON array or JSON lines), or
    /// Sightline's agent task lines.
    #[arg(value_name = "SUITE")]
    pub suite: PathBuf,
    /// Results file: one line per run (`{task}@{mode}#{trial}`), appended as
    /// runs end. Rerun with the same file to run only what has no verdict.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The agent's modes, each task run in every one: dom, hybrid, cua
    /// (default: dom; with --rejudge, those of its runs).
    #[arg(long, value_name = "MODES", value_delimiter = ',', value_parser = parse_mode)]
    pub modes: Vec<AgentMode>,
    /// Runs of each task in each mode (default: 1; with --rejudge, as its runs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
    pub trials: Option<u32>,
    /// Resolve the suite's relative page addresses against this URL (a
    /// local server, a mirror; end it with `/`) instead of the suite file's folder.
    #[arg(long, value_name = "URL")]
    pub web_base: Option<String>,
    /// Run nothing: judge again the runs of this earlier results file from
    /// the evidence kept beside it (what its judge was shown), with
    /// --judge-model (or --model), writing the new verdicts to a new --out;
    /// --concurrency judge calls at once (default 4), each within
    /// --task-timeout. Each run's evidence (its screenshots, final page and
    /// claims) is kept in a folder beside --out (`eval.jsonl` →
    /// `eval.evidence/`).
    #[arg(long, value_name = "RESULTS", conflicts_with_all = ["retry_failed", "reports", "shard", "grid", "cdp_endpoints"])]
    pub rejudge: Option<PathBuf>,
    #[command(flatten)]
    pub pool: PoolArgs,
}

fn parse_mode(s: &str) -> std::result::Result<AgentMode, String> {
    s.parse()
}

pub async fn eval(args: EvalArgs) -> Result<()> {
    // The whole suite is checked before any browser starts.
    let suite = Suite::read(&args.suite, args.web_base.as_deref())?;
    if let Some(from) = &args.rejudge {
        return rejudge_only(&args, &suite, from).await;
    }
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(Stop::Run);
    let mut batch = args
        .pool
        .batch_options(args.out.clone(), suite.local_inputs(), stop_rx)
        .await?;
    batch.evidence = Some(args.out.with_extension("evidence"));
    let options = EvalOptions {
        modes: if args.modes.is_empty() {
            vec![AgentMode::Dom]
        } else {
            args.modes.clone()
        },
        trials: args.trials.unwrap_or(1),
        batch,
    };
    let mut eval = Eval::new(suite, options)?;
    let plan = eval.batch().plan();
    let progress = args.pool.progress(plan.to_run.len(), plan.already_done);
    let events = events_for(progress.as_ref(), eval.batch().unreadable_lines());
    eval = eval.with_events(events);
    let report = with_two_stage_stop(stop_tx, progress, eval.run()).await?;
    if args.pool.output.json {
        print_json(&report);
    } else {
        print_out(&tables(&report, &args.out, args.pool.reports.as_deref(), None));
    }
    if report.interrupted {
        return Err(Error::Interrupted);
    }
    judged_something(&report, false)
}

/// `--rejudge`: the earlier runs judged again, nothing run.
async fn rejudge_only(args: &EvalArgs, suite: &Suite, from: &std::path::Path) -> Result<()> {
    let opts = RejudgeOptions {
        from: from.to_path_buf(),
        out: args.out.clone(),
        judge: args
            .pool
            .judge
            .options(&args.pool.llm)
            .unwrap_or_else(|| args.pool.llm.options()),
        concurrency: args.pool.concurrency.map_or(REJUDGE_CONCURRENCY, |n| n as usize),
        timeout: Duration::from_secs(args.pool.task_timeout),
    };
    // The modes and trials the runs had, unless told.
    let (modes, trials) = match (args.modes.is_empty(), args.trials) {
        (false, Some(trials)) => (args.modes.clone(), trials),
        (empty, trials) => {
            let (modes, found) = planned_in(from)?;
            (if empty { modes } else { args.modes.clone() }, trials.unwrap_or(found))
        }
    };
    // Ctrl-C stops the judging: every verdict given is in --out already
    // (the same command resumes), and the figures are of what it holds.
    let (report, rejudged) = tokio::select! {
        done = rejudge(suite, &modes, trials, &opts) => done?,
        _ = tokio::signal::ctrl_c() => {
            let judge = sightline::Llm::new(opts.judge.clone())?.model_spec();
            let mut report = report_of(suite, &modes, trials, &opts, judge)?;
            report.interrupted = true;
            (report, Rejudged::default())
        }
    };
    if args.pool.output.json {
        let mut json = serde_json::to_value(&report).expect("the report serialises");
        json["rejudged"] = serde_json::to_value(&rejudged).expect("the tally serialises");
        print_json(&json);
    } else {
        // (Cut short, the tally is not known: the figures are.)
        let said = (!report.interrupted).then_some(Rejudging { from, done: &rejudged });
        print_out(&tables(&report, &args.out, None, said));
    }
    if report.interrupted {
        return Err(Error::Interrupted);
    }
    judged_something(&report, true)
}

/// Judge calls at once when re-judging (no browsers: the provider's rate
/// limit is the bound).
const REJUDGE_CONCURRENCY: usize = 4;

/// A suite of which no run could be judged measured nothing: said with a
/// failing status, so a CI step does not pass on an outage.
fn judged_something(report: &sightline::suite::EvalReport, rejudging: bool) -> Result<()> {
    let figures = report.by_mode.iter().map(|m| &m.figures);
    let unjudged: usize = figures.clone().map(|f| f.unjudged).sum();
    let judged: usize = figures.map(|f| f.judged_yes + f.judged_no).sum();
    if unjudged > 0 && judged == 0 {
        return Err(Error::Eval(if rejudging {
            format!(
                "no run could be judged again ({unjudged} not judged: the judge did not answer, or no evidence was \
kept; see their verdicts): run the same --rejudge once it answers"
            )
        } else {
            format!(
                "no run could be judged ({unjudged} not judged: the judge, or the agent's model, did not answer): run \
again with --retry-failed once they answer"
            )
        }));
    }
    Ok(())
}
