//! Actions at coordinates, for models that see screenshots: click, hover,
//! press and release the mouse, turn the wheel, type and hold keys, all at
//! top-level viewport CSS pixels. They are the same trusted CDP input as the
//! element actions (`input.rs`) and end the same way: the page settles
//! (`after_action`) and a navigation they caused is noted. Drags between
//! two points are in `drag.rs`, the element under a point in `point.rs`.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
};
use serde_json::{json, Value};

use super::actions::ActionResult;
use super::handle::Page;
use super::held::ClickButton;
use super::input::{key_by_name, key_event, modifier_bit};
use crate::error::{Error, Result};

/// How [`Page::click_point`] clicks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointClick {
    pub button: ClickButton,
    /// 1, 2 (double) or 3 (triple: selects a paragraph).
    pub clicks: u8,
    /// Keys held: Alt, Control, ControlOrMeta, Meta, Shift.
    pub modifiers: Vec<String>,
}

impl Default for PointClick {
    fn default() -> Self {
        PointClick {
            button: ClickButton::Left,
            clicks: 1,
            modifiers: Vec::new(),
        }
    }
}

/// Resolves when the scroll positions of the page and of the scroll
/// container under (x, y) have stayed put for two frames (a wheel scroll
/// may be animated), or after 600 ms; then says where the page is.
/// Before a wheel turn, in the engine world: what the wheel at (x, y) may
/// scroll (the nearest scrollable box under the point, or the page) and
/// where both are, kept for [`WHEEL_SETTLED_JS`].
const WHEEL_BEFORE_JS: &str = "((x, y) => {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot && hit.shadowRoot.elementFromPoint) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  const page = document.scrollingElement || document.documentElement;
  const scrolls = (o) => /^(auto|scroll|overlay)$/.test(o);
  const scroller = (e) => {
    const s = getComputedStyle(e);
    return (e.scrollHeight > e.clientHeight + 1 && scrolls(s.overflowY))
      || (e.scrollWidth > e.clientWidth + 1 && scrolls(s.overflowX));
  };
  const up = (e) => e.assignedSlot || e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  let box = hit;
  while (box && box !== page && !scroller(box)) box = up(box);
  if (box === page || box === document.body) box = null;
  globalThis.__slWheel = { box, frame: !!hit && (hit.localName === 'iframe' || hit.localName === 'frame'),
    page: [scrollX, scrollY], inner: box ? [box.scrollLeft, box.scrollTop] : [0, 0] };
  return 0;
})";

/// After a wheel turn: waits until the scroll stops (two frames without a
/// change, at most 600 ms) and says what moved: the page, the box under
/// the point, or nothing.
const WHEEL_SETTLED_JS: &str = "(() => new Promise((resolve) => {
  const w = globalThis.__slWheel || { box: null, frame: false, page: [scrollX, scrollY], inner: [0, 0] };
  delete globalThis.__slWheel;
  const box = w.box;
  const page = document.scrollingElement || document.documentElement;
  const pos = () => [scrollX, scrollY, box ? box.scrollLeft : 0, box ? box.scrollTop : 0].join(',');
  let last = pos(), same = 0;
  const start = performance.now();
  const name = (e) => e.localName + (e.id ? '#' + e.id : (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\\s+/)[0] : ''));
  const tick = () => {
    const p = pos();
    same = p === last ? same + 1 : 0;
    last = p;
    if (same >= 2 || performance.now() - start > 600) resolve({
      x: scrollX, y: scrollY, max: page.scrollHeight - innerHeight, maxX: page.scrollWidth - innerWidth,
      pageMoved: scrollX !== w.page[0] || scrollY !== w.page[1],
      box: box && (box.scrollLeft !== w.inner[0] || box.scrollTop !== w.inner[1]) ? { name: name(box),
        x: box.scrollLeft, y: box.scrollTop, maxX: box.scrollWidth - box.clientWidth, max: box.scrollHeight - box.clientHeight } : null,
      frame: w.frame,
    });
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}))";

