//! Gemini's computer use: its predefined browser functions (Gemini 3
//! Flash's and Gemini 3.5 Flash's), coordinates on a 0–999 grid over the
//! screenshot, `safety_decision` in the arguments.

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
/// `scroll`'s (Gemini 3.5) default distance, in the screenshot's pixels.
const DEFAULT_PIXELS: f64 = 300.0;

pub fn read(call: &ToolCall, display: &Display) -> ModelCall {
    let args = &call.arguments;
    let mut m = ModelCall::many(call, actions(&call.name, args, display));
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
        (Some(gx), Some(gy)) => display.grid_point(gx, gy),
        _ => Err(format!("{x} and {y} are required (0-999)")),
    }
}

fn click(args: &Value, display: &Display, button: ClickButton, clicks: u8) -> Result<ComputerAction, String> {
    Ok(ComputerAction::Click {
        at: Some(grid(args, "x", "y", display)?),
        button,
        clicks,
        modifiers: Vec::new(),
    })
}

fn key(args: &Value, name: &str) -> Result<String, String> {
    let raw = args["key"]
        .as_str()
        .ok_or(format!("{name} needs a key, e.g. \"Enter\""))?;
    keys::key_name(raw).map_err(|e| e.to_string())
}

/// The actions of one call: Gemini 3 Flash's set (`click_at`,
/// `type_text_at`, `scroll_at` …) and Gemini 3.5 Flash's (`click`, `type`,
/// `scroll`, `hotkey` …, each with an `intent` beside its arguments).
fn actions(name: &str, args: &Value, display: &Display) -> Result<Vec<ComputerAction>, String> {
    let text = |k: &str| args[k].as_str().map(str::to_string);
    let one = |a: ComputerAction| Ok(vec![a]);
    match name {
        "open_web_browser" => one(ComputerAction::OpenBrowser),
        "wait_5_seconds" => one(ComputerAction::Wait(Duration::from_secs(5))),
        "wait" => {
            let seconds = args["seconds"].as_f64().unwrap_or(1.0).clamp(0.0, 30.0);
            one(ComputerAction::Wait(Duration::from_secs_f64(seconds)))
        }
        "go_back" => one(ComputerAction::Back),
        "go_forward" => one(ComputerAction::Forward),
        "search" => one(ComputerAction::Navigate(SEARCH_HOME.into())),
        "navigate" => one(ComputerAction::Navigate(text("url").ok_or("navigate needs a url")?)),
        "take_screenshot" => one(ComputerAction::Screenshot),
        "click_at" | "click" => one(click(args, display, ClickButton::Left, 1)?),
        "double_click" => one(click(args, display, ClickButton::Left, 2)?),
        "triple_click" => one(click(args, display, ClickButton::Left, 3)?),
        "middle_click" => one(click(args, display, ClickButton::Middle, 1)?),
        "right_click" => one(click(args, display, ClickButton::Right, 1)?),
        "mouse_down" => one(ComputerAction::MouseDown {
            at: Some(grid(args, "x", "y", display)?),
        }),
        "mouse_up" => one(ComputerAction::MouseUp {
            at: Some(grid(args, "x", "y", display)?),
        }),
        "hover_at" | "move" => {
            let (x, y) = grid(args, "x", "y", display)?;
            one(ComputerAction::Move { x, y })
        }
        "type_text_at" => {
            let (x, y) = grid(args, "x", "y", display)?;
            one(ComputerAction::TypeAt {
                x,
                y,
                text: text("text").ok_or("type_text_at needs text")?,
                // Gemini's documented defaults: clear first, Enter after.
                clear: args["clear_before_typing"].as_bool().unwrap_or(true),
                submit: args["press_enter"].as_bool().unwrap_or(true),
            })
        }
        "type" => {
            let typed = ComputerAction::Type {
                text: text("text").ok_or("type needs text")?,
            };
            // (3.5's `type` presses no Enter unless asked.)
            Ok(if args["press_enter"].as_bool().unwrap_or(false) {
                vec![typed, ComputerAction::Keys(vec!["Enter".into()])]
            } else {
                vec![typed]
            })
        }
        "key_combination" | "hotkey" => {
            let keys = match &args["keys"] {
                Value::String(s) => keys::combination(s),
                Value::Array(list) => keys::chord(&list.iter().filter_map(Value::as_str).collect::<Vec<_>>()),
                _ => return Err(format!("{name} needs keys, e.g. \"Control+A\"")),
            };
            keys.map(|k| vec![ComputerAction::Keys(vec![k])])
                .map_err(|e| e.to_string())
        }
        "press_key" => one(ComputerAction::Keys(vec![key(args, name)?])),
        "key_down" => one(ComputerAction::KeyDown(key(args, name)?)),
        "key_up" => one(ComputerAction::KeyUp(key(args, name)?)),
        "scroll_document" => match args["direction"].as_str() {
            Some(d @ ("up" | "down" | "left" | "right")) => one(ComputerAction::ScrollPage { direction: d.into() }),
            _ => Err("scroll_document needs direction: up, down, left or right".into()),
        },
        "scroll_at" | "scroll" => {
            let at = grid(args, "x", "y", display)?;
            // scroll_at: a distance on the grid (default 800); scroll: in the
            // screenshot's pixels (default 300).
            let distance = |vertical: bool| match name {
                "scroll" => display.css_distance(
                    args["magnitude_in_pixels"]
                        .as_f64()
                        .unwrap_or(DEFAULT_PIXELS)
                        .clamp(0.0, 999.0),
                ),
                _ => display.normalized_distance(
                    args["magnitude"]
                        .as_f64()
                        .unwrap_or(DEFAULT_MAGNITUDE)
                        .clamp(0.0, 999.0),
                    vertical,
                ),
            };
            let (dx, dy) = match args["direction"].as_str() {
                Some("up") => (0.0, -distance(true)),
                Some("down") => (0.0, distance(true)),
                Some("left") => (-distance(false), 0.0),
                Some("right") => (distance(false), 0.0),
                _ => return Err(format!("{name} needs direction: up, down, left or right")),
            };
            one(ComputerAction::Scroll {
                at: Some(at),
                dx,
                dy,
                modifiers: Vec::new(),
            })
        }
        // 3: x, y → destination_x, destination_y; 3.5: start_x, start_y → end_x, end_y.
        "drag_and_drop" if args.get("start_x").is_some() => one(ComputerAction::Drag {
            from: Some(grid(args, "start_x", "start_y", display)?),
            to: grid(args, "end_x", "end_y", display)?,
        }),
        "drag_and_drop" => one(ComputerAction::Drag {
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
                submit: true
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
