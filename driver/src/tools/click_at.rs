//! `clickAt`: a trusted click at a point of the viewport (for models that
//! see screenshots): any button, one to three clicks, keys held.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::{self, Aim, VISION};
use super::tool::{boxed, object, parse, with, Tool, ToolFuture};
use crate::page::{ClickButton, ClickOptions, PointClick};

pub const TOOL: Tool = Tool::new(
    "clickAt",
    "Click at a point of the viewport, in the screenshot's pixels (x from the left, y from the top). \
clickCount 2 double-clicks, 3 selects a paragraph; button \"right\" opens a context menu.",
    parameters,
    handle,
)
.changing_page()
.with_capability(VISION)
.with_mcp_name("browser_mouse_click_xy");

fn parameters() -> Value {
    object(
        with(
            with(point::point_properties("x", "y"), point::recorded_properties()),
            json!({
                "button": {"type": "string", "enum": ["left", "right", "middle"], "description": "Default left."},
                "clickCount": {"type": "integer", "minimum": 1, "maximum": 3, "description": "Default 1."},
                "modifiers": {"type": "array", "items": {"type": "string", "enum": ["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]}, "description": "Keys held during the click."}
            }),
        ),
        &["x", "y"],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    x: f64,
    y: f64,
    #[serde(default)]
    button: Option<String>,
    #[serde(default)]
    click_count: Option<u8>,
    #[serde(default)]
    modifiers: Vec<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    frame: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("clickAt", args.clone())?;
        let button = match a.button.as_deref() {
            Some("right") => ClickButton::Right,
            Some("middle") => ClickButton::Middle,
            _ => ClickButton::Left,
        };
        let clicks = a.click_count.unwrap_or(1).clamp(1, 3);
        let asked = (a.x, a.y);
        let within = point::within(&args, "within");
        let (aim, at) = point::aim(ctx, asked, a.target.as_deref(), a.frame.as_deref(), within).await?;
        let page = ctx.page();
        let r = match &aim {
            Aim::Point(_) => {
                let click = PointClick {
                    button,
                    clicks,
                    modifiers: a.modifiers.clone(),
                };
                page.click_point(at.0, at.1, &click).await?
            }
            Aim::Element(target) => {
                let options = ClickOptions {
                    clicks,
                    button,
                    modifiers: a.modifiers.clone(),
                    ..ClickOptions::default()
                };
                page.click_with(target.clone(), options).await?
            }
        };
        let verb = match clicks {
            2 => "Double-clicked",
            3 => "Triple-clicked",
            _ if button == ClickButton::Right => "Right-clicked",
            _ if button == ClickButton::Middle => "Middle-clicked",
            _ => "Clicked",
        };
        let held = match a.modifiers.as_slice() {
            [] => String::new(),
            keys => format!(" with {} held", keys.join("+")),
        };
        let said = format!("{verb}{held} {}", point::describe(asked, at, &aim));
        Ok(point::outcome("clickAt", said, &args, &aim, at, r))
    })
}
