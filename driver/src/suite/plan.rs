//! A suite as batch tasks: each task once per mode and trial, under an id
//! of its own (`{task}@{mode}#{trial}`), so the batch machinery (pool, grid,
//! shards, resume, the results file) runs them like any task file.

use super::file::Suite;
use crate::agent::AgentMode;
use crate::batch::Task;

/// One run of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalRun {
    /// Its id in the results file.
    pub id: String,
    /// The suite task (an index into [`Suite::tasks`]).
    pub task: usize,
    pub mode: AgentMode,
    /// 1-based.
    pub trial: u32,
}

/// Every run of `suite`: trial by trial, each task in each mode (so a run
/// cut short has covered the modes evenly), and its batch task.
pub fn expand(suite: &Suite, modes: &[AgentMode], trials: u32) -> (Vec<Task>, Vec<EvalRun>) {
    let mut tasks = Vec::new();
    let mut runs = Vec::new();
    for trial in 1..=trials {
        for (k, t) in suite.tasks.iter().enumerate() {
            for &mode in modes {
                let id = format!("{}@{mode}#{trial}", t.id);
                let mut task = t.task.clone();
                task.id = id.clone();
                task.mode = mode;
                tasks.push(task);
                runs.push(EvalRun {
                    id,
                    task: k,
                    mode,
                    trial,
                });
            }
        }
    }
    (tasks, runs)
}
