//! Hit-testing the live page: which modal is on top, and whether a ref'd
//! element actually receives a click at its action point.
use super::state::EngineState;
use crate::dom::{Display, DomTree, NodeId, NodeMap};
use crate::modal::ModalFinding;
use crate::protocol::Rect;
use crate::selector::{css_escape_ident, SHADOW_SEPARATOR};
use crate::snapshot::{clip_rect, PageProbe};
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Node};

pub struct LiveProbe<'a> {
    pub st: &'a EngineState,
    pub elements: &'a [Option<Element>],
    pub doc: Document,
    pub ref_prefix: String,
    /// This frame's own viewport (hit-testing only works inside it).
    pub viewport: Rect,
    pub ms: f64,
}

impl<'a> LiveProbe<'a> {
    pub fn new(
        st: &'a EngineState,
        elements: &'a [Option<Element>],
        doc: Document,
        ref_prefix: String,
        viewport: Rect,
    ) -> Self {
        LiveProbe {
            st,
            elements,
            doc,
            ref_prefix,
            viewport,
            ms: 0.0,
        }
    }

    fn deep_hit(&self, x: f64, y: f64) -> Option<Element> {
        deep_hit(&self.doc, x, y)
    }
}

/// The topmost element at a point, descending into shadow roots.
pub fn deep_hit(doc: &Document, x: f64, y: f64) -> Option<Element> {
    let mut hit = doc.element_from_point(x as f32, y as f32)?;
    for _ in 0..32 {
        let Some(root) = super::reads::shadow_root(&hit) else {
            break;
        };
        match root.element_from_point(x as f32, y as f32) {
            Some(inner) if inner != hit => hit = inner,
            _ => break,
        }
    }
    Some(hit)
}

/// The covering layer for a hit that missed `target`: the highest ancestor of
/// the hit that still doesn't contain the target (the cookie bar, not the span
/// the point landed on), or the highest positioned one among them: a layer
/// placed over the page from inside its content column is that layer, not
/// the column.
pub fn covering_layer(hit: &Element, target: &Element) -> Element {
    // The target's composed ancestors, once, in a JS Set: each step up from
    // the hit is then one `has` call instead of a walk up from the target.
    let chain = js_sys::Set::new(&wasm_bindgen::JsValue::UNDEFINED);
    let mut cur: Option<Node> = Some(target.clone().into());
    let mut steps = 0;
    while let Some(n) = cur {
        chain.add(n.as_ref());
        steps += 1;
        if steps > 10_000 {
            break;
        }
        cur = composed_parent(&n);
    }
    let placed = |e: &Element| {
        web_sys::window()
            .and_then(|w| w.get_computed_style(e).ok().flatten())
            .and_then(|cs| cs.get_property_value("position").ok())
            .is_some_and(|p| p != "static")
    };
    let mut layer = hit.clone();
    let mut positioned = placed(hit).then(|| hit.clone());
    for _ in 0..256 {
        let Some(p) = composed_parent(layer.as_ref()).and_then(|p| p.dyn_into::<Element>().ok()) else {
            break;
        };
        if chain.has(p.as_ref()) {
            break;
        }
        let tag = p.local_name();
        if tag == "body" || tag == "html" {
            break;
        }
        if placed(&p) {
            positioned = Some(p.clone());
        }
        layer = p;
    }
    positioned.unwrap_or(layer)
}

/// Parent in the composed (flat) tree: assigned slot, else parent, with
/// shadow roots stepping out to their host.
fn composed_parent(n: &Node) -> Option<Node> {
    if let Some(el) = n.dyn_ref::<Element>() {
        if let Some(slot) = el.assigned_slot() {
            return Some(slot.into());
        }
    }
    let p = n.parent_node()?;
    if let Some(root) = p.dyn_ref::<web_sys::ShadowRoot>() {
        return Some(root.host().into());
    }
    Some(p)
}

/// Whether a click at a point whose hit is `hit` reaches `target`: the hit
/// is inside the target, or it is the shadow host whose own shadow tree
/// holds the target. A point on slotted text gives back the host (the
/// text's parent), while the click travels through the slot to the target
/// (Shoelace's checkbox label). A host over its light children (a veil of
/// its own `::after`) does not count.
pub fn reaches(target: &Element, hit: &Element) -> bool {
    composed_contains(target, hit)
        || (super::reads::shadow_root(hit).is_some() && composed_contains(hit, target) && !hit.contains(Some(target)))
}

