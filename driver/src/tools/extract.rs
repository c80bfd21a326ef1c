//! `extract`: data from the page as JSON, optionally shaped by a schema.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use crate::ai::{Ai, ExtractOptions};
use crate::error::Error;
use crate::llm::schema;

pub const TOOL: Tool = Tool::new(
    "extract",
    "Read data from the page as JSON, optionally shaped by a JSON Schema.",
    parameters,
    handle,
)
.needing_llm();

fn parameters() -> Value {
    object(
        json!({
            "instruction": {"type": "string", "description": "What to extract."},
            "schema": {"type": "object", "description": "Optional JSON Schema of the result."}
        }),
        &["instruction"],
    )
}

#[derive(Deserialize)]
struct Args {
    instruction: String,
    #[serde(default)]
    schema: Option<Value>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("extract", args)?;
        if a.instruction.trim().is_empty() {
            return Err(Error::InvalidAction("extract: instruction must not be empty".into()));
        }
        let schema = a.schema.filter(|s| !s.is_null());
        if let Some(s) = &schema {
            schema::check_schema(s).map_err(|e| Error::InvalidAction(format!("extract: schema: {e}")))?;
        }
        let llm = ctx.llm("extract")?;
        let r = Ai::new(llm)
            .extract(
                &ctx.page(),
                Some(&a.instruction),
                schema.as_ref(),
                &ExtractOptions {
                    secrets: ctx.settings.variables.secrets(),
                    ..ExtractOptions::default()
                },
            )
            .await?;
        let mut out = ToolOutput::ok(serde_json::to_string(&r.data).expect("JSON serialises"));
        out.usage = r.usage;
        out.data = Some(r.data);
        Ok(out)
    })
}
