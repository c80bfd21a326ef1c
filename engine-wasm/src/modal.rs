//! Modal detection (`isModalLike`) and the occlusion mask.
//!
//! Reliable signals make everything outside the modal unreachable in the
//! snapshot: `role=dialog|alertdialog` with `aria-modal="true"`, a `<dialog>`
//! matching `:modal`, and a page made inert around one element. Heuristic
//! overlays (fixed/absolute, covering >70% of the viewport both ways, on top by
//! z-index or as the last child of body) only produce a warning: soft panels,
//! toasts and non-modal dialogs must never hide the page from the model.
use crate::dom::{DomTree, NodeId, Position};
use crate::protocol::{Rect, ViewportInfo};
use crate::semantics::Semantics;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ModalKind {
    Aria,
    Dialog,
    Inert,
    Heuristic,
}

impl ModalKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ModalKind::Aria => "aria",
            ModalKind::Dialog => "dialog",
            ModalKind::Inert => "inert",
            ModalKind::Heuristic => "heuristic",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ModalFinding {
    pub node: NodeId,
    pub kind: ModalKind,
}

/// Share of the viewport a heuristic overlay must cover, in each dimension.
const OVERLAY_COVERAGE: f64 = 0.7;
/// z-index above which a big fixed layer is "on top".
const OVERLAY_Z_INDEX: i32 = 1000;

fn in_view(tree: &DomTree, id: NodeId, view: &Rect) -> bool {
    tree.element(id)
        .is_some_and(|e| !e.rect.is_empty() && e.rect.intersects(view))
}

/// Every reliable modal that is currently shown, in document order. An
/// aria-modal element is shown when its box, or a descendant's, meets
/// `view` (the frame's viewport): a drawer slid out of the window
/// (`translateX(100%)`), left in the page, hides nothing.
pub fn reliable_modals(sem: &Semantics, view: &Rect) -> Vec<ModalFinding> {
    let tree = sem.tree;
    let mut out = Vec::new();
    for id in tree.descendants(DomTree::ROOT) {
        let Some(e) = tree.element(id) else { continue };
        if sem.is_hidden(id) {
            continue;
        }
        if e.tag == "dialog" && e.modal_dialog {
            out.push(ModalFinding {
                node: id,
                kind: ModalKind::Dialog,
            });
            continue;
        }
        let role = sem.role(id);
        if matches!(role, Some("dialog") | Some("alertdialog"))
            && e.attr("aria-modal")
                .map(|v| v.trim().eq_ignore_ascii_case("true"))
                .unwrap_or(false)
            && tree.descendants(id).any(|d| in_view(tree, d, view))
        {
            out.push(ModalFinding {
                node: id,
                kind: ModalKind::Aria,
            });
        }
    }
    if let Some(inert) = inert_spared_element(sem) {
        if !out
            .iter()
            .any(|m| m.node == inert || tree.ancestors(m.node).any(|a| a == inert))
        {
            out.push(ModalFinding {
                node: inert,
                kind: ModalKind::Inert,
            });
        }
    }
    out
}

/// The one element left interactive when the page around it was made
/// `inert`: walking down from `<body>`, the single non-inert rendered child
/// at the first level that has inert siblings.
fn inert_spared_element(sem: &Semantics) -> Option<NodeId> {
    let tree = sem.tree;
    let body = tree
        .descendants(DomTree::ROOT)
        .find(|&id| tree.tag(id) == Some("body"))?;
    let mut cur = body;
    for _ in 0..64 {
        let kids: Vec<NodeId> = tree
            .children(cur)
            .iter()
            .copied()
            .filter(|&c| tree.element(c).is_some())
            .collect();
        let inert_count = kids.iter().filter(|&&c| tree.attr(c, "inert").is_some()).count();
        let live: Vec<NodeId> = kids
            .iter()
            .copied()
            .filter(|&c| tree.attr(c, "inert").is_none() && !sem.is_hidden(c))
            .collect();
        if live.len() != 1 {
            return None;
        }
        if inert_count > 0 {
            return Some(live[0]);
        }
        cur = live[0];
    }
    None
}

/// Picks the modal on top. `owner_of_center[i]` is, when the adapter could
/// hit-test, the index of the candidate that contains the element found at
/// candidate i's centre. Without hit-testing: the most deeply nested
/// candidate, then the last in document order (the one opened last).
pub fn pick_topmost(
    tree: &DomTree,
    found: &[ModalFinding],
    owner_of_center: Option<&[Option<usize>]>,
) -> Option<ModalFinding> {
    if found.is_empty() {
        return None;
    }
    if let Some(owners) = owner_of_center {
        let mut votes = vec![0usize; found.len()];
        for o in owners.iter().flatten() {
            votes[*o] += 1;
        }
        let best = (0..found.len())
            .filter(|&i| owners.get(i).copied().flatten() == Some(i))
            .max_by_key(|&i| (votes[i], i));
        if let Some(i) = best {
            return Some(found[i]);
        }
    }
    let depth = |id: NodeId| tree.ancestors(id).count();
    found
        .iter()
        .copied()
        .enumerate()
        .max_by_key(|(i, m)| (depth(m.node), *i))
        .map(|(_, m)| m)
}

