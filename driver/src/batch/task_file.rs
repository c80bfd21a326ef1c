//! Task files (JSON lines), checked in full before anything runs: every
//! malformed line, unknown field and duplicate id is reported by its line
//! number, in one message.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::task::{Task, TaskKind};
use crate::agent::AgentMode;
use crate::ai::Variables;
use crate::domains::AllowedDomains;
use crate::error::{Error, Result};
use crate::eval::task_question;
use crate::files::{folder_of, LocalInputs};
use crate::llm::schema::check_schema;
use crate::page::resolve_target;
use crate::steps::steps_from_values;

/// The fields a task line may carry.
pub const TASK_FIELDS: &[&str] = &[
    "id",
    "task",
    "steps",
    "extract",
    "url",
    "vars",
    "max_steps",
    "allowed_domains",
    "model",
    "mode",
    "evaluate",
];

/// At most this many problems are spelled out (a wrong file could have
/// thousands); the rest are counted.
const SHOWN_PROBLEMS: usize = 20;

/// A validated task file.
#[derive(Debug, Clone)]
pub struct TaskFile {
    pub path: PathBuf,
    pub tasks: Vec<Task>,
}

impl TaskFile {
    /// Reads and validates `path`. Relative `url` paths and upload paths
    /// are taken against the file's directory.
    pub fn read(path: &Path) -> Result<TaskFile> {
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::NoSuchFile {
                path: path.to_path_buf(),
                hint: None,
            },
            _ => Error::Io(format!("cannot read the task file {}: {e}", path.display())),
        })?;
        let base = base_dir(path);
        let tasks = parse_tasks(&text, &base).map_err(|m| Error::Batch(format!("{}: {m}", path.display())))?;
        Ok(TaskFile {
            path: path.to_path_buf(),
            tasks,
        })
    }

    /// The directory relative paths are taken against.
    pub fn base_dir(&self) -> PathBuf {
        base_dir(&self.path)
    }

    /// The local files the user gave the run: the task file's folder, the
    /// tasks' start pages and their steps' pages and uploads.
    pub fn local_inputs(&self) -> LocalInputs {
        let base = self.base_dir();
        let mut inputs = LocalInputs::default();
        inputs.folders.push(base.clone());
        for task in &self.tasks {
            task.local_inputs(&base, &mut inputs);
        }
        inputs
    }
}

fn base_dir(path: &Path) -> PathBuf {
    folder_of(path)
}

/// Parses task lines; the error is one line naming every problem by line
/// number: each of a line's problems, and a duplicate id even on a line
/// with other problems.
pub fn parse_tasks(text: &str, base_dir: &Path) -> std::result::Result<Vec<Task>, String> {
    // (A byte-order mark, as spreadsheets and Windows tools write one, is no JSON.)
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut tasks = Vec::new();
    let mut problems = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let (id, parsed) = parse_line(line, n, base_dir);
        if let Some(id) = id {
            match seen.get(&id) {
                Some(first) => problems.push(format!("line {n}: duplicate id {id:?} (first on line {first})")),
                None => {
                    seen.insert(id, n);
                }
            }
        }
        match parsed {
            Ok(task) => tasks.push(task),
            Err(found) => problems.extend(found.into_iter().map(|m| format!("line {n}: {m}"))),
        }
    }
    if !problems.is_empty() {
        // A whole file of lines that are no JSON object (YAML, a JSON array
        // over many lines, CSV) is the wrong format, said once up front.
        let not_objects = problems.iter().filter(|p| p.contains(": not a JSON object")).count();
        let format_hint = (not_objects == problems.len() && tasks.is_empty()).then_some(
            "the task file is JSON lines: one JSON object per line, e.g. {\"id\": \"a\", \"task\": \"…\"} \
(not YAML, CSV or one JSON array); ",
        );
        let more = problems.len().saturating_sub(SHOWN_PROBLEMS);
        let mut message = problems.into_iter().take(SHOWN_PROBLEMS).collect::<Vec<_>>().join("; ");
        if more > 0 {
            message.push_str(&format!("; and {more} more"));
        }
        return Err(format!("{}{message}", format_hint.unwrap_or_default()));
    }
    if tasks.is_empty() {
        return Err("no tasks (one JSON object per line, e.g. {\"id\": \"a\", \"task\": \"…\"})".into());
    }
    Ok(tasks)
}

/// One task line (line `n` of its file; relative paths taken against
/// `base_dir`); the error names every problem found in it.
pub fn parse_task_line(line: &str, n: usize, base_dir: &Path) -> std::result::Result<Task, String> {
    parse_line(line, n, base_dir).1.map_err(|problems| problems.join("; "))
}

