//! Assembles one frame's snapshot from a `DomTree`: semantics, refs, modal
//! detection and occlusion, covered-element truth, selectors, rendering.
//! Pure; the adapter supplies the tree, page facts, a ref allocator backed by
//! live elements, and a probe that hit-tests the live page.
use crate::dom::{DomTree, NodeId, NodeMap};
use crate::interactive::compute_interactive;
use crate::modal::{self, ModalFinding, ModalKind};
use crate::protocol::{
    EngineStats, FrameSnapshot, FrameSnapshotRequest, ModalInfo, OverlayWarning, Rect, RefInfo, RefMap, SnapshotMode,
    ViewportInfo, PROTOCOL_VERSION,
};
use crate::render::{normalize_ws, render, RenderInput};
use crate::selector::{selector_for, SelectorIndex};
use crate::semantics::Semantics;
use crate::viewport::viewport_rect;
use std::collections::HashMap;

/// At most this many refs are hit-tested per frame (the ones in view, in
/// document order): keeps `[covered]` cheap on huge pages.
pub const MAX_HIT_PROBES: usize = 400;

/// Of the refs in view that no positioned layer overlaps, the first this many
/// (in document order) are hit-tested too: in-flow overlaps (negative
/// margins, a skip link tucked under the header) are rare but do happen, and
/// a model reads the top of the page first. Each probe costs 5–100 µs on
/// real pages (40 µs on qq, 100 on msn: 48 of them were a fifth of a
/// snapshot there), and milliseconds on a huge flat page (1–4 ms a point on
/// the 10,000-element synthetic page), so these probes also stop once they
/// have used `FLOW_PROBE_BUDGET_MS`.
pub const MAX_FLOW_PROBES: usize = 48;

/// Time budget of the in-flow probes above (positioned-layer probes are not
/// budgeted: they are what catches cookie bars and sticky headers).
pub const FLOW_PROBE_BUDGET_MS: f64 = 1.5;

/// The frame's first hit test may bring the page's paint state up to date,
/// a one-off cost (up to a few tenths of a millisecond on real pages, a
/// couple on a cold one); this much of it is not charged to the budget. On
/// a page where every probe costs milliseconds, the first one already
/// spends the budget.
pub const FIRST_PROBE_ALLOWANCE_MS: f64 = 1.0;

/// Facts about the frame that don't live in the tree.
pub struct PageFacts {
    pub url: String,
    pub title: String,
    pub origin: String,
    pub viewport: ViewportInfo,
}

/// Allocates (or recalls) the stable ref number of a node's element.
pub trait RefAllocator {
    fn ref_number(&mut self, node: NodeId) -> u32;
}

/// Questions only the live page can answer (hit-testing).
pub trait PageProbe {
    /// For each candidate modal, the index of the candidate that contains the
    /// topmost element at its centre (None: no candidate there). `None`
    /// overall when hit-testing is unavailable.
    fn modal_owners(&mut self, _tree: &DomTree, _candidates: &[ModalFinding]) -> Option<Vec<Option<usize>>> {
        None
    }
    /// What covers the action point of `node`: a ref ("e7") or a selector.
    /// `None` when the element receives the hit itself.
    fn covered_by(&mut self, _tree: &DomTree, _node: NodeId, _refs: &NodeMap<String>) -> Option<String> {
        None
    }
    /// Whether `node` is painted fully transparent (`opacity: 0` on it or
    /// an ancestor): no user sees it, though the accessibility tree has it.
    fn transparent(&mut self, _tree: &DomTree, _node: NodeId) -> bool {
        false
    }
    /// A scrolling box's `scrollTop`, `clientHeight` and `scrollHeight`;
    /// `None` when a user can't scroll it down (it scrolls sideways only).
    fn scroll_metrics(&mut self, _node: NodeId) -> Option<(f64, f64, f64)> {
        None
    }
    /// Milliseconds spent probing so far.
    fn elapsed_ms(&self) -> f64 {
        0.0
    }
}

/// A probe that knows nothing (host tests, tools without a live page).
pub struct NoProbe;
impl PageProbe for NoProbe {}

/// A simple counter, for host tests and tools that have no live elements.
#[derive(Default)]
pub struct CountingAllocator {
    next: u32,
    seen: HashMap<NodeId, u32>,
}

impl RefAllocator for CountingAllocator {
    fn ref_number(&mut self, node: NodeId) -> u32 {
        let next = &mut self.next;
        *self.seen.entry(node).or_insert_with(|| {
            *next += 1;
            *next
        })
    }
}

