//! Plays steps on a page: registry tool calls through the registry, actions
//! through the page's action executor.
//!
//! Refs in steps refer to a snapshot the runner takes before the first step
//! that uses a ref, and takes again after the page navigated. When a step
//! opens a new tab (a popup, a `target=_blank` link), the following steps run
//! in that tab. The run stops at the first failing step.
//!
//! JavaScript dialogs: steps that answer them (a `handleDialog` step) find
//! them held open, and the step that opened one ends there and says so, as
//! over MCP. Without such steps they are dismissed at once, and the step
//! that opened one says that too (a cancelled confirm, a navigation a
//! `beforeunload` prompt kept from leaving).

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use super::file::{target_of, Step};
use crate::browser::{Browser, TabMove};
use crate::error::{Error, Result};
use crate::llm::Llm;
use crate::page::{ActionResult, DialogHolds, Page, SnapshotOptions, Target};
use crate::tools::{Registry, ToolContext, ToolSettings};

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
    /// What the step gave: its result as data when the tool gives it a
    /// shape (evaluate's value, extract's data), else its text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
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

/// Plays steps; see the module docs.
pub struct Runner<'b> {
    browser: &'b Browser,
    page: Page,
    llm: Option<&'b Llm>,
    registry: Registry,
    settings: ToolSettings,
    /// Main-frame commits when the last snapshot was taken, and its refs' selectors.
    snapshot: Option<(u64, Vec<(String, String)>)>,
    /// The steps answer dialogs: they are held open for them.
    holds_dialogs: bool,
}

impl<'b> Runner<'b> {
    /// Relative upload paths are taken against `base_dir` (the steps
    /// file's directory in `sightline run`).
    pub fn new(browser: &'b Browser, page: Page, base_dir: Option<PathBuf>) -> Self {
        Runner {
            browser,
            page,
            llm: None,
            registry: Registry::standard(),
            settings: ToolSettings {
                base_dir,
                ..ToolSettings::default()
            },
            snapshot: None,
            holds_dialogs: false,
        }
    }

    /// Lets model tool steps (act, extract…) run.
    pub fn with_llm(mut self, llm: &'b Llm) -> Self {
        self.llm = Some(llm);
        self
    }

