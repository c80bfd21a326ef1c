//! What a page remembers between calls: engine contexts per frame, frame
//! numbers, the documents refs belong to, and its tunables.

use std::collections::HashMap;
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::page::FrameId;
use chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId;

use crate::config::WaitUntil;

#[derive(Default)]
pub(crate) struct PageState {
    /// Execution context of the engine's isolated world, per frame id.
    pub(crate) contexts: HashMap<String, ExecutionContextId>,
    /// Contexts where the engine is known to be loaded (checked once per document).
    pub(crate) engine_ready: HashMap<String, ExecutionContextId>,
    /// Contexts of the user's isolated world ([`USER_WORLD_NAME`]), per frame id.
    pub(crate) user_contexts: HashMap<String, ExecutionContextId>,
    /// Stable frame numbers (the `N` of ref prefix `fN`), per frame id.
    pub(crate) frame_numbers: HashMap<String, u32>,
    /// Per frame id: the refs of its latest snapshot's document.
    pub(crate) frame_refs: HashMap<String, FrameRefs>,
    /// Frames that another renderer process runs (another site's, in a
    /// browser that isolates sites), per frame id: see frame_hosts.rs.
    pub(crate) hosted_frames: HashMap<String, HostedFrame>,
    /// When a frame's process last let a command run out its time, per
    /// host target: it is not waited on again at once.
    pub(crate) hosts_unanswered: HashMap<String, std::time::Instant>,
    pub(crate) main_frame: Option<FrameId>,
    /// The DOMContentLoaded (when the driver saw it) whose first frame a
    /// readiness wait has waited for: later waits need not again.
    pub(crate) drawn_after_parse: Option<std::time::Instant>,
    /// The PDF the main frame showed last (its URL and document) and its
    /// lines for the tree: read once per document.
    pub(crate) pdf_read: Option<(String, String)>,
}

/// Where a frame outside the tab's own process lives.
#[derive(Debug, Clone)]
pub(crate) struct HostedFrame {
    /// The DevTools target (an `iframe` target) whose session reaches it.
    pub(crate) host: String,
    /// Its parent frame, in whichever process that runs.
    pub(crate) parent: FrameId,
}

/// The refs one frame's document handed out.
#[derive(Debug, Default)]
pub(crate) struct FrameRefs {
    /// The document (its `performance.timeOrigin`), so that a ref is never
    /// resolved against a newer document that happens to reuse its number.
    pub(crate) document: f64,
    /// What its snapshots showed of each ref, under the frame's own ref (`e1`
    /// of `f1e1`).
    pub(crate) refs: HashMap<String, RefFacts>,
}

/// One ref as a snapshot showed it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RefFacts {
    /// `textbox "Full name"`: an action on the ref names the element as the
    /// model saw it.
    pub(crate) label: String,
    pub(crate) role: String,
    pub(crate) name: String,
    /// The engine's selector of the element then: it finds the element's
    /// replacement after a re-render (see `Page::rebound`).
    pub(crate) selector: String,
}

impl PageState {
    /// Forgets the cached contexts of a frame that got a new document (or went away).
    pub(crate) fn forget_frame_contexts(&mut self, frame: &str) {
        self.contexts.remove(frame);
        self.engine_ready.remove(frame);
        self.user_contexts.remove(frame);
    }

    pub(crate) fn forget_all_contexts(&mut self) {
        self.contexts.clear();
        self.engine_ready.clear();
        self.user_contexts.clear();
    }
}

/// Tunables of one page, changeable at any time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageConfig {
    pub navigation_timeout: Duration,
    pub ready_timeout: Duration,
    pub action_timeout: Duration,
    pub wait_until: WaitUntil,
}
