//! The one place that reads the DOM for a snapshot: an iterative walk of the
//! composed (flat) tree into a plain `DomTree`.
//!
//! - shadow hosts: their shadow root's children (open roots, and closed ones
//!   the main-world hook attached in open mode);
//! - slots: their assigned nodes, else their fallback content;
//! - iframes: leaves carrying a frame key (the driver stitches child frames);
//! - `display:none` subtrees: recorded without style or boxes (names may still
//!   reference them through aria-labelledby);
//! - an explicit stack, so nesting depth is bounded only by memory.
use super::generated_content::{self, Scopes};
use super::js::{element_view, Keywords, StyleView};
use super::reads::{self, Child, Cursor, ElementFacts};
use super::state::EngineState;
use crate::box_guess;
use crate::dom::{Display, DomTree, ElementData, FormState, NodeId, NodeKind, Position, ScopeId, Style};
use crate::protocol::Rect;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// Elements whose subtree never renders or never matters to a user.
const SKIPPED_TAGS: &[&str] = &[
    "script", "style", "noscript", "template", "head", "meta", "link", "base",
];

/// Elements whose names come from content: read CSS generated content inside them.
const NAME_FROM_CONTENT_TAGS: &[&str] = &[
    "a", "button", "label", "summary", "legend", "caption", "th", "td", "option", "h1", "h2", "h3", "h4", "h5", "h6",
];

/// Hard cap on walked nodes: a snapshot of a pathological page stays bounded.
pub const MAX_NODES: usize = 400_000;

pub struct Walked {
    pub tree: DomTree,
    /// The live element behind each element node (None for other nodes).
    pub elements: Vec<Option<Element>>,
    pub truncated: bool,
}

/// A node waiting to be walked: an element with what `reads::children`
/// told about it, or a text's data (`None` when blank).
enum WorkItem {
    Element(Element, ElementFacts),
    Text(Option<String>),
}

struct Work {
    item: WorkItem,
    parent: NodeId,
    scope: ScopeId,
    /// Host of the current shadow scope (for slotted nodes' light parent).
    scope_host: Option<NodeId>,
    /// False inside a `display:none` subtree: no style or boxes are read.
    styled: bool,
    /// Inside an element whose name may come from content.
    name_ctx: bool,
    /// Inside an offscreen boundary (see `offscreen_boundary`): the
    /// boundary's box, which stands in for the boxes that are not read.
    offscreen: Option<Rect>,
    /// Index among same-name siblings (elements only).
    nth: u32,
    light_parent: Option<NodeId>,
    /// The parent's cursor is a pointer (read or inherited).
    pointer_parent: bool,
}

const ELEMENT_NODE: u16 = 1;
const TEXT_NODE: u16 = 3;

pub fn walk_document(state: &EngineState, doc: &web_sys::Document) -> Walked {
    walk_document_with(state, doc, WalkOptions::default())
}

/// What a walk reads beyond what every use needs. The default reads every
/// box and no classes.
#[derive(Clone, Copy, Default)]
pub struct WalkOptions {
    /// Also record `class` attributes (the blocker scan's close-button
    /// search needs them; snapshots don't, and reading them costs a
    /// conversion each), and read every box and position.
    pub with_classes: bool,
    /// What is only needed for rendered elements is read only for elements
    /// whose box meets this rect: CSS generated content (two
    /// `getComputedStyle(el, pseudo)` calls, ~1.8 µs each) and a link's
    /// resolved URL (`a.href` serialises a URL: ~1 µs, and a tenth of a
    /// viewport snapshot on a page of links). Elsewhere a link keeps its
    /// `href` attribute as written. A viewport-mode snapshot renders (and
    /// names) only what meets the viewport, so it passes the viewport with
    /// a margin; `None` reads both everywhere.
    pub names_clip: Option<Rect>,
    /// Elements whose box lies wholly outside this rect start an offscreen
    /// boundary (see `offscreen_boundary`): inside it most boxes are not
    /// read. Snapshots pass their viewport with half a viewport of margin on
    /// every side, so that no box within reach of the viewport is guessed.
    pub offscreen_clip: Option<Rect>,
    /// Don't read the boxes of plain containers (see `TagClass::PLAIN`)
    /// that are in the normal flow and don't scroll: a full-mode snapshot,
    /// which places only what it renders, needs none of them.
    pub skip_plain_boxes: bool,
}

