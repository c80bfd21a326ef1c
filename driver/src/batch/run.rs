//! A batch run: checks everything it can before a browser starts, plans
//! against the results file, runs the workers, and writes each result the
//! moment its task ends (the only writer of the results file).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::mpsc;

use super::execute::TaskEnv;
use super::grid::Grid;
use super::lease::Source;
use super::options::{BatchEvent, BatchOptions, EventFn, Fleet, Stop};
use super::plan::Plan;
use super::reports::{report_names, write_index};
use super::result::{TaskResult, TaskStatus};
use super::results_file::{ResultLog, ResultWriter};
use super::summary::Summary;
use super::task_file::TaskFile;
use super::worker::{work, Shared};
use crate::agent::AgentMode;
use crate::browser::locate_executable;
use crate::error::{Error, Result};
use crate::llm::{Llm, LlmOptions};

/// A batch ready to run.
#[derive(Debug)]
pub struct Batch {
    file: TaskFile,
    options: BatchOptions,
    plan: Plan,
    log: ResultLog,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct BatchReport {
    /// Results of the tasks this run ran, in the order they ended.
    pub ran: Vec<TaskResult>,
    /// The newest result of every task of this shard that has one, in file order.
    pub results: Vec<TaskResult>,
    pub summary: Summary,
    /// Tasks left alone because the results file had their verdict.
    pub already_done: usize,
    /// Ctrl-C stopped the run before every planned task ran.
    pub interrupted: bool,
    /// Why the run stopped before every planned task ran, when no browser
    /// could be had (a grid gone away): the tasks left are not run, and
    /// the next run with the same `--out` takes them up.
    pub outage: Option<String>,
}

impl Batch {
    /// Checks the options and every task's model, reads the results file
    /// and plans the run. Nothing starts; problems are one line, by task line.
    pub fn new(file: TaskFile, options: BatchOptions) -> Result<Batch> {
        if options.concurrency == 0 {
            return Err(Error::Batch("--concurrency must be at least 1".into()));
        }
        match &options.fleet {
            // A missing Chromium would fail every task one by one.
            Fleet::Local => {
                let executable = options.launch.resolved_executable();
                if locate_executable(&executable).is_none() {
                    return Err(Error::BrowserLaunch {
                        executable,
                        reason: "no such executable".into(),
                    });
                }
            }
            Fleet::Endpoints(urls) if urls.is_empty() => {
                return Err(Error::Batch("no --cdp-endpoint given".into()));
            }
            Fleet::Grid(url) => {
                Grid::new(url)?;
            }
            Fleet::Endpoints(_) => {}
        }
        check_models(&file, &options.llm, options.judge.as_ref())?;
        let log = ResultLog::read(&options.out)?;
        let plan = Plan::new(&file.tasks, options.shard, &log, options.retry_failed);
        check_kept_results(&file, &plan, &log, &options)?;
        Ok(Batch {
            file,
            options,
            plan,
            log,
        })
    }

