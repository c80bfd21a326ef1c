//! What a suite run measured: the judged success rate per mode and per
//! level, beside the agents' own claims, with steps, tokens and time
//! ([`EvalReport`]).

use std::path::PathBuf;

use serde::Serialize;

use super::file::Suite;
use super::formats::SuiteFormat;
use super::plan::EvalRun;
use crate::agent::AgentMode;
use crate::batch::{TaskResult, TaskStatus};
use crate::eval::Evaluation;

/// Levels in their natural order; any other sorts after them by name.
const LEVEL_ORDER: &[&str] = &["easy", "medium", "hard"];
/// The level of tasks that have none, in a suite where some have one.
pub const NO_LEVEL: &str = "none";
/// The site row of tasks that name none.
pub const NO_SITE: &str = "none";

/// Figures over a set of runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Figures {
    /// Runs planned.
    pub runs: usize,
    /// Runs with a result.
    pub finished: usize,
    /// The judge's verdicts.
    pub judged_yes: usize,
    pub judged_no: usize,
    pub judged_invalid: usize,
    /// Of the INVALID verdicts, those the judge could not be asked for
    /// (an outage, a timeout): `--retry-failed` asks again.
    pub unjudged: usize,
    /// `judged_yes / judgeable()`, 0 to 1: a run without a verdict (timed
    /// out, crashed, not run) counts as not done; one the judge could not
    /// be asked about, or that failed for a reason of its own (its model
    /// call), is no measure of the agent and counts neither way. `None`
    /// (null in JSON) when no run could be judged: 0 would read as "the
    /// agent failed every task".
    pub success_rate: Option<f64>,
    /// Runs whose agent said it succeeded (status ok): its own claim.
    pub claimed: usize,
    pub claimed_rate: f64,
    /// Tasks the judge said YES to in at least one trial.
    pub tasks_solved: usize,
    /// Means over the finished runs.
    pub mean_steps: f64,
    pub mean_tokens: f64,
    pub median_ms: u64,
    pub mean_ms: f64,
    /// Tokens of every finished run (the judge's not counted).
    pub tokens: u64,
}

impl Figures {
    /// Runs a verdict measures: all but those not judged.
    pub fn judgeable(&self) -> usize {
        self.runs - self.unjudged
    }

    fn of(runs: &[(&EvalRun, Option<&TaskResult>)]) -> Figures {
        let finished: Vec<&TaskResult> = runs.iter().filter_map(|(_, r)| *r).collect();
        let verdicts = |e: Evaluation| {
            finished
                .iter()
                .filter(|r| r.verdict.as_ref().is_some_and(|v| v.evaluation == e))
                .count()
        };
        let judged_yes = verdicts(Evaluation::Yes);
        let claimed = finished.iter().filter(|r| r.status == TaskStatus::Ok).count();
        let mut solved: Vec<usize> = runs
            .iter()
            .filter(|(_, r)| r.and_then(|r| r.verdict.as_ref()).is_some_and(|v| v.is_yes()))
            .map(|(run, _)| run.task)
            .collect();
        solved.sort_unstable();
        solved.dedup();
        let mut durations: Vec<u64> = finished.iter().map(|r| r.duration_ms).collect();
        durations.sort_unstable();
        let n = finished.len() as f64;
        let mean = |f: &dyn Fn(&TaskResult) -> f64| {
            if finished.is_empty() {
                0.0
            } else {
                finished.iter().map(|r| f(r)).sum::<f64>() / n
            }
        };
        let rate = |k: usize| {
            if runs.is_empty() {
                0.0
            } else {
                k as f64 / runs.len() as f64
            }
        };
        let unjudged = finished
            .iter()
            .filter(|r| r.verdict.as_ref().is_some_and(|v| v.unjudged))
            .count();
        let judgeable = runs.len() - unjudged;
        Figures {
            runs: runs.len(),
            finished: finished.len(),
            judged_yes,
            judged_no: verdicts(Evaluation::No),
            judged_invalid: verdicts(Evaluation::Invalid),
            unjudged,
            success_rate: (judgeable > 0).then(|| judged_yes as f64 / judgeable as f64),
            claimed,
            claimed_rate: rate(claimed),
            tasks_solved: solved.len(),
            mean_steps: mean(&|r| f64::from(r.steps)),
            mean_tokens: mean(&|r| r.tokens as f64),
            median_ms: durations
                .get(durations.len().saturating_sub(1) / 2)
                .copied()
                .unwrap_or(0),
            mean_ms: mean(&|r| r.duration_ms as f64),
            tokens: finished.iter().map(|r| r.tokens).sum(),
        }
    }
}