/// The frame's modal state: what is on top and what it hides.
struct Occlusion {
    modal: Option<ModalFinding>,
    mask: Option<Vec<bool>>,
}

fn occlusion(sem: &Semantics, req: &FrameSnapshotRequest, view: &Rect, probe: &mut dyn PageProbe) -> Occlusion {
    let tree = sem.tree;
    if req.obscure_all {
        let keep = req.obscure_except_frame.as_ref().and_then(|key| {
            (0..tree.len()).find(|&i| tree.element(i).and_then(|e| e.frame_key.as_deref()) == Some(key.as_str()))
        });
        return Occlusion {
            modal: None,
            mask: Some(modal::obscure_all_except(tree, keep)),
        };
    }
    // A dialog faded out and left in place hides nothing from a user, and
    // there is nothing to close: it is not an open modal.
    let mut found = modal::reliable_modals(sem, view);
    found.retain(|m| !probe.transparent(tree, m.node));
    let owners = if found.len() > 1 && req.hit_test {
        probe.modal_owners(tree, &found)
    } else {
        None
    };
    let top = modal::pick_topmost(tree, &found, owners.as_deref());
    let mask = top.map(|m| modal::obscured_mask(tree, m.node));
    Occlusion { modal: top, mask }
}

pub fn build_frame_snapshot(
    tree: &DomTree,
    render_root: NodeId,
    facts: &PageFacts,
    req: &FrameSnapshotRequest,
    refs_alloc: &mut dyn RefAllocator,
    probe: &mut dyn PageProbe,
) -> FrameSnapshot {
    let sem = Semantics::compute(tree);
    let interactive = compute_interactive(&sem);
    let mut refs: NodeMap<String> = NodeMap::new(tree.len());
    for (id, &i) in interactive.iter().enumerate() {
        if i {
            refs.insert(id, format!("{}e{}", req.ref_prefix, refs_alloc.ref_number(id)));
        }
    }
    let clip = req.visible_clip.unwrap_or_else(|| viewport_rect(&facts.viewport));
    let shell = crate::viewport::shell_scroller(tree, &facts.viewport, &mut |b| probe.scroll_metrics(b));
    let occ = occlusion(&sem, req, &viewport_rect(&facts.viewport), probe);
    let obscured = |id: NodeId| occ.mask.as_ref().map(|m| m[id]).unwrap_or(false);
    // A modal's ancestors are not obscured (they hold it), but they get no
    // ref either: what is theirs alone is the backdrop around the modal (a
    // click-to-dismiss container), and their action point, the centre,
    // lands on the modal itself. So they are not hit-tested either.
    let modal_ancestors: Vec<NodeId> = occ.modal.map(|m| tree.ancestors(m.node).collect()).unwrap_or_default();

    // Covered-element truth for refs in view.
    let mut covered: NodeMap<String> = NodeMap::new(tree.len());
    if req.hit_test {
        // (In document order: a `NodeMap` iterates by node id.)
        let ids: Vec<NodeId> = refs
            .keys()
            .filter(|&id| !obscured(id) && !modal_ancestors.contains(&id))
            .collect();
        let in_clip = |id: NodeId| tree.element(id).map(|e| e.rect.intersects(&clip)).unwrap_or(false);
        // Positioned layers (fixed, sticky, absolute, or relative with a
        // z-index) are what usually paints over the normal flow, so every
        // target under one is probed. (Positions are read for big boxes
        // only: small ones can't cover much.) Overlaps within the normal
        // flow are caught for the first `MAX_FLOW_PROBES` targets in view;
        // further down they go unnoticed, and the actions layer still
        // refuses to act on a covered target.
        let layers: Vec<(NodeId, crate::protocol::Rect)> = (0..tree.len())
            .filter_map(|id| {
                let e = tree.element(id)?;
                let st = e.style.as_ref()?;
                use crate::dom::Position;
                let layer = matches!(st.position, Position::Fixed | Position::Sticky | Position::Absolute)
                    || (st.position == Position::Relative && st.z_index.is_some());
                (layer && !e.rect.is_empty() && !sem.is_hidden(id) && !obscured(id)).then_some((id, e.rect))
            })
            .collect();
        let under_layer = |id: NodeId| {
            let Some(r) = tree.element(id).map(|e| e.rect) else {
                return false;
            };
            layers
                .iter()
                .any(|(l, lr)| lr.intersects(&r) && *l != id && !tree.ancestors(id).any(|a| a == *l))
        };
        let (mut probes, mut flow_probes, mut flow_ms) = (0, 0, 0.0);
        for id in ids.into_iter().filter(|&id| in_clip(id)) {
            if probes == MAX_HIT_PROBES {
                break;
            }
            let flow = !under_layer(id);
            if flow {
                if flow_probes >= MAX_FLOW_PROBES || flow_ms >= FLOW_PROBE_BUDGET_MS {
                    continue;
                }
                flow_probes += 1;
            }
            probes += 1;
            let t0 = probe.elapsed_ms();
            if let Some(by) = probe.covered_by(tree, id, &refs) {
                covered.insert(id, by);
            }
            if flow {
                let spent = probe.elapsed_ms() - t0;
                let allowance = if probes == 1 { FIRST_PROBE_ALLOWANCE_MS } else { 0.0 };
                flow_ms += (spent - allowance).max(0.0);
            }
        }
    }

    let rendered = render(&RenderInput {
        sem: &sem,
        interactive: &interactive,
        refs: &refs,
        root: render_root,
        mode: req.mode,
        clip,
        origin: &facts.origin,
        page_url: &facts.url,
        obscured: occ.mask.as_deref(),
        obscured_mode: req.obscured_mode,
        modal_root: occ.modal.map(|m| m.node),
        modal_ancestors: &modal_ancestors,
        covered: Some(&covered),
    });
    let index = SelectorIndex::new(tree);
    let frame = if req.ref_prefix.is_empty() {
        None
    } else {
        Some(req.ref_prefix.clone())
    };
    let mut ref_map = Vec::with_capacity(rendered.rendered_refs.len());
    for (id, name) in rendered.rendered_refs {
        let role = sem
            .role(id)
            .filter(|r| !matches!(*r, "none" | "presentation"))
            .unwrap_or("generic");
        let url = if role == "link" {
            tree.attr(id, "href").map(str::to_string)
        } else {
            None
        };
        ref_map.push((
            refs[&id].clone(),
            RefInfo {
                role: role.to_string(),
                name,
                selector: selector_for(tree, &index, id),
                url,
                frame: frame.clone(),
                in_viewport: rendered.in_view[id],
                obscured: false,
                covered_by: covered.get(&id).cloned(),
            },
        ));
    }

    let modal_info = |m: ModalFinding| ModalInfo {
        kind: m.kind.as_str().to_string(),
        selector: selector_for(tree, &index, m.node),
        name: normalize_ws(&sem.name(m.node)),
        ref_id: refs.get(&m.node).cloned(),
    };
    let mut modal = occ.modal.map(modal_info);
    let mut overlay_warning = None;
    if occ.modal.is_none() && !req.obscure_all {
        // An app's shell's content box, or a layer holding it, is the page,
        // when it qualified only as the body's last child: a layer raised
        // on top (a z-index over the overlays') is warned of, scroll box or not.
        let holds_shell = |o: NodeId| {
            shell.is_some_and(|(s, _)| s == o || tree.ancestors(s).any(|a| a == o)) && !modal::raised_on_top(tree, o)
        };
        let overlay =
            modal::heuristic_overlay(&sem, &facts.viewport).filter(|&o| !holds_shell(o) && !probe.transparent(tree, o));
        if let Some(o) = overlay {
            let first_ref = refs.get(&o).cloned().or_else(|| {
                tree.descendants(o)
                    .find(|d| refs.contains_key(d))
                    .and_then(|d| refs.get(&d).cloned())
            });
            overlay_warning = Some(OverlayWarning {
                description: modal::describe(&sem, o),
                ref_id: first_ref.clone(),
                selector: selector_for(tree, &index, o),
            });
            modal = Some(ModalInfo {
                ref_id: first_ref,
                ..modal_info(ModalFinding {
                    node: o,
                    kind: ModalKind::Heuristic,
                })
            });
        }
    }
    let elements = tree.nodes.iter().filter(|n| n.element().is_some()).count() as u32;
    FrameSnapshot {
        protocol: PROTOCOL_VERSION,
        url: facts.url.clone(),
        title: facts.title.clone(),
        lines: rendered.lines,
        frame_slots: rendered.frame_slots,
        viewport: match shell {
            Some((_, (top, view, height))) => crate::viewport::in_shell(facts.viewport, top, view, height),
            None => facts.viewport,
        },
        stats: EngineStats {
            elements,
            refs: ref_map.len() as u32,
            occlusion_ms: probe.elapsed_ms(),
            ..Default::default()
        },
        refs: RefMap(ref_map),
        offscreen: rendered.offscreen,
        modal,
        overlay_warning,
        notes: Vec::new(),
    }
}

