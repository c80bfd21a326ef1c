//! Judging a suite's runs again from the evidence kept when they ran
//! (`sightline eval SUITE --rejudge OLD.jsonl --out NEW.jsonl`): another
//! judge, or the same one with a better prompt, over exactly what the first
//! judge was shown, with no browser and no agent. The old results stay as
//! they are; the new file holds each run with its new verdict, and resumes
//! as any results file does.

use std::path::{Path, PathBuf};

use futures::stream::{self, StreamExt};

use super::figures::EvalReport;
use super::file::Suite;
use super::plan::expand;
use crate::agent::AgentMode;
use crate::batch::{ResultLog, ResultWriter, TaskResult};
use crate::error::{Error, Result};
use crate::eval::kept::{located, named, read_kept, results_dir};
use crate::eval::{Evaluator, Verdict};
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
}

/// What a re-judging did, run by run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rejudged {
    /// Judged again from their evidence.
    pub judged: usize,
    /// Copied as they were: they had no verdict to give again (timed out,
    /// crashed, or never judged).
    pub copied: usize,
    /// Had a new verdict in `out` already (a resumed re-judging).
    pub already: usize,
    /// Could not be judged again (no evidence kept, or unreadable): INVALID
    /// and `unjudged`, saying why.
    pub without_evidence: usize,
}

/// Judges again every run of `suite` in `modes` × `trials` that `opts.from`
/// holds, writing the results to `opts.out`; the report is `out`'s figures.
pub async fn rejudge(
    suite: &Suite,
    modes: &[AgentMode],
    trials: u32,
    opts: &RejudgeOptions,
) -> Result<(EvalReport, Rejudged)> {
    let same = |a: &Path, b: &Path| match (std::path::absolute(a), std::path::absolute(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if same(&opts.from, &opts.out) {
        return Err(Error::Eval(
            "--rejudge reads one results file and --out writes another: give --out a new file (the old verdicts stay)"
                .into(),
        ));
    }
    if !opts.from.is_file() {
        return Err(Error::NoSuchFile {
            path: opts.from.clone(),
            hint: Some(" (--rejudge takes the results file of an earlier `sightline eval`)".into()),
        });
    }
    let judge = Llm::new(opts.judge.clone())?;
    let spec = judge.model_spec();
    let old = ResultLog::read(&opts.from)?;
    let done = ResultLog::read(&opts.out)?;
    let mut writer = ResultWriter::open(&opts.out)?;
    let (old_dir, new_dir) = (results_dir(&opts.from), results_dir(&opts.out));
    let (_, runs) = expand(suite, modes, trials);
    let mut tally = Rejudged::default();
    let mut to_judge = Vec::new();
    for run in &runs {
        let Some(was) = old.get(&run.id) else {
            continue;
        };
        // Resumed: what has its new verdict (or needed none) stays.
        if done
            .get(&run.id)
            .is_some_and(|r| r.verdict.as_ref().is_none_or(|v| !v.unjudged))
        {
            tally.already += 1;
            continue;
        }
        if was.verdict.is_none() {
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
                        "no evidence was kept of this run (it ran before `sightline eval` kept it): it cannot be \
judged again without running it"
                            .into(),
                    )),
                };
                let outcome = match kept {
                    // (An outage is `unjudged`: a rerun asks again.)
                    Ok(evidence) => Ok(evaluator
                        .evaluate(&evidence)
                        .await
                        .unwrap_or_else(|e| Verdict::unjudged(format!("the judge could not be asked: {e}")))),
                    Err(e) => Err(e),
                };
                (was, outcome)
            }
        })
        .buffer_unordered(opts.concurrency.max(1));
    tokio::pin!(judging);
    while let Some((was, verdict)) = judging.next().await {
        let mut now = TaskResult {
            evidence: was.evidence.as_deref().map(|r| named(&located(&old_dir, r), &new_dir)),
            ..was.clone()
        };
        match verdict {
            Ok(verdict) => {
                now.verdict = Some(verdict);
                now.judge = Some(spec.clone());
                tally.judged += 1;
            }
            Err(why) => {
                now.verdict = Some(Verdict::unjudged(why.to_string()));
                now.judge = None;
                tally.without_evidence += 1;
            }
        }
        writer.append(&now)?;
    }
    let results = ResultLog::read(&opts.out)?;
    let mut report = EvalReport::new(suite, &runs, modes, trials, spec, &results.latest);
    report.already_done = tally.already;
    Ok((report, tally))
}
