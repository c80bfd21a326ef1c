//! The annotated screenshot: the viewport with every ref of a snapshot
//! outlined and labelled (`e12`, `f1e3`), so a model that reads images can
//! name what it sees by ref, or point at it with coordinates.
//!
//! The boxes come from the engine of each frame (one evaluation per frame,
//! every ref resolved to its element's box), child frames shifted by their
//! `<iframe>`'s content box; the drawing is `crate::image`.

use std::collections::BTreeMap;

use chromiumoxide::cdp::browser_protocol::dom::{GetBoxModelParams, GetFrameOwnerParams};
use chromiumoxide::cdp::browser_protocol::page::FrameId;
use futures::future::BoxFuture;
use sightline_engine::protocol::{Rect, SnapshotMode, SnapshotResult};

use super::handle::Page;
use super::snapshot::SnapshotOptions;
use crate::error::Result;
use crate::image::{Canvas, Rgb};

/// One labelled box.
#[derive(Debug, Clone, PartialEq)]
pub struct RefBox {
    /// `e12`, or `f1e3` in a child frame.
    pub ref_: String,
    /// In top-level viewport CSS pixels.
    pub rect: Rect,
}

/// A viewport screenshot with the refs drawn on it.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotatedScreenshot {
    pub png: Vec<u8>,
    /// What was drawn, in the snapshot's order.
    pub boxes: Vec<RefBox>,
    /// Refs whose tag found no free place (drawn over another tag).
    pub crowded: Vec<String>,
    /// The image's pixels per CSS pixel (below 1 when rendered smaller,
    /// above on a HiDPI screen): a point on the image over this is a point
    /// of the viewport.
    pub scale: f64,
    /// The snapshot the labels belong to.
    pub snapshot: SnapshotResult,
}

/// Distinct, saturated colours that read on light and dark pages.
const PALETTE: [Rgb; 8] = [
    [230, 25, 75],
    [0, 130, 200],
    [60, 160, 60],
    [245, 130, 48],
    [145, 30, 180],
    [0, 128, 128],
    [200, 120, 0],
    [240, 50, 230],
];

/// In a frame's engine world: the visible part of each ref's element box,
/// in the frame's viewport (null when gone): the box cut by the ancestors
/// that clip it (overflow other than visible on a block: a scroll box, a
/// hidden overflow) and by the viewport, so that a box's centre is on what
/// is seen of it. A positioned box escapes the ancestors below its
/// containing block (a dropdown out of an overflow: hidden bar): an
/// absolute one up to the nearest positioned or transformed ancestor, a
/// fixed one up to the nearest transformed one. A box a layer hides is
/// empty.
const BOXES_JS: &str = "((refs) => {
  const styles = new Map();
  const style = (e) => {
    if (!styles.has(e)) {
      const s = getComputedStyle(e);
      styles.set(e, {
        position: s.position,
        clips: (s.overflowX !== 'visible' || s.overflowY !== 'visible') && s.display !== 'inline' && s.display !== 'contents',
        contains: s.transform !== 'none' || s.filter !== 'none' || /paint|layout|strict|content/.test(s.contain),
      });
    }
    return styles.get(e);
  };
  const up = (e) => e.assignedSlot || e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  return refs.map((r) => {
    const el = globalThis.__sightline.resolve(r);
    if (!el) return null;
    const b = el.getBoundingClientRect();
    let [l, t, rr, bb] = [b.left, b.top, b.right, b.bottom];
    let position = style(el).position;
    for (let a = up(el); a && a !== document.documentElement && a !== document.body; a = up(a)) {
      const s = style(a);
      const containing = position === 'absolute' ? s.position !== 'static' || s.contains
        : position === 'fixed' ? s.contains : true;
      if (!containing) continue;
      if (s.clips) {
        const c = a.getBoundingClientRect();
        const cl = c.left + a.clientLeft, ct = c.top + a.clientTop;
        l = Math.max(l, cl); t = Math.max(t, ct); rr = Math.min(rr, cl + a.clientWidth); bb = Math.min(bb, ct + a.clientHeight);
      }
      position = s.position;
    }
    l = Math.max(l, 0); t = Math.max(t, 0); rr = Math.min(rr, innerWidth); bb = Math.min(bb, innerHeight);
    const [w, h] = [Math.max(0, rr - l), Math.max(0, bb - t)];
    // Under a layer (a banner, an overlay) at its middle and at four inner
    // points: nothing of it shows to be picked (an empty box, not drawn).
    const root = el.getRootNode().elementFromPoint ? el.getRootNode() : document;
    const shows = ([x, y]) => {
      const hit = root.elementFromPoint(x, y);
      return !hit || hit === el || el.contains(hit) || hit.contains(el);
    };
    const points = [[l + w / 2, t + h / 2], [l + w / 4, t + h / 4], [rr - w / 4, t + h / 4], [l + w / 4, bb - h / 4], [rr - w / 4, bb - h / 4]];
    if (w > 0 && h > 0 && !points.some(shows)) return [l, t, 0, 0];
    return [l, t, w, h];
  });
})";