pub fn walk_document_with(state: &EngineState, doc: &web_sys::Document, opts: WalkOptions) -> Walked {
    let WalkOptions {
        with_classes,
        names_clip,
        offscreen_clip,
        skip_plain_boxes,
    } = opts;
    let root = doc.document_element();
    let kw = &state.kw;
    let window = web_sys::window().expect("window");
    let mut tree = DomTree::new();
    let mut elements: Vec<Option<Element>> = vec![None];
    let mut next_scope: ScopeId = 1;
    // Shadow root and host element of each tree scope (index = ScopeId;
    // the document has neither).
    let mut scopes = Scopes {
        roots: vec![None],
        hosts: vec![None],
    };
    // Elements whose generated content may feed a name (read after the walk).
    let mut wanted_pseudo: Vec<NodeId> = Vec::new();
    // Plain containers whose box was not read (see `TagClass::PLAIN`), and
    // the box-less elements that may need one (see `place_boxless`).
    let mut unread_boxes: Vec<NodeId> = Vec::new();
    let mut boxless: Vec<NodeId> = Vec::new();
    // Box-less aria-modal elements (see `show_boxless_modals`).
    let mut boxless_modals: Vec<NodeId> = Vec::new();
    // Possible targets that were given their offscreen boundary's box (see
    // `confirm_guessed_boxes`).
    let mut guessed_targets: Vec<NodeId> = Vec::new();
    let mut truncated = false;
    let page = PageReads {
        kw,
        viewport: (
            window.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(1280.0),
            window.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(720.0),
        ),
        all_positions: with_classes,
        skip_plain_boxes: skip_plain_boxes && !with_classes,
    };
    // Links resolve against it (see `resolve_href`).
    let base_url = doc.base_uri().ok().flatten().unwrap_or_default();
    let mut stack: Vec<Work> = Vec::new();
    if let Some(root) = root {
        let facts = reads::element_facts(&root);
        stack.push(Work {
            item: WorkItem::Element(root, facts),
            parent: DomTree::ROOT,
            scope: 0,
            scope_host: None,
            styled: true,
            name_ctx: false,
            offscreen: None,
            nth: 1,
            light_parent: None,
            pointer_parent: false,
        });
    }

    while let Some(w) = stack.pop() {
        if tree.len() >= MAX_NODES {
            truncated = true;
            break;
        }
        let (el, facts) = match w.item {
            WorkItem::Element(el, facts) => (el, facts),
            WorkItem::Text(text) => {
                // Whitespace-only runs become one space without a string
                // conversion; they still separate inline words in names.
                let text = text.unwrap_or_else(|| " ".to_string());
                tree.push(w.parent, NodeKind::Text(text), w.scope);
                elements.push(None);
                continue;
            }
        };
        let class = state.tags.class(facts.tag_id);
        if class.has(TagClass::SKIPPED) {
            continue;
        }
        let tag = state.tags.name(facts.tag_id);
        let is_frame = class.has(TagClass::FRAME);
        let shadow = if is_frame || !facts.shadow_root {
            None
        } else {
            reads::shadow_root(&el)
        };
        let mut data = ElementData {
            tag,
            nth_of_type: w.nth,
            light_parent: w.light_parent,
            ..Default::default()
        };
        // Most attributes, `class` and `style` above all, never cross into Rust.
        data.attrs = reads::attributes(&el, with_classes);
        data.has_click_handler = facts.click_handler || data.has_attr("onclick");
        let mut styled = w.styled;
        let mut pseudo = false;
        let mut box_unread = false;
        let mut box_guessed = false;
        let mut ends_boundary = false;
        if styled && class.has(TagClass::UNSTYLED) {
            data.style = Some(Style::default());
        } else if styled {
            // A box-less leaf can't show anything: skip its style (zero
            // size counts as hidden) and save the reads.
            // (Unless it carries a name source: an empty `<a title>` still
            // exists for assistive tech, as Chromium exposes it.)
            let named = || {
                ["title", "aria-label", "aria-labelledby", "alt", "role", "href"]
                    .iter()
                    .any(|a| data.has_attr(a))
            };
            let childless = !facts.has_children && data.tag != "slot" && shadow.is_none();
            let leaf = childless && !named();
            // Inside an offscreen boundary a childless element reads its
            // own box all the same: a zero-size one is hidden (a leaf) or
            // no target (see `interactive`), and leaves are cheap to find.
            let own_rect = leaf || (childless && w.offscreen.is_some());
            if own_rect {
                data.rect = reads::rect(&el);
            }
            // An image still on its way inside a link or a control sizes
            // it once it comes: it is no hidden leaf, though empty now.
            data.loading_image = data.tag == "img" && w.name_ctx && reads::loading(&el);
            let style = if leaf && data.rect.is_empty() && !data.loading_image {
                Style {
                    display: Display::None,
                    ..Default::default()
                }
            } else {
                let cursor = cursor_read(&data, w.pointer_parent);
                // (A childless element has its own box already, and no
                // descendants to keep light: it is read as anywhere else.)
                let style = match w.offscreen.filter(|_| !own_rect) {
                    Some(boundary) => {
                        let target = may_be_target(&data, class);
                        let read = read_style_offscreen(kw, &el, &mut data, class, target, boundary, cursor, &facts);
                        // (An inherited pointer cursor makes no target.)
                        let pointer_starts = read.style.cursor_pointer && !w.pointer_parent;
                        box_guessed = read.guessed && (pointer_starts || target);
                        ends_boundary = read.ends_boundary;
                        read.style
                    }
                    None => {
                        let (style, unread) = read_style(&page, &el, &mut data, class, cursor, !own_rect, &facts);
                        box_unread = unread;
                        style
                    }
                };
                let rendered = names_clip.is_none_or(|clip| data.rect.intersects(&clip));
                pseudo = rendered && (class.has(TagClass::NAME_FROM_CONTENT) || (w.name_ctx && data.has_attr("role")));
                if rendered && data.tag == "a" {
                    resolve_href(&el, &mut data, &base_url);
                }
                style
            };
            if style.display == Display::None {
                styled = false;
                pseudo = false;
                data.rect = Rect::default();
            }
            data.style = Some(style);
        }
        // Children of an offscreen boundary stay light, unless this element
        // ends it (see `OffscreenRead`).
        let offscreen = match (w.offscreen, data.style.as_ref()) {
            (Some(boundary), Some(_)) if !ends_boundary => Some(boundary),
            // (Only what has descendants saves reads as a boundary: the
            // containment check costs four.)
            (_, Some(st)) if styled && (facts.has_children || shadow.is_some()) => {
                offscreen_boundary(&el, &data, st, offscreen_clip)
            }
            _ => None,
        };
        read_form_state(&el, &mut data);
        if data.tag == "dialog" {
            data.modal_dialog = el.matches(":modal").unwrap_or(false);
        }
        if is_frame {
            data.frame_key = Some(state.frame_key_for(&el));
        }
        data.shadow_host = shadow.is_some();
        let name_ctx = w.name_ctx || class.has(TagClass::NAME_FROM_CONTENT) || data.has_attr("role");
        let is_slot = data.tag == "slot";
        let pointer_parent = styled && data.style.as_ref().is_some_and(|s| s.cursor_pointer);
        let closed_details = styled && data.tag == "details" && !data.has_attr("open");
        let boxless_line = data.rect.is_empty() && !class.has(TagClass::PLAIN) && !class.has(TagClass::UNSTYLED);
        let boxless_modal = styled && data.rect.is_empty() && data.has_attr("aria-modal");
        let id = tree.push(w.parent, NodeKind::Element(Box::new(data)), w.scope);
        elements.push(Some(el.clone()));
        if pseudo {
            wanted_pseudo.push(id);
        }
        if box_guessed {
            guessed_targets.push(id);
        }
        if page.skip_plain_boxes && styled {
            if box_unread {
                unread_boxes.push(id);
            } else if boxless_line {
                boxless.push(id);
            }
            if boxless_modal {
                boxless_modals.push(id);
            }
        }
        if is_frame {
            continue;
        }

        let child_ctx = |child: Child, scope, scope_host, parent, light_parent| {
            let (item, nth) = match child {
                Child::Element(el, facts, nth) => (WorkItem::Element(el, facts), nth),
                Child::Text(text) => (WorkItem::Text(text), 0),
            };
            Work {
                item,
                parent,
                scope,
                scope_host,
                styled,
                name_ctx,
                offscreen,
                nth,
                light_parent,
                pointer_parent,
            }
        };
        let mut children: Vec<Work> = Vec::new();
        if let Some(root) = shadow {
            state.listen_in_shadow_root(&root);
            let scope = next_scope;
            next_scope += 1;
            scopes.roots.push(Some(root.clone()));
            scopes.hosts.push(Some(id));
            let root_id = tree.push(id, NodeKind::ShadowRoot, scope);
            elements.push(None);
            for child in reads::children(root.as_ref()) {
                children.push(child_ctx(child, scope, Some(id), root_id, None));
            }
        } else if is_slot && w.scope != 0 {
            let slot: &web_sys::HtmlSlotElement = el.unchecked_ref();
            let opts = web_sys::AssignedNodesOptions::new();
            opts.set_flatten(false);
            let assigned = slot.assigned_nodes_with_options(&opts);
            if assigned.length() > 0 {
                for v in assigned.iter() {
                    let node: Node = v.unchecked_into();
                    let child = match node.node_type() {
                        ELEMENT_NODE => {
                            let e: Element = node.unchecked_into();
                            let (facts, nth) = (reads::element_facts(&e), nth_of_type(&e));
                            Child::Element(e, facts, nth)
                        }
                        TEXT_NODE => Child::Text(reads::text(&node)),
                        _ => continue,
                    };
                    // Slotted nodes belong to the outer scope (the host's).
                    let outer_scope = tree.node(w.scope_host.unwrap_or(DomTree::ROOT)).scope;
                    let outer_host = scopes.hosts.get(outer_scope as usize).copied().flatten();
                    children.push(child_ctx(child, outer_scope, outer_host, id, w.scope_host));
                }
            } else {
                for child in reads::children(el.as_ref()) {
                    children.push(child_ctx(child, w.scope, w.scope_host, id, None));
                }
            }
        } else if facts.has_children {
            // (A childless element, half of them, costs no enumeration call.)
            // A closed <details> shows only its first <summary>: the rest is
            // hidden (see `semantics::hidden`), so its style and boxes are
            // not read, as in a display:none subtree.
            let mut summary_seen = !closed_details;
            for child in reads::children(el.as_ref()) {
                let mut work = child_ctx(child, w.scope, w.scope_host, id, None);
                let is_summary = |w: &Work| matches!(w.item, WorkItem::Element(_, f) if state.tags.class(f.tag_id).has(TagClass::SUMMARY));
                if !summary_seen && is_summary(&work) {
                    summary_seen = true;
                } else if closed_details {
                    work.styled = false;
                }
                children.push(work);
            }
        }
        stack.extend(children.into_iter().rev());
    }
    // (Marked only when some element may need a skipped box.)
    let needed = !boxless.is_empty() || !boxless_modals.is_empty();
    let mut unread = UnreadBoxes::new(&tree, if needed { &unread_boxes } else { &[] });
    place_boxless(&mut tree, &elements, &mut unread, &boxless);
    show_boxless_modals(&mut tree, &elements, &mut unread, &boxless_modals);
    confirm_guessed_boxes(&mut tree, &elements, &guessed_targets);
    generated_content::fill(state, doc, &mut tree, &elements, &wanted_pseudo, &scopes);
    Walked {
        tree,
        elements,
        truncated,
    }
}

