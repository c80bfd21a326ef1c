//! `back`: goes back in the tab's history.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, Offered, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool {
    name: "back",
    aliases: &["navback", "goBack"],
    mcp_name: Some("browser_navigate_back"),
    description: "Go back to the previous page.",
    parameters,
    changes_page: true,
    needs_llm: false,
    returns_image: false,
    capability: None,
    offered: Offered::EVERYWHERE,
    handler: handle,
};

fn parameters() -> Value {
    object(json!({}), &[])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move {
        Ok(match ctx.page().back().await? {
            Some(r) => ToolOutput::ok(format!("Went back to {r}")),
            None => ToolOutput::failed("There is no previous page in this tab's history."),
        })
    })
}
