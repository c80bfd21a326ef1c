//! What every agent run shares, whatever its mode: the start (task, start
//! URL within the allowed domains), registry tool calls under the tool
//! timeout and Ctrl-C, leaving pages outside the allowed domains, the
//! replay record, the trace of each call (with a screenshot for
//! `--report`), progress, and how the run ends.

use std::future::Future;

use serde_json::Value;

use super::judge::judge;
use super::options::AgentOptions;
use super::prompts;
use super::repeats::RepeatGuard;
use super::replay::{SavedRun, RUN_FORMAT};
use super::result::{ActionTrace, AgentAction, AgentResult, Screenshot};
use crate::ai::ActOptions;
use crate::base64;
use crate::browser::Browser;
use crate::domains::AllowedDomains;
use crate::error::{Error, Result};
use crate::eval::Verdict;
use crate::llm::{Llm, LlmError, Secrets, Usage};
use crate::page::{is_ref, names_its_own_identity, resolve_target, DialogHolds, Page, Shot};
use crate::tools::{
    done, handle_dialog, think, Finish, RecordedCall, Registry, Tool, ToolContext, ToolOutput, ToolSettings,
};

/// How a run ended.
pub(super) enum End {
    /// The `done` tool.
    Done(Finish),
    NotCompleted(String),
    /// The run could not go on for a reason of its own (the model call
    /// failed): no measure of the agent, so not judged.
    Failed(String),
    Interrupted,
}

impl End {
    /// How a run ends on a failed model call: an outage (the provider
    /// overloaded, down or unreachable, after the retries) measured nothing
    /// of the agent and is not judged; a refused request (a context window
    /// overflowed, a bad base URL) is the run's own end, judged as it stands.
    pub(super) fn model_failed(e: &LlmError) -> End {
        let said = format!("the model call failed: {e}");
        match e {
            LlmError::Call { kind, .. } if kind.is_retryable() => End::Failed(said),
            _ => End::NotCompleted(said),
        }
    }
}

/// One run's state.
pub(super) struct Harness<'a> {
    pub page: Page,
    pub llm: &'a Llm,
    pub opts: &'a AgentOptions,
    pub task: String,
    pub secrets: Secrets,
    pub domains: AllowedDomains,
    pub settings: ToolSettings,
    /// The page's browser, when the caller gave it: new tabs are followed.
    pub browser: Option<&'a Browser>,
    pub result: AgentResult,
    /// Turns repeated on an unchanged page.
    pub repeats: RepeatGuard,
    /// The model answers dialogs itself (handleDialog): every tab the run
    /// comes to holds them (see [`Harness::hold_dialogs`]).
    pub dialog_holds: Option<DialogHolds>,
}

/// A registry call as the run did it.
pub(super) struct Applied {
    pub output: ToolOutput,
    /// The tool may have changed the page.
    pub changed_page: bool,
}

