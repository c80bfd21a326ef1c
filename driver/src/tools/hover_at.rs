//! `hoverAt`: moves the mouse to a point of the viewport (menus that open
//! on hover, tooltips; with a button held by `mouseDown`, a drag by hand).

use serde::Deserialize;
use serde_json::Value;

use super::context::ToolContext;
use super::point::{self, Aim, VISION};
use super::tool::{boxed, object, parse, with, Tool, ToolFuture};

pub const TOOL: Tool = Tool::new(
    "hoverAt",
    "Move the mouse to a point of the viewport, in the screenshot's pixels.",
    parameters,
    handle,
)
.changing_page()
.with_capability(VISION)
.with_mcp_name("browser_mouse_move_xy");

fn parameters() -> Value {
    object(
        with(point::point_properties("x", "y"), point::recorded_properties()),
        &["x", "y"],
    )
}

#[derive(Deserialize)]
struct Args {
    x: f64,
    y: f64,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    frame: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("hoverAt", args.clone())?;
        let page = ctx.page();
        // With a button held, a step of a drag by hand: a path of points,
        // replayed as such (not re-aimed at an element that moved).
        let aim = match page.pressed_at() {
            Some(_) => Aim::Point(None),
            None => point::aim(ctx, a.x, a.y, a.target.as_deref(), a.frame.as_deref()).await?,
        };
        let r = match &aim {
            Aim::Point(_) => page.move_mouse(a.x, a.y).await?,
            Aim::Element(target) => page.hover(target.clone()).await?,
        };
        let said = format!("Moved the mouse {}", point::describe(a.x, a.y, &aim));
        Ok(point::outcome("hoverAt", said, &args, &aim, (a.x, a.y), r))
    })
}