impl Page {
    /// A viewport snapshot and the screenshot annotated with its refs (the
    /// session CLI's `screenshot --annotate`, the MCP screenshot tool's
    /// `annotate: true`).
    pub async fn annotated_screenshot(&self) -> Result<AnnotatedScreenshot> {
        let snapshot = self
            .snapshot(&SnapshotOptions {
                mode: SnapshotMode::Viewport,
                ..Default::default()
            })
            .await?;
        self.annotate_screenshot(snapshot).await
    }

    /// The viewport screenshot annotated with the refs of `snapshot` (taken
    /// just before, so the labels match the tree a model reads).
    pub async fn annotate_screenshot(&self, snapshot: SnapshotResult) -> Result<AnnotatedScreenshot> {
        self.annotate_screenshot_scaled(snapshot, 1.0).await
    }

    /// [`Page::annotate_screenshot`] rendered at `scale` (below 1: an image
    /// smaller than the viewport, for a model that takes no larger one).
    pub async fn annotate_screenshot_scaled(
        &self,
        snapshot: SnapshotResult,
        scale: f64,
    ) -> Result<AnnotatedScreenshot> {
        let boxes = self.ref_boxes(&snapshot).await?;
        let png = if scale < 1.0 {
            self.screenshot_scaled(scale).await?
        } else {
            self.screenshot().await?
        };
        let (css_w, _) = self.screenshot_area().await?;
        let mut canvas = Canvas::from_png(&png)?;
        // Device pixels per CSS pixel (1 unless the browser has a higher DPR).
        let ratio = if css_w > 0.0 {
            f64::from(canvas.width) / css_w
        } else {
            1.0
        };
        let crowded = draw(&mut canvas, &boxes, ratio);
        Ok(AnnotatedScreenshot {
            png: canvas.to_png(),
            boxes,
            crowded,
            scale: ratio,
            snapshot,
        })
    }

    /// The viewport boxes of the snapshot's refs that are in the viewport.
    pub async fn ref_boxes(&self, snapshot: &SnapshotResult) -> Result<Vec<RefBox>> {
        // Frame prefix ("" for the main frame) → its refs, frame-local.
        let mut by_frame: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (r, info) in snapshot.refs.iter() {
            // (What a layer covers cannot be clicked where it is drawn.)
            if !info.in_viewport || info.obscured || info.covered_by.is_some() {
                continue;
            }
            let prefix = info.frame.clone().unwrap_or_default();
            let local = r.strip_prefix(prefix.as_str()).unwrap_or(r).to_string();
            by_frame.entry(prefix).or_default().push((r.clone(), local));
        }
        let main = self.main_frame_id().await?;
        let mut out = Vec::new();
        for (prefix, refs) in by_frame {
            let (frame, origin) = if prefix.is_empty() {
                (main.clone(), (0.0, 0.0))
            } else {
                let Some(frame) = self.frame_for_prefix(&prefix) else {
                    continue;
                };
                match self.frame_origin(&frame).await {
                    Ok(origin) => (frame, origin),
                    Err(e) => {
                        tracing::debug!("annotate: frame {prefix} has no box: {e}");
                        continue;
                    }
                }
            };
            let locals: Vec<&str> = refs.iter().map(|(_, l)| l.as_str()).collect();
            let js = format!(
                "({BOXES_JS})({})",
                serde_json::to_string(&locals).expect("strings serialise")
            );
            let rects = self.engine_eval(&frame, &js, false).await?;
            for ((full, _), rect) in refs.iter().zip(rects.as_array().into_iter().flatten()) {
                let Some(r) = rect.as_array().filter(|r| r.len() == 4) else {
                    continue;
                };
                let n = |i: usize| r[i].as_f64().unwrap_or(0.0);
                if n(2) <= 0.0 || n(3) <= 0.0 {
                    continue;
                }
                out.push(RefBox {
                    ref_: full.clone(),
                    rect: Rect::new(n(0) + origin.0, n(1) + origin.1, n(2), n(3)),
                });
            }
        }
        // Draw in the snapshot's order (document order): later boxes on top.
        let order = |r: &str| snapshot.refs.iter().position(|(k, _)| k == r).unwrap_or(usize::MAX);
        out.sort_by_key(|b| order(&b.ref_));
        Ok(out)
    }

