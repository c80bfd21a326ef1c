//! `resize`: the viewport's size in CSS pixels.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use crate::page::ViewportSize;

pub const TOOL: Tool = Tool::new("resize", "Resize the browser viewport.", parameters, handle)
    .changing_page()
    .offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({
            "width": {"type": "integer", "minimum": 100, "maximum": 10000, "description": "Width in CSS pixels."},
            "height": {"type": "integer", "minimum": 100, "maximum": 10000, "description": "Height in CSS pixels."}
        }),
        &["width", "height"],
    )
}

#[derive(Deserialize)]
struct Args {
    width: u32,
    height: u32,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("resize", args)?;
        let size = ViewportSize {
            width: a.width,
            height: a.height,
        };
        ctx.page().set_viewport(size).await?;
        Ok(ToolOutput::ok(format!("Resized the viewport to {size}")))
    })
}
