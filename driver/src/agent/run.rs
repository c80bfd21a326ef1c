//! One agent run: the loop of model turns and tool calls. The tools come
//! from the registry in [`AgentOptions::tools`].

use std::future::Future;

use serde_json::Value;
use sightline_engine::protocol::SnapshotMode;

use super::context::Conversation;
use super::options::AgentOptions;
use super::prompts;
use super::replay::{SavedRun, RUN_FORMAT};
use super::result::{ActionTrace, AgentAction, AgentResult, Screenshot};
use crate::ai::ActOptions;
use crate::base64;
use crate::domains::AllowedDomains;
use crate::error::{Error, Result};
use crate::llm::{ChatRequest, Llm, Message, Part, Secrets, ToolChoice, ToolSpec, Usage};
use crate::page::{resolve_target, Page, SnapshotOptions};
use crate::tools::{specs, Finish, ToolContext, ToolOutput, ToolSettings};

/// An agent over one page and one model.
pub struct Agent<'a> {
    page: &'a Page,
    llm: &'a Llm,
    opts: AgentOptions,
}

impl<'a> Agent<'a> {
    pub fn new(page: &'a Page, llm: &'a Llm, opts: AgentOptions) -> Agent<'a> {
        Agent { page, llm, opts }
    }

    /// Runs the task to `done`, `max_steps` or cancellation. Errors only when
    /// the run cannot start (bad start URL, browser gone); everything later
    /// (model failures included) ends the run with `success: false`.
    pub async fn execute(&self, task: &str) -> Result<AgentResult> {
        Run::new(self.page.clone(), self.llm, &self.opts, task).execute().await
    }
}

/// How the loop ended.
enum End {
    Done(Finish),
    NotCompleted(String),
    Interrupted,
}

struct Run<'a> {
    page: Page,
    llm: &'a Llm,
    opts: &'a AgentOptions,
    task: String,
    specs: Vec<ToolSpec>,
    secrets: Secrets,
    domains: AllowedDomains,
    settings: ToolSettings,
    conv: Conversation,
    result: AgentResult,
}