/// The figures of one mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModeFigures {
    pub mode: AgentMode,
    #[serde(flatten)]
    pub figures: Figures,
}

/// The figures of one level, per mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelFigures {
    pub level: String,
    pub modes: Vec<ModeFigures>,
}

/// The figures of one website (WebVoyager's `web_name`, Online-Mind2Web's
/// host), per mode: benchmark reports compare agents site by site.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteFigures {
    pub site: String,
    pub modes: Vec<ModeFigures>,
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOutcome {
    /// The run's id in the results file (`{task}@{mode}#{trial}`).
    pub id: String,
    /// The suite task's id.
    pub task: String,
    pub mode: AgentMode,
    pub trial: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// None: not run (yet).
    pub status: Option<TaskStatus>,
    pub evaluation: Option<Evaluation>,
}

/// What `sightline eval` reports.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub suite: PathBuf,
    pub format: SuiteFormat,
    /// Tasks of the suite.
    pub tasks: usize,
    pub modes: Vec<AgentMode>,
    pub trials: u32,
    /// The judge's model.
    pub judge: String,
    /// One entry per mode, in the order asked: the comparison across modes.
    pub by_mode: Vec<ModeFigures>,
    /// Per level (Online-Mind2Web's easy, medium, hard), each per mode;
    /// empty when no task has a level.
    pub by_level: Vec<LevelFigures>,
    /// Per website (by name), each per mode; empty unless the tasks name
    /// two sites or more.
    pub by_site: Vec<SiteFigures>,
    pub runs: Vec<RunOutcome>,
    /// Runs left alone because the results file had their verdict.
    pub already_done: usize,
    /// Ctrl-C stopped the run before every planned run ran.
    pub interrupted: bool,
}

impl EvalReport {
    /// Figures of `runs` from the newest `results` (a batch's, in any order).
    pub fn new(
        suite: &Suite,
        runs: &[EvalRun],
        modes: &[AgentMode],
        trials: u32,
        judge: String,
        results: &[TaskResult],
    ) -> EvalReport {
        let paired: Vec<(&EvalRun, Option<&TaskResult>)> = runs
            .iter()
            .map(|run| (run, results.iter().find(|r| r.id == run.id)))
            .collect();
        let level_of = |run: &EvalRun| suite.tasks[run.task].level.clone();
        let site_of = |run: &EvalRun| suite.tasks[run.task].site.clone();
        let by_mode_of = |filter: &dyn Fn(&EvalRun) -> bool| -> Vec<ModeFigures> {
            modes
                .iter()
                .map(|&mode| {
                    let of_mode: Vec<_> = paired
                        .iter()
                        .filter(|(r, _)| r.mode == mode && filter(r))
                        .copied()
                        .collect();
                    ModeFigures {
                        mode,
                        figures: Figures::of(&of_mode),
                    }
                })
                .collect()
        };
        // Each group's figures per mode, in `keys`' order; a task without
        // a key falls under `none`.
        let per_group = |keys: Vec<Option<String>>, key_of: &dyn Fn(&EvalRun) -> Option<String>, none: &str| {
            keys.into_iter()
                .map(|key| {
                    (
                        by_mode_of(&|r| key_of(r) == key),
                        key.unwrap_or_else(|| none.to_string()),
                    )
                })
                .collect::<Vec<_>>()
        };
        let mut levels: Vec<Option<String>> = suite.tasks.iter().map(|t| t.level.clone()).collect();
        levels.sort_by_key(|l| level_rank(l.as_deref()));
        levels.dedup();
        let by_level = if levels.iter().all(Option::is_none) {
            Vec::new()
        } else {
            per_group(levels, &level_of, NO_LEVEL)
                .into_iter()
                .map(|(modes, level)| LevelFigures { level, modes })
                .collect()
        };
        let mut sites: Vec<Option<String>> = suite.tasks.iter().map(|t| t.site.clone()).collect();
        // By name (then exactly, so equal names meet), tasks without a site last.
        sites.sort_by_key(|s| (s.is_none(), s.as_deref().map(str::to_ascii_lowercase), s.clone()));
        sites.dedup();
        let by_site = if sites.iter().flatten().count() < 2 {
            Vec::new()
        } else {
            per_group(sites, &site_of, NO_SITE)
                .into_iter()
                .map(|(modes, site)| SiteFigures { site, modes })
                .collect()
        };
        EvalReport {
            suite: suite.path.clone(),
            format: suite.format,
            tasks: suite.tasks.len(),
            modes: modes.to_vec(),
            trials,
            judge,
            by_mode: by_mode_of(&|_| true),
            by_level,
            by_site,
            runs: paired
                .iter()
                .map(|(run, result)| RunOutcome {
                    id: run.id.clone(),
                    task: suite.tasks[run.task].id.clone(),
                    mode: run.mode,
                    trial: run.trial,
                    level: level_of(run),
                    site: site_of(run),
                    status: result.map(|r| r.status),
                    evaluation: result.and_then(|r| r.verdict.as_ref()).map(|v| v.evaluation),
                })
                .collect(),
            already_done: 0,
            interrupted: false,
        }
    }
}

