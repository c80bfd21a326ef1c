//! OpenAI's computer tool: a `computer_call`'s `action` (or GA `actions`),
//! coordinates in screenshot pixels, and its `pending_safety_checks`.

use std::time::Duration;

use serde_json::Value;

use super::actions::{ComputerAction, ModelCall};
use super::display::Display;
use super::keys;
use crate::llm::{SafetyCheck, ToolCall};
use crate::page::ClickButton;

/// What `wait` means (it has no duration): OpenAI's reference app waits a second.
const WAIT: Duration = Duration::from_secs(1);

pub fn read(call: &ToolCall, display: &Display) -> ModelCall {
    let args = &call.arguments;
    let actions: Vec<&Value> = match (&args["actions"], &args["action"]) {
        (Value::Array(list), _) => list.iter().collect(),
        (_, a @ Value::Object(_)) => vec![a],
        _ => Vec::new(),
    };
    let mut read: Vec<Result<ComputerAction, String>> = actions.iter().flat_map(|a| by_hand(a, display)).collect();
    if read.is_empty() {
        read.push(Err("the computer call has no action".into()));
    }
    let safety = args["pending_safety_checks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| SafetyCheck {
            id: c["id"].as_str().unwrap_or_default().to_string(),
            code: c["code"].as_str().unwrap_or("unspecified").to_string(),
            message: c["message"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    ModelCall {
        call_id: call.id.clone(),
        name: call.name.clone(),
        actions: read,
        safety,
    }
}

/// The action, or a drag along a path of more than two points as the hand
/// makes it: press at the first, move through the others, release at the
/// last (a drawn stroke, a drag that must pass over a drop zone).
fn by_hand(a: &Value, display: &Display) -> Vec<Result<ComputerAction, String>> {
    let path = match drag_path(a, display) {
        Ok(path) => path,
        Err(off) => return vec![Err(off)],
    };
    if a["type"] != "drag" || path.len() <= 2 {
        return vec![action(a, display)];
    }
    let (first, last) = (path[0], path[path.len() - 1]);
    let mut hand = vec![Ok(ComputerAction::MouseDown { at: Some(first) })];
    hand.extend(
        path[1..path.len() - 1]
            .iter()
            .map(|&(x, y)| Ok(ComputerAction::Move { x, y })),
    );
    hand.push(Ok(ComputerAction::MouseUp { at: Some(last) }));
    hand
}

/// A drag's `path`, in viewport CSS pixels (an error when a point is off the screen).
fn drag_path(a: &Value, display: &Display) -> Result<Vec<(f64, f64)>, String> {
    a["path"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["x"].as_f64()?, p["y"].as_f64()?)))
        .map(|(x, y)| display.css_point(x, y))
        .collect()
}

fn at(a: &Value, display: &Display) -> Result<(f64, f64), String> {
    match (a["x"].as_f64(), a["y"].as_f64()) {
        (Some(x), Some(y)) => display.css_point(x, y),
        _ => Err(format!("{} needs x and y", a["type"])),
    }
}

/// Keys held (`keys` on click, scroll, move in the GA tool).
fn held(a: &Value) -> Result<Vec<String>, String> {
    keys::modifiers(Some(&key_names(a).join("+"))).map_err(|e| e.to_string())
}

