//! The suite formats and their readers: WebVoyager's lines
//! (`web_name`, `id`, `ques`, `web`), Online-Mind2Web's tasks (`task_id`,
//! `confirmed_task`, `website`, `reference_length`, `level`) and Sightline's
//! own batch task lines (agent tasks). Each record becomes an agent task of
//! the batch machinery, judged by whether it was completed.

use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use super::records::Record;
use super::web_base::WebBase;
use crate::agent::AgentMode;
use crate::batch::{parse_task_line, Task, TaskKind};
use crate::eval::task_question;

/// The formats `sightline eval` reads; a file's first record decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SuiteFormat {
    /// WebVoyager: `{"web_name", "id", "ques", "web"}` a line.
    #[serde(rename = "webvoyager")]
    WebVoyager,
    /// Online-Mind2Web: `{"task_id", "confirmed_task", "website",
    /// "reference_length", "level"}`, as a JSON array or one a line.
    #[serde(rename = "online-mind2web")]
    OnlineMind2Web,
    /// Sightline's batch task lines (`{"id", "task", "url", …}`).
    #[serde(rename = "sightline")]
    Sightline,
}

impl SuiteFormat {
    pub fn name(self) -> &'static str {
        match self {
            SuiteFormat::WebVoyager => "WebVoyager",
            SuiteFormat::OnlineMind2Web => "Online-Mind2Web",
            SuiteFormat::Sightline => "Sightline task lines",
        }
    }

    /// The format a record is written in.
    pub fn of(object: &Map<String, Value>) -> SuiteFormat {
        if object.contains_key("ques") || object.contains_key("web_name") {
            SuiteFormat::WebVoyager
        } else if object.contains_key("confirmed_task") || object.contains_key("task_id") {
            SuiteFormat::OnlineMind2Web
        } else {
            SuiteFormat::Sightline
        }
    }

    /// The fields a record of this format must have, for messages.
    fn fields(self) -> &'static str {
        match self {
            SuiteFormat::WebVoyager => "web_name, id, ques, web",
            SuiteFormat::OnlineMind2Web => "task_id, confirmed_task, website, reference_length, level",
            SuiteFormat::Sightline => "id, task, url…",
        }
    }
}

/// One task of a suite.
#[derive(Debug, Clone)]
pub struct SuiteTask {
    /// The suite's own id (`Allrecipes--0`, a Mind2Web task_id).
    pub id: String,
    /// The line of the suite file it starts on.
    pub line: usize,
    /// Online-Mind2Web's difficulty (easy, medium, hard); None elsewhere.
    pub level: Option<String>,
    /// WebVoyager's `web_name`; the website's host for Online-Mind2Web.
    pub site: Option<String>,
    /// Online-Mind2Web's `reference_length`: the steps a person took.
    pub reference_length: Option<u32>,
    /// The agent task it runs as (start URL resolved, its question to the judge set).
    pub task: Task,
}

/// Reads a record of `format`.
pub fn read_record(format: SuiteFormat, r: &Record, base: &WebBase, suite_dir: &Path) -> Result<SuiteTask, String> {
    if SuiteFormat::of(&r.object) != format {
        return Err(format!(
            "not a {} record (the file's first record set the format; expected {})",
            format.name(),
            format.fields()
        ));
    }
    match format {
        SuiteFormat::WebVoyager => webvoyager(r, base),
        SuiteFormat::OnlineMind2Web => mind2web(r, base),
        SuiteFormat::Sightline => sightline(r, base, suite_dir),
    }
}

fn webvoyager(r: &Record, base: &WebBase) -> Result<SuiteTask, String> {
    let o = &r.object;
    let id = id(o, "id")?;
    let at = |m: String| format!("id {id:?}: {m}");
    let ques = text(o, "ques").map_err(at)?;
    let url = base
        .resolve(&text(o, "web").map_err(at)?)
        .map_err(|e| at(format!("web: {e}")))?;
    let site = optional_text(o, "web_name").map_err(at)?;
    Ok(SuiteTask {
        task: agent_task(&id, r.line, &ques, url),
        id,
        line: r.line,
        level: None,
        site,
        reference_length: None,
    })
}

fn mind2web(r: &Record, base: &WebBase) -> Result<SuiteTask, String> {
    let o = &r.object;
    let id = id(o, "task_id")?;
    let at = |m: String| format!("task_id {id:?}: {m}");
    let task = text(o, "confirmed_task").map_err(at)?;
    let url = base
        .resolve(&text(o, "website").map_err(at)?)
        .map_err(|e| at(format!("website: {e}")))?;
    let level = optional_text(o, "level").map_err(at)?;
    let reference_length = match o.get("reference_length") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| at("\"reference_length\" must be a whole number".into()))?,
        ),
    };
    let site = url::Url::parse(&url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string));
    Ok(SuiteTask {
        task: agent_task(&id, r.line, &task, url),
        id,
        line: r.line,
        level,
        site,
        reference_length,
    })
}

/// A batch task line; relative `url`s resolve against the web base like the
/// other formats' addresses.
fn sightline(r: &Record, base: &WebBase, suite_dir: &Path) -> Result<SuiteTask, String> {
    let mut o = r.object.clone();
    if o.contains_key("mode") {
        return Err("\"mode\": eval runs every task in each of --modes; leave it out".into());
    }
    if let Some(Value::String(url)) = o.get("url") {
        if WebBase::is_relative(url) {
            let resolved = base.resolve(url).map_err(|e| format!("url: {e}"))?;
            o.insert("url".into(), Value::String(resolved));
        }
    }
    let mut task = parse_task_line(&Value::Object(o).to_string(), r.line, suite_dir)?;
    let TaskKind::Agent { task: goal } = &task.kind else {
        return Err(format!(
            "id {:?}: eval runs agent tasks (\"task\"), not {} tasks",
            task.id,
            task.kind.name()
        ));
    };
    if task.evaluate.is_none() {
        task.evaluate = Some(task_question(goal));
    }
    Ok(SuiteTask {
        id: task.id.clone(),
        line: r.line,
        level: None,
        site: task
            .url
            .as_deref()
            .and_then(|u| url::Url::parse(u).ok())
            .and_then(|u| u.host_str().map(str::to_string)),
        reference_length: None,
        task,
    })
}

fn agent_task(id: &str, line: usize, goal: &str, url: String) -> Task {
    Task {
        id: id.to_string(),
        line,
        kind: TaskKind::Agent { task: goal.to_string() },
        url: Some(url),
        vars: Default::default(),
        max_steps: None,
        allowed_domains: Vec::new(),
        model: None,
        mode: AgentMode::Dom,
        evaluate: Some(task_question(goal)),
    }
}

fn id(o: &Map<String, Value>, field: &str) -> Result<String, String> {
    match o.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(_) => Err(format!("\"{field}\" must be a non-empty string or a number")),
        None => Err(format!("no \"{field}\"")),
    }
}

fn text(o: &Map<String, Value>, field: &str) -> Result<String, String> {
    match o.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        Some(_) => Err(format!("\"{field}\" must be a non-empty string")),
        None => Err(format!("no \"{field}\"")),
    }
}

fn optional_text(o: &Map<String, Value>, field: &str) -> Result<Option<String>, String> {
    match o.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(_) => Err(format!("\"{field}\" must be a string")),
    }
}
