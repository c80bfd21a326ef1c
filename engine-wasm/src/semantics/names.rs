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
//!   iframe, dialog, alertdialog, application, treeitem). `::before`/`::after` text is
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
//! Name from content stops after `MAX_CONTENT_BYTES` of text (browsers do
//! not cap; no real name comes close).
//!
//! The descendant walk uses an explicit stack; the only native recursion is
//! through references (labelledby, label, legend…), bounded by
//! `MAX_REF_DEPTH`, so trees of any depth are safe.
use super::roles::{first_child_with_tag, input_type, svg_title_child};
use super::{Role, Semantics};
use crate::dom::{among, Display, ElementData, NodeId, NodeKind};

/// How many references (labelledby → label → legend…) may nest. accname
/// itself stops labelledby after one hop; this also bounds label chains.
const MAX_REF_DEPTH: u8 = 4;

/// Name from content stops collecting after this many bytes. Names are
/// shown cut to a few hundred characters at most, and nested
/// name-from-content roots (treeitems holding treeitems, a link around a
/// whole card) would otherwise make naming every node quadratic.
const MAX_CONTENT_BYTES: usize = 10_000;

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
    // A tree item's name is its own label, not its subtree's (Chromium:
    // "Fruits", not "Fruits Apple Banana").
    "treeitem",
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
    (normalize_owned(name), from_title)
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

/// Non-empty, with ASCII whitespace only as single spaces between other
/// characters: what collapsing and trimming ASCII whitespace leaves as is.
pub fn ws_collapsed(s: &str) -> bool {
    let b = s.as_bytes();
    let ws = |c: u8| c.is_ascii_whitespace();
    !b.is_empty()
        && !ws(b[0])
        && !ws(b[b.len() - 1])
        && !b.windows(2).any(|w| ws(w[1]) && (w[0] == b' ' || w[1] != b' '))
}

/// `normalize`, keeping `s` itself when it already is (most names are).
fn normalize_owned(s: String) -> String {
    if ws_collapsed(&s) && !s.starts_with('\u{a0}') && !s.ends_with('\u{a0}') {
        s
    } else {
        normalize(&s)
    }
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

/// The nodes one name computation has visited, sorted. A content walk
/// visits in document order, so an insert is mostly a push. (Not a hash
/// set: hashing code costs .wasm bytes.)
struct Visited(Vec<NodeId>);

impl Visited {
    fn contains(&self, id: NodeId) -> bool {
        self.0.binary_search(&id).is_ok()
    }

    /// Adds `id`; false when it was already there.
    fn insert(&mut self, id: NodeId) -> bool {
        match self.0.binary_search(&id) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, id);
                true
            }
        }
    }
}

struct Computer<'a, 't> {
    s: &'a Semantics<'t>,
    root: NodeId,
    visited: Visited,
}

