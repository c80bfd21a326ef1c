//! Gemini's computer use: its predefined browser functions, coordinates on
//! a 0–999 grid over the screenshot, `safety_decision` in the arguments.

use std::time::Duration;

use serde_json::Value;

use super::actions::{ComputerAction, ModelCall};
use super::display::Display;
use super::keys;
use crate::llm::{SafetyCheck, ToolCall};
use crate::page::ClickButton;

/// Where `search` goes: the default search engine's home page.
const SEARCH_HOME: &str = "https://www.google.com";
/// `scroll_at`'s default distance on the grid.
const DEFAULT_MAGNITUDE: f64 = 800.0;

pub fn read(call: &ToolCall, display: &Display) -> ModelCall {
    let args = &call.arguments;
    let mut m = ModelCall::one(call, action(&call.name, args, display));
    let decision = &args["safety_decision"];
    if decision["decision"] == "require_confirmation" {
        m.safety.push(SafetyCheck {
            id: call.id.clone(),
            code: "require_confirmation".into(),
            message: decision["explanation"].as_str().unwrap_or_default().to_string(),
        });
    }
    m
}

fn grid(args: &Value, x: &str, y: &str, display: &Display) -> Result<(f64, f64), String> {
    match (args[x].as_f64(), args[y].as_f64()) {
        (Some(gx), Some(gy)) => Ok(display.grid_point(gx, gy)),
        _ => Err(format!("{x} and {y} are required (0-999)")),
    }
}

fn action(name: &str, args: &Value, display: &Display) -> Result<ComputerAction, String> {
    let text = |k: &str| args[k].as_str().map(str::to_string);
    match name {
        "open_web_browser" => Ok(ComputerAction::OpenBrowser),
        "wait_5_seconds" => Ok(ComputerAction::Wait(Duration::from_secs(5))),
        "go_back" => Ok(ComputerAction::Back),
        "go_forward" => Ok(ComputerAction::Forward),
        "search" => Ok(ComputerAction::Navigate(SEARCH_HOME.into())),
        "navigate" => Ok(ComputerAction::Navigate(text("url").ok_or("navigate needs a url")?)),
        "click_at" => Ok(ComputerAction::Click {
            at: Some(grid(args, "x", "y", display)?),
            button: ClickButton::Left,
            clicks: 1,
            modifiers: Vec::new(),
        }),
        "hover_at" => {
            let (x, y) = grid(args, "x", "y", display)?;
            Ok(ComputerAction::Move { x, y })
        }
        "type_text_at" => {
            let (x, y) = grid(args, "x", "y", display)?;
            Ok(ComputerAction::TypeAt {
                x,
                y,
                text: text("text").ok_or("type_text_at needs text")?,
                // Gemini's defaults: clear first, no Enter.
                clear: args["clear_before_typing"].as_bool().unwrap_or(true),
                submit: args["press_enter"].as_bool().unwrap_or(false),
            })
        }
        "key_combination" => {
            let keys = match &args["keys"] {
                Value::String(s) => keys::combination(s),
                Value::Array(list) => keys::chord(&list.iter().filter_map(Value::as_str).collect::<Vec<_>>()),
                _ => return Err("key_combination needs keys, e.g. \"Control+A\"".into()),
            };
            keys.map(|k| ComputerAction::Keys(vec![k])).map_err(|e| e.to_string())
        }
        "scroll_document" => match args["direction"].as_str() {
            Some(d @ ("up" | "down" | "left" | "right")) => Ok(ComputerAction::ScrollPage { direction: d.into() }),
            _ => Err("scroll_document needs direction: up, down, left or right".into()),
        },
        "scroll_at" => {
            let at = grid(args, "x", "y", display)?;
            let magnitude = args["magnitude"]
                .as_f64()
                .unwrap_or(DEFAULT_MAGNITUDE)
                .clamp(0.0, 999.0);
            let vertical = |m: f64| display.normalized_distance(m, true);
            let horizontal = |m: f64| display.normalized_distance(m, false);
            let (dx, dy) = match args["direction"].as_str() {
                Some("up") => (0.0, -vertical(magnitude)),
                Some("down") => (0.0, vertical(magnitude)),
                Some("left") => (-horizontal(magnitude), 0.0),
                Some("right") => (horizontal(magnitude), 0.0),
                _ => return Err("scroll_at needs direction: up, down, left or right".into()),
            };
            Ok(ComputerAction::Scroll {
                at: Some(at),
                dx,
                dy,
                modifiers: Vec::new(),
            })
        }
        "drag_and_drop" => Ok(ComputerAction::Drag {
            from: Some(grid(args, "x", "y", display)?),
            to: grid(args, "destination_x", "destination_y", display)?,
        }),
        other => Err(format!("unknown function {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: "gemini-call-0-x".into(),
            name: name.into(),
            arguments: args,
        }
    }

    #[test]
    fn normalised_coordinates_and_defaults() {
        let d = Display::for_test(1000, 700, 1000.0, 700.0);
        let m = read(&call("click_at", json!({"x": 500, "y": 500})), &d);
        assert_eq!(
            m.actions[0],
            Ok(ComputerAction::Click {
                at: Some((500.0, 350.0)),
                button: ClickButton::Left,
                clicks: 1,
                modifiers: Vec::new()
            })
        );
        let m = read(
            &call(
                "type_text_at",
                json!({"x": 100, "y": 200, "text": "a@b.c",
            "safety_decision": {"decision": "require_confirmation", "explanation": "sends an email"}}),
            ),
            &d,
        );
        assert_eq!(
            m.actions[0],
            Ok(ComputerAction::TypeAt {
                x: 100.0,
                y: 140.0,
                text: "a@b.c".into(),
                clear: true,
                submit: false
            })
        );
        assert_eq!(m.safety[0].message, "sends an email");
        let m = read(&call("scroll_at", json!({"x": 500, "y": 500, "direction": "down"})), &d);
        assert_eq!(
            m.actions[0],
            Ok(ComputerAction::Scroll {
                at: Some((500.0, 350.0)),
                dx: 0.0,
                dy: 560.0,
                modifiers: Vec::new()
            })
        );
        let m = read(&call("key_combination", json!({"keys": "Control+A"})), &d);
        assert_eq!(m.actions[0], Ok(ComputerAction::Keys(vec!["Control+a".into()])));
        let m = read(
            &call(
                "drag_and_drop",
                json!({"x": 0, "y": 0, "destination_x": 999, "destination_y": 999}),
            ),
            &d,
        );
        assert_eq!(
            m.actions[0],
            Ok(ComputerAction::Drag {
                from: Some((0.0, 0.0)),
                to: (999.0, 699.0)
            })
        );
        for (name, args) in [
            ("hover_at", json!({"x": 1, "y": 1})),
            ("scroll_document", json!({"direction": "up"})),
            ("navigate", json!({"url": "http://a.test/"})),
            ("go_back", json!({})),
            ("go_forward", json!({})),
            ("wait_5_seconds", json!({})),
            ("open_web_browser", json!({})),
            ("search", json!({})),
        ] {
            assert!(read(&call(name, args), &d).actions[0].is_ok(), "{name}");
        }
        assert!(read(&call("click_at", json!({"x": 1})), &d).actions[0].is_err());
        assert!(read(&call("teleport", json!({})), &d).actions[0].is_err());
    }
}
