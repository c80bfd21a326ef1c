//! Accessible name and description computation per accname 1.2 (with the
//! HTML-AAM host-language rules).
//!
//! Steps, for the node being named (the root), a node referenced by
//! `aria-labelledby`/`aria-describedby`/`<label>`, or a descendant met while
//! collecting name from content:
//! - 2A: hidden nodes contribute nothing, unless the node that was directly
//!   referenced (by aria-labelledby, aria-describedby or a label) is itself
//!   hidden: then its whole subtree counts, hidden parts included. A
//!   `visibility:hidden` element's children are still visited, since they
//!   can be visible again.
//! - 2B: `aria-labelledby` (not inside another labelledby/describedby
//!   traversal). Ids resolve in the referring node's scope; each target is
//!   computed, trimmed and the non-empty results joined by one space. An
//!   empty result falls through to the next steps.
//! - 2C: a control met while naming something else (not the root itself):
//!   textbox/searchbox → its value (never a password), combobox → the chosen
//!   option or its value, listbox → selected options, range widgets →
//!   `aria-valuetext`, `aria-valuenow`, then the native value; `menu` → "".
//! - 2D: `aria-label` when not blank (ASCII whitespace only: U+00A0 and the
//!   braille blank are content). Ignored on `<slot>`, which has no box.
//! - 2E: host language, skipped for presentational (`none`) elements:
//!   `<label for>` and the wrapping `<label>` (document order, joined) for
//!   labelable elements; `input` button types: value, else "Submit"/"Reset";
//!   `input[type=image]`: alt, value; `img`/`area`: alt; `fieldset`: first
//!   `legend` child; `figure`: first `figcaption` child; `table`: first
//!   `caption` child; `optgroup`/`option`: `label`; SVG: first `<title>` child.
//! - 2F: name from content, for the root when its role allows it (button,
//!   cell, checkbox, columnheader, gridcell, heading, link, menuitem*,
//!   option, radio, row, rowheader, switch, tab, tooltip, treeitem, DPUB
//!   reference roles), always for referenced nodes, and for descendants
//!   unless their role is a container whose content is not a label (menu,
//!   menubar, tablist, tree, treegrid, grid, toolbar, radiogroup, img,
//!   iframe, dialog, alertdialog, application). `::before`/`::after` text is
//!   added around the content. Block-level children (display block,
//!   inline-block, table parts, flex/grid…; tag defaults when style is
//!   unknown) and `<br>` are surrounded by spaces, inline ones are glued.
//! - 2G: text nodes give their text.
//! - 2I: when the result is still empty: `title` (not for presentational
//!   elements), then `placeholder` (text fields), `aria-placeholder`, and
//!   "Submit" for image buttons.
//!
//! Every node is visited at most once per computation (the root is visited
//! from the start, so a control inside its own label does not name itself),
//! except that explicit references are always followed.
//!
//! The result has runs of ASCII whitespace collapsed to one space and is
//! trimmed (ASCII whitespace and U+00A0 at the ends; inner U+00A0 kept).
//!
//! The descendant walk uses an explicit stack; the only native recursion is
//! through references (labelledby, label, legend…), bounded by
//! `MAX_REF_DEPTH`, so trees of any depth are safe.
use super::roles::{first_child_with_tag, input_type, svg_title_child};
use super::{Role, Semantics};
use crate::dom::{Display, ElementData, NodeId, NodeKind};
use std::collections::HashSet;

/// How many references (labelledby → label → legend…) may nest. accname
/// itself stops labelledby after one hop; this also bounds label chains.
const MAX_REF_DEPTH: u8 = 4;

/// Roles whose name comes from their content when they are the node named.
const NAME_FROM_CONTENT: &[&str] = &[
    "button",
    "cell",
    "checkbox",
    "columnheader",
    "comment",
    "gridcell",
    "heading",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "row",
    "rowheader",
    "switch",
    "tab",
    "tooltip",
    "treeitem",
    "doc-backlink",
    "doc-biblioref",
    "doc-glossref",
    "doc-noteref",
];

/// Containers whose content is not part of an enclosing name.
const NEVER_FROM_CONTENT: &[&str] = &[
    "menu",
    "menubar",
    "tablist",
    "tree",
    "treegrid",
    "grid",
    "toolbar",
    "radiogroup",
    "img",
    "iframe",
    "dialog",
    "alertdialog",
    "application",
];

/// Elements that render as blocks by default, used when style is unknown.
const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "legend",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
    "button",
    "input",
    "select",
    "textarea",
];

