//! The page's frames: the frame tree, the main frame, and the stable `fN`
//! numbers that prefix refs in child frames.

use chromiumoxide::cdp::browser_protocol::page::{FrameId, FrameTree, GetFrameTreeParams};

use super::handle::Page;
use crate::error::Result;

impl Page {
    /// The current frame tree.
    pub(crate) async fn frame_tree(&self) -> Result<FrameTree> {
        let resp = self.send(GetFrameTreeParams::default()).await?;
        Ok(resp.result.frame_tree.clone())
    }

    /// The main frame's id (it stays the same for the life of the tab).
    pub(crate) async fn main_frame_id(&self) -> Result<FrameId> {
        if let Some(id) = self.state().main_frame.clone() {
            return Ok(id);
        }
        let id = self.frame_tree().await?.frame.id;
        self.state().main_frame = Some(id.clone());
        Ok(id)
    }

    pub(crate) fn forget_contexts(&self) {
        self.state().forget_all_contexts();
    }

    pub(super) fn forget_context(&self, frame: &FrameId) {
        self.state().forget_frame_contexts(frame.inner());
    }

    /// The frame id behind a ref prefix (`"f2"`), if a snapshot numbered it.
    pub(crate) fn frame_for_prefix(&self, prefix: &str) -> Option<FrameId> {
        let n: u32 = prefix.strip_prefix('f')?.parse().ok()?;
        self.state()
            .frame_numbers
            .iter()
            .find(|(_, v)| **v == n)
            .map(|(k, _)| FrameId::new(k.clone()))
    }

    /// Numbers every child frame of `tree` not yet numbered, depth first in
    /// the frame tree's order. Done before child frames are snapshotted
    /// concurrently, so that numbers do not depend on which answers first.
    pub(crate) fn number_frames(&self, tree: &FrameTree) {
        for id in frame_ids(tree).iter().skip(1) {
            self.frame_number(id);
        }
    }

    /// The `fN` ref prefix of a child frame: a number per frame id, assigned on
    /// first sight and stable for the life of the page.
    pub(crate) fn frame_prefix(&self, frame: &FrameId) -> String {
        format!("f{}", self.frame_number(frame))
    }

    pub(crate) fn frame_number(&self, frame: &FrameId) -> u32 {
        let mut state = self.state();
        let next = state.frame_numbers.len() as u32 + 1;
        *state.frame_numbers.entry(frame.inner().clone()).or_insert(next)
    }
}

/// The ids of `tree`'s frames, its root first, then depth first in the
/// tree's order.
pub(crate) fn frame_ids(tree: &FrameTree) -> Vec<FrameId> {
    let mut out = Vec::new();
    let mut stack = vec![tree];
    while let Some(t) = stack.pop() {
        out.push(t.frame.id.clone());
        stack.extend(t.child_frames.iter().flatten().rev());
    }
    out
}
