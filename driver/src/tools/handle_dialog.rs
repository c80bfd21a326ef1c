//! `handleDialog`: answers the open `alert`, `confirm`, `prompt` or
//! `beforeunload` dialog (while one is open, other tools say so).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "handleDialog",
    "Accept or dismiss the open dialog (alert, confirm, prompt); promptText answers a prompt.",
    parameters,
    handle,
)
.changing_page()
.running_on_a_crashed_tab()
.running_beside_a_dialog();

/// How to answer an open dialog, naming the tool as the caller offers it
/// (`handleDialog` to an agent, `browser_handle_dialog` over MCP, which
/// the session commands show as their own command): one wording for all.
pub fn how_to_answer(tool: &str) -> String {
    format!("Answer it with {tool}: accept true (OK) or false (Cancel), and promptText for a prompt's answer")
}

fn parameters() -> Value {
    object(
        json!({
            "accept": {"type": "boolean", "description": "Accept (OK) or dismiss (Cancel)."},
            "promptText": {"type": "string", "description": "The text to answer a prompt with."}
        }),
        &["accept"],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    accept: bool,
    #[serde(default)]
    prompt_text: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("handleDialog", args)?;
        let page = ctx.page();
        // (The answer goes to the frame that asked.)
        let text = match (a.prompt_text.as_deref(), page.dialog()) {
            (Some(t), Some(dialog)) => Some(ctx.settings.variables.substitute(t, &dialog.frame_url)?),
            (Some(t), None) => Some(ctx.substitute(t, None).await?),
            (None, _) => None,
        };
        let (info, answer) = page.handle_dialog(a.accept, text.as_deref()).await?;
        let verb = if a.accept { "Accepted" } else { "Dismissed" };
        let mut said = format!("{verb} the {} dialog", info.said());
        if let Some(answer) = answer {
            // (The text as given: a secret's value is not repeated.)
            let shown = a.prompt_text.clone().unwrap_or(answer);
            said.push_str(&format!(" with {:?}", crate::text::clip(&shown, 100)));
        }
        // The page's script resumes where the dialog stopped it: let it
        // finish, unless it opens another dialog (`alert` after `alert`),
        // which stops it again until that one is answered.
        if page
            .unless_a_dialog_opens(page.wait_ready())
            .await
            .transpose()?
            .is_none()
        {
            let next = page.dialog().map(|d| d.said()).unwrap_or_default();
            said.push_str(&format!(". Another dialog opened at once: {next}; answer it too"));
        }
        Ok(ToolOutput::ok(said))
    })
}
