//! Deterministic runs: a list of [`Action`]s played on a page with no LLM
//! (`sightline run URL --steps steps.json`).
//!
//! Refs in steps refer to a snapshot the runner takes before the first step
//! that uses a ref, and takes again after the page navigated. When a step
//! opens a new tab (a popup, a `target=_blank` link), the following steps run
//! in that tab. The run stops at the first failing step.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::action::Action;
use crate::browser::Browser;
use crate::error::{Error, Result};
use crate::page::Page;
use crate::snapshot::SnapshotOptions;
use crate::target::Target;

/// What one step did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StepReport {
    pub ok: bool,
    pub method: String,
    /// The step's selector, or for a ref step the engine selector the
    /// snapshot gave for that ref (resolvable again in its frame).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub ref_: Option<String>,
    /// The element acted on, as the engine describes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub ms: f64,
}

/// The whole run: `{"steps":[…],"url","title"}`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunReport {
    pub steps: Vec<StepReport>,
    /// Where the run ended (the tab it ended in).
    pub url: String,
    pub title: String,
}

/// Reads a steps file: a JSON array of actions, `{"steps": [...]}`, or the
/// output of `sightline observe --json` (`{"actions": [...]}`); `-` is stdin.
pub fn read_steps(path: &Path) -> Result<Vec<Action>> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| Error::InvalidAction(format!("cannot read steps from stdin: {e}")))?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|_| Error::NoSuchFile {
            path: path.to_path_buf(),
            hint: None,
        })?
    };
    parse_steps(&text).map_err(|e| match e {
        Error::InvalidAction(m) => Error::InvalidAction(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Parses and validates steps (without a page).
pub fn parse_steps(text: &str) -> Result<Vec<Action>> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum File {
        List(Vec<serde_json::Value>),
        Object {
            steps: Vec<serde_json::Value>,
        },
        /// `sightline observe --json` output: its actions run as steps.
        Observed {
            actions: Vec<serde_json::Value>,
        },
    }
    let file: File = serde_json::from_str(text).map_err(|e| {
        Error::InvalidAction(format!(
            "not a JSON list of steps ({e}); expected [{{\"method\":\"click\",\"selector\":\"#go\"}}, …]"
        ))
    })?;
    let raw = match file {
        File::List(v) | File::Object { steps: v } | File::Observed { actions: v } => v,
    };
    let mut steps = Vec::with_capacity(raw.len());
    for (i, v) in raw.into_iter().enumerate() {
        let a: Action = serde_json::from_value(v)
            .map_err(|e| Error::InvalidAction(format!("step {}: {}", i + 1, crate::error::one_line(&e.to_string()))))?;
        a.validate()
            .map_err(|e| Error::InvalidAction(format!("step {}: {}", i + 1, strip_prefix(&e))))?;
        steps.push(a);
    }
    if steps.is_empty() {
        return Err(Error::InvalidAction("no steps".into()));
    }
    Ok(steps)
}

fn strip_prefix(e: &Error) -> String {
    match e {
        Error::InvalidAction(m) => m.clone(),
        other => other.to_string(),
    }
}

/// Plays steps; see the module docs.
pub struct Runner<'b> {
    browser: &'b Browser,
    page: Page,
    /// Relative `setInputFiles` paths are taken against this directory.
    base_dir: Option<PathBuf>,
    /// Main-frame commits when the last snapshot was taken, and its refs' selectors.
    snapshot: Option<(u64, Vec<(String, String)>)>,
}

impl<'b> Runner<'b> {
    pub fn new(browser: &'b Browser, page: Page, base_dir: Option<PathBuf>) -> Self {
        Runner {
            browser,
            page,
            base_dir,
            snapshot: None,
        }
    }

    /// The tab the steps run in now.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Runs the steps in order, calling `on_step` after each; stops at the
    /// first failure, which is returned with the report.
    pub async fn run(
        &mut self,
        steps: &[Action],
        mut on_step: impl FnMut(usize, &StepReport),
    ) -> (RunReport, Option<Error>) {
        let mut reports = Vec::new();
        let mut failure = None;
        for (i, step) in steps.iter().enumerate() {
            let started = Instant::now();
            let outcome = self.step(step).await;
            let target = step.target();
            let ref_ = match &target {
                Some(Target::Ref(r)) => Some(r.clone()),
                _ => None,
            };
            let selector = match &target {
                Some(Target::Ref(r)) => self
                    .snapshot
                    .as_ref()
                    .and_then(|(_, refs)| refs.iter().find(|(k, _)| k == r).map(|(_, s)| s.clone())),
                Some(Target::Selector { selector, .. }) => Some(selector.clone()),
                None => None,
            };
            let mut report = StepReport {
                ok: outcome.is_ok(),
                method: step.method.clone(),
                selector,
                ref_,
                element: None,
                value: None,
                notes: Vec::new(),
                error: None,
                ms: 0.0,
            };
            match outcome {
                Ok(r) => {
                    report.element = r.element;
                    report.value = r.value;
                    report.notes = r.notes;
                    // Follow a tab the step opened.
                    match self.browser.take_popup(&self.page).await {
                        Ok(Some(p)) => {
                            let url = p.url().await.unwrap_or_default();
                            report.notes.push(format!("continuing in the new tab {url}"));
                            self.page = p;
                            self.snapshot = None;
                        }
                        Ok(None) => {}
                        Err(e) => tracing::debug!("run: new tab: {e}"),
                    }
                }
                Err(e) => {
                    report.error = Some(e.to_string());
                    failure = Some(e);
                }
            }
            report.ms = started.elapsed().as_secs_f64() * 1000.0;
            on_step(i, &report);
            reports.push(report);
            if failure.is_some() {
                break;
            }
        }
        let url = self.page.url().await.unwrap_or_default();
        let title = self.page.title().await.unwrap_or_default();
        (
            RunReport {
                steps: reports,
                url,
                title,
            },
            failure,
        )
    }

    async fn step(&mut self, step: &Action) -> Result<crate::actions::ActionResult> {
        let uses_ref = matches!(step.target(), Some(Target::Ref(_)))
            || (step.method()? == crate::action::Method::DragAndDrop
                && step.arguments.first().is_some_and(|a| crate::target::is_ref(a)));
        if uses_ref {
            let commits = self.page.tracker().with(|s| s.commits);
            if self.snapshot.as_ref().map(|(c, _)| *c) != Some(commits) {
                let snap = self.page.snapshot(&SnapshotOptions::default()).await?;
                let refs = snap.refs.iter().map(|(k, v)| (k.clone(), v.selector.clone())).collect();
                let commits = self.page.tracker().with(|s| s.commits);
                self.snapshot = Some((commits, refs));
            }
        }
        self.page.perform(step, self.base_dir.as_deref()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_files() {
        let steps = parse_steps(
            r##"[{"method":"fill","selector":"#email","arguments":["a@b.c"]},{"method":"click","ref":"e12"}]"##,
        )
        .unwrap();
        assert_eq!(steps.len(), 2);
        let wrapped = parse_steps(r#"{"steps":[{"method":"reload"}]}"#).unwrap();
        assert_eq!(wrapped[0].method, "reload");
        let observed =
            parse_steps(r##"{"actions":[{"method":"click","selector":"#go","description":"Go"}],"usage":{}}"##)
                .unwrap();
        assert_eq!(observed[0].selector.as_deref(), Some("#go"));
        let e = parse_steps(r#"[{"method":"click","ref":"e1"},{"method":"fly"}]"#).unwrap_err();
        assert!(e.to_string().contains("step 2: unknown method \"fly\""), "{e}");
        assert!(parse_steps("[]").is_err());
        assert!(parse_steps("{").unwrap_err().to_string().contains("not a JSON list"));
    }
}
