//! One agent run: the loop of model turns and tool calls.

use std::future::Future;

use serde_json::Value;
use sightline_engine::protocol::{Rect, SnapshotMode};

use super::context::Conversation;
use super::domains::AllowedDomains;
use super::prompts;
use super::replay::{ReplayStep, SavedRun, RUN_FORMAT};
use super::tools::{parse_call, tool_specs, FormField, ToolCallArgs, PAGE_CHANGING};
use super::{ActionTrace, AgentAction, AgentOptions, AgentResult, Screenshot};
use crate::action::Action;
use crate::ai::{ActOptions, ActRecord, ExtractOptions, ObserveOptions};
use crate::error::{Error, Result};
use crate::llm::{ChatRequest, Llm, Message, Part, Secrets, ToolChoice, ToolSpec, Usage};
use crate::page::Page;
use crate::snapshot::SnapshotOptions;
use crate::tools::ScrollAmount;

/// What a tool call did.
#[derive(Default)]
struct Outcome {
    text: String,
    ok: bool,
    /// A tree to mark trimmable (ariaTree).
    tree: bool,
    image: Option<String>,
    rect: Option<Rect>,
    replay: Vec<ReplayStep>,
    usage: Usage,
}

impl Outcome {
    fn ok(text: impl Into<String>) -> Outcome {
        Outcome {
            text: text.into(),
            ok: true,
            ..Default::default()
        }
    }

    fn err(text: impl Into<String>) -> Outcome {
        Outcome {
            text: text.into(),
            ok: false,
            ..Default::default()
        }
    }
}

/// How the loop ended.
enum End {
    Done {
        complete: bool,
        message: String,
        output: Option<Value>,
    },
    NotCompleted(String),
    Interrupted,
}

pub(super) struct Run<'a> {
    page: &'a Page,
    llm: &'a Llm,
    opts: &'a AgentOptions,
    task: String,
    specs: Vec<ToolSpec>,
    secrets: Secrets,
    domains: AllowedDomains,
    act_opts: ActOptions,
    conv: Conversation,
    result: AgentResult,
}

