//! Trusted input: CDP `Input.dispatchMouseEvent` / `Input.dispatchKeyEvent` /
//! `Input.insertText`, with a US-keyboard key-definition table so key events
//! carry the `key`, `code`, `keyCode` and text a real keyboard would produce.

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType, InsertTextParams,
    MouseButton,
};

use futures::FutureExt;

use super::handle::Page;
use super::held::{button_bit, ClickButton, HeldKey, LEFT_BUTTON};
use crate::error::{Error, Result};

/// Modifier bits of CDP input events.
pub const ALT: i64 = 1;
pub const CONTROL: i64 = 2;
pub const META: i64 = 4;
pub const SHIFT: i64 = 8;

/// One key of the (US) keyboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDef {
    /// `KeyboardEvent.key`.
    pub key: String,
    /// `KeyboardEvent.code`.
    pub code: &'static str,
    /// Windows virtual key code (`keyCode`).
    pub key_code: i64,
    /// Text the key types (empty for non-printing keys).
    pub text: String,
    /// 1 for left modifiers, 3 for the numeric keypad…
    pub location: i64,
}

/// Non-printing keys: (key, code, keyCode, text, location).
const NAMED_KEYS: &[(&str, &str, i64, &str, i64)] = &[
    ("Enter", "Enter", 13, "\r", 0),
    ("Tab", "Tab", 9, "", 0),
    ("Backspace", "Backspace", 8, "", 0),
    ("Delete", "Delete", 46, "", 0),
    ("Escape", "Escape", 27, "", 0),
    ("ArrowUp", "ArrowUp", 38, "", 0),
    ("ArrowDown", "ArrowDown", 40, "", 0),
    ("ArrowLeft", "ArrowLeft", 37, "", 0),
    ("ArrowRight", "ArrowRight", 39, "", 0),
    ("Home", "Home", 36, "", 0),
    ("End", "End", 35, "", 0),
    ("PageUp", "PageUp", 33, "", 0),
    ("PageDown", "PageDown", 34, "", 0),
    ("Insert", "Insert", 45, "", 0),
    ("Shift", "ShiftLeft", 16, "", 1),
    ("Control", "ControlLeft", 17, "", 1),
    ("Alt", "AltLeft", 18, "", 1),
    ("Meta", "MetaLeft", 91, "", 1),
    ("CapsLock", "CapsLock", 20, "", 0),
    ("ContextMenu", "ContextMenu", 93, "", 0),
    ("Pause", "Pause", 19, "", 0),
    ("PrintScreen", "PrintScreen", 44, "", 0),
    ("ScrollLock", "ScrollLock", 145, "", 0),
    ("NumLock", "NumLock", 144, "", 0),
    ("F1", "F1", 112, "", 0),
    ("F2", "F2", 113, "", 0),
    ("F3", "F3", 114, "", 0),
    ("F4", "F4", 115, "", 0),
    ("F5", "F5", 116, "", 0),
    ("F6", "F6", 117, "", 0),
    ("F7", "F7", 118, "", 0),
    ("F8", "F8", 119, "", 0),
    ("F9", "F9", 120, "", 0),
    ("F10", "F10", 121, "", 0),
    ("F11", "F11", 122, "", 0),
    ("F12", "F12", 123, "", 0),
    ("F13", "F13", 124, "", 0),
    ("F14", "F14", 125, "", 0),
    ("F15", "F15", 126, "", 0),
    ("F16", "F16", 127, "", 0),
    ("F17", "F17", 128, "", 0),
    ("F18", "F18", 129, "", 0),
    ("F19", "F19", 130, "", 0),
    ("F20", "F20", 131, "", 0),
    ("F21", "F21", 132, "", 0),
    ("F22", "F22", 133, "", 0),
    ("F23", "F23", 134, "", 0),
    ("F24", "F24", 135, "", 0),
];

