//! `upload`: sets the files of a file input (relative paths are taken
//! against the caller's base directory).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, element_properties, object, parse, with, Tool, ToolFuture};

pub const TOOL: Tool = Tool::new(
    "upload",
    "Choose files for a file input (or the element that opens the file chooser).",
    parameters,
    handle,
)
.changing_page()
.with_aliases(&["setInputFiles"])
.with_mcp_name("browser_file_upload");

fn parameters() -> Value {
    object(
        with(
            element_properties("The file input (or its button): a ref from the snapshot or a selector."),
            json!({"paths": {"type": "array", "minItems": 1, "items": {"type": "string"}, "description": "Paths of the files to choose."}}),
        ),
        &["target", "paths"],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    element: ElementArgs,
    paths: Vec<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("upload", args.clone())?;
        let action = a.element.action("setInputFiles", a.paths.clone());
        let r = element::perform(ctx, &action).await?;
        let verb = format!("Chose {} file(s) in", a.paths.len());
        Ok(element::outcome("upload", &verb, &args, r))
    })
}
