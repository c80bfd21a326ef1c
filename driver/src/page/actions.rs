//! Element actions with Stagehand's method names: `click`, `doubleClick`,
//! `hover`, `fill`, `type`, `press`, `selectOptionFromDropdown`, `check`,
//! `uncheck`, `scrollIntoView`, `scrollTo`, `nextChunk`, `prevChunk`,
//! `setInputFiles` (and `dragAndDrop` in `drag.rs`).
//!
//! Every click, key and hover is trusted CDP input at the element's action
//! point, after the actionability checks of `target.rs`. The DOM-level
//! operations (`<select>` options, picker values, files) have no trusted
//! input equivalent. After acting, the step waits until the page is ready.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams;
use chromiumoxide::cdp::browser_protocol::page::{
    EventFileChooserOpened, FileChooserOpenedMode, SetInterceptFileChooserDialogParams,
};
use chromiumoxide::cdp::js_protocol::runtime::ReleaseObjectParams;
use futures::StreamExt;
use serde::Serialize;
use serde_json::{json, Value};
use sightline_engine::actions::is_value_input;
use sightline_engine::protocol::TargetInfo;

use super::handle::Page;
use super::held::ClickButton;
use super::target::{Located, Needs, Ready, Target};
use crate::error::{ActionErrorKind, Error, Result};

/// What an action did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ActionResult {
    /// The element acted on (`button#buy "Buy now"`), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// A selector of it: for a ref, the snapshot's, which finds it alone;
    /// else a short one (`button#buy`, `x-card >>> button.primary`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// What the action read or chose: the selected option labels, a scroll position…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Worth knowing: already checked, a JS click fallback, a navigation…
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Typing that stopped short: the characters typed before the page
    /// started another document (the rest would have gone into that one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typed_chars: Option<usize>,
    /// A scroll: whether its box moved (`false`: at that end already).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<bool>,
    /// The element's box in viewport CSS pixels when it was acted on (after
    /// scrolling it into view): what a trace report draws on its screenshot.
    #[serde(skip)]
    pub rect: Option<sightline_engine::protocol::Rect>,
    /// For a ref whose selector is a position among siblings: the text
    /// around the element, which a replay record keeps (see
    /// [`Page::context_of`]).
    #[serde(skip)]
    pub context: Option<String>,
    /// A registry tool's result as data, when it has a shape (evaluate's
    /// value, extract's data): what a steps run reports as the step's value.
    #[serde(skip)]
    pub data: Option<serde_json::Value>,
}

impl ActionResult {
    fn of(ready: &Ready) -> ActionResult {
        ActionResult {
            element: Some(ready.info.description.clone()).filter(|d| !d.is_empty()),
            selector: Some(ready.info.selector.clone()).filter(|s| !s.is_empty()),
            rect: Some(ready.rect).filter(|r| !r.is_empty()),
            context: ready.context.clone(),
            ..Default::default()
        }
    }
}

/// Options of [`Page::click_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClickOptions {
    /// 1 for a click, 2 for a double click.
    pub clicks: u8,
    /// Left (default), right (context menus) or middle.
    pub button: ClickButton,
    /// Keys held during the click: Alt, Control, ControlOrMeta, Meta, Shift.
    pub modifiers: Vec<String>,
    /// When the trusted click is impossible (covered, outside the viewport,
    /// never stable), fall back to the DOM's `el.click()` instead of failing.
    /// Logged, and noted in the result. Off by default.
    pub js_fallback: bool,
}

impl Default for ClickOptions {
    fn default() -> Self {
        ClickOptions {
            clicks: 1,
            button: ClickButton::Left,
            modifiers: Vec::new(),
            js_fallback: false,
        }
    }
}

/// Focuses an editable element and puts the caret at the end of its content.
const FOCUS_END_JS: &str = "(el) => {
  el.focus();
  if (typeof el.value === 'string' && el.setSelectionRange) {
    try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) {}
  } else if (el.isContentEditable) {
    const r = document.createRange(); r.selectNodeContents(el); r.collapse(false);
    const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  return document.activeElement === el || el.contains(document.activeElement) || !!(el.shadowRoot && el.shadowRoot.activeElement);
}";

/// Focuses any element (for `press` on a target).
const FOCUS_JS: &str = "(el) => { el.focus(); return document.activeElement === el || el.contains(document.activeElement) || !!(el.shadowRoot && el.shadowRoot.activeElement); }";

/// How long a click may take to open a file chooser.
const CHOOSER_WAIT: Duration = Duration::from_secs(2);

