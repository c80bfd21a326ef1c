//! `done`: ends an agent run: whether the task is complete, why, and the
//! answer when the task asks for one.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Finish, Offered, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "done",
    "Finish the task: whether it is complete, why, and the answer when the task asks for one.",
    parameters,
    handle,
)
.offered_to(Offered::AGENT_ONLY);

fn parameters() -> Value {
    object(
        json!({
            "reasoning": {"type": "string"},
            "taskComplete": {"type": "boolean"},
            "output": {"description": "The answer or data the task asked for, if any."}
        }),
        &["reasoning", "taskComplete"],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    reasoning: String,
    task_complete: bool,
    #[serde(default)]
    output: Option<Value>,
}

fn handle<'a>(_ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("done", args)?;
        let mut out = ToolOutput::ok(if a.task_complete {
            "task complete"
        } else {
            "task not achieved"
        });
        out.finish = Some(Finish {
            complete: a.task_complete,
            message: a.reasoning,
            output: a.output.filter(|o| !o.is_null()),
        });
        Ok(out)
    })
}