    /// Where a child frame's viewport starts in top-level viewport
    /// coordinates: its `<iframe>`'s content box.
    pub(super) async fn frame_origin(&self, frame: &FrameId) -> Result<(f64, f64)> {
        let (x, y, _, _) = self.frame_box(frame).await?;
        Ok((x, y))
    }

    /// The content box of `frame`'s iframe (x, y, width, height) in the
    /// page's viewport.
    pub(super) fn frame_box<'a>(&'a self, frame: &'a FrameId) -> BoxFuture<'a, Result<(f64, f64, f64, f64)>> {
        Box::pin(async move {
            // The iframe element is in its parent's document, asked of the
            // process that runs it (the tab's, for a frame of the tab's own
            // tree). A box in the tab's process is in the page's viewport;
            // one in another process is in that process's root frame, whose
            // place in the page is added.
            let parent = self.hosted_parent(frame);
            let via = parent.as_ref().unwrap_or(frame);
            let owner = self.send_for(via, GetFrameOwnerParams::new(frame.clone())).await?;
            let p = GetBoxModelParams {
                backend_node_id: Some(owner.backend_node_id),
                ..Default::default()
            };
            let model = self.send_for(via, p).await?.model;
            let quad = model.content.inner();
            let (x, y, w, h) = (quad[0], quad[1], quad[2] - quad[0], quad[5] - quad[1]);
            // (A host's root frame has the host's id.)
            match parent.and_then(|p| self.host_of(&p)) {
                Some(host) => {
                    let (hx, hy, _, _) = self.frame_box(&FrameId::new(host)).await?;
                    Ok((x + hx, y + hy, w, h))
                }
                None => Ok((x, y, w, h)),
            }
        })
    }
}