impl<'a> Run<'a> {
    pub(super) fn new(page: &'a Page, llm: &'a Llm, opts: &'a AgentOptions, task: &str) -> Run<'a> {
        let act_opts = ActOptions {
            variables: opts.variables.clone(),
            ..opts.act.clone()
        };
        Run {
            page,
            llm,
            opts,
            task: task.trim().to_string(),
            specs: tool_specs(llm.supports_images()),
            secrets: opts.variables.secrets(),
            domains: AllowedDomains::new(&opts.allowed_domains),
            act_opts,
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

    pub(super) async fn execute(mut self) -> Result<AgentResult> {
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
            let url = crate::page::resolve_target(url)?;
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
            End::Done {
                complete,
                message,
                output,
            } => {
                r.completed = true;
                r.success = complete;
                r.message = message;
                r.output = output;
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
                let parsed = parse_call(&self.specs, &call.name, &call.arguments);
                if let Ok(ToolCallArgs::Done {
                    reasoning: why,
                    task_complete,
                    output,
                }) = parsed
                {
                    let text = if task_complete {
                        "task complete"
                    } else {
                        "task not achieved"
                    };
                    self.record(
                        call.name.clone(),
                        call.arguments.clone(),
                        Outcome::ok(text),
                        step,
                        reasoning.clone(),
                        response.usage,
                    )
                    .await;
                    return End::Done {
                        complete: task_complete,
                        message: why,
                        output,
                    };
                }
                let url_before = self.page.url().await.unwrap_or_default();
                let outcome = match parsed {
                    Err(e) => Outcome::err(format!("Error: {e}")),
                    Ok(args) => {
                        let timeout = self.opts.tool_timeout;
                        let run = tokio::time::timeout(timeout, self.run_tool(&args));
                        match self.unless_cancelled(run).await {
                            None => return End::Interrupted,
                            Some(Err(_)) => Outcome::err(format!(
                                "Error: {} timed out after {} s",
                                call.name,
                                timeout.as_secs_f64()
                            )),
                            Some(Ok(Ok(o))) => o,
                            Some(Ok(Err(e))) => Outcome::err(format!("Error: {e}")),
                        }
                    }
                };
                let mut outcome = outcome;
                if outcome.rect.is_some() && self.page.url().await.unwrap_or_default() != url_before {
                    // The element's box belongs to the page before the navigation.
                    outcome.rect = None;
                }
                if PAGE_CHANGING.contains(&call.name.as_str()) {
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
                if let Some(img) = outcome.image.take() {
                    images.push(img);
                }
                let content = outcome.text.clone();
                if outcome.tree {
                    trees.push(results.len());
                }
                results.push((call.id.clone(), content, !outcome.ok));
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
                self.conv.mark_tree(i, "[earlier ariaTree result omitted]".into());
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
        outcome: Outcome,
        step: u32,
        reasoning: Option<String>,
        usage: Usage,
    ) {
        let screenshot = if self.opts.screenshots {
            self.screenshot().await
        } else {
            None
        };
        let reasoning = match (&outcome, tool.as_str()) {
            _ if tool == "think" => arguments
                .get("reasoning")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or(reasoning),
            _ => reasoning,
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
            png_base64: base64_encode(&png),
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

    async fn run_tool(&self, args: &ToolCallArgs) -> Result<Outcome> {
        let page = self.page;
        Ok(match args {
            ToolCallArgs::Act { action } => {
                let r = page.act(self.llm, action, &self.act_opts).await?;
                let mut o = if r.success {
                    Outcome::ok(&r.message)
                } else {
                    Outcome::err(format!("Failed: {}", r.message))
                };
                o.rect = r.actions.iter().rev().find_map(|a| a.rect);
                o.usage = r.usage;
                if r.success {
                    o.replay.push(ReplayStep::Act {
                        instruction: action.clone(),
                        actions: r.actions,
                    });
                }
                o
            }
            ToolCallArgs::AriaTree => {
                let snap = page
                    .snapshot(&SnapshotOptions {
                        mode: SnapshotMode::Full,
                        ..Default::default()
                    })
                    .await?;
                let mut o = Outcome::ok(prompts::aria_tree(&snap, self.opts.aria_tree_budget));
                o.tree = true;
                o
            }
            ToolCallArgs::Extract { instruction, schema } => {
                let r = page
                    .extract(self.llm, Some(instruction), schema.as_ref(), &ExtractOptions::default())
                    .await?;
                let mut o = Outcome::ok(serde_json::to_string(&r.data).expect("JSON serialises"));
                o.usage = r.usage;
                o
            }
            ToolCallArgs::FillForm { fields } => self.fill_form(fields).await?,
            ToolCallArgs::Goto { url } => {
                let base = page.url().await.unwrap_or_default();
                let url = url::Url::parse(&base)
                    .ok()
                    .and_then(|b| b.join(url).ok())
                    .map(|u| u.to_string())
                    .unwrap_or_else(|| url.clone());
                if !self.domains.allows(&url) {
                    return Ok(Outcome::err(format!(
                        "Refused: {url} is outside the allowed domains ({}). Stay on those sites.",
                        self.domains.entries().join(", ")
                    )));
                }
                let r = page.goto(&url).await?;
                let mut o = Outcome::ok(format!("Opened {r}"));
                o.replay.push(ReplayStep::Goto { url });
                o
            }
            ToolCallArgs::Navback => match page.back().await? {
                Some(r) => {
                    let mut o = Outcome::ok(format!("Went back to {r}"));
                    o.replay.push(ReplayStep::Navback);
                    o
                }
                None => Outcome::err("There is no previous page in this tab's history."),
            },
            ToolCallArgs::Screenshot => {
                let png = page.screenshot().await?;
                let mut o = Outcome::ok("Screenshot of the viewport attached.");
                o.image = Some(base64_encode(&png));
                o
            }
            ToolCallArgs::Scroll { down, percentage } => {
                let sign = if *down { 1.0 } else { -1.0 };
                let r = page.scroll(ScrollAmount::ViewportPercent(sign * percentage)).await?;
                let direction = if *down { "down" } else { "up" };
                let mut o = Outcome::ok(format!(
                    "Scrolled {direction} {percentage}% of the viewport{}",
                    r.value.map(|v| format!(" ({v})")).unwrap_or_default()
                ));
                o.replay.push(ReplayStep::Scroll {
                    direction: direction.into(),
                    percentage: *percentage,
                });
                o
            }
            ToolCallArgs::Wait { ms } => {
                page.wait(std::time::Duration::from_millis(*ms)).await?;
                let mut o = Outcome::ok(format!("Waited {ms} ms"));
                o.replay.push(ReplayStep::Wait { ms: *ms });
                o
            }
            ToolCallArgs::Keys { press, value, repeat } => {
                let real = self.opts.variables.substitute(value);
                for _ in 0..(*repeat).max(1) {
                    if *press {
                        page.press(None, std::slice::from_ref(&real)).await?;
                    } else {
                        page.type_text(&real).await?;
                    }
                }
                let method = if *press { "press" } else { "type" };
                let shown = if *press {
                    value.clone()
                } else {
                    format!("{} characters", value.chars().count())
                };
                let mut o = Outcome::ok(format!(
                    "{method}: {shown}{}",
                    if *repeat > 1 {
                        format!(" ×{repeat}")
                    } else {
                        String::new()
                    }
                ));
                o.replay.push(ReplayStep::Keys {
                    method: method.into(),
                    value: value.clone(),
                    repeat: *repeat,
                });
                o
            }
            ToolCallArgs::Think { .. } => Outcome::ok("Noted."),
            ToolCallArgs::RemoveBlocker { aggressive } => {
                let url = page.url().await.unwrap_or_default();
                let Some(mut o) = page.blocker_config().options_for(&url) else {
                    return Ok(Outcome::err(
                        "removeBlocker is disabled for this site by the configuration.",
                    ));
                };
                o.aggressive |= aggressive;
                let r = page.remove_blocker(&o).await?;
                let text = serde_json::to_string(&r).expect("serialises");
                let mut out = if r.removed {
                    Outcome::ok(text)
                } else {
                    Outcome::err(text)
                };
                // A refusal is a deterministic outcome too: replay runs it again.
                out.ok = true;
                out.replay.push(ReplayStep::RemoveBlocker {
                    aggressive: *aggressive,
                });
                out
            }
            ToolCallArgs::Done { .. } => unreachable!("done ends the loop before tools run"),
        })
    }

    /// fillForm: one observe call finds every field, in order; each field is
    /// then filled with its value (`%name%` substituted only now). Fields the
    /// observation missed go through act one by one.
    async fn fill_form(&self, fields: &[FormField]) -> Result<Outcome> {
        let mut instruction = String::from(
            "Find the form fields for these entries, one element per entry, in this order, each with the method \
that enters the value (fill for text fields, selectOptionFromDropdown for selects, check for checkboxes) and \
the value as its argument:\n",
        );
        for (i, f) in fields.iter().enumerate() {
            instruction.push_str(&format!("{}. {} → {}\n", i + 1, f.action, f.value));
        }
        let observed = self
            .page
            .observe(
                self.llm,
                &instruction,
                &ObserveOptions {
                    mode: SnapshotMode::Full,
                },
            )
            .await?;
        let mut usage = observed.usage;
        let mut lines = Vec::new();
        let mut records: Vec<(String, ActRecord)> = Vec::new();
        let mut all_ok = true;
        let mut rect = None;
        for (i, field) in fields.iter().enumerate() {
            let found = observed.actions.get(i).filter(|a| a.selector.is_some());
            match found {
                Some(a) => {
                    let mut action: Action = a.clone();
                    // The field's own value, not the model's copy of it.
                    if !action.arguments.is_empty() || matches!(action.method.as_str(), "fill" | "type") {
                        action.arguments = vec![field.value.clone()];
                    }
                    let record = ActRecord {
                        description: action.description.clone().unwrap_or_else(|| field.action.clone()),
                        method: action.method.clone(),
                        arguments: action.arguments.clone(),
                        selector: action.selector.clone().unwrap_or_default(),
                        frame: action.frame.clone(),
                        rect: None,
                    };
                    let mut real = action.clone();
                    real.arguments = real
                        .arguments
                        .iter()
                        .map(|v| self.opts.variables.substitute(v))
                        .collect();
                    match self.page.perform(&real, self.act_opts.base_dir.as_deref()).await {
                        Ok(done) => {
                            rect = done.rect.or(rect);
                            lines.push(format!("{}: {} {}", i + 1, record.method, record.description));
                            records.push((field.action.clone(), record));
                        }
                        Err(e) if matches!(e, Error::Action { .. } | Error::InvalidAction(_)) => {
                            all_ok = false;
                            lines.push(format!("{}: {} failed: {e}", i + 1, field.action));
                        }
                        Err(e) => return Err(e),
                    }
                }
                None => {
                    let act = format!("{} with the value {}", field.action, field.value);
                    let r = self.page.act(self.llm, &act, &self.act_opts).await?;
                    usage += r.usage;
                    if r.success {
                        rect = r.actions.iter().rev().find_map(|a| a.rect).or(rect);
                        lines.push(format!("{}: {}", i + 1, r.message));
                        for a in r.actions {
                            records.push((act.clone(), a));
                        }
                    } else {
                        all_ok = false;
                        lines.push(format!("{}: {} failed: {}", i + 1, field.action, r.message));
                    }
                }
            }
        }
        let mut o = Outcome {
            text: format!(
                "Filled {} of {} field(s):\n{}",
                records.len(),
                fields.len(),
                lines.join("\n")
            ),
            ok: all_ok,
            ..Default::default()
        };
        o.usage = usage;
        o.rect = rect;
        o.replay = records
            .into_iter()
            .map(|(instruction, rec)| ReplayStep::Act {
                instruction,
                actions: vec![rec],
            })
            .collect();
        Ok(o)
    }
}

/// Standard base64 (screenshots as data for the model and the report).
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(ALPHABET[(n >> 18) as usize & 63] as char);
        out.push(ALPHABET[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 {
            ALPHABET[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            ALPHABET[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64() {
        assert_eq!(super::base64_encode(b""), "");
        assert_eq!(super::base64_encode(b"f"), "Zg==");
        assert_eq!(super::base64_encode(b"fo"), "Zm8=");
        assert_eq!(super::base64_encode(b"foobar"), "Zm9vYmFy");
    }
}
