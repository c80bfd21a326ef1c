//! The figures of a batch: success rate, median and p95 duration, tokens,
//! failures by kind, and the judged success rate beside the run's own.

use std::collections::BTreeMap;

use serde::Serialize;

use super::result::{TaskResult, TaskStatus};
use super::task::Task;
use crate::eval::Evaluation;

/// Figures over the tasks of a run (each task's newest result).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Tasks of the task file (this shard).
    pub tasks: usize,
    /// Tasks with a result.
    pub finished: usize,
    pub ok: usize,
    /// `ok / tasks`, 0 to 1.
    pub success_rate: f64,
    pub median_ms: u64,
    pub p95_ms: u64,
    pub tokens: u64,
    /// Tasks whose newest result is not ok, by status.
    pub failures: BTreeMap<TaskStatus, usize>,
    /// Tasks with no result yet (interrupted, or not reached).
    pub not_run: usize,
    /// Tasks that ask a judge (`evaluate`), and its verdicts on them.
    pub evaluated: usize,
    pub judged_yes: usize,
    pub judged_no: usize,
    pub judged_invalid: usize,
    /// Of the INVALID verdicts, those the judge could not be asked for
    /// (an outage, a timeout): `--retry-failed` asks again.
    pub unjudged: usize,
    /// `judged_yes / evaluated`, 0 to 1: a task that asks and got no verdict
    /// (timed out, crashed, not run) counts as not done. None when no task asks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged_success_rate: Option<f64>,
}

impl Summary {
    /// `results` are the newest result of each of `tasks` that has one.
    pub fn new(task_list: &[Task], results: &[TaskResult]) -> Summary {
        let tasks = task_list.len();
        let asking: Vec<&str> = task_list
            .iter()
            .filter(|t| t.evaluate.is_some())
            .map(|t| t.id.as_str())
            .collect();
        let verdicts = |e: Evaluation| {
            results
                .iter()
                .filter(|r| asking.contains(&r.id.as_str()))
                .filter(|r| r.verdict.as_ref().is_some_and(|v| v.evaluation == e))
                .count()
        };
        let judged_yes = verdicts(Evaluation::Yes);
        // (A task Ctrl-C cut short, or one that never had a browser, says
        // nothing of how long tasks take.)
        let mut durations: Vec<u64> = results
            .iter()
            .filter(|r| r.status != TaskStatus::Skipped)
            .map(|r| r.duration_ms)
            .collect();
        durations.sort_unstable();
        let ok = results.iter().filter(|r| r.status == TaskStatus::Ok).count();
        let mut failures = BTreeMap::new();
        for r in results.iter().filter(|r| r.status != TaskStatus::Ok) {
            *failures.entry(r.status).or_insert(0) += 1;
        }
        Summary {
            tasks,
            finished: results.len(),
            ok,
            success_rate: if tasks == 0 { 0.0 } else { ok as f64 / tasks as f64 },
            median_ms: percentile(&durations, 50.0),
            p95_ms: percentile(&durations, 95.0),
            tokens: results.iter().map(|r| r.tokens).sum(),
            failures,
            not_run: tasks.saturating_sub(results.len()),
            evaluated: asking.len(),
            judged_yes,
            judged_no: verdicts(Evaluation::No),
            judged_invalid: verdicts(Evaluation::Invalid),
            unjudged: results
                .iter()
                .filter(|r| asking.contains(&r.id.as_str()))
                .filter(|r| r.verdict.as_ref().is_some_and(|v| v.unjudged))
                .count(),
            judged_success_rate: (!asking.is_empty()).then(|| judged_yes as f64 / asking.len() as f64),
        }
    }

    /// `3 of 4 judged YES (75.0%; 1 NO)`, or None when no task asks a judge.
    pub fn judged_text(&self) -> Option<String> {
        let rate = self.judged_success_rate?;
        let mut others = Vec::new();
        if self.judged_no > 0 {
            others.push(format!("{} NO", self.judged_no));
        }
        if self.judged_invalid > self.unjudged {
            others.push(format!("{} INVALID", self.judged_invalid - self.unjudged));
        }
        if self.unjudged > 0 {
            others.push(format!(
                "{} the judge could not be asked about: --retry-failed asks again",
                self.unjudged
            ));
        }
        let unjudged = self.evaluated - self.judged_yes - self.judged_no - self.judged_invalid;
        if unjudged > 0 {
            others.push(format!("{unjudged} without a verdict"));
        }
        let others = if others.is_empty() {
            String::new()
        } else {
            format!("; {}", others.join(", "))
        };
        Some(format!(
            "{} of {} judged YES ({:.1}%{others})",
            self.judged_yes,
            self.evaluated,
            rate * 100.0
        ))
    }

    /// Every task ended ok.
    pub fn all_ok(&self) -> bool {
        self.ok == self.tasks
    }

    /// `2 failed, 1 crashed`.
    pub fn failures_text(&self) -> String {
        self.failures
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Nearest-rank percentile of sorted values (0 when there are none).
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures() {
        let mut results = Vec::new();
        for (i, status) in [TaskStatus::Ok, TaskStatus::Ok, TaskStatus::Crashed, TaskStatus::Failed]
            .into_iter()
            .enumerate()
        {
            let mut r = TaskResult::new(&format!("t{i}"), status, 1);
            r.duration_ms = (i as u64 + 1) * 100;
            r.tokens = 10;
            results.push(r);
        }
        let tasks: Vec<Task> = (0..5)
            .map(|i| {
                crate::batch::parse_tasks(
                    &format!("{{\"id\": \"t{i}\", \"task\": \"x\", \"evaluate\": {}}}", i < 3),
                    std::path::Path::new("."),
                )
                .unwrap()
                .remove(0)
            })
            .collect();
        results[0].verdict = Some(crate::eval::Verdict::invalid("junk"));
        results[1].verdict = Some(crate::eval::Verdict {
            evaluation: Evaluation::Yes,
            reasoning: "green".into(),
            unjudged: false,
            judged: None,
        });
        let s = Summary::new(&tasks, &results);
        assert_eq!((s.evaluated, s.judged_yes, s.judged_invalid), (3, 1, 1));
        assert_eq!(
            s.judged_text().as_deref(),
            Some("1 of 3 judged YES (33.3%; 1 INVALID, 1 without a verdict)")
        );
        assert_eq!((s.ok, s.finished, s.not_run, s.tokens), (2, 4, 1, 40));
        assert!((s.success_rate - 0.4).abs() < 1e-9);
        assert_eq!((s.median_ms, s.p95_ms), (200, 400));
        assert_eq!(s.failures_text(), "1 failed, 1 crashed");
        assert!(!s.all_ok());
        assert_eq!(Summary::new(&[], &[]).p95_ms, 0);
        // A task Ctrl-C cut short at once is no measure of a task's time.
        for id in ["t4", "t5"] {
            results.push(TaskResult::new(id, TaskStatus::Skipped, 1));
        }
        let s = Summary::new(&tasks, &results);
        assert_eq!((s.median_ms, s.finished), (200, 6));
        assert_eq!(Summary::new(&[], &[]).judged_text(), None);
        let p: Vec<u64> = (1..=100).collect();
        assert_eq!((percentile(&p, 50.0), percentile(&p, 95.0)), (50, 95));
    }
}