    /// Sends progress to `events` (set once the plan is known, e.g. to size a progress bar).
    pub fn with_events(mut self, events: EventFn) -> Batch {
        self.options.events = Some(events);
        self
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Lines of the results file that could not be read (a torn last line).
    pub fn unreadable_lines(&self) -> &[String] {
        &self.log.skipped_lines
    }

    /// Runs the planned tasks. Each result is in the results file before it
    /// is reported; Ctrl-C ([`Stop`]) loses none of them.
    pub async fn run(self) -> Result<BatchReport> {
        let Batch {
            file,
            options,
            plan,
            mut log,
        } = self;
        let mut writer = ResultWriter::open(&options.out)?;
        if let Some(dir) = &options.reports {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Io(format!("cannot create the reports directory {}: {e}", dir.display())))?;
            write_index(dir, &plan.tasks, &log.latest)?;
        }
        // A task that ended ok runs again only for the verdict its judge could
        // not give: its actions run again too (an order placed twice).
        let again: Vec<&str> = plan
            .to_run
            .iter()
            .filter(|p| log.get(&p.task.id).is_some_and(|r| r.status == TaskStatus::Ok))
            .map(|p| p.task.id.as_str())
            .collect();
        if !again.is_empty() {
            emit(
                &options,
                BatchEvent::Warning(format!(
                    "{} ended ok but could not be judged: run again for a verdict, their actions repeat",
                    again.join(", ")
                )),
            );
        }
        let names = report_names(&plan.tasks);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let outage = Arc::new(Mutex::new(None));
        let workers = options.concurrency.min(plan.to_run.len());
        let shared = Arc::new(Shared {
            queue: Mutex::new(plan.to_run.iter().cloned().collect::<VecDeque<_>>()),
            source: Source::new(&options.fleet, &options.launch)?,
            env: TaskEnv {
                base_dir: file.base_dir(),
                max_steps: options.max_steps,
                tool_timeout: options.tool_timeout,
                reports: options.reports.clone(),
                evidence: options.evidence.clone(),
                results_dir: crate::eval::kept::results_dir(&options.out),
            },
            llm: options.llm.clone(),
            judge: options.judge.clone(),
            recycle_after: options.recycle_after,
            task_timeout: options.task_timeout,
            report_names: plan
                .tasks
                .iter()
                .map(|t| t.id.clone())
                .zip(names)
                .collect::<HashMap<_, _>>(),
            events: options.events.clone(),
            stop: options.stop.clone(),
            results: tx,
            failed_acquires: Mutex::new(None),
            outage: outage.clone(),
        });
        let handles: Vec<_> = (0..workers).map(|i| tokio::spawn(work(i, shared.clone()))).collect();
        // (The results channel ends when the last worker drops its Shared.)
        drop(shared);

        let mut ran = Vec::new();
        let mut write_error = None;
        while let Some((worker, result)) = rx.recv().await {
            if let Err(e) = writer.append(&result) {
                write_error.get_or_insert(e);
            }
            match log.latest.iter_mut().find(|r| r.id == result.id) {
                Some(old) => *old = result.clone(),
                None => log.latest.push(result.clone()),
            }
            if let Some(dir) = &options.reports {
                if let Err(e) = write_index(dir, &plan.tasks, &log.latest) {
                    emit(&options, BatchEvent::Warning(e.to_string()));
                }
            }
            emit(
                &options,
                BatchEvent::Finished {
                    worker,
                    result: Box::new(result.clone()),
                },
            );
            ran.push(result);
        }
        for h in handles {
            if let Err(e) = h.await {
                emit(
                    &options,
                    BatchEvent::Warning(format!("a worker stopped unexpectedly: {e}")),
                );
            }
        }
        if let Some(e) = write_error {
            return Err(e);
        }
        let results: Vec<TaskResult> = plan.tasks.iter().filter_map(|t| log.get(&t.id).cloned()).collect();
        let stopped = options.stop.as_ref().is_some_and(|s| *s.borrow() != Stop::Run);
        let cut_short = ran.len() < plan.to_run.len() || ran.iter().any(|r| r.status == TaskStatus::Skipped);
        let outage = outage.lock().unwrap().take();
        Ok(BatchReport {
            summary: Summary::new(&plan.tasks, &results),
            interrupted: stopped && cut_short,
            outage,
            already_done: plan.already_done,
            ran,
            results,
        })
    }
}

fn emit(options: &BatchOptions, event: BatchEvent) {
    if let Some(f) = &options.events {
        f(&event);
    }
}

/// The results a rerun keeps must be of this run's models: a line run by
/// another model (or judged by another judge) would be counted as this
/// one's. One line names every such task; nothing runs.
fn check_kept_results(file: &TaskFile, plan: &Plan, log: &ResultLog, options: &BatchOptions) -> Result<()> {
    // (A client per model, not per task: the spec needs one built.)
    let mut specs: HashMap<(Option<String>, Option<String>), Option<String>> = HashMap::new();
    let mut spec = |o: LlmOptions| {
        specs
            .entry((o.model.clone(), o.base_url.clone()))
            .or_insert_with(|| Llm::new(o).map(|l| l.model_spec()).ok())
            .clone()
    };
    let running: std::collections::HashSet<&str> = plan.to_run.iter().map(|p| p.task.id.as_str()).collect();
    let mut problems = Vec::new();
    for task in &file.tasks {
        let Some(kept) = log.get(&task.id).filter(|_| !running.contains(task.id.as_str())) else {
            continue;
        };
        let (own, judge) = task.model_options(&options.llm, options.judge.as_ref());
        let model_now = task.kind.needs_llm().then(|| spec(own)).flatten();
        let judge_now = task.evaluate.as_ref().and_then(|_| spec(judge));
        for (what, then, now) in [("model", &kept.model, model_now), ("judge", &kept.judge, judge_now)] {
            if let (Some(then), Some(now)) = (then, now) {
                if *then != now {
                    problems.push(format!("id {:?}: its {what} was {then}, this run's is {now}", task.id));
                }
            }
        }
    }
    let Some(first) = problems.first() else {
        return Ok(());
    };
    let more = match problems.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Err(Error::Batch(format!(
        "{} holds results this run would keep as its own: {first}{more}. Give another --out to compare models, or \
leave out those lines to run them again.",
        options.out.display()
    )))
}

/// Every task that needs a model has one that can be set up (named, with a
/// key; one that reads images for hybrid mode), and so does the judge of
/// every task that asks one.
fn check_models(file: &TaskFile, llm: &LlmOptions, judge: Option<&LlmOptions>) -> Result<()> {
    let mut checked: HashMap<(Option<String>, Option<String>, bool), Option<String>> = HashMap::new();
    let mut problems = Vec::new();
    let mut check = |task: &super::task::Task, options: LlmOptions, needs_images: bool, what: &str| {
        let key = (options.model.clone(), options.base_url.clone(), needs_images);
        let problem = checked.entry(key).or_insert_with(|| match Llm::new(options) {
            Err(e) => Some(e.to_string()),
            Ok(l) if needs_images && !l.supports_images() => Some(format!("{} does not read images", l.model_spec())),
            Ok(_) => None,
        });
        if let Some(p) = problem {
            problems.push(format!("line {}: id {:?} ({what}): {p}", task.line, task.id));
        }
    };
    for task in &file.tasks {
        let (own, judge) = task.model_options(llm, judge);
        if task.kind.needs_llm() {
            let hybrid = matches!(task.kind, super::task::TaskKind::Agent { .. }) && task.mode == AgentMode::Hybrid;
            let what = if hybrid {
                "agent task in hybrid mode".to_string()
            } else {
                format!("{} task", task.kind.name())
            };
            check(task, own.clone(), hybrid, &what);
        }
        if task.evaluate.is_some() {
            // The judge is not held to `supports_images` (a guess from the
            // name): a vision model the guess does not know must stay usable.
            check(task, judge, false, "its judge");
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let n = problems.len();
    let mut message = format!("{}: {}", file.path.display(), problems[0]);
    if n > 1 {
        message.push_str(&format!(" (and {} more task(s) like it)", n - 1));
    }
    Err(Error::Batch(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::task_file::parse_tasks;

    fn file(text: &str) -> TaskFile {
        TaskFile {
            path: "tasks.jsonl".into(),
            tasks: parse_tasks(text, std::path::Path::new(".")).unwrap(),
        }
    }

    #[test]
    fn problems_are_found_before_anything_runs() {
        let dir = tempfile::tempdir().unwrap();
        let steps = file("{\"id\": \"a\", \"steps\": [{\"method\": \"reload\"}]}\n");
        let mut options = BatchOptions {
            out: dir.path().join("results.jsonl"),
            ..BatchOptions::default()
        };
        options.launch.executable = Some("/no/such/chromium".into());
        let e = Batch::new(steps.clone(), options.clone()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "could not start the browser /no/such/chromium: no such executable"
        );
        options.fleet = Fleet::Endpoints(Vec::new());
        assert!(Batch::new(steps.clone(), options.clone()).is_err());
        options.fleet = Fleet::Grid("ftp://grid".into());
        assert!(Batch::new(steps.clone(), options.clone()).is_err());
        options.fleet = Fleet::Endpoints(vec!["http://127.0.0.1:9".into()]);
        options.concurrency = 0;
        assert!(Batch::new(steps.clone(), options.clone()).is_err());
        options.concurrency = 1;
        let batch = Batch::new(steps, options.clone()).unwrap();
        assert_eq!(batch.plan().to_run.len(), 1);
        assert!(!options.out.exists(), "planning writes nothing");
        // Two tasks on a model that cannot be set up: one line for both.
        let agents = file("{\"id\": \"a\", \"task\": \"x\"}\n{\"id\": \"b\", \"task\": \"y\"}\n");
        options.llm.model = Some("openai/".into());
        let e = Batch::new(agents, options).unwrap_err().to_string();
        assert!(e.starts_with("tasks.jsonl: line 1: id \"a\" (agent task): "), "{e}");
        assert!(e.ends_with("(and 1 more task(s) like it)"), "{e}");
    }
}
