//! Page content shown to a model is data, never instructions: it goes
//! inside `<untrusted_page_content>` tags that page text cannot close.
//! The agent's page messages and the snapshot tool's results use this.

use std::borrow::Cow;

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

/// Longest line of a tree kept whole when the tree is over its budget, in
/// bytes (as the budget counts): one long text (a pasted value, a log in a
/// `<pre>`, a huge cell) must not push the rest of the page out of it.
const LONG_LINE_BYTES: usize = 2_000;

/// A tree cut as [`cap`] cuts, after lines longer than
/// [`LONG_LINE_BYTES`] are shortened (with how much was left out) when the
/// tree is over `max_chars`; says whether anything was left out.
pub fn cap_tree(tree: &str, max_chars: usize) -> (Cow<'_, str>, bool) {
    if tree.len() <= max_chars {
        return (Cow::Borrowed(tree), false);
    }
    if !tree.split('\n').any(|l| l.len() > LONG_LINE_BYTES) {
        let (shown, cut) = cap(tree, max_chars);
        return (Cow::Borrowed(shown), cut);
    }
    let mut shortened = String::with_capacity(max_chars.min(tree.len()) + 64);
    for line in tree.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.len() <= LONG_LINE_BYTES {
            shortened.push_str(line);
            continue;
        }
        let mut end = LONG_LINE_BYTES;
        while !body.is_char_boundary(end) {
            end -= 1;
        }
        let left_out = body[end..].chars().count();
        shortened.push_str(&format!("{}… [{left_out} more characters]\n", &body[..end]));
    }
    let (shown, _) = cap(&shortened, max_chars);
    (Cow::Owned(shown.to_string()), true)
}

/// A tree (or part of one) for a model, with the page's title and URL
/// when `header` (a response with a page section of its own states them),
/// wrapped and capped at a token budget (chars/4).
pub fn wrapped_tree(snapshot: &SnapshotResult, tree: &str, token_budget: usize, header: bool) -> String {
    let total = crate::ai::tree::tokens(tree);
    let (shown, cut) = cap_tree(tree, token_budget.saturating_mul(4));
    let mut s = format!("{OPEN_TAG}\n");
    if header {
        s.push_str(&format!(
            "Title: {}\nURL: {}\n",
            defang(&snapshot.title),
            defang(&snapshot.url)
        ));
    }
    s.push_str(&defang(&shown));
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(CLOSE_TAG);
    // Ours, so outside the fence (a model is told not to follow what is inside).
    if cut {
        s.push_str(&format!(
            "\n[truncated: the tree is about {total} tokens, over the {token_budget}-token budget; the rest is cut. \
{TREE_CUT_ADVICE}]"
        ));
    }
    s
}

/// How a cut tree's note says to get the rest (the command line says it in
/// its own words).
pub const TREE_CUT_ADVICE: &str = "Scroll and use the viewport snapshots, take one part (target: a ref), ask again \
with a larger budget, or extract, for what follows";

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
        // A cut tree's note is ours: outside the fence.
        let long = "- paragraph: words words words\n".repeat(200);
        let cut = wrapped_tree(&snapshot, &long, 100, false);
        let (inside, after) = cut.split_once(CLOSE_TAG).unwrap();
        assert!(!inside.contains("[truncated"), "{inside}");
        assert!(
            after.starts_with("\n[truncated: the tree is about") && after.contains(TREE_CUT_ADVICE),
            "{after}"
        );
    }

    #[test]
    fn one_long_line_does_not_push_the_rest_of_the_page_out() {
        let value = "Lorem ipsum ".repeat(9000);
        let tree = format!("- textbox \"Notes\" [ref=e1]: {value}\n- button \"Submit\" [ref=e2]\n");
        let (shown, cut) = cap_tree(&tree, 5_000);
        assert!(cut);
        assert!(shown.contains("- button \"Submit\" [ref=e2]"), "{shown}");
        assert!(
            shown.contains("… [106028 more characters]"),
            "{}",
            &shown[shown.len() - 80..]
        );
        // Within the budget, nothing changes; over it without long lines, cap's cut.
        assert_eq!(cap_tree(&tree, tree.len()), (Cow::Borrowed(tree.as_str()), false));
        let short = "- a\n- b\n- c\n";
        assert_eq!(cap_tree(short, 8), (Cow::Borrowed("- a\n- b\n"), true));
    }
}
