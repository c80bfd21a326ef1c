//! A worker: takes tasks off the shared queue one at a time, each on its own
//! tab of the worker's browser, and hands every result to the coordinator.
//!
//! The browser is replaced after `recycle_after` tasks, and at once when it
//! crashed, stopped answering, or a task timed out on it (whatever the task
//! left running could still be running). A grid session serves one task.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, watch};

use super::execute::{error_status, execute, write_report, TaskEnv, ThisRun};
use super::grid::KEEPALIVE_EVERY;
use super::judge::judge_task;
use super::lease::{Lease, Source};
use super::options::{BatchEvent, EventFn, Stop};
use super::plan::Planned;
use super::result::{TaskResult, TaskStatus};
use super::task::{Task, TaskKind};
use crate::browser::{Browser, BrowserContext};
use crate::domains::AllowedDomains;
use crate::eval::{report, Verdict};
use crate::llm::{Llm, LlmOptions};

/// How long a browser gets to answer after a task before it counts as hung.
const HEALTH_CHECK: Duration = Duration::from_secs(5);
/// How long a cancelled worker still waits for a pending grid session, so
/// it can delete it instead of leaving it to the grid's idle timeout.
const PENDING_SESSION_GRACE: Duration = Duration::from_secs(30);
/// Browsers that could not be had in a row (across workers), over at
/// least [`OUTAGE_SPAN`], before the batch stops: a grid that went away
/// would otherwise mark every task left crashed in no time (a 10,000-task
/// file burnt through in seconds). The span keeps workers failing together
/// at one blip from stopping it.
const OUTAGE_AFTER: usize = 3;
const OUTAGE_SPAN: Duration = Duration::from_secs(2);

/// What the workers share.
pub(crate) struct Shared {
    pub queue: Mutex<VecDeque<Planned>>,
    pub source: Source,
    pub env: TaskEnv,
    pub llm: LlmOptions,
    /// The judge of tasks with an `evaluate` question (None: the task's model).
    pub judge: Option<LlmOptions>,
    pub recycle_after: u32,
    pub task_timeout: Duration,
    pub report_names: HashMap<String, String>,
    pub events: Option<EventFn>,
    pub stop: Option<watch::Receiver<Stop>>,
    pub results: mpsc::UnboundedSender<(usize, TaskResult)>,
    /// Browsers not had since the last one that was (see [`OUTAGE_AFTER`]),
    /// and when the first of them failed (`None`: none since).
    pub failed_acquires: Mutex<Option<(usize, Instant)>>,
    /// Set when no browser could be had [`OUTAGE_AFTER`] times in a row:
    /// why; the workers stop, and the tasks left are not run.
    pub outage: Arc<Mutex<Option<String>>>,
}

impl Shared {
    fn emit(&self, event: BatchEvent) {
        if let Some(f) = &self.events {
            f(&event);
        }
    }

    fn stop(&self) -> Stop {
        self.stop.as_ref().map_or(Stop::Run, |s| *s.borrow())
    }