impl<'a> Harness<'a> {
    pub fn new(page: Page, llm: &'a Llm, opts: &'a AgentOptions, task: &str) -> Harness<'a> {
        let act = ActOptions {
            variables: opts.variables.clone(),
            ..opts.act.clone()
        };
        let domains = AllowedDomains::new(&opts.allowed_domains);
        let settings = ToolSettings {
            variables: opts.variables.clone(),
            base_dir: act.base_dir.clone(),
            act,
            allowed_domains: domains.clone(),
            snapshot_budget: opts.snapshot_budget,
            output_dir: None,
            tree_header: true,
            // (Screenshots go to the model.)
            images_to_files: false,
        };
        let task = task.trim().to_string();
        Harness {
            page,
            llm,
            opts,
            result: AgentResult {
                task: task.clone(),
                mode: opts.mode,
                ..AgentResult::default()
            },
            task,
            secrets: opts.variables.secrets(),
            domains,
            settings,
            browser: None,
            repeats: RepeatGuard::default(),
            dialog_holds: None,
        }
    }

    /// Checks the task, opens the start URL (within the allowed domains)
    /// and starts the replay record.
    pub async fn start(&mut self) -> Result<()> {
        if self.task.is_empty() {
            return Err(Error::InvalidAction("the agent needs a task".into()));
        }
        self.result.run = SavedRun {
            sightline_run: RUN_FORMAT,
            task: self.task.clone(),
            start_url: None,
            variables: self.opts.variables.names(),
            steps: Vec::new(),
        };
        if let Some(url) = &self.opts.start_url {
            let url = resolve_target(url)?;
            if !self.domains.allows(&url) {
                return Err(Error::InvalidAction(format!(
                    "the start URL {url} is outside the allowed domains ({})",
                    self.domains.entries().join(", ")
                )));
            }
            self.page.goto(&url).await?;
            self.result.run.start_url = Some(url);
        } else {
            self.result.run.start_url = Some(self.page.url().await?).filter(|u| u != "about:blank");
        }
        Ok(())
    }

    pub fn cancelled(&self) -> bool {
        self.opts.cancel.as_ref().is_some_and(|c| *c.borrow())
    }

    /// Runs `fut` unless the run is cancelled first (`None`).
    pub async fn unless_cancelled<T>(&self, fut: impl Future<Output = T>) -> Option<T> {
        let Some(mut cancel) = self.opts.cancel.clone() else {
            return Some(fut.await);
        };
        tokio::select! {
            r = fut => Some(r),
            _ = cancel.wait_for(|c| *c) => None,
        }
    }

    /// Runs one registry call within the tool timeout, leaves a page
    /// outside the allowed domains, extends the replay record and counts
    /// the tool's model use; `None` when the run was cancelled meanwhile.
    /// (The caller records the call with [`Harness::record`].)
    pub async fn apply(&mut self, tools: &Registry, name: &str, args: &Value) -> Option<Applied> {
        // A held dialog stops the page: only its answer runs meanwhile (and
        // what needs no page: thinking, finishing).
        let tool = tools.get(name);
        let answers_dialog = tool.is_some_and(|t| t.name == handle_dialog::TOOL.name);
        let needs_no_page = tool.is_some_and(|t| [done::TOOL.name, think::TOOL.name].contains(&t.name));
        if let Some(d) = self.page.dialog().filter(|_| !answers_dialog && !needs_no_page) {
            return Some(Applied {
                output: ToolOutput::failed(prompts::dialog_open(&d)),
                changed_page: false,
            });
        }
        // (A held dialog stops the page's scripts: the browser's list says where it is.)
        let held = self.page.dialog().is_some();
        let url_before = if held {
            self.page.listed().await.0
        } else {
            self.page.url().await.unwrap_or_default()
        };
        let timeout = self.opts.tool_timeout;
        let (tab_before, refusals_before) = (self.page.clone(), self.page.refusal_mark());
        let mut ctx = ToolContext::new(self.page.clone(), &self.settings).with_llm(Some(self.llm));
        if let Some(b) = self.browser {
            ctx = ctx.with_browser(b);
        }
        let run = tokio::time::timeout(timeout, tools.call(&ctx, name, args.clone()));
        // A dialog the call opens ends it there (the page waits for the answer).
        let run = async {
            if answers_dialog || held {
                Some(run.await)
            } else {
                self.page.unless_a_dialog_opens(run).await
            }
        };
        let mut output = match self.unless_cancelled(run).await? {
            None => {
                let mut out = match self.page.dialog() {
                    Some(d) => ToolOutput::ok(format!("It opened a dialog. {}", prompts::dialog_open(&d))),
                    None => ToolOutput::ok("It opened a dialog, which is closed now."),
                };
                // Cut short, it kept no record of itself: the call as made,
                // its refs as selectors, replays it (and the dialog with it).
                if let Some(call) = tool.and_then(|t| self.cut_call(t, args)) {
                    out.replay.push(call);
                }
                out
            }
            Some(Err(_)) => ToolOutput::failed(format!("{name} timed out after {}", crate::time::spoken(timeout))),
            // The page closed its own tab as the call ran (a sign-in
            // pop-up's window.close() on Approve): the call did its job, and
            // the run goes back to the tab that opened it (below). Recorded
            // as made, as a call a dialog cut short.
            Some(Ok(Err(Error::TabClosed))) => {
                let mut out = ToolOutput::ok(format!("{name} ran, and the page closed its tab as it did."));
                if let Some(call) = tool.and_then(|t| self.cut_call(t, args)) {
                    out.replay.push(call);
                }
                out
            }
            Some(Ok(Ok(o))) => o,
            Some(Ok(Err(e))) => ToolOutput::failed(e.to_string()),
        };
        // A tool may have moved the session to another tab, or the page opened one.
        self.page = ctx.page();
        if let Some(note) = self.follow_tabs().await {
            output.text.push_str(&format!("\n{note}"));
        }
        if let Some(holds) = self.dialog_holds.as_mut() {
            holds.hold(&self.page);
        }
        if self.page.dialog().is_some() {
            // (Nothing else can be read of the page until the answer.)
            self.keep(&mut output);
            return Some(Applied {
                output,
                changed_page: true,
            });
        }
        if output.finish.is_some() {
            return Some(Applied {
                output,
                changed_page: false,
            });
        }
        if (output.rect.is_some() || output.point.is_some()) && self.page.url().await.unwrap_or_default() != url_before
        {
            // The box belongs to the page before the navigation: the point stays
            // (it is where the action happened), the box goes.
            output.rect = None;
        }
        let changed_page = tool.is_some_and(|t| t.changes_page);
        // The browser refused where the call would have taken the tab (a
        // link, a form, a new tab for that site): the call did not do what
        // it was for (the result says what was refused), and is no step to
        // replay.
        let refused = tab_before
            .refusals_since(refusals_before)
            .iter()
            .any(|r| r.closed_tab || (!r.frame && r.tab == tab_before.target_id()));
        if refused {
            output.ok = false;
        }
        if changed_page {
            if let Some(note) = self.enforce_domains().await {
                output.ok = false;
                output.text.push_str(&format!("\n{note}"));
            }
        }
        self.keep(&mut output);
        Some(Applied { output, changed_page })
    }

    /// Adds a call's replay record (when it did its job) and model use to
    /// the run's.
    fn keep(&mut self, output: &mut ToolOutput) {
        if output.ok {
            // (The text around an element is the page's: no secret in the record.)
            for step in &mut output.replay {
                step.context = step.context.as_deref().map(|c| self.secrets.redact(c));
                for a in &mut step.actions {
                    a.context = a.context.as_deref().map(|c| self.secrets.redact(c));
                }
            }
            self.result.run.steps.append(&mut output.replay);
        }
        self.result.usage += output.usage;
    }

    /// The record of a page-changing call a dialog cut short: as made, each
    /// ref target as the snapshot's selector of its element (refs die with
    /// the page). `None` for a model tool (its record is what it resolved to).
    fn cut_call(&self, tool: &Tool, args: &Value) -> Option<RecordedCall> {
        if !tool.changes_page || tool.needs_llm {
            return None;
        }
        let mut args = args.clone();
        for key in ["target", "startTarget"] {
            let Some(r) = args
                .get(key)
                .and_then(Value::as_str)
                .filter(|r| is_ref(r))
                .map(str::to_string)
            else {
                continue;
            };
            let (selector, frame) = self.page.ref_selector(&r)?;
            // (A position among siblings is kept only with its row's text,
            // which the held page cannot give now: not kept, so a replay
            // stops at the dialog's answer rather than click another row.)
            if !names_its_own_identity(&selector) {
                return None;
            }
            args[key] = Value::String(selector);
            if let Some(frame) = frame {
                args["frame"] = Value::String(frame);
            }
        }
        Some(RecordedCall {
            tool: tool.name.to_string(),
            args,
            actions: Vec::new(),
            context: None,
        })
    }

    /// Appends the call to the result (with a screenshot when asked) and reports progress.
    pub async fn record(
        &mut self,
        tool: String,
        arguments: Value,
        outcome: &ToolOutput,
        step: u32,
        reasoning: Option<String>,
        usage: Usage,
    ) {
        // A held dialog stops the page (also one that opens meanwhile): it
        // is read from the browser's list of tabs, and not pictured.
        let page = self.page.clone();
        // The judge sees the run's newest screenshots besides the final page.
        let screenshot = if (self.opts.screenshots || self.opts.evaluate.is_some()) && page.dialog().is_none() {
            page.unless_a_dialog_opens(self.screenshot()).await.flatten()
        } else {
            None
        };
        let url = match page.dialog() {
            Some(_) => None,
            None => page.unless_a_dialog_opens(page.url()).await.and_then(|u| u.ok()),
        };
        let url = match url {
            Some(url) => url,
            None => page.listed().await.0,
        };
        let reasoning = if tool == "think" {
            arguments
                .get("reasoning")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or(reasoning)
        } else {
            reasoning
        };
        // The record (the JSON result, the report) keeps secrets out as the
        // model's copy does: a GET form puts them in URLs.
        let action = AgentAction {
            tool,
            arguments,
            result: self.secrets.redact(&outcome.text),
            url: self.secrets.redact(&url),
            timestamp: crate::time::timestamp_now(),
            trace: ActionTrace {
                step,
                ok: outcome.ok,
                reasoning,
                step_usage: usage,
                tool_usage: outcome.usage,
                screenshot,
                rect: outcome.rect,
                point: outcome.point,
            },
        };
        if let Some(progress) = &self.opts.progress {
            progress(&action, &self.result.usage);
        }
        self.result.actions.push(action);
    }

    async fn screenshot(&self) -> Option<Screenshot> {
        let png = self.page.screenshot().await.ok()?;
        // (The report and the judge see these: no secret in them either.)
        let png = self
            .page
            .cover_secrets(png, self.secrets.values(), Shot::Viewport)
            .await;
        let size = self.page.viewport().await.ok()?;
        Some(Screenshot {
            png_base64: base64::encode(&png),
            width: f64::from(size.width),
            height: f64::from(size.height),
        })
    }

    /// A tab the page opened (a `target=_blank` link, a pop-up) becomes the
    /// run's page, and a closed tab hands the run back to its opener, as a
    /// user's eyes follow them; what to tell the model.
    async fn follow_tabs(&mut self) -> Option<String> {
        let moved = self.browser?.tab_after_step(&self.page).await?;
        if let Some(page) = moved.page() {
            self.page = page.clone();
        }
        Some(moved.said())
    }

    /// A tab that closed since the last call (a pop-up the origin guard
    /// closed after the run followed it) hands the run back to its opener;
    /// what to tell the model.
    pub async fn back_from_a_closed_tab(&mut self) -> Option<String> {
        let browser = self.browser?;
        if !self.page.is_closed() && !browser.tab_is_gone(self.page.target_id()) {
            return None;
        }
        self.follow_tabs().await
    }

    /// After a page-changing tool: a page outside `allowed_domains` is left
    /// at once (back, or the last allowed URL), and the model is told.
    pub async fn enforce_domains(&self) -> Option<String> {
        if self.domains.is_empty() {
            return None;
        }
        let url = self.page.url().await.ok()?;
        // The browser's error page of an allowed site that did not load is
        // no visit elsewhere (the tool's result says why it did not load);
        // a request the browser refused leaves the tab on its page.
        if self.domains.allows(&url) || url.starts_with("chrome-error:") {
            return None;
        }
        let _ = self.page.back().await;
        let now = self.page.url().await.unwrap_or_default();
        if !self.domains.allows(&now) {
            let _ = self.page.goto("about:blank").await;
        }
        let domains = self.domains.entries().join(", ");
        Some(format!(
            "Refused: the page navigated to {url}, outside the allowed domains ({domains}); went back."
        ))
    }

    /// Dialogs wait for the model's answer (handleDialog) from now on: a
    /// task behind a confirm() is possible, and none is answered behind the
    /// model's back. [`Harness::finish`] gives the tabs back.
    pub fn hold_dialogs(&mut self) {
        let mut holds = DialogHolds::default();
        holds.hold(&self.page);
        self.dialog_holds = Some(holds);
    }

    /// The result, with how the run ended and, when asked, the judge's
    /// verdict (not after Ctrl-C: the caller wants out).
    pub async fn finish(mut self, end: End) -> AgentResult {
        // The tabs go back as they came: a dialog still open is dismissed
        // (it would hold the page, and the judge's look at it).
        if let Some(holds) = self.dialog_holds.take() {
            holds.release().await;
        }
        let r = &mut self.result;
        match end {
            End::Done(finish) => {
                r.completed = true;
                r.success = finish.complete;
                r.message = finish.message;
                r.output = finish.output;
            }
            End::NotCompleted(message) => r.message = message,
            End::Failed(message) => {
                if self.opts.evaluate.is_some() {
                    // Unjudged, as an outage of the judge is: `--retry-failed` runs it again.
                    r.verdict = Some(Verdict::unjudged(format!(
                        "not judged: the run failed before its end ({})",
                        crate::text::clip(&message, 200)
                    )));
                }
                r.message = message;
            }
            End::Interrupted => {
                r.interrupted = true;
                r.message = format!("interrupted after {} step(s); the result is partial", r.steps);
            }
        }
        let judgeable = !self.result.interrupted && self.result.verdict.is_none();
        if let Some(opts) = self.opts.evaluate.as_ref().filter(|_| judgeable) {
            let judging = judge(&self.page, self.llm, &self.secrets, opts, &self.result);
            self.result.verdict = self.unless_cancelled(judging).await;
        }
        self.result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::LlmErrorKind;

    #[test]
    fn only_a_model_outage_leaves_a_run_unjudged() {
        let call = |kind| LlmError::Call {
            provider: "openai",
            kind,
            attempts: 4,
        };
        let overloaded = call(LlmErrorKind::Server {
            status: 529,
            message: "overloaded".into(),
        });
        assert!(matches!(End::model_failed(&overloaded), End::Failed(_)));
        let too_long = call(LlmErrorKind::BadRequest {
            status: 400,
            message: "the context window is exceeded".into(),
        });
        assert!(matches!(End::model_failed(&too_long), End::NotCompleted(m) if m.contains("context window")));
    }
}
