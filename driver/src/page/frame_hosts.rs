//! Frames another renderer process runs. A browser that isolates sites (the
//! user's own Chrome, reached with `--cdp-url`) runs each frame of another
//! site in a process of its own, behind a DevTools target of type `iframe`:
//! the tab's session reaches neither its documents nor its worlds, and the
//! tab's frame tree does not list it. Such a frame, and the frames inside it
//! that share its process, are reached through a session attached to that
//! target on the side channel (side_channel.rs): every command that names
//! one of their worlds, nodes or objects goes to its host ([`Page::send_for`]).
//!
//! The frames are learnt as snapshots meet them (their iframe's slot has
//! no frame in the tab's tree), as a frame is met through its iframe (a
//! selector in a frame, focus followed into frames), and by the walks over
//! every frame of a page. Refs into them then act as any frame's do: the
//! browser routes the tab's input events to the process under the point.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::{FrameId, FrameTree, GetFrameTreeParams};
use chromiumoxide::cdp::browser_protocol::target::{GetTargetsParams, TargetInfo};
use chromiumoxide::types::Command;
use futures::future::BoxFuture;
use serde_json::Value;

use super::handle::Page;
use super::state::HostedFrame;
use crate::error::{Error, Result};

/// How long a command to another process's frame may take. Such a frame
/// can be busy while the page is not (an ad's script): it must not hold
/// up the page's snapshot for long.
const HOSTED_REPLY_LIMIT: Duration = Duration::from_secs(5);

/// How long a process that did not answer in time is not asked again: a
/// busy frame would otherwise cost every snapshot its full wait.
const UNANSWERED_PAUSE: Duration = Duration::from_secs(15);

/// The frames of other processes on a page (see [`Page::hosted_frames_now`]).
#[derive(Debug, Default)]
pub(crate) struct HostedNow {
    /// Those whose processes answered.
    pub(crate) read: Vec<FrameId>,
    /// Those whose processes did not (busy, or gone meanwhile).
    pub(crate) unread: Vec<FrameId>,
}

impl Page {
    /// The target whose session reaches `frame`, when that is not the tab's
    /// own (`None`: the tab's session).
    pub(crate) fn host_of(&self, frame: &FrameId) -> Option<String> {
        self.state().hosted_frames.get(frame.inner()).map(|h| h.host.clone())
    }

    /// The parent of a frame another process runs.
    pub(crate) fn hosted_parent(&self, frame: &FrameId) -> Option<FrameId> {
        self.state().hosted_frames.get(frame.inner()).map(|h| h.parent.clone())
    }

    /// Forgets that `frame` was another process's: it is in the tab's own
    /// tree now (a frame that navigated to its parent's site moves into
    /// its parent's process, keeping its id).
    pub(crate) fn forget_hosted(&self, frame: &FrameId) {
        let mut state = self.state();
        if state.hosted_frames.remove(frame.inner()).is_some() {
            state.forget_frame_contexts(frame.inner());
        }
    }

    fn note_hosted(&self, frame: &FrameId, host: &str, parent: &FrameId) {
        self.state().hosted_frames.insert(
            frame.inner().clone(),
            HostedFrame {
                host: host.to_string(),
                parent: parent.clone(),
            },
        );
    }

    /// Sends `command` to the session that reaches `frame`.
    pub(crate) async fn send_for<C: Command>(&self, frame: &FrameId, command: C) -> Result<C::Response> {
        let host = self.host_of(frame);
        self.send_in(host.as_deref(), command).await
    }

    /// Sends `command` to the tab's session (`host` None) or to the session
    /// of the target `host`, and returns the browser's answer.
    pub(crate) async fn send_in<C: Command>(&self, host: Option<&str>, command: C) -> Result<C::Response> {
        let Some(host) = host else {
            return Ok(self.send(command).await?.result);
        };
        let method = super::cdp_error::method_name(&command);
        let params = serde_json::to_value(&command).expect("commands serialise");
        let answer = self.send_hosted(host, method, params).await?;
        serde_json::from_value(answer).map_err(|e| Error::Cdp {
            method,
            message: format!("unreadable answer: {e}"),
        })
    }