/// The numeric keypad, by code (`Numpad7`): (code, key, keyCode, text).
/// Its keys type what their main-keyboard twins do, at location 3.
const NUMPAD_KEYS: &[(&str, &str, i64, &str)] = &[
    ("Numpad0", "0", 96, "0"),
    ("Numpad1", "1", 97, "1"),
    ("Numpad2", "2", 98, "2"),
    ("Numpad3", "3", 99, "3"),
    ("Numpad4", "4", 100, "4"),
    ("Numpad5", "5", 101, "5"),
    ("Numpad6", "6", 102, "6"),
    ("Numpad7", "7", 103, "7"),
    ("Numpad8", "8", 104, "8"),
    ("Numpad9", "9", 105, "9"),
    ("NumpadMultiply", "*", 106, "*"),
    ("NumpadAdd", "+", 107, "+"),
    ("NumpadSubtract", "-", 109, "-"),
    ("NumpadDecimal", ".", 110, "."),
    ("NumpadDivide", "/", 111, "/"),
    ("NumpadEnter", "Enter", 13, "\r"),
];

/// Other names people write for keys.
const ALIASES: &[(&str, &str)] = &[
    ("return", "Enter"),
    ("esc", "Escape"),
    ("del", "Delete"),
    ("up", "ArrowUp"),
    ("down", "ArrowDown"),
    ("left", "ArrowLeft"),
    ("right", "ArrowRight"),
    ("pgup", "PageUp"),
    ("pgdn", "PageDown"),
    ("ctrl", "Control"),
    ("control", "Control"),
    ("controlormeta", "Control"),
    ("cmd", "Meta"),
    ("command", "Meta"),
    ("meta", "Meta"),
    ("win", "Meta"),
    ("super", "Meta"),
    ("option", "Alt"),
    ("alt", "Alt"),
    ("shift", "Shift"),
];

/// Printing keys of the US layout: (unshifted, shifted, code, keyCode).
const CHAR_KEYS: &[(char, char, &str, i64)] = &[
    ('`', '~', "Backquote", 192),
    ('1', '!', "Digit1", 49),
    ('2', '@', "Digit2", 50),
    ('3', '#', "Digit3", 51),
    ('4', '$', "Digit4", 52),
    ('5', '%', "Digit5", 53),
    ('6', '^', "Digit6", 54),
    ('7', '&', "Digit7", 55),
    ('8', '*', "Digit8", 56),
    ('9', '(', "Digit9", 57),
    ('0', ')', "Digit0", 48),
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
    (' ', ' ', "Space", 32),
];

const LETTER_CODES: [&str; 26] = [
    "KeyA", "KeyB", "KeyC", "KeyD", "KeyE", "KeyF", "KeyG", "KeyH", "KeyI", "KeyJ", "KeyK", "KeyL", "KeyM", "KeyN",
    "KeyO", "KeyP", "KeyQ", "KeyR", "KeyS", "KeyT", "KeyU", "KeyV", "KeyW", "KeyX", "KeyY", "KeyZ",
];

/// The key that types `c` on a US keyboard, if there is one.
pub fn key_for_char(c: char) -> Option<KeyDef> {
    if c.is_ascii_alphabetic() {
        let i = (c.to_ascii_lowercase() as u8 - b'a') as usize;
        return Some(KeyDef {
            key: c.to_string(),
            code: LETTER_CODES[i],
            key_code: c.to_ascii_uppercase() as i64,
            text: c.to_string(),
            location: 0,
        });
    }
    if c == '\n' || c == '\r' {
        return named_key("Enter");
    }
    if c == '\t' {
        return named_key("Tab");
    }
    CHAR_KEYS
        .iter()
        .find(|(lo, hi, _, _)| *lo == c || *hi == c)
        .map(|&(_, _, code, key_code)| KeyDef {
            key: c.to_string(),
            code,
            key_code,
            text: c.to_string(),
            location: 0,
        })
}

