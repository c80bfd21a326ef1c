//! The plain-data page model the pure core works on.
//!
//! The DOM adapter (`adapter/`, wasm32 only) fills a `DomTree` in one
//! iterative walk of the *composed* (flat) tree: a shadow host's children are
//! its shadow root's children, a slot's children are its assigned nodes (or its
//! fallback content), and an iframe is a leaf that carries a frame key. Host
//! tests build the same structure with `TreeBuilder`.
//!
//! Only facts the logic needs are recorded, so the walk stays cheap.

use crate::protocol::Rect;

pub type NodeId = usize;

/// Each document and each shadow root is its own id scope (for `id`,
/// `aria-labelledby`, `label[for]`).
pub type ScopeId = u32;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Display {
    None,
    /// `display: contents`: no box of its own, children still render.
    Contents,
    #[default]
    Block,
    Inline,
    InlineBlock,
    /// table, flex, grid, list-item…: block-like for text joining.
    Other,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Position {
    #[default]
    Static,
    Relative,
    Absolute,
    Fixed,
    Sticky,
}

/// Computed style facts. `None` on an element means style was not read
/// (it sits inside a `display:none` subtree).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Style {
    pub display: Display,
    /// `visibility: hidden | collapse` (inherited, can be overridden by children).
    pub visibility_hidden: bool,
    /// `content-visibility: hidden` on this element: its descendants are skipped.
    pub content_visibility_hidden: bool,
    pub cursor_pointer: bool,
    pub position: Position,
    /// Numeric z-index when not `auto`.
    pub z_index: Option<i32>,
    pub pointer_events_none: bool,
    /// The element's content overflows and it can be scrolled by the user.
    pub scrollable: bool,
    /// Text of `::before` / `::after` generated content, when any.
    pub before_content: Option<String>,
    pub after_content: Option<String>,
}

/// Live form state that is not visible through attributes.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct FormState {
    /// Current value of input / textarea / select (the selected option's label for select).
    pub value: Option<String>,
    pub checked: Option<bool>,
    pub indeterminate: bool,
    /// For `<option>`: currently selected.
    pub selected: Option<bool>,
    /// The element is editable (`isContentEditable`).
    pub content_editable: bool,
}

#[derive(Clone, PartialEq, Debug, Default)]
pub struct ElementData {
    /// Lower-case local name ("button", "my-widget").
    pub tag: String,
    /// Attributes the logic may need, names lower-case, in source order.
    pub attrs: Vec<(String, String)>,
    pub style: Option<Style>,
    /// Border box in this frame's viewport coordinates.
    pub rect: Rect,
    pub form: FormState,
    /// Has an `onclick` handler (attribute or property) or a listener the
    /// page registered through `addEventListener` (seen by the main-world hook).
    pub has_click_handler: bool,
    /// `<dialog>` that matches `:modal`.
    pub modal_dialog: bool,
    /// For iframes: the key that links the element to its child frame.
    pub frame_key: Option<String>,
    /// This element hosts a shadow root (open or caught closed one).
    pub shadow_host: bool,
    /// 1-based index among same-tag element siblings in the light DOM
    /// (for `:nth-of-type` selectors); 0 when unknown.
    pub nth_of_type: u32,
    /// The light-DOM parent when it differs from the flat-tree parent
    /// (slotted nodes hang under their slot in the flat tree).
    pub light_parent: Option<NodeId>,
    /// An `<img>` inside a link or a control that is still loading: it may
    /// have no size until it comes (read only there).
    pub loading_image: bool,
}

impl ElementData {
    /// The analysis asks every element about dozens of attributes, so this
    /// is among the hottest code of a snapshot: comparing lengths first
    /// rejects most names without a call to the string comparison.
    pub fn attr(&self, name: &str) -> Option<&str> {
        for (k, v) in &self.attrs {
            if k.len() == name.len() && k.as_bytes() == name.as_bytes() {
                return Some(v);
            }
        }
        None
    }
    pub fn has_attr(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }
    pub fn is(&self, tag: &str) -> bool {
        self.tag == tag
    }
}

#[derive(Clone, PartialEq, Debug)]
pub enum NodeKind {
    Document,
    /// A shadow root, kept in the tree so id scopes and selectors know the boundary.
    ShadowRoot,
    Element(Box<ElementData>),
    Text(String),
}

#[derive(Clone, PartialEq, Debug)]
pub struct Node {
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub kind: NodeKind,
    pub scope: ScopeId,
}

