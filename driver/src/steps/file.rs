//! Steps files: a JSON list (or `{"steps": […]}`, or `observe --json`'s
//! `{"actions": […]}`) of registry tool calls and Stagehand-style actions,
//! checked in full before anything runs.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{one_line, Error, Result};
use crate::files::LocalInputs;
use crate::page::{is_ref, Action, Method};
use crate::tools::{validate, Registry};

/// One step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A registry tool call: `{"tool": "click", "target": "e12"}` (the
    /// arguments beside `tool`, or under `args`).
    Tool { name: String, args: Value },
    /// A Stagehand-style action: `{"method": "click", "selector": "#go"}`.
    Action(Action),
}

impl Step {
    /// `click e12`, `fill #email`, `goto`: how reports name the step.
    pub fn label(&self) -> String {
        match self {
            Step::Action(a) => a.label(),
            Step::Tool { name, args } => match target_of(args) {
                Some(t) => format!("{name} {t}"),
                None => name.clone(),
            },
        }
    }

    /// Whether the step calls a model tool (act, extract, observe…), so it
    /// needs an LLM to run.
    pub fn needs_llm(&self) -> bool {
        match self {
            Step::Action(_) => false,
            Step::Tool { name, .. } => Registry::standard().get(name).is_some_and(|t| t.needs_llm),
        }
    }

    /// The local pages and uploads the step names (relative uploads taken
    /// against `base_dir`).
    pub fn local_inputs(&self, base_dir: Option<&Path>, into: &mut LocalInputs) {
        let text = |v: &Value| v.as_str().map(str::to_string);
        match self {
            Step::Action(a) => match a.method() {
                Ok(Method::Goto) => a.arguments.iter().for_each(|u| into.page(u)),
                Ok(Method::SetInputFiles) => a.arguments.iter().for_each(|p| into.upload(p, base_dir)),
                _ => {}
            },
            Step::Tool { name, args } => match Registry::standard().get(name).map(|t| t.name) {
                Some("goto") => args.get("url").and_then(text).iter().for_each(|u| into.page(u)),
                Some("upload") => args
                    .get("paths")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(text)
                    .for_each(|p| into.upload(&p, base_dir)),
                _ => {}
            },
        }
    }

    /// Whether the step names an element by a ref (so it needs a snapshot first).
    pub fn uses_ref(&self) -> bool {
        match self {
            Step::Action(a) => {
                a.ref_.as_deref().is_some_and(|r| !r.trim().is_empty())
                    || (a.method().ok() == Some(crate::page::Method::DragAndDrop)
                        && a.arguments.first().is_some_and(|x| is_ref(x)))
            }
            Step::Tool { args, .. } => ["target", "startTarget", "endTarget"]
                .iter()
                .any(|k| args.get(k).and_then(Value::as_str).is_some_and(is_ref)),
        }
    }
}

/// The element a tool call names, if any.
pub(crate) fn target_of(args: &Value) -> Option<&str> {
    ["target", "startTarget"]
        .iter()
        .find_map(|k| args.get(k).and_then(Value::as_str))
}