const LABELABLE: &[&str] = &["button", "input", "meter", "output", "progress", "select", "textarea"];

/// Accessible name of `id`, whitespace-normalised.
pub fn accessible_name(s: &Semantics, id: NodeId) -> String {
    name_and_source(s, id).0
}

/// The name, and whether it came from the `title` attribute (which then is
/// not repeated as the description).
pub fn name_and_source(s: &Semantics, id: NodeId) -> (String, bool) {
    let mut c = Computer::new(s, id);
    let (name, from_title) = c.compute(id, Mode::TOP, Kind::Root);
    (normalize(&name), from_title)
}

/// Accessible description: `aria-describedby` targets (joined by a space),
/// else `aria-description`, else `title` when the title did not give the name.
pub fn accessible_description(s: &Semantics, id: NodeId) -> String {
    let Some(e) = s.tree.element(id) else {
        return String::new();
    };
    if let Some(ids) = e.attr("aria-describedby") {
        let mut c = Computer::new(s, id);
        let d = c.resolve_refs(id, ids, Mode::TOP);
        if !d.is_empty() {
            return d;
        }
    }
    if let Some(d) = e.attr("aria-description") {
        let d = normalize(d);
        if !d.is_empty() {
            return d;
        }
    }
    if let Some(t) = e.attr("title") {
        let t = normalize(t);
        if !t.is_empty() && !name_and_source(s, id).1 {
            return t;
        }
    }
    String::new()
}

/// Collapses runs of ASCII whitespace to one space and trims the ends.
pub fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for ch in s.chars() {
        if ch.is_ascii_whitespace() {
            pending_space = true;
        } else {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(ch);
        }
    }
    // U+00A0 inside a name is kept (it is content), but at the ends it is
    // only padding.
    let trimmed = out.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\u{a0}');
    if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_string()
    }
}

fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_whitespace())
}

fn non_blank(v: Option<&str>) -> Option<&str> {
    v.filter(|v| !is_blank(v))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// The node whose name is asked for.
    Root,
    /// Directly referenced by aria-labelledby/-describedby, a label, legend…
    Referenced,
    /// Met while collecting name from content.
    Descendant,
}

#[derive(Clone, Copy, Debug)]
struct Mode {
    /// Inside an aria-labelledby/-describedby traversal: no second hop.
    in_ref_traversal: bool,
    /// The directly referenced node was hidden: hidden nodes count.
    include_hidden: bool,
    depth: u8,
}

impl Mode {
    const TOP: Mode = Mode {
        in_ref_traversal: false,
        include_hidden: false,
        depth: 0,
    };
}

enum Step {
    Done(String),
    /// Go on with name from content (when allowed), then the fallbacks.
    Content {
        allowed: bool,
    },
}

enum Op<'t> {
    Enter(NodeId),
    Str(&'t str),
    Space,
    /// End of an element's content, which started at byte `start` of the output.
    Exit(NodeId, usize),
}

struct Computer<'a, 't> {
    s: &'a Semantics<'t>,
    root: NodeId,
    visited: HashSet<NodeId>,
}

impl<'a, 't> Computer<'a, 't> {
    fn new(s: &'a Semantics<'t>, root: NodeId) -> Self {
        let mut visited = HashSet::new();
        visited.insert(root);
        Computer { s, root, visited }
    }

    fn role(&self, id: NodeId) -> Option<Role> {
        self.s.roles.get(id).copied().flatten()
    }

    /// Text alternative of a root or referenced node. The flag tells whether
    /// it came from `title`.
    fn compute(&mut self, id: NodeId, mode: Mode, kind: Kind) -> (String, bool) {
        let tree = self.s.tree;
        let hidden = self.s.hidden[id] && !mode.include_hidden;
        let e = match &tree.node(id).kind {
            NodeKind::Text(t) => return (if hidden { String::new() } else { t.clone() }, false),
            NodeKind::Document | NodeKind::ShadowRoot => {
                let mut out = String::new();
                self.content(id, None, mode, &mut out);
                return (out, false);
            }
            NodeKind::Element(e) => e,
        };
        if hidden {
            return (String::new(), false);
        }
        match self.steps(id, e, mode, kind) {
            Step::Done(t) => (t, false),
            Step::Content { allowed } => {
                let mut out = String::new();
                if allowed {
                    self.content(id, Some(e), mode, &mut out);
                }
                if is_blank(&out) {
                    let (f, from_title) = self.fallback(id, e);
                    if !f.is_empty() {
                        return (f, from_title);
                    }
                }
                (out, false)
            }
        }
    }

