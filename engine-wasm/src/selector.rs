//! Robust engine selectors for ref'd elements.
//!
//! Syntax: plain CSS per tree scope, with ` >>> ` stepping into a shadow root
//! (`#app >>> form > button:nth-of-type(2)`). Any plain CSS selector is also a
//! valid engine selector. Preference: a unique `id`, then a unique test id,
//! then a unique `tag[name=…]`, else a `:nth-of-type` chain anchored at the
//! nearest ancestor with a unique id (or the scope root).
use crate::dom::{key_hash, DomTree, NodeId, NodeKind, ScopeId};
use std::cell::RefCell;

pub const SHADOW_SEPARATOR: &str = " >>> ";
const TEST_ID_ATTRS: &[&str] = &["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];

/// Which anchor keys are unique per scope, and each element's selector once
/// built.
pub struct SelectorIndex<'t> {
    tree: &'t DomTree,
    /// Sorted hashes of the anchor keys (scope, attribute, tag, value); a key
    /// is unique when its hash occurs once. Hashes sort and compare far
    /// faster than string tuples. Two keys that collide only make each other
    /// look shared, so the element falls back to a positional step: the
    /// selector stays correct.
    keys: Vec<u64>,
    /// Each element's full selector, once built: refs share most of their
    /// ancestors, so each ancestor's anchor check and path are built once.
    built: RefCell<Vec<Option<Built>>>,
}

#[derive(Clone)]
struct Built {
    selector: String,
    /// The element's own step is the bare `html` of a document: its
    /// children's paths start at themselves (`html > body` is implied).
    implied: bool,
}

impl<'t> SelectorIndex<'t> {
    pub fn new(tree: &'t DomTree) -> Self {
        let mut keys = Vec::new();
        for n in &tree.nodes {
            let Some(e) = n.element() else { continue };
            for (k, v) in &e.attrs {
                let key: Option<&'static str> = match k.as_str() {
                    "id" => Some("id"),
                    "name" => Some("name"),
                    k if TEST_ID_ATTRS.contains(&k) => TEST_ID_ATTRS.iter().copied().find(|t| *t == k),
                    _ => None,
                };
                if let Some(key) = key {
                    let tag = if key == "name" { e.tag.as_str() } else { "" };
                    keys.push(key_hash(n.scope, &[key, tag, v]));
                }
            }
        }
        keys.sort_unstable();
        SelectorIndex {
            tree,
            keys,
            built: RefCell::new(vec![None; tree.len()]),
        }
    }

    fn unique(&self, scope: ScopeId, key: &'static str, tag: &str, value: &str) -> bool {
        let k = key_hash(scope, &[key, tag, value]);
        let start = self.keys.partition_point(|x| *x < k);
        self.keys.get(start) == Some(&k) && self.keys.get(start + 1) != Some(&k)
    }
}

/// Escapes a string for use as a CSS identifier (CSSOM `CSS.escape`).
pub fn css_escape_ident(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    push_css_ident(&mut out, s);
    out
}

/// Appends `s` escaped as a CSS identifier (CSSOM `CSS.escape`).
fn push_css_ident(out: &mut String, s: &str) {
    // Most ids and tag names need no escaping: copied whole.
    let plain = |b: &u8| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_';
    let bytes = s.as_bytes();
    let leading_digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    if bytes.iter().all(plain)
        && !leading_digit(0)
        && !(bytes.first() == Some(&b'-') && (leading_digit(1) || bytes.len() == 1))
    {
        out.push_str(s);
        return;
    }
    for (i, c) in s.chars().enumerate() {
        let needs_hex = c == '\0'
            || ('\u{1}'..='\u{1f}').contains(&c)
            || c == '\u{7f}'
            || (i == 0 && c.is_ascii_digit())
            || (i == 1 && c.is_ascii_digit() && s.starts_with('-'));
        if needs_hex {
            out.push_str(&format!("\\{:x} ", c as u32));
        } else if i == 0 && c == '-' && s.len() == 1 {
            out.push_str("\\-");
        } else if c.is_ascii_alphanumeric() || c == '-' || c == '_' || !c.is_ascii() {
            out.push(c);
        } else {
            out.push('\\');
            out.push(c);
        }
    }
}

