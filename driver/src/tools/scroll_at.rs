//! `scrollAt`: turns the mouse wheel at a point of the viewport: the page,
//! or the scrollable container under the pointer, scrolls as for a user.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::{self, Aim, VISION};
use super::tool::{boxed, object, parse, with, Tool, ToolFuture};

pub const TOOL: Tool = Tool::new(
    "scrollAt",
    "Scroll with the mouse wheel at a point of the viewport (the screenshot's pixels): deltaY pixels down \
(negative: up), deltaX to the right.",
    parameters,
    handle,
)
.changing_page()
.with_capability(VISION)
.with_mcp_name("browser_mouse_wheel");

fn parameters() -> Value {
    object(
        with(
            with(point::point_properties("x", "y"), point::recorded_properties()),
            json!({
                "deltaX": {"type": "number", "description": "Pixels to the right (negative: left). Default 0."},
                "deltaY": {"type": "number", "description": "Pixels down (negative: up). Default 0."},
                "modifiers": {"type": "array", "items": {"type": "string", "enum": ["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]}, "description": "Keys held (Shift scrolls sideways on most pages)."}
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
    delta_x: f64,
    #[serde(default)]
    delta_y: f64,
    #[serde(default)]
    modifiers: Vec<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("scrollAt", args.clone())?;
        // The wheel goes where the pointer is; what scrolls is whatever is
        // under it then, so a replay turns the wheel at the same point.
        let aim = Aim::Point(ctx.page().element_at(a.x, a.y).await?);
        let r = ctx.page().wheel(a.x, a.y, a.delta_x, a.delta_y, &a.modifiers).await?;
        let said = format!(
            "Scrolled by ({:.0}, {:.0}) {}",
            a.delta_x,
            a.delta_y,
            point::describe((a.x, a.y), (a.x, a.y), &aim)
        );
        Ok(point::outcome("scrollAt", said, &args, &aim, (a.x, a.y), r))
    })
}
