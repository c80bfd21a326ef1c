//! The computer actions of all three providers, in one vocabulary, at
//! viewport CSS pixels (the providers' parsers map their coordinates), and
//! how each is carried out: as registry tool calls (so the trace, the
//! replay record, readiness and the held-dialog check are the DOM agent's),
//! except a look at the page (a screenshot, where the cursor is), which
//! needs no call.

use std::time::Duration;

use serde_json::{json, Value};

use crate::llm::{SafetyCheck, ToolCall};
use crate::page::ClickButton;

/// One action a computer-use model asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum ComputerAction {
    Click {
        /// None: where the mouse is.
        at: Option<(f64, f64)>,
        button: ClickButton,
        clicks: u8,
        modifiers: Vec<String>,
    },
    /// Move the mouse (a hover, or part of a drag by hand).
    Move {
        x: f64,
        y: f64,
    },
    Drag {
        from: Option<(f64, f64)>,
        to: (f64, f64),
    },
    MouseDown {
        at: Option<(f64, f64)>,
    },
    MouseUp {
        at: Option<(f64, f64)>,
    },
    /// Type into whatever has focus.
    Type {
        text: String,
    },
    /// Click a field, optionally clear it, type, optionally press Enter.
    TypeAt {
        x: f64,
        y: f64,
        text: String,
        clear: bool,
        submit: bool,
    },
    /// Key combinations pressed one after the other (`Control+a`, `Enter`).
    Keys(Vec<String>),
    HoldKey {
        key: String,
        duration: Duration,
    },
    /// A key pressed and left down until [`ComputerAction::KeyUp`] (a
    /// modifier held goes with the clicks and scrolls in between).
    KeyDown(String),
    KeyUp(String),
    /// The wheel at a point (None: where the mouse is), CSS pixels.
    Scroll {
        at: Option<(f64, f64)>,
        dx: f64,
        dy: f64,
        modifiers: Vec<String>,
    },
    /// A screen up, down, left or right.
    ScrollPage {
        direction: String,
    },
    Wait(Duration),
    Navigate(String),
    Back,
    Forward,
    /// Nothing to do: the screenshot follows every turn anyway.
    Screenshot,
    /// Where the mouse is, in the model's coordinates.
    CursorPosition,
    /// Gemini's `open_web_browser`: the browser is open.
    OpenBrowser,
}

/// One computer call of a model turn, read.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    pub call_id: String,
    /// The call's name (`computer`, or Gemini's function name).
    pub name: String,
    /// The actions in order; a malformed one is the reason it cannot run.
    pub actions: Vec<Result<ComputerAction, String>>,
    /// Safety checks the provider attached.
    pub safety: Vec<SafetyCheck>,
}

impl ModelCall {
    /// A call that is several actions, or one reason it cannot run.
    pub fn many(call: &ToolCall, actions: Result<Vec<ComputerAction>, String>) -> ModelCall {
        ModelCall {
            call_id: call.id.clone(),
            name: call.name.clone(),
            actions: match actions {
                Ok(list) => list.into_iter().map(Ok).collect(),
                Err(why) => vec![Err(why)],
            },
            safety: Vec::new(),
        }
    }

    pub fn one(call: &ToolCall, action: Result<ComputerAction, String>) -> ModelCall {
        ModelCall {
            call_id: call.id.clone(),
            name: call.name.clone(),
            actions: vec![action],
            safety: Vec::new(),
        }
    }
}

/// How an action is carried out.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A registry tool call.
    Tool { name: &'static str, args: Value },
    /// No call: a look, answered by the turn's screenshot or the cursor.
    Look,
}

