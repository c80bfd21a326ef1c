//! A suite file as records: JSON lines (one object a line), or a JSON array
//! of objects (as Online-Mind2Web ships), each record with the line it
//! starts on, so every problem can be named by line.

use serde_json::{Map, Value};

/// One record of a suite file.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line it starts on (1-based).
    pub line: usize,
    pub object: Map<String, Value>,
}

/// The records of `text`; the error names every problem by line.
pub fn records(text: &str) -> Result<Vec<Record>, Vec<String>> {
    let start = text.trim_start();
    if start.starts_with('[') {
        return array_records(text);
    }
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(object)) => out.push(Record { line: i + 1, object }),
            Ok(_) => problems.push(format!("line {}: not a JSON object", i + 1)),
            Err(e) => problems.push(format!("line {}: not a JSON object ({})", i + 1, short(&e))),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// A JSON array: checked whole, then each element's first line found.
fn array_records(text: &str) -> Result<Vec<Record>, Vec<String>> {
    let items = match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => items,
        Ok(_) => {
            return Err(vec![
                "line 1: a suite file is a JSON array of tasks or one JSON object a line".into(),
            ])
        }
        Err(e) => return Err(vec![format!("line {}: not valid JSON ({})", e.line(), short(&e))]),
    };
    let lines = element_lines(text);
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (k, item) in items.into_iter().enumerate() {
        let line = lines.get(k).copied().unwrap_or(1);
        match item {
            Value::Object(object) => out.push(Record { line, object }),
            _ => problems.push(format!("line {line}: item {} is not a JSON object", k + 1)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The line each top-level element of a valid JSON array starts on.
fn element_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut line = 1;
    let mut expecting = false;
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if expecting && !c.is_whitespace() && c != ']' {
            lines.push(line);
            expecting = false;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    expecting = true;
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    lines
}

/// serde_json's message without its position (the line is given apart).
fn short(e: &serde_json::Error) -> String {
    let m = e.to_string();
    m.split(" at line ").next().unwrap_or(&m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_and_arrays_keep_their_lines() {
        let lines = records("{\"a\": 1}\n\n{\"a\": 2}\n").unwrap();
        assert_eq!(lines.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 3]);
        let array = records("[\n  {\"a\": \"x, ]\"},\n  {\n    \"a\": [1, {\"b\": 2}]\n  },{\"a\": 3}\n]\n").unwrap();
        assert_eq!(array.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 3, 5]);
        assert_eq!(array[1].object["a"][1]["b"], 2);
    }

    #[test]
    fn problems_are_named_by_line() {
        let e = records("{\"a\": 1}\n[1]\n{oops\n").unwrap_err();
        assert_eq!(e.len(), 2);
        assert!(e[0].starts_with("line 2: not a JSON object"), "{e:?}");
        assert!(e[1].starts_with("line 3: not a JSON object ("), "{e:?}");
        let e = records("[\n {\"a\": 1},\n 7\n]").unwrap_err();
        assert_eq!(e, ["line 3: item 2 is not a JSON object"]);
        let e = records("[\n {\"a\": 1},\n {\"a\": }\n]").unwrap_err();
        assert!(e[0].starts_with("line 3: not valid JSON"), "{e:?}");
    }
}
