//! `scroll`: the page (or an element's scroll container) up or down by a
//! share of the viewport, to its top or bottom, or an element into view.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use crate::error::Error;
use crate::page::{ActionResult, ScrollAmount, Target};

pub const TOOL: Tool = Tool::new(
    "scroll",
    "Scroll the page up or down by a percentage of the viewport height, or to its top or bottom (a page that \
does not scroll itself, an app's shell: its largest scrolling box in view). With a target: scroll that element's \
scrollable container instead, or (without a direction) bring the element into view.",
    parameters,
    handle,
)
.changing_page()
// `scroll down`, `scroll e4`, `scroll e4 down` (or `down e4`).
.with_positional(&["direction|target", "direction|target"]);

fn parameters() -> Value {
    object(
        json!({
            "direction": {"type": "string", "enum": ["up", "down", "top", "bottom"], "description": "Up or down by the percentage, or to the top or bottom."},
            "percentage": {"type": "number", "minimum": 1, "maximum": 1000, "description": "Of the viewport (or container) height; default 80."},
            "target": {"type": "string", "description": "An element (ref or selector): scroll its container, or bring it into view when no direction is given."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    direction: Option<String>,
    #[serde(default)]
    percentage: Option<f64>,
    #[serde(default)]
    target: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("scroll", args)?;
        // A number is an amount, not an element (`scroll down 500`): said
        // so, where the selector `500` would be called invalid.
        if let Some(n) = a.target.as_deref().map(str::trim).filter(|t| is_amount(t)) {
            return Err(Error::InvalidAction(format!(
                "scroll: {n} is an amount, not an element: scroll by percentage (of the viewport's height, default 80), \
or give an element's ref to scroll it into view"
            )));
        }
        let page = ctx.page();
        let target = a.target.as_deref().filter(|t| !t.trim().is_empty()).map(Target::parse);
        let percentage = a.percentage.unwrap_or(80.0);
        let (r, said): (ActionResult, String) = match (a.direction.as_deref(), target) {
            (None, Some(t)) => {
                let r = page.scroll_into_view(t).await?;
                let said = match &r.element {
                    Some(e) => format!("Scrolled {e} into view"),
                    None => "Scrolled into view".into(),
                };
                (r, said)
            }
            (Some("top"), t) => (page.scroll_to(t, 0.0).await?, "Scrolled to the top".into()),
            (Some("bottom"), t) => (page.scroll_to(t, 100.0).await?, "Scrolled to the bottom".into()),
            (direction, t) => {
                let up = direction == Some("up");
                let amount = ScrollAmount::ViewportPercent(if up { -percentage } else { percentage });
                let (r, of) = match t {
                    Some(t) => (page.scroll_container(t, amount).await?, "its container's height"),
                    None => (page.scroll(amount).await?, "the viewport"),
                };
                let way = if up { "up" } else { "down" };
                (r, format!("Scrolled {way} {percentage}% of {of}"))
            }
        };
        // (At the end already: say that nothing moved, not what was asked.)
        let said = match r.value.as_deref() {
            Some(v) if r.moved == Some(false) => format!("Nothing scrolled ({v})"),
            Some(v) => format!("{said} ({v})"),
            None => said,
        };
        let mut out = ToolOutput::ok(said);
        out.rect = r.rect;
        Ok(out)
    })
}

/// `500`, `500px`, `-200`, `50%`: an amount someone meant to scroll by.
fn is_amount(t: &str) -> bool {
    let digits = t.trim_start_matches('-').trim_end_matches("px").trim_end_matches('%');
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_are_amounts_not_elements() {
        use super::is_amount;
        assert!(is_amount("500") && is_amount("500px") && is_amount("-200") && is_amount("50%"));
        assert!(!is_amount("e5") && !is_amount("#list") && !is_amount("px") && !is_amount("h2"));
    }
}