/// The plain containers whose box the walk skipped (see
/// `TagClass::PLAIN`), for the few consumers that need one after all.
struct UnreadBoxes(Vec<bool>);

impl UnreadBoxes {
    fn new(tree: &DomTree, ids: &[NodeId]) -> Self {
        let mut unread = vec![false; if ids.is_empty() { 0 } else { tree.len() }];
        for &id in ids {
            unread[id] = true;
        }
        UnreadBoxes(unread)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Reads `id`'s box if the walk skipped it (once); whether it has one.
    fn read(&mut self, tree: &mut DomTree, elements: &[Option<Element>], id: NodeId) -> bool {
        if self.0.get(id).is_some_and(|&u| u) {
            self.0[id] = false;
            read_own_box(tree, elements, id);
        }
        tree.element(id).is_some_and(|e| !e.rect.is_empty())
    }
}

/// Reads the box of element `id` after the walk (its live element is kept
/// at the same index).
fn read_own_box(tree: &mut DomTree, elements: &[Option<Element>], id: NodeId) {
    if let (Some(el), NodeKind::Element(e)) = (&elements[id], &mut tree.nodes[id].kind) {
        e.rect = reads::rect(el);
    }
}

/// A box-less element that may show a line of its own (`boxless`: a
/// `display:contents` list, an empty link) is placed by its nearest
/// ancestor with a box (see `render::compute_in_view`). Plain containers'
/// boxes may have been skipped: those on its ancestor path are read now,
/// nearest first, until one has a box, so that it is placed as if every box
/// had been read.
fn place_boxless(tree: &mut DomTree, elements: &[Option<Element>], unread: &mut UnreadBoxes, boxless: &[NodeId]) {
    if unread.is_empty() {
        return;
    }
    for &id in boxless {
        let mut up = tree.parent(id);
        while let Some(a) = up {
            if unread.read(tree, elements, a) {
                break;
            }
            up = tree.parent(a);
        }
    }
}

/// A box-less aria-modal element (`display:contents`) counts as shown when
/// some descendant has a box in view (see `modal::reliable_modals`). When its content
/// is only plain containers, their boxes may have been skipped: they are
/// read now, in tree order, until one has a box.
fn show_boxless_modals(tree: &mut DomTree, elements: &[Option<Element>], unread: &mut UnreadBoxes, modals: &[NodeId]) {
    if unread.is_empty() {
        return;
    }
    for &id in modals {
        let inside: Vec<NodeId> = tree.descendants(id).skip(1).collect();
        for d in inside {
            if unread.read(tree, elements, d) {
                break;
            }
        }
    }
}

/// A possible target inside an offscreen boundary was given the boundary's
/// box; its size matters (a zero-size element is no target), so its own box
/// is read now unless it surely takes room (see `box_guess`).
fn confirm_guessed_boxes(tree: &mut DomTree, elements: &[Option<Element>], guessed: &[NodeId]) {
    for &id in guessed {
        let Some(guess) = tree.element(id).map(|e| e.rect) else {
            continue;
        };
        if !box_guess::has_in_flow_content(tree, id, &guess) {
            read_own_box(tree, elements, id);
        }
    }
}

/// Index among same-name element siblings (for slotted nodes, whose siblings
/// were not enumerated by the walk).
fn nth_of_type(e: &Element) -> u32 {
    let name = element_view(e).local_name_js();
    let mut k = 1;
    let mut p = e.previous_element_sibling();
    while let Some(s) = p {
        if element_view(&s).local_name_js() == name {
            k += 1;
        }
        p = s.previous_element_sibling();
    }
    k
}

/// Attributes the pure core reads (besides `aria-*` and `data-test*`).
pub const RELEVANT_ATTRS: &[&str] = &[
    "id",
    "role",
    "type",
    "name",
    "href",
    "alt",
    "title",
    "placeholder",
    "value",
    "for",
    "hidden",
    "inert",
    "disabled",
    "checked",
    "selected",
    "multiple",
    "size",
    "open",
    "contenteditable",
    "tabindex",
    "scope",
    "list",
    "required",
    "readonly",
    "label",
    "onclick",
    "data-qa",
    "data-cy",
    "popover",
    "headers",
    "draggable",
    "controls",
];

/// Prefixes of relevant attribute names.
pub const RELEVANT_PREFIXES: &[&str] = &["aria-", "data-test"];

/// The source of the JS regex that tells relevant attribute names apart
/// without converting them to Rust strings (most attributes, `class` and
/// `style` above all, are not needed).
pub fn relevant_attr_pattern() -> String {
    let alternatives = |names: &[&str]| crate::words::join(&mut names.iter().copied(), "|");
    format!(
        "^(?:{}|(?:{})$)",
        alternatives(RELEVANT_PREFIXES),
        alternatives(RELEVANT_ATTRS)
    )
}

/// Replaces a link's `href` attribute text by the resolved absolute URL
/// (what the snapshot prints and the ref map carries): by string work for
/// plain hrefs (`url_resolve`), else by asking the browser (`a.href`).
fn resolve_href(el: &Element, data: &mut ElementData, base_url: &str) {
    let Some(slot) = data.attrs.iter_mut().find(|(k, _)| k == "href") else {
        return;
    };
    if let Some(anchor) = el.dyn_ref::<web_sys::HtmlAnchorElement>() {
        slot.1 = crate::url_resolve::resolve_plain(base_url, &slot.1).unwrap_or_else(|| anchor.href());
    }
}

/// Elements that never get a CSS box of their own worth reading: their
/// style is not read (options live inside their select's popup).
const UNSTYLED_TAGS: &[&str] = &[
    "option", "optgroup", "br", "wbr", "source", "track", "col", "colgroup", "area", "param", "datalist",
];

/// What the walk needs to know about an element name, worked out once per
/// name (`TagNames` keeps it by tag id): the walk asks several lists about
/// every element, and a page has thousands of elements but a few dozen
/// names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TagClass(u16);

impl TagClass {
    /// `SKIPPED_TAGS`.
    pub const SKIPPED: u16 = 1;
    /// `iframe`, `frame`.
    pub const FRAME: u16 = 2;
    /// `UNSTYLED_TAGS`.
    pub const UNSTYLED: u16 = 4;
    /// `NAME_FROM_CONTENT_TAGS`.
    pub const NAME_FROM_CONTENT: u16 = 8;
    /// `TEXT_LEVEL_TAGS`.
    pub const TEXT_LEVEL: u16 = 16;
    /// `CONTROL_TAGS`.
    pub const CONTROL: u16 = 32;
    /// `summary`.
    pub const SUMMARY: u16 = 64;
    /// A container that never shows a line of its own in a snapshot (no
    /// role, `generic`, or an inline role the text format leaves out)
    /// unless it is a possible target: a `div` or a text-level element.
    /// When one isn't a target, sits in the normal flow (`position:
    /// static`) and doesn't scroll, nothing in a full-mode snapshot needs
    /// its box: it can't be a ref, a line marked `[offscreen]`, an overlay,
    /// a hit-test layer or a scroller. Its position and overflow keywords
    /// (~0.4 µs each) are read instead of its box (`getBoundingClientRect`,
    /// ~4 µs with the garbage it leaves, the dearest read of the walk). The
    /// cost: a box-less element inside it (`display:contents`, empty) would
    /// be placed by a further ancestor's box, and a box-less aria-modal
    /// element counts as shown only through its descendants' boxes, so
    /// `place_boxless` and `show_boxless_modals` read the boxes they need
    /// after the walk.
    pub const PLAIN: u16 = 128;

