//! `check`: sets a checkbox, radio or switch to checked (or unchecked).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, element_properties, object, parse, with, Tool, ToolFuture, TARGET_HELP};

pub const TOOL: Tool = Tool::new(
    "check",
    "Check (or with checked false, uncheck) a checkbox, radio button or switch; does nothing when it \
is already in that state.",
    parameters,
    handle,
)
.changing_page()
.with_presets(&[("uncheck", r#"{"checked": false}"#)]);

fn parameters() -> Value {
    object(
        with(
            element_properties(TARGET_HELP),
            json!({"checked": {"type": "boolean", "description": "The wanted state (default true)."}}),
        ),
        &["target"],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    element: ElementArgs,
    #[serde(default)]
    checked: Option<bool>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("check", args.clone())?;
        let on = a.checked.unwrap_or(true);
        let method = if on { "check" } else { "uncheck" };
        let r = element::perform(ctx, &a.element.action(method, Vec::new())).await?;
        Ok(element::outcome(
            "check",
            if on { "Checked" } else { "Unchecked" },
            &args,
            r,
        ))
    })
}