/// Raised over the page's overlays by its z-index (`OVERLAY_Z_INDEX`).
pub fn raised_on_top(tree: &DomTree, id: NodeId) -> bool {
    tree.element(id)
        .and_then(|e| e.style.as_ref()?.z_index)
        .is_some_and(|z| z > OVERLAY_Z_INDEX)
}

/// A large overlay without modal semantics (warning only).
pub fn heuristic_overlay(sem: &Semantics, viewport: &ViewportInfo) -> Option<NodeId> {
    let tree = sem.tree;
    let vw = viewport.viewport_width;
    let vh = viewport.viewport_height;
    if vw <= 0.0 || vh <= 0.0 {
        return None;
    }
    let view = Rect::new(0.0, 0.0, vw, vh);
    let body = tree.descendants(DomTree::ROOT).find(|&id| tree.tag(id) == Some("body"));
    let last_body_child = body.and_then(|b| {
        tree.children(b)
            .iter()
            .rev()
            .copied()
            .find(|&c| tree.element(c).is_some() && !sem.is_hidden(c))
    });
    let mut best: Option<(NodeId, i32)> = None;
    for id in tree.descendants(DomTree::ROOT) {
        let Some(e) = tree.element(id) else { continue };
        let Some(style) = e.style.as_ref() else { continue };
        if sem.is_hidden(id) || style.pointer_events_none {
            continue;
        }
        if !matches!(style.position, Position::Fixed | Position::Absolute) {
            continue;
        }
        let r = e.rect;
        let w = (r.right().min(view.right()) - r.x.max(0.0)).max(0.0);
        let h = (r.bottom().min(view.bottom()) - r.y.max(0.0)).max(0.0);
        if w < OVERLAY_COVERAGE * vw || h < OVERLAY_COVERAGE * vh {
            continue;
        }
        let z = style.z_index.unwrap_or(0);
        if !raised_on_top(tree, id) && Some(id) != last_body_child {
            continue;
        }
        // The overlay must show something: an empty full-screen layer is
        // usually a backdrop, whose sibling content is the real overlay.
        if !tree.descendants(id).any(|d| {
            d != id && (tree.node(d).text().map(|t| !t.trim().is_empty()).unwrap_or(false) || tree.element(d).is_some())
        }) {
            continue;
        }
        if best.map(|(_, bz)| z >= bz).unwrap_or(true) {
            best = Some((id, z));
        }
    }
    best.map(|(id, _)| id)
}

/// Per node: outside the modal (and not one of its ancestors), so unreachable.
pub fn obscured_mask(tree: &DomTree, modal: NodeId) -> Vec<bool> {
    let mut mask = vec![true; tree.len()];
    for d in tree.descendants(modal) {
        mask[d] = false;
    }
    let mut cur = tree.parent(modal);
    while let Some(p) = cur {
        mask[p] = false;
        cur = tree.parent(p);
    }
    mask
}

/// Everything obscured except the chain to one iframe (a modal is open in a
/// child frame) — or everything, when `keep` is None.
pub fn obscure_all_except(tree: &DomTree, keep: Option<NodeId>) -> Vec<bool> {
    match keep {
        Some(k) => obscured_mask(tree, k),
        None => vec![true; tree.len()],
    }
}

