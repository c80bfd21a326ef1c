//! `close`: closes the session's tabs and leaves one blank tab, so the
//! session starts over (the browser stays up for the next call). In the
//! user's own browser (`--cdp-url`), the tabs it had stay.

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
.running_beside_a_dialog()
.offered_to(Offered::MCP_ONLY)
.with_command("close-tabs", &[]);

fn parameters() -> Value {
    object(json!({}), &[])
}

fn handle<'a>(ctx: &'a ToolContext<'a>, _args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let browser = ctx.browser("close")?;
        let (tabs, users): (Vec<_>, Vec<_>) = browser
            .tab_list(ctx.context())
            .await?
            .into_iter()
            .partition(|t| t.page().is_some() && browser.opened_here(t.target_id(), ctx.context()));
        let tabs: Vec<_> = tabs.iter().filter_map(|t| t.page().cloned()).collect();
        let fresh = browser.new_page_in(ctx.context()).await?;
        for t in &tabs {
            let _ = browser.close_page(t.clone()).await;
        }
        ctx.set_page(fresh);
        let mut said = format!("Closed {} tab(s); a blank tab is open", tabs.len());
        if !users.is_empty() {
            said.push_str(&format!(". The {} other tab(s) of your browser stay open", users.len()));
        }
        Ok(ToolOutput::ok(said))
    })
}