/// What a wheel turn moved, in words (see [`WHEEL_SETTLED_JS`]).
fn wheel_said(landed: &Value, sideways: bool) -> Option<String> {
    let n = |v: &Value, k: &str| v[k].as_f64().unwrap_or(0.0).max(0.0).round();
    let at = |v: &Value| {
        let y = format!("y={} of {}", n(v, "y"), n(v, "max"));
        if sideways {
            format!("x={} of {}, {y}", n(v, "x"), n(v, "maxX"))
        } else {
            y
        }
    };
    landed["y"].as_f64()?;
    let page = format!("page at {}", at(landed));
    Some(if landed["box"].is_object() {
        let inner = &landed["box"];
        let name = crate::text::clip(inner["name"].as_str().unwrap_or("a box"), 60);
        let mut said = format!("scrolled {name} to {}", at(inner));
        if landed["pageMoved"] == true {
            said.push_str(&format!("; {page}"));
        }
        said
    } else if landed["pageMoved"] == true {
        page
    } else if landed["frame"] == true {
        format!("the wheel went into a frame (its own scrolling is not read here); {page}")
    } else {
        format!("nothing scrolled (at its end?); {page}")
    })
}

/// See [`Page::focus_takes_no_text`]: null, or what has the focus.
const FOCUS_TAKES_NO_TEXT_JS: &str = r#"(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (a && (a.isContentEditable || document.designMode === "on")) return null;
  const tag = a ? a.localName : "body";
  const notText = ["button", "checkbox", "radio", "range", "color", "file", "submit", "reset", "image", "hidden"];
  const none = !a || a === document.body || a === document.documentElement || tag === "button" || tag === "a"
    || (tag === "input" && notText.includes(a.type));
  if (!none) return null;
  const said = a && ["id", "aria-label", "name"].map(k => [k, a.getAttribute(k)]).find(([, v]) => v);
  return said ? `<${tag} ${said[0]}="${said[1].slice(0, 40)}">` : `<${tag}>`;
})()"#;

/// CDP's modifier bit of a key held during a wheel turn.
fn modifier_bits(modifiers: &[String]) -> Result<i64> {
    let mut bits = 0;
    for m in modifiers {
        let name = if m == "ControlOrMeta" { "Control" } else { m.as_str() };
        let key = key_by_name(name).ok_or_else(|| Error::InvalidAction(format!("unknown modifier {m:?}")))?;
        bits |= match key.key.as_str() {
            "Alt" => super::input::ALT,
            "Control" => super::input::CONTROL,
            "Meta" => super::input::META,
            "Shift" => super::input::SHIFT,
            other => return Err(Error::InvalidAction(format!("{other:?} is not a modifier"))),
        };
    }
    Ok(bits)
}