    pub fn of(tag: &str) -> Self {
        let bit = |yes: bool, bit: u16| if yes { bit } else { 0 };
        let text_level = TEXT_LEVEL_TAGS.contains(&tag);
        TagClass(
            bit(SKIPPED_TAGS.contains(&tag), Self::SKIPPED)
                | bit(tag == "iframe" || tag == "frame", Self::FRAME)
                | bit(UNSTYLED_TAGS.contains(&tag), Self::UNSTYLED)
                | bit(NAME_FROM_CONTENT_TAGS.contains(&tag), Self::NAME_FROM_CONTENT)
                | bit(text_level, Self::TEXT_LEVEL)
                | bit(CONTROL_TAGS.contains(&tag), Self::CONTROL)
                | bit(tag == "summary", Self::SUMMARY)
                | bit(text_level || tag == "div", Self::PLAIN),
        )
    }

    pub fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }
}

/// Elements that may be ref targets regardless of cursor, so their
/// `pointer-events` matters. (Not `details`: its `summary` is the target.)
const CONTROL_TAGS: &[&str] = &["a", "button", "input", "select", "textarea", "summary"];

/// Text-level elements: when one is laid out inline and nothing makes it a
/// possible target, its box adds nothing (its text is placed by its
/// parent's box, and inline boxes can neither scroll nor cover the page),
/// so its rect is not read: `getBoundingClientRect` is the dearest read
/// of the walk, and these are 10–30% of the elements of real pages. An
/// inline `label` is one too: it has no role of its own, and it is a target
/// only through a handler, a pointer cursor, a role or a tabindex.
const TEXT_LEVEL_TAGS: &[&str] = &[
    "span", "b", "i", "em", "strong", "small", "code", "abbr", "cite", "q", "s", "u", "mark", "sub", "sup", "time",
    "font", "bdi", "bdo", "kbd", "samp", "var", "dfn", "data", "del", "ins", "nobr", "big", "tt", "strike", "label",
];