/// The files' names, comma-separated (what a result says was chosen).
fn file_names(paths: &[String]) -> String {
    paths
        .iter()
        .map(|a| {
            Path::new(a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a click on an element that is no file input may open a file
/// chooser (`opens`): a label of one, or anything but a form's submit button
/// or a link away, on a page that has a file input; and that input, named
/// (`input`), for the advice when it may not.
const CHOOSER_OPENER_JS: &str = r#"(el) => {
  const any = (root) => root.querySelector("input[type=file]")
    || [...root.querySelectorAll("*")].reduce((found, e) => found || (e.shadowRoot && any(e.shadowRoot)), null);
  const input = any(el.ownerDocument);
  // (Escaped: the advice is a selector to paste, whatever the id or name holds.)
  const named = input && (input.id ? "input#" + CSS.escape(input.id) : input.name ? `input[name="${CSS.escape(input.name)}"]` : "input[type=file]");
  if (el instanceof HTMLLabelElement) return { opens: !!el.control && el.control.type === "file", input: named };
  const submits = (el instanceof HTMLButtonElement || el instanceof HTMLInputElement) && el.type === "submit" && !!el.form;
  const leaves = el instanceof HTMLAnchorElement && el.hasAttribute("href") && !/^\s*(#|javascript:)/i.test(el.getAttribute("href"));
  return { opens: !!input && !submits && !leaves, input: named };
}"#;

/// A player with the browser's controls, focused: `true` when it took focus.
const PLAYER_FOCUS_JS: &str =
    "(el) => { if (!(el instanceof HTMLMediaElement) || !el.controls) return false; el.focus(); return el.matches(':focus'); }";

/// A player's state, as the snapshot says it.
const PLAYER_STATE_JS: &str = "(el) => el.ended ? 'ended' : el.paused ? 'paused' : 'playing'";

/// Before a click on a submit button: listens for the `invalid` events the
/// browser fires when it refuses to send the form (a required field, a bad
/// address). The form's state after the click cannot tell: a page that
/// sent it may have emptied its required fields since.
const WATCH_FORM_JS: &str = "(el) => {
  const form = el.form;
  if (!form || el.type !== 'submit' || form.noValidate || el.formNoValidate) return false;
  const watch = { form, first: null };
  watch.handler = (e) => { watch.first = watch.first || e.target; };
  form.addEventListener('invalid', watch.handler, true);
  globalThis.__sightlineFormWatch = watch;
  return true;
}";

/// After it: the first field the browser refused (`Email: "Please include
/// an '@'…"`), or null; the watch ends.
const FORM_REFUSED_JS: &str = "() => {
  const watch = globalThis.__sightlineFormWatch;
  globalThis.__sightlineFormWatch = null;
  if (!watch) return null;
  watch.form.removeEventListener('invalid', watch.handler, true);
  const bad = watch.first;
  if (!bad) return null;
  const label = (bad.labels && bad.labels[0] && bad.labels[0].textContent.trim()) || bad.getAttribute('aria-label') || bad.name || bad.localName;
  return `${label}: \"${bad.validationMessage}\"`;
}";

/// Scrolls the element's scroll container (or the page, when it has none,
/// or when there is no element; a page that does not scroll itself: its
/// largest scrolling box in view) to `o.percent` of its range, or by `o.dy`
/// pixels plus `o.pages` container heights. Instantly, whatever
/// `scroll-behavior` says. Returns the new position.
pub(crate) const SCROLL_JS: &str = "(el, o) => {
  const page = document.scrollingElement || document.documentElement;
  const scrollable = (e) => {
    if (e === page || e === document.body) return false;
    const cs = getComputedStyle(e);
    return /(auto|scroll|overlay)/.test(cs.overflowY) && e.scrollHeight > e.clientHeight + 1;
  };
  let c = null;
  for (let e = el; e; e = e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null)) {
    if (scrollable(e)) { c = e; break; }
  }
  if (!el && page.scrollHeight - (page.clientHeight || innerHeight) < 1) {
    // The page itself does not scroll (an app's shell): its content scrolls
    // in a box of its own, the largest in view if it fills a good part of it
    // (in a component's shadow root too, as the engine's position reads it).
    let best = 0;
    const each = function* (root) {
      for (const e of root.querySelectorAll('*')) {
        yield e;
        if (e.shadowRoot) yield* each(e.shadowRoot);
      }
    };
    for (const e of each(document.body || document.documentElement)) {
      if (e.scrollHeight <= e.clientHeight + 1 || !scrollable(e)) continue;
      const r = e.getBoundingClientRect();
      const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0);
      const h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
      if (w > 0 && h > 0 && w * h > best) { best = w * h; c = e; }
    }
    if (best < innerWidth * innerHeight / 4) c = null;
  }
  const box = c || page;
  const from = c ? c.scrollTop : scrollY;
  // (The page's viewport: the scrolling element's client box, the body's in
  // quirks mode, where the root's is the whole document.)
  const view = c ? c.clientHeight : (page.clientHeight || innerHeight);
  const max = Math.max(0, box.scrollHeight - view);
  let top;
  if (o.percent !== null) top = max * Math.min(100, Math.max(0, o.percent)) / 100;
  else top = box.scrollTop + (o.dy || 0) + (o.pages || 0) * view;
  top = Math.min(max, Math.max(0, top));
  if (c) c.scrollTo({ top, behavior: 'instant' });
  else window.scrollTo({ left: scrollX, top, behavior: 'instant' });
  const y = c ? c.scrollTop : scrollY;
  return { y, max, view, container: c ? (c.id ? c.localName + '#' + c.id : c.localName) : 'page', moved: Math.abs(y - from) >= 1 };
}";

