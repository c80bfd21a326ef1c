//! Key names as computer-use models write them, in Sightline's names
//! (`input.rs`): xdotool's (Anthropic: `Return`, `ctrl+s`, `Page_Down`,
//! `KP_0`, several keys separated by spaces), OpenAI's (`ENTER`, `CTRL`,
//! `ARROWUP`, a chord as a list), Gemini's (`Control+A`).

use crate::error::{Error, Result};
use crate::page::{key_by_name, parse_combo};

/// One key name → Sightline's name.
pub fn key_name(raw: &str) -> Result<String> {
    let t = raw.trim();
    let lower = t.to_ascii_lowercase();
    let mapped = match lower.as_str() {
        "return" | "enter" => "Enter",
        "kp_enter" => "NumpadEnter",
        "backspace" | "back_space" => "Backspace",
        "page_down" | "pagedown" | "next" => "PageDown",
        "page_up" | "pageup" | "prior" => "PageUp",
        "up" | "arrowup" => "ArrowUp",
        "down" | "arrowdown" => "ArrowDown",
        "left" | "arrowleft" => "ArrowLeft",
        "right" | "arrowright" => "ArrowRight",
        "ctrl" | "control" | "control_l" | "control_r" | "controlormeta" => "Control",
        "alt" | "alt_l" | "alt_r" | "option" => "Alt",
        "shift" | "shift_l" | "shift_r" => "Shift",
        "super" | "super_l" | "super_r" | "meta" | "meta_l" | "cmd" | "command" | "win" => "Meta",
        "esc" | "escape" => "Escape",
        "space" => "Space",
        "minus" => "-",
        "plus" => "+",
        "equal" => "=",
        "comma" => ",",
        "period" => ".",
        "slash" => "/",
        "backslash" => "\\",
        "semicolon" => ";",
        "apostrophe" => "'",
        "grave" => "`",
        "bracketleft" => "[",
        "bracketright" => "]",
        "del" | "delete" => "Delete",
        // xdotool's keysyms for the keys that have no plain name.
        "caps_lock" => "CapsLock",
        "num_lock" => "NumLock",
        "scroll_lock" => "ScrollLock",
        "print" | "sys_req" => "PrintScreen",
        "menu" => "ContextMenu",
        "iso_left_tab" => "Tab",
        "kp_add" => "NumpadAdd",
        "kp_subtract" => "NumpadSubtract",
        "kp_multiply" => "NumpadMultiply",
        "kp_divide" => "NumpadDivide",
        "kp_decimal" | "kp_separator" => "NumpadDecimal",
        "kp_home" => "Home",
        "kp_end" => "End",
        "kp_up" => "ArrowUp",
        "kp_down" => "ArrowDown",
        "kp_left" => "ArrowLeft",
        "kp_right" => "ArrowRight",
        "kp_page_up" | "kp_prior" => "PageUp",
        "kp_page_down" | "kp_next" => "PageDown",
        "kp_insert" => "Insert",
        "kp_delete" => "Delete",
        _ => "",
    };
    let name = if !mapped.is_empty() {
        mapped.to_string()
    } else if let Some(digit) = lower
        .strip_prefix("kp_")
        .filter(|k| k.len() == 1 && k.as_bytes()[0].is_ascii_digit())
    {
        format!("Numpad{digit}")
    } else if t.chars().count() == 1 {
        // A letter names the key, not the shifted character: Control+L is Control+l.
        t.to_ascii_lowercase()
    } else {
        t.to_string()
    };
    match key_by_name(&name) {
        Some(_) => Ok(name),
        None => Err(Error::InvalidAction(format!("unknown key {raw:?}"))),
    }
}

/// A chord (`["CTRL", "L"]`, `Control+A`, `ctrl+shift+t`) → `Control+l`.
pub fn chord<S: AsRef<str>>(keys: &[S]) -> Result<String> {
    let names: Vec<String> = keys.iter().map(|k| key_name(k.as_ref())).collect::<Result<_>>()?;
    if names.is_empty() {
        return Err(Error::InvalidAction("no key given".into()));
    }
    // Modifiers first, as parse_combo wants them.
    let is_modifier = |n: &str| matches!(n, "Control" | "Alt" | "Shift" | "Meta");
    let (mut mods, rest): (Vec<String>, Vec<String>) = names.into_iter().partition(|n| is_modifier(n));
    let combo = match rest.as_slice() {
        [] => {
            // Only modifiers: the last is the key pressed.
            let key = mods.pop().expect("not empty");
            mods.push(key);
            mods.join("+")
        }
        [key] => {
            mods.push(key.clone());
            mods.join("+")
        }
        _ => {
            return Err(Error::InvalidAction(format!(
                "{} keys at once is not a key combination",
                rest.len()
            )))
        }
    };
    parse_combo(&combo)?;
    Ok(combo)
}