/// One line: its id (when it has a usable one, for the duplicate check),
/// and its task or every problem found in it.
fn parse_line(line: &str, n: usize, base_dir: &Path) -> (Option<String>, std::result::Result<Task, Vec<String>>) {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            let e = e.to_string();
            let e = e.split(" at line ").next().unwrap_or(&e).to_string();
            return (None, Err(vec![format!("not a JSON object ({e})")]));
        }
    };
    let Value::Object(mut obj) = value else {
        return (None, Err(vec!["not a JSON object".into()]));
    };
    let mut problems = Vec::new();
    for unknown in obj.keys().filter(|k| !TASK_FIELDS.contains(&k.as_str())) {
        problems.push(format!("unknown field {unknown:?} (known: {})", TASK_FIELDS.join(", ")));
    }
    let id = match obj.remove("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
        Some(Value::Number(num)) => Some(num.to_string()),
        Some(_) => {
            problems.push("\"id\" must be a non-empty string or a number".into());
            None
        }
        None => {
            problems.push("no \"id\"".into());
            None
        }
    };
    // The rest is named by the task's id, when it has one.
    let mut fail = |m: String| match &id {
        Some(id) => problems.push(format!("id {id:?}: {m}")),
        None => problems.push(m),
    };
    let kind = kind(&mut obj).map_err(&mut fail).ok();
    let url_given = obj.get("url").is_some_and(|u| !u.is_null());
    let url = match obj.remove("url") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => resolve_url(&s, base_dir).map_err(&mut fail).ok(),
        Some(_) => {
            fail("\"url\" must be a string".into());
            None
        }
    };
    let vars = vars(obj.remove("vars")).map_err(&mut fail).unwrap_or_default();
    let max_steps = match obj.remove("max_steps") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(k) if k >= 1 && k <= u64::from(u32::MAX) => Some(k as u32),
            _ => {
                fail("\"max_steps\" must be a whole number ≥ 1".into());
                None
            }
        },
    };
    let allowed_domains = match obj.remove("allowed_domains") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) if list.iter().all(Value::is_string) => list
            .into_iter()
            .filter_map(|d| d.as_str().map(str::to_string))
            .collect(),
        Some(_) => {
            fail("\"allowed_domains\" must be a list of strings".into());
            Vec::new()
        }
    };
    if matches!(kind, Some(TaskKind::Extract { .. })) && !url_given {
        fail("an extract task needs a \"url\" to read".into());
    }
    if let Some(url) = &url {
        if !AllowedDomains::new(&allowed_domains).allows(url) {
            fail(format!("url {url} is outside allowed_domains"));
        }
    }
    let model = match obj.remove("model") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
        Some(_) => {
            fail("\"model\" must be a model name".into());
            None
        }
    };
    let is_agent = matches!(kind, Some(TaskKind::Agent { .. }));
    let mode = match obj.remove("mode") {
        None | Some(Value::Null) => AgentMode::default(),
        Some(Value::String(m)) if is_agent => m.parse().map_err(&mut fail).unwrap_or_default(),
        Some(Value::String(_)) => {
            fail("\"mode\" is for agent tasks (\"task\")".into());
            AgentMode::default()
        }
        Some(_) => {
            fail("\"mode\" must be dom, hybrid or cua".into());
            AgentMode::default()
        }
    };
    let evaluate = match (obj.remove("evaluate"), &kind) {
        (None | Some(Value::Null) | Some(Value::Bool(false)), _) => None,
        (Some(Value::String(q)), _) if !q.trim().is_empty() => Some(q),
        (Some(Value::Bool(true)), Some(TaskKind::Agent { task })) => Some(task_question(task)),
        (Some(Value::Bool(true)), _) => {
            fail(
                "\"evaluate\": true asks whether an agent's task was done; give steps and extract tasks a question"
                    .into(),
            );
            None
        }
        _ => {
            fail("\"evaluate\" must be a question (or true for agent tasks)".into());
            None
        }
    };
    let task = match (problems.is_empty(), &id, kind) {
        (true, Some(id), Some(kind)) => Ok(Task {
            id: id.clone(),
            line: n,
            kind,
            url,
            vars,
            max_steps,
            allowed_domains,
            model,
            mode,
            evaluate,
        }),
        _ => Err(problems),
    };
    (id, task)
}

/// `vars`: an object of strings, valid variable names.
fn vars(value: Option<Value>) -> std::result::Result<Variables, String> {
    match value {
        None | Some(Value::Null) => Ok(Variables::default()),
        Some(Value::Object(map)) => {
            let mut vars = BTreeMap::new();
            for (k, v) in map {
                let Value::String(v) = v else {
                    return Err(format!("vars.{k} must be a string"));
                };
                vars.insert(k, v);
            }
            Variables::new(vars).map_err(|e| strip_invalid(&e))
        }
        Some(_) => Err("\"vars\" must be an object of strings".into()),
    }
}

