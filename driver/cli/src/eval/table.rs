//! What `sightline eval` prints: the suite and the judge, the comparison
//! across modes (judged success beside the agents' own claims, tasks solved
//! in any trial, mean steps and tokens, median time), and the judged
//! success rate per level and mode, and per site and mode.

use std::path::Path;

use sightline::suite::{EvalReport, Figures, ModeFigures, Rejudged};

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "—".into()
    } else {
        format!("{part} of {whole} ({:.1}%)", part as f64 / whole as f64 * 100.0)
    }
}

fn kilo(n: f64) -> String {
    if n >= 1000.0 {
        format!("{:.1}k", n / 1000.0)
    } else {
        format!("{n:.0}")
    }
}

/// Columns padded to their widest cell, two spaces apart.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| format!("{s:<w$}", w = widths[c]))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn mode_row(name: String, f: &Figures, tasks: usize) -> Vec<String> {
    vec![
        name,
        if f.unjudged > 0 {
            format!("{} ({} not judged)", percent(f.judged_yes, f.judgeable()), f.unjudged)
        } else {
            percent(f.judged_yes, f.runs)
        },
        percent(f.claimed, f.runs),
        format!("{} of {tasks}", f.tasks_solved),
        format!("{:.1}", f.mean_steps),
        kilo(f.mean_tokens),
        format!("{:.1} s", f.median_ms as f64 / 1000.0),
    ]
}

/// Judged success per group (a level, a site) and mode, after a blank
/// line; nothing for no groups.
fn judged_per<'a>(r: &EvalReport, what: &str, groups: impl Iterator<Item = (&'a str, &'a [ModeFigures])>) -> String {
    let mut rows = vec![std::iter::once(what.to_string())
        .chain(r.modes.iter().map(|m| m.to_string()))
        .collect::<Vec<_>>()];
    for (name, modes) in groups {
        let mut row = vec![name.to_string()];
        row.extend(
            modes
                .iter()
                .map(|m| percent(m.figures.judged_yes, m.figures.judgeable())),
        );
        rows.push(row);
    }
    if rows.len() == 1 {
        return String::new();
    }
    format!("\n{}", aligned(&rows))
}

/// A re-judging's account: the results it read, and what it did.
pub struct Rejudging<'a> {
    pub from: &'a Path,
    pub done: &'a Rejudged,
}

pub fn tables(r: &EvalReport, out: &Path, reports: Option<&Path>, rejudging: Option<Rejudging>) -> String {
    let runs: usize = r.by_mode.iter().map(|m| m.figures.runs).sum();
    let mut s = aligned(&[
        vec![
            "suite".into(),
            format!(
                "{} ({}: {} task(s) × {} mode(s) × {} trial(s) = {runs} runs; {} already had a result{})",
                r.suite.display(),
                r.format.name(),
                r.tasks,
                r.modes.len(),
                r.trials,
                r.already_done,
                if r.interrupted { "; interrupted" } else { "" }
            ),
        ],
        vec!["judge".into(), r.judge.clone()],
    ]);
    s.push('\n');
    let mut rows = vec![vec![
        "mode".to_string(),
        "judged success".into(),
        "agent's claim".into(),
        "solved".into(),
        "steps".into(),
        "tokens".into(),
        "time".into(),
    ]];
    for m in &r.by_mode {
        rows.push(mode_row(m.mode.to_string(), &m.figures, r.tasks));
    }
    s.push_str(&aligned(&rows));
    let levels = r.by_level.iter().map(|l| (l.level.as_str(), l.modes.as_slice()));
    s.push_str(&judged_per(r, "level", levels));
    let sites = r.by_site.iter().map(|g| (g.site.as_str(), g.modes.as_slice()));
    s.push_str(&judged_per(r, "site", sites));
    s.push('\n');
    let mut files = vec![vec!["results".to_string(), out.display().to_string()]];
    if let Some(Rejudging { from, done }) = &rejudging {
        files.push(vec![
            "judged again".into(),
            format!(
                "{} run(s) of {} from their kept evidence ({} answer(s) unreadable: INVALID, asked again by the \
same command); {} the judge did not answer; {} copied (no verdict to give again); {} without evidence; {} done \
before; {} not of this suite's runs in these modes and trials; {} planned run(s) it does not hold, left out",
                done.judged,
                from.display(),
                done.unreadable,
                done.unanswered,
                done.copied,
                done.without_evidence,
                done.already,
                done.outside_plan,
                done.not_in_source
            ),
        ]);
    }
    let unjudged: usize = r.by_mode.iter().map(|m| m.figures.unjudged).sum();
    if unjudged > 0 {
        let again = match rejudging {
            Some(_) => "the same --rejudge asks again (not for runs without evidence)",
            None => "--retry-failed asks again",
        };
        files.push(vec![
            "not judged".into(),
            format!("{unjudged} run(s): the judge could not be asked (see their verdicts); {again}"),
        ]);
    }
    if let Some(dir) = reports {
        files.push(vec!["reports".into(), dir.join("index.html").display().to_string()]);
    }
    s.push_str(&aligned(&files));
    s
}