impl Node {
    pub fn element(&self) -> Option<&ElementData> {
        match &self.kind {
            NodeKind::Element(e) => Some(e),
            _ => None,
        }
    }
    pub fn text(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// Whether the static list `list` holds `s`. The analysis checks every
/// element's tag and role against many such lists; at opt-level "z" each
/// string comparison stays a call, so lengths are compared first (most
/// entries differ in length) and only equal lengths compare bytes.
pub fn among(list: &[&str], s: &str) -> bool {
    list.iter().any(|x| x.len() == s.len() && x.as_bytes() == s.as_bytes())
}

/// The flat tree of one frame. Node 0 is the document.
#[derive(Clone, PartialEq, Debug)]
pub struct DomTree {
    pub nodes: Vec<Node>,
    /// The order of construction, tracked so that subtrees can be iterated
    /// as id ranges (see [`DomTree::descendants`]).
    order: PreOrder,
}

/// While every node is pushed under the last node or one of its ancestors
/// (as a depth-first walk does), ids are in pre-order and each subtree is
/// the contiguous range from its root to `end`. Iterating a range is far
/// cheaper than keeping a stack of child lists, and the analysis makes
/// many passes over the whole tree and over small subtrees.
#[derive(Clone, PartialEq, Debug)]
struct PreOrder {
    holds: bool,
    /// The last node and its ancestors: the subtrees still open.
    open: Vec<NodeId>,
    /// The first id after each closed subtree (0 while it is open).
    end: Vec<NodeId>,
}

impl Default for DomTree {
    fn default() -> Self {
        DomTree::new()
    }
}

impl DomTree {
    pub const ROOT: NodeId = 0;

    pub fn new() -> Self {
        DomTree {
            nodes: vec![Node {
                parent: None,
                children: Vec::new(),
                kind: NodeKind::Document,
                scope: 0,
            }],
            order: PreOrder {
                holds: true,
                open: vec![Self::ROOT],
                end: vec![0],
            },
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }
    pub fn element(&self, id: NodeId) -> Option<&ElementData> {
        self.nodes[id].element()
    }
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        self.nodes[id].parent
    }
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        &self.nodes[id].children
    }
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        self.element(id).map(|e| e.tag.as_str())
    }
    pub fn attr(&self, id: NodeId, name: &str) -> Option<&str> {
        self.element(id).and_then(|e| e.attr(name))
    }

    /// Appends a node under `parent` and returns its id.
    pub fn push(&mut self, parent: NodeId, kind: NodeKind, scope: ScopeId) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(Node {
            parent: Some(parent),
            children: Vec::new(),
            kind,
            scope,
        });
        self.nodes[parent].children.push(id);
        let order = &mut self.order;
        if order.holds {
            // Subtrees left behind are complete.
            while let Some(&last) = order.open.last() {
                if last == parent {
                    break;
                }
                order.end[last] = id;
                order.open.pop();
            }
            // A parent off the open path: ids are no longer in pre-order.
            order.holds = !order.open.is_empty();
            order.open.push(id);
            order.end.push(0);
        }
        id
    }

    /// Nearest element ancestor (skipping shadow roots and the document).
    pub fn parent_element(&self, id: NodeId) -> Option<NodeId> {
        let mut cur = self.nodes[id].parent;
        while let Some(p) = cur {
            if self.nodes[p].element().is_some() {
                return Some(p);
            }
            cur = self.nodes[p].parent;
        }
        None
    }

    /// Element ancestors, nearest first.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.parent_element(id), move |&p| self.parent_element(p))
    }

    /// Pre-order iteration over the subtree rooted at `id` (including `id`).
    /// Iterative, so any depth is safe.
    pub fn descendants(&self, id: NodeId) -> Descendants<'_> {
        if self.order.holds {
            let end = match self.order.end[id] {
                0 => self.nodes.len(),
                end => end,
            };
            Descendants::Range(id..end)
        } else {
            Descendants::Stack {
                tree: self,
                stack: vec![id],
            }
        }
    }

    /// Finds the element with `id` in the given scope (first in tree order).
    pub fn by_id(&self, scope: ScopeId, id_value: &str) -> Option<NodeId> {
        self.nodes.iter().enumerate().find_map(|(i, n)| match &n.kind {
            NodeKind::Element(e) if n.scope == scope && e.attr("id") == Some(id_value) => Some(i),
            _ => None,
        })
    }
}

/// FNV-1a over the parts of a key, with separators between them.
pub fn key_hash(scope: ScopeId, parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    eat(&scope.to_le_bytes());
    for p in parts {
        eat(p.as_bytes());
    }
    h
}

/// Elements by the value of one attribute within their scope (`id` →
/// element, a label's `for` → labels). Sorted `hash << 32 | node` keys,
/// found by binary search and checked against the attribute itself, so a
/// collision costs a comparison, never a wrong answer. (Not a `HashMap`:
/// hashing and its tables cost ~3 KB of .wasm, while this sort of plain
/// `u64`s is one the engine has anyway.)
pub struct AttrIndex<'t> {
    tree: &'t DomTree,
    attr: &'static str,
    keys: Vec<u64>,
}