impl<'a> Run<'a> {
    fn new(page: Page, llm: &'a Llm, opts: &'a AgentOptions, task: &str) -> Run<'a> {
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
        };
        Run {
            page,
            llm,
            opts,
            task: task.trim().to_string(),
            specs: specs(&opts.tools.for_agent(llm.supports_images())),
            secrets: opts.variables.secrets(),
            domains,
            settings,
            conv: Conversation::default(),
            result: AgentResult::default(),
        }
    }

    fn cancelled(&self) -> bool {
        self.opts.cancel.as_ref().is_some_and(|c| *c.borrow())
    }

    /// Runs `fut` unless the run is cancelled first (`None`).
    async fn unless_cancelled<T>(&self, fut: impl Future<Output = T>) -> Option<T> {
        let Some(mut cancel) = self.opts.cancel.clone() else {
            return Some(fut.await);
        };
        tokio::select! {
            r = fut => Some(r),
            _ = cancel.wait_for(|c| *c) => None,
        }
    }

    async fn execute(mut self) -> Result<AgentResult> {
        if self.task.is_empty() {
            return Err(Error::InvalidAction("the agent needs a task".into()));
        }
        self.result.task = self.task.clone();
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

        let first = prompts::task_message(
            &self.task,
            self.opts.variables.prompt_note().as_deref(),
            self.domains.entries(),
        );
        let page = self.page_message().await;
        self.conv.push(Message {
            role: crate::llm::Role::User,
            parts: vec![Part::Text(first), Part::Text(page.0)],
        });
        self.conv.mark_tree(1, page.1);

        let end = self.turns().await;
        let r = &mut self.result;
        match end {
            End::Done(finish) => {
                r.completed = true;
                r.success = finish.complete;
                r.message = finish.message;
                r.output = finish.output;
            }
            End::NotCompleted(message) => r.message = message,
            End::Interrupted => {
                r.interrupted = true;
                r.message = format!("interrupted after {} step(s); the result is partial", r.steps);
            }
        }
        Ok(self.result)
    }

    /// The viewport page message and its placeholder for later.
    async fn page_message(&self) -> (String, String) {
        let snap = self
            .page
            .snapshot(&SnapshotOptions {
                mode: SnapshotMode::Viewport,
                ..Default::default()
            })
            .await;
        match snap {
            Ok(s) => (
                prompts::page_message(&s, self.opts.page_message_budget.saturating_mul(4)),
                prompts::stale_page(&s.title, &s.url),
            ),
            Err(e) => (
                format!("Current page: unavailable ({e})"),
                "[earlier page state omitted]".into(),
            ),
        }
    }

    /// Runs one tool call from the registry, within the tool timeout;
    /// `None` when the run was cancelled meanwhile.
    async fn call_tool(&mut self, name: &str, args: &Value) -> Option<ToolOutput> {
        let timeout = self.opts.tool_timeout;
        let ctx = ToolContext::new(self.page.clone(), &self.settings).with_llm(Some(self.llm));
        let run = tokio::time::timeout(timeout, self.opts.tools.call(&ctx, name, args.clone()));
        let outcome = match self.unless_cancelled(run).await? {
            Err(_) => ToolOutput::failed(format!("Error: {name} timed out after {} s", timeout.as_secs_f64())),
            Ok(Ok(o)) => o,
            Ok(Err(e)) => ToolOutput::failed(format!("Error: {e}")),
        };
        // A tool may have moved the session to another tab.
        self.page = ctx.page();
        Some(outcome)
    }

    async fn turns(&mut self) -> End {
        let system = prompts::system(&self.task, self.opts.system_instructions.as_deref());
        let mut force_done = false;
        loop {
            if self.cancelled() {
                return End::Interrupted;
            }
            // The final-done nudge may go one past max_steps.
            if self.result.steps >= self.opts.max_steps && !force_done {
                return End::NotCompleted(format!(
                    "stopped after {} steps (max_steps) without finishing the task",
                    self.result.steps
                ));
            }
            self.result.steps += 1;
            let step = self.result.steps;
            let req = ChatRequest {
                system: system.clone(),
                messages: self.conv.messages.clone(),
                tools: self.specs.clone(),
                tool_choice: if force_done {
                    ToolChoice::Tool("done".into())
                } else {
                    ToolChoice::Auto
                },
                purpose: format!("agent step {step}"),
                ..Default::default()
            };
            let response = match self.unless_cancelled(self.llm.chat(&req, &self.secrets)).await {
                None => return End::Interrupted,
                Some(Err(e)) => return End::NotCompleted(format!("the model call failed: {e}")),
                Some(Ok(r)) => r,
            };
            self.result.usage += response.usage;
            self.conv.push(response.to_message());
            let reasoning = response.text.clone().filter(|t| !t.trim().is_empty());

            if response.tool_calls.is_empty() {
                if force_done {
                    let said = reasoning.unwrap_or_default();
                    return End::NotCompleted(if said.is_empty() {
                        "the model stopped without calling done".into()
                    } else {
                        format!("the model stopped without calling done: {said}")
                    });
                }
                force_done = true;
                self.conv.push(Message::user(prompts::NUDGE_DONE));
                continue;
            }
            force_done = false;

            let mut results = Vec::new();
            let mut page_changed = false;
            let mut images = Vec::new();
            let mut trees = Vec::new();
            for call in &response.tool_calls {
                let url_before = self.page.url().await.unwrap_or_default();
                let Some(mut outcome) = self.call_tool(&call.name, &call.arguments).await else {
                    return End::Interrupted;
                };
                if let Some(finish) = outcome.finish.take() {
                    self.record(
                        call.name.clone(),
                        call.arguments.clone(),
                        outcome,
                        step,
                        reasoning.clone(),
                        response.usage,
                    )
                    .await;
                    return End::Done(finish);
                }
                if outcome.rect.is_some() && self.page.url().await.unwrap_or_default() != url_before {
                    // The element's box belongs to the page before the navigation.
                    outcome.rect = None;
                }
                if self.opts.tools.get(&call.name).is_some_and(|t| t.changes_page) {
                    page_changed = true;
                    if let Some(note) = self.enforce_domains().await {
                        outcome.ok = false;
                        outcome.text.push_str(&format!("\n{note}"));
                    }
                }
                if outcome.ok {
                    self.result.run.steps.append(&mut outcome.replay);
                }
                self.result.usage += outcome.usage;
                if let Some(png) = outcome.image_png.take() {
                    images.push(base64::encode(&png));
                }
                if outcome.tree {
                    trees.push(results.len());
                }
                results.push((call.id.clone(), outcome.text.clone(), !outcome.ok));
                self.record(
                    call.name.clone(),
                    call.arguments.clone(),
                    outcome,
                    step,
                    reasoning.clone(),
                    response.usage,
                )
                .await;
            }

            let mut message = Message::tool_results(results);
            let n_results = message.parts.len();
            let page = if page_changed {
                Some(self.page_message().await)
            } else {
                None
            };
            if let Some((text, _)) = &page {
                message.parts.push(Part::Text(text.clone()));
            }
            for img in &images {
                message.parts.push(Part::Image {
                    png_base64: img.clone(),
                });
            }
            self.conv.push(message);
            for i in trees {
                self.conv.mark_tree(i, "[earlier snapshot result omitted]".into());
            }
            if let Some((_, placeholder)) = page {
                self.conv.mark_tree(n_results, placeholder);
            }
            let first_image = n_results + usize::from(page_changed);
            for i in 0..images.len() {
                self.conv
                    .mark_screenshot(first_image + i, prompts::STALE_SCREENSHOT.into());
            }
        }
    }

    /// Appends the call to the result (with a screenshot when asked) and reports progress.
    async fn record(
        &mut self,
        tool: String,
        arguments: Value,
        outcome: ToolOutput,
        step: u32,
        reasoning: Option<String>,
        usage: Usage,
    ) {
        let screenshot = if self.opts.screenshots {
            self.screenshot().await
        } else {
            None
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
        let action = AgentAction {
            tool,
            arguments,
            result: outcome.text,
            url: self.page.url().await.unwrap_or_default(),
            timestamp: crate::time::timestamp_now(),
            trace: ActionTrace {
                step,
                ok: outcome.ok,
                reasoning,
                step_usage: usage,
                tool_usage: outcome.usage,
                screenshot,
                rect: outcome.rect,
            },
        };
        if let Some(progress) = &self.opts.progress {
            progress(&action, &self.result.usage);
        }
        self.result.actions.push(action);
    }

    async fn screenshot(&self) -> Option<Screenshot> {
        let png = self.page.screenshot().await.ok()?;
        let size = self.page.viewport().await.ok()?;
        Some(Screenshot {
            png_base64: base64::encode(&png),
            width: f64::from(size.width),
            height: f64::from(size.height),
        })
    }

    /// After a page-changing tool: a page outside `allowed_domains` is left
    /// at once (back, or the last allowed URL), and the model is told.
    async fn enforce_domains(&self) -> Option<String> {
        if self.domains.is_empty() {
            return None;
        }
        let url = self.page.url().await.ok()?;
        if self.domains.allows(&url) {
            return None;
        }
        let _ = self.page.back().await;
        let now = self.page.url().await.unwrap_or_default();
        if !self.domains.allows(&now) {
            let _ = self.page.goto("about:blank").await;
        }
        Some(format!(
            "Refused: the page navigated to {url}, outside the allowed domains ({}); went back.",
            self.domains.entries().join(", ")
        ))
    }
}
