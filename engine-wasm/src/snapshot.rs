//! Assembles one frame's snapshot from a `DomTree`: semantics, refs,
//! selectors, rendering. Pure; the adapter supplies the tree, page facts and
//! a ref allocator backed by the live elements.
use crate::dom::{DomTree, NodeId};
use crate::interactive::compute_interactive;
use crate::protocol::{
    EngineStats, FrameSnapshot, FrameSnapshotRequest, RefInfo, RefMap, ViewportInfo, PROTOCOL_VERSION,
};
use crate::render::{normalize_ws, render, RenderInput};
use crate::selector::{selector_for, SelectorIndex};
use crate::semantics::Semantics;
use crate::viewport::viewport_rect;
use std::collections::HashMap;

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

pub fn build_frame_snapshot(
    tree: &DomTree,
    render_root: NodeId,
    facts: &PageFacts,
    req: &FrameSnapshotRequest,
    refs_alloc: &mut dyn RefAllocator,
) -> FrameSnapshot {
    let sem = Semantics::compute(tree);
    let interactive = compute_interactive(&sem);
    let mut refs: HashMap<NodeId, String> = HashMap::new();
    for (id, &i) in interactive.iter().enumerate() {
        if i {
            refs.insert(id, format!("{}e{}", req.ref_prefix, refs_alloc.ref_number(id)));
        }
    }
    let clip = req.visible_clip.unwrap_or_else(|| viewport_rect(&facts.viewport));
    let rendered = render(&RenderInput {
        sem: &sem,
        interactive: &interactive,
        refs: &refs,
        root: render_root,
        mode: req.mode,
        clip,
        origin: &facts.origin,
        obscured: None,
        modal_root: None,
        covered: None,
    });
    let index = SelectorIndex::new(tree);
    let frame = if req.ref_prefix.is_empty() {
        None
    } else {
        Some(req.ref_prefix.clone())
    };
    let mut ref_map = Vec::with_capacity(rendered.rendered_refs.len());
    for &id in &rendered.rendered_refs {
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
                name: normalize_ws(&sem.name(id)),
                selector: selector_for(tree, &index, id),
                url,
                frame: frame.clone(),
                in_viewport: rendered.in_view[id],
                obscured: false,
                covered_by: None,
            },
        ));
    }
    let elements = tree.nodes.iter().filter(|n| n.element().is_some()).count() as u32;
    FrameSnapshot {
        protocol: PROTOCOL_VERSION,
        url: facts.url.clone(),
        title: facts.title.clone(),
        lines: rendered.lines,
        frame_slots: rendered.frame_slots,
        viewport: facts.viewport,
        stats: EngineStats {
            elements,
            refs: ref_map.len() as u32,
            ..Default::default()
        },
        refs: RefMap(ref_map),
        offscreen: rendered.offscreen,
        modal: None,
        overlay_warning: None,
        notes: Vec::new(),
    }
}
