//! `consoleMessages`: the page's console messages and uncaught errors.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use super::untrusted::{defang, CLOSE_TAG, OPEN_TAG};

pub const TOOL: Tool = Tool::new(
    "consoleMessages",
    "The current page's console messages and uncaught errors (since it was loaded), at or above a level.",
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
        let page = ctx.page();
        let lines: Vec<String> = page
            .console_messages(page.document_event_mark())
            .into_iter()
            .filter(|m| rank(&m.level) >= min)
            .map(|m| format!("[{}] {}", m.level, defang(&m.text)))
            .collect();
        if lines.is_empty() {
            return Ok(ToolOutput::ok("No console messages at that level."));
        }
        // The newest are worth most: a page that logs without end is cut
        // from the front.
        let all = lines.join("\n");
        let budget = ctx.settings.snapshot_budget.saturating_mul(4);
        let (shown, cut) = match all.len().checked_sub(budget) {
            Some(over) if over > 0 => {
                // (By bytes: `over` may fall inside a character; a line break never does.)
                let start = all.as_bytes()[over..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(all.len(), |i| over + i + 1);
                (&all[start..], true)
            }
            _ => (all.as_str(), false),
        };
        let note = if cut {
            "[older messages left out: over the token budget]\n"
        } else {
            ""
        };
        Ok(ToolOutput::ok(format!("{note}{OPEN_TAG}\n{shown}\n{CLOSE_TAG}")))
    })
}
