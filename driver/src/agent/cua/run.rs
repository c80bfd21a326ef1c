//! The computer-use loop: a model turn, its safety checks, its actions,
//! then one screenshot and page note answering every call of the turn.

use serde_json::{json, Value};
use sightline_engine::protocol::SnapshotMode;

use super::actions::{ComputerAction, ModelCall, Step};
use super::display::Display;
use super::prompts;
use super::provider::Provider;
use crate::agent::context::Conversation;
use crate::agent::harness::{End, Harness};
use crate::agent::mode::SafetyChecks;
use crate::agent::repeats::{fingerprint, Repeat};
use crate::agent::result::{AgentResult, SafetyCheckRecord};
use crate::base64;
use crate::error::Result;
use crate::llm::{
    ChatRequest, ComputerResult, ComputerSpec, Message, Part, Role, StopReason, ToolChoice, ToolSpec, Usage,
};
use crate::page::{Shot, SnapshotOptions};
use crate::tools::{done, handle_dialog, remove_blocker, specs, Registry, ToolOutput};

/// The function tools offered beside the computer tool (from the registry):
/// `done` says whether the task was done (a final message alone may say it
/// could not be); `handleDialog` answers a JavaScript dialog, which no
/// screenshot shows (the browser draws it outside the page).
const FUNCTIONS: &[&str] = &[remove_blocker::TOOL.name, handle_dialog::TOOL.name, done::TOOL.name];

/// Runs the loop of a started harness.
pub(super) async fn run(mut h: Harness<'_>) -> Result<AgentResult> {
    let provider = Provider::of(h.llm);
    let (display, first) = Display::calibrate(&h.page, |w, hh| provider.fit(w, hh)).await?;
    h.hold_dialogs();
    let tools = h.opts.tools.clone();
    let functions = specs(&FUNCTIONS.iter().filter_map(|name| tools.get(name)).collect::<Vec<_>>());
    let mut run = CuaLoop {
        conv: Conversation::new(h.opts.keep_screenshots.max(1)),
        h,
        provider,
        display,
        tools,
        functions,
        previous_response_id: None,
        unsent_from: 0,
        last_screenshot: None,
    };
    let end = run.turns(first).await;
    // Keys or a button the model left held would stay down in the page.
    if let Err(e) = run.h.page.release_held().await {
        tracing::debug!("computer use: releasing what the model held: {e}");
    }
    Ok(run.h.finish(end).await)
}

struct CuaLoop<'a> {
    h: Harness<'a>,
    provider: Provider,
    display: Display,
    tools: Registry,
    functions: Vec<ToolSpec>,
    conv: Conversation,
    /// OpenAI: the last response, which the server keeps with the history before it.
    previous_response_id: Option<String>,
    /// OpenAI: the first message of the conversation the server has not seen.
    unsent_from: usize,
    /// The newest screenshot (base64), which answers a turn while a dialog
    /// holds the page: the browser cannot draw a new one then.
    last_screenshot: Option<String>,
}

/// What one computer call did.
struct CallOutcome {
    notes: Vec<String>,
    error: Option<String>,
}

