//! Anthropic's `computer` tool: every action of `computer_20250124` /
//! `computer_20251124` (`input.action`), coordinates in screenshot pixels.

use std::time::Duration;

use serde_json::Value;

use super::actions::{ComputerAction, ModelCall};
use super::display::Display;
use super::keys;
use crate::llm::ToolCall;
use crate::page::ClickButton;

/// Wheel clicks → CSS pixels (one notch scrolls about this far).
const PIXELS_PER_NOTCH: f64 = 100.0;
/// Longest `wait` / `hold_key` honoured.
const MAX_WAIT: Duration = Duration::from_secs(30);

/// A coordinate `[x, y]` when there is one; an error when it is off the
/// screen or no pair of numbers (only a coordinate left out means "where
/// the mouse is": a malformed one must not click there).
fn point(v: &Value, display: &Display) -> Result<Option<(f64, f64)>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let xy = v
        .as_array()
        .filter(|a| a.len() == 2)
        .and_then(|a| Some((a[0].as_f64()?, a[1].as_f64()?)))
        .ok_or_else(|| format!("a coordinate must be [x, y], two numbers in screenshot pixels, not {v}"))?;
    display.css_point(xy.0, xy.1).map(Some)
}

fn seconds(v: &Value) -> Duration {
    Duration::from_secs_f64(v.as_f64().unwrap_or(1.0).clamp(0.0, MAX_WAIT.as_secs_f64()))
}

pub fn read(call: &ToolCall, display: &Display) -> ModelCall {
    ModelCall::one(call, action(&call.arguments, display))
}