    /// Steps 2B–2E for one element, and whether 2F applies.
    fn steps(&mut self, id: NodeId, e: &'t ElementData, mode: Mode, kind: Kind) -> Step {
        let role = self.role(id);
        let is_slot = e.tag == "slot";
        if !mode.in_ref_traversal && !is_slot && mode.depth < MAX_REF_DEPTH {
            if let Some(ids) = e.attr("aria-labelledby") {
                let t = self.resolve_refs(id, ids, mode);
                if !t.is_empty() {
                    return Step::Done(t);
                }
            }
        }
        if kind != Kind::Root && id != self.root {
            if let Some(v) = self.embedded_control(id, e, role, mode) {
                return Step::Done(v);
            }
        }
        if !is_slot {
            if let Some(l) = non_blank(e.attr("aria-label")) {
                return Step::Done(l.to_string());
            }
        }
        if role != Some("none") {
            if let Some(t) = self.host_language(id, e, mode) {
                return Step::Done(t);
            }
        }
        let allowed = match kind {
            Kind::Root => role.map(|r| NAME_FROM_CONTENT.contains(&r)).unwrap_or(false),
            Kind::Referenced => true,
            Kind::Descendant => !role.map(|r| NEVER_FROM_CONTENT.contains(&r)).unwrap_or(false),
        };
        Step::Content { allowed }
    }

    /// Computes each referenced element (in a reference traversal) and joins
    /// the non-empty results with one space.
    fn resolve_refs(&mut self, id: NodeId, ids: &str, mode: Mode) -> String {
        let scope = self.s.tree.node(id).scope;
        let mut parts: Vec<String> = Vec::new();
        for tok in ids.split_ascii_whitespace() {
            let Some(&target) = self.s.ids.get(&(scope, tok)) else {
                continue;
            };
            self.visited.insert(target);
            let sub = Mode {
                in_ref_traversal: true,
                include_hidden: self.s.hidden[target],
                depth: mode.depth + 1,
            };
            let (t, _) = self.compute(target, sub, Kind::Referenced);
            let t = normalize(&t);
            if !t.is_empty() {
                parts.push(t);
            }
        }
        parts.join(" ")
    }

    /// Computes a host-language labelling element (label, legend, caption…).
    fn referenced_element(&mut self, target: NodeId, mode: Mode) -> String {
        self.visited.insert(target);
        let sub = Mode {
            in_ref_traversal: mode.in_ref_traversal,
            include_hidden: mode.include_hidden || self.s.hidden[target],
            depth: mode.depth + 1,
        };
        normalize(&self.compute(target, sub, Kind::Referenced).0)
    }

    /// Step 2C: the value a control contributes to someone else's name.
    fn embedded_control(&mut self, id: NodeId, e: &ElementData, role: Option<Role>, mode: Mode) -> Option<String> {
        let v = match role? {
            "textbox" | "searchbox" => self.text_field_value(id, e, mode),
            "combobox" => self.combobox_value(id, e, mode),
            "listbox" => {
                let texts: Vec<String> = self
                    .s
                    .tree
                    .descendants(id)
                    .filter(|&o| self.is_selected_option(o))
                    .map(|o| self.option_text(o, mode))
                    .filter(|t| !t.is_empty())
                    .collect();
                texts.join(" ")
            }
            "slider" | "spinbutton" | "scrollbar" | "progressbar" | "meter" => range_value(e),
            "menu" => String::new(),
            _ => return None,
        };
        Some(v)
    }

    fn text_field_value(&self, id: NodeId, e: &ElementData, mode: Mode) -> String {
        match e.tag.as_str() {
            "input" => {
                if input_type(e) == "password" {
                    return String::new();
                }
                e.form
                    .value
                    .clone()
                    .or_else(|| e.attr("value").map(str::to_string))
                    .unwrap_or_default()
            }
            "textarea" => e.form.value.clone().unwrap_or_else(|| self.plain_text(id, mode)),
            _ => self.plain_text(id, mode),
        }
    }