impl Page {
    /// A trusted click at (x, y): any button, one to three clicks, keys held.
    pub async fn click_point(&self, x: f64, y: f64, click: &PointClick) -> Result<ActionResult> {
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        self.click_at(
            x,
            y,
            i64::from(click.clicks.clamp(1, 3)),
            click.button,
            &click.modifiers,
        )
        .await?;
        let mut result = ActionResult::default();
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Moves the mouse to (x, y) (hover); with a button held
    /// ([`Page::mouse_button`]), a step of a drag by hand.
    pub async fn move_mouse(&self, x: f64, y: f64) -> Result<ActionResult> {
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        self.mouse_move(x, y).await?;
        let mut result = ActionResult::default();
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Presses (`down`) or releases `button` at (x, y), or where the mouse
    /// is when no point is given, and leaves it so: the moves and clicks
    /// until its release carry it (a drag by hand).
    pub async fn mouse_button(&self, down: bool, button: ClickButton, at: Option<(f64, f64)>) -> Result<ActionResult> {
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        self.button_event(down, button, at).await?;
        let mut result = ActionResult::default();
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Presses (`down`) or releases `key` and leaves it so: the keys and
    /// clicks until its release carry it as a modifier.
    pub async fn key_hold(&self, key: &str, down: bool) -> Result<ActionResult> {
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        self.key_hold_event(key, down).await?;
        let mut result = ActionResult::default();
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Releases what [`Page::mouse_button`] and [`Page::key_hold`] left
    /// down (an agent's run ended with a key or the button held).
    /// Every release is tried, and nothing is held afterwards (the first
    /// error is returned).
    pub async fn release_held(&self) -> Result<()> {
        // A dialog holds the page's input back (each release would wait out
        // the action timeout): what is held is forgotten, and the dialog's
        // answer ends the page's part in it.
        if self.dialog().is_some() {
            *self.held() = Default::default();
            return Ok(());
        }
        let _guard = self.action_lock().lock().await;
        let mut outcome = Ok(());
        for key in self.held_keys().into_iter().rev() {
            let released = self.key_hold_event(&key, false).await;
            outcome = outcome.and(released);
        }
        if let Some((button, _)) = self.pressed_at() {
            let released = self.button_event(false, button, None).await;
            outcome = outcome.and(released);
        }
        *self.held() = Default::default();
        outcome
    }

    /// Turns the mouse wheel at (x, y) by `dx`, `dy` CSS pixels (positive:
    /// right, down): the page or the container under the pointer scrolls as
    /// for a user. Returns once the scroll has landed.
    pub async fn wheel(&self, x: f64, y: f64, dx: f64, dy: f64, modifiers: &[String]) -> Result<ActionResult> {
        let bits = modifier_bits(modifiers)?;
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        if !self.mouse_is_at((x, y)) {
            self.mouse_move_buttons(x, y, 0).await?;
        }
        let mut p = DispatchMouseEventParams::new(DispatchMouseEventType::MouseWheel, x, y);
        p.delta_x = Some(dx);
        p.delta_y = Some(dy);
        // (What stays held goes with the wheel too: Control held zooms.)
        let (held_modifiers, held_buttons) = self.held().as_event_bits();
        p.modifiers = Some(bits | held_modifiers);
        p.buttons = Some(held_buttons);
        let main = self.main_frame_id().await?;
        let _ = self
            .engine_eval(&main, &format!("({WHEEL_BEFORE_JS})({x}, {y})"), false)
            .await;
        self.input_begins();
        self.step_scrolled();
        self.send(p).await?;
        let landed = self
            .engine_eval(&main, &format!("({WHEEL_SETTLED_JS})()"), true)
            .await
            .unwrap_or(json!(null));
        let mut result = ActionResult {
            value: wheel_said(&landed, dx != 0.0),
            ..Default::default()
        };
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// What has the focus when it takes no text, as `<tag id="…">`: nothing
    /// (the document's body), a button, a link or a control that is no text
    /// field. None when keys would reach something that reads them: a text
    /// field, a contenteditable, a select, a focusable widget or canvas with
    /// key handlers of its own, a frame or a custom element (what has focus
    /// inside them, a closed shadow root's field, is not seen from here).
    pub async fn focus_takes_no_text(&self) -> Result<Option<String>> {
        let main = self.main_frame_id().await?;
        let on = self.engine_eval(&main, FOCUS_TAKES_NO_TEXT_JS, false).await?;
        Ok(on.as_str().map(str::to_string))
    }

    /// Types `text` into whatever has focus (trusted key presses; text input
    /// for characters no key makes), then waits until the page is ready.
    pub async fn type_keys(&self, text: &str) -> Result<ActionResult> {
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        self.type_text(text).await?;
        let mut result = ActionResult::default();
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// Holds `key` down for `duration`, then releases it: the page sees it
    /// down all that time (a game's held arrow, a held modifier). CDP input
    /// has no keyboard auto-repeat, so no repeated keydowns are sent.
    pub async fn hold_key(&self, key: &str, duration: Duration) -> Result<ActionResult> {
        let k = key_by_name(key).ok_or_else(|| Error::InvalidAction(format!("unknown key {key:?}")))?;
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        // (Keys held by keyDown go with it as modifiers, and a modifier's
        // own bit with its keydown, as a user's.)
        let held_bits = self.held().as_event_bits().0;
        let own = held_bits | modifier_bit(&k.key);
        self.dispatch_key(key_event(DispatchKeyEventType::RawKeyDown, &k, own, None))
            .await?;
        // The hold itself is the action asked for, not a wait for the page.
        let held = self.wait(duration).await;
        self.dispatch_key(key_event(DispatchKeyEventType::KeyUp, &k, held_bits, None))
            .await?;
        held?;
        let mut result = ActionResult::default();
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }
}
