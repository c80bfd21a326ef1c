//! `select`: picks options in a `<select>` (or an ARIA listbox/combobox).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, element_properties, object, parse, with, Tool, ToolFuture, TARGET_HELP};

pub const TOOL: Tool = Tool::new(
    "select",
    "Select one or more options of a dropdown by their labels or values.",
    parameters,
    handle,
)
.changing_page()
.with_aliases(&["selectOption"])
.with_mcp_name("browser_select_option");

fn parameters() -> Value {
    object(
        with(
            element_properties(TARGET_HELP),
            json!({"values": {"type": "array", "minItems": 1, "items": {"type": "string"}, "description": "Option labels or values (several for a multiple select)."}}),
        ),
        &["target", "values"],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    element: ElementArgs,
    values: Vec<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("select", args.clone())?;
        let mut action = a.element.action("selectOptionFromDropdown", Vec::new());
        let target = action.target();
        for v in &a.values {
            action.arguments.push(ctx.substitute(v, target.as_ref()).await?);
        }
        let r = element::perform(ctx, &action).await?;
        Ok(element::outcome("select", "Selected in", &args, r))
    })
}
