//! `dragAt`: a trusted drag from one point of the viewport to another
//! (sliders, sortable lists, HTML5 drag and drop).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::point::{self, Aim, VISION};
use super::tool::{boxed, object, parse, with, Tool, ToolFuture};
use crate::page::Target;

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
                json!({
                    "endTarget": {"type": "string", "description": "Set by recorded runs: the selector of the element under the end point."},
                    "endWithin": {"type": "array", "items": {"type": "number"}, "description": "Set by recorded runs: where the end point lay within that element's box, as fractions of its width and height."}
                }),
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
        let asked = (a.start_x, a.start_y);
        let within = point::within(&args, "within");
        let (aim, from_at) = point::aim(ctx, asked, a.target.as_deref(), a.frame.as_deref(), within).await?;
        let page = ctx.page();
        let mut to_at = (a.end_x, a.end_y);
        let mut end = page.element_at(to_at.0, to_at.1).await?;
        let mut moved_end = match (&a.end_target, &end) {
            (Some(want), Some(now)) if now.selector != *want => Some(want.clone()),
            _ => None,
        };
        // The same place on the end's element, wherever it is now, when the
        // run said where (a slider's track, a canvas).
        let end_within = point::within(&args, "endWithin");
        let end_in_place = match (&a.end_target, &end, end_within) {
            (Some(want), Some(now), Some(w)) => point::same_place(now, want, w, to_at),
            _ => false,
        };
        if let (Some(want), Some(w), false) = (a.end_target.as_deref(), end_within, end_in_place) {
            if let Some((at, hit)) = point::moved_point(ctx, &Target::parse(want), want, w, to_at).await? {
                (to_at, end, moved_end) = (at, Some(hit), None);
            }
        }
        let r = match (&aim, moved_end) {
            (Aim::Point(_), None) => page.drag_points(from_at, to_at).await?,
            // The layout moved since the run was recorded: drag element to element.
            (Aim::Element(from), to) => {
                let to = to
                    .or_else(|| end.as_ref().map(|e| e.selector.clone()))
                    .unwrap_or_default();
                page.drag_and_drop(from.clone(), to.as_str()).await?
            }
            (Aim::Point(Some(from)), Some(to)) => page.drag_and_drop(from.selector.as_str(), to.as_str()).await?,
            (Aim::Point(None), Some(_)) => page.drag_points(from_at, to_at).await?,
        };
        let onto = end
            .as_ref()
            .filter(|e| !e.description.is_empty())
            .map(|e| format!(" onto {}", e.description))
            .unwrap_or_default();
        let said = format!(
            "Dragged {} to ({:.0}, {:.0}){onto}",
            point::describe(asked, from_at, &aim),
            to_at.0,
            to_at.1
        );
        let mut out = point::outcome("dragAt", said, &args, &aim, from_at, r);
        if let (Some(record), Some(e)) = (out.replay.last_mut(), end.filter(|e| !e.selector.is_empty())) {
            record.args["endTarget"] = json!(e.selector);
            if let Some(w) = point::within_box(to_at, &e.rect).filter(|_| e.frame.is_none()) {
                record.args["endWithin"] = json!(w);
            }
        }
        Ok(out)
    })
}