impl Page {
    /// Clicks the element: a trusted left click at its action point.
    pub async fn click(&self, target: impl Into<Target>) -> Result<ActionResult> {
        self.click_with(target, ClickOptions::default()).await
    }

    /// Double-clicks the element (trusted mousedown/up twice, then `dblclick`).
    pub async fn double_click(&self, target: impl Into<Target>) -> Result<ActionResult> {
        self.click_with(
            target,
            ClickOptions {
                clicks: 2,
                ..Default::default()
            },
        )
        .await
    }

    /// [`Page::click`] with options.
    pub async fn click_with(&self, target: impl Into<Target>, options: ClickOptions) -> Result<ActionResult> {
        let target = target.into();
        let method = if options.clicks >= 2 { "doubleClick" } else { "click" };
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let ready = match self.actionable(method, &target, Needs::POINTER).await {
            Ok(r) => r,
            Err(Error::Action {
                kind,
                element,
                method,
                target: label,
                waited_ms,
            }) if options.js_fallback
                && matches!(
                    kind,
                    ActionErrorKind::Covered { .. }
                        | ActionErrorKind::Clipped
                        | ActionErrorKind::OutsideViewport
                        | ActionErrorKind::NotStable
                        | ActionErrorKind::ImageLoading
                ) =>
            {
                let why = kind.to_string();
                tracing::warn!(target = %label, "trusted click impossible ({why}); falling back to el.click()");
                let loc = self.locate(&target).await.map_err(|_| Error::Action {
                    method,
                    target: label.clone(),
                    element: element.clone(),
                    kind: kind.clone(),
                    waited_ms,
                })?;
                for _ in 0..options.clicks.max(1) {
                    self.dom_action(&loc, json!({"op": "jsClick", "target": loc.engine_target}))
                        .await?;
                }
                let mut result = ActionResult {
                    element,
                    ..Default::default()
                };
                result
                    .notes
                    .push(format!("clicked with the DOM's el.click() (untrusted) because {why}"));
                self.after_action(&mut result, mark).await?;
                return Ok(result);
            }
            Err(e) => return Err(e),
        };
        let plain = options.clicks <= 1 && options.button == ClickButton::Left && options.modifiers.is_empty();
        if plain && matches!(ready.info.tag.as_str(), "audio" | "video") {
            if let Some(result) = self.toggle_player(&ready, mark).await? {
                return Ok(result);
            }
        }
        let (x, y) = ready.point.expect("a hit test found a point");
        // A submit the browser refuses changes nothing the tree shows: its
        // bubble is the browser's own. Watched for, and said.
        let watching = matches!(ready.info.tag.as_str(), "button" | "input")
            && self.on_element(&ready.loc, WATCH_FORM_JS, Value::Null).await.ok() == Some(Value::Bool(true));
        self.click_at(
            x,
            y,
            i64::from(options.clicks.max(1)),
            options.button,
            &options.modifiers,
        )
        .await?;
        let mut result = ActionResult::of(&ready);
        self.after_action(&mut result, mark).await?;
        if watching && self.navigation_mark() == mark && self.dialog().is_none() {
            let frame = &ready.loc.frame;
            if let Ok(Value::String(why)) = self.engine_eval(frame, &format!("({FORM_REFUSED_JS})()"), false).await {
                let why = crate::text::clip(&crate::text::defang(&crate::text::one_line(&why)), 200);
                result
                    .notes
                    .push(format!("the form was not sent: the browser refused {why}"));
            }
        }
        Ok(result)
    }

