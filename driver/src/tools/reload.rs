//! `reload`: loads the current page again.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new("reload", "Reload the current page.", parameters, handle)
    .changing_page()
    .running_on_a_crashed_tab();

fn parameters() -> Value {
    object(json!({}), &[])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let r = ctx.page().reload().await?;
        Ok(ToolOutput::ok(format!("Reloaded {r}{}", r.unfinished_said())))
    })
}
