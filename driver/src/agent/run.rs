//! One agent run. DOM and hybrid modes run the tool loop here: model turns
//! calling tools from [`AgentOptions::tools`], a page message (the viewport
//! tree; in hybrid mode also the annotated screenshot) after every action.
//! Computer-use mode runs the provider's computer tool instead (`cua/`).

use sightline_engine::protocol::SnapshotMode;

use super::context::Conversation;
use super::cua;
use super::harness::{Applied, End, Harness};
use super::mode::AgentMode;
use super::options::AgentOptions;
use super::prompts;
use super::repeats::{fingerprint, unseen_progress, Repeat};
use super::result::AgentResult;
use crate::base64;
use crate::browser::Browser;
use crate::error::{Error, Result};
use crate::llm::{ChatRequest, Llm, Message, Part, ToolChoice, ToolSpec};
use crate::page::{Page, Shot, SnapshotOptions};
use crate::tools::{specs, ToolOutput, VISION};

/// An agent over one page and one model.
pub struct Agent<'a> {
    page: &'a Page,
    llm: &'a Llm,
    opts: AgentOptions,
    browser: Option<&'a Browser>,
}

impl<'a> Agent<'a> {
    pub fn new(page: &'a Page, llm: &'a Llm, opts: AgentOptions) -> Agent<'a> {
        Agent {
            page,
            llm,
            opts,
            browser: None,
        }
    }

    /// The browser the page lives in: a tab the page opens (a
    /// `target=_blank` link, a pop-up) is followed, and the model told.
    /// Without it the run stays on its first tab.
    pub fn with_browser(mut self, browser: &'a Browser) -> Agent<'a> {
        self.browser = Some(browser);
        self
    }

    /// Runs the task to its end (`done`, the model's answer in computer
    /// use), `max_steps` or cancellation. Errors only when the run cannot
    /// start (bad start URL, browser gone, a model that cannot do the mode);
    /// everything later (model failures included) ends the run with
    /// `success: false`.
    pub async fn execute(&self, task: &str) -> Result<AgentResult> {
        let unknown = self.opts.variables.unknown_placeholders_in(task);
        if !unknown.is_empty() {
            return Err(self.opts.variables.unknown_placeholders_error(&unknown));
        }
        let mut harness = Harness::new(self.page.clone(), self.llm, &self.opts, task);
        harness.browser = self.browser;
        match self.opts.mode {
            AgentMode::Cua => cua::execute(harness).await,
            AgentMode::Hybrid if !self.llm.supports_images() => Err(Error::InvalidAction(format!(
                "hybrid mode shows the model screenshots, and {} does not read images",
                self.llm.model_spec()
            ))),
            AgentMode::Dom | AgentMode::Hybrid => {
                harness.start().await?;
                Ok(ToolLoop::new(harness).run().await)
            }
        }
    }
}

/// The DOM and hybrid loop.
struct ToolLoop<'a> {
    h: Harness<'a>,
    hybrid: bool,
    /// Hybrid: the scale of the last screenshot sent, its pixels per CSS
    /// pixel (below 1 when the provider takes no image as large as the
    /// viewport, above on a HiDPI screen); the model's points are in its
    /// pixels.
    image_scale: f64,
    /// Hybrid: the last screenshot's size in its pixels.
    image_size: Option<(u32, u32)>,
    specs: Vec<ToolSpec>,
    conv: Conversation,
    /// What the last page message said (to tell a turn that changed nothing).
    page_seen: String,
}

/// The page message: its text, the placeholder that replaces it later, and
/// (hybrid) the annotated screenshot.
struct PageMessage {
    text: String,
    placeholder: String,
    image: Option<String>,
}

