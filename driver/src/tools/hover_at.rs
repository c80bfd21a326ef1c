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
        let asked = (a.x, a.y);
        let (aim, at) = match page.pressed_at() {
            Some(_) => (Aim::Point(None), asked),
            None => {
                let within = point::within(&args, "within");
                point::aim(ctx, asked, a.target.as_deref(), a.frame.as_deref(), within).await?
            }
        };
        let r = match &aim {
            Aim::Point(_) => page.move_mouse(at.0, at.1).await?,
            Aim::Element(target) => page.hover(target.clone()).await?,
        };
        let said = format!("Moved the mouse {}", point::describe(asked, at, &aim));
        Ok(point::outcome("hoverAt", said, &args, &aim, at, r))
    })
}