/// Quotes an attribute value for a CSS attribute selector.
pub fn css_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_css_quoted(&mut out, s);
    out
}

fn push_css_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\a "),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The segment that identifies `id` on its own within its scope, if any.
fn unique_anchor(tree: &DomTree, index: &SelectorIndex, id: NodeId) -> Option<String> {
    let n = tree.node(id);
    let e = n.element()?;
    if let Some(v) = e.attr("id").filter(|v| !v.is_empty()) {
        if index.unique(n.scope, "id", "", v) {
            let mut out = String::with_capacity(v.len() + 1);
            out.push('#');
            push_css_ident(&mut out, v);
            return Some(out);
        }
    }
    for attr in TEST_ID_ATTRS {
        if let Some(v) = e.attr(attr) {
            if index.unique(n.scope, attr, "", v) {
                let mut out = String::with_capacity(attr.len() + v.len() + 5);
                out.push('[');
                out.push_str(attr);
                out.push('=');
                push_css_quoted(&mut out, v);
                out.push(']');
                return Some(out);
            }
        }
    }
    if let Some(v) = e.attr("name").filter(|v| !v.is_empty()) {
        if index.unique(n.scope, "name", &e.tag, v) {
            let mut out = String::with_capacity(e.tag.len() + v.len() + 10);
            push_css_ident(&mut out, &e.tag);
            out.push_str("[name=");
            push_css_quoted(&mut out, v);
            out.push(']');
            return Some(out);
        }
    }
    None
}

/// The step of element `id` on its own: a unique anchor (`true`), or its
/// tag with its position among same-tag siblings.
fn step(tree: &DomTree, index: &SelectorIndex, id: NodeId) -> Option<(String, bool)> {
    let e = tree.element(id)?;
    if let Some(text) = unique_anchor(tree, index, id) {
        return Some((text, true));
    }
    let tag = css_escape_ident(&e.tag);
    let text = match e.tag.as_str() {
        "html" | "body" | "head" => tag,
        _ if e.nth_of_type > 0 => format!("{tag}:nth-of-type({})", e.nth_of_type),
        _ => tag,
    };
    Some((text, false))
}

fn light_parent(tree: &DomTree, id: NodeId) -> Option<NodeId> {
    tree.element(id)
        .and_then(|e| e.light_parent)
        .or_else(|| tree.parent(id))
}

/// What a selector continues from.
enum Prefix {
    /// Nothing: the step starts the selector.
    None,
    /// Another element of the same scope (` > `).
    Child(NodeId),
    /// The host of the shadow root the step starts (` >>> `).
    Host(NodeId),
}

/// What element `id`'s selector continues from. An anchor is unique in its
/// scope, so it continues from the scope's host only; a positional step
/// continues from its parent (or, at the top of a shadow root, its host).
fn prefix_of(tree: &DomTree, id: NodeId, anchored: bool) -> Prefix {
    let mut p = light_parent(tree, id);
    if anchored {
        while let Some(pid) = p {
            if matches!(tree.node(pid).kind, NodeKind::ShadowRoot | NodeKind::Document) {
                break;
            }
            p = light_parent(tree, pid);
        }
    }
    match p.map(|pid| (pid, &tree.node(pid).kind)) {
        Some((pid, NodeKind::Element(_))) => Prefix::Child(pid),
        Some((pid, NodeKind::ShadowRoot)) => tree.parent(pid).map_or(Prefix::None, Prefix::Host),
        _ => Prefix::None,
    }
}

