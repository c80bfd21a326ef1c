//! `pageText`: the page (or one ref's subtree) as reading matter, plain
//! text or markdown, with no model involved.

use serde::Deserialize;
use serde_json::{json, Value};
use sightline_engine::protocol::{RefMap, SnapshotMode};
use sightline_engine::render::push_url_token;

use super::context::ToolContext;
use super::snapshot::subtree;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use super::untrusted::{cap, defang, CLOSE_TAG, OPEN_TAG};
use crate::ai::tree;
use crate::page::SnapshotOptions;
use crate::readable;

pub const TOOL: Tool = Tool::new(
    "pageText",
    "The readable text of the page, or of one element's subtree, as markdown (default) or plain \
text: headings, paragraphs, links, lists, tables; no refs, no controls. No model involved.",
    parameters,
    handle,
);

fn parameters() -> Value {
    object(
        json!({
            "format": {"type": "string", "enum": ["markdown", "text"], "description": "Default markdown."},
            "target": {"type": "string", "description": "Only this element's subtree: a ref from a snapshot."},
            "budget": {"type": "integer", "minimum": 100, "description": "Token budget (chars/4); the text is cut beyond it."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    budget: Option<usize>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("pageText", args)?;
        let snap = ctx
            .page()
            .snapshot(&SnapshotOptions {
                mode: SnapshotMode::Full,
                ..Default::default()
            })
            .await?;
        let tree = match a.target.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => snap.tree.clone(),
            Some(r) => match subtree(&snap.tree, r) {
                Some(t) => t,
                None => return Ok(ToolOutput::failed(format!("{r} is not a ref on the page now"))),
            },
        };
        let tree = with_whole_urls(&tree, &snap.refs);
        let text = readable::from_tree(&tree, a.format.as_deref() != Some("text"));
        let budget = a.budget.unwrap_or(ctx.settings.snapshot_budget);
        let (shown, cut) = cap(&text, budget.saturating_mul(4));
        let body = format!(
            "{OPEN_TAG}\nTitle: {}\nURL: {}\n{}",
            defang(&snap.title),
            defang(&snap.url),
            defang(shown)
        );
        let mut said = format!("{}\n{CLOSE_TAG}", body.trim_end());
        // Ours, so outside the fence.
        if cut {
            said.push_str(&format!(
                "\n[cut at the {budget}-token budget: ask again with a larger budget, or one part (target: a ref)]"
            ));
        }
        let mut out = ToolOutput::ok(said);
        out.tree = true;
        Ok(out)
    })
}

/// The tree with each link's `[url=…]` whole: a snapshot cuts long ones (a
/// model rarely needs them whole there), but a link in reading matter is
/// to be followed. The link's ref gives the URL.
fn with_whole_urls(tree: &str, refs: &RefMap) -> String {
    let mut out = String::with_capacity(tree.len());
    for line in tree.lines() {
        let whole = tree::url_token(line)
            .filter(|(_, shown)| shown.ends_with('…'))
            .and_then(|(at, _)| Some((at, refs.get(tree::ref_of(line)?)?.url.as_deref()?)));
        match whole {
            Some((at, url)) => {
                out.push_str(&line[..at.start]);
                push_url_token(&mut out, url);
                out.push_str(&line[at.end..]);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use sightline_engine::protocol::RefInfo;

    use super::*;

    #[test]
    fn links_cut_in_the_tree_are_whole_in_the_text() {
        let long = format!("https://a.test/{}", "x".repeat(150));
        let refs = RefMap(vec![(
            "e1".into(),
            RefInfo {
                url: Some(long.clone()),
                ..Default::default()
            },
        )]);
        let tree =
            "- link \"Create account\" [ref=e1] [url=https://a.test/xxxx…]: more\n- link \"Short\" [ref=e2] [url=/s]\n";
        assert_eq!(
            with_whole_urls(tree, &refs),
            format!("- link \"Create account\" [ref=e1] [url={long}]: more\n- link \"Short\" [ref=e2] [url=/s]\n")
        );
    }
}