/// A `+`-joined combination (Gemini's `keys`, xdotool's `ctrl+s`).
pub fn combination(text: &str) -> Result<String> {
    let t = text.trim();
    // A lone "+" (or "ctrl++") is the plus key.
    let parts: Vec<&str> = if t == "+" {
        vec!["+"]
    } else if let Some(stem) = t.strip_suffix("++") {
        stem.split('+').chain(std::iter::once("+")).collect()
    } else {
        t.split('+').collect()
    };
    chord(&parts)
}

/// xdotool's `key` argument: combinations separated by spaces, pressed in turn.
pub fn xdotool(text: &str) -> Result<Vec<String>> {
    let combos: Vec<String> = text.split_whitespace().map(combination).collect::<Result<_>>()?;
    if combos.is_empty() {
        return Err(Error::InvalidAction(
            "key needs a key name, e.g. \"Return\" or \"ctrl+a\"".into(),
        ));
    }
    Ok(combos)
}

/// Modifier keys held during a click or scroll (`"shift"`, `"ctrl+alt"`).
pub fn modifiers(text: Option<&str>) -> Result<Vec<String>> {
    let Some(t) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(Vec::new());
    };
    t.split(['+', ' '])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let name = key_name(p)?;
            if matches!(name.as_str(), "Control" | "Alt" | "Shift" | "Meta") {
                Ok(name)
            } else {
                Err(Error::InvalidAction(format!("{p:?} is not a modifier key")))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdotool_names() {
        assert_eq!(xdotool("Return").unwrap(), ["Enter"]);
        assert_eq!(xdotool("ctrl+s").unwrap(), ["Control+s"]);
        assert_eq!(xdotool("alt+Tab").unwrap(), ["Alt+Tab"]);
        assert_eq!(xdotool("KP_0").unwrap(), ["Numpad0"]);
        assert_eq!(xdotool("Page_Down").unwrap(), ["PageDown"]);
        assert_eq!(xdotool("ctrl+a BackSpace").unwrap(), ["Control+a", "Backspace"]);
        assert_eq!(xdotool("ctrl+shift+t").unwrap(), ["Control+Shift+t"]);
        assert!(xdotool("Hyper_Q").is_err());
        assert_eq!(xdotool("Caps_Lock").unwrap(), ["CapsLock"]);
        assert_eq!(xdotool("Print Menu").unwrap(), ["PrintScreen", "ContextMenu"]);
        assert_eq!(xdotool("shift+ISO_Left_Tab").unwrap(), ["Shift+Tab"]);
        assert_eq!(xdotool("KP_Add KP_Enter").unwrap(), ["NumpadAdd", "NumpadEnter"]);
    }

    #[test]
    fn openai_and_gemini_names() {
        assert_eq!(chord(&["CTRL", "L"]).unwrap(), "Control+l");
        assert_eq!(chord(&["ENTER"]).unwrap(), "Enter");
        assert_eq!(chord(&["ARROWUP"]).unwrap(), "ArrowUp");
        assert_eq!(chord(&["CMD", "SHIFT", "P"]).unwrap(), "Meta+Shift+p");
        assert_eq!(chord(&["SHIFT"]).unwrap(), "Shift");
        assert_eq!(chord(&["ESC"]).unwrap(), "Escape");
        assert_eq!(chord(&["SPACE"]).unwrap(), "Space");
        assert!(chord(&["A", "B"]).is_err());
        assert_eq!(combination("Control+A").unwrap(), "Control+a");
        assert_eq!(combination("Enter").unwrap(), "Enter");
        assert_eq!(combination("ctrl++").unwrap(), "Control++");
        assert_eq!(modifiers(Some("shift")).unwrap(), ["Shift"]);
        assert_eq!(modifiers(Some("ctrl+alt")).unwrap(), ["Control", "Alt"]);
        assert!(modifiers(Some("a")).is_err());
        assert!(modifiers(None).unwrap().is_empty());
    }
}