impl<'a, 't> Computer<'a, 't> {
    fn new(s: &'a Semantics<'t>, root: NodeId) -> Self {
        Computer {
            s,
            root,
            visited: Visited(vec![root]),
        }
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
            let Some(target) = self.s.ids.first(scope, tok) else {
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
        crate::words::join_strings(&parts, " ")
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
                crate::words::join_strings(&texts, " ")
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
                popups.extend(ids.split_ascii_whitespace().filter_map(|t| self.s.ids.first(scope, t)));
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
                    if !self.visited.contains(c) {
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
            if self.visited.contains(l) {
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
            Some(crate::words::join_strings(&parts, " "))
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
        let mut acc = Acc {
            text: std::mem::take(out),
            ink_end: 0,
        };
        let mut stack: Vec<Op<'t>> = Vec::new();
        push_content(&mut stack, tree.children(id), e);
        while let Some(op) = stack.pop() {
            if acc.text.len() > MAX_CONTENT_BYTES {
                break;
            }
            match op {
                Op::Str(s) => acc.push(s),
                Op::Space => acc.space(),
                Op::Exit(c, start) => {
                    if acc.ink_end <= start {
                        if let Some(ce) = tree.element(c) {
                            let (f, _) = self.fallback(c, ce);
                            // A blank content keeps its whitespace: it may be
                            // the only separator between two words.
                            if !f.is_empty() {
                                acc.text.truncate(start);
                                acc.push(&f);
                            }
                        }
                    }
                }
                Op::Enter(c) => {
                    let hidden = self.s.hidden[c] && !mode.include_hidden;
                    match &tree.node(c).kind {
                        NodeKind::Text(t) => {
                            if !hidden {
                                acc.push(t);
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
                                    acc.space();
                                }
                                continue;
                            }
                            if ce.tag == "br" {
                                acc.space();
                                continue;
                            }
                            let block = is_block(ce);
                            if block {
                                acc.space();
                            }
                            match self.steps(c, ce, mode, Kind::Descendant) {
                                // A name of its own (aria-label, alt) is a
                                // word apart even inline, as Chromium says it:
                                // `<img alt="Cart icon">Shop` is "Cart icon Shop".
                                Step::Done(t) => {
                                    acc.space();
                                    acc.push(&t);
                                    acc.space();
                                }
                                Step::Content { allowed } => {
                                    if block {
                                        stack.push(Op::Space);
                                    }
                                    stack.push(Op::Exit(c, acc.text.len()));
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
        *out = acc.text;
    }
}

/// Accumulated name text, remembering where the last non-blank character
/// ends so "was anything written since position p" is O(1) (nested blocks
/// would otherwise rescan their text at every level: quadratic on deep trees).
struct Acc {
    text: String,
    ink_end: usize,
}

impl Acc {
    fn push(&mut self, s: &str) {
        let base = self.text.len();
        self.text.push_str(s);
        if let Some(i) = s.rfind(|c: char| !c.is_ascii_whitespace()) {
            self.ink_end = base + i + 1;
        }
    }
    fn space(&mut self) {
        self.text.push(' ');
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

/// Whether `e` is laid out as a box of its own, so its text is a word
/// apart from the text around it (tag defaults when style is unknown).
pub fn is_block(e: &ElementData) -> bool {
    match e.style.as_ref().map(|s| s.display) {
        Some(Display::Block | Display::InlineBlock | Display::Other) => true,
        Some(Display::Inline | Display::Contents) => false,
        Some(Display::None) | None => among(BLOCK_TAGS, &e.tag),
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
    number_text(raw)
}

/// Canonical text of a number without float formatting (which would pull
/// ~15 KB of `core::fmt` float code into the wasm): "+3.50" → "3.5",
/// "3.0" → "3", "1e3" → "1000"; non-numbers come back trimmed.
pub fn number_text(raw: &str) -> String {
    let t = raw.trim();
    let Some(f) = crate::number::parse_decimal(t) else {
        return t.to_string();
    };
    if !f.is_finite() {
        return t.to_string();
    }
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return (f as i64).to_string();
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.contains('.') && !t.contains(['e', 'E']) {
        return t.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    t.to_string()
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
        if s.ids.first(scope, idv) == Some(id) {
            out.extend(s.labels_for.all(scope, idv));
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
            // Node ids follow document order, and `labels_for` lists its
            // labels in it: the wrapping label goes in its place (an
            // insertion, not a sort: each sort instantiation costs ~3 KB
            // of .wasm).
            let at = out.partition_point(|&l| l < label);
            if out.get(at) != Some(&label) {
                out.insert(at, label);
            }
        }
    }
    out
}

pub fn first_labelable(s: &Semantics, label: NodeId) -> Option<NodeId> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{DomTree, Style, TreeBuilder};
    use crate::semantics::test_html::{by_id, parse};

    /// Name of the element with id `id` in `html`.
    fn name(html: &str, id: &str) -> String {
        let t = parse(html);
        let s = Semantics::compute(&t);
        s.name(by_id(&t, id))
    }

    fn desc(html: &str, id: &str) -> String {
        let t = parse(html);
        let s = Semantics::compute(&t);
        s.description(by_id(&t, id))
    }

    #[test]
    fn normalize_collapses_ascii_whitespace_keeps_inner_nbsp() {
        assert_eq!(normalize("  a \t\n b  "), "a b");
        assert_eq!(normalize("\u{a0}a\u{a0}\u{a0}b\u{a0} "), "a\u{a0}\u{a0}b");
        assert_eq!(normalize("a \u{a0} b"), "a \u{a0} b");
        assert_eq!(normalize("\u{2800}"), "\u{2800}");
        assert_eq!(normalize(" \n "), "");
        for raw in [
            "a b",
            "a  b",
            " a",
            "a\t",
            "\u{a0}a",
            "a\u{a0}",
            "a\u{a0}\u{a0}b",
            "",
            " ",
            "a \u{a0} b",
        ] {
            assert_eq!(normalize_owned(raw.to_string()), normalize(raw), "{raw:?}");
        }
    }

    #[test]
    fn hidden_root_and_hidden_content() {
        let html = r##"<div style="display:none"><button id=a>x</button></div>
            <button id=b>one <span aria-hidden="true">two</span><span hidden>three</span> four</button>
            <button id=c aria-hidden="true">x</button>"##;
        assert_eq!(name(html, "a"), "");
        assert_eq!(name(html, "b"), "one four");
        assert_eq!(name(html, "c"), "");
    }

    #[test]
    fn hidden_referenced_node_includes_hidden_descendants() {
        let html = r##"<button id=a aria-labelledby="l">x</button>
            <div id=l hidden>foo <span aria-hidden="true">bar</span> <span style="visibility:hidden">baz</span></div>
            <button id=b aria-labelledby="v">x</button>
            <div id=v>foo <span aria-hidden="true">bar</span></div>"##;
        assert_eq!(name(html, "a"), "foo bar baz");
        assert_eq!(name(html, "b"), "foo");
    }

    #[test]
    fn labelledby_order_self_reference_and_no_second_hop() {
        let html = r##"<button id=a aria-labelledby="l2 missing l1">content</button>
            <span id=l1>one</span><span id=l2 aria-labelledby="l1">two</span>
            <input id=b aria-label="self" aria-labelledby="b l1">
            <button id=c aria-labelledby="empty" aria-label="fallback">content</button><span id=empty> </span>
            <button id=d aria-labelledby="nothing-here">content</button>"##;
        assert_eq!(name(html, "a"), "two one");
        assert_eq!(name(html, "b"), "self one");
        assert_eq!(name(html, "c"), "fallback");
        assert_eq!(name(html, "d"), "content");
    }

    #[test]
    fn labelledby_cycles_terminate() {
        let html =
            r##"<div id=a role=button aria-labelledby="b">A</div><div id=b role=button aria-labelledby="a">B</div>"##;
        assert_eq!(name(html, "a"), "B");
        assert_eq!(name(html, "b"), "A");
    }

    #[test]
    fn labelledby_resolves_in_own_scope() {
        let html = r##"<span id=l>outer</span>
            <x-el><template shadowrootmode="open"><span id=l>inner</span><button id=btn aria-labelledby="l"></button></template></x-el>
            <button id=out aria-labelledby="l"></button>"##;
        let t = parse(html);
        let s = Semantics::compute(&t);
        let btn = t
            .nodes
            .iter()
            .position(|n| n.element().and_then(|e| e.attr("id")) == Some("btn"))
            .unwrap();
        assert_eq!(s.name(btn), "inner");
        assert_eq!(s.name(by_id(&t, "out")), "outer");
    }

    #[test]
    fn aria_label_rules() {
        let html = r##"<button id=a aria-label="  Close  ">x</button>
            <button id=b aria-label=" ">text</button>
            <div id=c aria-label="generic label">x</div>
            <button id=d aria-label="&nbsp;">x</button>"##;
        assert_eq!(name(html, "a"), "Close");
        assert_eq!(name(html, "b"), "text");
        assert_eq!(name(html, "c"), "generic label");
        // U+00A0 is not blank for aria-label, and is then trimmed from the result.
        assert_eq!(name(html, "d"), "");
    }

    #[test]
    fn labels_for_and_wrapping() {
        let html = r##"<label for=a>For A</label><input id=a>
            <label>Wrap <input id=b> end</label>
            <label for=c>first</label><label>second <input id=c></label>
            <label for=other>not mine <input id=d></label><input id=other>
            <label>two <input id=e1><input id=e2></label>
            <label for=dup>dup</label><input id=dup><input id=dup data-n=2>
            <label for=h style="display:none">hidden label</label><input id=h>"##;
        assert_eq!(name(html, "a"), "For A");
        assert_eq!(name(html, "b"), "Wrap end");
        assert_eq!(name(html, "c"), "first second");
        assert_eq!(name(html, "d"), "");
        assert_eq!(name(html, "other"), "not mine");
        assert_eq!(name(html, "e1"), "two");
        let t = parse(html);
        let s = Semantics::compute(&t);
        let e2 = by_id(&t, "e2");
        assert_eq!(s.name(e2), "");
        let second_dup = t
            .nodes
            .iter()
            .position(|n| n.element().and_then(|e| e.attr("data-n")) == Some("2"))
            .unwrap();
        assert_eq!(s.name(second_dup), "");
        assert_eq!(name(html, "h"), "hidden label");
    }

    #[test]
    fn label_does_not_cross_shadow_boundary() {
        let html =
            r##"<label>Outer <x-field><template shadowrootmode="open"><input id=inner></template></x-field></label>"##;
        let t = parse(html);
        let s = Semantics::compute(&t);
        let inner = t
            .nodes
            .iter()
            .position(|n| n.element().and_then(|e| e.attr("id")) == Some("inner"))
            .unwrap();
        assert_eq!(s.name(inner), "");
    }

    #[test]
    fn embedded_controls_in_labels() {
        let html = r##"<label>Show <input id=cb type=checkbox> <input value="5"> items</label>
            <label>Pick <select id=s2><option>a</option><option selected>b</option></select> <input id=cb2 type=checkbox></label>
            <label for=cb3>Secret <input type=password value="hunter2"> here</label><input id=cb3 type=checkbox>
            <label for=cb4>Size <select multiple><option selected>S</option><option>M</option><option selected>L</option></select></label><input id=cb4 type=checkbox>
            <label for=cb5>Vol <div role=slider aria-valuenow="7.50"></div></label><input id=cb5 type=checkbox>
            <label for=cb6>Menu <div role=menu><div role=menuitem>Open</div></div> end</label><input id=cb6 type=checkbox>
            <label for=cb7>Area <textarea>typed</textarea></label><input id=cb7 type=checkbox>"##;
        assert_eq!(name(html, "cb"), "Show 5 items");
        assert_eq!(name(html, "s2"), "Pick");
        assert_eq!(name(html, "cb3"), "Secret here");
        assert_eq!(name(html, "cb4"), "Size S L");
        assert_eq!(name(html, "cb5"), "Vol 7.5");
        assert_eq!(name(html, "cb6"), "Menu end");
        assert_eq!(name(html, "cb7"), "Area typed");
    }

    #[test]
    fn embedded_select_uses_live_form_value() {
        let mut b = TreeBuilder::new();
        let label = b.open_el("label", &[("for", "x")]);
        b.text("Color ");
        let sel = b.open_el("select", &[]);
        b.open_el("option", &[]);
        b.text("Red");
        b.close();
        b.close();
        b.close();
        let x = b.el("input", &[("id", "x"), ("type", "checkbox")]);
        b.data(sel).form.value = Some("Blue".into());
        let _ = label;
        let t = b.finish();
        assert_eq!(Semantics::compute(&t).name(x), "Color Blue");
    }

    #[test]
    fn root_control_is_not_named_by_its_value() {
        let html = r##"<input id=a value="typed"><select id=b><option selected>Opt</option></select>
            <div id=c role=slider aria-valuenow=3 aria-label="Volume"></div>"##;
        assert_eq!(name(html, "a"), "");
        assert_eq!(name(html, "b"), "");
        assert_eq!(name(html, "c"), "Volume");
    }

    #[test]
    fn input_buttons_and_images() {
        let html = r##"<input id=a type=submit><input id=b type=reset><input id=c type=button>
            <input id=d type=submit value="Send"><input id=e type=image><input id=f type=image alt="Go">
            <input id=g type=image value="Val"><input id=h type=image title="Tip">
            <label for=i>Labelled</label><input id=i type=submit value="Send">
            <input id=j type=button title="Tip">"##;
        assert_eq!(name(html, "a"), "Submit");
        assert_eq!(name(html, "b"), "Reset");
        assert_eq!(name(html, "c"), "");
        assert_eq!(name(html, "d"), "Send");
        assert_eq!(name(html, "e"), "Submit");
        assert_eq!(name(html, "f"), "Go");
        assert_eq!(name(html, "g"), "Val");
        assert_eq!(name(html, "h"), "Tip");
        assert_eq!(name(html, "i"), "Labelled");
        assert_eq!(name(html, "j"), "Tip");
    }

    #[test]
    fn text_fields_title_then_placeholder() {
        let html = r##"<input id=a placeholder="Search"><input id=b title="T" placeholder="P">
            <textarea id=c placeholder="Write"></textarea><div id=d role=textbox aria-placeholder="Type here"></div>
            <input id=e type=checkbox placeholder="no">"##;
        assert_eq!(name(html, "a"), "Search");
        assert_eq!(name(html, "b"), "T");
        assert_eq!(name(html, "c"), "Write");
        assert_eq!(name(html, "d"), "Type here");
        assert_eq!(name(html, "e"), "");
    }

    #[test]
    fn host_language_containers() {
        let html = r##"<fieldset id=a><legend>Shipping <b>address</b></legend><input></fieldset>
            <figure id=b><img alt="chart"><figcaption>Sales</figcaption></figure>
            <table id=c><caption>Prices</caption><tr><td>1</td></tr></table>
            <select><optgroup id=d label="Fruits"><option id=e label="Apple">A</option><option id=f> Pear </option></optgroup></select>
            <svg id=g><title>Logo</title><circle></circle></svg>
            <svg id=h aria-label="Named"><title>Logo</title></svg>
            <img id=i alt="  "><img id=j src="x.png">
            <map><area id=k href="#" alt="Region"></map>"##;
        assert_eq!(name(html, "a"), "Shipping address");
        assert_eq!(name(html, "b"), "Sales");
        assert_eq!(name(html, "c"), "Prices");
        assert_eq!(name(html, "d"), "Fruits");
        assert_eq!(name(html, "e"), "Apple");
        assert_eq!(name(html, "f"), "Pear");
        assert_eq!(name(html, "g"), "Logo");
        assert_eq!(name(html, "h"), "Named");
        assert_eq!(name(html, "i"), "");
        assert_eq!(name(html, "j"), "");
        assert_eq!(name(html, "k"), "Region");
    }

    #[test]
    fn name_from_content_only_for_allowed_roots() {
        let html = r##"<div id=a>text</div><p id=b>para</p><ul id=c><li id=d>item</li></ul>
            <div id=e role=tab>Tab</div><table><tr id=f><td id=g>x</td><td>y</td></tr></table>
            <div id=h role=option>Opt</div><summary id=i>Sum</summary>
            <details><summary id=j>More</summary>body</details><label id=k>Lbl</label>"##;
        assert_eq!(name(html, "a"), "");
        assert_eq!(name(html, "b"), "");
        assert_eq!(name(html, "c"), "");
        assert_eq!(name(html, "d"), "");
        assert_eq!(name(html, "e"), "Tab");
        assert_eq!(name(html, "f"), "x y");
        assert_eq!(name(html, "g"), "x");
        assert_eq!(name(html, "h"), "Opt");
        assert_eq!(name(html, "i"), "");
        assert_eq!(name(html, "j"), "More");
        assert_eq!(name(html, "k"), "");
    }

    #[test]
    fn content_walk_respects_container_roles_and_presentation() {
        let html = r##"<a id=a href="#">Go <span role=img aria-label="arrow"></span></a>
            <a id=b href="#">Open <div role=menu>Cut Copy</div></a>
            <a id=c href="#"><span role=none>plain</span> <img alt="" title="no"></a>
            <button id=d><img src="icon.png" title="Delete"></button>
            <button id=e><span title="ignored">Save</span></button>
            <a id=f href="#"><div role=toolbar>tools</div>link</a>"##;
        assert_eq!(name(html, "a"), "Go arrow");
        assert_eq!(name(html, "b"), "Open");
        // alt="" makes the image presentational only without title; with one it names.
        assert_eq!(name(html, "c"), "plain no");
        assert_eq!(name(html, "d"), "Delete");
        assert_eq!(name(html, "e"), "Save");
        assert_eq!(name(html, "f"), "link");
    }

    #[test]
    fn inline_block_br_and_pseudo_joining() {
        let html = r##"<button id=a><span>a</span><span>b</span></button>
            <button id=b><div>a</div><div>b</div></button>
            <button id=c>a<br>b</button>
            <button id=d data-before="[" data-after="]">x</button>
            <button id=e><span data-before="icon-">x</span>y</button>
            <a id=f href="#"><span style="display:contents">a</span>b</a>
            <h2 id=g><span style="display:inline-block">a</span>b</h2>"##;
        assert_eq!(name(html, "a"), "ab");
        assert_eq!(name(html, "b"), "a b");
        assert_eq!(name(html, "c"), "a b");
        assert_eq!(name(html, "d"), "[x]");
        assert_eq!(name(html, "e"), "icon-xy");
        assert_eq!(name(html, "f"), "ab");
        assert_eq!(name(html, "g"), "a b");
    }

    #[test]
    fn visibility_can_be_undone_inside_content() {
        let html = r##"<button id=a>one <span style="visibility:hidden">two <span style="visibility:visible">three</span></span></button>
            <button id=b>one <span style="display:none">two <span style="visibility:visible">three</span></span></button>"##;
        assert_eq!(name(html, "a"), "one three");
        assert_eq!(name(html, "b"), "one");
    }

    #[test]
    fn content_visibility_and_closed_details_are_not_read() {
        let html = r##"<a id=a href="#">shown <span style="content-visibility:hidden">box <b>inner</b></span></a>
            <div id=b role=button><details><summary>Sum</summary>secret</details></div>"##;
        // The span itself stays, but all of its content is skipped.
        assert_eq!(name(html, "a"), "shown");
        assert_eq!(name(html, "b"), "Sum");
    }

    #[test]
    fn shadow_content_and_slots_in_names() {
        let html = r##"<button id=a><x-icon><template shadowrootmode="open"><span>Star</span> <slot>light</slot></template></x-icon></button>
            <my-button id=b role=button><template shadowrootmode="open"><slot aria-label="slot label">Go</slot></template></my-button>"##;
        assert_eq!(name(html, "a"), "Star light");
        assert_eq!(name(html, "b"), "Go");
    }

    #[test]
    fn text_node_name() {
        let t = parse("<p>  some   text </p>");
        let s = Semantics::compute(&t);
        let p = t
            .nodes
            .iter()
            .position(|n| n.element().map(|e| e.tag == "p").unwrap_or(false))
            .unwrap();
        assert_eq!(s.name(t.children(p)[0]), "some text");
    }

    #[test]
    fn descriptions() {
        let html = r##"<button id=a aria-describedby="d1 d2" title="tip">Go</button><p id=d1>first</p><p id=d2 hidden>second</p>
            <button id=b aria-description=" extra " title="tip">Go</button>
            <button id=c title="tip">Go</button>
            <button id=d title="tip"></button>
            <button id=e aria-describedby="missing" title="tip">Go</button>
            <input id=f aria-describedby="f">
            <button id=g aria-describedby="lbl">Go</button><label id=lbl>Hint <input value="v"></label>"##;
        assert_eq!(desc(html, "a"), "first second");
        assert_eq!(desc(html, "b"), "extra");
        assert_eq!(desc(html, "c"), "tip");
        assert_eq!(name(html, "d"), "tip");
        assert_eq!(desc(html, "d"), "");
        assert_eq!(desc(html, "e"), "tip");
        assert_eq!(desc(html, "f"), "");
        assert_eq!(desc(html, "g"), "Hint v");
    }

    #[test]
    fn deep_trees_do_not_overflow() {
        // 5,000 nested inline spans inside a button, labelled by a 5,000-deep div chain.
        let mut b = TreeBuilder::new();
        let btn = b.open_el("button", &[("aria-describedby", "deep")]);
        for _ in 0..5000 {
            let s = b.open_el("span", &[]);
            b.data(s).style = Some(Style {
                display: Display::Inline,
                ..Default::default()
            });
        }
        b.text("bottom");
        for _ in 0..5000 {
            b.close();
        }
        b.close();
        let host = b.open_el("div", &[("id", "deep")]);
        for i in 0..5000 {
            b.open_el(if i % 3 == 0 { "section" } else { "div" }, &[]);
        }
        b.text("deep text");
        let t: DomTree = b.finish();
        let s = Semantics::compute(&t);
        assert_eq!(s.name(btn), "bottom");
        assert_eq!(s.description(btn), "deep text");
        assert_eq!(s.name(host), "");
    }

    #[test]
    fn a_child_named_on_its_own_is_a_word_apart() {
        // As Chromium names them: `alt` and `aria-label` children are
        // spaced even inline; inline content stays glued.
        let mut b = TreeBuilder::new();
        let cart = b.open_el("a", &[("href", "#")]);
        b.el("img", &[("alt", "Cart icon")]);
        b.text("Shop");
        b.close();
        let star = b.open_el("a", &[("href", "#")]);
        b.el("i", &[("aria-label", "Star")]);
        b.text("Favourites");
        b.close();
        let glued = b.open_el("a", &[("href", "#")]);
        for word in ["Get more news", "Live"] {
            let span = b.open_el("span", &[]);
            b.data(span).style = Some(crate::dom::Style {
                display: Display::Inline,
                ..Default::default()
            });
            b.text(word);
            b.close();
        }
        b.close();
        let t = b.finish();
        let s = Semantics::compute(&t);
        assert_eq!(s.name(cart), "Cart icon Shop");
        assert_eq!(s.name(star), "Star Favourites");
        assert_eq!(s.name(glued), "Get more newsLive");
    }

    #[test]
    fn content_names_are_capped() {
        let mut b = TreeBuilder::new();
        let link = b.open_el("a", &[("href", "#")]);
        for i in 0..5000 {
            b.open_el("p", &[]);
            b.text(&format!("paragraph number {i} "));
            b.close();
        }
        let t = b.finish();
        let n = Semantics::compute(&t).name(link);
        assert!(n.starts_with("paragraph number 0 paragraph number 1"));
        assert!(
            n.len() > MAX_CONTENT_BYTES / 2 && n.len() < MAX_CONTENT_BYTES + 100,
            "{}",
            n.len()
        );
    }

    #[test]
    fn deep_label_nesting_is_bounded() {
        // Each checkbox's label holds the next checkbox: names stay finite.
        let mut html = String::new();
        for i in 0..50 {
            html.push_str(&format!(
                "<label for=c{i}>L{i} <input type=checkbox id=c{} title=t{}></label>",
                i + 1,
                i + 1
            ));
        }
        html.push_str("<input type=checkbox id=c0>");
        let got = name(&html, "c0");
        assert!(got.starts_with("L0 L1"), "{got}");
        assert!(got.split(' ').count() <= 2 + MAX_REF_DEPTH as usize * 2, "{got}");
    }
}
