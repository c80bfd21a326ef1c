//! Whole-page snapshots: one engine call per frame, stitched into one tree.

use std::time::Instant;

use chromiumoxide::cdp::browser_protocol::page::{FrameId, FrameTree};
use chromiumoxide::cdp::browser_protocol::target::TargetInfo;
use chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId;
use futures::future::BoxFuture;
use sightline_engine::protocol::{
    FrameNode, FrameSnapshot, FrameSnapshotRequest, ObscuredMode, Rect, SnapshotMode, SnapshotResult,
};
use sightline_engine::stitch::stitch;

use super::handle::Page;
use crate::error::Result;

/// What [`Page::snapshot`] renders.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SnapshotOptions {
    /// Whole page, or only what intersects the viewport.
    pub mode: SnapshotMode,
    /// Scroll the window to this Y (CSS pixels) first.
    pub scroll_y: Option<f64>,
    /// Elements outside an open modal: outlined (default: landmarks, first
    /// headings and a count per landmark), all marked `[obscured]`, or left out.
    pub obscured_mode: ObscuredMode,
}

/// The overlap of two rectangles (empty, at `a`'s origin, when they don't meet).
fn intersection(a: &Rect, b: &Rect) -> Rect {
    let x = a.x.max(b.x);
    let y = a.y.max(b.y);
    let right = a.right().min(b.right());
    let bottom = a.bottom().min(b.bottom());
    if right <= x || bottom <= y {
        return Rect::new(a.x, a.y, 0.0, 0.0);
    }
    Rect::new(x, y, right - x, bottom - y)
}

/// The part of a child frame's viewport that is visible at the top level, in
/// the child's own coordinates: the iframe's content box (parent viewport
/// coordinates) clipped by what is visible of the parent, moved to the
/// content box's origin.
pub(crate) fn child_clip(content_rect: &Rect, parent_clip: &Rect) -> Rect {
    let visible = intersection(content_rect, parent_clip);
    if visible.is_empty() {
        return Rect::new(0.0, 0.0, 0.0, 0.0);
    }
    visible.translate(-content_rect.x, -content_rect.y)
}

/// A child frame keyed by its iframe's `FrameSlot.key`, as `stitch` takes it.
type Child = (String, FrameNode);

/// The frame whose iframes are being snapshotted: its engine context, its
/// own snapshot (which holds the iframes' slots) and its visible clip.
struct ParentFrame<'a> {
    id: &'a FrameId,
    ctx: ExecutionContextId,
    snapshot: &'a FrameSnapshot,
    clip: Rect,
}

/// How a frame is occluded by a modal open elsewhere on the page.
#[derive(Clone, Debug, PartialEq)]
enum Occlusion {
    /// The frame decides for itself (its own modal, if any).
    Own,
    /// Everything in the frame is unreachable (its iframe is outside a modal).
    All,
    /// A modal is open inside a descendant frame: everything is unreachable
    /// except the iframe chain leading to it (keys from this frame down).
    AllExcept(Vec<String>),
}

impl Occlusion {
    fn apply(&self, request: &mut FrameSnapshotRequest) {
        match self {
            Occlusion::Own => {}
            Occlusion::All => request.obscure_all = true,
            Occlusion::AllExcept(path) => {
                request.obscure_all = true;
                request.obscure_except_frame = path.first().cloned();
            }
        }
    }

    /// The occlusion of the child frame behind `slot`.
    fn for_child(&self, slot: &sightline_engine::protocol::FrameSlot) -> Occlusion {
        match self {
            Occlusion::All => Occlusion::All,
            Occlusion::AllExcept(path) if path.first() == Some(&slot.key) => {
                if path.len() == 1 {
                    Occlusion::Own
                } else {
                    Occlusion::AllExcept(path[1..].to_vec())
                }
            }
            Occlusion::AllExcept(_) => Occlusion::All,
            Occlusion::Own if slot.obscured => Occlusion::All,
            Occlusion::Own => Occlusion::Own,
        }
    }
}

fn is_reliable_modal(s: &FrameSnapshot) -> bool {
    s.modal.as_ref().map(|m| m.kind != "heuristic").unwrap_or(false)
}

/// Frame keys from the main frame down to the first child frame that has a
/// reliable modal open, when the main frame itself has none.
fn child_modal_path(node: &FrameNode) -> Option<Vec<String>> {
    for (key, child) in &node.children {
        if is_reliable_modal(&child.snapshot) {
            return Some(vec![key.clone()]);
        }
        if let Some(mut rest) = child_modal_path(child) {
            rest.insert(0, key.clone());
            return Some(rest);
        }
    }
    None
}

