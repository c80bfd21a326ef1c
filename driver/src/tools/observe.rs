//! `observe`: the elements that fit a request, as actions `run` can play.

use serde::Deserialize;
use serde_json::{json, Value};
use sightline_engine::protocol::SnapshotMode;

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use crate::ai::{Ai, ObserveOptions};

pub const TOOL: Tool = Tool::new(
    "observe",
    "Find the elements that fit a request (\"the fields of the sign-up form\") and how to act on each, \
as ready-to-run actions with selectors.",
    parameters,
    handle,
)
.needing_llm()
.offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({
            "instruction": {"type": "string", "description": "What to look for."},
            "mode": {"type": "string", "enum": ["full", "viewport"], "description": "Look at the whole page (default) or the viewport."}
        }),
        &["instruction"],
    )
}

#[derive(Deserialize)]
struct Args {
    instruction: String,
    #[serde(default)]
    mode: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("observe", args)?;
        let llm = ctx.llm("observe")?;
        let mode = match a.mode.as_deref() {
            Some("viewport") => SnapshotMode::Viewport,
            _ => SnapshotMode::Full,
        };
        let r = Ai::new(llm)
            .observe(
                &ctx.page(),
                &a.instruction,
                &ObserveOptions {
                    mode,
                    secrets: ctx.settings.variables.secrets(),
                    ..ObserveOptions::default()
                },
            )
            .await?;
        let data = serde_json::to_value(&r.actions).expect("actions serialise");
        let mut out = ToolOutput::ok(serde_json::to_string_pretty(&data).expect("JSON serialises"));
        out.usage = r.usage;
        out.data = Some(json!({"actions": data}));
        Ok(out)
    })
}