/// The numeric z-index of a positioned element (`auto` leaves None).
fn read_z_index(kw: &Keywords, cs: &StyleView, style: &mut Style) {
    if style.position != Position::Static {
        let z = cs.z_index();
        if z != kw.auto {
            style.z_index = crate::number::parse_int(&String::from(&z)).and_then(|z| i32::try_from(z).ok());
        }
    }
}

/// Whether the walk reads an element's `cursor` (see `reads::Cursor`).
fn cursor_read(data: &ElementData, pointer_parent: bool) -> Cursor {
    if pointer_parent {
        Cursor::Inherited
    } else if crate::interactive::target_by_tag(data) {
        Cursor::Irrelevant
    } else {
        Cursor::Read
    }
}

/// A possible ref target whatever its cursor: its `pointer-events` matters.
/// (`has_click_handler` already covers an `onclick` attribute; something to
/// drag is a drag's target, and full snapshots skip plain boxes' rects.)
fn may_be_target(data: &ElementData, class: TagClass) -> bool {
    data.has_click_handler
        || class.has(TagClass::CONTROL)
        || data.has_attr("role")
        || data.has_attr("tabindex")
        || data.has_attr("contenteditable")
        || data.has_attr("draggable")
}

/// What `read_style` needs to know about the whole walk.
#[derive(Clone, Copy)]
struct PageReads<'a> {
    kw: &'a Keywords,
    /// The window's inner size.
    viewport: (f64, f64),
    /// Read the position of every box, and every rect (the blocker scan).
    all_positions: bool,
    /// See `WalkOptions::skip_plain_boxes`.
    skip_plain_boxes: bool,
}