impl<'a> CuaLoop<'a> {
    async fn turns(&mut self, first_screenshot: Vec<u8>) -> End {
        let system = prompts::system(&self.h.task, self.h.opts.system_instructions.as_deref());
        let mut first = crate::agent::prompts::task_message(
            &self.h.task,
            self.h.opts.variables.prompt_note().as_deref(),
            self.h.domains.entries(),
        );
        first.push_str(&self.page_note().await);
        let first_screenshot = self
            .h
            .page
            .cover_secrets(first_screenshot, self.h.secrets.values(), Shot::VisualViewport)
            .await;
        let first_screenshot = base64::encode(&first_screenshot);
        self.last_screenshot = Some(first_screenshot.clone());
        self.conv.push(Message {
            role: Role::User,
            parts: vec![
                Part::Text(first),
                Part::Image {
                    png_base64: first_screenshot,
                },
            ],
        });
        self.conv.mark_screenshot(1, prompts::STALE_SCREENSHOT.into());
        // After a final message without done: the one turn that must call it.
        let mut force_done = false;
        loop {
            if self.h.cancelled() {
                return End::Interrupted;
            }
            // The done nudge may go one past max_steps.
            if self.h.result.steps >= self.h.opts.max_steps && !force_done {
                return End::NotCompleted(format!(
                    "stopped after {} steps (max_steps) without finishing the task",
                    self.h.result.steps
                ));
            }
            self.h.result.steps += 1;
            let step = self.h.result.steps;
            // OpenAI keeps the conversation: send it what it has not seen.
            let chained = self.provider.chains() && self.previous_response_id.is_some();
            let messages = if chained {
                self.conv.messages[self.unsent_from..].to_vec()
            } else {
                self.conv.messages.clone()
            };
            let req = ChatRequest {
                system: system.clone(),
                messages,
                tools: self.functions.clone(),
                tool_choice: if force_done {
                    ToolChoice::Tool(done::TOOL.name.into())
                } else {
                    ToolChoice::Auto
                },
                purpose: format!("agent step {step}"),
                computer: Some(ComputerSpec {
                    display_width: self.display.width,
                    display_height: self.display.height,
                }),
                previous_response_id: self.previous_response_id.clone().filter(|_| chained),
                ..Default::default()
            };
            let response = match self.h.unless_cancelled(self.h.llm.chat(&req, &self.h.secrets)).await {
                None => return End::Interrupted,
                Some(Err(e)) => return End::model_failed(&e),
                Some(Ok(r)) => r,
            };
            self.h.result.usage += response.usage;
            self.conv.push(response.to_message());
            if self.provider.chains() {
                self.previous_response_id = response.id.clone();
                self.unsent_from = self.conv.messages.len();
            }
            let reasoning = response.text.clone().filter(|t| !t.trim().is_empty());
            if response.tool_calls.is_empty() {
                // A refusal, an answer cut off at the output limit, or no
                // answer at all is no sign the task was done. A final
                // message may say it was, or that it could not be: done
                // says which (asked for once, as the DOM agent does).
                if let Some(why) = response.stopped_short() {
                    return End::NotCompleted(why);
                }
                return match (reasoning, response.stop) {
                    (Some(said), _) if force_done => {
                        End::NotCompleted(format!("the model stopped without calling done: {said}"))
                    }
                    (Some(_), _) => {
                        force_done = true;
                        self.conv.push(Message::user(prompts::NUDGE_DONE));
                        continue;
                    }
                    (None, StopReason::EndTurn) => {
                        End::NotCompleted("the model ended its turn with neither an action nor an answer".into())
                    }
                    (None, stop) => End::NotCompleted(format!("the model stopped without an answer ({stop:?})")),
                };
            }
            force_done = false;

            let mut parts = Vec::new();
            let mut computer_results = Vec::new();
            // A turn of waits (or looks) only polls a slow page; it is never a repeat.
            let mut waits_only = true;
            // An action of this turn failed: a done after it claims a task
            // the model has not seen the failure of (refused, as the DOM
            // agent does).
            let mut failed = false;
            for call in &response.tool_calls {
                if !self.provider.is_computer_call(call, FUNCTIONS) {
                    let out = if call.name == done::TOOL.name && failed {
                        ToolOutput::failed(
                            "done was not accepted: an action failed in this same turn (see its result). Call done \
only once the task is done.",
                        )
                    } else if FUNCTIONS.contains(&call.name.as_str()) {
                        let Some(applied) = self.h.apply(&self.tools, &call.name, &call.arguments).await else {
                            return End::Interrupted;
                        };
                        applied.output
                    } else {
                        ToolOutput::failed(format!(
                            "there is no function {:?}: your tools are the computer and {}",
                            call.name,
                            FUNCTIONS.join(", ")
                        ))
                    };
                    waits_only = false;
                    self.h
                        .record(
                            call.name.clone(),
                            call.arguments.clone(),
                            &out,
                            step,
                            reasoning.clone(),
                            response.usage,
                        )
                        .await;
                    if let Some(finish) = out.finish {
                        return End::Done(finish);
                    }
                    failed |= !out.ok;
                    parts.push(Part::ToolResult {
                        call_id: call.id.clone(),
                        content: out.text,
                        is_error: !out.ok,
                    });
                    continue;
                }
                let model_call = self.provider.read(call, &self.display);
                waits_only &= model_call
                    .actions
                    .iter()
                    .all(|a| matches!(a, Ok(ComputerAction::Wait(_) | ComputerAction::Screenshot)));
                if let Some(stop) = self.safety(&model_call, step) {
                    return stop;
                }
                let Some(outcome) = self.perform(&model_call, step, &reasoning, response.usage).await else {
                    return End::Interrupted;
                };
                computer_results.push(parts.len());
                parts.push(Part::ComputerResult(ComputerResult {
                    call_id: model_call.call_id.clone(),
                    name: model_call.name.clone(),
                    screenshot_png_base64: None,
                    url: String::new(),
                    text: (!outcome.notes.is_empty()).then(|| outcome.notes.join("\n")),
                    error: {
                        failed |= outcome.error.is_some();
                        outcome.error
                    },
                    acknowledged: if self.h.opts.safety_checks == SafetyChecks::Allow {
                        model_call.safety.clone()
                    } else {
                        Vec::new()
                    },
                }));
            }
            let calls: Vec<(&str, &Value)> = response
                .tool_calls
                .iter()
                .map(|c| (c.name.as_str(), &c.arguments))
                .collect();
            if let Some(end) = self.answer(parts, &computer_results, &calls, waits_only).await {
                return end;
            }
        }
    }

