//! `close`: closes the session's tabs and leaves one blank tab, so the
//! session starts over (the browser stays up for the next call).

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, Offered, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "close",
    "Close the page (every tab of this session); the next call starts on a blank tab.",
    parameters,
    handle,
)
.changing_page()
.running_on_a_crashed_tab()
.offered_to(Offered::MCP_ONLY)
.with_command("close-tabs", &[]);

fn parameters() -> Value {
    object(json!({}), &[])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let browser = ctx.browser("close")?;
        let tabs = browser.pages_in(ctx.context()).await?;
        let fresh = browser.new_page_in(ctx.context()).await?;
        for t in &tabs {
            let _ = browser.close_page(t.clone()).await;
        }
        ctx.set_page(fresh);
        Ok(ToolOutput::ok(format!(
            "Closed {} tab(s); a blank tab is open",
            tabs.len()
        )))
    })
}
