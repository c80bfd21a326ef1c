//! [`Suite`]: a suite file read and checked in full before anything runs;
//! every malformed record is named by its line, in one message.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::formats::{read_record, SuiteFormat, SuiteTask};
use super::records::records;
use super::web_base::WebBase;
use crate::error::{Error, Result};
use crate::files::{folder_of, LocalInputs};

/// At most this many problems are spelled out; the rest are counted.
const SHOWN_PROBLEMS: usize = 5;

/// A checked suite.
#[derive(Debug, Clone)]
pub struct Suite {
    pub path: PathBuf,
    pub format: SuiteFormat,
    pub tasks: Vec<SuiteTask>,
}

impl Suite {
    /// Reads `path` (WebVoyager, Online-Mind2Web or Sightline task lines;
    /// see [`SuiteFormat`]). Relative page addresses resolve against
    /// `web_base` when given, else against the file's folder.
    pub fn read(path: &Path, web_base: Option<&str>) -> Result<Suite> {
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::NoSuchFile {
                path: path.to_path_buf(),
                hint: None,
            },
            _ => Error::Io(format!("cannot read the suite {}: {e}", path.display())),
        })?;
        let base = match web_base {
            Some(url) => WebBase::url(url)?,
            None => WebBase::folder_of(path)?,
        };
        let dir = folder_of(path);
        let (format, tasks) = parse(&text, &base, &dir).map_err(|m| Error::Eval(format!("{}: {m}", path.display())))?;
        Ok(Suite {
            path: path.to_path_buf(),
            format,
            tasks,
        })
    }

    /// The local files the user gave the run: the suite's folder and its
    /// tasks' pages (resolved against a `file:` web base, or the folder).
    pub fn local_inputs(&self) -> LocalInputs {
        let dir = folder_of(&self.path);
        let mut inputs = LocalInputs::default();
        inputs.folders.push(dir.clone());
        for t in &self.tasks {
            t.task.local_inputs(&dir, &mut inputs);
        }
        inputs
    }
}

/// The format and tasks of a suite's text; the error is one line naming
/// every problem by line number.
pub fn parse(
    text: &str,
    base: &WebBase,
    suite_dir: &Path,
) -> std::result::Result<(SuiteFormat, Vec<SuiteTask>), String> {
    // (A byte-order mark, as spreadsheets and Windows tools write one, is no JSON.)
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let records = records(text).map_err(joined)?;
    let Some(first) = records.first() else {
        return Err("no tasks (WebVoyager or Online-Mind2Web records, or Sightline task lines)".into());
    };
    let format = SuiteFormat::of(&first.object);
    let mut tasks: Vec<SuiteTask> = Vec::new();
    let mut problems = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in &records {
        match read_record(format, r, base, suite_dir) {
            Ok(task) => match seen.get(&task.id) {
                Some(first) => problems.push(format!(
                    "line {}: duplicate id {:?} (first on line {first})",
                    r.line, task.id
                )),
                None => {
                    seen.insert(task.id.clone(), r.line);
                    tasks.push(task);
                }
            },
            Err(m) => problems.push(format!("line {}: {m}", r.line)),
        }
    }
    if problems.is_empty() {
        Ok((format, tasks))
    } else {
        Err(joined(problems))
    }
}