    fn combobox_value(&self, id: NodeId, e: &ElementData, mode: Mode) -> String {
        let tree = self.s.tree;
        match e.tag.as_str() {
            "select" => return self.select_value(id, e, mode),
            "input" | "textarea" => return self.text_field_value(id, e, mode),
            _ => {}
        }
        // An ARIA combobox: the selected option of its popup (inside it or
        // referenced through aria-controls / aria-owns), else its own text.
        let scope = tree.node(id).scope;
        let mut popups = vec![id];
        for attr in ["aria-controls", "aria-owns"] {
            if let Some(ids) = e.attr(attr) {
                popups.extend(
                    ids.split_ascii_whitespace()
                        .filter_map(|t| self.s.ids.get(&(scope, t)).copied()),
                );
            }
        }
        for &p in &popups {
            if let Some(o) = tree.descendants(p).find(|&o| self.is_selected_option(o)) {
                return self.option_text(o, mode);
            }
        }
        let has_popup = tree
            .descendants(id)
            .any(|d| matches!(self.role(d), Some("listbox") | Some("option")));
        if has_popup {
            String::new()
        } else {
            self.plain_text(id, mode)
        }
    }

    /// The chosen option's label of a native `<select>`.
    fn select_value(&self, id: NodeId, e: &ElementData, mode: Mode) -> String {
        if let Some(v) = e.form.value.as_deref() {
            return v.to_string();
        }
        let tree = self.s.tree;
        let options: Vec<NodeId> = tree
            .descendants(id)
            .filter(|&o| tree.tag(o) == Some("option"))
            .collect();
        let chosen = options
            .iter()
            .copied()
            .find(|&o| self.is_selected_option(o))
            .or_else(|| {
                if e.has_attr("multiple") {
                    None
                } else {
                    options.first().copied()
                }
            });
        chosen.map(|o| self.option_text(o, mode)).unwrap_or_default()
    }

    fn is_selected_option(&self, o: NodeId) -> bool {
        let Some(oe) = self.s.tree.element(o) else {
            return false;
        };
        if oe.tag == "option" {
            return oe.form.selected.unwrap_or_else(|| oe.has_attr("selected"));
        }
        self.role(o) == Some("option")
            && oe
                .attr("aria-selected")
                .map(|v| v.trim().eq_ignore_ascii_case("true"))
                .unwrap_or(false)
    }

    fn option_text(&self, o: NodeId, mode: Mode) -> String {
        let oe = self.s.tree.element(o);
        if let Some(l) = oe.and_then(|e| non_blank(e.attr("aria-label")).or_else(|| non_blank(e.attr("label")))) {
            return normalize(l);
        }
        normalize(&self.plain_text(o, mode))
    }

    /// Rendered text of a subtree, block children spaced, no name rules.
    fn plain_text(&self, id: NodeId, mode: Mode) -> String {
        let tree = self.s.tree;
        let mut out = String::new();
        let mut stack: Vec<Op> = tree.children(id).iter().rev().map(|&c| Op::Enter(c)).collect();
        while let Some(op) = stack.pop() {
            match op {
                Op::Enter(c) => match &tree.node(c).kind {
                    NodeKind::Text(t) => {
                        if !self.s.hidden[c] || mode.include_hidden {
                            out.push_str(t);
                        }
                    }
                    NodeKind::Element(ce) => {
                        if self.s.hidden[c] && !mode.include_hidden && !may_show_descendants(ce) {
                            continue;
                        }
                        if is_block(ce) {
                            out.push(' ');
                            stack.push(Op::Space);
                        }
                        stack.extend(tree.children(c).iter().rev().map(|&k| Op::Enter(k)));
                    }
                    _ => stack.extend(tree.children(c).iter().rev().map(|&k| Op::Enter(k))),
                },
                Op::Space => out.push(' '),
                Op::Str(s) => out.push_str(s),
                Op::Exit(..) => {}
            }
        }
        out
    }