impl<'t> AttrIndex<'t> {
    /// The elements that carry `attr` and that `pick` keeps.
    pub fn new(tree: &'t DomTree, attr: &'static str, pick: impl Fn(&ElementData) -> bool) -> Self {
        let mut keys: Vec<u64> = (0..tree.len())
            .filter_map(|i| {
                let e = tree.element(i).filter(|e| pick(e))?;
                let v = e.attr(attr)?;
                Some((key_hash(tree.node(i).scope, &[v]) << 32) | i as u64)
            })
            .collect();
        keys.sort_unstable();
        AttrIndex { tree, attr, keys }
    }

    /// Every element whose `attr` is `value` in `scope`, in document order.
    pub fn all<'a>(&'a self, scope: ScopeId, value: &'a str) -> impl Iterator<Item = NodeId> + 'a {
        let hash = key_hash(scope, &[value]) << 32;
        let start = self.keys.partition_point(|&k| k < hash);
        self.keys[start..]
            .iter()
            .take_while(move |&&k| k & !0xffff_ffff == hash)
            .map(|&k| (k & 0xffff_ffff) as NodeId)
            .filter(move |&i| self.tree.node(i).scope == scope && self.tree.attr(i, self.attr) == Some(value))
    }

    /// The first element whose `attr` is `value` in `scope`.
    pub fn first(&self, scope: ScopeId, value: &str) -> Option<NodeId> {
        self.all(scope, value).next()
    }
}

pub enum Descendants<'a> {
    /// Ids in pre-order (see `PreOrder`).
    Range(std::ops::Range<NodeId>),
    Stack {
        tree: &'a DomTree,
        stack: Vec<NodeId>,
    },
}

impl Iterator for Descendants<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        match self {
            Descendants::Range(ids) => ids.next(),
            Descendants::Stack { tree, stack } => {
                let id = stack.pop()?;
                stack.extend(tree.nodes[id].children.iter().rev());
                Some(id)
            }
        }
    }
}

/// Convenience builder for host tests: nested calls describe a page.
///
/// ```
/// use sightline_engine::dom::TreeBuilder;
/// let mut b = TreeBuilder::new();
/// let form = b.el("form", &[("aria-label", "Login")]);
/// b.open(form);
/// b.el("input", &[("type", "email")]);
/// b.close();
/// let tree = b.finish();
/// assert_eq!(tree.len(), 3);
/// ```
pub struct TreeBuilder {
    tree: DomTree,
    stack: Vec<NodeId>,
    next_scope: ScopeId,
}

impl Default for TreeBuilder {
    fn default() -> Self {
        TreeBuilder::new()
    }
}

impl TreeBuilder {
    pub fn new() -> Self {
        TreeBuilder {
            tree: DomTree::new(),
            stack: vec![DomTree::ROOT],
            next_scope: 1,
        }
    }

    fn current(&self) -> NodeId {
        *self.stack.last().unwrap()
    }
    fn scope(&self) -> ScopeId {
        self.tree.nodes[self.current()].scope
    }

    /// Adds a visible element with a default 100x20 box and block display.
    pub fn el(&mut self, tag: &str, attrs: &[(&str, &str)]) -> NodeId {
        let data = ElementData {
            tag: tag.to_string(),
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            style: Some(Style::default()),
            rect: Rect::new(0.0, 0.0, 100.0, 20.0),
            ..Default::default()
        };
        self.el_with(data)
    }

    /// Adds an element with fully specified data.
    pub fn el_with(&mut self, data: ElementData) -> NodeId {
        let (parent, scope) = (self.current(), self.scope());
        self.tree.push(parent, NodeKind::Element(Box::new(data)), scope)
    }

    pub fn text(&mut self, t: &str) -> NodeId {
        let (parent, scope) = (self.current(), self.scope());
        self.tree.push(parent, NodeKind::Text(t.to_string()), scope)
    }

    /// Makes `id` the parent of the following nodes until `close`.
    pub fn open(&mut self, id: NodeId) {
        self.stack.push(id);
    }
    pub fn close(&mut self) {
        self.stack.pop();
    }

    /// Adds an element and immediately opens it.
    pub fn open_el(&mut self, tag: &str, attrs: &[(&str, &str)]) -> NodeId {
        let id = self.el(tag, attrs);
        self.open(id);
        id
    }

    /// Attaches a shadow root under the current element and opens it.
    pub fn open_shadow(&mut self) -> NodeId {
        let host = self.current();
        if let NodeKind::Element(e) = &mut self.tree.nodes[host].kind {
            e.shadow_host = true;
        }
        let scope = self.next_scope;
        self.next_scope += 1;
        let id = self.tree.push(host, NodeKind::ShadowRoot, scope);
        self.open(id);
        id
    }

