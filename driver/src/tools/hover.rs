//! `hover`: moves the mouse over an element (menus that open on hover).

use serde_json::Value;

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, element_properties, object, parse, Tool, ToolFuture, TARGET_HELP};

pub const TOOL: Tool = Tool::new(
    "hover",
    "Move the mouse over an element (menus and tooltips that open on hover).",
    parameters,
    handle,
)
.changing_page();

fn parameters() -> Value {
    object(element_properties(TARGET_HELP), &["target"])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: ElementArgs = parse("hover", args.clone())?;
        let r = element::perform(ctx, &a.action("hover", Vec::new())).await?;
        Ok(element::outcome("hover", "Hovering over", &args, r))
    })
}