    /// Step 2E.
    fn host_language(&mut self, id: NodeId, e: &'t ElementData, mode: Mode) -> Option<String> {
        let tree = self.s.tree;
        match e.tag.as_str() {
            "input" => {
                let ty = input_type(e);
                match ty.as_str() {
                    "hidden" => return None,
                    "button" | "submit" | "reset" => {
                        if let Some(l) = self.label_text(id, e, mode) {
                            return Some(l);
                        }
                        let value = e.attr("value").map(str::to_string).or_else(|| e.form.value.clone());
                        return match value {
                            Some(v) if !is_blank(&v) => Some(v),
                            Some(_) => None,
                            None if ty == "submit" => Some("Submit".to_string()),
                            None if ty == "reset" => Some("Reset".to_string()),
                            None => None,
                        };
                    }
                    "image" => {
                        if let Some(l) = self.label_text(id, e, mode) {
                            return Some(l);
                        }
                        return non_blank(e.attr("alt"))
                            .or_else(|| non_blank(e.attr("value")))
                            .map(str::to_string);
                    }
                    _ => return self.label_text(id, e, mode),
                }
            }
            "button" | "meter" | "output" | "progress" | "select" | "textarea" => {
                return self.label_text(id, e, mode);
            }
            "img" | "area" => return non_blank(e.attr("alt")).map(str::to_string),
            "optgroup" | "option" => return non_blank(e.attr("label")).map(str::to_string),
            _ => {}
        }
        let child_tag = match e.tag.as_str() {
            "fieldset" => Some("legend"),
            "figure" => Some("figcaption"),
            "table" => Some("caption"),
            _ => None,
        };
        if let Some(ct) = child_tag {
            if mode.depth < MAX_REF_DEPTH {
                if let Some(c) = first_child_with_tag(tree, id, ct) {
                    if !self.visited.contains(&c) {
                        let t = self.referenced_element(c, mode);
                        if !t.is_empty() {
                            return Some(t);
                        }
                    }
                }
            }
            return None;
        }
        if e.tag != "head" {
            if let Some(t) = svg_title_child(tree, id) {
                let text: String = tree.descendants(t).filter_map(|d| tree.node(d).text()).collect();
                let text = normalize(&text);
                if !text.is_empty() {
                    return Some(text);
                }
            }
        }
        None
    }

    /// Text of the labels of a labelable element, in document order.
    fn label_text(&mut self, id: NodeId, e: &ElementData, mode: Mode) -> Option<String> {
        if mode.depth >= MAX_REF_DEPTH {
            return None;
        }
        let mut parts = Vec::new();
        for l in labels_of(self.s, id, e) {
            if self.visited.contains(&l) {
                continue;
            }
            let t = self.referenced_element(l, mode);
            if !t.is_empty() {
                parts.push(t);
            }
        }
        if parts.is_empty() {
            None
        } else {
            Some(parts.join(" "))
        }
    }

    /// Step 2I and the host-language fallbacks that rank below it.
    fn fallback(&self, id: NodeId, e: &ElementData) -> (String, bool) {
        if self.role(id) == Some("none") {
            return (String::new(), false);
        }
        if let Some(t) = non_blank(e.attr("title")) {
            return (t.to_string(), true);
        }
        let ty = if e.tag == "input" { input_type(e) } else { String::new() };
        let text_field = e.tag == "textarea"
            || (e.tag == "input"
                && !matches!(
                    ty.as_str(),
                    "button"
                        | "submit"
                        | "reset"
                        | "image"
                        | "checkbox"
                        | "radio"
                        | "range"
                        | "color"
                        | "file"
                        | "hidden"
                ));
        if text_field {
            if let Some(p) = non_blank(e.attr("placeholder")) {
                return (p.to_string(), false);
            }
        }
        if let Some(p) = non_blank(e.attr("aria-placeholder")) {
            return (p.to_string(), false);
        }
        if e.tag == "input" && ty == "image" {
            return ("Submit".to_string(), false);
        }
        (String::new(), false)
    }