    /// Records the call's safety checks; stops the run unless they are allowed.
    fn safety(&mut self, call: &ModelCall, step: u32) -> Option<End> {
        if call.safety.is_empty() {
            return None;
        }
        let allow = self.h.opts.safety_checks == SafetyChecks::Allow;
        let action = call
            .actions
            .first()
            .and_then(|a| a.as_ref().ok())
            .map(|a| a.name().to_string())
            .unwrap_or_else(|| call.name.clone());
        let action = if call.name == crate::llm::COMPUTER_TOOL {
            action
        } else {
            call.name.clone()
        };
        for check in &call.safety {
            self.h.result.safety_checks.push(SafetyCheckRecord {
                step,
                id: check.id.clone(),
                code: check.code.clone(),
                message: check.message.clone(),
                action: action.clone(),
                acknowledged: allow,
            });
        }
        if allow {
            return None;
        }
        let first = &call.safety[0];
        let why = if first.message.is_empty() {
            String::new()
        } else {
            format!(": {}", first.message)
        };
        Some(End::NotCompleted(format!(
            "stopped at a safety check before {action}: {}{why} (not acknowledged; run with --safety-checks allow to let such checks through)",
            first.code
        )))
    }

    /// Runs the call's actions in order; a failure skips the rest.
    async fn perform(
        &mut self,
        call: &ModelCall,
        step: u32,
        reasoning: &Option<String>,
        usage: Usage,
    ) -> Option<CallOutcome> {
        let mut outcome = CallOutcome {
            notes: Vec::new(),
            error: None,
        };
        for action in &call.actions {
            let action = match action {
                Ok(a) => a,
                Err(why) => {
                    outcome.error = Some(why.clone());
                    let out = ToolOutput::failed(why.to_string());
                    self.h
                        .record(
                            call.name.clone(),
                            json!({"error": why}),
                            &out,
                            step,
                            reasoning.clone(),
                            usage,
                        )
                        .await;
                    break;
                }
            };
            let steps = action.steps(self.h.page.mouse_position(), self.display.css_size());
            for s in steps {
                let (name, args, out) = match s {
                    Step::Tool { name, args } => {
                        let applied = self.h.apply(&self.tools, name, &args).await?;
                        (name.to_string(), args, applied.output)
                    }
                    Step::Look => (action.name().to_string(), json!({}), self.look_at(action)),
                };
                let said = format!("[{}] {}", action.name(), out.text);
                let mut shown = out.clone();
                shown.text = said;
                self.h.record(name, args, &shown, step, reasoning.clone(), usage).await;
                if !out.ok {
                    outcome.error = Some(out.text);
                    return Some(outcome);
                }
                if !out.text.is_empty() && matches!(action, ComputerAction::CursorPosition) {
                    outcome.notes.push(out.text);
                }
            }
        }
        Some(outcome)
    }

    /// The answer to a look (see [`Step::Look`]).
    fn look_at(&self, action: &ComputerAction) -> ToolOutput {
        match action {
            ComputerAction::CursorPosition => {
                let (x, y) = self.h.page.mouse_position();
                let (mx, my) = self.display.display_point(x, y);
                ToolOutput::ok(format!("X={},Y={}", mx.round(), my.round()))
            }
            ComputerAction::Screenshot => ToolOutput::ok("Screenshot taken (below)."),
            ComputerAction::OpenBrowser => ToolOutput::ok("The browser is open."),
            other => ToolOutput::failed(format!("{} cannot run here", other.name())),
        }
    }

