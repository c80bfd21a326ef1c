//! `dragAt`: a trusted drag from one point of the viewport to another
//! (sliders, sortable lists, HTML5 drag and drop).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::{self, Aim, VISION};
use super::tool::{boxed, object, parse, with, Tool, ToolFuture};

pub const TOOL: Tool = Tool::new(
    "dragAt",
    "Drag from one point of the viewport to another, in the screenshot's pixels: press at (startX, startY), \
move, release at (endX, endY).",
    parameters,
    handle,
)
.changing_page()
.with_capability(VISION)
.with_mcp_name("browser_mouse_drag_xy");

fn parameters() -> Value {
    object(
        with(
            with(
                point::point_properties("startX", "startY"),
                point::point_properties("endX", "endY"),
            ),
            with(
                point::recorded_properties(),
                json!({"endTarget": {"type": "string", "description": "Set by recorded runs: the selector of the element under the end point."}}),
            ),
        ),
        &["startX", "startY", "endX", "endY"],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    start_x: f64,
    start_y: f64,
    end_x: f64,
    end_y: f64,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    end_target: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("dragAt", args.clone())?;
        let aim = point::aim(ctx, a.start_x, a.start_y, a.target.as_deref(), a.frame.as_deref()).await?;
        let page = ctx.page();
        let end = page.element_at(a.end_x, a.end_y).await?;
        let moved_end = match (&a.end_target, &end) {
            (Some(want), Some(now)) if now.selector != *want => Some(want.clone()),
            _ => None,
        };
        let r = match (&aim, moved_end) {
            (Aim::Point(_), None) => page.drag_points((a.start_x, a.start_y), (a.end_x, a.end_y)).await?,
            // The layout moved since the run was recorded: drag element to element.
            (Aim::Element(from), to) => {
                let to = to
                    .or_else(|| end.as_ref().map(|e| e.selector.clone()))
                    .unwrap_or_default();
                page.drag_and_drop(from.clone(), to.as_str()).await?
            }
            (Aim::Point(Some(from)), Some(to)) => page.drag_and_drop(from.selector.as_str(), to.as_str()).await?,
            (Aim::Point(None), Some(_)) => page.drag_points((a.start_x, a.start_y), (a.end_x, a.end_y)).await?,
        };
        let onto = end
            .as_ref()
            .filter(|e| !e.description.is_empty())
            .map(|e| format!(" onto {}", e.description))
            .unwrap_or_default();
        let said = format!(
            "Dragged {} to ({:.0}, {:.0}){onto}",
            point::describe(a.start_x, a.start_y, &aim),
            a.end_x,
            a.end_y
        );
        let mut out = point::outcome("dragAt", said, &args, &aim, (a.start_x, a.start_y), r);
        if let (Some(record), Some(e)) = (out.replay.last_mut(), end.filter(|e| !e.selector.is_empty())) {
            record.args["endTarget"] = json!(e.selector);
        }
        Ok(out)
    })
}