    /// Step 2F: appends the content of `id` (its pseudo-element text and
    /// children) to `out`, walking descendants with an explicit stack.
    fn content(&mut self, id: NodeId, e: Option<&'t ElementData>, mode: Mode, out: &mut String) {
        let tree = self.s.tree;
        let mut stack: Vec<Op<'t>> = Vec::new();
        push_content(&mut stack, tree.children(id), e);
        while let Some(op) = stack.pop() {
            match op {
                Op::Str(s) => out.push_str(s),
                Op::Space => out.push(' '),
                Op::Exit(c, start) => {
                    if is_blank(&out[start..]) {
                        if let Some(ce) = tree.element(c) {
                            let (f, _) = self.fallback(c, ce);
                            // A blank content keeps its whitespace: it may be
                            // the only separator between two words.
                            if !f.is_empty() {
                                out.truncate(start);
                                out.push_str(&f);
                            }
                        }
                    }
                }
                Op::Enter(c) => {
                    let hidden = self.s.hidden[c] && !mode.include_hidden;
                    match &tree.node(c).kind {
                        NodeKind::Text(t) => {
                            if !hidden {
                                out.push_str(t);
                            }
                        }
                        NodeKind::Document | NodeKind::ShadowRoot => push_content(&mut stack, tree.children(c), None),
                        NodeKind::Element(ce) => {
                            if hidden {
                                // visibility:hidden can be undone below.
                                if may_show_descendants(ce) {
                                    push_content(&mut stack, tree.children(c), None);
                                }
                                continue;
                            }
                            if !self.visited.insert(c) {
                                // Its box still separates the words around it.
                                if is_block(ce) {
                                    out.push(' ');
                                }
                                continue;
                            }
                            if ce.tag == "br" {
                                out.push(' ');
                                continue;
                            }
                            let block = is_block(ce);
                            if block {
                                out.push(' ');
                            }
                            match self.steps(c, ce, mode, Kind::Descendant) {
                                Step::Done(t) => {
                                    out.push_str(&t);
                                    if block {
                                        out.push(' ');
                                    }
                                }
                                Step::Content { allowed } => {
                                    if block {
                                        stack.push(Op::Space);
                                    }
                                    stack.push(Op::Exit(c, out.len()));
                                    if allowed {
                                        push_content(&mut stack, tree.children(c), Some(ce));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Schedules `::before`, the children, then `::after` (stack order reversed).
fn push_content<'t>(stack: &mut Vec<Op<'t>>, children: &[NodeId], e: Option<&'t ElementData>) {
    let style = e.and_then(|e| e.style.as_ref());
    if let Some(a) = style.and_then(|s| s.after_content.as_deref()) {
        stack.push(Op::Str(a));
    }
    stack.extend(children.iter().rev().map(|&c| Op::Enter(c)));
    if let Some(b) = style.and_then(|s| s.before_content.as_deref()) {
        stack.push(Op::Str(b));
    }
}

/// A hidden element whose own box is merely invisible: its descendants may
/// set `visibility:visible`.
fn may_show_descendants(e: &ElementData) -> bool {
    e.style
        .as_ref()
        .map(|s| s.visibility_hidden && s.display != Display::None)
        .unwrap_or(false)
}

fn is_block(e: &ElementData) -> bool {
    match e.style.as_ref().map(|s| s.display) {
        Some(Display::Block | Display::InlineBlock | Display::Other) => true,
        Some(Display::Inline | Display::Contents) => false,
        Some(Display::None) | None => BLOCK_TAGS.contains(&e.tag.as_str()),
    }
}

fn range_value(e: &ElementData) -> String {
    if let Some(t) = non_blank(e.attr("aria-valuetext")) {
        return t.to_string();
    }
    if let Some(n) = non_blank(e.attr("aria-valuenow")) {
        return format_number(n);
    }
    e.form
        .value
        .clone()
        .or_else(|| e.attr("value").map(str::to_string))
        .unwrap_or_default()
}

/// `aria-valuenow` is a number: "3.0" reads as "3".
fn format_number(raw: &str) -> String {
    match raw.trim().parse::<f64>() {
        Ok(f) if f.is_finite() => format!("{f}"),
        _ => raw.trim().to_string(),
    }
}

/// Labels of a labelable element: `label[for=id]` (when this element is the
/// first with that id) and the nearest wrapping `<label>` without `for`
/// whose first labelable descendant it is; document order.
pub fn labels_of(s: &Semantics, id: NodeId, e: &ElementData) -> Vec<NodeId> {
    let tree = s.tree;
    let mut out = Vec::new();
    if !LABELABLE.contains(&e.tag.as_str()) || (e.tag == "input" && input_type(e) == "hidden") {
        return out;
    }
    let scope = tree.node(id).scope;
    if let Some(idv) = e.attr("id").filter(|v| !v.is_empty()) {
        if s.ids.get(&(scope, idv)) == Some(&id) {
            if let Some(ls) = s.labels_for.get(&(scope, idv)) {
                out.extend(ls.iter().copied());
            }
        }
    }
    // Label association follows the DOM tree: only a label in the same
    // scope can wrap the control.
    if let Some(label) = tree
        .ancestors(id)
        .find(|&a| tree.node(a).scope == scope && tree.tag(a) == Some("label"))
    {
        let le = tree.element(label).unwrap();
        if !le.has_attr("for") && first_labelable(s, label) == Some(id) {
            out.push(label);
        }
    }
    // Node ids follow document order.
    out.sort_unstable();
    out.dedup();
    out
}

fn first_labelable(s: &Semantics, label: NodeId) -> Option<NodeId> {
    let tree = s.tree;
    let scope = tree.node(label).scope;
    tree.descendants(label).skip(1).find(|&d| {
        tree.node(d).scope == scope
            && tree
                .element(d)
                .map(|e| LABELABLE.contains(&e.tag.as_str()) && !(e.tag == "input" && input_type(e) == "hidden"))
                .unwrap_or(false)
    })
}
