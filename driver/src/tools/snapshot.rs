//! `snapshot`: the page as the model reads it: the whole page (default) or
//! the viewport, or the subtree of one ref, capped at a token budget.

use serde::Deserialize;
use serde_json::{json, Value};
use sightline_engine::protocol::SnapshotMode;

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use super::untrusted::wrapped_tree;
use crate::page::SnapshotOptions;

pub const TOOL: Tool = Tool::new(
    "snapshot",
    "The page as an accessibility tree with refs: the whole page by default (not only the viewport), \
or one element's subtree. Costly on big pages: use when the viewport is not enough.",
    parameters,
    handle,
)
.with_aliases(&["ariaTree"])
// `snapshot e4`: that element's subtree (`snapshot URL` stays the one-shot form).
.with_positional(&["target"]);

fn parameters() -> Value {
    object(
        json!({
            "mode": {"type": "string", "enum": ["full", "viewport"], "description": "The whole page (default) or what is on screen."},
            "target": {"type": "string", "description": "Only this element's subtree: a ref from an earlier snapshot."},
            "budget": {"type": "integer", "minimum": 100, "description": "Token budget (chars/4); the tree is cut beyond it."},
            "diff": {"type": "boolean", "description": "Only what changed since the last whole-page snapshot you saw (default false: the whole tree)."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    budget: Option<usize>,
    #[serde(default)]
    diff: bool,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("snapshot", args)?;
        let mode = match a.mode.as_deref() {
            Some("viewport") => SnapshotMode::Viewport,
            _ => SnapshotMode::Full,
        };
        let snap = ctx
            .page()
            .snapshot(&SnapshotOptions {
                mode,
                ..Default::default()
            })
            .await?;
        let budget = a.budget.unwrap_or(ctx.settings.snapshot_budget);
        let tree = match a.target.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
            None => snap.tree.clone(),
            Some(r) => match subtree(&snap.tree, r) {
                Some(t) => t,
                None => {
                    return Ok(ToolOutput::failed(format!(
                        "{r} is not a ref on the page now; take a snapshot without target for the current refs"
                    )))
                }
            },
        };
        let mut out = ToolOutput::ok(wrapped_tree(&snap, &tree, budget, ctx.settings.tree_header));
        out.tree = true;
        // Callers remember the whole page's tree, so a later `diff` call
        // can answer with what changed; only a `diff` call gets the changes
        // (a model asks for the tree when it has lost it).
        if a.target.is_none() && mode == SnapshotMode::Full {
            out.page_tree = Some(snap.tree);
            out.diff = a.diff;
        }
        Ok(out)
    })
}

/// The header lines and the line carrying `[ref=R]` with every line nested under it.
pub fn subtree(tree: &str, r: &str) -> Option<String> {
    let mark = format!("[ref={r}]");
    let lines: Vec<&str> = tree.lines().collect();
    let start = lines.iter().position(|l| l.contains(&mark))?;
    let indent = |l: &str| l.len() - l.trim_start().len();
    let depth = indent(lines[start]);
    let mut out: Vec<&str> = lines.iter().take_while(|l| l.starts_with('#')).copied().collect();
    out.push(lines[start]);
    out.extend(lines[start + 1..].iter().take_while(|l| indent(l) > depth));
    Some(out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn subtree_of_a_ref() {
        let tree =
            "# Page position: top\n- main:\n  - list [ref=e1]:\n    - link \"A\" [ref=e2]\n  - link \"B\" [ref=e3]\n";
        assert_eq!(
            super::subtree(tree, "e1").unwrap(),
            "# Page position: top\n  - list [ref=e1]:\n    - link \"A\" [ref=e2]\n"
        );
        assert!(super::subtree(tree, "e9").is_none());
    }
}