/// Reads the computed style facts the pure core needs, and no more: every
/// property read costs ~0.45 µs in Chromium, which dominates the walk.
/// Always (one batched call, `reads::style_keys`): display, visibility, and
/// cursor where it can decide a ref. Only where they can matter: position and
/// z-index (boxes big enough to be overlays or bars), overflow (boxes big
/// enough to scroll), pointer-events (possible targets), content-visibility
/// (`hidden=until-found`). Generated content is read after the walk (see
/// `generated_content`).
///
/// `read_rect_too`: also read the element's rect (it wasn't yet), unless it
/// is an inline text-level element that can't be a target (see
/// `TEXT_LEVEL_TAGS`). With `page.all_positions` (the blocker scan) every
/// rect is read.
fn read_style(
    page: &PageReads,
    el: &Element,
    data: &mut ElementData,
    class: TagClass,
    cursor: Cursor,
    read_rect_too: bool,
    facts: &ElementFacts,
) -> (Style, bool) {
    let PageReads {
        kw,
        viewport,
        all_positions,
        skip_plain_boxes,
    } = *page;
    let target = may_be_target(data, class);
    let plain = skip_plain_boxes && !target && class.has(TagClass::PLAIN);
    let keys = reads::style_keys(el, target, cursor, plain);
    let display = keys.display;
    if display == Display::None {
        let style = Style {
            display,
            ..Default::default()
        };
        return (style, false);
    }
    let cursor_pointer = keys.cursor_pointer;
    let mut style = Style {
        display,
        visibility_hidden: keys.visibility_hidden,
        cursor_pointer,
        pointer_events_none: keys.pointer_events_none,
        ..Default::default()
    };
    let candidate = cursor_pointer || target;
    // The rest of the declaration, fetched only where a rarer read needs it.
    let last = std::cell::OnceCell::new();
    let cs = || last.get_or_init(reads::last_style);
    let boxless_text = display == Display::Inline && !candidate && !all_positions && class.has(TagClass::TEXT_LEVEL);
    // (`position` is read only when the cursor isn't a pointer, so also
    // when the element isn't a candidate.)
    let unplaced_plain = plain && keys.position == Some(Position::Static) && !keys.overflow_scrolls;
    if read_rect_too && !boxless_text && !unplaced_plain {
        data.rect = reads::rect(el);
    }
    let r = &data.rect;
    let (vw, vh) = viewport;
    let big = all_positions || r.width >= 0.5 * vw || r.width * r.height >= 0.05 * vw * vh;
    if big {
        style.position = keys.position.unwrap_or_else(reads::last_position);
        read_z_index(kw, cs(), &mut style);
    }
    let may_scroll = display != Display::Contents
        && display != Display::Inline
        && big_enough_to_scroll(r)
        && data.tag != "html"
        && data.tag != "body"
        && facts.has_children
        // (A plain container's overflow is known already.)
        && (keys.position.is_none() || keys.overflow_scrolls);
    if may_scroll && (keys.overflow_scrolls || reads::last_overflow_scrolls()) {
        style.scrollable = overflows(el);
    }
    if data.has_attr("hidden") {
        style.content_visibility_hidden = cs().content_visibility() == kw.hidden;
    }
    (style, read_rect_too && unplaced_plain)
}