    /// Mutable access to an element's data (to set style, rect, form state).
    pub fn data(&mut self, id: NodeId) -> &mut ElementData {
        match &mut self.tree.nodes[id].kind {
            NodeKind::Element(e) => e,
            _ => panic!("node {id} is not an element"),
        }
    }

    pub fn finish(self) -> DomTree {
        self.tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_and_traversal() {
        let mut b = TreeBuilder::new();
        let body = b.open_el("body", &[]);
        let btn = b.open_el("button", &[("id", "go")]);
        b.text("Go");
        b.close();
        let host = b.open_el("x-card", &[]);
        b.open_shadow();
        let inner = b.el("span", &[("id", "go")]);
        b.close();
        b.close();
        b.close();
        let t = b.finish();
        assert_eq!(t.parent_element(btn), Some(body));
        assert_eq!(t.parent_element(inner), Some(host));
        assert_eq!(t.by_id(0, "go"), Some(btn));
        assert_eq!(t.by_id(1, "go"), Some(inner));
        assert_eq!(t.descendants(DomTree::ROOT).count(), t.len());
        assert_eq!(t.ancestors(inner).collect::<Vec<_>>(), vec![host, body]);
    }

    /// The stack walk, for comparison with the range fast path.
    fn stack_order(t: &DomTree, id: NodeId) -> Vec<NodeId> {
        Descendants::Stack {
            tree: t,
            stack: vec![id],
        }
        .collect()
    }

    #[test]
    fn subtrees_are_id_ranges_while_built_depth_first() {
        let mut b = TreeBuilder::new();
        let body = b.open_el("body", &[]);
        let list = b.open_el("ul", &[]);
        let first = b.open_el("li", &[]);
        b.text("one");
        b.close();
        b.el("li", &[]);
        b.close();
        let host = b.open_el("x-card", &[]);
        b.open_shadow();
        b.el("span", &[]);
        b.close();
        b.close();
        b.el("p", &[]);
        let t = b.finish();
        assert!(matches!(t.descendants(DomTree::ROOT), Descendants::Range(_)));
        for id in [DomTree::ROOT, body, list, first, host, t.len() - 1] {
            assert_eq!(
                t.descendants(id).collect::<Vec<_>>(),
                stack_order(&t, id),
                "subtree of {id}"
            );
        }
        assert_eq!(t.descendants(first).count(), 2);
    }

    #[test]
    fn descendants_stay_in_tree_order_when_built_out_of_order() {
        let mut t = DomTree::new();
        let a = t.push(DomTree::ROOT, NodeKind::ShadowRoot, 0);
        let b = t.push(DomTree::ROOT, NodeKind::ShadowRoot, 0);
        // Under `a` after `b`: `a`'s subtree is no longer a range.
        let c = t.push(a, NodeKind::Text("c".into()), 0);
        assert!(matches!(t.descendants(DomTree::ROOT), Descendants::Stack { .. }));
        assert_eq!(
            t.descendants(DomTree::ROOT).collect::<Vec<_>>(),
            vec![DomTree::ROOT, a, c, b]
        );
        assert_eq!(t.descendants(a).collect::<Vec<_>>(), vec![a, c]);
    }

    #[test]
    fn descendants_is_iterative_for_deep_trees() {
        let mut b = TreeBuilder::new();
        for _ in 0..5000 {
            b.open_el("div", &[]);
        }
        let t = b.finish();
        assert_eq!(t.descendants(DomTree::ROOT).count(), 5001);
        assert_eq!(t.ancestors(5000).count(), 4999);
    }
}

/// A map keyed by `NodeId`, stored densely: cheaper than a `HashMap` in code
/// size (each HashMap instantiation costs wasm bytes) and in time.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeMap<T>(Vec<Option<T>>);

impl<T> NodeMap<T> {
    pub fn new(len: usize) -> Self {
        NodeMap((0..len).map(|_| None).collect())
    }
    pub fn insert(&mut self, id: NodeId, v: T) {
        self.0[id] = Some(v);
    }
    pub fn get(&self, id: &NodeId) -> Option<&T> {
        self.0.get(*id).and_then(|v| v.as_ref())
    }
    pub fn contains_key(&self, id: &NodeId) -> bool {
        self.get(id).is_some()
    }
    pub fn keys(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.0.iter().enumerate().filter_map(|(i, v)| v.as_ref().map(|_| i))
    }
    pub fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.0.iter().filter_map(|v| v.as_ref())
    }
}

impl<T> std::ops::Index<&NodeId> for NodeMap<T> {
    type Output = T;
    fn index(&self, id: &NodeId) -> &T {
        self.0[*id].as_ref().expect("no entry for node")
    }
}