impl KeyDef {
    /// The key as Shift makes it on a US keyboard: `a` → `A`, `1` → `!`
    /// (its key and text; the code stays). Other keys are unchanged.
    pub fn with_shift(&self) -> KeyDef {
        // (The keypad's keys do not change with Shift here.)
        if self.location == 3 {
            return self.clone();
        }
        let mut chars = self.key.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return self.clone();
        };
        let shifted = match CHAR_KEYS.iter().find(|(lo, ..)| *lo == c) {
            Some(&(_, hi, ..)) => hi,
            None => c.to_ascii_uppercase(),
        };
        KeyDef {
            key: shifted.to_string(),
            text: if self.text.is_empty() {
                String::new()
            } else {
                shifted.to_string()
            },
            ..self.clone()
        }
    }
}

fn named_key(name: &str) -> Option<KeyDef> {
    NAMED_KEYS
        .iter()
        .find(|(k, ..)| *k == name)
        .map(|&(key, code, key_code, text, location)| KeyDef {
            key: key.to_string(),
            code,
            key_code,
            text: text.to_string(),
            location,
        })
}

/// A key by name: `Enter`, `ArrowLeft`, `a`, `A`, `Space`, `F5`, aliases
/// such as `Esc` or `Ctrl` (case-insensitive for names), or a `KeyA`-style code.
pub fn key_by_name(name: &str) -> Option<KeyDef> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return key_for_char(c);
    }
    let lower = name.to_ascii_lowercase();
    if lower == "space" {
        return key_for_char(' ');
    }
    if let Some((_, canonical)) = ALIASES.iter().find(|(a, _)| *a == lower) {
        return named_key(canonical);
    }
    if let Some(k) = NAMED_KEYS.iter().find(|(k, ..)| k.eq_ignore_ascii_case(name)) {
        return named_key(k.0);
    }
    if let Some(&(code, key, key_code, text)) = NUMPAD_KEYS.iter().find(|(c, ..)| c.eq_ignore_ascii_case(name)) {
        return Some(KeyDef {
            key: key.to_string(),
            code,
            key_code,
            text: text.to_string(),
            location: 3,
        });
    }
    // Codes: KeyA, Digit1, Minus…
    if let Some(i) = LETTER_CODES.iter().position(|c| c.eq_ignore_ascii_case(name)) {
        return key_for_char((b'a' + i as u8) as char);
    }
    CHAR_KEYS
        .iter()
        .find(|(_, _, code, _)| code.eq_ignore_ascii_case(name))
        .and_then(|(lo, ..)| key_for_char(*lo))
}

pub(crate) fn modifier_bit(key: &str) -> i64 {
    match key {
        "Alt" => ALT,
        "Control" => CONTROL,
        "Meta" => META,
        "Shift" => SHIFT,
        _ => 0,
    }
}

/// A key combination such as `Control+A` or `Shift+Tab`: modifiers held
/// while the last key is pressed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combo {
    pub modifiers: Vec<KeyDef>,
    pub key: KeyDef,
}

/// Parses `Enter`, `Control+A`, `Control+Shift+ArrowLeft`, `Shift++` (the plus key).
pub fn parse_combo(s: &str) -> Result<Combo> {
    let bad = |why: String| Error::InvalidAction(format!("key {s:?}: {why}"));
    let trimmed = s.trim();
    if trimmed.is_empty() {
        return Err(bad("empty key".into()));
    }
    // Split on '+', keeping a trailing "+" as the key itself ("Shift++").
    let mut parts: Vec<&str> = Vec::new();
    let mut rest = trimmed;
    while let Some(i) = rest.find('+') {
        if i == 0 {
            // "++" at the end or a lone "+": the key is '+'.
            break;
        }
        parts.push(&rest[..i]);
        rest = &rest[i + 1..];
    }
    parts.push(rest);
    let (last, mods) = parts.split_last().expect("at least one part");
    let mut modifiers = Vec::new();
    for m in mods {
        let k = key_by_name(m.trim()).ok_or_else(|| bad(format!("unknown key {m:?}")))?;
        if modifier_bit(&k.key) == 0 {
            return Err(bad(format!("{m:?} is not a modifier (Control, Shift, Alt, Meta)")));
        }
        modifiers.push(k);
    }
    let key = key_by_name(last.trim()).ok_or_else(|| bad(format!("unknown key {last:?}")))?;
    Ok(Combo { modifiers, key })
}

