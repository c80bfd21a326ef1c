//! Judging a suite's runs again from the evidence kept when they ran
//! (`sightline eval SUITE --rejudge OLD.jsonl --out NEW.jsonl`): another
//! judge, or the same one with a better prompt, over exactly what the first
//! judge was shown, with no browser and no agent. The old results stay as
//! they are; the new file holds each run with its new verdict, and resumes
//! as any results file does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::stream::{self, StreamExt};
use serde::Serialize;

use super::figures::EvalReport;
use super::file::Suite;
use super::plan::expand;
use crate::agent::AgentMode;
use crate::batch::{ResultLog, ResultWriter, TaskResult};
use crate::error::{Error, Result};
use crate::eval::kept::{located, named, read_kept, results_dir};
use crate::eval::{Evaluation, Evaluator, Verdict};
use crate::llm::{Llm, LlmOptions};

/// What to judge again, and with which judge.
#[derive(Debug, Clone)]
pub struct RejudgeOptions {
    /// The results file of the runs, with their kept evidence.
    pub from: PathBuf,
    /// The new results file (not `from`).
    pub out: PathBuf,
    pub judge: LlmOptions,
    /// Judge calls at once.
    pub concurrency: usize,
    /// Longest wait for one judgment.
    pub timeout: Duration,
}

/// What a re-judging did, run by run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rejudged {
    /// Judged again from their evidence.
    pub judged: usize,
    /// The judge did not answer (an outage): `unjudged`, asked again by
    /// the same command.
    pub unanswered: usize,
    /// Copied as they were: they had no verdict to give again (timed out,
    /// crashed, or stopped before their end: `--retry-failed` runs them).
    pub copied: usize,
    /// Had a new verdict in `out` already (a resumed re-judging).
    pub already: usize,
    /// Could not be judged again (no evidence kept, or unreadable): INVALID
    /// and `unjudged`, saying why.
    pub without_evidence: usize,
    /// Runs of `from` outside the plan (other modes, trials or tasks: not
    /// this suite's).
    pub outside_plan: usize,
    /// Runs of the plan `from` does not hold (an eval cut short, more
    /// trials asked for than it ran): left out of the figures.
    pub not_in_source: usize,
    /// Answers of the judge that could not be read (INVALID): counted in
    /// the figures as no success, and asked again by the same command.
    pub unreadable: usize,
}

/// The modes and the number of trials of the runs in results file `from`
/// (ids `{task}@{mode}#{trial}`), modes in the order first met.
pub fn planned_in(from: &Path) -> Result<(Vec<AgentMode>, u32)> {
    results_file(from)?;
    let log = ResultLog::read(from)?;
    let mut modes = Vec::new();
    let mut trials = 0;
    for r in &log.latest {
        let Some((_, run)) = r.id.rsplit_once('@') else {
            continue;
        };
        let Some((mode, trial)) = run.split_once('#') else {
            continue;
        };
        if let (Ok(mode), Ok(trial)) = (mode.parse::<AgentMode>(), trial.parse::<u32>()) {
            if !modes.contains(&mode) {
                modes.push(mode);
            }
            trials = trials.max(trial);
        }
    }
    if modes.is_empty() {
        return Err(Error::Eval(format!(
            "{} holds no eval run (ids `task@mode#trial`): --rejudge takes the results file of an earlier `sightline \
eval`",
            from.display()
        )));
    }
    Ok((modes, trials))
}

