//! Test-only: builds a `DomTree` from a small HTML subset, so accname test
//! cases can be ported close to their source markup.
//!
//! Models what the DOM adapter would record: default display per tag,
//! `style="display:…; visibility:…; content-visibility:…"` (visibility is
//! inherited, so each element gets its computed value), the `hidden`
//! attribute as `display:none`, unstyled (`style: None`) elements inside
//! `display:none` subtrees. Pseudo-element text comes from the test-only
//! attributes `data-before` / `data-after`. `<template shadowrootmode>`
//! opens a shadow root (write slots with their assigned nodes as children,
//! as in the flat tree). Comments are dropped. Iterative, like the rest.
use crate::dom::{Display, DomTree, NodeId, NodeKind, Style, TreeBuilder};

const VOID: &[&str] = &[
    "input", "img", "br", "hr", "meta", "link", "area", "source", "col", "wbr", "base", "param", "track",
];
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "label", "mark", "q", "s", "samp",
    "small", "span", "strong", "sub", "sup", "time", "u", "var", "img", "svg", "br", "del", "ins", "circle", "title",
    "output", "math",
];
const INLINE_BLOCK: &[&str] = &["input", "select", "textarea", "button", "meter", "progress", "iframe"];
const OTHER: &[&str] = &["table", "tr", "td", "th", "tbody", "thead", "tfoot", "caption", "li"];
const NONE: &[&str] = &["head", "script", "style", "template", "title", "datalist", "area"];

fn decode(s: &str) -> String {
    s.replace("&nbsp;", "\u{a0}")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn parse_attrs(src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == '/') {
            i += 1;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '=' && chars[i] != '/' {
            i += 1;
        }
        if start == i {
            break;
        }
        let name: String = chars[start..i].iter().collect::<String>().to_ascii_lowercase();
        let mut value = String::new();
        let mut j = i;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        if j < chars.len() && chars[j] == '=' {
            i = j + 1;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            if i < chars.len() && (chars[i] == '"' || chars[i] == '\'') {
                let q = chars[i];
                i += 1;
                let vs = i;
                while i < chars.len() && chars[i] != q {
                    i += 1;
                }
                value = chars[vs..i].iter().collect();
                i += 1;
            } else {
                let vs = i;
                while i < chars.len() && !chars[i].is_whitespace() {
                    i += 1;
                }
                value = chars[vs..i].iter().collect();
            }
        }
        out.push((name, decode(&value)));
    }
    out
}

/// Index of the `>` closing the tag that starts `src`, skipping quoted values.
fn tag_end(src: &str) -> usize {
    let mut quote: Option<char> = None;
    for (i, c) in src.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '>' => return i,
            None => {}
        }
    }
    panic!("unterminated tag: {src}")
}

fn css(style: &str, prop: &str) -> Option<String> {
    style.split(';').find_map(|decl| {
        let (k, v) = decl.split_once(':')?;
        (k.trim().eq_ignore_ascii_case(prop)).then(|| v.trim().to_ascii_lowercase())
    })
}

fn default_display(tag: &str) -> Display {
    if NONE.contains(&tag) {
        Display::None
    } else if tag == "slot" {
        Display::Contents
    } else if INLINE.contains(&tag) {
        Display::Inline
    } else if INLINE_BLOCK.contains(&tag) {
        Display::InlineBlock
    } else if OTHER.contains(&tag) {
        Display::Other
    } else {
        Display::Block
    }
}

