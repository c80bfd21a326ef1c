//! The figures of a batch: success rate, median and p95 duration, tokens,
//! failures by kind.

use std::collections::BTreeMap;

use serde::Serialize;

use super::result::{TaskResult, TaskStatus};

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
}

impl Summary {
    /// `results` are the newest result of each task that has one; `tasks` counts every task.
    pub fn new(tasks: usize, results: &[TaskResult]) -> Summary {
        let mut durations: Vec<u64> = results.iter().map(|r| r.duration_ms).collect();
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
        }
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
        let s = Summary::new(5, &results);
        assert_eq!((s.ok, s.finished, s.not_run, s.tokens), (2, 4, 1, 40));
        assert!((s.success_rate - 0.4).abs() < 1e-9);
        assert_eq!((s.median_ms, s.p95_ms), (200, 400));
        assert_eq!(s.failures_text(), "1 failed, 1 crashed");
        assert!(!s.all_ok());
        assert_eq!(Summary::new(0, &[]).p95_ms, 0);
        let p: Vec<u64> = (1..=100).collect();
        assert_eq!((percentile(&p, 50.0), percentile(&p, 95.0)), (50, 95));
    }
}
