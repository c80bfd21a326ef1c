//! What the coordinate tools share (`clickAt`, `hoverAt`, `dragAt`,
//! `typeAt`, `scrollAt`): the `{x, y}` arguments in viewport CSS pixels,
//! the element under the point (looked up before acting, so a click that
//! closes a dialog still names its button), and how a call is recorded:
//! with that element's selector and where within its box the point lay, so
//! a replay repeats it even after the layout moved. A replayed call acts at
//! the point when the point still lies on the recorded element, else at the
//! same place within the element wherever it now is (a slider's or a
//! canvas's point matters), else on the element.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{RecordedCall, ToolOutput};
use crate::error::{Error, Result};
use crate::page::{ActionResult, PointTarget, Target};
use sightline_engine::protocol::Rect;

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
        "within": {"type": "array", "items": {"type": "number"}, "description": "Set by recorded runs: where the point lay within that element's box, as fractions of its width and height."},
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

/// Where within its box a recorded point lay (`within`, or another key).
pub fn within(args: &Value, key: &str) -> Option<(f64, f64)> {
    let w = args.get(key)?.as_array()?;
    match (w.first()?.as_f64(), w.get(1)?.as_f64()) {
        (Some(fx), Some(fy)) if (0.0..=1.0).contains(&fx) && (0.0..=1.0).contains(&fy) => Some((fx, fy)),
        _ => None,
    }
}

/// Whether `hit`, looked up at `point`, is the recorded element at the
/// recorded place on it: nothing moved, and nothing more is to be looked up.
pub fn same_place(hit: &PointTarget, selector: &str, within: (f64, f64), point: (f64, f64)) -> bool {
    let r = &hit.rect;
    hit.selector == selector
        && hit.frame.is_none()
        && (r.x + within.0 * r.width - point.0).abs() < 0.5
        && (r.y + within.1 * r.height - point.1).abs() < 0.5
}

/// The point at `within` of the box of `target`, when the element under it
/// is `target`'s (a replay of a point on an element that moved); `then`,
/// the recorded point, when that is within half a pixel of it.
pub async fn moved_point(
    ctx: &ToolContext<'_>,
    target: &Target,
    selector: &str,
    within: (f64, f64),
    then: (f64, f64),
) -> Result<Option<((f64, f64), PointTarget)>> {
    let page = ctx.page();
    let Some(b) = page.box_of(target).await? else {
        return Ok(None);
    };
    // (To the hundredth of a pixel: the recorded point, on a page that did not move.)
    let round = |v: f64| (v * 100.0).round() / 100.0;
    let at = (round(b.x + within.0 * b.width), round(b.y + within.1 * b.height));
    let at = if (at.0 - then.0).abs() < 0.5 && (at.1 - then.1).abs() < 0.5 {
        then
    } else {
        at
    };
    Ok(match page.element_at(at.0, at.1).await {
        Ok(Some(hit)) if hit.selector == selector && hit.frame.is_none() => Some((at, hit)),
        _ => None,
    })
}

/// The element under (x, y), checked against the recorded one (replays),
/// and the point to act at: (x, y), or the same place within the recorded
/// element where it moved to.
pub async fn aim(
    ctx: &ToolContext<'_>,
    (x, y): (f64, f64),
    recorded: Option<&str>,
    frame: Option<&str>,
    within: Option<(f64, f64)>,
) -> Result<(Aim, (f64, f64))> {
    let page = ctx.page();
    let recorded = recorded.filter(|s| !s.trim().is_empty());
    let hit = match page.element_at(x, y).await {
        // A replay in a smaller viewport, or after the layout moved: the
        // recorded element, wherever it now is.
        Err(Error::OutsideViewport { .. }) if recorded.is_some() => None,
        hit => hit?,
    };
    let Some(selector) = recorded else {
        return Ok((Aim::Point(hit), (x, y)));
    };
    let frame = frame.filter(|f| !f.trim().is_empty()).map(str::to_string);
    let target = match &frame {
        Some(f) => Target::in_frame(selector, f),
        None => Target::parse(selector),
    };
    // The same place on the element, wherever it is now (on a page that
    // did not move, the recorded point).
    if let Some(within) = within.filter(|_| frame.is_none()) {
        if hit.as_ref().is_some_and(|h| same_place(h, selector, within, (x, y))) {
            return Ok((Aim::Point(hit), (x, y)));
        }
        if let Some((at, hit)) = moved_point(ctx, &target, selector, within, (x, y)).await? {
            return Ok((Aim::Point(Some(hit)), at));
        }
    }
    if hit.as_ref().is_some_and(|h| h.selector == selector && h.frame == frame) {
        return Ok((Aim::Point(hit), (x, y)));
    }
    if page.exists(target.clone()).await? {
        Ok((Aim::Element(target), (x, y)))
    } else {
        Err(Error::InvalidAction(format!(
            "the element recorded at ({x:.0}, {y:.0}), {}, is not on the page any more",
            target.label()
        )))
    }
}

/// `(412, 300) on button "Subscribe"`; `asked` is the point the call
/// named, `at` where it acted (the same place on an element that moved).
pub fn describe(asked: (f64, f64), at: (f64, f64), aim: &Aim) -> String {
    let (x, y) = at;
    let moved = if asked == at {
        String::new()
    } else {
        format!(
            " (it moved from ({:.0}, {:.0}): the same place on it)",
            asked.0, asked.1
        )
    };
    match aim {
        Aim::Point(Some(t)) if !t.description.is_empty() => format!("at ({x:.0}, {y:.0}) on {}{moved}", t.description),
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
                if let Some(w) = within_box(point, &t.rect).filter(|_| t.frame.is_none()) {
                    recorded["within"] = json!(w);
                }
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

/// Where `point` lies within `rect`, as fractions of its width and height
/// (six decimals), when it lies in it.
pub fn within_box(point: (f64, f64), rect: &Rect) -> Option<[f64; 2]> {
    if rect.width <= 0.0 || rect.height <= 0.0 {
        return None;
    }
    let f = |v: f64, from: f64, size: f64| ((v - from) / size * 1e6).round() / 1e6;
    let w = [f(point.0, rect.x, rect.width), f(point.1, rect.y, rect.height)];
    w.iter().all(|v| (0.0..=1.0).contains(v)).then_some(w)
}