    /// Resolves when the batch is cancelled (never without a stop channel).
    async fn cancelled(&self) {
        match self.stop.clone() {
            Some(mut rx) => {
                if rx.wait_for(|s| *s == Stop::Cancel).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
            None => std::future::pending().await,
        }
    }
}

/// Worker `index`: runs until the queue is empty or the batch is stopped.
pub(crate) async fn work(index: usize, shared: Arc<Shared>) {
    let mut worker = Worker {
        index,
        shared,
        lease: None,
        served: 0,
    };
    loop {
        if worker.shared.stop() != Stop::Run || worker.shared.outage.lock().unwrap().is_some() {
            break;
        }
        let next = worker.shared.queue.lock().unwrap().pop_front();
        let Some(planned) = next else { break };
        let Some(result) = worker.run(&planned).await else {
            // No browser for it: back to the queue, unrun.
            worker.shared.queue.lock().unwrap().push_front(planned);
            continue;
        };
        if worker.shared.results.send((index, result)).is_err() {
            break;
        }
    }
    worker.retire("the batch is over").await;
}

struct Worker {
    index: usize,
    shared: Arc<Shared>,
    lease: Option<Lease>,
    /// Tasks the current browser has served.
    served: u32,
}

impl Worker {
    /// Runs one task; `None` when no browser could be had for it (it is
    /// left for another try, or for the next run after an outage).
    async fn run(&mut self, planned: &Planned) -> Option<TaskResult> {
        let task = &planned.task;
        let mut result = TaskResult::new(&task.id, TaskStatus::Crashed, planned.attempt);
        let shared = self.shared.clone();
        let recycle = shared.source.recyclable() && shared.recycle_after > 0 && self.served >= shared.recycle_after;
        if recycle {
            let reason = format!("recycled after {} tasks", self.served);
            self.retire(&reason).await;
        }
        if self.lease.is_none() {
            shared.emit(BatchEvent::Queued {
                worker: self.index,
                id: task.id.clone(),
            });
            match self.acquire(&task.id).await {
                Some(Ok(())) => *shared.failed_acquires.lock().unwrap() = None,
                Some(Err(e)) => {
                    let (failed, since) = {
                        let mut failures = shared.failed_acquires.lock().unwrap();
                        let (count, _) = failures.get_or_insert((0, Instant::now()));
                        *count += 1;
                        failures.expect("just set")
                    };
                    shared.emit(BatchEvent::Warning(format!("no browser for {}: {e}", task.id)));
                    if failed >= OUTAGE_AFTER && since.elapsed() >= OUTAGE_SPAN {
                        shared.outage.lock().unwrap().get_or_insert_with(|| {
                            format!("no browser could be had {failed} times in a row (the last: {e})")
                        });
                    } else {
                        // (A grid briefly full or restarting: a moment's patience.)
                        tokio::time::sleep(Duration::from_millis(500 * failed as u64)).await;
                    }
                    return None;
                }
                None => {
                    result.status = TaskStatus::Skipped;
                    result.error = Some("cancelled while waiting for a browser".into());
                    return Some(result);
                }
            }
        }
        shared.emit(BatchEvent::Started {
            worker: self.index,
            id: task.id.clone(),
        });
        let started = Instant::now();
        let (llm_options, judge_options) = task.model_options(&shared.llm, shared.judge.as_ref());
        let models = task
            .kind
            .needs_llm()
            .then(|| Llm::new(llm_options))
            .transpose()
            .and_then(|llm| {
                Ok((
                    llm,
                    task.evaluate.is_some().then(|| Llm::new(judge_options)).transpose()?,
                ))
            });
        let (llm, judge) = match models {
            Ok(models) => models,
            Err(e) => {
                result.status = TaskStatus::Failed;
                result.error = Some(e.to_string());
                return Some(result);
            }
        };
        let lease = self.lease.as_ref().expect("a browser was acquired");
        let browser = lease.browser();
        let mut unhealthy = false;
        // Its trace report's file name.
        let name = shared.report_names.get(&task.id).cloned().unwrap_or_default();
        // (A context that cannot be made says so as a tab that cannot open.)
        let (context, opened) = match task_context(browser, task, &shared.source).await {
            Ok(context) => {
                let page = browser.new_page_in(context.as_ref()).await;
                (context, page)
            }
            Err(e) => (None, Err(e)),
        };
        match opened {
            Err(e) => {
                result.error = Some(format!("cannot open a tab: {e}"));
                unhealthy = true;
            }
            Ok(page) => {
                let (stop, stopped) = tokio::sync::watch::channel(false);
                let progress = std::sync::atomic::AtomicUsize::new(0);
                let this_run = ThisRun {
                    report_name: &name,
                    stop: stopped,
                    progress: &progress,
                };
                let run = execute(
                    browser,
                    &page,
                    task,
                    llm.as_ref(),
                    judge.as_ref(),
                    &shared.env,
                    this_run,
                );
                let keep_alive = keep_alive(lease);
                let outcome = tokio::select! {
                    r = within(shared.task_timeout, run, &stop, task.kind.stops_when_asked()) => Some(r),
                    _ = keep_alive => None,
                    _ = shared.cancelled() => None,
                };
                let mut finished = None;
                match outcome {
                    Some(Err(Some(Ok(mut partial)))) => {
                        // Out of time, stopped: what it did is kept.
                        result.status = TaskStatus::Timeout;
                        result.error = Some(format!(
                            "timed out after {}, stopped after {} step(s)",
                            crate::time::spoken(shared.task_timeout),
                            partial.steps
                        ));
                        result.result = partial.result.take();
                        result.steps = partial.steps;
                        result.report = partial.report.take();
                        unhealthy = true;
                    }
                    Some(Ok(Ok(mut done))) => {
                        result.status = if done.ok { TaskStatus::Ok } else { TaskStatus::Failed };
                        result.result = done.result.clone();
                        result.output = done.output.clone();
                        result.error = done.error.clone();
                        result.steps = done.steps;
                        result.report = done.report.take();
                        result.verdict = done.verdict.take();
                        finished = Some(done);
                    }
                    Some(Ok(Err(e))) => {
                        result.status = error_status(&e);
                        result.error = Some(e.to_string());
                    }
                    Some(Err(_)) => {
                        result.status = TaskStatus::Timeout;
                        let (steps, during) = cut_short(task, progress.load(std::sync::atomic::Ordering::Relaxed));
                        result.steps = steps;
                        result.error = Some(format!(
                            "timed out after {}{during}",
                            crate::time::spoken(shared.task_timeout)
                        ));
                        unhealthy = true;
                    }
                    None => {
                        result.status = TaskStatus::Skipped;
                        result.error = Some("cancelled (Ctrl-C) before it ended".into());
                        unhealthy = true;
                    }
                }
                if let Some(judge) = judge.as_ref().filter(|_| result.verdict.is_none()) {
                    // A run that ended (ok or not, its page loaded or not) is
                    // judged on what its tab shows; a timed-out, crashed or
                    // cancelled one is not.
                    let ended = matches!(result.status, TaskStatus::Ok | TaskStatus::Failed);
                    if ended && !page.is_crashed() {
                        let judging = judge_task(&page, task, finished.as_ref(), result.error.as_deref(), judge);
                        result.verdict = tokio::select! {
                            v = tokio::time::timeout(shared.task_timeout, judging) => Some(v.unwrap_or_else(|_| {
                                Verdict::unjudged(format!("the judge did not answer within {}s", shared.task_timeout.as_secs()))
                            })),
                            _ = shared.cancelled() => None,
                        };
                        self.write_verdict_page(&mut result, &name).await;
                    }
                }
                let crashed = page.is_crashed() || !browser.is_responsive(HEALTH_CHECK).await;
                if crashed && result.status != TaskStatus::Skipped {
                    result.status = TaskStatus::Crashed;
                    if result.error.is_none() {
                        result.error = Some("the browser crashed or stopped answering".into());
                    }
                }
                unhealthy |= crashed;
                if !unhealthy && context.is_none() {
                    let _ = page.close().await;
                }
            }
        }
        // The task's context goes with its tabs, popups included: after a
        // healthy run, and whatever happened on a browser that is not ours
        // to replace (a user's browser keeps no task's tabs running).
        if let Some(c) = context.filter(|_| !unhealthy || !shared.source.recyclable()) {
            let _ = tokio::time::timeout(CONTEXT_CLOSE_LIMIT, browser.close_context(&c)).await;
        }
        // The run's time: the judge's is its own.
        let judging = result
            .verdict
            .as_ref()
            .and_then(|v| v.judged.as_ref())
            .map_or(0, |j| j.duration_ms);
        result.duration_ms = (started.elapsed().as_millis() as u64).saturating_sub(judging);
        result.tokens = llm.as_ref().map_or(0, |l| l.total_usage().total_tokens());
        result.model = llm.as_ref().map(Llm::model_spec);
        result.judge = result.verdict.as_ref().and(judge.as_ref()).map(Llm::model_spec);
        self.keep_evidence(&mut result);
        self.served += 1;
        if unhealthy {
            let reason = format!("{} after task {}", result.status, task.id);
            self.retire(&reason).await;
        } else if shared.source.per_task() {
            self.retire("its task ended").await;
        }
        Some(result)
    }

