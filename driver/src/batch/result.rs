//! What a task ended with: one line of the results file.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::eval::Verdict;

/// How a task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    /// The task did what it was asked.
    Ok,
    /// The task ran and did not succeed (a step failed, the agent gave up…).
    Failed,
    /// `--task-timeout` ran out.
    Timeout,
    /// The browser (or the tab's renderer) died or stopped answering, or no
    /// browser could be had: no verdict on the task itself.
    Crashed,
    /// Cancelled by a second Ctrl-C before it ended.
    Skipped,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Ok => "ok",
            TaskStatus::Failed => "failed",
            TaskStatus::Timeout => "timeout",
            TaskStatus::Crashed => "crashed",
            TaskStatus::Skipped => "skipped",
        }
    }

    /// A verdict on the task: a rerun with the same `--out` leaves it alone
    /// (`--retry-failed` runs `failed` and `timeout` again). `crashed` and
    /// `skipped` say nothing about the task, so a rerun runs it again.
    pub fn is_final(self) -> bool {
        matches!(self, TaskStatus::Ok | TaskStatus::Failed | TaskStatus::Timeout)
    }
}

impl std::fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One results line:
/// `{"id","status","result"?,"output"?,"error"?,"steps","tokens","duration_ms","attempts","report"?,"verdict"?,"model"?,"judge"?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    pub id: String,
    pub status: TaskStatus,
    /// A one-line account: the agent's final message, extract's progress
    /// note, where a steps run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The data: the agent's `output`, the extracted data, `{"url","title"}`
    /// where a steps run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Agent turns, steps played, or extract chunks read.
    #[serde(default)]
    pub steps: u32,
    /// Model tokens (input + output) of every call the task made (the
    /// judge's not counted).
    #[serde(default)]
    pub tokens: u64,
    /// The task's run, not counting the judge's.
    #[serde(default)]
    pub duration_ms: u64,
    /// Runs of this task so far, this one included.
    #[serde(default = "one")]
    pub attempts: u32,
    /// The trace report, relative to `--reports` (agent tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// The judge's `{"evaluation","reasoning"}`, for a task with an `evaluate`
    /// question that ran to its end (a timed-out, crashed or cancelled run has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// The model that ran the task (`provider/model`), when it used one:
    /// a rerun with another model does not take this line for its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The judge's model, when the task was judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// What the judge was shown (a JSON file, relative to the results
    /// file's folder unless absolute), when it was kept: the run can be
    /// judged again without running it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

fn one() -> u32 {
    1
}

impl TaskResult {
    /// A result with nothing but its id, status and attempt.
    pub fn new(id: &str, status: TaskStatus, attempts: u32) -> TaskResult {
        TaskResult {
            id: id.to_string(),
            status,
            result: None,
            output: None,
            error: None,
            steps: 0,
            tokens: 0,
            duration_ms: 0,
            attempts,
            report: None,
            verdict: None,
            model: None,
            judge: None,
            evidence: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_old_lines_read() {
        let mut r = TaskResult::new("a", TaskStatus::Crashed, 2);
        r.error = Some("the page crashed".into());
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(
            line,
            r#"{"id":"a","status":"crashed","error":"the page crashed","steps":0,"tokens":0,"duration_ms":0,"attempts":2}"#
        );
        assert_eq!(serde_json::from_str::<TaskResult>(&line).unwrap(), r);
        let minimal: TaskResult = serde_json::from_str(r#"{"id":"b","status":"ok"}"#).unwrap();
        assert_eq!(minimal.attempts, 1);
        assert!(TaskStatus::Failed.is_final() && !TaskStatus::Crashed.is_final());
    }
}