impl ComputerAction {
    /// The provider-neutral name (the trace shows it beside the provider's).
    pub fn name(&self) -> &'static str {
        match self {
            ComputerAction::Click { .. } => "click",
            ComputerAction::Move { .. } => "move",
            ComputerAction::Drag { .. } => "drag",
            ComputerAction::MouseDown { .. } => "mouse_down",
            ComputerAction::MouseUp { .. } => "mouse_up",
            ComputerAction::Type { .. } => "type",
            ComputerAction::TypeAt { .. } => "type_at",
            ComputerAction::Keys(_) => "keys",
            ComputerAction::HoldKey { .. } => "hold_key",
            ComputerAction::KeyDown(_) => "key_down",
            ComputerAction::KeyUp(_) => "key_up",
            ComputerAction::Scroll { .. } => "scroll",
            ComputerAction::ScrollPage { .. } => "scroll_page",
            ComputerAction::Wait(_) => "wait",
            ComputerAction::Navigate(_) => "navigate",
            ComputerAction::Back => "back",
            ComputerAction::Forward => "forward",
            ComputerAction::Screenshot => "screenshot",
            ComputerAction::CursorPosition => "cursor_position",
            ComputerAction::OpenBrowser => "open_web_browser",
        }
    }

    /// The registry calls that carry the action out (in order), given where
    /// the mouse is and the viewport size (CSS pixels). What the model holds
    /// down (a button, keys) the page holds between calls.
    pub fn steps(&self, mouse: (f64, f64), viewport: (f64, f64)) -> Vec<Step> {
        let point = |at: &Option<(f64, f64)>| match at {
            Some((x, y)) => json!({"x": x, "y": y}),
            None => json!({}),
        };
        let tool = |name: &'static str, args: Value| Step::Tool { name, args };
        match self {
            ComputerAction::Click {
                at,
                button,
                clicks,
                modifiers,
            } => {
                let (x, y) = at.unwrap_or(mouse);
                let mut args = json!({"x": x, "y": y});
                if *button != ClickButton::Left {
                    args["button"] = json!(button.name());
                }
                if *clicks > 1 {
                    args["clickCount"] = json!(clicks);
                }
                if !modifiers.is_empty() {
                    args["modifiers"] = json!(modifiers);
                }
                vec![tool("clickAt", args)]
            }
            ComputerAction::Move { x, y } => vec![tool("hoverAt", json!({"x": x, "y": y}))],
            ComputerAction::Drag { from, to } => {
                let (sx, sy) = from.unwrap_or(mouse);
                vec![tool(
                    "dragAt",
                    json!({"startX": sx, "startY": sy, "endX": to.0, "endY": to.1}),
                )]
            }
            ComputerAction::Type { text } => vec![tool("type", json!({"text": text}))],
            ComputerAction::TypeAt {
                x,
                y,
                text,
                clear,
                submit,
            } => vec![tool(
                "typeAt",
                json!({"x": x, "y": y, "text": text, "clear": clear, "submit": submit}),
            )],
            ComputerAction::Keys(combos) => combos.iter().map(|k| tool("press", json!({"key": k}))).collect(),
            ComputerAction::HoldKey { key, duration } => vec![tool(
                "press",
                json!({"key": key, "holdMs": duration.as_millis().clamp(1, 30_000) as u64}),
            )],
            ComputerAction::Scroll { at, dx, dy, modifiers } => {
                let (x, y) = at.unwrap_or(mouse);
                let mut args = json!({"x": x, "y": y, "deltaX": dx, "deltaY": dy});
                if !modifiers.is_empty() {
                    args["modifiers"] = json!(modifiers);
                }
                vec![tool("scrollAt", args)]
            }
            ComputerAction::ScrollPage { direction } => match direction.as_str() {
                "up" | "down" => vec![tool("scroll", json!({"direction": direction, "percentage": 100}))],
                // Sideways: the wheel at the middle of the viewport.
                side => {
                    let dx = if side == "left" { -viewport.0 } else { viewport.0 } * 0.8;
                    vec![tool(
                        "scrollAt",
                        json!({"x": viewport.0 / 2.0, "y": viewport.1 / 2.0, "deltaX": dx, "deltaY": 0}),
                    )]
                }
            },
            ComputerAction::Wait(d) => vec![tool("wait", json!({"ms": d.as_millis().min(30_000) as u64}))],
            ComputerAction::Navigate(url) => vec![tool("goto", json!({"url": url}))],
            ComputerAction::Back => vec![tool("back", json!({}))],
            ComputerAction::Forward => vec![tool("forward", json!({}))],
            ComputerAction::MouseDown { at } => vec![tool("mouseDown", point(at))],
            ComputerAction::MouseUp { at } => vec![tool("mouseUp", point(at))],
            ComputerAction::KeyDown(key) => vec![tool("keyDown", json!({"key": key}))],
            ComputerAction::KeyUp(key) => vec![tool("keyUp", json!({"key": key}))],
            ComputerAction::Screenshot | ComputerAction::CursorPosition | ComputerAction::OpenBrowser => {
                vec![Step::Look]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_become_registry_calls() {
        let click = ComputerAction::Click {
            at: None,
            button: ClickButton::Right,
            clicks: 2,
            modifiers: vec!["Shift".into()],
        };
        assert_eq!(
            click.steps((10.0, 20.0), (1280.0, 720.0)),
            vec![Step::Tool {
                name: "clickAt",
                args: json!({"x": 10.0, "y": 20.0, "button": "right", "clickCount": 2, "modifiers": ["Shift"]})
            }]
        );
        let keys = ComputerAction::Keys(vec!["Control+a".into(), "Delete".into()]);
        assert_eq!(keys.steps((0.0, 0.0), (1.0, 1.0)).len(), 2);
        let pressing = ComputerAction::MouseDown { at: None };
        assert_eq!(
            pressing.steps((0.0, 0.0), (1.0, 1.0)),
            vec![Step::Tool {
                name: "mouseDown",
                args: json!({})
            }]
        );
        let side = ComputerAction::ScrollPage {
            direction: "right".into(),
        };
        assert_eq!(
            side.steps((0.0, 0.0), (1000.0, 600.0)),
            vec![Step::Tool {
                name: "scrollAt",
                args: json!({"x": 500.0, "y": 300.0, "deltaX": 800.0, "deltaY": 0})
            }]
        );
        let registry = crate::tools::Registry::standard();
        for a in [
            click,
            ComputerAction::Drag {
                from: Some((1.0, 2.0)),
                to: (3.0, 4.0),
            },
            ComputerAction::TypeAt {
                x: 1.0,
                y: 1.0,
                text: "a".into(),
                clear: true,
                submit: false,
            },
            ComputerAction::HoldKey {
                key: "Shift".into(),
                duration: Duration::from_millis(1500),
            },
            ComputerAction::Scroll {
                at: Some((5.0, 5.0)),
                dx: 0.0,
                dy: 300.0,
                modifiers: Vec::new(),
            },
            ComputerAction::Wait(Duration::from_secs(2)),
            ComputerAction::Navigate("http://a.test/".into()),
            ComputerAction::Forward,
            ComputerAction::MouseDown { at: Some((1.0, 2.0)) },
            ComputerAction::MouseUp { at: None },
            ComputerAction::KeyDown("Shift".into()),
            ComputerAction::KeyUp("Shift".into()),
        ] {
            for step in a.steps((0.0, 0.0), (100.0, 100.0)) {
                if let Step::Tool { name, args } = step {
                    let t = registry.get(name).unwrap();
                    crate::tools::validate(t, args).unwrap_or_else(|e| panic!("{a:?}: {e}"));
                }
            }
        }
    }
}