fn action(input: &Value, display: &Display) -> Result<ComputerAction, String> {
    let name = input["action"].as_str().ok_or("the computer tool needs an action")?;
    let coordinate = || point(&input["coordinate"], display);
    let needs_point = || coordinate()?.ok_or_else(|| format!("{name} needs a coordinate [x, y]"));
    let text = || input["text"].as_str().map(str::to_string);
    // Keys held during a click: the docs put them in `text`, the reference app in `key`.
    let held = || keys::modifiers(input["text"].as_str().or(input["key"].as_str())).map_err(|e| e.to_string());
    let click = |button: ClickButton, clicks: u8| -> Result<ComputerAction, String> {
        Ok(ComputerAction::Click {
            at: coordinate()?,
            button,
            clicks,
            modifiers: held()?,
        })
    };
    match name {
        "screenshot" => Ok(ComputerAction::Screenshot),
        "left_click" => click(ClickButton::Left, 1),
        "right_click" => click(ClickButton::Right, 1),
        "middle_click" => click(ClickButton::Middle, 1),
        "double_click" => click(ClickButton::Left, 2),
        "triple_click" => click(ClickButton::Left, 3),
        "mouse_move" => {
            let (x, y) = needs_point()?;
            Ok(ComputerAction::Move { x, y })
        }
        "left_click_drag" => Ok(ComputerAction::Drag {
            from: point(&input["start_coordinate"], display)?,
            to: needs_point()?,
        }),
        "left_mouse_down" => Ok(ComputerAction::MouseDown { at: coordinate()? }),
        "left_mouse_up" => Ok(ComputerAction::MouseUp { at: coordinate()? }),
        "type" => Ok(ComputerAction::Type {
            text: text().ok_or("type needs text")?,
        }),
        "key" => keys::xdotool(&text().ok_or("key needs text, e.g. \"Return\"")?)
            .map(ComputerAction::Keys)
            .map_err(|e| e.to_string()),
        "hold_key" => {
            let key = keys::key_name(&text().ok_or("hold_key needs text, the key")?).map_err(|e| e.to_string())?;
            Ok(ComputerAction::HoldKey {
                key,
                duration: seconds(&input["duration"]),
            })
        }
        "scroll" => {
            let notches = match &input["scroll_amount"] {
                Value::Null => 3.0,
                v => v
                    .as_f64()
                    .filter(|n| *n >= 0.0)
                    .ok_or_else(|| format!("scroll_amount must be a number of notches, not {v}"))?,
            };
            let amount = notches * PIXELS_PER_NOTCH;
            let (dx, dy) = match input["scroll_direction"].as_str() {
                Some("up") => (0.0, -amount),
                Some("down") => (0.0, amount),
                Some("left") => (-amount, 0.0),
                Some("right") => (amount, 0.0),
                _ => return Err("scroll needs scroll_direction: up, down, left or right".into()),
            };
            Ok(ComputerAction::Scroll {
                at: coordinate()?,
                dx,
                dy,
                modifiers: keys::modifiers(input["text"].as_str()).map_err(|e| e.to_string())?,
            })
        }
        "wait" => Ok(ComputerAction::Wait(seconds(&input["duration"]))),
        "cursor_position" => Ok(ComputerAction::CursorPosition),
        "zoom" => Err("zoom is not enabled on this display".into()),
        other => Err(format!("unknown computer action {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_one(input: Value) -> Result<ComputerAction, String> {
        // 1280×800 shown for a 1600×1000 viewport.
        action(&input, &Display::for_test(1280, 800, 1600.0, 1000.0))
    }

    #[test]
    fn a_malformed_coordinate_is_an_error_not_a_click_where_the_mouse_is() {
        for bad in [
            json!("abc"),
            json!([10, 10, 10]),
            json!({"x": 1, "y": 2}),
            json!("[640, 400]"),
        ] {
            let read = read_one(json!({"action": "left_click", "coordinate": bad}));
            assert!(
                read.as_ref().is_err_and(|e| e.contains("must be [x, y]")),
                "{bad}: {read:?}"
            );
        }
        let read = read_one(json!({"action": "scroll", "scroll_direction": "down", "scroll_amount": "5"}));
        assert!(read.is_err_and(|e| e.contains("scroll_amount")));
        // Left out: where the mouse is.
        assert!(matches!(
            read_one(json!({"action": "left_click"})),
            Ok(ComputerAction::Click { at: None, .. })
        ));
    }

    #[test]
    fn every_action_of_the_tool() {
        assert_eq!(
            read_one(json!({"action": "left_click", "coordinate": [640, 400], "text": "shift"})),
            Ok(ComputerAction::Click {
                at: Some((800.0, 500.0)),
                button: ClickButton::Left,
                clicks: 1,
                modifiers: vec!["Shift".into()]
            })
        );
        assert!(matches!(
            read_one(json!({"action": "left_click"})),
            Ok(ComputerAction::Click { at: None, .. })
        ));
        assert!(matches!(
            read_one(json!({"action": "triple_click", "coordinate": [1, 1]})),
            Ok(ComputerAction::Click { clicks: 3, .. })
        ));
        assert!(matches!(
            read_one(json!({"action": "right_click", "coordinate": [1, 1]})),
            Ok(ComputerAction::Click {
                button: ClickButton::Right,
                ..
            })
        ));
        assert!(matches!(
            read_one(json!({"action": "middle_click", "coordinate": [1, 1], "key": "ctrl"})),
            Ok(ComputerAction::Click {
                button: ClickButton::Middle,
                ..
            })
        ));
        assert_eq!(
            read_one(json!({"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [128, 80]})),
            Ok(ComputerAction::Drag {
                from: Some((0.0, 0.0)),
                to: (160.0, 100.0)
            })
        );
        assert_eq!(
            read_one(json!({"action": "mouse_move", "coordinate": [64, 40]})),
            Ok(ComputerAction::Move { x: 80.0, y: 50.0 })
        );
        assert_eq!(
            read_one(json!({"action": "left_mouse_down"})),
            Ok(ComputerAction::MouseDown { at: None })
        );
        assert!(matches!(
            read_one(json!({"action": "left_mouse_up", "coordinate": [1, 1]})),
            Ok(ComputerAction::MouseUp { at: Some(_) })
        ));
        assert_eq!(
            read_one(json!({"action": "type", "text": "hi"})),
            Ok(ComputerAction::Type { text: "hi".into() })
        );
        assert_eq!(
            read_one(json!({"action": "key", "text": "ctrl+a Return"})),
            Ok(ComputerAction::Keys(vec!["Control+a".into(), "Enter".into()]))
        );
        assert_eq!(
            read_one(json!({"action": "hold_key", "text": "shift", "duration": 1.5})),
            Ok(ComputerAction::HoldKey {
                key: "Shift".into(),
                duration: Duration::from_millis(1500)
            })
        );
        assert_eq!(
            read_one(
                json!({"action": "scroll", "coordinate": [640, 400], "scroll_direction": "up", "scroll_amount": 2})
            ),
            Ok(ComputerAction::Scroll {
                at: Some((800.0, 500.0)),
                dx: 0.0,
                dy: -200.0,
                modifiers: Vec::new()
            })
        );
        assert_eq!(
            read_one(json!({"action": "wait", "duration": 2})),
            Ok(ComputerAction::Wait(Duration::from_secs(2)))
        );
        assert_eq!(
            read_one(json!({"action": "screenshot"})),
            Ok(ComputerAction::Screenshot)
        );
        assert_eq!(
            read_one(json!({"action": "cursor_position"})),
            Ok(ComputerAction::CursorPosition)
        );
        assert!(read_one(json!({"action": "zoom", "region": [0, 0, 1, 1]}))
            .unwrap_err()
            .contains("zoom"));
        assert!(read_one(json!({"action": "mouse_move"}))
            .unwrap_err()
            .contains("coordinate"));
        assert!(read_one(json!({"action": "fly"})).unwrap_err().contains("fly"));
    }
}
