//! The DOM adapter (wasm32 only) and the engine's exported JS API.
//! Everything here reads or touches the live page; all decisions are made by
//! the pure modules it calls.
mod actions;
mod blockers;
mod generated_content;
mod js;
mod probe;
mod reads;
mod resolve;
mod state;
mod walk;

use crate::dom::NodeId;
use crate::protocol::{
    wire, BlockerOp, BlockerRequest, DomActionResult, FrameSnapshotRequest, TargetInfo, PROTOCOL_VERSION,
};
use crate::semantics::Semantics;
use crate::snapshot::{build_frame_snapshot, PageFacts, RefAllocator};
use crate::viewport::viewport_info;
use state::{state, EngineState};
use wasm_bindgen::prelude::*;
use web_sys::Element;

pub use crate::css_content::parse_css_content;
pub use walk::{walk_document, Walked};

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

pub(crate) fn document() -> Result<web_sys::Document, JsValue> {
    web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))
}

/// Ref numbers backed by the live elements of this walk.
struct LiveAllocator<'a> {
    st: &'a EngineState,
    elements: &'a [Option<Element>],
}

impl RefAllocator for LiveAllocator<'_> {
    fn ref_number(&mut self, node: NodeId) -> u32 {
        match &self.elements[node] {
            Some(el) => self.st.ref_number(el),
            None => 0,
        }
    }
}

pub(crate) fn page_facts(doc: &web_sys::Document) -> PageFacts {
    let window = web_sys::window().expect("window");
    let root = doc.document_element();
    // The viewport's size is the scrolling element's client box: the body's
    // in quirks mode, where the root's is the whole document.
    let viewer = doc.scrolling_element().or_else(|| root.clone());
    let body_h = doc.body().map(|b| b.scroll_height()).unwrap_or(0) as f64;
    let body_w = doc.body().map(|b| b.scroll_width()).unwrap_or(0) as f64;
    let (mut vw, mut vh, doc_w, doc_h) = match (&root, &viewer) {
        (Some(r), Some(v)) => (
            v.client_width() as f64,
            v.client_height() as f64,
            (r.scroll_width() as f64).max(body_w),
            (r.scroll_height() as f64).max(body_h),
        ),
        _ => (0.0, 0.0, body_w, body_h),
    };
    if vw <= 0.0 || vh <= 0.0 {
        vw = window.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
        vh = window.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    }
    let sx = window.scroll_x().unwrap_or(0.0);
    let sy = window.scroll_y().unwrap_or(0.0);
    let location = doc.location();
    PageFacts {
        url: location.as_ref().and_then(|l| l.href().ok()).unwrap_or_default(),
        origin: location.as_ref().and_then(|l| l.origin().ok()).unwrap_or_default(),
        title: doc.title(),
        viewport: viewport_info(sx, sy, vw, vh, doc_w, doc_h),
    }
}

#[wasm_bindgen]
pub fn protocol_version() -> u32 {
    PROTOCOL_VERSION
}

/// Where a snapshot needs what only rendered elements use, CSS generated
/// content for names and resolved link URLs (see `walk_document_with`):
/// everywhere in full mode and for regions; in viewport mode, the
/// `viewport_with_margin` (names are rendered only for what meets the
/// viewport; the margin keeps boxes that straddle it exact).
fn names_clip(req: &FrameSnapshotRequest) -> Option<crate::protocol::Rect> {
    if req.mode != crate::protocol::SnapshotMode::Viewport {
        return None;
    }
    viewport_with_margin(req)
}

/// The visible part of this frame's viewport with half a viewport of margin
/// on every side, outside which a snapshot guesses boxes (see
/// `WalkOptions::offscreen_clip`); `None` for a region snapshot.
fn viewport_with_margin(req: &FrameSnapshotRequest) -> Option<crate::protocol::Rect> {
    if req.root_selector.is_some() {
        return None;
    }
    let window = web_sys::window()?;
    let (w, h) = (
        window.inner_width().ok()?.as_f64()?,
        window.inner_height().ok()?.as_f64()?,
    );
    let clip = req.visible_clip.unwrap_or(crate::protocol::Rect::new(0.0, 0.0, w, h));
    Some(crate::protocol::Rect::new(
        clip.x - w / 2.0,
        clip.y - h / 2.0,
        clip.width + w,
        clip.height + h,
    ))
}

