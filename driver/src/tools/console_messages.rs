//! `consoleMessages`: the page's console messages and uncaught errors.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use super::untrusted::{defang, CLOSE_TAG, OPEN_TAG};

pub const TOOL: Tool = Tool::new(
    "consoleMessages",
    "The page's console messages and uncaught errors, at or above a level.",
    parameters,
    handle,
)
.running_on_a_crashed_tab()
.offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({"level": {"type": "string", "enum": ["error", "warning", "info", "debug"], "description": "The lowest level shown (default info)."}}),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    level: Option<String>,
}

/// Severity rank of a console level (higher is more severe).
pub fn rank(level: &str) -> u8 {
    match level {
        "error" => 3,
        "warning" => 2,
        "debug" | "verbose" => 0,
        _ => 1,
    }
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("consoleMessages", args)?;
        let min = rank(a.level.as_deref().unwrap_or("info"));
        let lines: Vec<String> = ctx
            .page()
            .console_messages(0)
            .into_iter()
            .filter(|m| rank(&m.level) >= min)
            .map(|m| format!("[{}] {}", m.level, defang(&m.text)))
            .collect();
        Ok(ToolOutput::ok(if lines.is_empty() {
            "No console messages at that level.".to_string()
        } else {
            format!("{OPEN_TAG}\n{}\n{CLOSE_TAG}", lines.join("\n"))
        }))
    })
}
