//! Runs one task on a tab: the agent, a steps list, or an extract.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};

use super::result::TaskStatus;
use super::task::{Task, TaskKind};
use crate::agent::{Agent, AgentOptions, EvaluateOptions};
use crate::ai::{Ai, ExtractOptions, Variables};
use crate::browser::Browser;
use crate::domains::AllowedDomains;
use crate::error::{Error, NavigationErrorKind, Result};
use crate::eval::Verdict;
use crate::llm::{Llm, LlmError};
use crate::page::Page;
use crate::steps::{RunReport, Runner};
use crate::tools::ToolSettings;

/// What every task of a batch shares.
#[derive(Debug, Clone)]
pub(crate) struct TaskEnv {
    /// The task file's directory (relative upload paths).
    pub base_dir: PathBuf,
    pub max_steps: u32,
    pub tool_timeout: Duration,
    /// `--reports DIR`.
    pub reports: Option<PathBuf>,
    /// Where judged runs' evidence is kept ([`BatchOptions::evidence`](super::BatchOptions::evidence)).
    pub evidence: Option<PathBuf>,
    /// The results file's folder (kept evidence is named from it).
    pub results_dir: PathBuf,
}

/// What one run of a task gets from its worker besides the task.
pub(crate) struct ThisRun<'a> {
    /// Its trace report's file name under `--reports`.
    pub report_name: &'a str,
    /// Set when its time ran out: an agent ends early and keeps its steps.
    pub stop: tokio::sync::watch::Receiver<bool>,
    /// A steps task's progress: 0 while its URL opens, then the number of
    /// the step under way (what a timeout cut short).
    pub progress: &'a std::sync::atomic::AtomicUsize,
}

/// A task that ran to its end (ok or not).
#[derive(Debug, Default)]
pub(crate) struct Done {
    pub ok: bool,
    pub result: Option<String>,
    pub output: Option<serde_json::Value>,
    pub error: Option<String>,
    pub steps: u32,
    /// The report file, relative to the reports directory.
    pub report: Option<String>,
    /// The judge's verdict, when the agent judged its own run.
    pub verdict: Option<Verdict>,
}

/// Runs `task` on `page`. `Err` is a failure before the task could get
/// going (its page did not load, the browser went away). An agent task
/// with an `evaluate` question is judged by the agent as it ends, with
/// `judge`; other tasks are judged by the worker (`judge.rs`).
pub(crate) async fn execute(
    browser: &Browser,
    page: &Page,
    task: &Task,
    llm: Option<&Llm>,
    judge: Option<&Llm>,
    env: &TaskEnv,
    this_run: ThisRun<'_>,
) -> Result<Done> {
    let ThisRun {
        report_name,
        stop,
        progress,
    } = this_run;
    let need = || Error::Llm(LlmError::Setup(format!("task {:?} needs a model", task.id)));
    match &task.kind {
        TaskKind::Agent { task: goal } => {
            let llm = llm.ok_or_else(need)?;
            let report = env.reports.as_ref().map(|dir| dir.join(report_name));
            let opts = AgentOptions {
                mode: task.mode,
                evaluate: task.evaluate.as_ref().map(|question| EvaluateOptions {
                    question: Some(question.clone()),
                    judge: judge.cloned(),
                }),
                max_steps: task.max_steps.unwrap_or(env.max_steps).max(1),
                tool_timeout: env.tool_timeout,
                allowed_domains: task.allowed_domains.clone(),
                variables: task.vars.clone(),
                screenshots: report.is_some(),
                start_url: task.url.clone(),
                // The task's time ran out: it ends as interrupted, and keeps
                // what it did (its steps, its trace report).
                cancel: Some(stop),
                ..AgentOptions::default()
            };
            let r = Agent::new(page, llm, opts).with_browser(browser).execute(goal).await?;
            if let Some(path) = &report {
                write_report(path, &r.report_html()).await?;
            }
            let verdict = if r.completed { "not achieved" } else { "not completed" };
            Ok(Done {
                ok: r.success,
                error: (!r.success).then(|| format!("{verdict}: {}", r.message)),
                result: Some(r.message),
                output: r.output,
                steps: r.steps,
                report: report.map(|_| report_name.to_string()),
                verdict: r.verdict,
            })
        }
        TaskKind::Steps(steps) => {
            if let Some(url) = &task.url {
                page.goto(url).await?;
            }
            let settings = ToolSettings {
                variables: task.vars.clone(),
                allowed_domains: AllowedDomains::new(&task.allowed_domains),
                base_dir: Some(env.base_dir.clone()),
                ..ToolSettings::default()
            };
            let mut runner = Runner::new(browser, page.clone(), None).with_settings(settings);
            if let Some(llm) = llm {
                runner = runner.with_llm(llm);
            }
            progress.store(1, Ordering::Relaxed);
            let (report, failure) = runner.run(steps, |i, _| progress.store(i + 2, Ordering::Relaxed)).await;
            let played = report.steps.len();
            if let Some(e) = failure {
                if is_crash(&e) {
                    return Err(e);
                }
            }
            let failed = report.steps.iter().find(|s| !s.ok);
            Ok(Done {
                ok: failed.is_none(),
                error: failed.map(|s| {
                    format!(
                        "step {played} of {} ({}) failed: {}",
                        steps.len(),
                        steps[played - 1].label(),
                        s.error.as_deref().unwrap_or("failed")
                    )
                }),
                result: Some(format!("{played} step(s); ended at {}", report.url)),
                output: Some(steps_output(&report, &task.vars)),
                steps: played as u32,
                ..Done::default()
            })
        }
        TaskKind::Extract { instruction, schema } => {
            let llm = llm.ok_or_else(need)?;
            if let Some(url) = &task.url {
                page.goto(url).await?;
            }
            let r = Ai::new(llm)
                .extract(
                    page,
                    Some(instruction),
                    schema.as_ref(),
                    &ExtractOptions {
                        secrets: task.vars.secrets(),
                        ..ExtractOptions::default()
                    },
                )
                .await?;
            Ok(Done {
                ok: true,
                result: Some(r.progress),
                output: Some(r.data),
                steps: r.chunks_read as u32,
                ..Done::default()
            })
        }
    }
}

/// Where a steps run ended, and what its last step gave (a task that ends
/// with an `evaluate` or a `snapshot` is run for that value), with the
/// task's variable values shown as their `%name%` (a tree shows what a field
/// was filled with).
fn steps_output(report: &RunReport, vars: &Variables) -> Value {
    let mut output = json!({"url": report.url, "title": report.title});
    if let Some(value) = report.steps.last().and_then(|s| s.value.as_ref()) {
        let mut value = value.clone();
        vars.secrets().redact_json(&mut value);
        output["value"] = value;
    }
    output
}

/// Errors that mean the tab or the browser died, not that the task failed.
pub(crate) fn is_crash(e: &Error) -> bool {
    match e {
        Error::PageCrashed | Error::BrowserClosed => true,
        Error::Navigation { kind, .. } => *kind == NavigationErrorKind::Crashed,
        Error::StepFailed { source, .. } => is_crash(source),
        _ => false,
    }
}

/// How an `Err` from [`execute`] counts.
pub(crate) fn error_status(e: &Error) -> TaskStatus {
    if is_crash(e) {
        TaskStatus::Crashed
    } else {
        TaskStatus::Failed
    }
}

pub(crate) async fn write_report(path: &Path, html: &str) -> Result<()> {
    tokio::fs::write(path, html)
        .await
        .map_err(|e| Error::Io(format!("cannot write the report {}: {e}", path.display())))
}