    /// Tool steps follow these settings (variables, allowed domains…)
    /// instead of the defaults; they replace the `base_dir` given to `new`.
    pub fn with_settings(mut self, settings: ToolSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Tool steps read this registry (default: the standard one).
    pub fn with_registry(mut self, registry: Registry) -> Self {
        self.registry = registry;
        self
    }

    /// The tab the steps run in now.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// Runs the steps in order, calling `on_step` after each; stops at the
    /// first failure, which is returned with the report.
    pub async fn run(
        &mut self,
        steps: &[Step],
        mut on_step: impl FnMut(usize, &StepReport),
    ) -> (RunReport, Option<Error>) {
        let mut reports = Vec::new();
        let mut failure = None;
        self.holds_dialogs = steps.iter().any(|s| self.answers_dialogs(s));
        // The tabs whose dialogs the run held: given back at the end, so the
        // page is left as it was given.
        let mut held = DialogHolds::default();
        if self.holds_dialogs {
            held.hold(&self.page);
        }
        for (i, step) in steps.iter().enumerate() {
            let started = Instant::now();
            let outcome = self.step(step).await;
            let target = match step {
                Step::Action(a) => a.target(),
                Step::Tool { args, .. } => target_of(args).map(Target::parse),
            };
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
                method: match step {
                    Step::Action(a) => a.method.clone(),
                    Step::Tool { name, .. } => name.clone(),
                },
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
                    report.value = r.data.or_else(|| r.value.map(serde_json::Value::String));
                    report.notes = r.notes;
                    // Follow a tab the step opened, or back from one that closed.
                    if let Some(moved) = self.browser.tab_after_step(&self.page).await {
                        report.notes.push(match &moved {
                            TabMove::NewTab { url, .. } => format!("continuing in the new tab {url}"),
                            TabMove::BackToOpener { url, .. } => {
                                format!("the tab closed; continuing in the tab that opened it, {url}")
                            }
                            TabMove::Refused(why) => why.clone(),
                        });
                        if let Some(p) = moved.page() {
                            // (An opener came back to holds its dialogs already.)
                            if self.holds_dialogs && matches!(moved, TabMove::NewTab { .. }) {
                                held.hold(p);
                            }
                            self.page = p.clone();
                            self.snapshot = None;
                        }
                    }
                }
                // The page closed its own tab as the step ran (a sign-in
                // pop-up's window.close()): the step did its job, and the run
                // goes on in the tab that opened it.
                Err(Error::TabClosed) => match self.browser.tab_after_step(&self.page).await {
                    Some(TabMove::BackToOpener { page, url }) => {
                        report.notes.push(format!(
                            "the page closed its tab as the step ran; continuing in the tab that opened it, {url}"
                        ));
                        self.page = page;
                        self.snapshot = None;
                    }
                    _ => {
                        report.error = Some(Error::TabClosed.to_string());
                        failure = Some(Error::TabClosed);
                    }
                },
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
        held.release().await;
        let (url, title) = match &failure {
            // A page that stopped answering (or died) would not say: what the
            // browser lists still does, at once.
            Some(Error::PageNotResponding { .. } | Error::BusyAfterInput { .. } | Error::PageCrashed) => {
                self.page.listed().await
            }
            _ => (
                self.page.url().await.unwrap_or_default(),
                self.page.title().await.unwrap_or_default(),
            ),
        };
        (
            RunReport {
                steps: reports,
                url,
                title,
            },
            failure,
        )
    }

    /// Whether `step` answers a dialog.
    fn answers_dialogs(&self, step: &Step) -> bool {
        matches!(step, Step::Tool { name, .. } if self.registry.get(name).is_some_and(|t| t.name == "handleDialog"))
    }

    /// Runs one step, and says what became of a dialog it opened.
    async fn step(&mut self, step: &Step) -> Result<ActionResult> {
        let answering = self.answers_dialogs(step);
        let page = self.page.clone();
        if let (Some(open), false) = (page.dialog(), answering) {
            return Err(Error::InvalidAction(format!(
                "a {} dialog is open: a handleDialog step answers it, and must come before this one",
                open.said()
            )));
        }
        let mark = page.event_mark();
        let mut result = if self.holds_dialogs && !answering {
            match page.unless_a_dialog_opens(self.perform_step(step)).await {
                Some(r) => r?,
                None => ActionResult {
                    notes: vec![format!(
                        "it opened a {} dialog, held open for the next handleDialog step",
                        page.dialog().map(|d| d.said()).unwrap_or_default()
                    )],
                    ..ActionResult::default()
                },
            }
        } else {
            self.perform_step(step).await?
        };
        // Dialogs the default policy answered: said, never silent.
        for m in page.console_messages(mark) {
            if let Some(said) = m.text.strip_prefix("dialog dismissed: ") {
                result.notes.push(format!(
                    "the page's {said} dialog was dismissed (a handleDialog step after this one answers it instead)"
                ));
            }
        }
        Ok(result)
    }

    async fn perform_step(&mut self, step: &Step) -> Result<ActionResult> {
        if step.uses_ref() {
            let commits = self.page.tracker().with(|s| s.commits);
            if self.snapshot.as_ref().map(|(c, _)| *c) != Some(commits) {
                let snap = self.page.snapshot(&SnapshotOptions::default()).await?;
                let refs = snap.refs.iter().map(|(k, v)| (k.clone(), v.selector.clone())).collect();
                let commits = self.page.tracker().with(|s| s.commits);
                self.snapshot = Some((commits, refs));
            }
        }
        match step {
            Step::Action(a) => self.page.perform(a, self.settings.base_dir.as_deref()).await,
            Step::Tool { name, args } => {
                let ctx = ToolContext::new(self.page.clone(), &self.settings)
                    .with_browser(self.browser)
                    .with_llm(self.llm);
                let out = self.registry.call(&ctx, name, args.clone()).await;
                self.page = ctx.page();
                let out = out?;
                if !out.ok {
                    return Err(Error::InvalidAction(format!("{name}: {}", out.text)));
                }
                Ok(ActionResult {
                    value: Some(out.text),
                    data: out.data,
                    rect: out.rect,
                    ..ActionResult::default()
                })
            }
        }
    }
}