    /// The page after a turn: its screenshot (secrets covered), its note
    /// and URL; `None` while a dialog holds it (one opening meanwhile too).
    async fn look(&self) -> Option<(Option<String>, String, String)> {
        let page = self.h.page.clone();
        if page.dialog().is_some() {
            return None;
        }
        // The screenshot (the compositor's work) and the page note (the
        // renderer's) are taken side by side.
        let all = async { tokio::join!(self.display.capture(&page), self.page_note(), page.url()) };
        let (shot, note, url) = page.unless_a_dialog_opens(all).await?;
        let png = match shot {
            Ok(png) => Some(base64::encode(
                &page
                    .cover_secrets(png, self.h.secrets.values(), Shot::VisualViewport)
                    .await,
            )),
            Err(e) => {
                tracing::warn!("computer use: no screenshot: {e}");
                None
            }
        };
        Some((png, note, url.unwrap_or_default()))
    }

    /// The page note: title, URL, position and modal state.
    async fn page_note(&self) -> String {
        let snap = self
            .h
            .page
            .snapshot(&SnapshotOptions {
                mode: SnapshotMode::Viewport,
                ..Default::default()
            })
            .await;
        match snap {
            Ok(s) => prompts::page_note(&s),
            Err(e) => format!("The page cannot be read right now ({e})."),
        }
    }

    /// Answers the turn: one screenshot and page note after all its
    /// actions, on every computer call's answer (the last one carries the
    /// note); with none, as a user message after the function results.
    /// Ends the run (`Some`) when cancelled meanwhile, or when the turn
    /// (`calls`) repeats itself on a page that looks the same.
    async fn answer(
        &mut self,
        mut parts: Vec<Part>,
        computer_results: &[usize],
        calls: &[(&str, &Value)],
        waits_only: bool,
    ) -> Option<End> {
        let Some(looked) = self.h.unless_cancelled(self.look()).await else {
            return Some(End::Interrupted);
        };
        let (png, note, url) = match looked {
            Some((png, note, url)) => {
                if png.is_some() {
                    self.last_screenshot = png.clone();
                }
                (png, note, url)
            }
            // A held dialog stops the page: no new screenshot can be drawn,
            // and the tab list says where it is.
            None => (
                self.last_screenshot.clone(),
                prompts::dialog_note(self.h.page.dialog().as_ref()),
                self.h.page.listed().await.0,
            ),
        };
        // What the model sees of the page: the screenshot and the note, and
        // what the function calls answered.
        let mut seen = format!("{}\n{note}", png.as_deref().unwrap_or_default());
        for part in &parts {
            match part {
                Part::ToolResult { content, .. } => seen.push_str(content),
                Part::ComputerResult(r) => {
                    for said in [&r.text, &r.error].into_iter().flatten() {
                        seen.push_str(said);
                    }
                }
                _ => {}
            }
        }
        let note = match self.h.repeats.after_turn(calls, waits_only, fingerprint(&seen)) {
            Repeat::Stop(why) => return Some(End::NotCompleted(why)),
            Repeat::Note(repeated) => format!("{note}\n{repeated}"),
            Repeat::Fine => note,
        };
        let mut images = Vec::new();
        let every = self.provider.screenshot_on_every_result();
        for (n, &i) in computer_results.iter().enumerate() {
            let last = n + 1 == computer_results.len();
            if let Part::ComputerResult(r) = &mut parts[i] {
                r.url = url.clone();
                if every || last {
                    r.screenshot_png_base64 = png.clone();
                    images.push(i);
                }
                if last {
                    r.text = Some(match r.text.take() {
                        Some(t) => format!("{t}\n{note}"),
                        None => note.clone(),
                    });
                }
            }
        }
        if computer_results.is_empty() {
            parts.push(Part::Text(note));
            if let Some(png) = png {
                images.push(parts.len());
                parts.push(Part::Image { png_base64: png });
            }
        }
        self.conv.push(Message {
            role: Role::User,
            parts,
        });
        for i in images {
            self.conv.mark_screenshot(i, prompts::STALE_SCREENSHOT.into());
        }
        None
    }
}
