//! removeBlocker's requests and answers: the scan (candidates, their kind
//! and evidence, ranked close buttons) and the operations on one blocker.
use serde::{Deserialize, Serialize};

use super::snapshot::{Rect, ViewportInfo};

/// What `__sightline.blockers(json)` is asked to do.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum BlockerOp {
    /// Find the candidates: answers a [`BlockerScan`].
    Scan,
    /// Whether the target is still in the way: answers a `DomActionResult`
    /// whose value starts with "gone" once it is not.
    State,
    /// Remove the target and undo the scroll locks, `inert` and
    /// `aria-hidden` a modal leaves.
    Remove,
    /// Remove the target element alone.
    RemoveLayer,
    /// This frame's document as one candidate (its kind, close and consent
    /// buttons): asked of the frame a scan's candidate shows (`frame`), a
    /// dialog that is a page of its own in an iframe over its parent.
    ScanDocument,
}

/// `__sightline.blockers(json)` request. `State`, `Remove` and `RemoveLayer`
/// need a target (a ref or selector from the scan).
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct BlockerRequest {
    pub op: BlockerOp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// What a blocker is, decided from its text and structure.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "snake_case")]
pub enum BlockerKind {
    Consent,
    Login,
    AgeGate,
    Paywall,
    NewsletterPromo,
    GenericModal,
    Banner,
    Tooltip,
    /// An empty layer (no text, controls or media) over the viewport centre
    /// that takes the clicks meant for the page: a stuck loading screen, a
    /// leftover backdrop. Nothing to read or answer, so removal is safe.
    EmptyOverlay,
}

/// A button the driver may click.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct BlockerButton {
    /// Ref (resolvable by the engine) of the button.
    pub target: String,
    pub selector: String,
    pub text: String,
    pub score: u32,
    pub reason: String,
    /// The `<iframe>` (a selector in the scanned frame) whose document
    /// holds the button; set by the driver for a framed candidate's buttons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
}

/// One element in the way, with the evidence for it.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct BlockerCandidate {
    /// Ref of the blocker element (resolvable by the engine).
    pub target: String,
    pub selector: String,
    pub kind: BlockerKind,
    /// Keywords (or structural facts) that decided the kind.
    pub evidence: Vec<String>,
    pub rect: Rect,
    /// Share of the viewport area it covers (0–1).
    pub area_ratio: f64,
    pub position: String,
    pub z_index: Option<i32>,
    /// Share of hit-test probes across the viewport that land inside it.
    pub hit_coverage: f64,
    pub covers_center: bool,
    /// dialog role / aria-modal / `<dialog open>` / fixed or sticky / high z-index.
    pub modal_evidence: bool,
    /// Big enough to be in the way (≥30% of the viewport, or over its centre).
    pub size_evidence: bool,
    /// Close buttons, best first.
    pub close: Vec<BlockerButton>,
    /// Consent only.
    pub reject: Option<BlockerButton>,
    pub accept: Option<BlockerButton>,
    pub description: String,
    /// A layer whose only content is an iframe (a consent manager's dialog
    /// served from its own site): the `<iframe>`'s selector. Its words and
    /// buttons are in that frame's document (`ScanDocument`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
}

/// The answer to a scan: candidates, most obstructive first.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct BlockerScan {
    pub url: String,
    pub candidates: Vec<BlockerCandidate>,
    pub viewport: ViewportInfo,
}
