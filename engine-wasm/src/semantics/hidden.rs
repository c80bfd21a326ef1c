//! Hidden rules: which nodes are excluded from the accessibility tree.
//!
//! A node is hidden when any of these holds:
//! - it sits in a `display:none` subtree (an element whose style was not read
//!   is in one by construction). `hidden` is seen through computed display.
//!   Exception: `<area>` inside `<map>` is `display:none` by the UA sheet yet
//!   exposed by browsers;
//! - `aria-hidden="true"` on it or an ancestor (ignored on `html`/`body`, as
//!   Chromium does, so one stray attribute cannot blank a page);
//! - `inert` on it or an ancestor;
//! - it is or is inside `script`, `style`, `template`, `noscript`, `head`, an
//!   HTML or SVG `title`, or an unrendered SVG resource (`desc`, `defs`…);
//! - an ancestor has `content-visibility:hidden` or `hidden="until-found"`
//!   (the element itself stays visible, its descendants do not);
//! - it is a child of a closed `<details>` other than its first `<summary>`;
//! - its own computed `visibility` is `hidden`/`collapse`. Visibility is
//!   inherited by CSS, so the adapter records every element's own computed
//!   value and a `visibility:visible` descendant shows again;
//! - text, shadow roots: hidden exactly when their parent is.
//!
//! Zero-size boxes are not hidden here: whether they get a ref is the ref
//! layer's call, and their text still names things.
use crate::dom::{among, Display, DomTree, ElementData, NodeId, NodeKind};

/// Elements whose whole subtree never reaches the accessibility tree
/// (`datalist`: its options are the browser's suggestions for an input, not
/// a list box on the page; its style is not read, see the walk).
const EXCLUDED_TAGS: &[&str] = &[
    "datalist",
    "script",
    "style",
    "template",
    "noscript",
    "head",
    "title",
    "desc",
    "metadata",
    "defs",
    "symbol",
    "clippath",
    "mask",
    "lineargradient",
    "radialgradient",
    "pattern",
    "filter",
    "marker",
];

/// One flag per node: true when the node is hidden from users and assistive tech.
pub fn compute_hidden(tree: &DomTree) -> Vec<bool> {
    let n = tree.len();
    let mut hidden = vec![false; n];
    // (node, excluded by an ancestor in a way no descendant can undo)
    let mut stack: Vec<(NodeId, bool)> = vec![(DomTree::ROOT, false)];
    while let Some((id, blocked_from_above)) = stack.pop() {
        let node = tree.node(id);
        let parent_hidden = node.parent.map(|p| hidden[p]).unwrap_or(false);
        let (blocked, is_hidden) = match &node.kind {
            NodeKind::Element(e) => {
                let blocked = blocked_from_above || excludes_subtree(tree, id, e);
                let vis_hidden = e.style.as_ref().map(|s| s.visibility_hidden).unwrap_or(true);
                (blocked, blocked || vis_hidden)
            }
            _ => (blocked_from_above, blocked_from_above || parent_hidden),
        };
        hidden[id] = is_hidden;
        let e = node.element();
        let hides_content = e.map(hides_descendants).unwrap_or(false);
        let closed_details_summary = match e {
            Some(e) if e.tag == "details" && !e.has_attr("open") => {
                Some(super::roles::first_child_with_tag(tree, id, "summary"))
            }
            _ => None,
        };
        for &c in node.children.iter().rev() {
            let details_hides = match closed_details_summary {
                Some(summary) => summary != Some(c),
                None => false,
            };
            stack.push((c, blocked || hides_content || details_hides));
        }
    }
    hidden
}

/// The element removes itself and its whole subtree.
fn excludes_subtree(tree: &DomTree, id: NodeId, e: &ElementData) -> bool {
    let Some(style) = e.style.as_ref() else {
        return true;
    };
    if style.display == Display::None
        && !(e.tag == "area" && tree.parent_element(id).and_then(|p| tree.tag(p)) == Some("map"))
    {
        return true;
    }
    if e.attr("aria-hidden")
        .map(|v| v.trim().eq_ignore_ascii_case("true"))
        .unwrap_or(false)
        && e.tag != "html"
        && e.tag != "body"
    {
        return true;
    }
    e.has_attr("inert") || among(EXCLUDED_TAGS, &e.tag)
}