/// Parses `html` into a tree.
pub fn parse(html: &str) -> DomTree {
    let mut b = TreeBuilder::new();
    // Open elements: (tag, style of the element, is a shadow root marker).
    let mut open: Vec<(String, Option<Style>, bool)> = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("<!--") {
            let end = after.find("-->").map(|e| e + 3).unwrap_or(after.len());
            rest = &after[end..];
            continue;
        }
        if let Some(after) = rest.strip_prefix("</") {
            let end = after.find('>').unwrap();
            let tag = after[..end].trim().to_ascii_lowercase();
            rest = &after[end + 1..];
            if let Some(pos) = open.iter().rposition(|(t, _, _)| *t == tag) {
                while open.len() > pos {
                    open.pop();
                    b.close();
                }
            }
            continue;
        }
        if rest.starts_with('<') {
            let end = tag_end(rest);
            let inner = &rest[1..end];
            rest = &rest[end + 1..];
            let self_closing = inner.ends_with('/');
            let inner = inner.trim_end_matches('/');
            let (tag, attr_src) = match inner.find(char::is_whitespace) {
                Some(p) => (&inner[..p], &inner[p..]),
                None => (inner, ""),
            };
            let tag = tag.to_ascii_lowercase();
            let attrs = parse_attrs(attr_src);
            let get = |n: &str| attrs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
            if tag == "template" && get("shadowrootmode").is_some() {
                b.open_shadow();
                let parent_style = open.last().and_then(|(_, s, _)| s.clone());
                open.push((tag, parent_style, true));
                continue;
            }
            let parent_style = open
                .last()
                .map(|(_, s, _)| s.clone())
                .unwrap_or_else(|| Some(Style::default()));
            let style = parent_style.map(|ps| {
                let decl = get("style").unwrap_or_default();
                let mut st = Style {
                    display: default_display(&tag),
                    visibility_hidden: ps.visibility_hidden,
                    ..Default::default()
                };
                if let Some(h) = get("hidden") {
                    if h.eq_ignore_ascii_case("until-found") {
                        st.content_visibility_hidden = true;
                    } else {
                        st.display = Display::None;
                    }
                }
                match css(&decl, "display").as_deref() {
                    Some("none") => st.display = Display::None,
                    Some("inline") => st.display = Display::Inline,
                    Some("block") => st.display = Display::Block,
                    Some("inline-block") => st.display = Display::InlineBlock,
                    Some("contents") => st.display = Display::Contents,
                    Some(_) => st.display = Display::Other,
                    None => {}
                }
                match css(&decl, "visibility").as_deref() {
                    Some("hidden") | Some("collapse") => st.visibility_hidden = true,
                    Some("visible") => st.visibility_hidden = false,
                    _ => {}
                }
                if css(&decl, "content-visibility").as_deref() == Some("hidden") {
                    st.content_visibility_hidden = true;
                }
                st.before_content = get("data-before");
                st.after_content = get("data-after");
                st
            });
            let id = b.el(&tag, &[]);
            {
                let d = b.data(id);
                d.attrs = attrs;
                d.style = style.clone();
            }
            // Children of display:none elements are not styled.
            let child_style = style.filter(|s| s.display != Display::None);
            if !VOID.contains(&tag.as_str()) && !self_closing {
                b.open(id);
                open.push((tag, child_style, false));
            }
            continue;
        }
        let end = rest.find('<').unwrap_or(rest.len());
        let text = decode(&rest[..end]);
        rest = &rest[end..];
        b.text(&text);
    }
    b.finish()
}

/// The element with `id` (searching every scope, first in tree order).
pub fn by_id(t: &DomTree, id: &str) -> NodeId {
    t.nodes
        .iter()
        .position(|n| matches!(&n.kind, NodeKind::Element(e) if e.attr("id") == Some(id)))
        .unwrap_or_else(|| panic!("no element with id {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_structure_styles_and_shadow_roots() {
        let t = parse(
            r#"<div id=a style="visibility:hidden"><span id=b>x&nbsp;y</span><!-- c --><input id=c value="v" data-x="a>b" type ="text">
               <p id=d style="visibility: visible" hidden><i id=e>z</i></p></div>
               <x-host id=h><template shadowrootmode="open"><b id=s>in</b></template></x-host>"#,
        );
        let a = by_id(&t, "a");
        let b = by_id(&t, "b");
        let c = by_id(&t, "c");
        let e = by_id(&t, "e");
        let s = by_id(&t, "s");
        assert!(t.element(b).unwrap().style.as_ref().unwrap().visibility_hidden);
        assert_eq!(t.element(b).unwrap().style.as_ref().unwrap().display, Display::Inline);
        assert_eq!(t.node(t.children(b)[0]).text(), Some("x\u{a0}y"));
        assert_eq!(t.parent(c), Some(a));
        assert_eq!(t.attr(c, "data-x"), Some("a>b"));
        assert_eq!(t.attr(c, "type"), Some("text"));
        assert_eq!(t.element(e).unwrap().style, None);
        assert_eq!(t.node(t.parent(s).unwrap()).kind, NodeKind::ShadowRoot);
        assert_ne!(t.node(s).scope, 0);
    }
}