/// Boxes smaller than this either way don't count as scroll containers.
fn big_enough_to_scroll(r: &Rect) -> bool {
    r.width >= 40.0 && r.height >= 40.0
}

/// A box whose overflow scrolls has content beyond its size (it gets a ref
/// then, so that the agent can scroll it).
fn overflows(el: &Element) -> bool {
    el.child_element_count() > 0
        && (el.scroll_height() > el.client_height() + 1 || el.scroll_width() > el.client_width() + 1)
}

/// Positioned out of the normal flow: its box needn't lie inside its parent's.
fn out_of_flow(style: &Style) -> bool {
    matches!(style.position, Position::Absolute | Position::Fixed | Position::Sticky)
}

/// Inside an offscreen boundary, whether an element reads its own box and
/// its children are walked as if there were no boundary (unless its box
/// starts one of its own): out-of-flow boxes may be anywhere, a frame's box
/// places its document, and an aria-modal element counts as shown through
/// its own box or its descendants' (see `modal::reliable_modals`), which
/// must not be guessed. (So does a clipping box found empty: see
/// `read_style_offscreen`.)
fn leaves_boundary(data: &ElementData, class: TagClass, style: &Style) -> bool {
    out_of_flow(style) || class.has(TagClass::FRAME) || data.has_attr("aria-modal")
}

/// An element whose box lies wholly outside `clip` (the viewport with a
/// margin) and whose content does not overflow it becomes an offscreen
/// boundary: its descendants are read lightly (see `read_style_offscreen`).
/// In-flow descendants stay inside the boundary's box, so they are
/// offscreen on the same side; out-of-flow ones (absolute, fixed, sticky)
/// read their own box and may end the boundary. Descendants moved by a
/// transform, a relative offset or a negative margin are not followed: they
/// count as offscreen with their boundary (the margin of `clip` keeps this
/// to moves of half a viewport or more). The overflow check costs a few
/// reads, once per boundary.
fn offscreen_boundary(el: &Element, data: &ElementData, style: &Style, clip: Option<Rect>) -> Option<Rect> {
    let clip = clip?;
    let r = data.rect;
    if r.is_empty()
        || r.intersects(&clip)
        || matches!(style.display, Display::None | Display::Contents | Display::Inline)
    {
        return None;
    }
    let contained = el.scroll_height() <= el.client_height() + 1 && el.scroll_width() <= el.client_width() + 1;
    contained.then_some(r)
}

/// What `read_style_offscreen` found.
struct OffscreenRead {
    style: Style,
    /// The element was given the boundary's box.
    guessed: bool,
    /// Its children are walked without the boundary (see `leaves_boundary`).
    ends_boundary: bool,
}