pub(crate) fn key_event(
    ty: DispatchKeyEventType,
    k: &KeyDef,
    modifiers: i64,
    text: Option<&str>,
) -> DispatchKeyEventParams {
    let mut p = DispatchKeyEventParams::new(ty);
    p.modifiers = Some(modifiers);
    p.key = Some(k.key.clone());
    p.code = Some(k.code.to_string());
    p.windows_virtual_key_code = Some(k.key_code);
    p.native_virtual_key_code = Some(k.key_code);
    // CDP's `location` is the side (1 left, 2 right); the keypad is a flag of its own.
    match k.location {
        0 => {}
        3 => p.is_keypad = Some(true),
        side => p.location = Some(side),
    }
    if let Some(t) = text.filter(|t| !t.is_empty()) {
        p.text = Some(t.to_string());
        p.unmodified_text = Some(t.to_string());
    }
    p
}

impl Page {
    pub(crate) async fn dispatch_key(&self, p: DispatchKeyEventParams) -> Result<()> {
        // A held key released by another action (`press Shift` while
        // keyDown holds it) is free from then on, as for a user.
        if p.r#type == DispatchKeyEventType::KeyUp {
            if let Some(code) = p.code.as_deref() {
                self.held().keys.retain(|h| h.code != code);
            }
        }
        // Before the event: what its handlers start belongs to this step.
        self.input_begins();
        self.answered("Input.dispatchKeyEvent", self.cdp().execute(p)).await
    }

    /// Presses and releases one key with `modifiers` held (bit field).
    pub(crate) async fn key_press(&self, k: &KeyDef, modifiers: i64) -> Result<()> {
        // Shift held (in the combination, or by keyDown) types the shifted
        // character, as a keyboard does: Shift+a is "A".
        let shifted;
        let k = if modifiers & SHIFT != 0 {
            shifted = k.with_shift();
            &shifted
        } else {
            k
        };
        // With Control/Alt/Meta held a key types nothing (it is a shortcut).
        let text = if modifiers & !SHIFT == 0 {
            Some(k.text.as_str())
        } else {
            None
        };
        let down = if text.is_some_and(|t| !t.is_empty()) {
            DispatchKeyEventType::KeyDown
        } else {
            DispatchKeyEventType::RawKeyDown
        };
        self.dispatch_key(key_event(down, k, modifiers, text)).await?;
        self.dispatch_key(key_event(DispatchKeyEventType::KeyUp, k, modifiers, None))
            .await
    }

    /// Presses (`down`) or releases one key and leaves it so (`keyDown` …
    /// `keyUp`): the keys held already go with the event as modifiers. A
    /// key held already is not pressed again, nor one not held released.
    /// The key is noted held (or free) before the event is sent: a handler
    /// that opens a dialog holds the answer back, and the page has had the
    /// key by then.
    pub(crate) async fn key_hold_event(&self, name: &str, down: bool) -> Result<()> {
        let k = key_by_name(name).ok_or_else(|| Error::InvalidAction(format!("unknown key {name:?}")))?;
        let bits = {
            let mut held = self.held();
            let is_held = held.keys.iter().any(|h| h.code == k.code);
            if down && is_held {
                return Err(Error::InvalidAction(format!("{} is down already", k.key)));
            }
            if !down && !is_held {
                return Err(Error::InvalidAction(format!(
                    "{} is not held: press it with keyDown first",
                    k.key
                )));
            }
            // (A release is freed where every key-up is: dispatch_key.)
            if down {
                held.keys.push(HeldKey {
                    code: k.code,
                    key: k.key.clone(),
                    bit: modifier_bit(&k.key),
                });
            }
            held.modifier_bits() & if down { !0 } else { !modifier_bit(&k.key) }
        };
        let kind = if down {
            DispatchKeyEventType::RawKeyDown
        } else {
            DispatchKeyEventType::KeyUp
        };
        self.dispatch_key(key_event(kind, &k, bits, None)).await
    }

    /// Presses those of `keys` not held already, in order. Returns the
    /// modifier bits now held and the keys it pressed, for
    /// [`Page::modifiers_up`].
    async fn modifiers_down(&self, keys: Vec<KeyDef>) -> Result<(i64, Vec<KeyDef>)> {
        let mut bits = self.held().modifier_bits();
        let mut pressed = Vec::new();
        for k in keys {
            let bit = modifier_bit(&k.key);
            if bit != 0 && bits & bit != 0 {
                continue;
            }
            bits |= bit;
            self.dispatch_key(key_event(DispatchKeyEventType::RawKeyDown, &k, bits, None))
                .await?;
            pressed.push(k);
        }
        Ok((bits, pressed))
    }

    /// Releases what [`Page::modifiers_down`] pressed, in reverse order.
    async fn modifiers_up(&self, pressed: Vec<KeyDef>, mut bits: i64) -> Result<()> {
        for k in pressed.iter().rev() {
            bits &= !modifier_bit(&k.key);
            self.dispatch_key(key_event(DispatchKeyEventType::KeyUp, k, bits, None))
                .await?;
        }
        Ok(())
    }

    /// Presses a key or a combination (`Enter`, `Control+A`, `Shift+Tab`) in
    /// whatever has focus, as trusted key events.
    pub async fn press_key(&self, combo: &str) -> Result<()> {
        let combo = parse_combo(combo)?;
        let (held, modifiers) = self.modifiers_down(combo.modifiers).await?;
        let pressed = self.key_press(&combo.key, held).await;
        self.modifiers_up(modifiers, held).await?;
        pressed
    }

    /// Types `text` into whatever has focus: one trusted key press per
    /// character; characters no US key produces (é, 日本, emoji) are inserted
    /// as text input, as an input method would.
    pub async fn type_text(&self, text: &str) -> Result<()> {
        self.type_chars(text, false).await.map(|_| ())
    }

    /// Types `text` as [`Page::type_text`] does, but stops once the main
    /// frame starts loading another document (a key submitted a form, an
    /// input handler navigated): the keys left would land in whatever the
    /// next page focuses. Returns how many characters were typed.
    pub(crate) async fn type_text_on_this_document(&self, text: &str) -> Result<usize> {
        self.type_chars(text, true).await
    }

    /// The one typing loop: a key per character (text input for what no
    /// key types), stopping at another document when asked. Returns how
    /// many characters were typed.
    async fn type_chars(&self, text: &str, stop_at_another_document: bool) -> Result<usize> {
        // (The page's own request comes first, from inside its handler; the
        // load's start a round trip later.)
        let document = || self.tracker().with(|s| (s.commits, s.loads_started, s.page_requests));
        let before = document();
        for (typed, c) in text.chars().enumerate() {
            if stop_at_another_document && document() != before {
                return Ok(typed);
            }
            match key_for_char(c) {
                Some(k) => self.key_press(&k, 0).await?,
                None => self.insert_text(&c.to_string()).await?,
            }
        }
        Ok(text.chars().count())
    }

    /// Inserts text at the caret like an input method (`Input.insertText`):
    /// one `beforeinput`/`input`, no key events.
    pub async fn insert_text(&self, text: &str) -> Result<()> {
        self.input_begins();
        self.answered("Input.insertText", self.cdp().execute(InsertTextParams::new(text)))
            .await
    }

    // One argument per field of CDP's Input.dispatchMouseEvent it sets.
    #[allow(clippy::too_many_arguments)]
    async fn mouse_event(
        &self,
        ty: DispatchMouseEventType,
        x: f64,
        y: f64,
        button: Option<MouseButton>,
        buttons: i64,
        click_count: i64,
        modifiers: i64,
    ) -> Result<()> {
        self.input_begins();
        // What the caller holds down between calls goes with every event:
        // a move with the button held drags, a click with Shift held extends.
        let released = match (&ty, &button) {
            (DispatchMouseEventType::MouseReleased, Some(b)) => button_bit(b),
            _ => 0,
        };
        let (held_buttons, held_modifiers, held_button) = {
            let mut held = self.held();
            // The held button released by another action (a click of it)
            // is free from then on.
            if released != 0 && held.button_bits() == released {
                held.button = None;
            }
            let (modifiers, buttons) = held.as_event_bits();
            (buttons, modifiers, held.button.map(|(b, _)| b.cdp().0))
        };
        let button = match ty {
            DispatchMouseEventType::MouseMoved => button.or(held_button),
            _ => button,
        };
        let mut p = DispatchMouseEventParams::new(ty, x, y);
        p.button = button;
        p.buttons = Some((buttons | held_buttons) & !released);
        if click_count > 0 {
            p.click_count = Some(click_count);
        }
        p.modifiers = Some(modifiers | held_modifiers);
        self.answered("Input.dispatchMouseEvent", self.cdp().execute(p)).await
    }

    /// Input the renderer must take: it answers once the page has handled
    /// the event, so a page whose handler never returns (an endless loop)
    /// would hold the step until the DevTools timeout (60 s). After the
    /// action timeout, a page that does not answer a trivial question
    /// either is not responding. One that does has handled the event by
    /// then (a slow handler: an export, a sort of 10,000 rows): the input
    /// was taken, and saying it timed out would have the caller send it
    /// again (a second order).
    async fn answered<T>(
        &self,
        method: &'static str,
        command: impl std::future::Future<Output = std::result::Result<T, chromiumoxide::error::CdpError>>,
    ) -> Result<()> {
        let asked = std::time::Instant::now();
        // What the page requests now is the input's, not its own polling.
        self.tracker().state.lock().unwrap().note_input();
        let command = self.unless_crashed(command);
        tokio::pin!(command);
        let outcome = match tokio::time::timeout(self.action_timeout(), &mut command).await {
            Ok(outcome) => outcome,
            // The page answered the action's checks a moment before: the
            // input reached it, and its handler holds the page.
            Err(_) if self.is_hung().await => return Err(Error::BusyAfterInput { after: asked.elapsed() }),
            Err(_) if self.is_crashed() => return Err(Error::PageCrashed),
            // It answered the question, so the event's turn is over: its
            // own answer is on its way.
            Err(_) => match tokio::time::timeout(super::readiness::UNRESPONSIVE_GRACE, &mut command).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    return Err(Error::Timeout {
                        what: format!("{method} to be handled"),
                        after: asked.elapsed(),
                    })
                }
            },
        };
        match outcome {
            Err(crashed) => Err(crashed),
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(Error::cdp(method, e)),
        }
    }

    /// Moves the mouse to (x, y) in top-level viewport CSS pixels.
    pub async fn mouse_move(&self, x: f64, y: f64) -> Result<()> {
        self.mouse_move_buttons(x, y, 0).await
    }

    pub(crate) async fn mouse_move_buttons(&self, x: f64, y: f64, buttons: i64) -> Result<()> {
        let button = (buttons != 0).then_some(MouseButton::Left);
        let document = self.navigation_mark();
        self.mouse_event(DispatchMouseEventType::MouseMoved, x, y, button, buttons, 0, 0)
            .await?;
        self.set_mouse_position((x, y), document);
        Ok(())
    }

    /// Presses or releases `button` (at `at`, else where the mouse is),
    /// and notes it held or free: before the event is sent (a handler that
    /// opens a dialog holds the answer back, and the page has had the
    /// press by then). One button is held at a time; only it is released.
    pub(crate) async fn button_event(&self, down: bool, button: ClickButton, at: Option<(f64, f64)>) -> Result<()> {
        match (down, self.pressed_at()) {
            (true, Some((held, _))) => {
                return Err(Error::InvalidAction(format!(
                    "the {} button is down already; release it with mouseUp first",
                    held.name()
                )))
            }
            (false, None) => {
                return Err(Error::InvalidAction(
                    "no mouse button is down: press one with mouseDown first".into(),
                ))
            }
            (false, Some((held, _))) if held != button => {
                return Err(Error::InvalidAction(format!(
                    "the {} button is the one down, not the {}",
                    held.name(),
                    button.name()
                )))
            }
            _ => {}
        }
        if let Some((x, y)) = at {
            self.mouse_move(x, y).await?;
        }
        let (x, y) = self.mouse_position();
        let (cdp_button, bit) = button.cdp();
        // (A release is freed where every release is: mouse_event.)
        if down {
            self.held().button = Some((button, (x, y)));
        }
        let (kind, buttons) = if down {
            (DispatchMouseEventType::MousePressed, bit)
        } else {
            (DispatchMouseEventType::MouseReleased, 0)
        };
        self.mouse_event(kind, x, y, Some(cdp_button), buttons, 1, 0).await
    }

    /// A press of the button `mouseDown` holds would be a second press
    /// with no release between, which no mouse makes: refused, saying how.
    fn refuse_if_held(&self, button: ClickButton) -> Result<()> {
        match self.pressed_at() {
            Some((held, _)) if held == button => Err(Error::InvalidAction(format!(
                "the {} button is held down (mouseDown): release it with mouseUp first",
                held.name()
            ))),
            _ => Ok(()),
        }
    }

    /// Presses the left button where the mouse is.
    pub async fn mouse_down(&self, click_count: i64) -> Result<()> {
        self.refuse_if_held(ClickButton::Left)?;
        let (x, y) = self.mouse_position();
        self.mouse_event(
            DispatchMouseEventType::MousePressed,
            x,
            y,
            Some(MouseButton::Left),
            LEFT_BUTTON,
            click_count,
            0,
        )
        .await
    }

    /// Releases the left button where the mouse is.
    pub async fn mouse_up(&self, click_count: i64) -> Result<()> {
        let (x, y) = self.mouse_position();
        self.mouse_event(
            DispatchMouseEventType::MouseReleased,
            x,
            y,
            Some(MouseButton::Left),
            0,
            click_count,
            0,
        )
        .await
    }

    /// A trusted left click (or double click with `clicks = 2`) at (x, y).
    pub async fn mouse_click(&self, x: f64, y: f64, clicks: i64) -> Result<()> {
        self.click_at(x, y, clicks, ClickButton::Left, &[]).await
    }

    /// A trusted click of `button` at (x, y) with `modifiers` (Alt, Control,
    /// ControlOrMeta, Meta, Shift) held.
    ///
    /// The events are sent without waiting for each other's answers: the
    /// browser keeps their order, and the press flushes the move, whose own
    /// answer would otherwise wait for the next animation frame
    /// (mouse moves are aligned to frames).
    pub async fn click_at(&self, x: f64, y: f64, clicks: i64, button: ClickButton, modifiers: &[String]) -> Result<()> {
        self.refuse_if_held(button)?;
        let keys: Vec<KeyDef> = modifiers
            .iter()
            .map(|m| {
                // Linux has no Meta-for-Control convention: ControlOrMeta is Control.
                let name = if m == "ControlOrMeta" { "Control" } else { m.as_str() };
                key_by_name(name).ok_or_else(|| Error::InvalidAction(format!("unknown modifier {m:?}")))
            })
            .collect::<Result<_>>()?;
        let (held, pressed_keys) = self.modifiers_down(keys).await?;
        let (cdp_button, pressed_bit) = button.cdp();
        // Already there (actionability moved it while checking stability):
        // no move, whose answer would wait for the next frame.
        let mut events = Vec::new();
        if !self.mouse_is_at((x, y)) {
            events.push(
                self.mouse_event(DispatchMouseEventType::MouseMoved, x, y, None, 0, 0, held)
                    .boxed(),
            );
        }
        for n in 1..=clicks.max(1) {
            events.push(
                self.mouse_event(
                    DispatchMouseEventType::MousePressed,
                    x,
                    y,
                    Some(cdp_button.clone()),
                    pressed_bit,
                    n,
                    held,
                )
                .boxed(),
            );
            events.push(
                self.mouse_event(
                    DispatchMouseEventType::MouseReleased,
                    x,
                    y,
                    Some(cdp_button.clone()),
                    0,
                    n,
                    held,
                )
                .boxed(),
            );
        }
        // join_all polls in order, so the commands leave in order.
        let document = self.navigation_mark();
        let results = futures::future::join_all(events).await;
        self.set_mouse_position((x, y), document);
        self.modifiers_up(pressed_keys, held).await?;
        results.into_iter().collect::<Result<Vec<()>>>().map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_and_punctuation() {
        let a = key_for_char('a').unwrap();
        assert_eq!(
            (a.key.as_str(), a.code, a.key_code, a.text.as_str()),
            ("a", "KeyA", 65, "a")
        );
        let big = key_for_char('Z').unwrap();
        assert_eq!((big.key.as_str(), big.code, big.key_code), ("Z", "KeyZ", 90));
        let at = key_for_char('@').unwrap();
        assert_eq!((at.code, at.key_code), ("Digit2", 50));
        assert_eq!(key_for_char(' ').unwrap().code, "Space");
        assert_eq!(key_for_char('\n').unwrap().key, "Enter");
        assert!(key_for_char('é').is_none());
    }

    #[test]
    fn named_keys_and_aliases() {
        let shifted = |name: &str| {
            let k = key_by_name(name).unwrap().with_shift();
            (k.key, k.text, k.code)
        };
        assert_eq!(shifted("a"), ("A".into(), "A".into(), "KeyA"));
        assert_eq!(shifted("1"), ("!".into(), "!".into(), "Digit1"));
        assert_eq!(shifted("Tab"), ("Tab".into(), String::new(), "Tab"));
        assert_eq!(key_by_name("Enter").unwrap().text, "\r");
        assert_eq!(key_by_name("enter").unwrap().key, "Enter");
        assert_eq!(key_by_name("Esc").unwrap().key, "Escape");
        assert_eq!(key_by_name("arrowleft").unwrap().key_code, 37);
        assert_eq!(key_by_name("Space").unwrap().text, " ");
        assert_eq!(key_by_name("KeyQ").unwrap().key, "q");
        assert_eq!(key_by_name("F5").unwrap().key_code, 116);
        assert_eq!(key_by_name("F13").unwrap().key_code, 124);
        assert_eq!(key_by_name("f24").unwrap().code, "F24");
        let seven = key_by_name("Numpad7").unwrap();
        assert_eq!(
            (
                seven.key.as_str(),
                seven.code,
                seven.key_code,
                seven.text.as_str(),
                seven.location
            ),
            ("7", "Numpad7", 103, "7", 3)
        );
        assert_eq!(key_by_name("numpadenter").unwrap().key, "Enter");
        assert!(key_by_name("Hyper").is_none());
    }

    #[test]
    fn combos() {
        let c = parse_combo("Control+A").unwrap();
        assert_eq!(c.modifiers.len(), 1);
        assert_eq!(c.modifiers[0].key, "Control");
        assert_eq!(c.key.key, "A");
        let c = parse_combo("Shift+Tab").unwrap();
        assert_eq!((c.modifiers[0].key.as_str(), c.key.key.as_str()), ("Shift", "Tab"));
        let c = parse_combo("ctrl+shift+ArrowLeft").unwrap();
        assert_eq!(c.modifiers.len(), 2);
        let c = parse_combo("Shift++").unwrap();
        assert_eq!(c.key.key, "+");
        assert_eq!(parse_combo("+").unwrap().key.key, "+");
        assert!(parse_combo("A+B").is_err());
        assert!(parse_combo("Control+Nope").is_err());
        assert!(parse_combo("").is_err());
    }
}
