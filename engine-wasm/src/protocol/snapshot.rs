//! Snapshot requests and answers: what the driver asks of one frame, the
//! frame's snapshot, and the stitched whole-page result (also the driver's
//! `--json` output).

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How much of the page is rendered in detail.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Default)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotMode {
    /// Everything on the page.
    #[default]
    Full,
    /// Only what intersects the viewport, plus counts of what lies outside.
    Viewport,
}

/// A rectangle in CSS pixels.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Debug, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub fn new(x: f64, y: f64, width: f64, height: f64) -> Self {
        Rect { x, y, width, height }
    }
    pub fn right(&self) -> f64 {
        self.x + self.width
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }
    pub fn is_empty(&self) -> bool {
        self.width <= 0.0 || self.height <= 0.0
    }
    /// True when the two rectangles share a region of positive area.
    pub fn intersects(&self, other: &Rect) -> bool {
        self.x < other.right() && other.x < self.right() && self.y < other.bottom() && other.y < self.bottom()
    }
    pub fn translate(&self, dx: f64, dy: f64) -> Rect {
        Rect {
            x: self.x + dx,
            y: self.y + dy,
            ..*self
        }
    }
}

/// What the driver asks of the engine in one frame.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct FrameSnapshotRequest {
    #[serde(default)]
    pub mode: SnapshotMode,
    /// Prefix for this frame's refs: "" in the main frame, "f1", "f2"… in child frames.
    #[serde(default)]
    pub ref_prefix: String,
    /// The part of this frame's own viewport that is visible in the top-level
    /// viewport, in this frame's coordinates. `None` in the main frame.
    #[serde(default)]
    pub visible_clip: Option<Rect>,
    /// Snapshot only the subtree of the first element matching this engine
    /// selector (a region of the page); `None` = the whole document.
    #[serde(default)]
    pub root_selector: Option<String>,
    /// How elements outside an open modal are shown.
    #[serde(default)]
    pub obscured_mode: ObscuredMode,
    /// Mark everything in this frame obscured (its iframe lies outside a
    /// modal open in an ancestor frame)…
    #[serde(default)]
    pub obscure_all: bool,
    /// …except the iframe with this frame key (a modal is open inside it).
    #[serde(default)]
    pub obscure_except_frame: Option<String>,
    /// Hit-test in-viewport refs for `[covered]` (on by default).
    #[serde(default = "default_true")]
    pub hit_test: bool,
}

fn default_true() -> bool {
    true
}

impl Default for FrameSnapshotRequest {
    fn default() -> Self {
        FrameSnapshotRequest {
            mode: SnapshotMode::Full,
            ref_prefix: String::new(),
            visible_clip: None,
            root_selector: None,
            obscured_mode: ObscuredMode::Outline,
            obscure_all: false,
            obscure_except_frame: None,
            hit_test: true,
        }
    }
}

/// What happens to the page outside an open modal.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug, Default)]
#[serde(rename_all = "lowercase")]
pub enum ObscuredMode {
    /// Landmarks and a few headings, marked `[obscured]`, and one line per
    /// landmark counting what it holds (see `outline`): the model keeps its
    /// bearings for a fraction of the page's tokens.
    #[default]
    Outline,
    /// Everything kept for structure, marked `[obscured]`, no refs.
    Mark,
    /// Left out of the text entirely (fewer tokens, no page context).
    Drop,
}

/// Scroll position and size of the document, in CSS pixels.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Debug, Default)]
pub struct ViewportInfo {
    pub scroll_x: f64,
    pub scroll_y: f64,
    pub viewport_width: f64,
    pub viewport_height: f64,
    pub doc_width: f64,
    pub doc_height: f64,
    pub pages_above: u32,
    pub pages_below: u32,
    pub at_top: bool,
    pub at_bottom: bool,
}

/// An open modal that makes the rest of the page unreachable.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct ModalInfo {
    /// "aria" | "dialog" | "inert" | "heuristic"
    pub kind: String,
    pub selector: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "ref")]
    pub ref_id: Option<String>,
}

