//! Text rendering of one frame: YAML-like lines, two spaces per level,
//! `- role "name" [state] [ref=e12]`, in the style of Playwright's aria
//! snapshot but more compact: wrappers with no semantics are dissolved,
//! inline text-level roles merge into their parent's text, and text that
//! only repeats a node's name is dropped. Every token costs the user money.
//!
//! Two phases, both iterative (pages can nest thousands of levels deep):
//! build an output tree, then serialise it.

use crate::dom::{among, DomTree, NodeId, NodeKind, NodeMap};
use crate::outline::{self, Keep, Tally};
use crate::protocol::{FrameSlot, ObscuredMode, OffscreenCounts, Rect, SnapshotMode};
use crate::semantics::states::{States, Tri};
use crate::semantics::Semantics;
use std::borrow::Cow;

/// Longest accessible name printed; longer ones are cut with an ellipsis.
const MAX_NAME_CHARS: usize = 150;

/// Roles that only carry inline formatting: their text joins the parent's.
const INLINE_ROLES: &[&str] = &[
    "strong",
    "emphasis",
    "code",
    "mark",
    "subscript",
    "superscript",
    "time",
    "deletion",
    "insertion",
    "abbr",
];

/// Roles that add nothing a model can use when they have no name.
const DROP_WHEN_UNNAMED: &[&str] = &[
    "group",
    "rowgroup",
    "img",
    "figure",
    "separator",
    "presentation",
    "none",
];

pub struct RenderInput<'a> {
    pub sem: &'a Semantics<'a>,
    pub interactive: &'a [bool],
    /// Ref id (with frame prefix) of every interactive node.
    pub refs: &'a NodeMap<String>,
    /// Where rendering starts (the document, or a region).
    pub root: NodeId,
    pub mode: SnapshotMode,
    /// The visible region, in this frame's viewport coordinates.
    pub clip: Rect,
    /// `scheme://host[:port]` of the page, to print same-origin URLs as paths.
    pub origin: &'a str,
    /// The page URL, to print same-document links as `#fragment`.
    pub page_url: &'a str,
    /// Nodes outside an open modal (issue: modal occlusion): no refs, `[obscured]`.
    pub obscured: Option<&'a [bool]>,
    /// What becomes of obscured nodes: marked, left out, or outlined.
    pub obscured_mode: ObscuredMode,
    /// The open modal's root node, rendered with `[modal]`.
    pub modal_root: Option<NodeId>,
    /// Its element ancestors: not obscured (they hold it), but without refs
    /// (see `snapshot::build_frame_snapshot`).
    pub modal_ancestors: &'a [NodeId],
    /// Per-node "covered by" descriptions from hit-testing.
    pub covered: Option<&'a NodeMap<String>>,
}

pub struct Rendered {
    pub lines: Vec<String>,
    pub frame_slots: Vec<FrameSlot>,
    pub offscreen: OffscreenCounts,
    /// Ref'd nodes that appear in the text, in document order, with the
    /// normalised name already computed for their line (names are the
    /// costliest part of the pure pipeline; the ref map reuses them).
    pub rendered_refs: Vec<(NodeId, String)>,
    /// Per node: intersects the visible region.
    pub in_view: Vec<bool>,
}

enum Item<'t> {
    Node(usize),
    /// Borrowed from the tree when its whitespace is already collapsed
    /// (most text is), owned when collapsed here or merged.
    Text(Cow<'t, str>),
    /// An outline's summary of what a landmark hides (see `outline`).
    Note(String),
}

/// The tally of the output node `at`, started on first use.
fn tally_of(tallies: &mut Vec<(usize, Tally)>, at: usize) -> &mut Tally {
    let i = match tallies.iter().position(|(k, _)| *k == at) {
        Some(i) => i,
        None => {
            tallies.push((at, Tally::default()));
            tallies.len() - 1
        }
    };
    &mut tallies[i].1
}