/// A short human description of an element for header comments.
pub fn describe(sem: &Semantics, id: NodeId) -> String {
    let tree = sem.tree;
    let role = sem
        .role(id)
        .filter(|r| !matches!(*r, "generic" | "none" | "presentation"));
    let name = crate::render::normalize_ws(&sem.name(id));
    let label = if !name.is_empty() {
        name
    } else {
        let mut text = String::new();
        for d in tree.descendants(id) {
            if sem.is_hidden(d) {
                continue;
            }
            if let Some(t) = tree.node(d).text() {
                text.push_str(t);
                text.push(' ');
                if text.len() > 120 {
                    break;
                }
            }
        }
        crate::render::normalize_ws(&text)
    };
    let label: String = if label.chars().count() > 60 {
        label.chars().take(60).collect::<String>() + "…"
    } else {
        label
    };
    match (role, label.is_empty()) {
        (Some(r), false) => format!("{r} \"{label}\""),
        (Some(r), true) => r.to_string(),
        (None, false) => format!("\"{label}\""),
        (None, true) => tree.tag(id).unwrap_or("element").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{Style, TreeBuilder};
    use crate::viewport::viewport_info;

    fn vp_rect() -> Rect {
        crate::viewport::viewport_rect(&vp())
    }

    #[test]
    fn a_modal_out_of_the_window_is_not_shown() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let drawer = b.open_el("div", &[("role", "dialog"), ("aria-modal", "true")]);
        b.data(drawer).rect = Rect::new(1000.0, 0.0, 300.0, 800.0);
        let inside = b.el("button", &[]);
        b.data(inside).rect = Rect::new(1010.0, 10.0, 80.0, 20.0);
        let t = b.finish();
        let sem = Semantics::compute(&t);
        assert_eq!(reliable_modals(&sem, &vp_rect()), vec![]);
        // Slid in by a tenth of its width, it is shown.
        let wider = Rect::new(0.0, 0.0, 1030.0, 800.0);
        assert_eq!(reliable_modals(&sem, &wider).len(), 1);

        // Scaled to nothing (`transform: scale(0)`) in the middle: not shown.
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let shrunk = b.el("div", &[("role", "dialog"), ("aria-modal", "true")]);
        b.data(shrunk).rect = Rect::new(500.0, 350.0, 0.0, 0.0);
        let t = b.finish();
        assert_eq!(reliable_modals(&Semantics::compute(&t), &vp_rect()), vec![]);
    }

    fn vp() -> ViewportInfo {
        viewport_info(0.0, 0.0, 1000.0, 800.0, 1000.0, 3000.0)
    }

    #[test]
    fn aria_modal_and_native_dialog_and_nesting() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let buy = b.el("button", &[]);
        let d1 = b.open_el(
            "div",
            &[("role", "dialog"), ("aria-modal", "true"), ("aria-label", "Sign in")],
        );
        let inner = b.open_el("div", &[("role", "alertdialog"), ("aria-modal", "true")]);
        b.el("button", &[]);
        b.close();
        b.close();
        let soft = b.el("div", &[("role", "dialog")]);
        let native = b.el("dialog", &[]);
        b.data(native).modal_dialog = true;
        let t = b.finish();
        let sem = Semantics::compute(&t);
        let found = reliable_modals(&sem, &vp_rect());
        let nodes: Vec<NodeId> = found.iter().map(|m| m.node).collect();
        assert!(nodes.contains(&d1) && nodes.contains(&inner) && nodes.contains(&native));
        assert!(!nodes.contains(&soft), "role=dialog without aria-modal is not a modal");
        // Without hit-testing, the nested one wins over its parent.
        let top = pick_topmost(&t, &found, None).unwrap();
        assert_eq!(top.node, inner);
        // With hit-testing: the native dialog owns every centre → it is on top.
        let native_ix = found.iter().position(|m| m.node == native).unwrap();
        let owners = vec![Some(native_ix); found.len()];
        assert_eq!(pick_topmost(&t, &found, Some(&owners)).unwrap().node, native);
        let mask = obscured_mask(&t, d1);
        assert!(mask[buy] && !mask[inner] && !mask[d1]);
        assert!(!mask[t.parent(d1).unwrap()], "ancestors are not obscured");
    }

    #[test]
    fn inert_page_spares_one_element() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        b.el("header", &[("inert", "")]);
        b.el("main", &[("inert", "")]);
        let wrap = b.open_el("div", &[]);
        b.el("button", &[]);
        b.close();
        let t = b.finish();
        let sem = Semantics::compute(&t);
        let found = reliable_modals(&sem, &vp_rect());
        assert_eq!(
            found,
            vec![ModalFinding {
                node: wrap,
                kind: ModalKind::Inert
            }]
        );
    }

    #[test]
    fn heuristic_overlay_needs_size_position_and_top() {
        let big = |b: &mut TreeBuilder, z: Option<i32>, pos: Position| {
            let id = b.open_el("div", &[]);
            b.data(id).style = Some(Style {
                position: pos,
                z_index: z,
                ..Default::default()
            });
            b.data(id).rect = Rect::new(0.0, 0.0, 1000.0, 800.0);
            b.text("Subscribe to our newsletter");
            b.close();
            id
        };
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let overlay = big(&mut b, Some(9999), Position::Fixed);
        b.el("main", &[]);
        let t = b.finish();
        let sem = Semantics::compute(&t);
        assert_eq!(heuristic_overlay(&sem, &vp()), Some(overlay));
        assert!(describe(&sem, overlay).contains("Subscribe"));

        // Static position, or low z-index and not the last child: no warning.
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        big(&mut b, Some(10), Position::Fixed);
        big(&mut b, Some(9999), Position::Static);
        b.el("main", &[]);
        let t = b.finish();
        assert_eq!(heuristic_overlay(&Semantics::compute(&t), &vp()), None);

        // The last child of body (a portal) counts even without a z-index.
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        b.el("main", &[]);
        let portal = big(&mut b, None, Position::Absolute);
        let t = b.finish();
        assert_eq!(heuristic_overlay(&Semantics::compute(&t), &vp()), Some(portal));
    }
}
