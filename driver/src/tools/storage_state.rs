//! `storageState`: saves the session's cookies and local storage to a JSON
//! file (Playwright's storage-state shape), to load later with
//! `--storage-state`.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use crate::files::write_output;

pub const TOOL: Tool = Tool::new(
    "storageState",
    "Save the cookies and local storage of this session to a JSON file (load it later with \
--storage-state).",
    parameters,
    handle,
)
.writing_files()
.offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({"filename": {"type": "string", "description": "The file to write, relative to the output directory (nothing is written outside it)."}}),
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
        let path = match &ctx.settings.output_dir {
            Some(dir) => write_output(dir, &a.filename, state.to_json().as_bytes())?,
            // A caller with no output directory writes where it was told.
            None => {
                let path = PathBuf::from(&a.filename);
                state.save(&path)?;
                path
            }
        };
        Ok(ToolOutput::ok(format!(
            "Saved {} cookie(s) and the local storage of {} origin(s) to {}",
            state.cookies.len(),
            state.origins.len(),
            path.display()
        )))
    })
}
