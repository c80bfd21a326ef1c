//! `press`: a key or combination (`Enter`, `Control+A`, `Shift+Tab`) in
//! the focused element, or in an element focused first.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use crate::page::{parse_combo, Target};

pub const TOOL: Tool = Tool::new(
    "press",
    "Press a key or a combination (\"Enter\", \"Escape\", \"Control+A\", \"ArrowDown\") in the focused \
element, or in the element given.",
    parameters,
    handle,
)
.changing_page()
.with_mcp_name("browser_press_key");

fn parameters() -> Value {
    object(
        json!({
            "key": {"type": "string", "description": "A key name or combination, e.g. Enter, ArrowLeft, Control+A."},
            "target": {"type": "string", "description": "Focus this element first: a ref from the snapshot or a selector. Default: the focused element."},
            "element": {"type": "string", "description": "That element in words."},
            "repeat": {"type": "integer", "minimum": 1, "maximum": 50, "description": "How many times (default 1)."},
            "holdMs": {"type": "integer", "minimum": 1, "maximum": 30000, "description": "Hold the key down this long instead (one key, no combination)."}
        }),
        &["key"],
    )
}

#[derive(Deserialize)]
struct Args {
    key: String,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    element: Option<String>,
    #[serde(default)]
    repeat: Option<u32>,
    #[serde(default, rename = "holdMs")]
    hold_ms: Option<u64>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("press", args.clone())?;
        parse_combo(&a.key)?;
        let at = a.target.as_deref().filter(|t| !t.trim().is_empty()).map(Target::parse);
        let key = ctx.substitute(&a.key, at.as_ref()).await?;
        let repeat = a.repeat.unwrap_or(1).max(1);
        let times = if repeat > 1 {
            format!(" ×{repeat}")
        } else {
            String::new()
        };
        if let Some(ms) = a.hold_ms {
            let r = ctx.page().hold_key(&key, std::time::Duration::from_millis(ms)).await?;
            let mut out = ToolOutput::ok(format!("Held {} for {ms} ms", a.key));
            out.rect = r.rect;
            return Ok(out);
        }
        let Some(target) = a.target.clone().filter(|t| !t.trim().is_empty()) else {
            let page = ctx.page();
            for _ in 0..repeat {
                page.press(None, std::slice::from_ref(&key)).await?;
            }
            return Ok(ToolOutput::ok(format!("Pressed {}{times}", a.key)));
        };
        let el = ElementArgs {
            element: a.element.clone(),
            target,
            frame: None,
        };
        let keys = vec![key; repeat as usize];
        let r = element::perform(ctx, &el.action("press", keys)).await?;
        Ok(element::outcome(
            "press",
            &format!("Pressed {}{times} in", a.key),
            &args,
            r,
        ))
    })
}
