//! `think`: a place for the agent's reasoning; nothing happens on the page.

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, Offered, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "think",
    "Think through the next steps; nothing happens on the page.",
    parameters,
    handle,
)
.offered_to(Offered::AGENT_ONLY);

fn parameters() -> Value {
    object(json!({"reasoning": {"type": "string"}}), &["reasoning"])
}

fn handle<'a>(_ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move { Ok(ToolOutput::ok("Noted.")) })
}
