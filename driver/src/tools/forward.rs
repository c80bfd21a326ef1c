//! `forward`: goes forward in the tab's history.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "forward",
    "Go forward to the next page in the tab's history.",
    parameters,
    handle,
)
.changing_page()
.running_on_a_crashed_tab()
.with_aliases(&["goForward"])
.with_mcp_name("browser_navigate_forward");

fn parameters() -> Value {
    object(json!({}), &[])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move {
        Ok(match ctx.page().forward().await? {
            Some(r) => ToolOutput::ok(format!("Went forward to {r}{}", r.unfinished_said())),
            None => ToolOutput::failed("There is no next page in this tab's history."),
        })
    })
}
