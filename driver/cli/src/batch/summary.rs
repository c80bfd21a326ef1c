//! The table `sightline batch` prints at the end (with the judged success
//! rate beside the run status when tasks ask a judge).

use std::path::Path;

use sightline::batch::BatchReport;

fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// Two aligned columns: success rate, this run, durations, tokens, failures by kind, files.
pub fn table(report: &BatchReport, out: &Path, reports: Option<&Path>) -> String {
    let s = &report.summary;
    let mut rows: Vec<(&str, String)> = vec![(
        "tasks",
        format!("{} ({} ok, {:.1}% success)", s.tasks, s.ok, s.success_rate * 100.0),
    )];
    if let Some(judged) = s.judged_text() {
        rows.push(("judged", judged));
    }
    rows.extend([
        (
            "this run",
            format!(
                "{} ran, {} already had a result{}",
                report.ran.len(),
                report.already_done,
                if report.interrupted { " (interrupted)" } else { "" }
            ),
        ),
        (
            "duration",
            format!("median {}, p95 {}", seconds(s.median_ms), seconds(s.p95_ms)),
        ),
        ("tokens", s.tokens.to_string()),
        (
            "failures",
            if s.failures.is_empty() {
                "none".to_string()
            } else {
                s.failures_text()
            },
        ),
    ]);
    if s.not_run > 0 {
        rows.push(("not run", s.not_run.to_string()));
    }
    rows.push(("results", out.display().to_string()));
    if let Some(dir) = reports {
        rows.push(("reports", dir.join("index.html").display().to_string()));
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter().map(|(k, v)| format!("{k:<width$}  {v}\n")).collect()
}
