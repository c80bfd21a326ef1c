//! Robust engine selectors for ref'd elements.
//!
//! Syntax: plain CSS per tree scope, with ` >>> ` stepping into a shadow root
//! (`#app >>> form > button:nth-of-type(2)`). Any plain CSS selector is also a
//! valid engine selector. Preference: a unique `id`, then a unique test id,
//! then a unique `tag[name=…]`, else a `:nth-of-type` chain anchored at the
//! nearest ancestor with a unique id (or the scope root).
use crate::dom::{DomTree, NodeId, NodeKind, ScopeId};
use std::cell::RefCell;

pub const SHADOW_SEPARATOR: &str = " >>> ";
const TEST_ID_ATTRS: &[&str] = &["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];

/// Counts of candidate anchor keys per scope, to know which ones are unique.
pub struct SelectorIndex<'t> {
    /// Sorted keys; a key is unique when it occurs once (a sorted Vec costs
    /// less wasm than another HashMap instantiation).
    keys: Vec<(ScopeId, &'static str, &'t str, &'t str)>,
    /// Each element's own step, once computed: refs share most of their
    /// ancestors, so each ancestor's anchor check and segment are built once.
    steps: RefCell<Vec<Option<Step>>>,
}

/// One element's part of a selector: a unique anchor, or a positional segment.
#[derive(Clone)]
struct Step {
    text: String,
    anchored: bool,
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
                    keys.push((n.scope, key, tag, v.as_str()));
                }
            }
        }
        keys.sort_unstable();
        SelectorIndex {
            keys,
            steps: RefCell::new(vec![None; tree.len()]),
        }
    }

    fn unique(&self, scope: ScopeId, key: &'static str, tag: &str, value: &str) -> bool {
        let k = (scope, key, tag, value);
        let start = self.keys.partition_point(|x| *x < k);
        self.keys.get(start) == Some(&k) && self.keys.get(start + 1) != Some(&k)
    }
}

/// Escapes a string for use as a CSS identifier (CSSOM `CSS.escape`).
pub fn css_escape_ident(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
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
    out
}

/// Quotes an attribute value for a CSS attribute selector.
pub fn css_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
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
    out
}

/// The segment that identifies `id` on its own within its scope, if any.
fn unique_anchor(tree: &DomTree, index: &SelectorIndex, id: NodeId) -> Option<String> {
    let n = tree.node(id);
    let e = n.element()?;
    if let Some(v) = e.attr("id").filter(|v| !v.is_empty()) {
        if index.unique(n.scope, "id", "", v) {
            return Some(format!("#{}", css_escape_ident(v)));
        }
    }
    for attr in TEST_ID_ATTRS {
        if let Some(v) = e.attr(attr) {
            if index.unique(n.scope, attr, "", v) {
                return Some(format!("[{attr}={}]", css_quote(v)));
            }
        }
    }
    if let Some(v) = e.attr("name").filter(|v| !v.is_empty()) {
        if index.unique(n.scope, "name", &e.tag, v) {
            return Some(format!("{}[name={}]", css_escape_ident(&e.tag), css_quote(v)));
        }
    }
    None
}

/// The step of element `id` (cached in the index).
fn step(tree: &DomTree, index: &SelectorIndex, id: NodeId) -> Option<Step> {
    if let Some(s) = index.steps.borrow().get(id).cloned().flatten() {
        return Some(s);
    }
    let e = tree.element(id)?;
    let step = match unique_anchor(tree, index, id) {
        Some(text) => Step { text, anchored: true },
        None => {
            let tag = css_escape_ident(&e.tag);
            let text = match e.tag.as_str() {
                "html" | "body" | "head" => tag,
                _ if e.nth_of_type > 0 => format!("{tag}:nth-of-type({})", e.nth_of_type),
                _ => tag,
            };
            Step { text, anchored: false }
        }
    };
    if let Some(slot) = index.steps.borrow_mut().get_mut(id) {
        *slot = Some(step.clone());
    }
    Some(step)
}

fn light_parent(tree: &DomTree, id: NodeId) -> Option<NodeId> {
    tree.element(id)
        .and_then(|e| e.light_parent)
        .or_else(|| tree.parent(id))
}

/// Builds the engine selector of element `id`.
pub fn selector_for(tree: &DomTree, index: &SelectorIndex, id: NodeId) -> String {
    let mut scopes: Vec<String> = Vec::new();
    let mut segments: Vec<String> = Vec::new();
    let mut cur = id;
    loop {
        let Some(step) = step(tree, index, cur) else { break };
        if step.anchored {
            segments.push(step.text);
            // Skip to the enclosing shadow root, if any.
            let mut p = light_parent(tree, cur);
            while let Some(pid) = p {
                if matches!(tree.node(pid).kind, NodeKind::ShadowRoot | NodeKind::Document) {
                    break;
                }
                p = light_parent(tree, pid);
            }
            match p.map(|pid| (pid, &tree.node(pid).kind)) {
                Some((pid, NodeKind::ShadowRoot)) => {
                    scopes.push(finish_scope(&mut segments));
                    match tree.parent(pid) {
                        Some(host) => {
                            cur = host;
                            continue;
                        }
                        None => break,
                    }
                }
                _ => break,
            }
        }
        segments.push(step.text);
        match light_parent(tree, cur) {
            Some(p) => match &tree.node(p).kind {
                NodeKind::Element(_) => cur = p,
                NodeKind::ShadowRoot => {
                    scopes.push(finish_scope(&mut segments));
                    match tree.parent(p) {
                        Some(host) => cur = host,
                        None => break,
                    }
                }
                _ => break,
            },
            None => break,
        }
    }
    if !segments.is_empty() {
        scopes.push(finish_scope(&mut segments));
    }
    scopes.reverse();
    scopes.join(SHADOW_SEPARATOR)
}

fn finish_scope(segments: &mut Vec<String>) -> String {
    // `html > body > main…` is implied from the scope root; drop the html step.
    let mut parts: Vec<String> = segments.drain(..).rev().collect();
    if parts.first().map(|p| p == "html").unwrap_or(false) && parts.len() > 1 {
        parts.remove(0);
    }
    parts.join(" > ")
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
        assert_eq!(css_quote("say \"hi\""), "\"say \\\"hi\\\"\"");
    }
}
