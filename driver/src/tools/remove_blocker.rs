//! `removeBlocker`: closes the pop-up, promo, cookie banner or overlay in
//! the way, under the tab's removeBlocker policy (`sightline.toml`).

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "removeBlocker",
    "Close the pop-up, promo modal, cookie banner or overlay that blocks the page. Deterministic and \
conservative: it leaves consent, login, age and paywall dialogs alone unless aggressive is true.",
    parameters,
    handle,
)
.changing_page()
.with_command("unblock", &[]);

fn parameters() -> Value {
    object(
        json!({"aggressive": {"type": "boolean", "description": "Default false."}}),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    aggressive: bool,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("removeBlocker", args)?;
        let page = ctx.page();
        let url = page.url().await.unwrap_or_default();
        let Some(mut opts) = page.blocker_config().options_for(&url) else {
            return Ok(ToolOutput::failed(
                "removeBlocker is disabled for this site by the configuration.",
            ));
        };
        opts.aggressive |= a.aggressive;
        let r = page.remove_blocker(&opts).await?;
        // A refusal is a deterministic outcome too: it counts as done (and
        // replay runs it again).
        // The sentence for the model; the result itself as data (replay, --json).
        let mut out = ToolOutput::ok(r.summary());
        out.data = Some(serde_json::to_value(&r).expect("a result serialises"));
        Ok(out)
    })
}