/// The action's `keys` list.
fn key_names(a: &Value) -> Vec<&str> {
    a["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn action(a: &Value, display: &Display) -> Result<ComputerAction, String> {
    match a["type"].as_str().unwrap_or_default() {
        "click" => {
            let button = match a["button"].as_str().unwrap_or("left") {
                "left" => ClickButton::Left,
                "right" => ClickButton::Right,
                "wheel" | "middle" => ClickButton::Middle,
                // The mouse's side buttons step through history.
                "back" => return Ok(ComputerAction::Back),
                "forward" => return Ok(ComputerAction::Forward),
                other => return Err(format!("unknown button {other:?}")),
            };
            Ok(ComputerAction::Click {
                at: Some(at(a, display)?),
                button,
                clicks: 1,
                modifiers: held(a)?,
            })
        }
        "double_click" => Ok(ComputerAction::Click {
            at: Some(at(a, display)?),
            button: ClickButton::Left,
            clicks: 2,
            modifiers: held(a)?,
        }),
        "scroll" => Ok(ComputerAction::Scroll {
            at: Some(at(a, display)?),
            dx: display.css_distance(a["scroll_x"].as_f64().unwrap_or(0.0)),
            dy: display.css_distance(a["scroll_y"].as_f64().unwrap_or(0.0)),
            modifiers: held(a)?,
        }),
        "type" => Ok(ComputerAction::Type {
            text: a["text"].as_str().ok_or("type needs text")?.to_string(),
        }),
        "keypress" => keys::chord(&key_names(a))
            .map(|c| ComputerAction::Keys(vec![c]))
            .map_err(|e| e.to_string()),
        "move" => {
            let (x, y) = at(a, display)?;
            Ok(ComputerAction::Move { x, y })
        }
        "drag" => {
            let path = drag_path(a, display)?;
            match (path.first(), path.last()) {
                (Some(from), Some(to)) if path.len() >= 2 => Ok(ComputerAction::Drag {
                    from: Some(*from),
                    to: *to,
                }),
                _ => Err("drag needs a path of at least two points".into()),
            }
        }
        "wait" => Ok(ComputerAction::Wait(WAIT)),
        "screenshot" => Ok(ComputerAction::Screenshot),
        other => Err(format!("unknown computer action {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn actions_and_safety_checks() {
        let d = Display::for_test(1280, 720, 1280.0, 720.0);
        let call = ToolCall {
            id: "call_1".into(),
            name: "computer".into(),
            arguments: json!({"action": {"type": "click", "button": "wheel", "x": 10, "y": 20},
                "pending_safety_checks": [{"id": "cu_sc_1", "code": "malicious_instructions", "message": "m"}]}),
        };
        let m = read(&call, &d);
        assert_eq!(m.safety[0].code, "malicious_instructions");
        assert!(matches!(
            m.actions[0],
            Ok(ComputerAction::Click {
                button: ClickButton::Middle,
                ..
            })
        ));
        let batch = ToolCall {
            id: "call_2".into(),
            name: "computer".into(),
            arguments: json!({"actions": [
                {"type": "double_click", "x": 1, "y": 2},
                {"type": "scroll", "x": 5, "y": 5, "scroll_x": 0, "scroll_y": 300},
                {"type": "type", "text": "hi"},
                {"type": "keypress", "keys": ["CTRL", "A"]},
                {"type": "move", "x": 3, "y": 4},
                {"type": "drag", "path": [{"x": 0, "y": 0}, {"x": 5, "y": 5}, {"x": 9, "y": 9}]},
                {"type": "wait"},
                {"type": "screenshot"},
                {"type": "click", "button": "back", "x": 0, "y": 0},
                {"type": "drag", "path": [{"x": 0, "y": 0}]}]}),
        };
        let m = read(&batch, &d);
        assert_eq!(m.actions.len(), 12);
        assert!(m.safety.is_empty());
        assert_eq!(m.actions[3], Ok(ComputerAction::Keys(vec!["Control+a".into()])));
        // A path of three points: pressed, moved through the middle, released.
        assert_eq!(
            m.actions[5..8],
            [
                Ok(ComputerAction::MouseDown { at: Some((0.0, 0.0)) }),
                Ok(ComputerAction::Move { x: 5.0, y: 5.0 }),
                Ok(ComputerAction::MouseUp { at: Some((9.0, 9.0)) }),
            ]
        );
        assert_eq!(m.actions[8], Ok(ComputerAction::Wait(WAIT)));
        assert_eq!(m.actions[10], Ok(ComputerAction::Back));
        assert!(m.actions[11].is_err());
    }
}
