//! `mouseDown` and `mouseUp`: a mouse button pressed in one call and
//! released in a later one, for a drag done by hand (a computer-use model's
//! `left_mouse_down`, moves, `left_mouse_up`). Between them the page holds
//! the button: `hoverAt` moves drag, as a user's would.
//!
//! Offered to MCP clients (`--caps vision`, as Playwright MCP offers them)
//! and the session commands; an agent has `dragAt`, and a computer-use
//! model its own computer tool, which calls these.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::{self, VISION};
use super::tool::{boxed, object, parse, with, Offered, RecordedCall, Tool, ToolFuture, ToolOutput};
use crate::page::ClickButton;

pub const DOWN: Tool = Tool::new(
    "mouseDown",
    "Press a mouse button and keep it down, at a point of the viewport (in the screenshot's pixels) or \
where the mouse is. hoverAt then moves it held (a drag by hand); mouseUp releases it.",
    parameters,
    press,
)
.changing_page()
.with_capability(VISION)
.offered_to(Offered::MCP_ONLY)
.with_positional(&["x", "y"])
.with_mcp_name("browser_mouse_down");

pub const UP: Tool = Tool::new(
    "mouseUp",
    "Release the mouse button mouseDown pressed, at a point of the viewport (in the screenshot's pixels) \
or where the mouse is.",
    parameters,
    release,
)
.changing_page()
.with_capability(VISION)
.offered_to(Offered::MCP_ONLY)
.with_positional(&["x", "y"])
.with_mcp_name("browser_mouse_up");

fn parameters() -> Value {
    object(
        with(
            point::point_properties("x", "y"),
            json!({"button": {"type": "string", "enum": ["left", "right", "middle"], "description": "Default: left (mouseUp: the one held)."}}),
        ),
        &[],
    )
}

/// A point of the viewport, CSS pixels.
type Point = (f64, f64);

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    x: Option<f64>,
    #[serde(default)]
    y: Option<f64>,
    #[serde(default)]
    button: Option<String>,
}

impl Args {
    /// The button (None: not said) and the point.
    fn read(tool: &str, args: Value) -> crate::error::Result<(Option<ClickButton>, Option<Point>)> {
        let a: Args = parse(tool, args)?;
        let button = match a.button.as_deref() {
            Some("right") => Some(ClickButton::Right),
            Some("middle") => Some(ClickButton::Middle),
            Some(_) => Some(ClickButton::Left),
            None => None,
        };
        let at = match (a.x, a.y) {
            (Some(x), Some(y)) => Some((x, y)),
            (None, None) => None,
            _ => {
                return Err(crate::error::Error::InvalidAction(format!(
                    "{tool}: give both x and y, or neither (where the mouse is)"
                )))
            }
        };
        Ok((button, at))
    }
}

fn press<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let (button, at) = Args::read("mouseDown", args)?;
        let button = button.unwrap_or_default();
        let page = ctx.page();
        page.mouse_button(true, button, at).await?;
        let (x, y) = page.mouse_position();
        let said = format!(
            "Pressed the {} button at ({x:.0}, {y:.0}); it stays down until mouseUp",
            button.name()
        );
        Ok(pressed_or_released("mouseDown", said, button, (x, y)))
    })
}

fn release<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let (button, at) = Args::read("mouseUp", args)?;
        let page = ctx.page();
        let pressed = page.pressed_at();
        // (Not said: the one held.)
        let button = button.or(pressed.map(|(b, _)| b)).unwrap_or_default();
        let from = pressed.map(|(_, from)| from);
        page.mouse_button(false, button, at).await?;
        let (x, y) = page.mouse_position();
        let dragged = match from {
            Some(from) if (from.0 - x).abs() + (from.1 - y).abs() > 3.0 => {
                format!(", dragged from ({:.0}, {:.0})", from.0, from.1)
            }
            _ => String::new(),
        };
        let said = format!("Released the {} button at ({x:.0}, {y:.0}){dragged}", button.name());
        Ok(pressed_or_released("mouseUp", said, button, (x, y)))
    })
}

/// The outcome, recorded at the point it happened (a call made where the
/// mouse was replays there, not wherever a replay's mouse happens to be).
fn pressed_or_released(tool: &str, said: String, button: ClickButton, (x, y): (f64, f64)) -> ToolOutput {
    let mut out = ToolOutput::ok(said);
    out.point = Some((x, y));
    let mut args = json!({"x": x, "y": y});
    if button != ClickButton::Left {
        args["button"] = json!(button.name());
    }
    out.replay.push(RecordedCall {
        tool: tool.to_string(),
        args,
        actions: Vec::new(),
        context: None,
    });
    out
}