/// FrameSnapshotRequest JSON in, FrameSnapshot JSON out.
#[wasm_bindgen]
pub fn snapshot(request_json: &str) -> Result<String, JsValue> {
    let t0 = now_ms();
    let req: FrameSnapshotRequest = wire::frame_snapshot_request(request_json)
        .map_err(|e| JsValue::from_str(&format!("bad snapshot request: {e}")))?;
    let st = state();
    let doc = document()?;
    st.collect_clickables(&doc);
    let walked = walk::walk_document_with(
        st,
        &doc,
        walk::WalkOptions {
            with_classes: false,
            names_clip: names_clip(&req),
            offscreen_clip: viewport_with_margin(&req),
            skip_plain_boxes: req.mode == crate::protocol::SnapshotMode::Full,
        },
    );
    // A region snapshot still walks the whole document, so selectors, ids and
    // hidden ancestors stay exact; only rendering starts at the region.
    let render_root = match &req.root_selector {
        None => crate::dom::DomTree::ROOT,
        Some(sel) => match resolve::resolve(st, sel) {
            Ok(Some(el)) => find_node(&walked, &el)
                .ok_or_else(|| JsValue::from_str(&format!("root selector matches a non-rendered element: {sel}")))?,
            _ => return Err(JsValue::from_str(&format!("root selector matches nothing: {sel}"))),
        },
    };
    let t_walk = now_ms();
    let facts = page_facts(&doc);
    let mut alloc = LiveAllocator {
        st,
        elements: &walked.elements,
    };
    let own_viewport =
        crate::protocol::Rect::new(0.0, 0.0, facts.viewport.viewport_width, facts.viewport.viewport_height);
    let mut probe = probe::LiveProbe::new(st, &walked.elements, doc.clone(), req.ref_prefix.clone(), own_viewport);
    let mut snap = build_frame_snapshot(&walked.tree, render_root, &facts, &req, &mut alloc, &mut probe);
    if walked.truncated {
        snap.notes.push(format!(
            "Page too large: the snapshot stops after {} nodes.",
            walk::MAX_NODES
        ));
    }
    st.prune(snap.refs.len());
    snap.stats.walk_ms = t_walk - t0;
    // One serialisation whose own time is in the figures: the two timings
    // are written as placeholders and patched in afterwards. (A placeholder
    // can't be confused with page text: inside JSON strings quotes are
    // escaped.)
    snap.stats.serialize_ms = SERIALIZE_MS_PLACEHOLDER;
    snap.stats.engine_ms = ENGINE_MS_PLACEHOLDER;
    let t_ser = now_ms();
    let json = serde_json::to_string(&snap).map_err(|_| JsValue::from_str("serialisation failed"))?;
    let t_end = now_ms();
    Ok(patch_timing(
        patch_timing(json, "serialize_ms", SERIALIZE_MS_PLACEHOLDER, t_end - t_ser),
        "engine_ms",
        ENGINE_MS_PLACEHOLDER,
        t_end - t0,
    ))
}

const ENGINE_MS_PLACEHOLDER: f64 = -1.0;
const SERIALIZE_MS_PLACEHOLDER: f64 = -2.0;

/// Replaces `"key":placeholder` by `"key":value` in serialised JSON. The
/// stats come last, so only the tail is searched (the JSON of a big page
/// runs to megabytes).
fn patch_timing(mut json: String, key: &str, placeholder: f64, value: f64) -> String {
    let number = |v: f64| serde_json::to_string(&v).unwrap_or_else(|_| "0".into());
    let from = format!("\"{key}\":{}", number(placeholder));
    let to = format!("\"{key}\":{}", number(value.max(0.0)));
    let mut tail = json.len().saturating_sub(crate::protocol::STATS_JSON_TAIL_BYTES);
    while !json.is_char_boundary(tail) {
        tail -= 1;
    }
    let patched = json[tail..].replacen(&from, &to, 1);
    json.truncate(tail);
    json.push_str(&patched);
    json
}

/// Actionability facts about a target: TargetRequest JSON in, TargetInfo JSON out.
#[wasm_bindgen]
pub fn action_target(request_json: &str) -> String {
    let info = match wire::target_request(request_json) {
        Ok(req) => actions::target_info(state(), &req),
        Err(e) => TargetInfo {
            error: Some(e),
            ..Default::default()
        },
    };
    serde_json::to_string(&info).unwrap_or_default()
}

/// A DOM-level operation: DomAction JSON in, DomActionResult JSON out.
#[wasm_bindgen]
pub fn dom_action(action_json: &str) -> String {
    let result = match wire::dom_action(action_json) {
        Ok(a) => actions::dom_action(state(), &a),
        Err(e) => DomActionResult {
            ok: false,
            error: Some(e),
            value: None,
        },
    };
    serde_json::to_string(&result).unwrap_or_default()
}