/// Convenience for host tests: snapshot a tree with no live page.
pub fn snapshot_tree(tree: &DomTree, viewport: ViewportInfo, mode: SnapshotMode) -> FrameSnapshot {
    let req = FrameSnapshotRequest {
        mode,
        ..Default::default()
    };
    snapshot_tree_for(tree, viewport, &req)
}

/// `snapshot_tree` with a whole request (the obscured mode, a ref prefix…).
pub fn snapshot_tree_for(tree: &DomTree, viewport: ViewportInfo, req: &FrameSnapshotRequest) -> FrameSnapshot {
    snapshot_tree_probed(tree, viewport, req, &mut NoProbe)
}

/// `snapshot_tree_for` with a probe standing in for the live page.
pub fn snapshot_tree_probed(
    tree: &DomTree,
    viewport: ViewportInfo,
    req: &FrameSnapshotRequest,
    probe: &mut dyn PageProbe,
) -> FrameSnapshot {
    let facts = PageFacts {
        url: "https://example.test/".into(),
        title: String::new(),
        origin: "https://example.test".into(),
        viewport,
    };
    build_frame_snapshot(
        tree,
        DomTree::ROOT,
        &facts,
        req,
        &mut CountingAllocator::default(),
        probe,
    )
}

/// The visible part of a rect (for action points).
pub fn clip_rect(r: &Rect, clip: &Rect) -> Option<Rect> {
    let x = r.x.max(clip.x);
    let y = r.y.max(clip.y);
    let right = r.right().min(clip.right());
    let bottom = r.bottom().min(clip.bottom());
    if right > x && bottom > y {
        Some(Rect::new(x, y, right - x, bottom - y))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{Style, TreeBuilder};
    use crate::protocol::{ObscuredMode, Rect};
    use crate::viewport::viewport_info;

    fn vp() -> ViewportInfo {
        viewport_info(0.0, 0.0, 1000.0, 800.0, 1000.0, 3000.0)
    }

    #[test]
    fn a_modals_clickable_backdrop_gets_no_ref() {
        // SweetAlert2-style: a full-page container with a click-to-dismiss
        // handler wraps the dialog.
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        b.open_el("button", &[]);
        b.text("Page button");
        b.close();
        let backdrop = b.open_el("div", &[]);
        b.data(backdrop).has_click_handler = true;
        b.data(backdrop).rect = Rect::new(0.0, 0.0, 1000.0, 800.0);
        let dialog = b.open_el(
            "div",
            &[("role", "dialog"), ("aria-modal", "true"), ("aria-label", "Delete?")],
        );
        b.data(dialog).rect = Rect::new(300.0, 200.0, 400.0, 300.0);
        b.open_el("button", &[]);
        b.text("Delete");
        let t = b.finish();
        let s = snapshot_tree(&t, vp(), SnapshotMode::Full);
        let text = s.lines.join("\n");
        assert!(text.contains("dialog \"Delete?\" [modal]"), "{text}");
        assert!(text.contains("button \"Delete\" [ref="), "{text}");
        // The dialog's button only: not the backdrop, not the page.
        assert_eq!(s.refs.len(), 1, "{text}");
        // Outlined by default: the page button is only counted.
        assert!(text.contains("- … 1 button, hidden behind the modal"), "{text}");
        let mark = snapshot_tree_with(&t, vp(), ObscuredMode::Mark);
        assert!(mark.lines.join("\n").contains("button \"Page button\" [obscured]"));
    }

    /// A probe that sees every element it is asked about as transparent.
    struct SeesThrough;
    impl PageProbe for SeesThrough {
        fn transparent(&mut self, _tree: &DomTree, _node: NodeId) -> bool {
            true
        }
    }

    #[test]
    fn a_transparent_dialog_is_not_an_open_modal() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        b.open_el("button", &[]);
        b.text("Page button");
        b.close();
        let dialog = b.open_el("div", &[("role", "dialog"), ("aria-modal", "true")]);
        b.data(dialog).rect = Rect::new(300.0, 200.0, 400.0, 300.0);
        b.text("What's new");
        let t = b.finish();
        let req = FrameSnapshotRequest::default();
        let seen = |probe: &mut dyn PageProbe| snapshot_tree_probed(&t, vp(), &req, probe);
        assert!(seen(&mut NoProbe).modal.is_some());
        let s = seen(&mut SeesThrough);
        assert!(s.modal.is_none());
        assert!(
            s.lines.join("\n").contains("button \"Page button\" [ref="),
            "{:?}",
            s.lines
        );
    }

    /// A page that scrolls its content box 1,500 px of 7,500, 750 shown.
    struct ShellProbe;
    impl PageProbe for ShellProbe {
        fn scroll_metrics(&mut self, _node: NodeId) -> Option<(f64, f64, f64)> {
            Some((1500.0, 750.0, 7500.0))
        }
    }

    #[test]
    fn an_app_shells_content_box_gives_the_position_and_is_no_overlay() {
        use crate::dom::{Position, Style};
        // The content box under a header, with the given z-index.
        let shell = |z_index: Option<i32>| {
            let mut b = TreeBuilder::new();
            b.open_el("html", &[]);
            b.open_el("body", &[]);
            let header = b.open_el("header", &[]);
            b.data(header).rect = Rect::new(0.0, 0.0, 1000.0, 50.0);
            b.el("button", &[]);
            b.close();
            let main = b.open_el("div", &[]);
            b.data(main).style = Some(Style {
                position: Position::Absolute,
                scrollable: true,
                z_index,
                ..Default::default()
            });
            b.data(main).rect = Rect::new(0.0, 50.0, 1000.0, 750.0);
            b.text("Row 1");
            b.finish()
        };
        let fits = viewport_info(0.0, 0.0, 1000.0, 800.0, 1000.0, 800.0);
        let req = FrameSnapshotRequest::default();
        let snap = |t: &DomTree| snapshot_tree_probed(t, fits, &req, &mut ShellProbe);
        let s = snap(&shell(None));
        assert!(s.modal.is_none() && s.overlay_warning.is_none(), "{:?}", s.modal);
        assert_eq!((s.viewport.pages_above, s.viewport.pages_below), (2, 7));
        // Raised on top (a z-index over the overlays'), the same box is a
        // layer over the page, scroll box or not.
        assert!(snap(&shell(Some(9999))).overlay_warning.is_some());
    }

    fn snapshot_tree_with(tree: &DomTree, viewport: ViewportInfo, obscured_mode: ObscuredMode) -> FrameSnapshot {
        let req = FrameSnapshotRequest {
            obscured_mode,
            ..Default::default()
        };
        snapshot_tree_for(tree, viewport, &req)
    }

    /// A long page under a modal, outlined: landmarks and the first
    /// headings marked `[obscured]`, one summary line per landmark, and the
    /// modal exactly as `mark` and `drop` render it.
    #[test]
    fn the_page_behind_a_modal_is_outlined_and_the_modal_kept_whole() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        b.open_el("header", &[]);
        b.open_el("nav", &[("aria-label", "Site")]);
        for i in 0..20 {
            b.open_el("a", &[("href", "#x")]);
            b.text(&format!("Nav {i}"));
            b.close();
        }
        b.close();
        b.close();
        b.open_el("main", &[]);
        b.open_el("h1", &[]);
        b.text("Long page");
        b.close();
        for i in 0..30 {
            b.open_el("article", &[]);
            b.open_el("h2", &[]);
            b.text(&format!("Article {i}"));
            b.close();
            b.open_el("p", &[]);
            b.text("Some words ");
            b.open_el("a", &[("href", "#y")]);
            b.text("next");
            b.close();
            b.close();
            b.el("input", &[("aria-label", "Note")]);
            b.close();
        }
        b.close();
        let dialog = b.open_el(
            "div",
            &[("role", "dialog"), ("aria-modal", "true"), ("aria-label", "Settings")],
        );
        b.data(dialog).rect = Rect::new(300.0, 200.0, 400.0, 300.0);
        b.open_el("h2", &[]);
        b.text("Settings");
        b.close();
        b.el("input", &[("aria-label", "Name")]);
        b.open_el("button", &[]);
        b.text("Save");
        let t = b.finish();
        let outline = snapshot_tree_with(&t, vp(), ObscuredMode::Outline).lines;
        let text = outline.join("\n");
        assert_eq!(
            &outline[..4],
            &[
                "- banner [obscured]:",
                "  - navigation \"Site\" [obscured]:",
                "    - … 20 links, hidden behind the modal",
                "- main [obscured]:",
            ],
            "{text}"
        );
        assert!(
            text.contains("  - heading \"Long page\" [level=1] [obscured]"),
            "{text}"
        );
        assert!(
            text.contains("  - heading \"Article 6\" [level=2] [obscured]"),
            "{text}"
        );
        assert!(!text.contains("Article 7"), "{text}");
        assert!(
            text.contains("  - … 23 more headings, 30 articles, 30 links, 30 form fields, hidden behind the modal"),
            "{text}"
        );
        // The modal: the same lines in every mode.
        let modal_part = |lines: &[String]| -> Vec<String> {
            let at = lines.iter().position(|l| l.contains("[modal]")).unwrap();
            lines[at..]
                .iter()
                .take_while(|l| !l.starts_with("- ") || l.contains("[modal]"))
                .cloned()
                .collect()
        };
        let drop = snapshot_tree_with(&t, vp(), ObscuredMode::Drop).lines;
        let mark = snapshot_tree_with(&t, vp(), ObscuredMode::Mark).lines;
        assert_eq!(modal_part(&outline), modal_part(&drop));
        assert_eq!(modal_part(&outline), modal_part(&mark));
        assert_eq!(modal_part(&outline).len(), 4, "{text}");
    }

    /// Text runs join as the page shows them: glued across inline
    /// elements, a space where the page has white space or a block box.
    #[test]
    fn text_joins_like_the_page_shows_it() {
        let inline = |b: &mut TreeBuilder, tag: &str| {
            let id = b.open_el(tag, &[]);
            b.data(id).style = Some(Style {
                display: crate::dom::Display::Inline,
                ..Default::default()
            });
        };
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        b.open_el("pre", &[]);
        inline(&mut b, "code");
        for text in ["<", "label", " ", "for", "=", "\"notes\"", ">"] {
            if text == " " {
                b.text(text);
            } else {
                inline(&mut b, "span");
                b.text(text);
                b.close();
            }
        }
        b.close();
        b.close();
        b.open_el("p", &[]);
        b.open_el("div", &[]);
        b.text("First");
        b.close();
        b.open_el("div", &[]);
        b.text("second");
        b.close();
        b.text("third ");
        inline(&mut b, "b");
        b.text("bold");
        b.close();
        b.text("er");
        let t = b.finish();
        let s = snapshot_tree(&t, vp(), SnapshotMode::Full);
        let text = s.lines.join("\n");
        assert!(text.contains("text: <label for=\"notes\">"), "{text}");
        assert!(text.contains("First second third bolder"), "{text}");
    }

    #[test]
    fn five_thousand_levels_deep_render_without_overflow() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        for _ in 0..5000 {
            b.open_el("div", &[]);
        }
        let btn = b.open_el("button", &[]);
        b.text("Deep");
        b.close();
        let t = b.finish();
        let s = snapshot_tree(&t, vp(), SnapshotMode::Full);
        assert_eq!(s.lines, vec!["- button \"Deep\" [ref=e1]".to_string()]);
        assert!(
            s.refs.get("e1").unwrap().selector.ends_with("button"),
            "{}",
            s.refs.get("e1").unwrap().selector
        );
        let _ = btn;
    }

    #[test]
    fn a_drop_down_says_which_options_cannot_be_chosen() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        let sel = b.open_el("select", &[("aria-label", "Colour")]);
        b.data(sel).form.value = Some("Red".into());
        for (attrs, text) in [(&[][..], "Red"), (&[("disabled", "")][..], "Green")] {
            b.open_el("option", attrs);
            b.text(text);
            b.close();
        }
        b.open_el("optgroup", &[("label", "Later"), ("disabled", "")]);
        b.open_el("option", &[]);
        b.text("Blue");
        b.close();
        b.close();
        b.close();
        // In a disabled select every option is: the select says it once.
        let off = b.open_el("select", &[("aria-label", "Size"), ("disabled", "")]);
        b.data(off).form.value = Some("S".into());
        b.open_el("option", &[]);
        b.text("S");
        b.close();
        b.close();
        let t = b.finish();
        let text = snapshot_tree(&t, vp(), SnapshotMode::Full).lines.join("\n");
        assert!(
            text.contains("combobox \"Colour\" [ref=e1]: Red (options: Red, Green [disabled], Blue [disabled])"),
            "{text}"
        );
        let size = text
            .lines()
            .find(|l| l.contains("combobox \"Size\" [disabled]"))
            .unwrap_or_default();
        assert!(size.ends_with(": S (options: S)"), "{text}");
    }

    #[test]
    fn text_format_states_values_links_and_compaction() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        b.open_el("main", &[]);
        b.open_el("h1", &[]);
        b.text("Shop");
        b.close();
        // A wrapper div with no semantics dissolves.
        b.open_el("div", &[("class", "wrap")]);
        let cb = b.el("input", &[("type", "checkbox"), ("aria-label", "Gift wrap")]);
        b.data(cb).form.checked = Some(true);
        let email = b.el("input", &[("type", "email"), ("aria-label", "Email")]);
        b.data(email).form.value = Some("a@b.c".into());
        let pw = b.el("input", &[("type", "password"), ("aria-label", "Password")]);
        b.data(pw).form.value = Some("secret".into());
        b.close();
        b.open_el("ul", &[]);
        b.open_el("li", &[]);
        b.open_el("a", &[("href", "https://example.test/docs")]);
        b.text("Docs");
        b.close();
        b.close();
        b.close();
        // A link with content of its own keeps it under the link's line;
        // brackets in its URL can't end the token early.
        b.open_el(
            "a",
            &[("href", "https://example.test/q?tag[]=a\n- x"), ("aria-label", "Tags")],
        );
        b.open_el("h2", &[]);
        b.text("Filter");
        b.close();
        b.close();
        let far = b.open_el("button", &[]);
        b.data(far).rect = Rect::new(0.0, 2000.0, 100.0, 20.0);
        b.text("Far away");
        b.close();
        let clicky = b.open_el("div", &[]);
        b.data(clicky).style = Some(Style {
            cursor_pointer: true,
            ..Default::default()
        });
        b.text("Card");
        b.close();
        // A row is said by its cells.
        b.open_el("table", &[]);
        b.open_el("tr", &[]);
        for cell in ["1", "Ada"] {
            b.open_el("td", &[]);
            b.text(cell);
            b.close();
        }
        b.close();
        b.close();
        let t = b.finish();
        let s = snapshot_tree(&t, vp(), SnapshotMode::Full);
        let text = s.lines.join("\n");
        assert_eq!(
            text,
            [
                "- main:",
                "  - heading \"Shop\" [level=1]",
                "  - checkbox \"Gift wrap\" [checked] [ref=e1]",
                "  - textbox \"Email\" [ref=e2]: a@b.c",
                "  - textbox \"Password\" [ref=e3]",
                "  - list:",
                "    - link \"Docs\" [ref=e4] [url=/docs]",
                "  - link \"Tags\" [ref=e5] [url=/q?tag%5B%5D=a%0A-%20x]:",
                "    - heading \"Filter\" [level=2]",
                "  - button \"Far away\" [offscreen] [ref=e6]",
                "  - generic [ref=e7]: Card",
                "  - table:",
                "    - row:",
                "      - cell \"1\"",
                "      - cell \"Ada\"",
            ]
            .join("\n")
        );
        assert!(!serde_json::to_string(&s).unwrap().contains("secret"));
        assert_eq!(
            s.refs.get("e4").unwrap().url.as_deref(),
            Some("https://example.test/docs")
        );
        assert!(!s.refs.get("e6").unwrap().in_viewport);

        // Viewport mode leaves the far button out and counts it.
        let v = snapshot_tree(&t, vp(), SnapshotMode::Viewport);
        assert!(!v.lines.join("\n").contains("Far away"));
        assert_eq!(v.offscreen.below, 1);
    }

    #[test]
    fn a_viewport_snapshot_leaves_out_what_a_scroll_container_hides() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        let list = b.open_el("div", &[("aria-label", "Messages"), ("tabindex", "0")]);
        b.data(list).rect = Rect::new(0.0, 200.0, 300.0, 200.0);
        b.data(list).style = Some(Style {
            scrollable: true,
            ..Default::default()
        });
        for i in 0..10 {
            let p = b.open_el("p", &[]);
            b.data(p).rect = Rect::new(0.0, 200.0 + 50.0 * f64::from(i), 300.0, 50.0);
            b.text(&format!("Message {i}"));
            b.close();
        }
        let pinned = b.open_el("button", &[]);
        b.data(pinned).rect = Rect::new(0.0, 600.0, 100.0, 30.0);
        b.data(pinned).style = Some(Style {
            position: crate::dom::Position::Fixed,
            ..Default::default()
        });
        b.text("Chat");
        b.close();
        b.close();
        let t = b.finish();
        let text = snapshot_tree(&t, vp(), SnapshotMode::Viewport).lines.join("\n");
        // Four messages fit the box; the rest lie in the viewport but are
        // scrolled out of it. A fixed button inside escapes its clip.
        for i in 0..4 {
            assert!(text.contains(&format!("Message {i}")), "{text}");
        }
        for i in 4..10 {
            assert!(!text.contains(&format!("Message {i}")), "{text}");
        }
        assert!(text.contains("button \"Chat\""), "{text}");
        let full = snapshot_tree(&t, vp(), SnapshotMode::Full).lines.join("\n");
        assert!(full.contains("Message 9"), "{full}");
    }

    #[test]
    fn a_box_without_height_is_in_view_where_it_lies() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        let body = b.open_el("body", &[]);
        b.data(body).rect = Rect::new(0.0, 0.0, 1280.0, 5000.0);
        let flat = b.open_el("div", &[("role", "dialog"), ("aria-label", "search")]);
        b.data(flat).rect = Rect::new(8.0, 2000.0, 1264.0, 0.0);
        b.close();
        let top = b.open_el("div", &[("role", "dialog"), ("aria-label", "at the top")]);
        b.data(top).rect = Rect::new(0.0, 0.0, 1280.0, 0.0);
        b.close();
        // No box at all (display: contents): shown with what it holds.
        b.open_el("div", &[("role", "group"), ("aria-label", "contents")]);
        let inside = b.open_el("button", &[]);
        b.data(inside).rect = Rect::new(10.0, 100.0, 80.0, 30.0);
        b.text("Inside");
        b.close();
        b.close();
        let t = b.finish();
        let text = snapshot_tree(&t, vp(), SnapshotMode::Viewport).lines.join("\n");
        assert!(!text.contains("search"), "2000 px down, out of view: {text}");
        assert!(text.contains("dialog \"at the top\""), "{text}");
        assert!(text.contains("group \"contents\""), "{text}");
    }

    #[test]
    fn a_textarea_shows_what_it_holds_not_its_default_text() {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        let edited = b.open_el("textarea", &[("aria-label", "Note")]);
        b.data(edited).form.value = Some("typed\nsince".into());
        b.text("the default");
        b.close();
        let emptied = b.open_el("textarea", &[("aria-label", "Cleared")]);
        b.data(emptied).form.value = Some(String::new());
        b.text("was here");
        b.close();
        let t = b.finish();
        let text = snapshot_tree(&t, vp(), SnapshotMode::Full).lines.join("\n");
        assert_eq!(
            text,
            "- textbox \"Note\" [ref=e1]: typed\\nsince\n- textbox \"Cleared\" [ref=e2]"
        );
    }

    /// A page whose every hit test costs `ms_per_probe` and finds the
    /// target covered.
    struct SlowProbe {
        ms_per_probe: f64,
        probed: Vec<NodeId>,
    }
    impl PageProbe for SlowProbe {
        fn covered_by(&mut self, _tree: &DomTree, node: NodeId, _refs: &NodeMap<String>) -> Option<String> {
            self.probed.push(node);
            Some("div.cover".into())
        }
        fn elapsed_ms(&self) -> f64 {
            self.probed.len() as f64 * self.ms_per_probe
        }
    }

    fn hundred_buttons_in_view() -> DomTree {
        let mut b = TreeBuilder::new();
        b.open_el("html", &[]);
        b.open_el("body", &[]);
        for i in 0..100 {
            let btn = b.open_el("button", &[]);
            b.data(btn).rect = Rect::new(0.0, i as f64 * 7.0, 50.0, 6.0);
            b.text(&format!("B{i}"));
            b.close();
        }
        b.finish()
    }

    fn probed_count(ms_per_probe: f64) -> (usize, usize) {
        let t = hundred_buttons_in_view();
        let mut probe = SlowProbe {
            ms_per_probe,
            probed: Vec::new(),
        };
        let s = snapshot_tree_probed(&t, vp(), &FrameSnapshotRequest::default(), &mut probe);
        let covered = s.lines.iter().filter(|l| l.contains("[covered]")).count();
        (probe.probed.len(), covered)
    }

    #[test]
    fn in_flow_probes_stop_at_their_count_or_their_time_budget() {
        // Cheap hit tests: the first MAX_FLOW_PROBES targets in view.
        assert_eq!(probed_count(0.01), (MAX_FLOW_PROBES, MAX_FLOW_PROBES));
        // Dear ones (a huge flat page): stop once the budget is spent.
        let (probed, covered) = probed_count(2.5);
        // (The first probe is charged beyond its allowance: it may pay for
        // a paint update.)
        let after_first = FLOW_PROBE_BUDGET_MS - (2.5 - FIRST_PROBE_ALLOWANCE_MS);
        assert_eq!(probed, 1 + (after_first / 2.5).ceil().max(0.0) as usize);
        // So dear that the first probe alone spends the budget.
        assert_eq!(probed_count(FLOW_PROBE_BUDGET_MS + FIRST_PROBE_ALLOWANCE_MS).0, 1);
        assert_eq!(covered, probed);
    }
}