/// Builds the engine selector of element `id` (memoised in the index, with
/// every ancestor's on the way).
pub fn selector_for(tree: &DomTree, index: &SelectorIndex, id: NodeId) -> String {
    debug_assert!(std::ptr::eq(tree, index.tree));
    // Walk up to the first element already built (or the top), then build
    // downwards, so each element's selector is made once from its prefix's.
    let mut pending: Vec<(NodeId, String, bool, Prefix)> = Vec::new();
    let mut cur = Some(id);
    while let Some(c) = cur {
        if index.built.borrow().get(c).is_none_or(|b| b.is_some()) {
            break;
        }
        let Some((text, anchored)) = step(tree, index, c) else {
            break;
        };
        let prefix = prefix_of(tree, c, anchored);
        cur = match prefix {
            Prefix::None => None,
            Prefix::Child(p) | Prefix::Host(p) => Some(p),
        };
        pending.push((c, text, anchored, prefix));
    }
    let mut built = index.built.borrow_mut();
    for (c, text, anchored, prefix) in pending.into_iter().rev() {
        let implied = !anchored && text == "html" && matches!(prefix, Prefix::None);
        let joined = |base: &str, separator: &str| {
            let mut out = String::with_capacity(base.len() + separator.len() + text.len());
            out.push_str(base);
            out.push_str(separator);
            out.push_str(&text);
            out
        };
        let selector = match prefix {
            Prefix::Child(p) => match &built[p] {
                Some(b) if !b.implied => Some(joined(&b.selector, " > ")),
                _ => None,
            },
            Prefix::Host(h) => built[h].as_ref().map(|b| joined(&b.selector, SHADOW_SEPARATOR)),
            Prefix::None => None,
        };
        let selector = selector.unwrap_or(text);
        built[c] = Some(Built { selector, implied });
    }
    built.get(id).cloned().flatten().map(|b| b.selector).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::TreeBuilder;

    fn nth(b: &mut TreeBuilder, id: NodeId, n: u32) {
        b.data(id).nth_of_type = n;
    }

    #[test]
    fn prefers_unique_id_then_test_id_then_name_then_path() {
        let mut b = TreeBuilder::new();
        let html = b.open_el("html", &[]);
        nth(&mut b, html, 1);
        let body = b.open_el("body", &[]);
        nth(&mut b, body, 1);
        let main = b.open_el("main", &[("id", "content")]);
        nth(&mut b, main, 1);
        let b1 = b.el("button", &[]);
        nth(&mut b, b1, 1);
        let b2 = b.el("button", &[("data-testid", "buy")]);
        nth(&mut b, b2, 2);
        let inp = b.el("input", &[("name", "q")]);
        nth(&mut b, inp, 1);
        let dup1 = b.el("span", &[("id", "dup")]);
        nth(&mut b, dup1, 1);
        let dup2 = b.el("span", &[("id", "dup")]);
        nth(&mut b, dup2, 2);
        b.close();
        b.close();
        b.close();
        let t = b.finish();
        let ix = SelectorIndex::new(&t);
        assert_eq!(selector_for(&t, &ix, main), "#content");
        assert_eq!(selector_for(&t, &ix, b1), "#content > button:nth-of-type(1)");
        assert_eq!(selector_for(&t, &ix, b2), "[data-testid=\"buy\"]");
        assert_eq!(selector_for(&t, &ix, inp), "input[name=\"q\"]");
        assert_eq!(selector_for(&t, &ix, dup2), "#content > span:nth-of-type(2)");
        assert_eq!(selector_for(&t, &ix, body), "body");
    }

    #[test]
    fn crosses_shadow_roots() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        let host = b.open_el("x-app", &[("id", "app")]);
        nth(&mut b, host, 1);
        b.open_shadow();
        let form = b.open_el("form", &[]);
        nth(&mut b, form, 1);
        let btn = b.el("button", &[]);
        nth(&mut b, btn, 1);
        let t = b.finish();
        let ix = SelectorIndex::new(&t);
        assert_eq!(
            selector_for(&t, &ix, btn),
            "#app >>> form:nth-of-type(1) > button:nth-of-type(1)"
        );
    }

    #[test]
    fn escaping() {
        assert_eq!(css_escape_ident("a.b"), "a\\.b");
        assert_eq!(css_escape_ident("1x"), "\\31 x");
        // The plain-identifier fast path and CSS.escape's edge cases.
        assert_eq!(css_escape_ident("nav-main_2"), "nav-main_2");
        assert_eq!(css_escape_ident("-"), "\\-");
        assert_eq!(css_escape_ident("-1a"), "-\\31 a");
        assert_eq!(css_escape_ident("-a"), "-a");
        assert_eq!(css_escape_ident("--x"), "--x");
        assert_eq!(css_escape_ident("café"), "café");
        assert_eq!(css_escape_ident(""), "");
        assert_eq!(css_quote("say \"hi\""), "\"say \\\"hi\\\"\"");
    }
}
