//! `drag`: drags one element onto another with trusted mouse input (and
//! HTML5 drag-and-drop events where the page uses them).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element;
use super::tool::{boxed, object, parse, Tool, ToolFuture};
use crate::page::{is_ref, Action};

pub const TOOL: Tool =
    Tool::new("drag", "Drag an element and drop it onto another.", parameters, handle).changing_page();

fn parameters() -> Value {
    object(
        json!({
            "startElement": {"type": "string", "description": "The element to drag, in words."},
            "startTarget": {"type": "string", "description": "The element to drag: a ref from the snapshot or a selector."},
            "endElement": {"type": "string", "description": "Where to drop it, in words."},
            "endTarget": {"type": "string", "description": "Where to drop it: a ref from the snapshot or a selector."},
            "frame": {"type": "string", "description": "Only with selectors inside a child frame: its ref prefix (f1) or a selector of its <iframe>."}
        }),
        &["startTarget", "endTarget"],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    start_element: Option<String>,
    start_target: String,
    end_target: String,
    #[serde(default)]
    frame: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("drag", args.clone())?;
        let start = a.start_target.trim().to_string();
        let end = a.end_target.trim().to_string();
        // The drop target's selector, taken before the drag changes the page,
        // so the record replays without refs.
        let end_selector = if is_ref(&end) {
            Some(ctx.page().selector_of(end.as_str()).await?)
        } else {
            None
        };
        let (ref_, selector) = if is_ref(&start) {
            (Some(start), None)
        } else {
            (None, Some(start))
        };
        let action = Action {
            method: "dragAndDrop".into(),
            selector,
            ref_,
            frame: a.frame.clone(),
            arguments: vec![end],
            description: a.start_element.clone(),
        };
        let r = element::perform(ctx, &action).await?;
        let mut recorded = args;
        if let Some(sel) = end_selector {
            recorded["endTarget"] = json!(sel);
        }
        let mut out = element::outcome("drag", "Dragged", &recorded, r);
        // outcome() put the start element's selector in; keep it.
        out.text.push_str(&format!(" onto {}", a.end_target));
        Ok(out)
    })
}
