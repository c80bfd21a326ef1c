//! Stitches per-frame snapshots into the whole-page snapshot the driver
//! returns: child frames' lines go under their iframe line, header comments
//! (page position, modal, overlay) go on top, the viewport-mode hint at the
//! bottom. Pure; used natively by the driver.
use crate::protocol::{FrameNode, RefMap, SnapshotMode, SnapshotResult, SnapshotStats};
use crate::viewport::{offscreen_hint_lines, position_line};

/// Iframes nested deeper than this are left as plain iframe lines.
const MAX_FRAME_DEPTH: usize = 16;

#[derive(Default)]
struct Acc {
    refs: Vec<(String, crate::protocol::RefInfo)>,
    stats: SnapshotStats,
    above: u32,
    below: u32,
    modal: Option<crate::protocol::ModalInfo>,
    overlay: Option<crate::protocol::OverlayWarning>,
    notes: Vec<String>,
}

fn frame_lines(node: &FrameNode, depth: usize, acc: &mut Acc) -> Vec<String> {
    let s = &node.snapshot;
    acc.refs.extend(s.refs.0.iter().cloned());
    acc.stats.elements += s.stats.elements;
    acc.stats.refs += s.stats.refs;
    acc.stats.engine_ms += s.stats.engine_ms;
    acc.stats.occlusion_ms += s.stats.occlusion_ms;
    acc.above += s.offscreen.above;
    acc.below += s.offscreen.below;
    // A reliable modal anywhere beats a heuristic overlay warning.
    let reliable = |m: &Option<crate::protocol::ModalInfo>| m.as_ref().map(|m| m.kind != "heuristic").unwrap_or(false);
    if acc.modal.is_none() || (!reliable(&acc.modal) && reliable(&s.modal)) {
        acc.modal = s.modal.clone();
    }
    if acc.overlay.is_none() {
        acc.overlay = s.overlay_warning.clone();
    }
    acc.notes.extend(s.notes.iter().cloned());
    // Offscreen iframes (viewport mode) contribute only their counts.
    for sl in s.frame_slots.iter().filter(|sl| sl.offscreen.is_some()) {
        if let Some((_, c)) = node.children.iter().find(|(k, _)| *k == sl.key) {
            if depth < MAX_FRAME_DEPTH {
                let _ = frame_lines(c, depth + 1, acc);
            }
        }
    }
    let mut out = Vec::with_capacity(s.lines.len());
    for (i, line) in s.lines.iter().enumerate() {
        let slot = s.frame_slots.iter().find(|sl| sl.line == i && sl.offscreen.is_none());
        let child = slot.and_then(|sl| node.children.iter().find(|(k, _)| *k == sl.key).map(|(_, c)| (sl, c)));
        match child {
            Some((sl, c)) if depth < MAX_FRAME_DEPTH => {
                let inner = frame_lines(c, depth + 1, acc);
                let line = if c.loading {
                    with_mark(line, LOADING_MARK)
                } else {
                    line.clone()
                };
                if inner.is_empty() {
                    out.push(line);
                } else {
                    out.push(format!("{line}:"));
                    let pad = "  ".repeat(sl.depth + 1);
                    out.extend(inner.into_iter().map(|l| format!("{pad}{l}")));
                }
            }
            _ => out.push(line.clone()),
        }
    }
    out
}

/// The state of an iframe whose frame is still loading its document.
pub const LOADING_MARK: &str = "[loading]";

/// `line` with a state mark before its ref (`- iframe "Ad" [loading] [ref=e3]`).
fn with_mark(line: &str, mark: &str) -> String {
    let from = after_name(line);
    match line[from..].find(" [ref=") {
        Some(i) => format!("{} {mark}{}", &line[..from + i], &line[from + i..]),
        None => format!("{line} {mark}"),
    }
}

/// Where `line`'s own tokens may start: after its quoted name (`- iframe
/// "…"`), which is the page's text and may hold a ` [ref=` of its own.
/// (`"` and `\` are escaped in a name.)
fn after_name(line: &str) -> usize {
    // (Bytes: the marks looked for are ASCII, which UTF-8 never repeats
    // inside a character.)
    let b = line.as_bytes();
    let mut i = b.iter().position(|&c| c != b' ').unwrap_or(0) + 2;
    while i < b.len() && b[i] != b' ' {
        i += 1;
    }
    if b.get(i + 1) != Some(&b'"') {
        return i.min(b.len());
    }
    i += 2;
    while i < b.len() && b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

/// How the header line that warns of a large non-modal overlay starts.
pub const OVERLAY_WARNING: &str = "# A large overlay may be covering the page: ";

pub fn stitch(root: FrameNode, mode: SnapshotMode) -> SnapshotResult {
    let mut acc = Acc::default();
    let body = frame_lines(&root, 0, &mut acc);
    let s = &root.snapshot;
    let mut lines = vec![position_line(&s.viewport)];
    if acc.modal.as_ref().map(|m| m.kind != "heuristic").unwrap_or(false) {
        lines.push("# A modal is open. Only modal elements have refs.".into());
    }
    if let Some(o) = &acc.overlay {
        let r = o.ref_id.as_ref().map(|r| format!(" (ref {r})")).unwrap_or_default();
        lines.push(format!("{OVERLAY_WARNING}{}{r}.", o.description));
    }
    lines.extend(acc.notes.iter().map(|n| format!("# {n}")));
    lines.extend(body);
    if mode == SnapshotMode::Viewport {
        lines.extend(offscreen_hint_lines(acc.above, acc.below));
    }
    SnapshotResult {
        url: s.url.clone(),
        title: s.title.clone(),
        tree: crate::words::join_strings(&lines, "\n"),
        viewport: s.viewport,
        modal: acc.modal,
        refs: RefMap(acc.refs),
        stats: acc.stats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        wire, EngineStats, FrameSlot, FrameSnapshot, ModalInfo, OffscreenCounts, OverlayWarning, Rect, RefInfo,
        ViewportInfo,
    };

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
        let (root, mode) = wire::stitch_request(&request).unwrap();
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
                        loading: false,
                    },
                )],
                loading: false,
            },
            SnapshotMode::Viewport,
        );
        assert_eq!(ours, theirs);
        assert!(ours.tree.contains("  - button \"Go\" [ref=f1e2]"), "{}", ours.tree);
    }

    #[test]
    fn a_frame_still_loading_is_marked() {
        assert_eq!(
            with_mark(r#"- iframe "Advertisement" [ref=e3]"#, LOADING_MARK),
            r#"- iframe "Advertisement" [loading] [ref=e3]"#
        );
        assert_eq!(
            with_mark(r#"- iframe "Ad""#, LOADING_MARK),
            r#"- iframe "Ad" [loading]"#
        );
        // A name is the page's text: a ` [ref=` in it is no place for the mark.
        assert_eq!(
            with_mark(r#"  - iframe "Ad \" [ref=e9]" [ref=e3]"#, LOADING_MARK),
            r#"  - iframe "Ad \" [ref=e9]" [loading] [ref=e3]"#
        );
        assert_eq!(
            with_mark(r#"- iframe "Ad [ref=e9]""#, LOADING_MARK),
            r#"- iframe "Ad [ref=e9]" [loading]"#
        );
    }
}