/// Outlines every box and writes its ref in a filled tag at a corner or
/// beside it: of its places (above its top-left corner; left of it; inside
/// at the top left; above or inside at the top right; below; inside at the
/// bottom), the first that covers no tag drawn before and the least of the
/// boxes, its own among them (a tag on a box hides the words a model reads).
/// Returns the refs whose tag could go nowhere free of other tags (drawn
/// over one).
fn draw(canvas: &mut Canvas, boxes: &[RefBox], ratio: f64) -> Vec<String> {
    let scale = if ratio >= 1.5 { 3 } else { 2 };
    let border = (2.0 * ratio).round().max(1.0) as i64;
    let px = |v: f64| (v * ratio).round() as i64;
    let rects: Vec<(i64, i64, i64, i64)> = boxes
        .iter()
        .map(|b| (px(b.rect.x), px(b.rect.y), px(b.rect.width), px(b.rect.height)))
        .collect();
    let overlap = |a: (i64, i64, i64, i64), b: (i64, i64, i64, i64)| {
        let w = (a.0 + a.2).min(b.0 + b.2) - a.0.max(b.0);
        let h = (a.1 + a.3).min(b.1 + b.3) - a.1.max(b.1);
        w.max(0) * h.max(0)
    };
    let mut tags: Vec<(i64, i64, i64, i64)> = Vec::new();
    let mut crowded = Vec::new();
    for (i, b) in boxes.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let (x, y, w, h) = rects[i];
        canvas.stroke(x, y, w.max(2), h.max(2), border, color);
        let (tw, th) = Canvas::text_size(&b.ref_, scale);
        let (tw, th) = (i64::from(tw) + 4, i64::from(th) + 4);
        let right = x + w.max(tw) - tw;
        let places = [
            (x, y - th),
            (x - tw, y),
            (x, y),
            (right, y - th),
            (right, y),
            (x, y + h),
            (x, y + h - th),
        ];
        let fits = |&(tx, ty): &(i64, i64)| {
            tx >= 0 && ty >= 0 && tx + tw <= i64::from(canvas.width) && ty + th <= i64::from(canvas.height)
        };
        // (Over a tag, then how much of the other boxes it covers.)
        let cost = |&(tx, ty): &(i64, i64)| {
            let tag = (tx, ty, tw, th);
            let on_tag = tags.iter().any(|t| overlap(*t, tag) > 0);
            let on_boxes: i64 = rects.iter().map(|r| overlap(*r, tag)).sum();
            (on_tag, on_boxes)
        };
        let best = places
            .iter()
            .filter(|p| fits(p))
            .map(|p| (cost(p), *p))
            .min_by_key(|(c, _)| *c);
        let (tx, ty) = match best {
            Some(((on_tag, _), p)) => {
                if on_tag {
                    crowded.push(b.ref_.clone());
                }
                p
            }
            None => {
                let p = (x.max(0), y.max(0));
                if tags.iter().any(|t| overlap(*t, (p.0, p.1, tw, th)) > 0) {
                    crowded.push(b.ref_.clone());
                }
                p
            }
        };
        tags.push((tx, ty, tw, th));
        canvas.fill(tx, ty, tw, th, color);
        canvas.text(tx + 2, ty + 2, &b.ref_, scale, [255, 255, 255]);
    }
    crowded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_sit_above_boxes_with_room_and_inside_at_the_top() {
        let mut c = Canvas::blank(200, 100);
        let boxes = vec![
            RefBox {
                ref_: "e1".into(),
                rect: Rect::new(10.0, 40.0, 60.0, 20.0),
            },
            RefBox {
                ref_: "e2".into(),
                rect: Rect::new(100.0, 0.0, 60.0, 20.0),
            },
        ];
        assert!(draw(&mut c, &boxes, 1.0).is_empty());
        let first = [PALETTE[0][0], PALETTE[0][1], PALETTE[0][2], 255];
        assert_eq!(c.pixel(10, 45), first, "left border of e1");
        assert_eq!(c.pixel(11, 39), first, "e1's tag is above its box");
        assert_eq!(c.pixel(40, 50), [255, 255, 255, 255], "the box is not filled");
        let second = [PALETTE[1][0], PALETTE[1][1], PALETTE[1][2], 255];
        assert_eq!(c.pixel(101, 1), second, "e2's tag is inside (no room above)");
    }

    #[test]
    fn tags_go_where_no_tag_is_and_crowded_ones_are_named() {
        let mut c = Canvas::blank(200, 100);
        let at = |r: &str, x: f64| RefBox {
            ref_: r.into(),
            rect: Rect::new(x, 40.0, 60.0, 20.0),
        };
        // Two boxes at one place: the second tag goes above the top right
        // corner (no room on the left; inside it would hide the box).
        assert!(draw(&mut c, &[at("e1", 10.0), at("e2", 10.0)], 1.0).is_empty());
        let second = [PALETTE[1][0], PALETTE[1][1], PALETTE[1][2], 255];
        assert_eq!(c.pixel(68, 38), second, "e2's tag is above the top right corner");
        assert_eq!(c.pixel(20, 48), [255, 255, 255, 255], "nothing inside");
        // Seven at one place: five places apart (inside at the bottom
        // would touch the tag inside at the top), so two are crowded.
        let many: Vec<RefBox> = (1..=7).map(|i| at(&format!("e{i}"), 10.0)).collect();
        assert_eq!(draw(&mut c, &many, 1.0), vec!["e6".to_string(), "e7".to_string()]);
    }
}