/// The light read inside an offscreen boundary: the same keywords and form
/// state as `read_style`, plus position to notice out-of-flow boxes and
/// overflow to notice scroll containers, but no box (`getBoundingClientRect`
/// is the dearest read of the walk): the element gets the boundary's box
/// instead, which places it offscreen on the right side. (Childless
/// elements read their own box and style as anywhere else: see
/// `walk_document_with`.) Read all the same: the box of an element that
/// leaves the boundary (see `leaves_boundary`), of a possible scroll
/// container (its size decides), and of a box that clips its content: when
/// that is empty, so may be its in-flow descendants' (`width:0;
/// overflow:hidden` hides content from the eye), and they are read as if
/// there were no boundary. A `display:contents` element gets no box, as its
/// own rect would say. A possible target's guessed box is checked after the
/// walk (see `confirm_guessed_boxes`). `target`: `may_be_target`.
#[allow(clippy::too_many_arguments)]
fn read_style_offscreen(
    kw: &Keywords,
    el: &Element,
    data: &mut ElementData,
    class: TagClass,
    target: bool,
    boundary: Rect,
    cursor: Cursor,
    facts: &ElementFacts,
) -> OffscreenRead {
    let keys = reads::style_keys_offscreen(el, target, cursor, facts.has_children);
    if keys.display == Display::None {
        let style = Style {
            display: Display::None,
            ..Default::default()
        };
        return OffscreenRead {
            style,
            guessed: false,
            ends_boundary: false,
        };
    }
    let mut style = Style {
        display: keys.display,
        visibility_hidden: keys.visibility_hidden,
        cursor_pointer: keys.cursor_pointer,
        pointer_events_none: keys.pointer_events_none,
        position: keys.position.unwrap_or_default(),
        ..Default::default()
    };
    let leaves = leaves_boundary(data, class, &style);
    // (A select clips by default, but its options are drawn by the control,
    // not laid out in its box: it is guessed like any control.)
    let clips = keys.overflow_clips && data.tag != "select";
    // (With font-size 0 even text may take no room: see `box_guess`.)
    let guessed = keys.display != Display::Contents && !leaves && !clips && !keys.font_size_zero;
    if keys.display == Display::Contents {
        data.rect = Rect::default();
    } else if guessed {
        data.rect = boundary;
    } else {
        data.rect = reads::rect(el);
    }
    if out_of_flow(&style) {
        read_z_index(kw, &reads::last_style(), &mut style);
    }
    if keys.overflow_scrolls && big_enough_to_scroll(&data.rect) {
        style.scrollable = overflows(el);
    }
    if data.has_attr("hidden") {
        style.content_visibility_hidden = reads::last_style().content_visibility() == kw.hidden;
    }
    // A scrolled scroll container may show content from far away in its
    // box: its subtree is read in full.
    let scrolled = keys.overflow_scrolls && (el.scroll_top() != 0 || el.scroll_left() != 0);
    let ends_boundary = leaves || scrolled || (clips && data.rect.is_empty());
    OffscreenRead {
        style,
        guessed,
        ends_boundary,
    }
}

fn read_form_state(el: &Element, data: &mut ElementData) {
    let mut form = FormState::default();
    match data.tag.as_str() {
        "input" => {
            let input: &web_sys::HtmlInputElement = el.unchecked_ref();
            let ty = data.attr("type").unwrap_or("text").to_ascii_lowercase();
            match ty.as_str() {
                "checkbox" | "radio" => {
                    form.checked = Some(input.checked());
                    form.indeterminate = input.indeterminate();
                }
                // Never read a password's value: it must not reach any output.
                "password" | "hidden" => {}
                // The files chosen, by name.
                "file" => form.value = Some(reads::files(el)).filter(|f| !f.is_empty()),
                _ => form.value = Some(input.value()),
            }
        }
        "textarea" => {
            let ta: &web_sys::HtmlTextAreaElement = el.unchecked_ref();
            form.value = Some(ta.value());
        }
        "select" => {
            let sel: &web_sys::HtmlSelectElement = el.unchecked_ref();
            let i = sel.selected_index();
            if i >= 0 {
                if let Some(opt) = sel.item(i as u32) {
                    let opt: web_sys::HtmlOptionElement = opt.unchecked_into();
                    form.value = Some(opt.label());
                }
            }
        }
        "option" => {
            let opt: &web_sys::HtmlOptionElement = el.unchecked_ref();
            form.selected = Some(opt.selected());
        }
        // A player the page shows: whether it plays is its value.
        "audio" | "video" if data.has_attr("controls") => form.value = Some(reads::media(el)),
        _ => {}
    }
    if data.has_attr("contenteditable") {
        if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
            form.content_editable = h.is_content_editable();
        }
    }
    data.form = form;
}