pub fn composed_contains(ancestor: &Element, node: &Element) -> bool {
    let target: &Node = ancestor.as_ref();
    let mut cur: Option<Node> = Some(node.clone().into());
    let mut steps = 0;
    while let Some(n) = cur {
        if &n == target {
            return true;
        }
        steps += 1;
        if steps > 10_000 {
            return false;
        }
        cur = composed_parent(&n);
    }
    false
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// A short CSS description of an element that has no ref.
pub fn short_selector(el: &Element) -> String {
    let tag = el.local_name();
    let id = el.id();
    if !id.is_empty() {
        return format!("{tag}#{}", css_escape_ident(&id));
    }
    let classes: Vec<String> = el
        .class_name()
        .split_whitespace()
        .take(2)
        .map(css_escape_ident)
        .collect();
    let base = if classes.is_empty() {
        tag
    } else {
        format!("{tag}.{}", crate::words::join_strings(&classes, "."))
    };
    // Say where it lives when it sits in a shadow root.
    match el.get_root_node().dyn_ref::<web_sys::ShadowRoot>() {
        Some(root) => format!("{}{SHADOW_SEPARATOR}{base}", short_selector(&root.host())),
        None => base,
    }
}

impl PageProbe for LiveProbe<'_> {
    fn modal_owners(&mut self, tree: &DomTree, candidates: &[ModalFinding]) -> Option<Vec<Option<usize>>> {
        let t0 = now_ms();
        let els: Vec<Option<&Element>> = candidates.iter().map(|c| self.elements[c.node].as_ref()).collect();
        let depth = |id: NodeId| tree.ancestors(id).count();
        let mut owners = Vec::with_capacity(candidates.len());
        for c in candidates {
            let rect = tree.element(c.node).map(|e| e.rect).unwrap_or_default();
            let owner = clip_rect(&rect, &self.viewport).and_then(|r| {
                let hit = self.deep_hit(r.x + r.width / 2.0, r.y + r.height / 2.0)?;
                (0..candidates.len())
                    .filter(|&i| els[i].map(|e| composed_contains(e, &hit)).unwrap_or(false))
                    .max_by_key(|&i| depth(candidates[i].node))
            });
            owners.push(owner);
        }
        self.ms += now_ms() - t0;
        Some(owners)
    }

    fn covered_by(&mut self, tree: &DomTree, node: NodeId, refs: &NodeMap<String>) -> Option<String> {
        let t0 = now_ms();
        let result = (|| {
            let own = self.elements[node].as_ref()?;
            let walked = tree.element(node)?;
            let clicked = super::reads::click_box(own);
            // Only an inline box breaks over lines: another's box is the one
            // the walk read (no second read for it).
            let inline = walked.style.as_ref().is_some_and(|s| s.display == Display::Inline);
            let rect = if &clicked == own && !inline {
                walked.rect
            } else {
                super::reads::aim_rect(&clicked)
            };
            let el = &clicked;
            let r = clip_rect(&rect, &self.viewport)?;
            // Centre first; two inner points as fallbacks for partly covered targets.
            // Small targets (typical buttons and links) are covered as a
            // whole when their centre is: one probe is enough.
            let points: &[(f64, f64)] = if r.width * r.height <= 48.0 * 48.0 {
                &[(0.5, 0.5)]
            } else {
                &[(0.5, 0.5), (0.25, 0.25), (0.75, 0.75)]
            };
            let mut first_hit: Option<Element> = None;
            for &(fx, fy) in points {
                let hit = self.deep_hit(r.x + r.width * fx, r.y + r.height * fy)?;
                if reaches(el, &hit) {
                    return None;
                }
                first_hit.get_or_insert(hit);
            }
            let hit = first_hit?;
            // Out of sight behind its container's clip (a collapsed menu's
            // items): nothing lies over it that a blocker removal could take away.
            if super::reads::clipped(el, r.x + r.width / 2.0, r.y + r.height / 2.0) {
                return None;
            }
            // Report the covering layer, not the span the point landed on:
            // climb while the ancestor still doesn't contain the target.
            let layer = covering_layer(&hit, el);
            if let Some(n) = self.st.existing_ref_number(&layer) {
                let r = format!("{}e{n}", self.ref_prefix);
                if refs.values().any(|v| *v == r) {
                    return Some(r);
                }
            }
            Some(short_selector(&layer))
        })();
        self.ms += now_ms() - t0;
        result
    }

    fn transparent(&mut self, _tree: &DomTree, node: NodeId) -> bool {
        self.elements[node].as_ref().is_some_and(super::reads::transparent)
    }

    fn scroll_metrics(&mut self, node: NodeId) -> Option<(f64, f64, f64)> {
        let e = self.elements[node].as_ref()?;
        // Only a box a user scrolls down, as `scroll` counts one.
        let (view, height) = (e.client_height() as f64, e.scroll_height() as f64);
        let down = web_sys::window()?
            .get_computed_style(e)
            .ok()??
            .get_property_value("overflow-y")
            .is_ok_and(|o| matches!(o.as_str(), "auto" | "scroll" | "overlay"));
        (down && height > view + 1.0).then(|| (e.scroll_top() as f64, view, height))
    }

    fn elapsed_ms(&self) -> f64 {
        self.ms
    }
}
