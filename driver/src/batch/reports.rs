//! `--reports DIR`: the agent's HTML trace report per task (a judged steps
//! or extract task gets a page with its verdict), and an `index.html`
//! linking each with its pass/fail, the judge's verdict, steps, tokens and time.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use super::result::{TaskResult, TaskStatus};
use super::summary::Summary;
use super::task::Task;
use crate::error::Result;
use crate::files::write_atomically;
use crate::html::esc;

/// A report file name per task id: the id's safe characters, made unique
/// (ids are free text; two may differ only in characters a file name can't hold).
pub fn report_names(tasks: &[Task]) -> Vec<String> {
    let mut used = HashSet::new();
    tasks
        .iter()
        .map(|t| {
            let mut stem: String =
                t.id.chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .take(80)
                    .collect();
            if stem.is_empty() || stem.starts_with('.') || stem == "index" {
                stem.insert(0, 't');
            }
            let mut name = format!("{stem}.html");
            let mut k = 2;
            while !used.insert(name.clone()) {
                name = format!("{stem}-{k}.html");
                k += 1;
            }
            name
        })
        .collect()
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0 0 6px;font-size:20px}
main{padding:18px 28px}table{border-collapse:collapse;background:#fff;box-shadow:0 1px 3px #0002}
th,td{padding:6px 12px;text-align:left;border-bottom:1px solid #e3e6ea;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.s{display:inline-block;padding:1px 8px;border-radius:9px;font-weight:600;color:#fff}
.ok{background:#1f8f4e}.failed,.crashed{background:#c0392b}.timeout,.skipped{background:#d68910}
.none{background:#99a}.err{color:#8e1b10;max-width:60ch;word-break:break-word}
.YES{background:#1f8f4e}.NO{background:#c0392b}.INVALID{background:#d68910}
";

/// Writes `DIR/index.html` for `tasks` (in file order) with their newest results.
pub fn write_index(dir: &Path, tasks: &[Task], results: &[TaskResult]) -> Result<()> {
    let rows: Vec<(&Task, Option<&TaskResult>)> = tasks
        .iter()
        .map(|t| (t, results.iter().find(|r| r.id == t.id)))
        .collect();
    let finished: Vec<TaskResult> = rows.iter().filter_map(|(_, r)| r.cloned()).collect();
    let s = Summary::new(tasks, &finished);
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Batch results</title><style>{STYLE}</style></head><body>\
<header><h1>Batch results</h1>{} of {} ok ({:.0}%){} · median {:.1} s · p95 {:.1} s · {} tokens{}</header><main><table>\
<tr><th>Task</th><th>Status</th><th>Verdict</th><th>Steps</th><th>Tokens</th><th>Time</th><th>Attempts</th><th>Error</th></tr>",
        s.ok,
        s.tasks,
        s.success_rate * 100.0,
        s.judged_text()
            .map(|j| format!(" · <span id=\"judged\">{}</span>", esc(&j)))
            .unwrap_or_default(),
        s.median_ms as f64 / 1000.0,
        s.p95_ms as f64 / 1000.0,
        s.tokens,
        if s.failures.is_empty() {
            String::new()
        } else {
            format!(" · {}", esc(&s.failures_text()))
        }
    );
    for (task, result) in rows {
        let id = match result.and_then(|r| r.report.as_deref()) {
            Some(file) => format!("<a href=\"{}\">{}</a>", esc(file), esc(&task.id)),
            None => esc(&task.id),
        };
        let Some(r) = result else {
            let _ = write!(
                html,
                "<tr><td>{id}</td><td><span class=\"s none\">not run</span></td><td></td><td></td><td></td><td></td><td></td><td></td></tr>"
            );
            continue;
        };
        let _ =
            write!(
            html,
            "<tr><td>{id}</td><td><span class=\"s {}\">{}</span></td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{:.1} s</td><td class=\"n\">{}</td><td class=\"err\">{}</td></tr>",
            r.status,
            r.status,
            match &r.verdict {
                Some(v) => format!(
                    "<span class=\"s {e}\" title=\"{}\">{e}</span>",
                    esc(&v.reasoning),
                    e = v.evaluation
                ),
                None => String::new(),
            },
            r.steps,
            r.tokens,
            r.duration_ms as f64 / 1000.0,
            r.attempts,
            esc(r.error.as_deref().unwrap_or(if r.status == TaskStatus::Ok { "" } else { "—" }))
        );
    }
    html.push_str("</table></main></body></html>\n");
    write_atomically(&dir.join("index.html"), html.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::task_file::parse_tasks;
    use super::*;

    #[test]
    fn names_are_safe_and_unique() {
        let tasks = parse_tasks(
            concat!(
                "{\"id\": \"a/b\", \"task\": \"x\"}\n",
                "{\"id\": \"a?b\", \"task\": \"x\"}\n",
                "{\"id\": \"index\", \"task\": \"x\"}\n",
                "{\"id\": \"../up\", \"task\": \"x\"}\n",
            ),
            Path::new("."),
        )
        .unwrap();
        assert_eq!(
            report_names(&tasks),
            ["a_b.html", "a_b-2.html", "tindex.html", "t.._up.html"]
        );
    }

    #[test]
    fn the_index_links_reports_and_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = parse_tasks(
            "{\"id\": \"<a>\", \"task\": \"x\"}\n{\"id\": \"b\", \"task\": \"x\"}\n{\"id\": \"c\", \"task\": \"x\"}\n",
            Path::new("."),
        )
        .unwrap();
        let mut ok = TaskResult::new("<a>", TaskStatus::Ok, 1);
        ok.report = Some("_a_.html".into());
        let mut bad = TaskResult::new("b", TaskStatus::Crashed, 1);
        bad.error = Some("the page crashed".into());
        write_index(dir.path(), &tasks, &[ok, bad]).unwrap();
        let html = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
        assert!(html.contains("<a href=\"_a_.html\">&lt;a&gt;</a>"), "{html}");
        assert!(html.contains("crashed") && html.contains("the page crashed"));
        assert!(html.contains("not run"));
        assert!(html.contains("1 of 3 ok"));
    }
}