/// One element the model may act on.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct RefInfo {
    pub role: String,
    pub name: String,
    /// Engine selector, resolvable again in its frame (see `selector.rs`).
    pub selector: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The frame ref prefix ("f1") for elements inside iframes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    pub in_viewport: bool,
    #[serde(default)]
    pub obscured: bool,
    #[serde(default)]
    pub covered_by: Option<String>,
}

/// Refs in document order. Serialised as a JSON object whose keys keep that order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefMap(pub Vec<(String, RefInfo)>);

impl RefMap {
    pub fn get(&self, key: &str) -> Option<&RefInfo> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = &(String, RefInfo)> {
        self.0.iter()
    }
}

impl Serialize for RefMap {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RefMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RefMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of refs")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<RefMap, A::Error> {
                let mut v = Vec::new();
                while let Some((k, r)) = a.next_entry::<String, RefInfo>()? {
                    v.push((k, r));
                }
                Ok(RefMap(v))
            }
        }
        d.deserialize_map(V)
    }
}

/// Where a child frame's snapshot is spliced into its parent's lines.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct FrameSlot {
    /// Index (0-based) of the `iframe` line in `FrameSnapshot::lines`.
    pub line: usize,
    /// Indent depth of the iframe line; the child's lines go one level deeper.
    pub depth: usize,
    /// Key the driver uses to match a CDP frame to this iframe element.
    pub key: String,
    /// Content box of the iframe in this frame's viewport coordinates.
    pub content_rect: Rect,
    /// The iframe lies outside an open modal: its content is unreachable too.
    #[serde(default)]
    pub obscured: bool,
    /// Viewport mode, iframe outside the viewport: "above" or "below". It has
    /// no line (`line` is meaningless); the driver snapshots the frame only to
    /// count its interactive elements for the footer hint.
    #[serde(default)]
    pub offscreen: Option<String>,
}

/// Counts of interactive elements outside the viewport.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Debug, Default)]
pub struct OffscreenCounts {
    pub above: u32,
    pub below: u32,
}

/// A large overlay without modal semantics: warned about, never occluding.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
pub struct OverlayWarning {
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "ref")]
    pub ref_id: Option<String>,
    pub selector: String,
}

/// Timing and size figures for one engine call.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Debug, Default)]
pub struct EngineStats {
    pub elements: u32,
    pub refs: u32,
    pub engine_ms: f64,
    /// Time spent on occlusion and hit-testing (part of `engine_ms`).
    #[serde(default)]
    pub occlusion_ms: f64,
    /// Time spent reading the DOM (part of `engine_ms`).
    #[serde(default)]
    pub walk_ms: f64,
    /// Time spent serialising the result (part of `engine_ms`).
    #[serde(default)]
    pub serialize_ms: f64,
}

/// One frame's snapshot, as returned by the engine.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct FrameSnapshot {
    pub protocol: u32,
    pub url: String,
    pub title: String,
    /// Rendered tree lines of this frame, without header or footer comments.
    pub lines: Vec<String>,
    pub frame_slots: Vec<FrameSlot>,
    pub viewport: ViewportInfo,
    pub refs: RefMap,
    pub offscreen: OffscreenCounts,
    pub modal: Option<ModalInfo>,
    #[serde(default)]
    pub overlay_warning: Option<OverlayWarning>,
    /// Remarks for the model, printed as `# …` header lines (e.g. truncation).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Last, and short: the engine patches its own timings into the tail
    /// of the serialised JSON (see `STATS_JSON_TAIL_BYTES`).
    pub stats: EngineStats,
}

/// The serialised `stats` of a `FrameSnapshot` lie within this many bytes
/// of the end of its JSON.
pub const STATS_JSON_TAIL_BYTES: usize = 512;

/// Whole-page snapshot statistics in the `--json` output.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Debug, Default)]
pub struct SnapshotStats {
    pub elements: u32,
    pub refs: u32,
    pub engine_ms: f64,
    pub total_ms: f64,
    #[serde(default)]
    pub occlusion_ms: f64,
}

