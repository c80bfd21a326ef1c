//! `act`: one action described in words, resolved by the model against a
//! snapshot and carried out with trusted input (see [`crate::ai::act`]).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, RecordedCall, Tool, ToolFuture, ToolOutput};
use crate::ai::{ActOptions, Ai};

pub const TOOL: Tool = Tool::new(
    "act",
    "Perform ONE atomic action on the page, described in words: \"click the Add to cart button\", \
\"type %email% into the Email field\", \"choose EU 42 in the size dropdown\".",
    parameters,
    handle,
)
.changing_page()
.needing_llm();

fn parameters() -> Value {
    object(
        json!({"action": {"type": "string", "description": "One action, specific about the element."}}),
        &["action"],
    )
}

#[derive(Deserialize)]
struct Args {
    action: String,
}

/// The act options a tool call uses: the caller's, with its variables.
pub fn act_options(ctx: &ToolContext<'_>) -> ActOptions {
    ActOptions {
        variables: ctx.settings.variables.clone(),
        base_dir: ctx.settings.act.base_dir.clone().or(ctx.settings.base_dir.clone()),
        ..ctx.settings.act.clone()
    }
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("act", args)?;
        if a.action.trim().is_empty() {
            return Ok(ToolOutput::failed("act: action must not be empty"));
        }
        let llm = ctx.llm("act")?;
        let r = Ai::new(llm).act(&ctx.page(), &a.action, &act_options(ctx)).await?;
        let mut out = if r.success {
            ToolOutput::ok(&r.message)
        } else {
            ToolOutput::failed(format!("Failed: {}", r.message))
        };
        out.rect = r.actions.iter().rev().find_map(|x| x.rect);
        out.usage = r.usage;
        if r.success {
            out.replay.push(RecordedCall {
                tool: "act".into(),
                args: json!({"action": a.action}),
                actions: r.actions.clone(),
                context: None,
            });
        }
        out.data = Some(serde_json::to_value(&r).expect("an act result serialises"));
        Ok(out)
    })
}
