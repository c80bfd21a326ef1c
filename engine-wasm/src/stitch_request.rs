//! Reading a stitch request: per-frame snapshots collected by a host other
//! than the driver (the npm module, the extension's panel), to be spliced
//! into one page by [`crate::stitch::stitch`] inside the engine's own module.
//!
//! ```json
//! {"mode": "full" | "viewport",
//!  "frames": [{"parent": null | <index>, "key": "<FrameSlot.key>",
//!              "prefix": "" | "f1"…, "snapshot": <FrameSnapshot>}, …]}
//! ```
//!
//! Frames are flat, each after its parent (the first is the main frame), so
//! the JSON nests no deeper for deeply nested frames. Read with `wire`'s
//! small parser, not serde's deserializer (the `.wasm` size budget); the
//! host tests check that it reads what serde writes.
use crate::protocol::wire::{object, Json};
use crate::protocol::{
    EngineStats, FrameSlot, FrameSnapshot, ModalInfo, OffscreenCounts, OverlayWarning, Rect, RefInfo, RefMap,
    SnapshotMode, ViewportInfo,
};
use crate::stitch::FrameNode;

fn text(j: &Json, key: &str) -> String {
    j.str_of(key).unwrap_or_default()
}

fn num(j: &Json, key: &str) -> f64 {
    j.num_of(key).unwrap_or(0.0)
}

fn flag(j: &Json, key: &str) -> bool {
    j.bool_of(key).unwrap_or(false)
}

fn items<'a>(j: &'a Json, key: &str) -> &'a [Json] {
    match j.get(key) {
        Some(Json::Arr(a)) => a,
        _ => &[],
    }
}

/// The object at `key`, when it is one (absent and `null` are `None`).
fn obj<'a>(j: &'a Json, key: &str) -> Option<&'a Json> {
    j.get(key).filter(|v| matches!(v, Json::Obj(_)))
}