/// The stitched, whole-page snapshot the driver hands to users and LLMs.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct SnapshotResult {
    pub url: String,
    pub title: String,
    /// Exactly the text an LLM is given.
    pub tree: String,
    pub viewport: ViewportInfo,
    pub modal: Option<ModalInfo>,
    pub refs: RefMap,
    pub stats: SnapshotStats,
}

/// A page's frames as `stitch` takes them: each frame's snapshot, its child
/// frames keyed by their iframe's `FrameSlot.key`. The driver builds it
/// natively; other hosts send a [`StitchRequest`].
#[derive(Clone, PartialEq, Debug, Default)]
pub struct FrameNode {
    pub snapshot: FrameSnapshot,
    /// "" for the main frame, "f1"… for child frames.
    pub frame_prefix: String,
    /// Child frames keyed by the `FrameSlot.key` of their iframe element.
    pub children: Vec<(String, FrameNode)>,
    /// The frame is still loading its document: its iframe line says
    /// `[loading]` (the driver knows; other hosts leave it false).
    pub loading: bool,
}

/// `__sightline.stitch(json)` request: the frames of one page as a host
/// other than the driver (the npm module, the extension's panel) collected
/// them, spliced by the engine's own stitch so every host renders the same
/// text. Frames are flat, each after its parent (the first is the main
/// frame), so the JSON nests no deeper for deeply nested frames. The engine
/// reads it straight into a [`FrameNode`] tree (`wire::stitch_request`).
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct StitchRequest {
    #[serde(default)]
    pub mode: SnapshotMode,
    pub frames: Vec<StitchFrame>,
}

/// One frame of a [`StitchRequest`].
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct StitchFrame {
    /// Index of an earlier frame in `frames`, its parent; unused for the
    /// main frame.
    #[serde(default)]
    pub parent: Option<usize>,
    /// The `FrameSlot.key` of this frame's iframe in its parent.
    #[serde(default)]
    pub key: String,
    /// "" for the main frame, "f1"… for child frames.
    #[serde(default)]
    pub prefix: String,
    /// The frame's snapshot as the engine wrote it.
    pub snapshot: FrameSnapshot,
}

/// Result of resolving a ref or selector in the page (used by the actions layer).
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug, Default)]
pub struct ResolveResult {
    pub found: bool,
    /// Set when a ref was known but its element has left the document.
    #[serde(default)]
    pub stale: bool,
    #[serde(default)]
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_close_the_frame_snapshot_json() {
        let snap = FrameSnapshot {
            lines: vec!["- text: \"engine_ms\":-1.0".into(); 1000],
            notes: vec!["x".repeat(5000)],
            stats: EngineStats {
                elements: u32::MAX,
                refs: u32::MAX,
                engine_ms: -1.0,
                occlusion_ms: f64::MAX,
                walk_ms: f64::MAX,
                serialize_ms: -2.0,
            },
            ..Default::default()
        };
        let json = serde_json::to_string(&snap).unwrap();
        let stats = json.rfind("\"stats\":").unwrap();
        assert!(json.len() - stats < STATS_JSON_TAIL_BYTES, "{}", &json[stats..]);
        assert!(json[stats..].contains("\"engine_ms\":-1.0") && json.ends_with("}}"));
    }

    #[test]
    fn ref_map_keeps_document_order() {
        let m = RefMap(vec![
            (
                "e2".into(),
                RefInfo {
                    role: "button".into(),
                    ..Default::default()
                },
            ),
            (
                "e10".into(),
                RefInfo {
                    role: "link".into(),
                    ..Default::default()
                },
            ),
        ]);
        let s = serde_json::to_string(&m).unwrap();
        assert!(s.find("e2").unwrap() < s.find("e10").unwrap());
        let back: RefMap = serde_json::from_str(&s).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn optional_ref_fields_are_omitted() {
        let r = RefInfo {
            role: "button".into(),
            name: "Go".into(),
            selector: "#go".into(),
            ..Default::default()
        };
        let s = serde_json::to_string(&r).unwrap();
        assert!(!s.contains("\"url\""));
        assert!(!s.contains("\"frame\""));
        assert!(s.contains("\"covered_by\":null"));
    }
}
