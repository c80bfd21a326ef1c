//! `back`: goes back in the tab's history.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new("back", "Go back to the previous page.", parameters, handle)
    .changing_page()
    .running_on_a_crashed_tab()
    .with_aliases(&["navback", "goBack"])
    .with_mcp_name("browser_navigate_back");

fn parameters() -> Value {
    object(json!({}), &[])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move {
        Ok(match ctx.page().back().await? {
            Some(r) => ToolOutput::ok(format!("Went back to {r}{}", r.unfinished_said())),
            None => ToolOutput::failed("There is no previous page in this tab's history."),
        })
    })
}