/// Reads a steps file: a JSON array of actions, `{"steps": [...]}`, or the
/// output of `sightline observe --json` (`{"actions": [...]}`); `-` is stdin.
pub fn read_steps(path: &Path) -> Result<Vec<Step>> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| Error::InvalidAction(format!("cannot read steps from stdin: {e}")))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::NoSuchFile {
                path: path.to_path_buf(),
                hint: None,
            },
            std::io::ErrorKind::InvalidData => {
                Error::InvalidAction(format!("{}: not a steps file: it is not UTF-8 text", path.display()))
            }
            _ => Error::InvalidAction(format!("cannot read {}: {e}", path.display())),
        })?
    };
    parse_steps(&text).map_err(|e| match e {
        Error::InvalidAction(m) => Error::InvalidAction(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Parses and validates steps (without a page): a JSON list of steps,
/// `{"steps": [...]}`, `sightline observe --json` output (`{"actions":
/// [...]}`), or one step alone. A byte-order mark before it is skipped.
pub fn parse_steps(text: &str) -> Result<Vec<Step>> {
    const EXPECTED: &str = "expected [{\"method\":\"click\",\"selector\":\"#go\"}, …]";
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Error::InvalidAction(format!("not a JSON list of steps ({e}); {EXPECTED}")))?;
    let raw = match value {
        Value::Array(steps) => steps,
        Value::Object(mut o) => match (o.remove("steps"), o.remove("actions")) {
            (Some(Value::Array(steps)), _) | (None, Some(Value::Array(steps))) => steps,
            (None, None) if o.contains_key("tool") || o.contains_key("method") => vec![Value::Object(o)],
            _ => {
                return Err(Error::InvalidAction(format!(
                    "not a list of steps: an object needs a \"steps\" list; {EXPECTED}"
                )))
            }
        },
        other => {
            return Err(Error::InvalidAction(format!(
                "not a list of steps: the file holds a JSON {}; {EXPECTED}",
                json_kind(&other)
            )))
        }
    };
    steps_from_values(raw)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

/// Validates steps already parsed as JSON (a batch task's `"steps"` list).
pub fn steps_from_values(raw: Vec<Value>) -> Result<Vec<Step>> {
    let registry = Registry::standard();
    let mut steps = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let step = parse_step(&registry, v)
            .map_err(|e| Error::InvalidAction(format!("step {}: {}", i + 1, strip_prefix(&e))))?;
        steps.push(step);
    }
    if steps.is_empty() {
        return Err(Error::InvalidAction("no steps".into()));
    }
    Ok(steps)
}

/// One entry: a tool call when it names a `tool`, else an action.
fn parse_step(registry: &Registry, v: Value) -> Result<Step> {
    let Value::Object(mut obj) = v else {
        return Err(Error::InvalidAction(format!(
            "expected an object like {{\"tool\":\"click\",\"target\":\"e3\"}}, got {v}"
        )));
    };
    if let Some(name) = obj.remove("tool") {
        let name = name
            .as_str()
            .ok_or_else(|| Error::InvalidAction("\"tool\" must be a tool name".into()))?
            .to_string();
        let tool = registry.get(&name).ok_or_else(|| {
            Error::InvalidAction(format!(
                "unknown tool {name:?} (known: {})",
                registry.tools().iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
            ))
        })?;
        let args = match obj.remove("args") {
            Some(args) if obj.is_empty() => args,
            Some(_) => {
                return Err(Error::InvalidAction(
                    "give a tool's arguments either under \"args\" or beside \"tool\", not both".into(),
                ))
            }
            None => Value::Object(Map::from_iter(obj)),
        };
        let args = validate(tool, args)?;
        return Ok(Step::Tool {
            name: tool.name.to_string(),
            args,
        });
    }
    let a: Action =
        serde_json::from_value(Value::Object(obj)).map_err(|e| Error::InvalidAction(one_line(&e.to_string())))?;
    a.validate()?;
    Ok(Step::Action(a))
}

fn strip_prefix(e: &Error) -> String {
    match e {
        Error::InvalidAction(m) => m.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_pages_and_uploads_steps_name() {
        let steps = parse_steps(
            r##"[{"tool": "goto", "url": "file:///srv/site/a.html"},
                {"tool": "navigate", "url": "https://example.com/"},
                {"tool": "upload", "target": "#cv", "paths": ["cv.pdf", "/abs/photo.png"]},
                {"method": "setInputFiles", "selector": "#f", "arguments": ["notes.txt"]},
                {"tool": "click", "target": "#go"}]"##,
        )
        .unwrap();
        let mut inputs = LocalInputs::default();
        for s in &steps {
            s.local_inputs(Some(Path::new("/tasks")), &mut inputs);
        }
        assert_eq!(inputs.folders, [std::path::PathBuf::from("/srv/site/")]);
        assert_eq!(
            inputs.files,
            ["/tasks/cv.pdf", "/abs/photo.png", "/tasks/notes.txt"].map(std::path::PathBuf::from)
        );
    }

    #[test]
    fn steps_files() {
        let steps = parse_steps(
            r##"[{"method":"fill","selector":"#email","arguments":["a@b.c"]},{"method":"click","ref":"e12"}]"##,
        )
        .unwrap();
        assert_eq!(steps.len(), 2);
        assert!(steps[1].uses_ref() && !steps[0].uses_ref());
        let wrapped = parse_steps(r#"{"steps":[{"method":"reload"}]}"#).unwrap();
        assert_eq!(wrapped[0].label(), "reload");
        let observed =
            parse_steps(r##"{"actions":[{"method":"click","selector":"#go","description":"Go"}],"usage":{}}"##)
                .unwrap();
        assert_eq!(observed[0].label(), "click #go");
        let e = parse_steps(r#"[{"method":"click","ref":"e1"},{"method":"fly"}]"#).unwrap_err();
        assert!(e.to_string().contains("step 2: unknown method \"fly\""), "{e}");
        assert!(parse_steps("[]").is_err());
        assert!(parse_steps("{").unwrap_err().to_string().contains("not a JSON list"));
        // One step alone, and a file that starts with a byte-order mark.
        let one = parse_steps(r##"{"tool":"click","target":"#go"}"##).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(parse_steps("\u{feff}[{\"method\":\"reload\"}]").unwrap().len(), 1);
        let e = parse_steps(r#"{"hello":1}"#).unwrap_err().to_string();
        assert!(e.contains("an object needs a \"steps\" list"), "{e}");
        let e = parse_steps("42").unwrap_err().to_string();
        assert!(e.contains("the file holds a JSON number"), "{e}");
    }

    #[test]
    fn tool_steps_come_from_the_registry() {
        let steps = parse_steps(
            r#"[{"tool":"click","target":"e3"},{"tool":"snapshot","args":{"mode":"viewport"}},{"tool":"navback"}]"#,
        )
        .unwrap();
        assert_eq!(
            steps[0],
            Step::Tool {
                name: "click".into(),
                args: serde_json::json!({"target": "e3"})
            }
        );
        assert!(steps[0].uses_ref());
        assert_eq!(steps[2].label(), "back", "aliases read as the tool's name");
        let e = parse_steps(r#"[{"tool":"fly"}]"#).unwrap_err().to_string();
        assert!(e.contains("step 1: unknown tool \"fly\""), "{e}");
        let e = parse_steps(r#"[{"tool":"click"}]"#).unwrap_err().to_string();
        assert!(e.contains("invalid arguments for click"), "{e}");
    }
}
