//! `storageState`: saves the session's cookies and local storage to a JSON
//! file (Playwright's storage-state shape), to load later with
//! `--storage-state`.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "storageState",
    "Save the cookies and local storage of this session to a JSON file (load it later with \
--storage-state).",
    parameters,
    handle,
)
.offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({"filename": {"type": "string", "description": "The file to write (relative to the output directory)."}}),
        &["filename"],
    )
}

#[derive(Deserialize)]
struct Args {
    filename: String,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("storageState", args)?;
        let browser = ctx.browser("storageState")?;
        let state = browser.storage_state(ctx.context()).await?;
        let mut path = PathBuf::from(&a.filename);
        if path.is_relative() {
            if let Some(dir) = &ctx.settings.output_dir {
                path = dir.join(path);
            }
        }
        state.save(&path)?;
        Ok(ToolOutput::ok(format!(
            "Saved {} cookie(s) and the local storage of {} origin(s) to {}",
            state.cookies.len(),
            state.origins.len(),
            path.display()
        )))
    })
}
