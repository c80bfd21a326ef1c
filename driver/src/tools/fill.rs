//! `fill`: replaces the value of a text field (or contenteditable) as a
//! user would: focus, select all, type.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, element_properties, object, parse, with, Tool, ToolFuture, TARGET_HELP};

pub const TOOL: Tool = Tool::new(
    "fill",
    "Replace the text of a field with a value (%name% variables are filled in here, never shown).",
    parameters,
    handle,
)
.changing_page();

fn parameters() -> Value {
    object(
        with(
            element_properties(TARGET_HELP),
            json!({"value": {"type": "string", "description": "The new text, or a %name% variable."}}),
        ),
        &["target", "value"],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    element: ElementArgs,
    value: String,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("fill", args.clone())?;
        let mut action = a.element.action("fill", Vec::new());
        action.arguments = vec![ctx.substitute(&a.value, action.target().as_ref()).await?];
        let r = element::perform(ctx, &action).await?;
        Ok(element::outcome("fill", "Filled", &args, r))
    })
}