/// Judges again every run of `suite` in `modes` × `trials` that `opts.from`
/// holds, writing the results to `opts.out`; the report is `out`'s figures.
pub async fn rejudge(
    suite: &Suite,
    modes: &[AgentMode],
    trials: u32,
    opts: &RejudgeOptions,
) -> Result<(EvalReport, Rejudged)> {
    results_file(&opts.from)?;
    if same_file(&opts.from, &opts.out) {
        return Err(Error::Eval(
            "--rejudge reads one results file and --out writes another: give --out a new file (the old verdicts stay)"
                .into(),
        ));
    }
    let judge = Llm::new(opts.judge.clone())?;
    let spec = judge.model_spec();
    let old = ResultLog::read(&opts.from)?;
    let done = ResultLog::read(&opts.out)?;
    // A file with another judge's verdicts (or verdicts naming no judge)
    // would mix two judges in one table.
    let judged_by = |r: &TaskResult| r.verdict.as_ref().is_some_and(|v| !v.unjudged).then(|| r.judge.clone());
    if let Some(other) = done
        .latest
        .iter()
        .filter_map(judged_by)
        .find(|j| j.as_deref() != Some(&spec))
    {
        return Err(Error::Eval(format!(
            "{} holds verdicts of {}, not of {spec}: give --out a new file",
            opts.out.display(),
            other.map_or("a judge it does not name".into(), |j| format!("the judge {j}"))
        )));
    }
    let (_, runs) = expand(suite, modes, trials);
    let mut tally = Rejudged {
        outside_plan: old.latest.iter().filter(|r| !runs.iter().any(|p| p.id == r.id)).count(),
        not_in_source: runs.iter().filter(|p| old.get(&p.id).is_none()).count(),
        ..Rejudged::default()
    };
    if runs.iter().all(|p| old.get(&p.id).is_none()) {
        return Err(Error::Eval(format!(
            "{} holds none of this suite's runs in these modes and trials: give the suite it ran (and its --modes \
and --trials)",
            opts.from.display()
        )));
    }
    let mut writer = ResultWriter::open(&opts.out)?;
    let (old_dir, new_dir) = (results_dir(&opts.from), results_dir(&opts.out));
    let mut to_judge = Vec::new();
    for run in &runs {
        let Some(was) = old.get(&run.id) else {
            continue;
        };
        // Nothing to judge again: a run with no verdict (it timed out), or
        // one that did not reach its end, which its judge never saw (run
        // it again with `sightline eval --retry-failed`).
        let never_judged = match &was.verdict {
            None => true,
            Some(v) => v.unjudged && was.evidence.is_none(),
        };
        // Resumed: what has its new verdict, was copied, or has no evidence
        // to judge (asking again would not change that) stays.
        let kept = done.get(&run.id).is_some_and(|r| {
            r.verdict
                .as_ref()
                .is_none_or(|v| !v.unjudged && v.evaluation != Evaluation::Invalid)
                || (never_judged && r.verdict == was.verdict)
                || was.evidence.is_none()
        });
        if kept {
            tally.already += 1;
            continue;
        }
        if never_judged {
            writer.append(was)?;
            tally.copied += 1;
            continue;
        }
        to_judge.push(was.clone());
    }
    let evaluator = Evaluator::new(&judge);
    let judging = stream::iter(to_judge)
        .map(|was| {
            let evaluator = &evaluator;
            let old_dir = &old_dir;
            async move {
                let kept = match &was.evidence {
                    Some(recorded) => read_kept(old_dir, recorded),
                    None => Err(Error::Eval(
                        "no evidence was kept of this run (it ran before `sightline eval` kept evidence): it cannot \
be judged again without running it"
                            .into(),
                    )),
                };
                let outcome = match kept {
                    Ok(evidence) => Ok(
                        match tokio::time::timeout(opts.timeout, evaluator.evaluate(&evidence)).await {
                            Ok(Ok(verdict)) => verdict,
                            Ok(Err(e)) => Verdict::unjudged(format!("the judge could not be asked: {e}")),
                            Err(_) => Verdict::unjudged(format!(
                                "the judge did not answer within {}",
                                crate::time::spoken(opts.timeout)
                            )),
                        },
                    ),
                    Err(e) => Err(e),
                };
                (was, outcome)
            }
        })
        .buffer_unordered(opts.concurrency.max(1));
    tokio::pin!(judging);
    while let Some((was, outcome)) = judging.next().await {
        let mut now = TaskResult {
            evidence: was.evidence.as_deref().map(|r| named(&located(&old_dir, r), &new_dir)),
            judge: None,
            ..was.clone()
        };
        match outcome {
            Ok(verdict) if verdict.unjudged => {
                now.verdict = Some(verdict);
                tally.unanswered += 1;
            }
            Ok(verdict) => {
                if verdict.evaluation == Evaluation::Invalid {
                    tally.unreadable += 1;
                }
                now.verdict = Some(verdict);
                now.judge = Some(spec.clone());
                tally.judged += 1;
            }
            Err(why) => {
                now.verdict = Some(Verdict::unjudged(why.to_string()));
                tally.without_evidence += 1;
            }
        }
        writer.append(&now)?;
    }
    let mut report = figures(suite, modes, trials, &old, &opts.out, spec)?;
    report.already_done = tally.already;
    Ok((report, tally))
}

/// The figures of what `opts.out` holds, over the runs of `suite` in
/// `modes` × `trials` that `opts.from` holds (a run the old file never had,
/// one an interrupted eval did not reach, is no failed run): also of a
/// re-judging cut short. `judge`: the judge's `provider/model`.
pub fn report_of(
    suite: &Suite,
    modes: &[AgentMode],
    trials: u32,
    opts: &RejudgeOptions,
    judge: String,
) -> Result<EvalReport> {
    figures(suite, modes, trials, &ResultLog::read(&opts.from)?, &opts.out, judge)
}

/// [`report_of`] with the old results read.
fn figures(
    suite: &Suite,
    modes: &[AgentMode],
    trials: u32,
    old: &ResultLog,
    out: &Path,
    judge: String,
) -> Result<EvalReport> {
    let (_, runs) = expand(suite, modes, trials);
    let ran: Vec<_> = runs.into_iter().filter(|p| old.get(&p.id).is_some()).collect();
    let results = ResultLog::read(out)?;
    Ok(EvalReport::new(suite, &ran, modes, trials, judge, &results.latest))
}

/// `from` is a file, or the error says so.
fn results_file(from: &Path) -> Result<()> {
    if from.is_file() {
        return Ok(());
    }
    Err(Error::NoSuchFile {
        path: from.to_path_buf(),
        hint: Some(" (--rejudge takes the results file of an earlier `sightline eval`)".into()),
    })
}

/// Whether `a` and `b` name one file (through `..`, links and all).
fn same_file(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = std::fs::canonicalize(p) {
            return Some(c);
        }
        // (Not there yet: its folder's canonical path and its name.)
        let dir = std::fs::canonicalize(results_dir(p)).ok()?;
        Some(dir.join(p.file_name()?))
    };
    match (canonical(a), canonical(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}