fn joined(problems: Vec<String>) -> String {
    let more = problems.len().saturating_sub(SHOWN_PROBLEMS);
    let mut message = problems.into_iter().take(SHOWN_PROBLEMS).collect::<Vec<_>>().join("; ");
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::TaskKind;

    fn base() -> WebBase {
        WebBase::url("http://127.0.0.1:8000/eval/").unwrap()
    }

    fn read(text: &str) -> std::result::Result<(SuiteFormat, Vec<SuiteTask>), String> {
        parse(text, &base(), Path::new("."))
    }

    #[test]
    fn a_byte_order_mark_is_no_problem() {
        let line = r#"{"web_name": "Shop", "id": "Shop--1", "ques": "Buy the lamp.", "web": "shop.html"}"#;
        let (format, tasks) = read(&format!("\u{feff}{line}\r\n")).unwrap();
        assert_eq!((format, tasks.len()), (SuiteFormat::WebVoyager, 1));
    }

    #[test]
    fn webvoyager_lines() {
        let (format, tasks) = read(concat!(
            r#"{"web_name": "Allrecipes", "id": "Allrecipes--0", "ques": "Find a vegan lasagna recipe.", "web": "https://www.allrecipes.com/"}"#,
            "\n",
            r#"{"web_name": "Shop", "id": "Shop--1", "ques": "Buy the lamp.", "web": "shop.html?item=lamp"}"#,
            "\n",
        ))
        .unwrap();
        assert_eq!(format, SuiteFormat::WebVoyager);
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].site.as_deref(), Some("Allrecipes"));
        assert_eq!(tasks[0].task.url.as_deref(), Some("https://www.allrecipes.com/"));
        assert!(matches!(&tasks[1].task.kind, TaskKind::Agent { task } if task == "Buy the lamp."));
        assert_eq!(
            tasks[1].task.url.as_deref(),
            Some("http://127.0.0.1:8000/eval/shop.html?item=lamp")
        );
        assert_eq!(
            tasks[1].task.evaluate.as_deref(),
            Some("Was this task completed? Task: Buy the lamp.")
        );
        assert_eq!(tasks[1].level, None);
    }

    #[test]
    fn online_mind2web_as_an_array_or_lines() {
        let record = |id: &str, level: &str| {
            format!(
                r#"{{"task_id": "{id}", "confirmed_task": "Buy the lamp", "website": "https://www.shop.example/", "reference_length": 4, "level": "{level}"}}"#
            )
        };
        let array = format!("[\n  {},\n  {}\n]\n", record("a1", "easy"), record("b2", "hard"));
        let (format, tasks) = read(&array).unwrap();
        assert_eq!(format, SuiteFormat::OnlineMind2Web);
        assert_eq!(tasks.iter().map(|t| t.line).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(tasks[1].level.as_deref(), Some("hard"));
        assert_eq!(tasks[0].reference_length, Some(4));
        assert_eq!(tasks[0].site.as_deref(), Some("www.shop.example"));
        let lines = format!("{}\n{}\n", record("a1", "easy"), record("b2", "medium"));
        let (format, tasks) = read(&lines).unwrap();
        assert_eq!((format, tasks.len()), (SuiteFormat::OnlineMind2Web, 2));
        assert_eq!(tasks[1].level.as_deref(), Some("medium"));
    }

    #[test]
    fn sightline_lines_are_agent_tasks() {
        let (format, tasks) = read(concat!(
            r#"{"id": "lamp", "task": "Buy the lamp", "url": "shop.html?item=lamp", "max_steps": 5}"#,
            "\n",
            r#"{"id": "kettle", "task": "Buy the kettle", "url": "shop.html?item=kettle", "evaluate": "Is the banner green?"}"#,
        ))
        .unwrap();
        assert_eq!(format, SuiteFormat::Sightline);
        assert_eq!(
            tasks[0].task.url.as_deref(),
            Some("http://127.0.0.1:8000/eval/shop.html?item=lamp")
        );
        assert_eq!(tasks[0].task.max_steps, Some(5));
        assert_eq!(tasks[1].task.evaluate.as_deref(), Some("Is the banner green?"));
        let e = read(r#"{"id": "s", "steps": [{"method": "reload"}]}"#).unwrap_err();
        assert!(e.contains("line 1: id \"s\": eval runs agent tasks"), "{e}");
        let e = read(r#"{"id": "s", "task": "x", "mode": "cua"}"#).unwrap_err();
        assert!(e.contains("each of --modes"), "{e}");
    }

    #[test]
    fn every_malformed_record_is_named_by_line() {
        let e = read(concat!(
            r#"{"web_name": "A", "id": "A--0", "ques": "x", "web": "https://a.example/"}"#,
            "\n",
            r#"{"web_name": "A", "id": "A--0", "ques": "y", "web": "https://a.example/"}"#,
            "\n",
            r#"{"web_name": "A", "id": "A--2", "web": "https://a.example/"}"#,
            "\n",
            r#"{"web_name": "A", "id": "A--3", "ques": "z", "web": 7}"#,
            "\n",
            r#"{"task_id": "m", "confirmed_task": "x", "website": "https://a.example/"}"#,
            "\n",
            "{broken\n",
        ))
        .unwrap_err();
        assert!(e.starts_with("line 6: not a JSON object"), "JSON first: {e}");
        let e = read(concat!(
            r#"{"web_name": "A", "id": "A--0", "ques": "x", "web": "https://a.example/"}"#,
            "\n",
            r#"{"web_name": "A", "id": "A--0", "ques": "y", "web": "https://a.example/"}"#,
            "\n",
            r#"{"web_name": "A", "id": "A--2", "web": "https://a.example/"}"#,
            "\n",
            r#"{"web_name": "A", "id": "A--3", "ques": "z", "web": 7}"#,
            "\n",
            r#"{"task_id": "m", "confirmed_task": "x", "website": "https://a.example/"}"#,
            "\n",
        ))
        .unwrap_err();
        assert!(e.contains("line 2: duplicate id \"A--0\" (first on line 1)"), "{e}");
        assert!(e.contains("line 3: id \"A--2\": no \"ques\""), "{e}");
        assert!(
            e.contains("line 4: id \"A--3\": \"web\" must be a non-empty string"),
            "{e}"
        );
        assert!(e.contains("line 5: not a WebVoyager record"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        let e = read(
            r#"[{"task_id": "m", "confirmed_task": "x", "website": "https://a.example/", "reference_length": "four"}]"#,
        )
        .unwrap_err();
        assert!(
            e.contains("line 1: task_id \"m\": \"reference_length\" must be a whole number"),
            "{e}"
        );
        assert!(read("\n").unwrap_err().contains("no tasks"));
    }
}
