//! What the coordinate tools share (`clickAt`, `hoverAt`, `dragAt`,
//! `typeAt`, `scrollAt`): the `{x, y}` arguments in viewport CSS pixels,
//! the element under the point (looked up before acting, so a click that
//! closes a dialog still names its button), and how a call is recorded:
//! with that element's selector, so a replay repeats it even after the
//! layout moved. A replayed call acts at the point when the point still
//! lies on the recorded element, else on the element wherever it now is.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{RecordedCall, ToolOutput};
use crate::error::{Error, Result};
use crate::page::{ActionResult, PointTarget, Target};

/// The capability that offers the coordinate tools: hybrid agents, and
/// `sightline mcp --caps vision` (as Playwright MCP calls it).
pub const VISION: &str = "vision";

/// Properties of a point, in words for the model.
pub fn point_properties(x: &str, y: &str) -> Value {
    json!({
        x: {"type": "number", "minimum": 0, "description": "From the left edge of the viewport, in the screenshot's pixels."},
        y: {"type": "number", "minimum": 0, "description": "From the top edge of the viewport, in the screenshot's pixels."},
    })
}

/// The replay properties: the element recorded under the point.
pub fn recorded_properties() -> Value {
    json!({
        "target": {"type": "string", "description": "Set by recorded runs: the selector of the element that was under the point. A replay acts on it where it now is."},
        "frame": {"type": "string", "description": "Set by recorded runs: the frame of that element (f1)."},
        "element": {"type": "string", "description": "The element in words (for the record)."}
    })
}

/// Where a coordinate tool acts.
pub enum Aim {
    /// At the point (on this element, when there is one there).
    Point(Option<PointTarget>),
    /// The recorded element moved away from the point: act on it by selector.
    Element(Target),
}

/// The element under (x, y), checked against the recorded one (replays).
pub async fn aim(ctx: &ToolContext<'_>, x: f64, y: f64, recorded: Option<&str>, frame: Option<&str>) -> Result<Aim> {
    let page = ctx.page();
    let recorded = recorded.filter(|s| !s.trim().is_empty());
    let hit = match page.element_at(x, y).await {
        // A replay in a smaller viewport, or after the layout moved: the
        // recorded element, wherever it now is.
        Err(Error::OutsideViewport { .. }) if recorded.is_some() => None,
        hit => hit?,
    };
    let Some(selector) = recorded else {
        return Ok(Aim::Point(hit));
    };
    let frame = frame.filter(|f| !f.trim().is_empty()).map(str::to_string);
    if hit.as_ref().is_some_and(|h| h.selector == selector && h.frame == frame) {
        return Ok(Aim::Point(hit));
    }
    let target = match &frame {
        Some(f) => Target::in_frame(selector, f),
        None => Target::parse(selector),
    };
    if page.exists(target.clone()).await? {
        Ok(Aim::Element(target))
    } else {
        Err(Error::InvalidAction(format!(
            "the element recorded at ({x:.0}, {y:.0}), {}, is not on the page any more",
            target.label()
        )))
    }
}

/// `(412, 300) on button "Subscribe"`.
pub fn describe(x: f64, y: f64, aim: &Aim) -> String {
    match aim {
        Aim::Point(Some(t)) if !t.description.is_empty() => format!("at ({x:.0}, {y:.0}) on {}", t.description),
        Aim::Point(_) => format!("at ({x:.0}, {y:.0})"),
        Aim::Element(t) => format!("on {} (it moved away from ({x:.0}, {y:.0}))", t.label()),
    }
}

/// The outcome of a coordinate action: the text, the point and box for the
/// trace report, and the record for replay, `target` and `frame` naming the
/// element that was under the point.
pub fn outcome(tool: &str, said: String, args: &Value, aim: &Aim, point: (f64, f64), r: ActionResult) -> ToolOutput {
    let mut text = said;
    if let Some(v) = &r.value {
        text.push_str(&format!(" → {v}"));
    }
    if !r.notes.is_empty() {
        text.push_str(&format!(" ({})", r.notes.join("; ")));
    }
    let mut out = ToolOutput::ok(text);
    out.point = Some(point);
    let mut recorded = args.clone();
    match aim {
        Aim::Point(Some(t)) => {
            // A box in a child frame is in that frame's coordinates: not drawn.
            out.rect = Some(t.rect).filter(|_| t.frame.is_none());
            if !t.selector.is_empty() {
                recorded["target"] = json!(t.selector);
                recorded["element"] = json!(t.description);
                match &t.frame {
                    Some(f) => recorded["frame"] = json!(f),
                    None => {
                        if let Some(o) = recorded.as_object_mut() {
                            o.remove("frame");
                        }
                    }
                }
            }
        }
        Aim::Point(None) => {}
        Aim::Element(_) => out.rect = r.rect,
    }
    out.replay.push(RecordedCall {
        tool: tool.to_string(),
        args: recorded,
        actions: Vec::new(),
        context: None,
    });
    out
}