/// The element stays but its content is skipped.
fn hides_descendants(e: &ElementData) -> bool {
    e.style.as_ref().map(|s| s.content_visibility_hidden).unwrap_or(false)
        || e.attr("hidden")
            .map(|v| v.trim().eq_ignore_ascii_case("until-found"))
            .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{Style, TreeBuilder};

    fn style_mut(b: &mut TreeBuilder, id: NodeId) -> &mut Style {
        b.data(id).style.as_mut().unwrap()
    }

    #[test]
    fn display_none_hides_subtree_and_unstyled_elements() {
        let mut b = TreeBuilder::new();
        let body = b.open_el("body", &[]);
        let d = b.open_el("div", &[]);
        let inner = b.el("span", &[]);
        let txt = b.text("x");
        b.close();
        let unstyled = b.el("span", &[]);
        let vis = b.el("span", &[]);
        style_mut(&mut b, d).display = Display::None;
        b.data(unstyled).style = None;
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(!h[0] && !h[body] && !h[vis]);
        assert!(h[d] && h[inner] && h[txt] && h[unstyled]);
    }

    #[test]
    fn a_datalist_is_no_list_box_on_the_page() {
        let mut b = TreeBuilder::new();
        let list = b.open_el("datalist", &[]);
        let option = b.el("option", &[]);
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(h[list] && h[option]);
    }

    #[test]
    fn display_none_cannot_be_undone_by_descendants() {
        let mut b = TreeBuilder::new();
        let d = b.open_el("div", &[]);
        let inner = b.el("span", &[]);
        style_mut(&mut b, d).display = Display::None;
        // A descendant claiming to be styled and visible is still in the subtree.
        let t = b.finish();
        assert!(compute_hidden(&t)[inner]);
    }

    #[test]
    fn display_contents_is_not_hidden() {
        let mut b = TreeBuilder::new();
        let d = b.open_el("div", &[]);
        let t1 = b.text("x");
        style_mut(&mut b, d).display = Display::Contents;
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(!h[d] && !h[t1]);
    }

    #[test]
    fn visibility_hidden_can_be_overridden_by_descendants() {
        let mut b = TreeBuilder::new();
        let outer = b.open_el("div", &[]);
        let t_outer = b.text("hidden text");
        let still = b.open_el("span", &[]);
        let t_still = b.text("still hidden");
        b.close();
        let shown = b.open_el("span", &[]);
        let t_shown = b.text("shown");
        b.close();
        style_mut(&mut b, outer).visibility_hidden = true;
        style_mut(&mut b, still).visibility_hidden = true;
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(h[outer] && h[t_outer] && h[still] && h[t_still]);
        assert!(!h[shown] && !h[t_shown]);
    }

    #[test]
    fn aria_hidden_and_inert_hide_subtrees() {
        let mut b = TreeBuilder::new();
        let a = b.open_el("div", &[("aria-hidden", "TRUE")]);
        let a_child = b.el("button", &[("aria-hidden", "false")]);
        b.close();
        let f = b.el("div", &[("aria-hidden", "false")]);
        let i = b.open_el("div", &[("inert", "")]);
        let i_child = b.el("button", &[]);
        b.close();
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(h[a] && h[a_child] && h[i] && h[i_child]);
        assert!(!h[f]);
    }

    #[test]
    fn aria_hidden_on_body_is_ignored() {
        let mut b = TreeBuilder::new();
        let html = b.open_el("html", &[("aria-hidden", "true")]);
        let body = b.open_el("body", &[("aria-hidden", "true")]);
        let btn = b.el("button", &[]);
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(!h[html] && !h[body] && !h[btn]);
    }

    #[test]
    fn content_visibility_hidden_shows_element_hides_content() {
        let mut b = TreeBuilder::new();
        let cv = b.open_el("div", &[]);
        let c = b.el("span", &[]);
        let tx = b.text("x");
        b.close();
        let uf = b.open_el("div", &[("hidden", "until-found")]);
        let uf_c = b.el("span", &[]);
        style_mut(&mut b, cv).content_visibility_hidden = true;
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(!h[cv] && h[c] && h[tx]);
        assert!(!h[uf] && h[uf_c]);
    }

    #[test]
    fn closed_details_shows_only_first_summary() {
        let mut b = TreeBuilder::new();
        let d = b.open_el("details", &[]);
        let before = b.text(" ");
        let s1 = b.open_el("summary", &[]);
        let s1t = b.text("More");
        b.close();
        let s2 = b.el("summary", &[]);
        let body = b.open_el("p", &[]);
        let bt = b.text("content");
        b.close();
        b.close();
        let open = b.open_el("details", &[("open", "")]);
        b.el("summary", &[]);
        let open_body = b.el("p", &[]);
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(!h[d] && !h[s1] && !h[s1t]);
        assert!(h[before] && h[s2] && h[body] && h[bt]);
        assert!(!h[open] && !h[open_body]);
    }

    #[test]
    fn non_rendered_elements_are_hidden() {
        let mut b = TreeBuilder::new();
        let head = b.open_el("head", &[]);
        let title = b.open_el("title", &[]);
        let tt = b.text("Page");
        b.close();
        b.close();
        let body = b.open_el("body", &[]);
        let script = b.open_el("script", &[]);
        let st = b.text("var x");
        b.close();
        let style = b.el("style", &[]);
        let tpl = b.open_el("template", &[]);
        let tpl_c = b.el("div", &[]);
        b.close();
        let ns = b.el("noscript", &[]);
        let svg = b.open_el("svg", &[]);
        let svg_title = b.el("title", &[]);
        let desc = b.el("desc", &[]);
        let defs = b.el("defs", &[]);
        let g = b.el("g", &[]);
        let t = b.finish();
        let h = compute_hidden(&t);
        for id in [
            head, title, tt, script, st, style, tpl, tpl_c, ns, svg_title, desc, defs,
        ] {
            assert!(h[id], "node {id} should be hidden");
        }
        assert!(!h[body] && !h[svg] && !h[g]);
    }

    #[test]
    fn area_in_map_survives_ua_display_none() {
        let mut b = TreeBuilder::new();
        b.open_el("map", &[]);
        let area = b.el("area", &[("href", "/x")]);
        b.close();
        let stray = b.el("area", &[]);
        style_mut(&mut b, area).display = Display::None;
        style_mut(&mut b, stray).display = Display::None;
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(!h[area] && h[stray]);
    }

    #[test]
    fn zero_size_is_not_hidden() {
        let mut b = TreeBuilder::new();
        let d = b.el("div", &[]);
        b.data(d).rect = crate::protocol::Rect::new(0.0, 0.0, 0.0, 0.0);
        let t = b.finish();
        assert!(!compute_hidden(&t)[d]);
    }

    #[test]
    fn shadow_content_follows_host() {
        let mut b = TreeBuilder::new();
        let host = b.open_el("x-card", &[("aria-hidden", "true")]);
        let sr = b.open_shadow();
        let tx = b.text("inside");
        let el = b.el("button", &[]);
        b.close();
        b.close();
        let host2 = b.open_el("x-card", &[]);
        let sr2 = b.open_shadow();
        let tx2 = b.text("inside");
        b.close();
        b.close();
        let host3 = b.open_el("x-card", &[]);
        let sr3 = b.open_shadow();
        let tx3 = b.text("inside");
        let shown = b.el("span", &[]);
        style_mut(&mut b, host3).visibility_hidden = true;
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(h[host] && h[sr] && h[tx] && h[el]);
        assert!(!h[host2] && !h[sr2] && !h[tx2]);
        assert!(h[host3] && h[sr3] && h[tx3] && !h[shown]);
    }

    #[test]
    fn deep_tree_does_not_overflow() {
        let mut b = TreeBuilder::new();
        let top = b.open_el("div", &[("aria-hidden", "true")]);
        let mut last = top;
        for _ in 0..6000 {
            last = b.open_el("div", &[]);
        }
        let tx = b.text("deep");
        let t = b.finish();
        let h = compute_hidden(&t);
        assert!(h[top] && h[last] && h[tx]);
    }
}