impl<'a> ToolLoop<'a> {
    fn new(h: Harness<'a>) -> ToolLoop<'a> {
        let hybrid = h.opts.mode == AgentMode::Hybrid;
        let caps: &[&str] = if hybrid { &[VISION] } else { &[] };
        let reads_images = h.llm.supports_images();
        ToolLoop {
            specs: specs(&h.opts.tools.for_agent_with(reads_images, caps)),
            conv: Conversation::new(h.opts.keep_screenshots),
            hybrid,
            image_scale: 1.0,
            image_size: None,
            page_seen: String::new(),
            h,
        }
    }

    /// Whether the model was offered tool `name` (or a name it answers to).
    fn offered(&self, name: &str) -> bool {
        self.h
            .opts
            .tools
            .get(name)
            .is_some_and(|t| self.specs.iter().any(|s| s.name == t.name))
    }

    async fn run(mut self) -> AgentResult {
        self.h.hold_dialogs();
        let end = self.run_turns().await;
        self.h.finish(end).await
    }

    async fn run_turns(&mut self) -> End {
        let first = prompts::task_message(
            &self.h.task,
            self.h.opts.variables.prompt_note().as_deref(),
            self.h.domains.entries(),
        );
        let page = self.page_message().await;
        let mut parts = vec![Part::Text(first), Part::Text(page.text)];
        if let Some(png) = &page.image {
            parts.push(Part::Image {
                png_base64: png.clone(),
            });
        }
        self.conv.push(Message {
            role: crate::llm::Role::User,
            parts,
        });
        self.conv.mark_tree(1, page.placeholder);
        if page.image.is_some() {
            self.conv.mark_screenshot(2, prompts::STALE_SCREENSHOT.into());
        }
        self.turns().await
    }

    /// A point of a coordinate tool outside the last screenshot, said in
    /// the screenshot's pixels (the model's), before it is scaled to the
    /// page's: the page's own refusal would quote numbers and a viewport
    /// the model never saw. None where nothing was scaled (`in_css`, from
    /// [`ToolLoop::in_css_pixels`], is `args`).
    fn outside_the_image(&self, args: &serde_json::Value, in_css: &serde_json::Value) -> Option<String> {
        let (w, h) = self.image_size?;
        if in_css == args {
            return None;
        }
        for (kx, ky) in [("x", "y"), ("startX", "startY"), ("endX", "endY")] {
            let (Some(x), Some(y)) = (args[kx].as_f64(), args[ky].as_f64()) else {
                continue;
            };
            if x < 0.0 || y < 0.0 || x >= f64::from(w) || y >= f64::from(h) {
                return Some(format!(
                    "({x:.0}, {y:.0}) is outside the {w}×{h} screenshot: give points in its pixels, from its top-left corner"
                ));
            }
        }
        None
    }

    /// A coordinate tool's points (and distances) in the screenshot's
    /// pixels, as the model gives them, in the viewport's CSS pixels.
    fn in_css_pixels(&self, tool: &str, args: &serde_json::Value) -> serde_json::Value {
        let scale = self.image_scale;
        let vision = self
            .h
            .opts
            .tools
            .get(tool)
            .is_some_and(|t| t.capability == Some(VISION));
        if !self.hybrid || (scale - 1.0).abs() < 1e-3 || scale <= 0.0 || !vision {
            return args.clone();
        }
        let mut css = args.clone();
        for key in ["x", "y", "startX", "startY", "endX", "endY", "deltaX", "deltaY"] {
            if let Some(v) = args[key].as_f64() {
                css[key] = serde_json::json!((v / scale).round());
            }
        }
        css
    }

    /// The viewport page message (and its annotated screenshot in hybrid
    /// mode), after the run went back from a tab that closed meanwhile.
    async fn page_message(&mut self) -> PageMessage {
        let moved = self.h.back_from_a_closed_tab().await;
        let mut message = self.page_message_of_the_tab().await;
        if let Some(note) = moved {
            message.text = format!("{note}\n{}", message.text);
        }
        message
    }

    /// The viewport page message of the run's tab.
    async fn page_message_of_the_tab(&mut self) -> PageMessage {
        // A held dialog stops the page (also one that opens while the tree
        // is read): the dialog is all there is to say.
        let snap = match self.h.page.dialog() {
            Some(_) => None,
            None => {
                let options = SnapshotOptions {
                    mode: SnapshotMode::Viewport,
                    ..Default::default()
                };
                self.h.page.unless_a_dialog_opens(self.h.page.snapshot(&options)).await
            }
        };
        let Some(snap) = snap else {
            let (url, title) = self.h.page.listed().await;
            let text = match self.h.page.dialog() {
                Some(d) => prompts::dialog_page_message(&title, &url, &d),
                // (Answered meanwhile: said as the page.)
                None => format!("Current page: {title} — {url}"),
            };
            self.page_seen.clone_from(&text);
            return PageMessage {
                placeholder: prompts::stale_page(&title, &url),
                text,
                image: None,
            };
        };
        match snap {
            Ok(s) => {
                let text = prompts::page_message(&s, self.h.opts.page_message_budget);
                self.page_seen.clone_from(&text);
                let placeholder = prompts::stale_page(&s.title, &s.url);
                let image = if self.hybrid {
                    let scale = match self.h.page.screenshot_area().await {
                        Ok((w, h)) => cua::image_scale(self.h.llm.provider(), w, h),
                        Err(_) => 1.0,
                    };
                    // (A dialog opening meanwhile leaves the message without its picture.)
                    let annotated = self
                        .h
                        .page
                        .unless_a_dialog_opens(self.h.page.annotate_screenshot_scaled(s, scale))
                        .await;
                    match annotated {
                        None => None,
                        Some(Ok(a)) => {
                            // (What the image came out at: a HiDPI screen's
                            // is larger than the viewport at scale 1.)
                            self.image_scale = a.scale;
                            self.image_size = png_size(&a.png);
                            // (Drawn on the visual viewport when scaled down, else on the window's.)
                            let shot = if a.scale < 1.0 {
                                Shot::VisualViewport
                            } else {
                                Shot::Viewport
                            };
                            let png = self.h.page.cover_secrets(a.png, self.h.secrets.values(), shot).await;
                            Some(base64::encode(&png))
                        }
                        Some(Err(e)) => {
                            tracing::warn!("hybrid: no annotated screenshot: {e}");
                            None
                        }
                    }
                } else {
                    None
                };
                PageMessage {
                    text,
                    placeholder,
                    image,
                }
            }
            Err(e) => PageMessage {
                text: format!("Current page: unavailable ({e})"),
                placeholder: "[earlier page state omitted]".into(),
                image: None,
            },
        }
    }

    async fn turns(&mut self) -> End {
        let system = prompts::system(&self.h.task, self.h.opts.system_instructions.as_deref(), self.hybrid);
        let mut force_done = false;
        loop {
            if self.h.cancelled() {
                return End::Interrupted;
            }
            // The final-done nudge may go one past max_steps.
            if self.h.result.steps >= self.h.opts.max_steps && !force_done {
                return End::NotCompleted(format!(
                    "stopped after {} steps (max_steps) without finishing the task",
                    self.h.result.steps
                ));
            }
            self.h.result.steps += 1;
            let step = self.h.result.steps;
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
            let response = match self.h.unless_cancelled(self.h.llm.chat(&req, &self.h.secrets)).await {
                None => return End::Interrupted,
                Some(Err(e)) => return End::model_failed(&e),
                Some(Ok(r)) => r,
            };
            self.h.result.usage += response.usage;
            self.conv.push(response.to_message());
            let reasoning = response.text.clone().filter(|t| !t.trim().is_empty());

            if response.tool_calls.is_empty() {
                // A refusal or an answer cut off is the run's end, said as such.
                if let Some(why) = response.stopped_short() {
                    return End::NotCompleted(why);
                }
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
            let tools = self.h.opts.tools.clone();
            // A refused done ends what the turn does: the calls after it were
            // written for a task the model thought finished.
            let mut done_refused = false;
            for call in &response.tool_calls {
                let arguments = self.in_css_pixels(&call.name, &call.arguments);
                let refused = if done_refused {
                    Some("not run: it came after a done that was not accepted, in the same turn".to_string())
                } else if !self.offered(&call.name) {
                    // Only what the run offers runs (no `evaluate` for a
                    // model steered by a page, whatever it asks for).
                    Some(format!(
                        "there is no tool {:?}; your tools are {}",
                        call.name,
                        self.specs
                            .iter()
                            .map(|s| s.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                } else {
                    self.outside_the_image(&call.arguments, &arguments)
                };
                let applied = match refused {
                    Some(why) => Applied {
                        output: ToolOutput::failed(why),
                        changed_page: false,
                    },
                    None => {
                        let Some(applied) = self.h.apply(&tools, &call.name, &arguments).await else {
                            return End::Interrupted;
                        };
                        applied
                    }
                };
                let mut outcome = applied.output;
                let mut finish = outcome.finish.take();
                // `done` sent beside an action that failed, in one turn: the
                // model claimed the task before it saw the failure.
                let failed_before: Vec<&str> = response.tool_calls[..results.len()]
                    .iter()
                    .zip(&results)
                    .filter(|(_, (_, _, failed))| *failed)
                    .map(|(c, _)| c.name.as_str())
                    .collect();
                if finish.as_ref().is_some_and(|f| f.complete) && !failed_before.is_empty() {
                    finish = None;
                    done_refused = true;
                    outcome.ok = false;
                    outcome.text = format!(
                        "done was not accepted: {} failed in this same turn (see its result). Call done only once \
the task is done.",
                        failed_before.join(", ")
                    );
                }
                page_changed |= applied.changed_page;
                if let Some(png) = outcome.image_png.take() {
                    images.push(base64::encode(&png));
                }
                if outcome.tree {
                    trees.push(results.len());
                }
                results.push((call.id.clone(), outcome.text.clone(), !outcome.ok));
                self.h
                    .record(
                        call.name.clone(),
                        arguments,
                        &outcome,
                        step,
                        reasoning.clone(),
                        response.usage,
                    )
                    .await;
                if let Some(finish) = finish {
                    return End::Done(finish);
                }
            }

            let page = if page_changed {
                Some(self.page_message().await)
            } else {
                None
            };
            // The same turn again, with the same results (images among them)
            // on the same page.
            let seen = results
                .iter()
                .map(|(_, text, _)| text)
                .chain(&images)
                .fold(self.page_seen.clone(), |seen, said| seen + "\n" + said);
            let calls: Vec<(&str, &serde_json::Value)> = response
                .tool_calls
                .iter()
                .map(|c| (c.name.as_str(), &c.arguments))
                .collect();
            let repeat = self
                .h
                .repeats
                .after_turn(&calls, unseen_progress(&calls), fingerprint(&seen));
            if let Repeat::Stop(why) = repeat {
                return End::NotCompleted(why);
            }
            let mut message = Message::tool_results(results);
            let n_results = message.parts.len();
            if let Some(p) = &page {
                message.parts.push(Part::Text(p.text.clone()));
            }
            let page_image = page.as_ref().and_then(|p| p.image.clone());
            for img in page_image.iter().chain(&images) {
                message.parts.push(Part::Image {
                    png_base64: img.clone(),
                });
            }
            // (Last, so that the parts marked below keep their places.)
            if let Repeat::Note(note) = repeat {
                message.parts.push(Part::Text(note));
            }
            self.conv.push(message);
            for i in trees {
                self.conv.mark_tree(i, "[earlier snapshot result omitted]".into());
            }
            if let Some(p) = page {
                self.conv.mark_tree(n_results, p.placeholder);
            }
            let first_image = n_results + usize::from(page_changed);
            for i in 0..images.len() + usize::from(page_image.is_some()) {
                self.conv
                    .mark_screenshot(first_image + i, prompts::STALE_SCREENSHOT.into());
            }
        }
    }
}

/// A PNG's width and height, from its header.
fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    let header = png.get(16..24)?;
    let word = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((word(&header[..4]), word(&header[4..])))
}