    /// With an evidence folder, what the judge was shown of the run is kept
    /// there and named in its result (the copy the verdict holds is let go
    /// either way: a long suite keeps its results in memory).
    fn keep_evidence(&self, result: &mut TaskResult) {
        let shown = result
            .verdict
            .as_mut()
            .and_then(|v| v.judged.as_mut())
            .and_then(|j| j.evidence.take());
        let (Some(dir), Some(evidence)) = (&self.shared.env.evidence, shown) else {
            return;
        };
        let stem = crate::eval::kept::stem_for(&result.id);
        match crate::eval::kept::keep(dir, &self.shared.env.results_dir, &stem, &evidence) {
            Ok(named) => result.evidence = Some(named),
            Err(e) => self
                .shared
                .emit(BatchEvent::Warning(format!("{}: evidence not kept: {e}", result.id))),
        }
    }

    /// With `--reports`, a judged task that has no trace report gets a page
    /// with its verdict (the judge's prompt and the screenshots it saw).
    async fn write_verdict_page(&self, result: &mut TaskResult, name: &str) {
        let (Some(dir), Some(verdict)) = (&self.shared.env.reports, &result.verdict) else {
            return;
        };
        if result.report.is_some() || name.is_empty() {
            return;
        }
        let html = report::page(&format!("Task {}: the judge's verdict", result.id), verdict);
        match write_report(&dir.join(name), &html).await {
            Ok(()) => result.report = Some(name.to_string()),
            Err(e) => self.shared.emit(BatchEvent::Warning(e.to_string())),
        }
    }