struct OutNode<'t> {
    node: NodeId,
    role: &'static str,
    name: String,
    /// State and ref tokens, each after a space (` [checked] [ref=e3]`).
    tokens: String,
    has_ref: bool,
    url: Option<String>,
    value: Option<String>,
    children: Vec<Item<'t>>,
    frame: Option<(String, Rect)>,
    /// The next text is a word apart from the text before it (white space
    /// or a block box came between): joined with a space, else glued, as
    /// the page shows it (`<code>` highlighted token by token reads
    /// `<label for="notes">`, not `< label for = "notes" >`).
    gap: bool,
}

/// A stack entry that marks the end of a block box dissolved into its
/// parent: the text after it is a word apart.
const GAP: NodeId = NodeId::MAX;

/// `normalize_ws`, borrowing `s` when it is already collapsed.
fn normalized_text(s: &str) -> Cow<'_, str> {
    if crate::semantics::names::ws_collapsed(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(normalize_ws(s))
    }
}

/// Collapses whitespace runs to single spaces and trims.
pub fn normalize_ws(s: &str) -> String {
    // Most strings (accessible names above all) are normalised already.
    if crate::semantics::names::ws_collapsed(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    // ASCII whitespace only, like CSS white-space collapsing: a no-break
    // space is content (Chromium keeps it in names).
    for w in s.split(|c: char| c.is_ascii_whitespace()).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Appends `name` in double quotes, cut at `MAX_NAME_CHARS`, with `"` and
/// `\` escaped.
fn push_quoted(out: &mut String, name: &str) {
    out.push('"');
    // Most names are short and plain: copied whole.
    if name.len() <= MAX_NAME_CHARS && !name.bytes().any(|b| b == b'"' || b == b'\\') {
        out.push_str(name);
    } else {
        let mut chars = name.chars();
        for c in chars.by_ref().take(MAX_NAME_CHARS) {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        if chars.next().is_some() {
            out.push('…');
        }
    }
    out.push('"');
}

/// ` [url=/docs]`: a link's target on the link's line, where Playwright's
/// format spends a child line (`- /url: /docs`) on it, a tenth of a real
/// page's characters. `[`, `]` and whitespace are percent-encoded (as a
/// URL may write them) so the token ends at the first `]` and stays on its
/// line (an `href` is the page's text: a newline in it would start a line
/// of the page's choosing).
pub fn push_url_token(line: &mut String, url: &str) {
    line.push_str(" [url=");
    // Most URLs need nothing encoded: copied whole.
    if !url
        .bytes()
        .any(|b| b == b'[' || b == b']' || b <= b' ' || b == 0x7f || b >= 0x80)
    {
        line.push_str(url);
        line.push(']');
        return;
    }
    for c in url.chars() {
        match c {
            '[' => line.push_str("%5B"),
            ']' => line.push_str("%5D"),
            c if c.is_whitespace() || c.is_control() => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                for b in c.encode_utf8(&mut [0u8; 4]).bytes() {
                    line.push('%');
                    line.push(char::from(HEX[usize::from(b >> 4)]));
                    line.push(char::from(HEX[usize::from(b & 15)]));
                }
            }
            _ => line.push(c),
        }
    }
    line.push(']');
}

fn state_tokens(st: &States, out: &mut String) {
    let mut token = |t: &str| {
        out.push(' ');
        out.push_str(t);
    };
    match st.checked {
        Some(Tri::True) => token("[checked]"),
        Some(Tri::Mixed) => token("[checked=mixed]"),
        _ => {}
    }
    match st.pressed {
        Some(Tri::True) => token("[pressed]"),
        Some(Tri::Mixed) => token("[pressed=mixed]"),
        _ => {}
    }
    if st.disabled {
        token("[disabled]");
    }
    match st.expanded {
        Some(true) => token("[expanded]"),
        Some(false) => token("[collapsed]"),
        None => {}
    }
    if st.selected {
        token("[selected]");
    }
    if let Some(l) = st.level {
        token(&format!("[level={l}]"));
    }
    if st.required {
        token("[required]");
    }
    if st.readonly {
        token("[readonly]");
    }
    if st.invalid {
        token("[invalid]");
    }
}

/// Longest URL printed in the text (the JSON ref keeps the whole URL).
const MAX_URL_CHARS: usize = 100;

/// How a link target is shown to the model: same-document anchors as
/// `#fragment`, same-origin URLs as paths, long URLs cut (tracking URLs run
/// to hundreds of characters), `javascript:` targets not at all.
pub fn display_url(url: &str, page_url: &str, origin: &str) -> Option<String> {
    if url.len() >= 11 && url[..11].eq_ignore_ascii_case("javascript:") {
        return None;
    }
    let base = page_url.split('#').next().unwrap_or(page_url);
    let mut shown = match url.strip_prefix(base) {
        Some(frag) if frag.starts_with('#') => frag.to_string(),
        _ => url.to_string(),
    };
    if !origin.is_empty() && origin != "null" && !shown.starts_with('#') {
        if let Some(rest) = url.strip_prefix(origin) {
            if rest.is_empty() {
                shown = "/".into();
            } else if rest.starts_with('/') || rest.starts_with('?') || rest.starts_with('#') {
                shown = rest.to_string();
            }
        }
    }
    if shown.chars().count() > MAX_URL_CHARS {
        shown = shown.chars().take(MAX_URL_CHARS - 1).collect::<String>() + "…";
    }
    Some(shown)
}

/// Most choices listed for a drop-down before "… N more".
const MAX_LISTED_OPTIONS: usize = 25;

/// `Medium (options: Small, Medium, Large)` for a collapsed `<select>`; an
/// option that can't be chosen (in an enabled select) says so:
/// `Green [disabled]`.
fn select_summary(sem: &Semantics, select: NodeId, value: Option<String>) -> String {
    let tree = sem.tree;
    let disabled = |n: NodeId| sem.disabled.get(n).copied().unwrap_or(false);
    let options: Vec<String> = tree
        .descendants(select)
        .filter(|&d| tree.tag(d) == Some("option") && !sem.is_hidden(d))
        .map(|d| (d, sem.name(d)))
        .filter(|(_, name)| !name.is_empty())
        .map(|(d, name)| match disabled(d) && !disabled(select) {
            true => name + " [disabled]",
            false => name,
        })
        .collect();
    let mut listed: Vec<String> = options.iter().take(MAX_LISTED_OPTIONS).cloned().collect();
    let more = options.len().saturating_sub(MAX_LISTED_OPTIONS);
    if more > 0 {
        listed.push(format!("… {more} more"));
    }
    match value {
        Some(v) if !listed.is_empty() => format!("{v} (options: {})", crate::words::join_strings(&listed, ", ")),
        Some(v) => v,
        None => format!("(options: {})", crate::words::join_strings(&listed, ", ")),
    }
}

/// A new line at `depth`, up to its `- `, with room for `len` more bytes.
fn line_start(depth: usize, len: usize) -> String {
    let mut line = String::with_capacity(2 * depth + len);
    for _ in 0..depth {
        line.push_str("  ");
    }
    line.push_str("- ");
    line
}

/// Token-saving rewrites of the output tree that lose nothing a model needs:
/// - a `listitem` holding exactly one node (and nothing else) is replaced by it;
/// - a parent without a ref whose single child has the same name drops its own
///   name (`heading "Docs"` > `link "Docs"` says it twice);
/// - unreferenced `img` leaves whose name is part of the parent's name go;
/// - a row without a ref whose name is its cells' names, one after another,
///   drops it (`row "1 Ada Edit"` > `cell "1"`… says each twice).
fn compact(out: &mut [OutNode]) {
    for i in 0..out.len() {
        let mut children = std::mem::take(&mut out[i].children);
        for c in children.iter_mut() {
            if let Item::Node(j) = c {
                let n = &out[*j];
                if n.role == "listitem" && n.tokens.is_empty() && n.name.is_empty()
                    || (n.role == "listitem" && n.tokens.is_empty())
                {
                    if let [Item::Node(k)] = n.children.as_slice() {
                        *c = Item::Node(*k);
                    }
                }
            }
        }
        let parent_name = &out[i].name;
        if !parent_name.is_empty() {
            children.retain(|c| match c {
                Item::Node(k) => {
                    let n = &out[*k];
                    !(n.role == "img"
                        && n.children.is_empty()
                        && !n.has_ref
                        && !n.name.is_empty()
                        && parent_name.contains(n.name.as_str()))
                }
                _ => true,
            });
        }
        if let [Item::Node(k)] = children.as_slice() {
            if !out[i].has_ref && !out[i].name.is_empty() && out[*k].name == out[i].name {
                out[i].name.clear();
            }
        }
        if out[i].role == "row" && !out[i].has_ref && !out[i].name.is_empty() {
            let mut cells = String::new();
            for c in &children {
                if let Item::Node(k) = c {
                    if !cells.is_empty() {
                        cells.push(' ');
                    }
                    cells.push_str(&out[*k].name);
                }
            }
            if cells == out[i].name {
                out[i].name.clear();
            }
        }
        out[i].children = children;
    }
}

/// Computes per-node "intersects the clip". Boxless nodes (text,
/// `display:contents`, empty inline wrappers) inherit from their parent.
/// A scroll container shows its content only inside its own box: what is
/// scrolled out of it is out of view, though inside the viewport. (Fixed
/// content escapes it.)
fn compute_in_view(tree: &DomTree, clip: &Rect) -> Vec<bool> {
    let mut in_view = vec![true; tree.len()];
    // Per node: the nearest scroll container its content shows in (ROOT: none).
    let mut scroller = vec![DomTree::ROOT; tree.len()];
    for id in tree.descendants(DomTree::ROOT) {
        let up = tree.parent(id).unwrap_or(DomTree::ROOT);
        let mut sc = scroller[up];
        in_view[id] = match tree.element(id) {
            // A box with a place, if no area (a zero-height dialog left in
            // the page): where it lies, edges included, not where its
            // parent does. (No box at all, `display: contents`: the parent's.)
            Some(e) if e.rect.width > 0.0 || e.rect.height > 0.0 => {
                let style = e.style.as_ref();
                if style.is_some_and(|s| s.position == crate::dom::Position::Fixed) {
                    sc = DomTree::ROOT;
                }
                let r = &e.rect;
                let meets = |c: &Rect| match r.is_empty() {
                    true => r.x <= c.right() && c.x <= r.right() && r.y <= c.bottom() && c.y <= r.bottom(),
                    false => r.intersects(c),
                };
                let box_shows = |c: &crate::dom::ElementData| in_view[sc] && meets(&c.rect);
                let visible = meets(clip) && tree.element(sc).is_none_or(box_shows);
                if style.is_some_and(|s| s.scrollable) {
                    sc = id;
                }
                visible
            }
            _ => in_view[up],
        };
        scroller[id] = sc;
    }
    in_view
}

pub fn render(input: &RenderInput) -> Rendered {
    let sem = input.sem;
    let tree = sem.tree;
    let in_view = compute_in_view(tree, &input.clip);
    let mut offscreen = OffscreenCounts::default();
    let mut out: Vec<OutNode> = vec![OutNode {
        node: DomTree::ROOT,
        role: "",
        name: String::new(),
        tokens: String::new(),
        has_ref: false,
        url: None,
        value: None,
        children: Vec::new(),
        frame: None,
        gap: false,
    }];
    let mut rendered_refs = Vec::new();
    let mut frame_slots = Vec::new();
    let outline_mode = input.obscured_mode == ObscuredMode::Outline;
    // Per output node: what the outline counted under it.
    let mut tallies: Vec<(usize, Tally)> = Vec::new();

    // (node, output parent, an ancestor already carries [offscreen])
    let mut stack: Vec<(NodeId, usize, bool)> = vec![(input.root, 0, false)];
    while let Some((id, parent_out, marked_off)) = stack.pop() {
        if id == GAP {
            out[parent_out].gap = true;
            continue;
        }
        let node = tree.node(id);
        if sem.is_hidden(id) {
            // `visibility:hidden` hides only the element itself: a descendant
            // with `visibility:visible` shows again, so keep looking inside.
            let visibility_only = node
                .element()
                .and_then(|e| e.style.as_ref())
                .map(|s| s.visibility_hidden && s.display != crate::dom::Display::None)
                .unwrap_or(false);
            // (Blocking ancestors never push their children, so no need to look up.)
            if visibility_only {
                for &c in node.children.iter().rev() {
                    stack.push((c, parent_out, marked_off));
                }
            }
            continue;
        }
        match &node.kind {
            NodeKind::Text(t) => {
                let skipped = (input.mode == SnapshotMode::Viewport && !in_view[id])
                    || (input.obscured_mode != ObscuredMode::Mark && input.obscured.map(|o| o[id]).unwrap_or(false));
                let raw: &str = t;
                let t = normalized_text(raw);
                let parent = &mut out[parent_out];
                if skipped || t.is_empty() {
                    parent.gap = true;
                    continue;
                }
                let starts_apart = parent.gap || raw.starts_with(|c: char| c.is_ascii_whitespace());
                match parent.children.last_mut() {
                    Some(Item::Text(prev)) => {
                        let prev = prev.to_mut();
                        if starts_apart {
                            prev.push(' ');
                        }
                        prev.push_str(&t);
                    }
                    _ => parent.children.push(Item::Text(t)),
                }
                parent.gap = raw.ends_with(|c: char| c.is_ascii_whitespace());
                continue;
            }
            NodeKind::Document | NodeKind::ShadowRoot => {
                for &c in node.children.iter().rev() {
                    stack.push((c, parent_out, marked_off));
                }
                continue;
            }
            NodeKind::Element(_) => {}
        }
        let e = node.element().unwrap();
        let visible = in_view[id];
        let interactive = input.interactive[id];
        let obscured = input.obscured.map(|o| o[id]).unwrap_or(false);
        if obscured && input.obscured_mode == ObscuredMode::Drop {
            continue;
        }
        let is_frame = e.tag == "iframe" || e.tag == "frame";
        let role = sem.role(id);
        // Outlined: landmarks and headings stay, the rest is counted.
        let outlined = obscured && outline_mode;
        if outlined {
            let keep = outline::keep(role);
            // (A heading past the landmark's quota is counted by `list_heading`.)
            let listed = match keep {
                Keep::Counted => false,
                Keep::Landmark => true,
                Keep::Heading => {
                    (visible || input.mode == SnapshotMode::Full) && tally_of(&mut tallies, parent_out).list_heading()
                }
            };
            if is_frame || !listed {
                if keep != Keep::Heading {
                    tally_of(&mut tallies, parent_out).count(role);
                }
                if keep != Keep::Heading && !is_frame {
                    for &c in node.children.iter().rev() {
                        stack.push((c, parent_out, marked_off));
                    }
                }
                continue;
            }
        }
        if !visible && input.mode == SnapshotMode::Viewport {
            if let (true, Some(key)) = (e.tag == "iframe" || e.tag == "frame", e.frame_key.as_ref()) {
                let above = e.rect.bottom() <= input.clip.y;
                frame_slots.push(FrameSlot {
                    line: 0,
                    depth: 0,
                    key: key.clone(),
                    content_rect: e.rect,
                    obscured,
                    offscreen: Some(if above { "above" } else { "below" }.to_string()),
                });
            }
            if interactive && !obscured {
                if e.rect.bottom() <= input.clip.y {
                    offscreen.above += 1;
                } else if e.rect.y >= input.clip.bottom() {
                    offscreen.below += 1;
                }
            }
            // Children may still be on screen (fixed or absolutely positioned).
            for &c in node.children.iter().rev() {
                stack.push((c, parent_out, marked_off));
            }
            continue;
        }
        let mut role_name: Option<&'static str> = match role {
            None => None,
            Some("generic") | Some("none") | Some("presentation") => None,
            Some(r) if among(INLINE_ROLES, r) => None,
            Some(r) => Some(r),
        };
        if is_frame {
            role_name = Some("iframe");
        }
        let has_ref = interactive && !obscured && !input.modal_ancestors.contains(&id) && input.refs.contains_key(&id);
        if role_name.is_none() && has_ref {
            role_name = Some("generic");
        }
        // (Accessible names come whitespace-normalised.)
        let name = match role_name {
            Some(_) => sem.name(id),
            None => String::new(),
        };
        if let Some(r) = role_name {
            if name.is_empty() && !has_ref && DROP_WHEN_UNNAMED.contains(&r) && !is_frame {
                role_name = None;
            }
        }
        let Some(role_str) = role_name else {
            // A dissolved box of its own (a `div`, a `<br>`) still parts the
            // words before, in and after it.
            let block = e.tag == "br" || crate::semantics::names::is_block(e);
            if block {
                out[parent_out].gap = true;
                stack.push((GAP, parent_out, marked_off));
            }
            for &c in node.children.iter().rev() {
                stack.push((c, parent_out, marked_off));
            }
            continue;
        };

        let st = sem.states(id);
        let mut tokens = String::new();
        state_tokens(&st, &mut tokens);
        let mark_off = !visible && !marked_off;
        if mark_off {
            tokens.push_str(" [offscreen]");
        }
        if Some(id) == input.modal_root {
            tokens.push_str(" [modal]");
        }
        if obscured {
            tokens.push_str(" [obscured]");
        }
        if has_ref {
            if input.covered.map(|c| c.contains_key(&id)).unwrap_or(false) {
                tokens.push_str(" [covered]");
            }
            tokens.push_str(" [ref=");
            tokens.push_str(&input.refs[&id]);
            tokens.push(']');
            // The name is filled in once the lines are written.
            rendered_refs.push((id, out.len()));
        }
        let url = if role_str == "link" {
            e.attr("href")
                .filter(|h| !h.is_empty())
                .and_then(|h| display_url(h, input.page_url, input.origin))
        } else {
            None
        };
        let frame = if is_frame {
            e.frame_key.clone().map(|k| (k, e.rect))
        } else {
            None
        };
        let mut value = st.value.map(|v| normalize_ws(&v)).filter(|v| !v.is_empty());
        // A drop-down <select> shows its value and its choices on one line
        // instead of an option line each (the popup isn't open, and a
        // country list would cost hundreds of lines).
        let collapsed_select = e.tag == "select" && role_str == "combobox";
        if collapsed_select {
            value = Some(select_summary(sem, id, value));
        }
        let idx = out.len();
        out.push(OutNode {
            node: id,
            role: role_str,
            name,
            tokens,
            has_ref,
            url,
            value,
            children: Vec::new(),
            frame,
            gap: false,
        });
        out[parent_out].children.push(Item::Node(idx));
        let outlined_heading = outlined && role_str == "heading";
        // A textarea's text is its default value: what it holds now is the value.
        let field_text = e.tag == "textarea";
        if !is_frame && !collapsed_select && !outlined_heading && !field_text {
            for &c in node.children.iter().rev() {
                stack.push((c, idx, marked_off || !visible));
            }
        }
    }

    for (at, t) in &tallies {
        if let Some(note) = t.summary() {
            out[*at].children.push(Item::Note(note));
        }
    }

    // Drop text that only repeats the node's name (name from content).
    for n in out.iter_mut() {
        if n.name.is_empty() {
            continue;
        }
        let mut texts = n.children.iter().filter_map(|c| match c {
            Item::Text(t) => Some(t.as_ref()),
            _ => None,
        });
        // Most nodes have one text child: no joined copy for them.
        let repeats_name = match (texts.next(), texts.next()) {
            (None, _) => false,
            // (Equal is the common case, and far cheaper than a substring
            // search, which builds a searcher first.)
            (Some(t), None) => n.name == t || n.name.contains(t),
            (Some(a), Some(b)) => {
                let all = crate::words::join(&mut [a, b].into_iter().chain(texts), " ");
                n.name.contains(&all)
            }
        };
        if repeats_name {
            n.children.retain(|c| !matches!(c, Item::Text(_)));
        } else {
            let OutNode { name, children, .. } = n;
            children.retain(|c| !matches!(c, Item::Text(t) if t.as_ref() == name.as_str()));
        }
    }

    // Drop label text that restates a neighbouring control's name
    // (`<label>Email <input></label>` → just `textbox "Email"`).
    for i in 0..out.len() {
        let children = &out[i].children;
        if !children.iter().any(|c| matches!(c, Item::Text(_))) {
            continue;
        }
        // The name of a child node, if it has one.
        let name_at = |k: usize| match children.get(k) {
            Some(Item::Node(j)) if !out[*j].name.is_empty() => Some(out[*j].name.as_str()),
            _ => None,
        };
        let n = children.len();
        let mut keep = vec![true; n];
        for (k, c) in children.iter().enumerate() {
            let Item::Text(t) = c else { continue };
            let t = t.as_ref();
            let next = name_at(k + 1);
            let prev = if k > 0 { name_at(k - 1) } else { None };
            if next.is_some_and(|nm| nm.starts_with(t)) || prev.is_some_and(|nm| nm.ends_with(t)) {
                keep[k] = false;
                continue;
            }
            // Two labels merged into one text run: "<prev name> <next name>".
            let mut rest = t;
            if let Some(p) = prev {
                rest = rest.strip_prefix(p).unwrap_or(rest).trim_start();
            }
            if let Some(nx) = next {
                rest = rest.strip_suffix(nx).unwrap_or(rest).trim_end();
            }
            if rest.is_empty() {
                keep[k] = false;
            }
        }
        let mut k = 0;
        out[i].children.retain(|_| {
            k += 1;
            keep[k - 1]
        });
    }

    compact(&mut out);

    let mut lines = Vec::new();
    let mut stack: Vec<(&Item, usize)> = Vec::new();
    let root_children: Vec<&Item> = out[0].children.iter().collect();
    for c in root_children.into_iter().rev() {
        stack.push((c, 0));
    }
    while let Some((item, depth)) = stack.pop() {
        match item {
            Item::Text(t) => {
                let mut line = line_start(depth, 8 + t.len());
                line.push_str("text: ");
                line.push_str(t);
                lines.push(line);
            }
            Item::Note(note) => {
                let mut line = line_start(depth, note.len());
                line.push_str(note);
                lines.push(line);
            }
            Item::Node(i) => {
                let n = &out[*i];
                let mut line = line_start(depth, 8 + n.role.len() + n.name.len() + n.tokens.len());
                line.push_str(n.role);
                if !n.name.is_empty() {
                    line.push(' ');
                    push_quoted(&mut line, &n.name);
                }
                line.push_str(&n.tokens);
                let only_text = n.children.len() == 1 && matches!(n.children[0], Item::Text(_));
                if let Some((key, rect)) = &n.frame {
                    let obscured = input.obscured.map(|o| o[n.node]).unwrap_or(false);
                    frame_slots.push(FrameSlot {
                        obscured,
                        offscreen: None,
                        line: lines.len(),
                        depth,
                        key: key.clone(),
                        content_rect: *rect,
                    });
                    lines.push(line);
                    continue;
                }
                if let Some(u) = &n.url {
                    push_url_token(&mut line, u);
                }
                if n.value.is_some() && n.children.is_empty() {
                    line.push_str(": ");
                    line.push_str(n.value.as_deref().unwrap());
                    lines.push(line);
                } else if only_text {
                    if let Item::Text(t) = &n.children[0] {
                        line.push_str(": ");
                        line.push_str(t);
                    }
                    lines.push(line);
                } else if !n.children.is_empty() {
                    line.push(':');
                    lines.push(line);
                    for c in n.children.iter().rev() {
                        stack.push((c, depth + 1));
                    }
                } else {
                    lines.push(line);
                }
            }
        }
    }
    let rendered_refs = rendered_refs
        .into_iter()
        .map(|(id, at)| (id, std::mem::take(&mut out[at].name)))
        .collect();
    Rendered {
        lines,
        frame_slots,
        offscreen,
        rendered_refs,
        in_view,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_borrowed_only_when_already_collapsed() {
        for (raw, want) in [
            ("a b", "a b"),
            ("a  b", "a b"),
            (" a", "a"),
            ("a\n", "a"),
            ("a\tb", "a b"),
            ("a \nb", "a b"),
            ("a\u{a0} b", "a\u{a0} b"),
            (" \n ", ""),
            ("", ""),
        ] {
            let got = normalized_text(raw);
            assert_eq!(got, normalize_ws(raw), "{raw:?}");
            assert_eq!(got, want, "{raw:?}");
            assert_eq!(
                matches!(got, Cow::Borrowed(_)),
                raw == want && !raw.is_empty(),
                "{raw:?}"
            );
        }
    }
}
