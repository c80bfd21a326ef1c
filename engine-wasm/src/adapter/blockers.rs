//! DOM side of removeBlocker: scan for candidates (with hit-test coverage),
//! check whether a blocker is gone, and — only when the driver's policy allows
//! it — remove one and undo the scroll locks it left behind.
use super::probe::{composed_contains, deep_hit};
use super::state::EngineState;
use super::{document, page_facts, walk};
use crate::blockers::{scan, HitInfo, ScanInput};
use crate::dom::NodeId;
use crate::interactive::compute_interactive;
use crate::protocol::BlockerScan;
use crate::selector::{selector_for, SelectorIndex};
use crate::semantics::Semantics;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Probe grid over the viewport for hit coverage.
const GRID_X: usize = 5;
const GRID_Y: usize = 4;

struct LiveHits<'a> {
    elements: &'a [Option<Element>],
    grid: Vec<Element>,
    center: Option<Element>,
}

impl HitInfo for LiveHits<'_> {
    fn coverage(&mut self, node: NodeId) -> f64 {
        let Some(el) = self.elements[node].as_ref() else {
            return 0.0;
        };
        if self.grid.is_empty() {
            return 0.0;
        }
        let inside = self.grid.iter().filter(|h| composed_contains(el, h)).count();
        inside as f64 / self.grid.len() as f64
    }
    fn covers_center(&mut self, node: NodeId) -> bool {
        match (self.elements[node].as_ref(), self.center.as_ref()) {
            (Some(el), Some(c)) => composed_contains(el, c),
            _ => false,
        }
    }
}

/// The page's blocker candidates; with `whole_document`, the document
/// itself as the one candidate (see `ScanInput::whole_document`).
pub fn scan_page(st: &EngineState, whole_document: bool) -> Result<BlockerScan, String> {
    let doc = document().map_err(|_| "no document".to_string())?;
    let walked = walk::walk_document_with(
        st,
        &doc,
        walk::WalkOptions {
            with_classes: true,
            ..Default::default()
        },
    );
    let facts = page_facts(&doc);
    let (vw, vh) = (facts.viewport.viewport_width, facts.viewport.viewport_height);
    let mut grid = Vec::new();
    for gy in 0..GRID_Y {
        for gx in 0..GRID_X {
            let x = vw * (gx as f64 + 0.5) / GRID_X as f64;
            let y = vh * (gy as f64 + 0.5) / GRID_Y as f64;
            if let Some(h) = deep_hit(&doc, x, y) {
                grid.push(h);
            }
        }
    }
    let center = deep_hit(&doc, vw / 2.0, vh / 2.0);
    let mut hits = LiveHits {
        elements: &walked.elements,
        grid,
        center,
    };
    let sem = Semantics::compute(&walked.tree);
    let interactive = compute_interactive(&sem);
    // Targets are numbered in document order first, as a snapshot numbers
    // them: a scan before any snapshot would otherwise hand the blocker's
    // buttons the first numbers, and the page's refs would start after them.
    for (n, el) in walked.elements.iter().enumerate() {
        if let (true, Some(el)) = (interactive[n], el) {
            st.ref_number(el);
        }
    }
    let index = SelectorIndex::new(&walked.tree);
    let tree = &walked.tree;
    let elements = &walked.elements;
    let mut target_of = |n: NodeId| match &elements[n] {
        Some(el) => format!("e{}", st.ref_number(el)),
        None => String::new(),
    };
    let selector_of = |n: NodeId| selector_for(tree, &index, n);
    let mut input = ScanInput {
        sem: &sem,
        interactive: &interactive,
        viewport: &facts.viewport,
        target_of: &mut target_of,
        selector_of: &selector_of,
        whole_document,
    };
    let candidates = scan(&mut input, &mut hits);
    Ok(BlockerScan {
        url: facts.url,
        candidates,
        viewport: facts.viewport,
    })
}

/// "gone: <why>" when the blocker no longer blocks, else "present".
pub fn state(el: &Element) -> String {
    if !el.is_connected() {
        return "gone: detached".into();
    }
    let r = el.get_bounding_client_rect();
    if r.width() <= 0.0 || r.height() <= 0.0 {
        return "gone: hidden".into();
    }
    let window = web_sys::window().expect("window");
    if let Some(cs) = window.get_computed_style(el).ok().flatten() {
        let prop = |p: &str| cs.get_property_value(p).unwrap_or_default();
        if prop("display") == "none" || prop("visibility") != "visible" || prop("opacity") == "0" {
            return "gone: hidden".into();
        }
    }
    let (cx, cy) = (r.x() + r.width() / 2.0, r.y() + r.height() / 2.0);
    let hit = window.document().and_then(|d| deep_hit(&d, cx, cy));
    match hit {
        Some(h) if composed_contains(el, &h) => "present".into(),
        _ => "gone: no longer covering".into(),
    }
}

/// Removes the blocker and undoes scroll locks; returns what was undone.
pub fn remove(el: &Element) -> Vec<String> {
    let mut undone = vec![format!("removed <{}>", el.local_name())];
    el.remove();
    let window = web_sys::window().expect("window");
    let Some(doc) = window.document() else { return undone };
    let roots: Vec<Element> = [doc.document_element(), doc.body().map(|b| b.unchecked_into())]
        .into_iter()
        .flatten()
        .collect();
    for root in &roots {
        let tag = root.local_name();
        let Some(cs) = window.get_computed_style(root).ok().flatten() else {
            continue;
        };
        let Some(style) = root.dyn_ref::<web_sys::HtmlElement>().map(|h| h.style()) else {
            continue;
        };
        let overflow = cs.get_property_value("overflow-y").unwrap_or_default();
        if overflow == "hidden" || overflow == "clip" {
            let _ = style.set_property_with_priority("overflow", "auto", "important");
            undone.push(format!("overflow:{overflow} on {tag}"));
        }
        if cs.get_property_value("position").unwrap_or_default() == "fixed" {
            // Scroll locks that fix the body keep the offset in `top`.
            let top = style.get_property_value("top").unwrap_or_default();
            let offset = crate::number::parse_decimal(top.trim_end_matches("px").trim()).unwrap_or(0.0);
            let _ = style.set_property_with_priority("position", "static", "important");
            let _ = style.set_property_with_priority("top", "auto", "important");
            window.scroll_to_with_x_and_y(0.0, -offset);
            undone.push(format!("position:fixed on {tag}"));
        }
    }
    if let Ok(list) = doc.query_selector_all("[inert]") {
        for i in 0..list.length() {
            if let Some(e) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let _ = e.remove_attribute("inert");
                undone.push(format!("inert on <{}>", e.local_name()));
            }
        }
    }
    if let Ok(list) = doc.query_selector_all("body > [aria-hidden=\"true\"]") {
        for i in 0..list.length() {
            if let Some(e) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let _ = e.remove_attribute("aria-hidden");
                undone.push(format!("aria-hidden on <{}>", e.local_name()));
            }
        }
    }
    undone
}