    /// [`Page::send_in`] to another process's frame, boxed: the calls that
    /// await it sit deep in an action's future, which must stay small
    /// (a debug build's main thread has 8 MB of stack).
    fn send_hosted<'a>(&'a self, host: &'a str, method: &'static str, params: Value) -> BoxFuture<'a, Result<Value>> {
        Box::pin(async move {
            let side = self.side_channel().filter(|s| s.is_usable()).ok_or(Error::Cdp {
                method,
                message: "the frame runs in another process, which this connection cannot reach".into(),
            })?;
            // (Said for a model: the frame is busy, the page is not; an
            // action sent may still happen once the frame is free.)
            let busy = |ago: Option<Duration>| {
                let when = match ago {
                    None => "; try again later".to_string(),
                    Some(ago) => format!(
                        ", {}s ago; it is asked again in {}s",
                        ago.as_secs(),
                        UNANSWERED_PAUSE.saturating_sub(ago).as_secs().max(1)
                    ),
                };
                Error::FrameBusy(format!(
                    "the frame is busy (another site's, in a process of its own): it did not answer within {}s{when}. \
Look before repeating an action there: one sent may still take effect",
                    HOSTED_REPLY_LIMIT.as_secs()
                ))
            };
            let last_timeout = self.state().hosts_unanswered.get(host).copied();
            if let Some(at) = last_timeout.filter(|at| at.elapsed() < UNANSWERED_PAUSE) {
                return Err(busy(Some(at.elapsed())));
            }
            match tokio::time::timeout(HOSTED_REPLY_LIMIT, side.on_target(host, method, params)).await {
                Ok(answer) => answer,
                Err(_) => {
                    self.state()
                        .hosts_unanswered
                        .insert(host.to_string(), std::time::Instant::now());
                    Err(busy(None))
                }
            }
        })
    }

    /// The frames of other processes whose iframe is in `parent`'s document
    /// (web pages only: the browser's own frames, a PDF viewer's say, are
    /// no page content).
    pub(crate) async fn frames_of_other_processes(&self, parent: &FrameId) -> Vec<TargetInfo> {
        let mut targets = self.iframe_targets().await;
        targets.retain(|t| t.parent_frame_id.as_ref() == Some(parent));
        targets
    }

    /// Every frame of another process the browser lists (web pages only).
    async fn iframe_targets(&self) -> Vec<TargetInfo> {
        let Ok(listed) = self.send(GetTargetsParams::default()).await else {
            return Vec::new();
        };
        listed
            .result
            .target_infos
            .iter()
            .filter(|t| t.r#type == "iframe" && (t.url.starts_with("http:") || t.url.starts_with("https:")))
            .cloned()
            .collect()
    }

    /// Forgets the frames of other processes under `parent` whose targets
    /// are not among `listed` (they left the page, or moved into the tab's
    /// process), with the frames that shared their processes.
    pub(crate) fn forget_hosted_under(&self, parent: &FrameId, listed: &[TargetInfo]) {
        let mut state = self.state();
        let gone: Vec<String> = state
            .hosted_frames
            .iter()
            .filter(|(id, h)| &h.parent == parent && h.host == **id)
            .filter(|(id, _)| !listed.iter().any(|t| t.target_id.inner() == *id))
            .map(|(id, _)| id.clone())
            .collect();
        state.hosted_frames.retain(|_, h| !gone.contains(&h.host));
    }

    /// Notes `frame`, a child of `parent` met by its iframe rather than by
    /// a snapshot, as run by another process when it is one.
    /// `in_parents_process`: its iframe shows its document, so the frame
    /// runs where its parent does (another process's, when the parent is
    /// one); else its own target is looked for.
    pub(crate) async fn learn_if_hosted(&self, frame: &FrameId, parent: &FrameId, in_parents_process: bool) {
        if self.host_of(frame).is_some() {
            return;
        }
        if in_parents_process {
            if let Some(host) = self.host_of(parent) {
                self.note_hosted(frame, &host, parent);
            }
            return;
        }
        if !self.reaches_other_processes() {
            return;
        }
        // (Such a frame's target has the frame's id.)
        let others = self.frames_of_other_processes(parent).await;
        if others.iter().any(|t| t.target_id.inner() == frame.inner()) {
            self.note_hosted(frame, frame.inner(), parent);
        }
    }

    /// The frames other processes run on the page now, under any frame of
    /// `tree` (the tab's own) or of one another, with the frames sharing
    /// their processes, each noted: for the walks over every frame of a
    /// page (secrets painted over in a screenshot, text waited for). Each
    /// level is asked at once; a busy process's frame is listed as unread.
    pub(crate) async fn hosted_frames_now(&self, tree: &FrameTree) -> HostedNow {
        let mut found = HostedNow::default();
        if !self.reaches_other_processes() {
            return found;
        }
        let iframes = self.iframe_targets().await;
        let mut known = super::frames::frame_ids(tree);
        // Outward from the tab's frames, a level at a time.
        loop {
            let next: Vec<(&TargetInfo, FrameId)> = iframes
                .iter()
                .filter(|t| !known.iter().any(|k| k.inner() == t.target_id.inner()))
                .filter_map(|t| Some((t, t.parent_frame_id.clone().filter(|p| known.contains(p))?)))
                .collect();
            if next.is_empty() {
                return found;
            }
            known.extend(next.iter().map(|(t, _)| FrameId::new(t.target_id.inner().clone())));
            let trees =
                futures::future::join_all(next.iter().map(|(target, parent)| self.hosted_tree(target, parent))).await;
            for ((target, parent), sub) in next.iter().zip(trees) {
                let Ok(sub) = sub else {
                    let frame = FrameId::new(target.target_id.inner().clone());
                    self.note_hosted(&frame, frame.inner(), parent);
                    found.unread.push(frame);
                    continue;
                };
                let ids = super::frames::frame_ids(&sub);
                known.extend(ids.iter().cloned());
                found.read.extend(ids);
            }
        }
    }

    /// Whether frames of other processes can be read here: through the
    /// side channel (an extension's bridge offers none).
    pub(crate) fn reaches_other_processes(&self) -> bool {
        self.side_channel().is_some_and(|s| s.is_usable())
    }

    /// The frame tree of the `iframe` target `target` (its frame and the
    /// frames sharing its process), each frame noted as reached through it.
    pub(crate) async fn hosted_tree(&self, target: &TargetInfo, parent: &FrameId) -> Result<FrameTree> {
        let host = target.target_id.inner().clone();
        let tree = self
            .send_in(Some(&host), GetFrameTreeParams::default())
            .await?
            .frame_tree;
        // (Frames that left it are forgotten: only those listed now stay.)
        self.state().hosted_frames.retain(|_, h| h.host != host);
        self.note_hosted(&tree.frame.id, &host, parent);
        let mut stack: Vec<&FrameTree> = vec![&tree];
        while let Some(t) = stack.pop() {
            for child in t.child_frames.iter().flatten() {
                self.note_hosted(&child.frame.id, &host, &t.frame.id);
                stack.push(child);
            }
        }
        Ok(tree)
    }

    /// The frames from the main frame down to `frame` (excluded the main
    /// frame, included `frame`) when `frame` is one another process runs,
    /// or lies inside one: up through the parents noted, then the tab's
    /// own tree.
    pub(crate) fn hosted_chain(&self, tree: &FrameTree, frame: &FrameId, out: &mut Vec<FrameId>) -> bool {
        let mut hosted = vec![frame.clone()];
        let mut at = frame.clone();
        // (Bounded: a cycle of parents cannot happen, but must not hang.)
        for _ in 0..32 {
            let Some(parent) = self.hosted_parent(&at) else {
                return false;
            };
            if parent != tree.frame.id && self.host_of(&parent).is_some() {
                hosted.push(parent.clone());
                at = parent;
                continue;
            }
            // The first frame up that the tab runs: the main one, or one
            // the tab's tree leads to.
            if parent != tree.frame.id && !super::target::path_to(tree, &parent, out) {
                return false;
            }
            out.extend(hosted.into_iter().rev());
            return true;
        }
        false
    }
}