    /// Gets a browser; `None` when the batch was cancelled meanwhile.
    async fn acquire(&mut self, task_id: &str) -> Option<crate::error::Result<()>> {
        let shared = self.shared.clone();
        let acquire = shared.source.acquire(self.index, task_id);
        tokio::pin!(acquire);
        let lease = tokio::select! {
            r = &mut acquire => r,
            _ = shared.cancelled() => {
                // A grid request may already be queued: let it end and give
                // the session back rather than leave it running.
                if let Ok(Ok(lease)) = tokio::time::timeout(PENDING_SESSION_GRACE, acquire).await {
                    if let Some(w) = lease.release().await {
                        shared.emit(BatchEvent::Warning(w));
                    }
                }
                return None;
            }
        };
        Some(lease.map(|mut lease| {
            shared.emit(BatchEvent::BrowserStarted {
                worker: self.index,
                pid: lease.pid(),
            });
            self.lease = Some(lease);
            self.served = 0;
        }))
    }

    /// Lets the browser go (closing, disconnecting or deleting the session).
    async fn retire(&mut self, reason: &str) {
        if let Some(lease) = self.lease.take() {
            if let Some(w) = lease.release().await {
                self.shared.emit(BatchEvent::Warning(w));
            }
            self.shared.emit(BatchEvent::BrowserRetired {
                worker: self.index,
                reason: reason.to_string(),
            });
        }
    }
}

/// Keeps a grid session from timing out while its task runs; never resolves.
async fn keep_alive(lease: &Lease) {
    let Some(session) = lease.grid_session() else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(KEEPALIVE_EVERY).await;
        if let Err(e) = session.keep_alive().await {
            tracing::debug!("grid keep-alive: {e}");
        }
    }
}

/// How long a task that was asked to stop (its time ran out) has to end and
/// hand over what it did, before it is dropped.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// `run` within `limit`. Out of time, a task that stops when asked
/// (`stoppable`) is asked to, and its partial outcome comes back as
/// `Err(Some(outcome))`; `Err(None)` when it had nothing to hand over.
async fn within<T>(
    limit: std::time::Duration,
    run: impl std::future::Future<Output = T>,
    stop: &tokio::sync::watch::Sender<bool>,
    stoppable: bool,
) -> std::result::Result<T, Option<T>> {
    tokio::pin!(run);
    if let Ok(done) = tokio::time::timeout(limit, &mut run).await {
        return Ok(done);
    }
    if !stoppable {
        return Err(None);
    }
    let _ = stop.send(true);
    Err(tokio::time::timeout(STOP_GRACE, run).await.ok())
}

/// How long closing a task's browser context may take (a hung tab in it
/// must not hold the worker).
const CONTEXT_CLOSE_LIMIT: Duration = Duration::from_secs(5);

/// What a steps task had taken when its time ran out, the step under way
/// included (a click whose page then hung did run), and where it was:
/// `" during step 2 of 3 (click #go)"`.
fn cut_short(task: &Task, progress: usize) -> (u32, String) {
    match &task.kind {
        TaskKind::Steps(_) if progress == 0 && task.url.is_some() => (0, " while its URL was opening".into()),
        TaskKind::Steps(steps) if progress > steps.len() => (steps.len() as u32, " after its last step".into()),
        TaskKind::Steps(steps) if progress >= 1 => (
            progress as u32,
            format!(
                " during step {progress} of {} ({})",
                steps.len(),
                steps[progress - 1].label()
            ),
        ),
        _ => (0, String::new()),
    }
}

/// The browser context a task runs in. Its own, fresh, on the browsers a
/// batch launches or gets from a grid: no cookies, storage or tabs of an
/// earlier task, and its `allowed_domains` refused by the browser itself
/// (a link or a form that takes the task's tab to another site is never
/// requested; its frames still load; a tab the page opens elsewhere is
/// closed when the run follows it). On a browser the user runs
/// (`--cdp-endpoint`), that browser's own (its logins), unless the task
/// limits its domains.
async fn task_context(browser: &Browser, task: &Task, source: &Source) -> crate::error::Result<Option<BrowserContext>> {
    if source.keeps_its_own_state() && task.allowed_domains.is_empty() {
        return Ok(None);
    }
    let context = browser.new_context().await?;
    let mut origins = browser.options().origins.clone();
    // (A batch launched with an allow-list of its own keeps it; the
    // agent still leaves a page outside the task's at once.)
    if origins.allowed.is_empty() && !task.allowed_domains.is_empty() {
        origins.allowed = AllowedDomains::new(&task.allowed_domains);
        origins.top_level_only = true;
    }
    browser.set_context_origins(&context, origins).await;
    Ok(Some(context))
}