/// easy < medium < hard < other levels by name < no level.
fn level_rank(level: Option<&str>) -> (usize, String) {
    match level {
        None => (LEVEL_ORDER.len() + 1, String::new()),
        Some(l) => {
            let lower = l.to_ascii_lowercase();
            let known = LEVEL_ORDER.iter().position(|k| *k == lower);
            (known.unwrap_or(LEVEL_ORDER.len()), lower)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::file::parse;
    use super::super::plan::expand;
    use super::super::web_base::WebBase;
    use super::*;
    use crate::eval::Verdict;

    fn suite() -> Suite {
        let text = concat!(
            r#"[{"task_id": "a", "confirmed_task": "Buy the lamp", "website": "https://a.example/", "level": "hard"},"#,
            r#" {"task_id": "b", "confirmed_task": "Buy the kettle", "website": "https://b.example/", "level": "easy"}]"#,
        );
        let base = WebBase::url("http://127.0.0.1:1/").unwrap();
        let (format, tasks) = parse(text, &base, std::path::Path::new(".")).unwrap();
        Suite {
            path: "suite.json".into(),
            format,
            tasks,
        }
    }

    fn result(id: &str, status: TaskStatus, evaluation: Option<Evaluation>, steps: u32, ms: u64) -> TaskResult {
        let mut r = TaskResult::new(id, status, 1);
        r.steps = steps;
        r.tokens = 100;
        r.duration_ms = ms;
        r.verdict = evaluation.map(|evaluation| Verdict {
            evaluation,
            reasoning: String::new(),
            unjudged: false,
            judged: None,
        });
        r
    }

    #[test]
    fn success_is_judged_per_mode_and_level_beside_the_claims() {
        let suite = suite();
        let modes = [AgentMode::Dom, AgentMode::Cua];
        let (tasks, runs) = expand(&suite, &modes, 2);
        assert_eq!(runs.len(), 8);
        assert_eq!(tasks[0].id, "a@dom#1");
        assert_eq!(tasks[1].mode, AgentMode::Cua);
        assert_eq!(runs[7].id, "b@cua#2");
        let (ok, yes, no) = (TaskStatus::Ok, Some(Evaluation::Yes), Some(Evaluation::No));
        let results = vec![
            // dom: the lamp is done once, the kettle never, though the agent claims it every time.
            result("a@dom#1", ok, yes, 2, 1000),
            result("a@dom#2", ok, no, 4, 3000),
            result("b@dom#1", ok, no, 2, 2000),
            result("b@dom#2", ok, no, 2, 2000),
            // cua: everything done; one run not run yet.
            result("a@cua#1", ok, yes, 3, 500),
            result("a@cua#2", TaskStatus::Failed, yes, 3, 500),
            result("b@cua#1", ok, yes, 3, 500),
        ];
        let r = EvalReport::new(&suite, &runs, &modes, 2, "openai/m".into(), &results);
        let dom = &r.by_mode[0].figures;
        assert_eq!((dom.runs, dom.finished, dom.judged_yes, dom.judged_no), (4, 4, 1, 3));
        assert!((dom.success_rate.unwrap() - 0.25).abs() < 1e-9 && (dom.claimed_rate - 1.0).abs() < 1e-9);
        assert_eq!((dom.tasks_solved, dom.median_ms, dom.tokens), (1, 2000, 400));
        assert!((dom.mean_steps - 2.5).abs() < 1e-9);
        let cua = &r.by_mode[1].figures;
        assert_eq!(
            (cua.runs, cua.finished, cua.judged_yes, cua.claimed, cua.tasks_solved),
            (4, 3, 3, 2, 2)
        );
        assert!(
            (cua.success_rate.unwrap() - 0.75).abs() < 1e-9,
            "a run without a verdict is not a success"
        );
        let levels: Vec<&str> = r.by_level.iter().map(|l| l.level.as_str()).collect();
        assert_eq!(levels, ["easy", "hard"]);
        assert_eq!(r.by_level[0].modes[0].figures.judged_yes, 0, "easy in dom: the kettle");
        assert_eq!(
            r.by_level[1].modes[1].figures.judged_yes, 2,
            "hard in cua: the lamp twice"
        );
        let sites: Vec<&str> = r.by_site.iter().map(|s| s.site.as_str()).collect();
        assert_eq!(sites, ["a.example", "b.example"]);
        assert_eq!(
            r.by_site[0].modes[0].figures.judged_yes, 1,
            "a.example in dom: the lamp once"
        );
        assert_eq!(
            r.by_site[1].modes[1].figures.runs, 2,
            "b.example in cua: both trials planned"
        );
        assert_eq!(r.runs[7].site.as_deref(), Some("b.example"));
        assert_eq!(r.runs[7].status, None);
        assert_eq!(r.runs[0].evaluation, yes);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["by_mode"][1]["mode"], "cua");
        assert_eq!(json["by_mode"][1]["judged_yes"], 3, "figures are flattened: {json}");
        assert_eq!(json["format"], "online-mind2web");
        assert_eq!(json["by_site"][1]["site"], "b.example");
    }

    #[test]
    fn a_run_not_judged_counts_neither_way() {
        let suite = suite();
        let modes = [AgentMode::Dom];
        let (_, runs) = expand(&suite, &modes, 1);
        let mut outage = result("b@dom#1", TaskStatus::Failed, None, 0, 10);
        outage.verdict = Some(Verdict::unjudged("not judged: the run failed before its end"));
        let results = vec![
            result("a@dom#1", TaskStatus::Ok, Some(Evaluation::Yes), 2, 1000),
            outage,
        ];
        let r = EvalReport::new(&suite, &runs, &modes, 1, "openai/m".into(), &results);
        let dom = &r.by_mode[0].figures;
        assert_eq!((dom.runs, dom.unjudged, dom.judgeable(), dom.judged_yes), (2, 1, 1, 1));
        assert!((dom.success_rate.unwrap() - 1.0).abs() < 1e-9, "{dom:?}");

        // Nothing judgeable is no rate at all, not 0%.
        let mut first = result("a@dom#1", TaskStatus::Failed, None, 0, 10);
        first.verdict = Some(Verdict::unjudged("not judged: the run failed before its end"));
        let mut second = result("b@dom#1", TaskStatus::Failed, None, 0, 10);
        second.verdict = first.verdict.clone();
        let r = EvalReport::new(&suite, &runs, &modes, 1, "openai/m".into(), &[first, second]);
        assert_eq!(r.by_mode[0].figures.success_rate, None);
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["by_mode"][0]["success_rate"].is_null(), "{json}");
    }

    #[test]
    fn sites_are_rows_once_each_and_one_site_gives_no_table() {
        let mut suite = suite();
        let report = |suite: &Suite| {
            let (_, runs) = expand(suite, &[AgentMode::Dom], 1);
            EvalReport::new(suite, &runs, &[AgentMode::Dom], 1, "openai/m".into(), &[])
        };
        let more = suite.tasks[0].clone();
        suite.tasks.push(more);
        let names = ["shop", "Shop", "shop"];
        for (t, name) in suite.tasks.iter_mut().zip(names) {
            t.site = Some(name.into());
        }
        let sites: Vec<String> = report(&suite).by_site.into_iter().map(|s| s.site).collect();
        assert_eq!(sites, ["Shop", "shop"]);
        for t in &mut suite.tasks {
            t.site = Some("shop".into());
        }
        assert!(report(&suite).by_site.is_empty());
        suite.tasks[0].site = None;
        assert!(
            report(&suite).by_site.is_empty(),
            "one named site and tasks without one"
        );
    }
}