    /// `files` for the file chooser `target` opens when clicked (a button in
    /// front of a hidden `<input type=file>`, as most upload widgets are
    /// built): the chooser is caught instead of shown, and its input gets
    /// the files, as a user picking them would give them.
    async fn upload_through_chooser(
        &self,
        target: &Target,
        info: &TargetInfo,
        files: Vec<String>,
    ) -> Result<ActionResult> {
        let fail =
            |why: &str| self.action_error("setInputFiles", target, info, ActionErrorKind::Unsupported(why.into()));
        let mut opened = self
            .inner
            .event_listener::<EventFileChooserOpened>()
            .await
            .map_err(|e| Error::cdp("file chooser listener", e))?;
        self.send(SetInterceptFileChooserDialogParams::new(true)).await?;
        let clicked = self.click(target.clone()).await;
        let chooser = match &clicked {
            Ok(_) => tokio::time::timeout(CHOOSER_WAIT, opened.next()).await.ok().flatten(),
            Err(_) => None,
        };
        let _ = self.send(SetInterceptFileChooserDialogParams::new(false)).await;
        let mut result = clicked?;
        let Some(chooser) = chooser.filter(|c| c.backend_node_id.is_some()) else {
            // (Said with what the click did: it was pressed.)
            let did = match result.notes.is_empty() {
                true => String::new(),
                false => format!("; it {}", result.notes.join("; ")),
            };
            return Err(fail(&format!(
                "not an <input type=file>; it was clicked, and opened no file chooser{did}: give the file input itself"
            )));
        };
        if files.len() > 1 && chooser.mode == FileChooserOpenedMode::SelectSingle {
            return Err(fail("its file chooser takes one file"));
        }
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        result.value = Some(file_names(&files));
        let mut p = SetFileInputFilesParams::new(files);
        p.backend_node_id = chooser.backend_node_id;
        self.send(p).await?;
        result.notes.push("through the file chooser it opened".into());
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// A click on a player that shows the browser's controls plays or
    /// pauses it, as its play button does: Space on the focused player, the
    /// keyboard's way to that button (the middle of an audio bar is its time
    /// scrubber, where a click would seek). `None`: no such player.
    async fn toggle_player(&self, ready: &Ready, mark: u64) -> Result<Option<ActionResult>> {
        if self.on_element(&ready.loc, PLAYER_FOCUS_JS, Value::Null).await? != Value::Bool(true) {
            return Ok(None);
        }
        self.press_key("Space").await?;
        let mut result = ActionResult::of(ready);
        self.after_action(&mut result, mark).await?;
        if let Ok(Value::String(now)) = self.on_element(&ready.loc, PLAYER_STATE_JS, Value::Null).await {
            result.value = Some(now);
        }
        Ok(Some(result))
    }

    /// Moves the mouse over the element.
    pub async fn hover(&self, target: impl Into<Target>) -> Result<ActionResult> {
        let target = target.into();
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let ready = self.actionable("hover", &target, Needs::HOVER).await?;
        let (x, y) = ready.point.expect("a hit test found a point");
        // Usually already there: the mouse moves while stability is checked.
        if !self.mouse_is_at((x, y)) {
            self.mouse_move(x, y).await?;
        }
        let mut result = ActionResult::of(&ready);
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Replaces the content of a text field, textarea or contenteditable with
    /// `value` the way a user would: focus, select all, then trusted text
    /// input (one `input` event), then `change`. Date, time, color and range
    /// inputs get their value set directly (there is nothing to type into),
    /// with `input` and `change`; a native `<select>` gets the option.
    pub async fn fill(&self, target: impl Into<Target>, value: &str) -> Result<ActionResult> {
        let target = target.into();
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        // A <select> is filled by choosing an option; check its kind first.
        let ready = match self.actionable("fill", &target, Needs::EDIT).await {
            Err(Error::Action {
                kind: ActionErrorKind::NotEditable,
                ..
            }) => {
                let probe = self.actionable("fill", &target, Needs::SELECT).await?;
                if probe.info.tag == "select" {
                    return self.select_ready(&target, probe, &[value.to_string()], mark).await;
                }
                // A slider of the page's own (role=slider) moves by keys.
                let role = self
                    .on_element(&probe.loc, "(el) => el.getAttribute('role')", Value::Null)
                    .await;
                let kind = if role.ok().as_ref().and_then(Value::as_str) == Some("slider") {
                    ActionErrorKind::Unsupported(
                        "a slider is not typed into: press ArrowRight or ArrowLeft (Home, End for its ends) with it \
as the target"
                            .into(),
                    )
                } else {
                    ActionErrorKind::NotEditable
                };
                return Err(self.action_error("fill", &target, &probe.info, kind));
            }
            other => other?,
        };
        let loc = &ready.loc;
        let mut result = ActionResult::of(&ready);
        // What a number field holds: put back if it refuses the new text.
        let held = if ready.info.tag == "input" && ready.info.input_type == "number" {
            let v = self.on_element(loc, "(el) => el.value", Value::Null).await;
            v.ok().and_then(|v| v.as_str().map(str::to_string))
        } else {
            None
        };
        if ready.info.tag == "input" && is_value_input(&ready.info.input_type) {
            let set = self
                .dom_action(
                    loc,
                    json!({"op": "setValue", "target": loc.engine_target, "value": value}),
                )
                .await
                .map_err(|e| {
                    self.action_error(
                        "fill",
                        &target,
                        &ready.info,
                        ActionErrorKind::Unsupported(engine_message(e)),
                    )
                })?;
            result.value = set;
        } else {
            self.replace_text(loc, value).await?;
        }
        self.after_action(&mut result, mark).await?;
        let typed_into = |kind: &str| ready.info.tag == "input" && ready.info.input_type == kind;
        // (Not while a dialog the fill opened holds the page: nothing answers.)
        if ready.info.tag == "input" && !value.is_empty() && !typed_into("password") && self.dialog().is_none() {
            // What the field kept: a number field drops what is not a
            // number, a mask reformats, maxlength cuts. Neither the text nor
            // what was kept is repeated: either may be a secret variable's
            // (the tree shows the field as the page does).
            let kept = self.on_element(loc, "(el) => el.value", Value::Null).await;
            match kept.ok().as_ref().and_then(Value::as_str) {
                Some("") if typed_into("number") => {
                    // A failed fill leaves the field as it was.
                    let restored = match held.as_deref().filter(|v| !v.is_empty()) {
                        Some(old) => self.replace_text(loc, old).await.is_ok(),
                        None => false,
                    };
                    let now = if restored {
                        "its number was put back"
                    } else {
                        "it is empty"
                    };
                    let kind = ActionErrorKind::Unsupported(format!(
                        "the number field refused the text ({now}): it takes only a number, such as 12 or 1.5"
                    ));
                    return Err(self.action_error("fill", &target, &ready.info, kind));
                }
                // (A tag or chip input takes the text into a chip and empties.)
                Some("") => result
                    .notes
                    .push("the field is empty again: the page took the text elsewhere or cleared it".into()),
                Some(kept) if kept != value => result
                    .notes
                    .push("the field holds other text than was given: it reformats or limits what it takes".into()),
                _ => {}
            }
        }
        Ok(result)
    }

    /// Replaces a field's text as a user does: focus, select all, then one
    /// trusted text input (Delete for none), then `change`.
    async fn replace_text(&self, loc: &Located, value: &str) -> Result<()> {
        self.dom_action(loc, json!({"op": "focusAndSelectAll", "target": loc.engine_target}))
            .await?;
        if value.is_empty() {
            self.press_key("Delete").await?;
        } else {
            self.insert_text(value).await?;
        }
        self.dom_action(loc, json!({"op": "dispatchChange", "target": loc.engine_target}))
            .await?;
        Ok(())
    }

    /// Types `text` into the element with one trusted key press per
    /// character (keydown, keypress, input, keyup), after the current
    /// content; then fires `change` as the following blur would.
    pub async fn type_into(&self, target: impl Into<Target>, text: &str) -> Result<ActionResult> {
        let target = target.into();
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let ready = self.actionable("type", &target, Needs::EDIT).await?;
        let loc = &ready.loc;
        self.on_element(loc, FOCUS_END_JS, Value::Null).await?;
        let typed = self.type_text_on_this_document(text).await?;
        // The element may be gone (typing Enter can submit and navigate).
        if let Err(e) = self
            .dom_action(loc, json!({"op": "dispatchChange", "target": loc.engine_target}))
            .await
        {
            tracing::debug!("type: no change event: {e}");
        }
        let mut result = ActionResult::of(&ready);
        let total = text.chars().count();
        if typed < total {
            result.typed_chars = Some(typed);
            result
                .notes
                .push("the page started loading another document after them: the rest was not typed".into());
        }
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Presses keys or combinations (`Enter`, `Control+A`, `Shift+Tab`), one
    /// after the other, in the focused element, or in `target` after focusing it.
    pub async fn press(&self, target: Option<Target>, keys: &[String]) -> Result<ActionResult> {
        if keys.is_empty() {
            return Err(Error::InvalidAction(
                "press needs a key, e.g. \"Enter\" or \"Control+A\"".into(),
            ));
        }
        // Reject bad key names before touching the page.
        for k in keys {
            super::input::parse_combo(k)?;
        }
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let mut result = ActionResult::default();
        if let Some(target) = &target {
            let ready = self.actionable("press", target, Needs::ATTACHED).await?;
            let focused = self.on_element(&ready.loc, FOCUS_JS, Value::Null).await?;
            if focused != Value::Bool(true) {
                result
                    .notes
                    .push("the element did not take focus; keys went to the focused element".into());
            }
            let notes = std::mem::take(&mut result.notes);
            result = ActionResult::of(&ready);
            result.notes = notes;
        }
        for k in keys {
            self.press_key(k).await?;
        }
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Chooses options of a native `<select>` by label, then by value.
    pub async fn select_option(&self, target: impl Into<Target>, options: &[String]) -> Result<ActionResult> {
        let target = target.into();
        if options.is_empty() {
            return Err(Error::InvalidAction(
                "selectOptionFromDropdown needs the option to choose".into(),
            ));
        }
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let ready = self
            .actionable("selectOptionFromDropdown", &target, Needs::SELECT)
            .await?;
        self.select_ready(&target, ready, options, mark).await
    }

    async fn select_ready(&self, target: &Target, ready: Ready, options: &[String], mark: u64) -> Result<ActionResult> {
        let loc = &ready.loc;
        let label = target.label();
        if ready.info.tag != "select" {
            // An editable combobox (an autocomplete) offers its options
            // as text is typed; a list box of the page's own opens on a click.
            let how = if ready.info.editable {
                "type into it, then click the option it offers"
            } else {
                "click it to open it, then click the option"
            };
            return Err(Error::Action {
                method: "selectOptionFromDropdown",
                target: label,
                element: Some(ready.info.description.clone()),
                kind: ActionErrorKind::Unsupported(format!("not a native <select>; {how}")),
                waited_ms: None,
            });
        }
        let chosen = self
            .dom_action(
                loc,
                json!({"op": "selectOption", "target": loc.engine_target, "values": options}),
            )
            .await
            .map_err(|e| Error::Action {
                method: "selectOptionFromDropdown",
                target: label.clone(),
                element: Some(ready.info.description.clone()),
                kind: ActionErrorKind::Unsupported(engine_message(e)),
                waited_ms: None,
            })?;
        let mut result = ActionResult::of(&ready);
        result.value = chosen;
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Checks a checkbox, radio button or switch (native or ARIA): clicks it
    /// only when it is not checked yet, then verifies that it is.
    pub async fn check(&self, target: impl Into<Target>) -> Result<ActionResult> {
        self.set_checked(target.into(), true).await
    }

    /// Unchecks a checkbox or switch: clicks it only when it is checked, then verifies.
    pub async fn uncheck(&self, target: impl Into<Target>) -> Result<ActionResult> {
        self.set_checked(target.into(), false).await
    }

    async fn set_checked(&self, target: Target, want: bool) -> Result<ActionResult> {
        let method = if want { "check" } else { "uncheck" };
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let needs = Needs {
            state: true,
            ..Needs::POINTER
        };
        let read = Needs {
            state: true,
            ..Needs::ATTACHED
        };
        let first = self.actionable(method, &target, read).await?;
        let Some(state) = first.state.clone() else {
            return Err(self.action_error(
                method,
                &target,
                &first.info,
                ActionErrorKind::Unsupported("not a checkbox, radio button or switch".into()),
            ));
        };
        let mut result = ActionResult::of(&first);
        if state.checked == Value::Bool(want) {
            result
                .notes
                .push(format!("already {}", if want { "checked" } else { "unchecked" }));
            return Ok(result);
        }
        if !want && state.kind == "radio" {
            return Err(self.action_error(
                method,
                &target,
                &first.info,
                ActionErrorKind::Unsupported("a radio button can't be unchecked; check another option instead".into()),
            ));
        }
        let ready = self.actionable(method, &target, needs).await?;
        if ready.state.as_ref().map(|s| &s.checked) != Some(&Value::Bool(want)) {
            let (x, y) = ready.point.expect("a hit test found a point");
            self.mouse_click(x, y, 1).await?;
        }
        self.after_action(&mut result, mark).await?;
        // Verify: frameworks may update the state a moment later.
        let deadline = Instant::now() + Duration::from_millis(1000);
        loop {
            let now = self.actionable(method, &target, read).await?;
            let checked = now.state.map(|s| s.checked);
            if checked == Some(Value::Bool(want)) {
                return Ok(result);
            }
            if Instant::now() >= deadline {
                return Err(self.action_error(
                    method,
                    &target,
                    &now.info,
                    ActionErrorKind::NoEffect(format!(
                        "clicking it did not {method} it (it is {})",
                        match checked {
                            Some(Value::Bool(true)) => "checked",
                            Some(Value::Bool(false)) => "unchecked",
                            Some(_) => "mixed",
                            None => "no longer a checkbox",
                        }
                    )),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Scrolls the element into view (centred), also through its iframes.
    pub async fn scroll_into_view(&self, target: impl Into<Target>) -> Result<ActionResult> {
        let target = target.into();
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let needs = Needs {
            visible: true,
            scroll: true,
            ..Needs::ATTACHED
        };
        let ready = self.actionable("scrollIntoView", &target, needs).await?;
        self.step_scrolled();
        self.dom_action(
            &ready.loc,
            json!({"op": "scrollIntoView", "target": ready.loc.engine_target}),
        )
        .await?;
        let mut result = ActionResult::of(&ready);
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Scrolls the element's scroll container (or the page, with no target
    /// or when the element has none) to `percent` of its scroll range.
    pub async fn scroll_to(&self, target: Option<Target>, percent: f64) -> Result<ActionResult> {
        if !percent.is_finite() {
            return Err(Error::InvalidAction(format!("scrollTo: bad percentage {percent}")));
        }
        self.scroll_element("scrollTo", target, json!({"percent": percent, "dy": 0, "pages": 0}))
            .await
    }

    /// Scrolls down one viewport (or one container height with a target).
    pub async fn next_chunk(&self, target: Option<Target>) -> Result<ActionResult> {
        self.scroll_element("nextChunk", target, json!({"percent": null, "dy": 0, "pages": 1}))
            .await
    }

    /// Scrolls up one viewport (or one container height with a target).
    pub async fn prev_chunk(&self, target: Option<Target>) -> Result<ActionResult> {
        self.scroll_element("prevChunk", target, json!({"percent": null, "dy": 0, "pages": -1}))
            .await
    }

    pub(crate) async fn scroll_element(
        &self,
        method: &'static str,
        target: Option<Target>,
        args: Value,
    ) -> Result<ActionResult> {
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let mut result = ActionResult::default();
        self.step_scrolled();
        let pos = match &target {
            Some(t) => {
                let ready = self.actionable(method, t, Needs::ATTACHED).await?;
                result = ActionResult::of(&ready);
                self.on_element(&ready.loc, SCROLL_JS, args).await?
            }
            None => {
                let main = self.main_frame_id().await?;
                let expression = format!("({SCROLL_JS})(null, {args})");
                self.engine_act(&main, &expression, false).await?
            }
        };
        let (container, y, max) = (
            pos["container"].as_str().unwrap_or("page"),
            pos["y"].as_f64().unwrap_or(0.0).round(),
            pos["max"].as_f64().unwrap_or(0.0).round(),
        );
        result.moved = Some(pos["moved"] != false);
        result.value = Some(if result.moved == Some(false) {
            format!("{container} did not move: it is at y={y} of {max}")
        } else {
            format!("{container} scrolled to y={y} of {max}")
        });
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Sets the files of an `<input type=file>` (local paths; relative ones
    /// against the current directory). Fires `input` and `change`.
    pub async fn set_input_files(&self, target: impl Into<Target>, files: &[PathBuf]) -> Result<ActionResult> {
        let target = target.into();
        let mut absolute = Vec::with_capacity(files.len());
        for f in files {
            let abs = std::fs::canonicalize(f).map_err(|_| Error::NoSuchFile {
                path: f.clone(),
                hint: None,
            })?;
            if !abs.is_file() {
                return Err(Error::NoSuchFile {
                    path: f.clone(),
                    hint: Some(" (it is a directory)".into()),
                });
            }
            // The page may only be handed files it could load itself.
            if !self.origins().files.allows_path(&abs) {
                return Err(Error::InvalidAction(format!(
                    "setInputFiles: {} is outside the directories files may be read from ({}); allow more with \
--allow-file-access",
                    f.display(),
                    self.origins().files.describe()
                )));
            }
            absolute.push(abs.to_string_lossy().into_owned());
        }
        let guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let ready = self.actionable("setInputFiles", &target, Needs::ATTACHED).await?;
        if ready.info.tag != "input" || ready.info.input_type != "file" {
            // Clicked only when it may open a chooser: a form's submit button
            // or a link away is not pressed to find out.
            let opener = self.on_element(&ready.loc, CHOOSER_OPENER_JS, Value::Null).await?;
            let input = opener["input"].as_str();
            let refused = if opener["opens"] != Value::Bool(true) {
                let instead = input.map(|s| format!(": the page's file input is {s}, give it instead"));
                Some(format!(
                    "not an <input type=file>, and not one that opens a file chooser{}",
                    instead.unwrap_or_default()
                ))
            } else if self.host_of(&ready.loc.frame).is_some() {
                // A chooser opened in another process's frame is caught
                // only by that frame's session, whose news this tab does
                // not hear: the user's own browser would show its dialog.
                let instead = input.map(|s| format!(" (in that frame, {s})"));
                Some(format!(
                    "a button that opens a file chooser in a frame of another site, which runs in a process of its \
own: give the frame's <input type=file> itself{}",
                    instead.unwrap_or_default()
                ))
            } else {
                None
            };
            if let Some(why) = refused {
                return Err(self.action_error(
                    "setInputFiles",
                    &target,
                    &ready.info,
                    ActionErrorKind::Unsupported(why),
                ));
            }
            // (The click takes the lock itself.)
            drop(guard);
            return self.upload_through_chooser(&target, &ready.info, absolute).await;
        }
        if absolute.len() > 1 {
            let multiple = self.on_element(&ready.loc, "(el) => el.multiple", Value::Null).await?;
            if multiple != Value::Bool(true) {
                return Err(self.action_error(
                    "setInputFiles",
                    &target,
                    &ready.info,
                    ActionErrorKind::Unsupported("this file input takes one file".into()),
                ));
            }
        }
        if !ready.info.enabled {
            return Err(self.action_error("setInputFiles", &target, &ready.info, ActionErrorKind::Disabled));
        }
        let object = self
            .engine_object(&ready.loc.frame, &ready.loc.engine_target)
            .await?
            .ok_or_else(|| self.action_error("setInputFiles", &target, &ready.info, ActionErrorKind::NotAttached))?;
        let mut p = SetFileInputFilesParams::new(absolute.clone());
        p.object_id = Some(object.clone());
        let frame = &ready.loc.frame;
        let set = self.send_for(frame, p).await;
        let _ = self.send_for(frame, ReleaseObjectParams::new(object)).await;
        set?;
        let mut result = ActionResult::of(&ready);
        result.value = Some(file_names(&absolute));
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Reads an element's current value through the engine (`value`,
    /// checked state, text of a contenteditable); never a password.
    pub async fn read_value(&self, target: impl Into<Target>) -> Result<String> {
        let target = target.into();
        let ready = self.actionable("readValue", &target, Needs::ATTACHED).await?;
        let loc = &ready.loc;
        Ok(self
            .dom_action(loc, json!({"op": "readValue", "target": loc.engine_target}))
            .await?
            .unwrap_or_default())
    }

    /// Main-frame commits so far: taken before acting, for [`Page::after_action`].
    pub(crate) fn navigation_mark(&self) -> u64 {
        self.tracker().with(|s| s.commits)
    }

    /// A step begins: returns [`Page::navigation_mark`] for
    /// [`Page::after_action`].
    pub(crate) fn begin_action(&self) -> u64 {
        self.begin_action_step();
        self.navigation_mark()
    }

    /// Waits until the page is ready after an action and notes a navigation
    /// it caused (`mark`: from [`Page::begin_action`]).
    pub(crate) async fn after_action(&self, result: &mut ActionResult, mark: u64) -> Result<()> {
        let commits = mark;
        if !self.ready_timeout().is_zero() {
            let report = match self.wait_ready().await {
                Ok(report) => report,
                Err(e) => {
                    // The page closed its own tab in reply (a sign-in pop-up's
                    // window.close() on Approve): the action was done, and
                    // nothing more of the page can be read. (Its dropped
                    // channel may fail the wait, as a closed browser, a
                    // moment before the close is told.)
                    let closed_in_reply = match e {
                        Error::TabClosed => true,
                        Error::BrowserClosed => self.closes_within(Duration::from_secs(1)).await,
                        _ => false,
                    };
                    if !closed_in_reply {
                        return Err(e);
                    }
                    result.notes.push("the page closed its tab in reply".into());
                    return Ok(());
                }
            };
            for said in &report.said_and_gone {
                // (The page's words, on one line and unable to close a fence.)
                let said = crate::text::defang(&crate::text::clip(&crate::text::one_line(said), 120));
                result
                    .notes
                    .push(format!("a status message said \"{said}\" and is gone by now"));
            }
            // (Not after a navigation: the new page's slow requests are its
            // load, not the action's reply.)
            let navigated = self.tracker().with(|s| s.commits) > commits;
            if !report.left_loading.is_empty() && !navigated {
                let (list, were) = match report.left_loading.len() {
                    1 => (report.left_loading[0].clone(), "was"),
                    _ => (report.left_loading.join(", "), "were"),
                };
                result.notes.push(format!(
                    "it started {list}, which {were} still loading when the page looked settled (the answer may change \
the page)"
                ));
            }
            result.notes.extend(report.busy_note());
        }
        if self.tracker().with(|s| s.commits) > commits {
            if let Ok(url) = self.url().await {
                // The browser's error page stands for the load that failed.
                let failed = self.tracker().with(|s| s.last_failure());
                match failed.filter(|_| url.starts_with("chrome-error://")) {
                    Some((wanted, error)) => result
                        .notes
                        .push(format!("it opened {wanted}, which could not load ({error})")),
                    None => result
                        .notes
                        .push(format!("navigated to {}", crate::text::shown_url(&url))),
                }
            }
        }
        Ok(())
    }

    fn action_error(&self, method: &'static str, target: &Target, info: &TargetInfo, kind: ActionErrorKind) -> Error {
        Error::Action {
            method,
            target: target.label(),
            element: Some(info.description.clone()).filter(|d| !d.is_empty()),
            kind,
            waited_ms: None,
        }
    }
}

/// The engine's own words from an engine error.
fn engine_message(e: Error) -> String {
    match e {
        Error::Engine { message, .. } => message,
        other => other.to_string(),
    }
}
