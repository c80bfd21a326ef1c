//! `networkRequests`: the page's requests (static resources on request).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "networkRequests",
    "The requests of the page shown: its own and those it made since it was opened (not an earlier page's), \
with method, URL, and status, failure or pending.",
    parameters,
    handle,
)
.running_on_a_crashed_tab()
.offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({
            "static": {"type": "boolean", "description": "Include images, fonts, style sheets and scripts (default false)."},
            "filter": {"type": "string", "description": "Only URLs containing this text."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default, rename = "static")]
    include_static: bool,
    #[serde(default)]
    filter: Option<String>,
}

const STATIC: &[&str] = &["Image", "Font", "Stylesheet", "Script", "Media", "Manifest"];

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("networkRequests", args)?;
        let lines: Vec<String> = ctx
            .page()
            .document_network_requests()
            .into_iter()
            .filter(|r| a.include_static || !STATIC.contains(&r.resource_type.as_str()))
            .filter(|r| a.filter.as_deref().is_none_or(|f| r.url.contains(f)))
            .map(|r| {
                let outcome = match (&r.failure, r.status) {
                    (Some(f), _) => format!("failed: {f}"),
                    (None, Some(s)) => s.to_string(),
                    (None, None) => "pending".to_string(),
                };
                format!("[{}] {} {} => {outcome}", r.resource_type, r.method, r.url)
            })
            .collect();
        Ok(ToolOutput::ok(if lines.is_empty() {
            "No matching requests.".to_string()
        } else {
            lines.join("\n")
        }))
    })
}