/// removeBlocker's engine side (a `BlockerRequest`): `{"op":"scan"}` and
/// `{"op":"scan_document"}` (the document as the one candidate) → BlockerScan JSON;
/// `{"op":"state","target"}`, `{"op":"remove","target"}` (the element, and
/// the scroll locks, `inert` and `aria-hidden` a modal leaves) and
/// `{"op":"remove_layer","target"}` (the element alone) → DomActionResult JSON.
#[wasm_bindgen]
pub fn blockers(request_json: &str) -> String {
    let fail = |e: String| {
        serde_json::to_string(&DomActionResult {
            ok: false,
            error: Some(e),
            value: None,
        })
        .unwrap_or_default()
    };
    let BlockerRequest { op, target } = match wire::blocker_request(request_json) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let st = state();
    if matches!(op, BlockerOp::Scan | BlockerOp::ScanDocument) {
        return match blockers::scan_page(st, op == BlockerOp::ScanDocument) {
            Ok(scan) => serde_json::to_string(&scan).unwrap_or_default(),
            Err(e) => fail(e),
        };
    }
    let Some(target) = target else {
        return fail("a target is required".into());
    };
    let el = match resolve::resolve(st, &target) {
        Ok(Some(el)) => el,
        // A blocker whose element was replaced or removed is gone, and so
        // is one of a document left behind (a close button that navigated).
        Ok(None) | Err(resolve::ResolveError::Stale) if op == BlockerOp::State => {
            return serde_json::to_string(&DomActionResult {
                ok: true,
                error: None,
                value: Some("gone: detached".into()),
            })
            .unwrap_or_default()
        }
        Ok(None) => return fail(format!("no element matches {target}")),
        Err(_) => return fail(format!("{target} can't be resolved")),
    };
    let value = match op {
        BlockerOp::State => blockers::state(&el),
        BlockerOp::RemoveLayer => {
            el.remove();
            format!("removed <{}>", el.local_name())
        }
        // (A scan was answered above.)
        BlockerOp::Remove | BlockerOp::Scan | BlockerOp::ScanDocument => {
            crate::words::join_strings(&blockers::remove(&el), "\n")
        }
    };
    serde_json::to_string(&DomActionResult {
        ok: true,
        error: None,
        value: Some(value),
    })
    .unwrap_or_default()
}

/// The whole page from per-frame snapshots that a host other than the
/// driver collected (the npm module, the extension's panel): StitchRequest
/// JSON in, SnapshotResult JSON out. The very stitch the driver runs
/// natively, so every host renders the same text.
#[wasm_bindgen]
pub fn stitch(request_json: &str) -> Result<String, JsValue> {
    let (root, mode) =
        wire::stitch_request(request_json).map_err(|e| JsValue::from_str(&format!("bad stitch request: {e}")))?;
    serde_json::to_string(&crate::stitch::stitch(root, mode)).map_err(|_| JsValue::from_str("serialisation failed"))
}

/// Key linking an iframe element to its child frame.
#[wasm_bindgen]
pub fn frame_key_of(el: &Element) -> String {
    state().frame_key_for(el)
}

#[wasm_bindgen]
pub fn resolve(target: &str) -> Option<Element> {
    resolve::resolve(state(), target).ok().flatten()
}

fn find_node(walked: &Walked, el: &Element) -> Option<NodeId> {
    walked
        .elements
        .iter()
        .position(|e| e.as_ref().map(|e| e == el).unwrap_or(false))
}

/// Debug / conformance: role, name and description of every element matching
/// a CSS selector, as a JSON array in document order.
#[wasm_bindgen]
pub fn describe_all(css: &str) -> Result<String, JsValue> {
    let doc = document()?;
    let walked = walk_document(state(), &doc);
    let sem = Semantics::compute(&walked.tree);
    let list = doc.query_selector_all(css)?;
    let mut out: Vec<Described> = Vec::new();
    for i in 0..list.length() {
        let Some(node) = list.item(i) else { continue };
        let Ok(el) = wasm_bindgen::JsCast::dyn_into::<Element>(node) else {
            continue;
        };
        out.push(match find_node(&walked, &el) {
            Some(id) => Described {
                found: true,
                role: sem.role(id),
                name: crate::render::normalize_ws(&sem.name(id)),
                description: crate::render::normalize_ws(&sem.description(id)),
                hidden: sem.is_hidden(id),
            },
            None => Described {
                found: false,
                role: None,
                name: String::new(),
                description: String::new(),
                hidden: true,
            },
        });
    }
    serde_json::to_string(&out).map_err(|_| JsValue::from_str("serialisation failed"))
}

/// One entry of `describe_all` (a typed struct keeps serde_json's dynamic
/// `Value` machinery out of the module).
#[derive(serde::Serialize)]
struct Described {
    found: bool,
    role: Option<&'static str>,
    name: String,
    description: String,
    hidden: bool,
}
