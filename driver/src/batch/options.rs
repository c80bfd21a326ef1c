//! How a batch runs: [`BatchOptions`], where its browsers come from
//! ([`Fleet`]), how it is stopped ([`Stop`]) and what it reports while it
//! runs ([`BatchEvent`]). The library prints nothing: progress goes to the
//! caller's [`EventFn`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::plan::Shard;
use super::result::TaskResult;
use crate::browser::LaunchOptions;
use crate::llm::LlmOptions;

/// Where workers get their browsers.
#[derive(Debug, Clone, PartialEq)]
pub enum Fleet {
    /// Each worker launches its own Chromium with a fresh profile.
    Local,
    /// Workers use browsers that are already running (`ws://…` or
    /// `http://host:port`), worker k the endpoint k mod n; each task gets a
    /// tab of its own.
    Endpoints(Vec<String>),
    /// Each task gets a Chromium session from this Selenium Grid 4 (its
    /// WebDriver URL, e.g. `http://127.0.0.1:4444`), driven over the
    /// session's `se:cdp` WebSocket and deleted when the task ends.
    Grid(String),
}

/// How to stop a running batch (Ctrl-C).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stop {
    #[default]
    Run,
    /// Start no new task; let the running ones finish.
    Drain,
    /// Cancel the running tasks too (they are recorded as `skipped`).
    Cancel,
}

/// What happens during a run, in order, for progress displays.
#[derive(Debug, Clone)]
pub enum BatchEvent {
    /// A worker has a new browser (`pid` for browsers it launched).
    BrowserStarted { worker: usize, pid: Option<u32> },
    /// A worker let its browser go: recycled after its tasks, or replaced
    /// because it crashed or hung.
    BrowserRetired { worker: usize, reason: String },
    /// The task waits for a browser: a grid slot, or a launch.
    Queued { worker: usize, id: String },
    /// The task runs.
    Started { worker: usize, id: String },
    /// The task ended; its line is in the results file.
    Finished { worker: usize, result: Box<TaskResult> },
    /// Something the caller may want to know that changes no result (a
    /// grid session that could not be deleted, an unreadable results line).
    Warning(String),
}

/// Receives [`BatchEvent`]s (from several workers at once).
pub type EventFn = Arc<dyn Fn(&BatchEvent) + Send + Sync>;

/// Options of a batch run.
#[derive(Clone)]
pub struct BatchOptions {
    /// Workers running at once.
    pub concurrency: usize,
    pub fleet: Fleet,
    /// Browser options (viewport, timeouts, switches) of every worker.
    pub launch: LaunchOptions,
    /// The model of tasks that name none (their `model` replaces `model` here).
    pub llm: LlmOptions,
    /// The judge of tasks with an `evaluate` question; `None`: each task's
    /// own model (its calls counted apart from the task's tokens).
    pub judge: Option<LlmOptions>,
    /// A local browser is replaced after this many tasks (0: never); it is
    /// replaced at once when it crashed, hung or a task timed out.
    pub recycle_after: u32,
    /// Time limit of one task (not counting the wait for a browser).
    pub task_timeout: Duration,
    /// The results file (JSON lines), appended as tasks end.
    pub out: PathBuf,
    /// Run `failed` and `timeout` tasks again.
    pub retry_failed: bool,
    pub shard: Option<Shard>,
    /// Trace reports of agent tasks and an `index.html` go here.
    pub reports: Option<PathBuf>,
    /// What the judge was shown of each judged run goes here (a JSON file a
    /// run, secrets replaced by their `%name%`), to judge it again later
    /// without running it ([`rejudge`](crate::suite::rejudge)).
    pub evidence: Option<PathBuf>,
    /// Model turns of agent tasks that give no `max_steps`.
    pub max_steps: u32,
    /// Time limit of one agent tool call.
    pub tool_timeout: Duration,
    pub events: Option<EventFn>,
    pub stop: Option<tokio::sync::watch::Receiver<Stop>>,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            concurrency: 2,
            fleet: Fleet::Local,
            launch: LaunchOptions::default(),
            llm: LlmOptions::default(),
            judge: None,
            recycle_after: 25,
            task_timeout: Duration::from_secs(300),
            out: PathBuf::from("results.jsonl"),
            retry_failed: false,
            shard: None,
            reports: None,
            evidence: None,
            max_steps: 20,
            tool_timeout: Duration::from_secs(45),
            events: None,
            stop: None,
        }
    }
}

impl std::fmt::Debug for BatchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchOptions")
            .field("concurrency", &self.concurrency)
            .field("fleet", &self.fleet)
            .field("recycle_after", &self.recycle_after)
            .field("task_timeout", &self.task_timeout)
            .field("out", &self.out)
            .field("retry_failed", &self.retry_failed)
            .field("shard", &self.shard)
            .field("reports", &self.reports)
            .field("evidence", &self.evidence)
            .finish_non_exhaustive()
    }
}