/// Frames of other sites that a browser isolating sites runs in processes
/// of their own, when this connection cannot reach them (an extension's
/// bridge): said, so an empty iframe is not taken for an empty frame.
fn unread_frames_note(frames: &[TargetInfo]) -> Option<String> {
    let urls: Vec<String> = frames.iter().map(|t| crate::text::clip(&t.url, 120)).collect();
    match urls.as_slice() {
        [] => None,
        [url] => Some(format!(
            "The frame {url} runs in a process of its own (another site, in a browser that isolates sites) \
and was not read: a screenshot shows it."
        )),
        more => Some(format!(
            "{} frames of other sites run in processes of their own (a browser that isolates sites) and were \
not read, a screenshot shows them: {}{}.",
            more.len(),
            more.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
            if more.len() > 3 { ", …" } else { "" }
        )),
    }
}

/// Header note (rendered as `# …`) for a frame that could not be snapshotted.
fn skipped_note(url: &str, err: &crate::error::Error) -> String {
    let url = crate::text::clip(url, 120);
    format!("The frame {url} was left out: {err}.")
}

impl Page {
    /// Waits until the page is ready (see [`Page::wait_ready`]), then
    /// snapshots it and every frame in it, at any depth.
    ///
    /// Child frames whose engine call fails (detached mid-snapshot, crashed,
    /// not yet loaded) are left out with a warning; only a failure in the
    /// main frame fails the snapshot.
    pub async fn snapshot(&self, options: &SnapshotOptions) -> Result<SnapshotResult> {
        if !self.ready_timeout().is_zero() {
            self.wait_ready().await?;
        }
        self.unless_crashed(self.snapshot_inner(options)).await?
    }

    async fn snapshot_inner(&self, options: &SnapshotOptions) -> Result<SnapshotResult> {
        let started = Instant::now();
        if let Some(y) = options.scroll_y {
            self.scroll_window_to(y).await?;
        }
        let tree = self.frame_tree().await?;
        self.number_frames(&tree);
        let mut root = self.snapshot_tree(&tree, options, Occlusion::Own).await?;
        // A modal open inside a child frame makes the rest of the page
        // unreachable too: snapshot again with that frame's chain spared.
        if !is_reliable_modal(&root.snapshot) {
            if let Some(path) = child_modal_path(&root) {
                root = self.snapshot_tree(&tree, options, Occlusion::AllExcept(path)).await?;
            }
        }
        let mut result = stitch(root, options.mode);
        // An empty page may be a PDF, which the browser's viewer shows out
        // of the tree's reach: its text stands in.
        if result.refs.is_empty() && result.tree.lines().all(|l| l.starts_with("# ") || l.trim().is_empty()) {
            if let Some(lines) = self.pdf_lines(&tree.frame.id, &result.url).await {
                result.tree = format!("{}\n{}", result.tree.trim_end(), lines.trim_end())
                    .trim_start()
                    .to_string();
            }
        }
        result.stats.total_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(result)
    }

    async fn snapshot_tree(
        &self,
        tree: &FrameTree,
        options: &SnapshotOptions,
        occlusion: Occlusion,
    ) -> Result<FrameNode> {
        let main = tree.frame.id.clone();
        let mut request = FrameSnapshotRequest {
            mode: options.mode,
            ref_prefix: String::new(),
            visible_clip: None,
            obscured_mode: options.obscured_mode,
            ..Default::default()
        };
        occlusion.apply(&mut request);
        let mut snapshot = self.frame_snapshot(&main, &request).await?;
        tracing::debug!(
            "main frame engine: {:.1} ms (walk {:.1} ms, serialise {:.1} ms, occlusion {:.1} ms), {} elements",
            snapshot.stats.engine_ms,
            snapshot.stats.walk_ms,
            snapshot.stats.serialize_ms,
            snapshot.stats.occlusion_ms,
            snapshot.stats.elements
        );
        let clip = Rect::new(
            0.0,
            0.0,
            snapshot.viewport.viewport_width,
            snapshot.viewport.viewport_height,
        );
        let (children, notes) = self.snapshot_children(tree, &snapshot, clip, options, &occlusion).await;
        snapshot.notes.extend(notes);
        Ok(FrameNode {
            snapshot,
            frame_prefix: String::new(),
            children,
            loading: false,
        })
    }

