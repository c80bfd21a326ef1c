//! Page content shown to a model is data, never instructions: it goes
//! inside `<untrusted_page_content>` tags that page text cannot close.
//! The agent's page messages and the snapshot tool's results use this.

use sightline_engine::protocol::SnapshotResult;

// (In the leaf module `text`: the page layer defangs what it says too.)
pub use crate::text::{defang, CLOSE_TAG, OPEN_TAG};

/// Cuts at a line boundary at most `max_chars` long; says whether it cut.
pub fn cap(text: &str, max_chars: usize) -> (&str, bool) {
    if text.len() <= max_chars {
        return (text, false);
    }
    let mut end = max_chars;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map(|i| i + 1).unwrap_or(end);
    (&text[..end], true)
}

/// A tree (or part of one) for a model, with the page's title and URL
/// when `header` (a response with a page section of its own states them),
/// wrapped and capped at a token budget (chars/4).
pub fn wrapped_tree(snapshot: &SnapshotResult, tree: &str, token_budget: usize, header: bool) -> String {
    let total = crate::ai::tree::tokens(tree);
    let (shown, cut) = cap(tree, token_budget.saturating_mul(4));
    let mut s = format!("{OPEN_TAG}\n");
    if header {
        s.push_str(&format!(
            "Title: {}\nURL: {}\n",
            defang(&snapshot.title),
            defang(&snapshot.url)
        ));
    }
    s.push_str(&defang(shown));
    if !s.ends_with('\n') {
        s.push('\n');
    }
    if cut {
        s.push_str(&format!(
            "[truncated: the tree is about {total} tokens, over the {token_budget}-token budget; the rest is cut. \
Scroll and use the viewport snapshots, take one part (target: a ref), ask again with a larger budget, or \
extract, for what follows]\n"
        ));
    }
    s.push_str(CLOSE_TAG);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_and_url_lines_only_when_asked() {
        let snapshot = SnapshotResult {
            title: "Shop".into(),
            url: "http://a.test/".into(),
            ..Default::default()
        };
        let tree = "- main:\n  - link \"URL: x\"\n";
        assert_eq!(
            wrapped_tree(&snapshot, tree, 1000, true),
            format!("{OPEN_TAG}\nTitle: Shop\nURL: http://a.test/\n- main:\n  - link \"URL: x\"\n{CLOSE_TAG}")
        );
        assert_eq!(
            wrapped_tree(&snapshot, tree, 1000, false),
            format!("{OPEN_TAG}\n- main:\n  - link \"URL: x\"\n{CLOSE_TAG}")
        );
    }
}
