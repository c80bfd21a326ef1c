//! `click`: a trusted click on an element (double or right click too).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, element_properties, object, parse, with, Tool, ToolFuture, TARGET_HELP};
use crate::error::Result;
use crate::page::{ActionResult, ClickButton, ClickOptions};

pub const TOOL: Tool = Tool::new(
    "click",
    "Click an element by its ref (or selector). Use doubleClick for a double click and button \"right\" \
for a context menu.",
    parameters,
    handle,
)
.changing_page()
.with_presets(&[("dblclick", r#"{"doubleClick": true}"#)]);

fn parameters() -> Value {
    object(
        with(
            element_properties(TARGET_HELP),
            json!({
                "doubleClick": {"type": "boolean", "description": "Double-click instead (default false)."},
                "button": {"type": "string", "enum": ["left", "right", "middle"], "description": "Default left."},
                "modifiers": {"type": "array", "items": {"type": "string", "enum": ["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]}, "description": "Keys held during the click."}
            }),
        ),
        &["target"],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(flatten)]
    element: ElementArgs,
    #[serde(default)]
    double_click: bool,
    #[serde(default)]
    button: Option<String>,
    #[serde(default)]
    modifiers: Vec<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("click", args.clone())?;
        let plain = a.button.as_deref().is_none_or(|b| b == "left") && a.modifiers.is_empty();
        let r = if plain {
            let method = if a.double_click { "doubleClick" } else { "click" };
            element::perform(ctx, &a.element.action(method, Vec::new())).await?
        } else {
            click_with(ctx, &a).await?
        };
        let verb = if a.double_click { "Double-clicked" } else { "Clicked" };
        Ok(element::outcome("click", verb, &args, r))
    })
}

/// A right or middle click, or one with modifier keys held.
async fn click_with(ctx: &ToolContext<'_>, a: &Args) -> Result<ActionResult> {
    let target = a
        .element
        .action("click", Vec::new())
        .target()
        .expect("an element tool has a target");
    let options = ClickOptions {
        clicks: if a.double_click { 2 } else { 1 },
        button: match a.button.as_deref() {
            Some("right") => ClickButton::Right,
            Some("middle") => ClickButton::Middle,
            _ => ClickButton::Left,
        },
        modifiers: a.modifiers.clone(),
        ..ClickOptions::default()
    };
    ctx.page().click_with(target, options).await
}