    /// Snapshots the child frames of `tree` that the parent's snapshot has a
    /// slot for; returns them with notes about frames that had to be left out.
    /// Frames another process runs (another site's, in a browser that
    /// isolates sites) are not in `tree`: they are looked for when slots are
    /// left over, and read through their own target (frame_hosts.rs).
    fn snapshot_children<'a>(
        &'a self,
        tree: &'a FrameTree,
        parent: &'a FrameSnapshot,
        parent_clip: Rect,
        options: &'a SnapshotOptions,
        occlusion: &'a Occlusion,
    ) -> BoxFuture<'a, (Vec<Child>, Vec<String>)> {
        Box::pin(async move {
            let mut out = Vec::new();
            let mut notes = Vec::new();
            // No slots: no rendered iframes, nothing to splice in.
            if parent.frame_slots.is_empty() {
                return (out, notes);
            }
            let parent_id = &tree.frame.id;
            let parent_ctx = match self.ensure_engine(parent_id).await {
                Ok(ctx) => ctx,
                Err(e) => {
                    tracing::warn!("skipping the child frames of {}: {e}", tree.frame.url);
                    notes.push(skipped_note(&tree.frame.url, &e));
                    return (out, notes);
                }
            };
            let parent = ParentFrame {
                id: parent_id,
                ctx: parent_ctx,
                snapshot: parent,
                clip: parent_clip,
            };
            let children = tree.child_frames.as_deref().unwrap_or_default();
            if self.host_of(parent_id).is_none() {
                for child in children {
                    self.forget_hosted(&child.frame.id);
                }
            }
            self.snapshot_each(&parent, children, options, occlusion, &mut out, &mut notes)
                .await;
            if out.len() < parent.snapshot.frame_slots.len() {
                let others = self.frames_of_other_processes(parent_id).await;
                if !self.reaches_other_processes() {
                    notes.extend(unread_frames_note(&others));
                    return (out, notes);
                }
                self.forget_hosted_under(parent_id, &others);
                let filled: Vec<&str> = out.iter().map(|(key, _)| key.as_str()).collect();
                let trees = self
                    .hosted_trees_with_slots(&parent, &others, &filled, &mut notes)
                    .await;
                self.snapshot_each(&parent, &trees, options, occlusion, &mut out, &mut notes)
                    .await;
            }
            (out, notes)
        })
    }

    /// The frame trees of the frames of other processes (`others`) whose
    /// iframe has a slot in `parent`'s snapshot, numbered in order: only
    /// the rendered ones are asked anything, each in its own process (a
    /// hidden tracker's busy process holds up nothing), all at once.
    async fn hosted_trees_with_slots(
        &self,
        parent: &ParentFrame<'_>,
        others: &[TargetInfo],
        filled: &[&str],
        notes: &mut Vec<String>,
    ) -> Vec<FrameTree> {
        // (The key is asked of the parent's process, not the frame's.)
        let keys = futures::future::join_all(others.iter().map(|t| {
            let frame = FrameId::new(t.target_id.inner().clone());
            async move { self.frame_key(parent.id, parent.ctx, &frame).await }
        }))
        .await;
        let slotted: Vec<&TargetInfo> = others
            .iter()
            .zip(keys)
            .filter(|(_, key)| {
                let key = key.as_ref().ok().and_then(|k| k.as_deref());
                // (A slot already filled is a frame that just moved into
                // the tab's process, its old target still listed.)
                key.is_some_and(|k| !filled.contains(&k) && parent.snapshot.frame_slots.iter().any(|s| s.key == k))
            })
            .map(|(t, _)| t)
            .collect();
        let trees = futures::future::join_all(slotted.iter().map(|t| self.hosted_tree(t, parent.id))).await;
        let mut out = Vec::new();
        for (target, tree) in slotted.into_iter().zip(trees) {
            match tree {
                Ok(t) => {
                    // (Numbered before they are read at once, as the tab's
                    // own frames are.)
                    self.frame_number(&t.frame.id);
                    self.number_frames(&t);
                    out.push(t);
                }
                Err(e) if e.is_frame_gone() => {}
                Err(e) => notes.push(skipped_note(&target.url, &e)),
            }
        }
        out
    }

    /// Snapshots `children` of `parent`, all at once: each costs several
    /// CDP round trips (owner, key, engine call), and ad-heavy pages carry
    /// dozens of frames.
    async fn snapshot_each(
        &self,
        parent: &ParentFrame<'_>,
        children: &[FrameTree],
        options: &SnapshotOptions,
        occlusion: &Occlusion,
        out: &mut Vec<Child>,
        notes: &mut Vec<String>,
    ) {
        let results = futures::future::join_all(
            children
                .iter()
                .map(|child| self.snapshot_child(parent, child, options, occlusion)),
        )
        .await;
        for (child, result) in children.iter().zip(results) {
            match result {
                Ok(Some(node)) => out.push(node),
                Ok(None) => {}
                // A frame that left the page since the frame tree was
                // read shows nothing: no note (it named a frame with no
                // URL, in the browser's words).
                Err(e) if e.is_frame_gone() => {}
                Err(e) => {
                    tracing::warn!("skipping frame {} ({}): {e}", child.frame.id.inner(), child.frame.url);
                    notes.push(skipped_note(&child.frame.url, &e));
                }
            }
        }
    }

    async fn snapshot_child(
        &self,
        parent: &ParentFrame<'_>,
        child: &FrameTree,
        options: &SnapshotOptions,
        occlusion: &Occlusion,
    ) -> Result<Option<Child>> {
        let id = &child.frame.id;
        let Some(key) = self.frame_key(parent.id, parent.ctx, id).await? else {
            tracing::debug!("frame {}: its iframe is unknown to the engine", id.inner());
            return Ok(None);
        };
        let Some(slot) = parent.snapshot.frame_slots.iter().find(|s| s.key == key) else {
            // A hidden or unrendered iframe: the parent shows no line for it.
            tracing::debug!("frame {}: no slot for key {key}", id.inner());
            return Ok(None);
        };
        // An offscreen iframe (viewport mode) renders nothing; a clip far
        // below (or above) its content makes the engine count every
        // interactive element on that side, for the footer hint.
        let clip = match slot.offscreen.as_deref() {
            Some("above") => Rect::new(0.0, 1.0e9, 0.0, 0.0),
            Some(_) => Rect::new(0.0, -1.0e9, 0.0, 0.0),
            None => child_clip(&slot.content_rect, &parent.clip),
        };
        let prefix = self.frame_prefix(id);
        let mut request = FrameSnapshotRequest {
            mode: options.mode,
            ref_prefix: prefix.clone(),
            visible_clip: Some(clip),
            obscured_mode: options.obscured_mode,
            ..Default::default()
        };
        let child_occlusion = occlusion.for_child(slot);
        child_occlusion.apply(&mut request);
        // A frame still loading its document is marked, not left out: what
        // it shows so far (often nothing) is all there is yet.
        // (The tab's events do not follow the loading of a frame another
        // process runs: its end is told on that frame's own session.)
        let loading = self.host_of(id).is_none() && self.tracker().with(|s| s.frame_loading(id.inner()));
        let mut snapshot = match self.frame_snapshot(id, &request).await {
            Ok(s) => s,
            Err(e) if loading => {
                tracing::debug!("frame {} is loading: {e}", id.inner());
                return Ok(Some((
                    key,
                    FrameNode {
                        frame_prefix: prefix,
                        loading,
                        ..FrameNode::default()
                    },
                )));
            }
            Err(e) => return Err(e),
        };
        let (children, notes) = self
            .snapshot_children(child, &snapshot, clip, options, &child_occlusion)
            .await;
        snapshot.notes.extend(notes);
        Ok(Some((
            key,
            FrameNode {
                snapshot,
                frame_prefix: prefix,
                children,
                loading,
            },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_of_a_fully_visible_frame_is_its_viewport() {
        let c = child_clip(
            &Rect::new(100.0, 50.0, 300.0, 200.0),
            &Rect::new(0.0, 0.0, 1280.0, 720.0),
        );
        assert_eq!(c, Rect::new(0.0, 0.0, 300.0, 200.0));
    }

    #[test]
    fn clip_of_a_partly_scrolled_out_frame() {
        // The iframe starts 100px above the viewport top and 20px left of it.
        let c = child_clip(
            &Rect::new(-20.0, -100.0, 300.0, 200.0),
            &Rect::new(0.0, 0.0, 1280.0, 720.0),
        );
        assert_eq!(c, Rect::new(20.0, 100.0, 280.0, 100.0));
        // Nested: the parent frame shows only its lower half.
        let c = child_clip(&Rect::new(10.0, 10.0, 100.0, 100.0), &Rect::new(0.0, 50.0, 300.0, 50.0));
        assert_eq!(c, Rect::new(0.0, 40.0, 100.0, 50.0));
    }

    #[test]
    fn clip_of_an_offscreen_frame_is_empty() {
        let c = child_clip(
            &Rect::new(0.0, 2000.0, 300.0, 200.0),
            &Rect::new(0.0, 0.0, 1280.0, 720.0),
        );
        assert!(c.is_empty());
    }
}