fn strings(j: &Json, key: &str) -> Vec<String> {
    items(j, key)
        .iter()
        .filter_map(|v| match v {
            Json::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn rect(j: &Json) -> Rect {
    Rect::new(num(j, "x"), num(j, "y"), num(j, "width"), num(j, "height"))
}

fn viewport(j: &Json) -> ViewportInfo {
    ViewportInfo {
        scroll_x: num(j, "scroll_x"),
        scroll_y: num(j, "scroll_y"),
        viewport_width: num(j, "viewport_width"),
        viewport_height: num(j, "viewport_height"),
        doc_width: num(j, "doc_width"),
        doc_height: num(j, "doc_height"),
        pages_above: num(j, "pages_above") as u32,
        pages_below: num(j, "pages_below") as u32,
        at_top: flag(j, "at_top"),
        at_bottom: flag(j, "at_bottom"),
    }
}

fn ref_info(j: &Json) -> RefInfo {
    RefInfo {
        role: text(j, "role"),
        name: text(j, "name"),
        selector: text(j, "selector"),
        url: j.str_of("url"),
        frame: j.str_of("frame"),
        in_viewport: flag(j, "in_viewport"),
        obscured: flag(j, "obscured"),
        covered_by: j.str_of("covered_by"),
    }
}

fn frame_slot(j: &Json) -> FrameSlot {
    FrameSlot {
        line: num(j, "line") as usize,
        depth: num(j, "depth") as usize,
        key: text(j, "key"),
        content_rect: obj(j, "content_rect").map(rect).unwrap_or_default(),
        obscured: flag(j, "obscured"),
        offscreen: j.str_of("offscreen"),
    }
}

/// A `FrameSnapshot` as the engine serialises it.
pub fn frame_snapshot(j: &Json) -> FrameSnapshot {
    let refs = match j.get("refs") {
        Some(Json::Obj(kv)) => kv.iter().map(|(k, v)| (k.clone(), ref_info(v))).collect(),
        _ => Vec::new(),
    };
    let offscreen = obj(j, "offscreen");
    let stats = obj(j, "stats");
    FrameSnapshot {
        protocol: num(j, "protocol") as u32,
        url: text(j, "url"),
        title: text(j, "title"),
        lines: strings(j, "lines"),
        frame_slots: items(j, "frame_slots").iter().map(frame_slot).collect(),
        viewport: obj(j, "viewport").map(viewport).unwrap_or_default(),
        refs: RefMap(refs),
        offscreen: OffscreenCounts {
            above: offscreen.map(|o| num(o, "above") as u32).unwrap_or(0),
            below: offscreen.map(|o| num(o, "below") as u32).unwrap_or(0),
        },
        modal: obj(j, "modal").map(|m| ModalInfo {
            kind: text(m, "kind"),
            selector: text(m, "selector"),
            name: text(m, "name"),
            ref_id: m.str_of("ref"),
        }),
        overlay_warning: obj(j, "overlay_warning").map(|o| OverlayWarning {
            description: text(o, "description"),
            ref_id: o.str_of("ref"),
            selector: text(o, "selector"),
        }),
        notes: strings(j, "notes"),
        stats: stats
            .map(|s| EngineStats {
                elements: num(s, "elements") as u32,
                refs: num(s, "refs") as u32,
                engine_ms: num(s, "engine_ms"),
                occlusion_ms: num(s, "occlusion_ms"),
                walk_ms: num(s, "walk_ms"),
                serialize_ms: num(s, "serialize_ms"),
            })
            .unwrap_or_default(),
    }
}

/// The frame tree and mode of a stitch request.
pub fn stitch_request(s: &str) -> Result<(FrameNode, SnapshotMode), String> {
    let j = object(s)?;
    let mode = match j.str_of("mode").as_deref() {
        None | Some("full") => SnapshotMode::Full,
        Some("viewport") => SnapshotMode::Viewport,
        Some(m) => return Err(format!("unknown mode \"{m}\"")),
    };
    // (parent index, key, node) in request order.
    let mut frames: Vec<(Option<usize>, String, FrameNode)> = Vec::new();
    for (i, f) in items(&j, "frames").iter().enumerate() {
        let parent = f.num_of("parent").map(|p| p as usize);
        if i > 0 && parent.is_none_or(|p| p >= i) {
            return Err(format!("frame {i} must name an earlier frame as its parent"));
        }
        let snapshot = obj(f, "snapshot").ok_or_else(|| format!("frame {i} has no snapshot"))?;
        frames.push((
            parent,
            text(f, "key"),
            FrameNode {
                snapshot: frame_snapshot(snapshot),
                frame_prefix: text(f, "prefix"),
                children: Vec::new(),
            },
        ));
    }
    // Children are handed to their parents from the last frame back, so
    // each parent receives them in request order.
    while frames.len() > 1 {
        let (parent, key, node) = frames.pop().expect("more than one frame");
        let parent = parent.expect("checked above");
        frames[parent].2.children.insert(0, (key, node));
    }
    let (_, _, root) = frames.pop().ok_or("no frames")?;
    Ok((root, mode))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{FrameSnapshot, SnapshotResult};
    use crate::stitch::stitch;

    fn sample(prefix: &str, slot_key: Option<&str>) -> FrameSnapshot {
        FrameSnapshot {
            protocol: 1,
            url: format!("http://127.0.0.1/{prefix}"),
            title: "Tïtle \"quoted\"".into(),
            lines: vec![
                "- heading \"Hi\" [level=1]".into(),
                "- iframe".into(),
                format!("- button \"Go\" [ref={prefix}e2]"),
            ],
            frame_slots: slot_key
                .map(|k| {
                    vec![FrameSlot {
                        line: 1,
                        depth: 0,
                        key: k.into(),
                        content_rect: Rect::new(10.0, 20.5, 300.0, 150.0),
                        obscured: false,
                        offscreen: None,
                    }]
                })
                .unwrap_or_default(),
            viewport: ViewportInfo {
                scroll_y: 120.0,
                viewport_width: 1280.0,
                viewport_height: 720.0,
                doc_width: 1280.0,
                doc_height: 3000.0,
                pages_below: 3,
                ..Default::default()
            },
            refs: RefMap(vec![(
                format!("{prefix}e2"),
                RefInfo {
                    role: "button".into(),
                    name: "Go".into(),
                    selector: "#app >>> button".into(),
                    url: Some("/next".into()),
                    frame: (!prefix.is_empty()).then(|| prefix.to_string()),
                    in_viewport: true,
                    obscured: false,
                    covered_by: Some("div.cookie".into()),
                },
            )]),
            offscreen: OffscreenCounts { above: 1, below: 4 },
            modal: Some(ModalInfo {
                kind: "aria".into(),
                selector: "#dlg".into(),
                name: "Sign in".into(),
                ref_id: Some("e9".into()),
            }),
            overlay_warning: Some(OverlayWarning {
                description: "div.overlay".into(),
                ref_id: None,
                selector: "div.overlay".into(),
            }),
            notes: vec!["a note".into()],
            stats: EngineStats {
                elements: 12,
                refs: 1,
                engine_ms: 2.5,
                occlusion_ms: 0.25,
                walk_ms: 1.0,
                serialize_ms: 0.5,
            },
        }
    }

    /// The engine writes snapshots with serde; this reader must get back
    /// exactly what was written.
    #[test]
    fn reads_what_serde_writes() {
        let snap = sample("f1", Some("k1"));
        let json = serde_json::to_string(&snap).unwrap();
        let back = frame_snapshot(&crate::protocol::wire::parse(&json).unwrap());
        assert_eq!(back, snap);
        let empty = FrameSnapshot::default();
        let back = frame_snapshot(&crate::protocol::wire::parse(&serde_json::to_string(&empty).unwrap()).unwrap());
        assert_eq!(back, empty);
    }

    /// Stitching through a request gives what the driver's native stitch gives.
    #[test]
    fn stitches_like_the_driver() {
        let main = sample("", Some("k1"));
        let child = sample("f1", None);
        let request = format!(
            r#"{{"mode":"viewport","frames":[{{"parent":null,"key":"","prefix":"","snapshot":{}}},{{"parent":0,"key":"k1","prefix":"f1","snapshot":{}}}]}}"#,
            serde_json::to_string(&main).unwrap(),
            serde_json::to_string(&child).unwrap()
        );
        let (root, mode) = stitch_request(&request).unwrap();
        let ours: SnapshotResult = stitch(root, mode);
        let theirs = stitch(
            FrameNode {
                snapshot: main,
                frame_prefix: String::new(),
                children: vec![(
                    "k1".into(),
                    FrameNode {
                        snapshot: child,
                        frame_prefix: "f1".into(),
                        children: Vec::new(),
                    },
                )],
            },
            SnapshotMode::Viewport,
        );
        assert_eq!(ours, theirs);
        assert!(ours.tree.contains("  - button \"Go\" [ref=f1e2]"), "{}", ours.tree);
    }

    #[test]
    fn rejects_orphans_and_unknown_modes() {
        let snap = serde_json::to_string(&FrameSnapshot::default()).unwrap();
        let orphan =
            format!(r#"{{"frames":[{{"snapshot":{snap}}},{{"parent":3,"key":"k","prefix":"f1","snapshot":{snap}}}]}}"#);
        assert!(stitch_request(&orphan).is_err());
        assert!(stitch_request(r#"{"mode":"odd","frames":[]}"#).is_err());
        assert!(stitch_request(r#"{"frames":[]}"#).is_err());
    }
}
