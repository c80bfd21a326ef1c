//! Which tasks a run takes on: this shard's slice of the task file, minus
//! what the results file already holds a verdict for.

use std::str::FromStr;

use super::result::TaskStatus;
use super::results_file::ResultLog;
use super::task::Task;
use crate::error::Error;

/// `--shard i/n`: the i-th (1-based) of n slices of the task file. Task k
/// (0-based, in file order) belongs to slice `k % n + 1`, so slices stay
/// balanced whatever the file's order, and every machine needs only the
/// file and its own `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn holds(&self, position: usize) -> bool {
        position % self.count + 1 == self.index
    }
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Shard, Error> {
        let bad = || Error::Batch(format!("--shard expects i/n with 1 ≤ i ≤ n (e.g. 2/4), got {s:?}"));
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// A task to run and the attempt this will be.
#[derive(Debug, Clone)]
pub struct Planned {
    pub task: Task,
    pub attempt: u32,
}

/// What this run does.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The tasks of this shard, in file order.
    pub tasks: Vec<Task>,
    pub to_run: Vec<Planned>,
    /// Tasks of this shard left alone because the results file has their verdict.
    pub already_done: usize,
}

impl Plan {
    /// Plans a run of `tasks` against the results already in `log`: tasks with
    /// no result, or a crashed or skipped one, run; `failed` and `timeout`
    /// run again only with `retry_failed`, and so does an `ok` one the judge
    /// could not be asked about (its verdict is the run's point, and the
    /// outage says nothing of the run); any other `ok` never.
    pub fn new(tasks: &[Task], shard: Option<Shard>, log: &ResultLog, retry_failed: bool) -> Plan {
        let tasks: Vec<Task> = tasks
            .iter()
            .enumerate()
            .filter(|(k, _)| shard.is_none_or(|s| s.holds(*k)))
            .map(|(_, t)| t.clone())
            .collect();
        let mut to_run = Vec::new();
        let mut already_done = 0;
        for task in &tasks {
            let previous = log.get(&task.id);
            let run = match previous.map(|r| r.status) {
                None => true,
                Some(TaskStatus::Ok) => {
                    retry_failed && previous.is_some_and(|r| r.verdict.as_ref().is_some_and(|v| v.unjudged))
                }
                Some(TaskStatus::Failed | TaskStatus::Timeout) => retry_failed,
                Some(status) => !status.is_final(),
            };
            if run {
                to_run.push(Planned {
                    task: task.clone(),
                    attempt: previous.map_or(1, |r| r.attempts + 1),
                });
            } else {
                already_done += 1;
            }
        }
        Plan {
            tasks,
            to_run,
            already_done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::result::TaskResult;
    use super::super::task_file::parse_tasks;
    use super::*;

    fn tasks(n: usize) -> Vec<Task> {
        let text: String = (0..n)
            .map(|i| format!("{{\"id\": \"t{i}\", \"steps\": [{{\"method\": \"reload\"}}]}}\n"))
            .collect();
        parse_tasks(&text, std::path::Path::new(".")).unwrap()
    }

    #[test]
    fn shards_cover_the_file_once() {
        let all = tasks(7);
        let log = ResultLog::default();
        let mut seen = Vec::new();
        for i in 1..=3 {
            let shard: Shard = format!("{i}/3").parse().unwrap();
            let plan = Plan::new(&all, Some(shard), &log, false);
            assert!(plan.tasks.len() >= 2);
            seen.extend(plan.tasks.into_iter().map(|t| t.id));
        }
        seen.sort();
        let mut want: Vec<_> = all.iter().map(|t| t.id.clone()).collect();
        want.sort();
        assert_eq!(seen, want);
        for bad in ["0/2", "3/2", "1", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn reruns_skip_verdicts_and_retry_failures_when_asked() {
        let all = tasks(5);
        let mut log = ResultLog::default();
        for (id, status, attempts) in [
            ("t0", TaskStatus::Ok, 1),
            ("t1", TaskStatus::Failed, 1),
            ("t2", TaskStatus::Crashed, 1),
            ("t3", TaskStatus::Timeout, 2),
        ] {
            log.latest.push(TaskResult::new(id, status, attempts));
        }
        let plan = Plan::new(&all, None, &log, false);
        let ids: Vec<_> = plan.to_run.iter().map(|p| (p.task.id.as_str(), p.attempt)).collect();
        assert_eq!(ids, [("t2", 2), ("t4", 1)]);
        assert_eq!(plan.already_done, 3);
        let plan = Plan::new(&all, None, &log, true);
        let ids: Vec<_> = plan.to_run.iter().map(|p| (p.task.id.as_str(), p.attempt)).collect();
        assert_eq!(ids, [("t1", 2), ("t2", 2), ("t3", 3), ("t4", 1)]);
    }
}