/// Exactly one of `task`, `steps` and `extract`.
fn kind(obj: &mut Map<String, Value>) -> std::result::Result<TaskKind, String> {
    let given: Vec<&str> = ["task", "steps", "extract"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect();
    match given.as_slice() {
        [] => return Err("give one of \"task\" (agent), \"steps\" or \"extract\"".into()),
        [_] => {}
        more => return Err(format!("give only one of {}", more.join(", "))),
    }
    if let Some(task) = obj.remove("task") {
        return match task {
            Value::String(s) if !s.trim().is_empty() => Ok(TaskKind::Agent { task: s }),
            _ => Err("\"task\" must be a non-empty string".into()),
        };
    }
    if let Some(steps) = obj.remove("steps") {
        let Value::Array(list) = steps else {
            return Err("\"steps\" must be a list of steps".into());
        };
        return steps_from_values(list)
            .map(TaskKind::Steps)
            .map_err(|e| strip_invalid(&e));
    }
    let Some(Value::Object(mut extract)) = obj.remove("extract") else {
        return Err("\"extract\" must be {\"instruction\": \"…\", \"schema\": {…}}".into());
    };
    if let Some(unknown) = extract
        .keys()
        .find(|k| !["instruction", "schema"].contains(&k.as_str()))
    {
        return Err(format!("unknown field extract.{unknown} (known: instruction, schema)"));
    }
    let instruction = match extract.remove("instruction") {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        _ => return Err("extract.instruction must be a non-empty string".into()),
    };
    let schema = match extract.remove("schema") {
        None | Some(Value::Null) => None,
        Some(schema) => {
            check_schema(&schema).map_err(|e| format!("extract.schema: {e}"))?;
            Some(schema)
        }
    };
    Ok(TaskKind::Extract { instruction, schema })
}

/// A URL as `sightline run` takes it; a relative path is taken against the task file's directory.
fn resolve_url(input: &str, base_dir: &Path) -> std::result::Result<String, String> {
    let is_url = url::Url::parse(input.trim()).is_ok();
    let target = if !is_url && Path::new(input.trim()).is_relative() {
        base_dir.join(input.trim()).to_string_lossy().into_owned()
    } else {
        input.to_string()
    };
    resolve_target(&target).map_err(|e| e.to_string())
}

/// The message of an invalid-action error without its "invalid action: " prefix.
fn strip_invalid(e: &Error) -> String {
    match e {
        Error::InvalidAction(m) => m.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> std::result::Result<Vec<Task>, String> {
        parse_tasks(text, Path::new("."))
    }

    #[test]
    fn a_byte_order_mark_is_no_problem() {
        let tasks = parse(
            "\u{feff}{\"id\": \"a\", \"url\": \"http://127.0.0.1:8/\", \"steps\": [{\"tool\": \"snapshot\"}]}\r\n",
        )
        .unwrap();
        assert_eq!(tasks[0].id, "a");
    }

    #[test]
    fn the_three_kinds_and_their_options() {
        let tasks = parse(concat!(
            r#"{"id": "a", "task": "find the price", "url": "http://127.0.0.1:8/x", "max_steps": 5, "model": "m", "vars": {"pw": "s"}}"#,
            "\n\n",
            r##"{"id": 7, "steps": [{"tool": "click", "target": "#go"}, {"method": "reload"}]}"##,
            "\n",
            r#"{"id": "c", "extract": {"instruction": "the title", "schema": {"type": "object"}}, "url": "http://127.0.0.1:8/", "allowed_domains": ["127.0.0.1"]}"#,
        ))
        .unwrap();
        assert_eq!(tasks.len(), 3);
        assert!(matches!(&tasks[0].kind, TaskKind::Agent { task } if task == "find the price"));
        assert_eq!(tasks[0].max_steps, Some(5));
        assert_eq!(tasks[0].url.as_deref(), Some("http://127.0.0.1:8/x"));
        assert_eq!(tasks[1].id, "7");
        assert_eq!(tasks[1].line, 3, "blank lines count");
        assert!(matches!(&tasks[1].kind, TaskKind::Steps(s) if s.len() == 2));
        assert!(!tasks[1].kind.needs_llm());
        assert!(tasks[2].kind.needs_llm());
    }

    #[test]
    fn every_problem_is_named_by_line() {
        let e = parse(concat!(
            r#"{"id": "a", "task": "x"}"#,
            "\n",
            r#"{"id": "a", "task": "y"}"#,
            "\n",
            "{not json\n",
            r#"{"id": "b", "task": "x", "colour": "red"}"#,
            "\n",
            r#"{"id": "c", "task": "x", "steps": []}"#,
            "\n",
            r#"{"id": "d", "steps": [{"method": "fly"}]}"#,
            "\n",
            "[1, 2]\n",
        ))
        .unwrap_err();
        assert!(e.contains("line 2: duplicate id \"a\" (first on line 1)"), "{e}");
        assert!(e.contains("line 3: not a JSON object"), "{e}");
        assert!(e.contains("line 4: unknown field \"colour\""), "{e}");
        assert!(e.contains("line 5: id \"c\": give only one of task, steps"), "{e}");
        assert!(e.contains("line 6: id \"d\": step 1: unknown method \"fly\""), "{e}");
        assert!(e.contains("line 7: not a JSON object"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        assert!(!e.contains("the task file is JSON lines"), "some lines are tasks: {e}");
        // A YAML file: the format is named once, before the lines.
        let e = parse("- id: a\n  task: buy shoes\n- id: b\n  task: sell hats\n").unwrap_err();
        assert!(
            e.starts_with("the task file is JSON lines: one JSON object per line"),
            "{e}"
        );
        assert!(e.contains("line 1: not a JSON object"), "{e}");
    }

    #[test]
    fn a_duplicate_id_is_named_alongside_the_lines_other_problems() {
        let e = parse(concat!(
            r#"{"id": "a", "task": "x"}"#,
            "\n",
            r#"{"id": "a", "task": "y", "colour": "red", "max_steps": 0, "model": 3}"#,
            "\n",
        ))
        .unwrap_err();
        for want in [
            "line 2: duplicate id \"a\" (first on line 1)",
            "line 2: unknown field \"colour\"",
            "line 2: id \"a\": \"max_steps\" must be",
            "line 2: id \"a\": \"model\" must be",
        ] {
            assert!(e.contains(want), "{want} in {e}");
        }
        let many: String = (0..25).map(|i| format!("{{\"id\": {i}}}\n")).collect();
        let e = parse(&many).unwrap_err();
        assert!(e.contains("line 20:") && !e.contains("line 21:"), "{e}");
        assert!(e.ends_with("; and 5 more"), "{e}");
    }

    #[test]
    fn mode_and_evaluate() {
        let tasks = parse(concat!(
            r#"{"id": "a", "task": "buy the lamp", "mode": "cua", "evaluate": true}"#,
            "\n",
            r#"{"id": "b", "steps": [{"method": "reload"}], "evaluate": "Is the banner green?"}"#,
        ))
        .unwrap();
        assert_eq!(tasks[0].mode, AgentMode::Cua);
        assert_eq!(
            tasks[0].evaluate.as_deref(),
            Some("Was this task completed? Task: buy the lamp")
        );
        assert_eq!(tasks[1].mode, AgentMode::Dom);
        assert_eq!(tasks[1].evaluate.as_deref(), Some("Is the banner green?"));
        for (line, want) in [
            (r#"{"id": "a", "task": "x", "mode": "vision"}"#, "dom, hybrid or cua"),
            (
                r#"{"id": "a", "steps": [{"method": "reload"}], "mode": "cua"}"#,
                "for agent tasks",
            ),
            (
                r#"{"id": "a", "steps": [{"method": "reload"}], "evaluate": true}"#,
                "give steps and extract tasks a question",
            ),
            (r#"{"id": "a", "task": "x", "evaluate": ""}"#, "must be a question"),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
        let e = parse_task_line(
            r#"{"id": "a", "task": "x", "mode": 3, "max_steps": 0}"#,
            4,
            Path::new("."),
        )
        .unwrap_err();
        assert!(
            e.contains("\"mode\" must be") && e.contains("; "),
            "every problem, one line: {e}"
        );
    }

    #[test]
    fn fields_are_checked() {
        for (line, want) in [
            (r#"{"task": "x"}"#, "no \"id\""),
            (r#"{"id": "a"}"#, "give one of"),
            (r#"{"id": "a", "task": "x", "max_steps": 0}"#, "max_steps"),
            (
                r#"{"id": "a", "task": "x", "vars": {"bad name": "v"}}"#,
                "variable name",
            ),
            (
                r#"{"id": "a", "extract": {"instruction": "x", "schema": 3}}"#,
                "extract.schema",
            ),
            (r#"{"id": "a", "extract": {"instruction": "x"}}"#, "needs a \"url\""),
            (
                r#"{"id": "a", "extract": {"instruction": "x", "shape": {}}}"#,
                "extract.shape",
            ),
            (
                r#"{"id": "a", "task": "x", "url": "ftp://h/x"}"#,
                "unsupported URL scheme",
            ),
            (
                r#"{"id": "a", "task": "x", "url": "http://evil.test/", "allowed_domains": ["127.0.0.1"]}"#,
                "outside allowed_domains",
            ),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
        assert!(parse("\n\n").unwrap_err().contains("no tasks"));
    }
}
