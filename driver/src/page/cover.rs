//! Secrets covered in screenshots a model is sent. The text a model reads
//! has each `%name%` value replaced; a screenshot shows the field the
//! value was typed into, and a page that echoes it ("Signed in as …").
//! Those boxes are painted over in the image, after the capture: the page
//! itself is never changed (a style set on its fields would reach its
//! observers and its own screenshots).

use serde_json::{json, Value};

use chromiumoxide::cdp::browser_protocol::page::FrameId;

use super::handle::Page;
use crate::image::{png_size, Canvas, Rgb};

/// The shortest value also looked for in the page's text: a short one (a
/// PIN) covered wherever it occurs would blot out prices and dates. In
/// fields it is always covered.
const IN_TEXT_FROM: usize = 6;

/// The boxes (document CSS pixels) of one frame's fields whose value holds
/// a secret, of runs of fields that hold one between them (a code typed a
/// digit per box), and of the page's text where one occurs (within a text
/// node, or spread over the elements of its smallest container), shadow
/// roots included; with the scroll offset and the viewport's and the
/// document's widths.
const SECRET_BOXES_JS: &str = r#"((o) => {
  const boxes = [];
  const push = (r) => { if (r.width > 0 && r.height > 0) boxes.push([r.x + scrollX, r.y + scrollY, r.width, r.height]); };
  const long = o.values.filter((s) => s.length >= o.inTextFrom);
  const fields = [];
  const look = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if ((el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.value) fields.push(el);
      if (el.shadowRoot) look(el.shadowRoot);
    }
    if (!long.length) return;
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const t = n.nodeValue;
      for (const s of long) {
        for (let i = t.indexOf(s); i >= 0; i = t.indexOf(s, i + s.length)) {
          const r = document.createRange();
          r.setStart(n, i);
          r.setEnd(n, i + s.length);
          for (const b of r.getClientRects()) push(b);
        }
      }
    }
  };
  look(document);
  // Fields, alone or side by side: the shortest run of consecutive fields
  // whose values joined hold the secret.
  for (let i = 0; i < fields.length; i++) {
    let joined = "";
    for (let j = i; j < fields.length; j++) {
      joined += fields[j].value;
      const hit = o.values.some((s) => joined.includes(s));
      if (hit) { for (let k = i; k <= j; k++) push(fields[k].getBoundingClientRect()); break; }
      if (joined.length >= Math.max(...o.values.map((s) => s.length))) break;
    }
  }
  // Text spread over elements ("<b>H</b><b>u</b>…"): the smallest element
  // whose text holds it, when no one text node does (those are covered).
  const spread = (el, s) => {
    const inside = [...el.children].filter((c) => (c.textContent || "").includes(s));
    if (inside.length) { inside.forEach((c) => spread(c, s)); return; }
    const whole = [...el.childNodes].some((n) => n.nodeType === 3 && n.nodeValue.includes(s));
    if (!whole) push(el.getBoundingClientRect());
  };
  for (const s of long) if (document.body && document.body.textContent.includes(s)) spread(document.body, s);
  const de = document.documentElement;
  return { boxes, scrollX, scrollY, width: innerWidth, clientWidth: de.clientWidth || innerWidth, dpr: devicePixelRatio };
})"#;

/// The paint over a covered box.
const COVER: Rgb = [60, 60, 60];

/// What part of the page a screenshot shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shot {
    /// The viewport, as the browser's window shows it (a classic
    /// scrollbar included: `Page::screenshot`).
    Viewport,
    /// The viewport without a classic scrollbar (`Page::screenshot_scaled`,
    /// the computer tool's and the annotated screenshots).
    VisualViewport,
    /// The whole page, from its top left.
    FullPage,
    /// A clip of the page: its top left and width, in document CSS pixels.
    Clip { x: f64, y: f64, width: f64 },
}

impl Page {
    /// `png`, a screenshot of this page (`shot` says of which part) just
    /// taken, with every box that shows one of `values` painted over.
    /// Unchanged when none shows, or when the page cannot say: a held
    /// dialog stops its scripts (they would answer only after it).
    pub async fn cover_secrets(&self, png: Vec<u8>, values: &[String], shot: Shot) -> Vec<u8> {
        if values.is_empty() || self.dialog().is_some() {
            return png;
        }
        let Ok(tree) = self.frame_tree().await else {
            return png;
        };
        let args = json!({"values": values, "inTextFrom": IN_TEXT_FROM});
        let expression = format!("({SECRET_BOXES_JS})({args})");
        let look = |frame: FrameId| {
            let expression = expression.clone();
            async move {
                match self
                    .unless_a_dialog_opens(self.engine_eval(&frame, &expression, false))
                    .await
                {
                    Some(Ok(found)) => Some(found),
                    _ => None,
                }
            }
        };
        let Some(mut found) = look(tree.frame.id.clone()).await else {
            return png;
        };
        // Every frame's fields and text (a login form, a payment form in an
        // iframe, another site's in a process of its own), moved into the
        // main document's coordinates.
        let (sx, sy) = (
            found["scrollX"].as_f64().unwrap_or(0.0),
            found["scrollY"].as_f64().unwrap_or(0.0),
        );
        let mut frames: Vec<FrameId> = super::frames::frame_ids(&tree).into_iter().skip(1).collect();
        let hosted = self.hosted_frames_now(&tree).await;
        frames.extend(hosted.read);
        // A frame whose process did not answer (busy) may show a secret
        // typed into it: the whole frame is painted over.
        for id in &hosted.unread {
            if let Ok((x, y, w, h)) = self.frame_box(id).await {
                if let Some(boxes) = found["boxes"].as_array_mut() {
                    boxes.push(json!([x + sx, y + sy, w, h]));
                }
            }
        }
        for id in frames {
            let Ok(origin) = self.frame_origin(&id).await else {
                continue;
            };
            let Some(inner) = look(id).await else { continue };
            let n = |k: &str| inner[k].as_f64().unwrap_or(0.0);
            let (dx, dy) = (origin.0 + sx - n("scrollX"), origin.1 + sy - n("scrollY"));
            let moved: Vec<Value> = inner["boxes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| {
                    let b: Vec<f64> = b.as_array()?.iter().filter_map(Value::as_f64).collect();
                    (b.len() == 4).then(|| json!([b[0] + dx, b[1] + dy, b[2], b[3]]))
                })
                .collect();
            if let Some(boxes) = found["boxes"].as_array_mut() {
                boxes.extend(moved);
            }
        }
        cover(png, &found, shot)
    }
}

/// Paints `found`'s boxes over `png`, moved to the shot's origin and scaled
/// from CSS pixels to the image's.
fn cover(png: Vec<u8>, found: &Value, shot: Shot) -> Vec<u8> {
    let boxes = found["boxes"].as_array().map(Vec::as_slice).unwrap_or_default();
    let n = |k: &str| found[k].as_f64().unwrap_or(0.0);
    let Some((w, _)) = png_size(&png) else { return png };
    let per_css = |css_width: f64| f64::from(w) / css_width;
    // (The whole page is captured from its top left at the device's pixel
    // ratio, whatever width its clip was given.)
    let (ox, oy, scale) = match shot {
        Shot::Viewport => (n("scrollX"), n("scrollY"), per_css(n("width"))),
        Shot::VisualViewport => (n("scrollX"), n("scrollY"), per_css(n("clientWidth"))),
        Shot::FullPage => (0.0, 0.0, n("dpr").max(1.0)),
        Shot::Clip { x, y, width } => (x, y, per_css(width)),
    };
    if boxes.is_empty() || !scale.is_finite() || scale <= 0.0 {
        return png;
    }
    let Ok(mut canvas) = Canvas::from_png(&png) else {
        return png;
    };
    for b in boxes {
        let at = |i: usize| b[i].as_f64().unwrap_or(0.0);
        let (x, y) = ((at(0) - ox) * scale, (at(1) - oy) * scale);
        let (bw, bh) = (at(2) * scale, at(3) * scale);
        // A pixel more on each side: antialiased glyph edges stay covered.
        canvas.fill(
            (x - 1.0).floor() as i64,
            (y - 1.0).floor() as i64,
            (bw + 2.0).ceil() as i64,
            (bh + 2.0).ceil() as i64,
            COVER,
        );
    }
    canvas.to_png()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_are_painted_over_at_the_images_scale_and_origin() {
        let png = Canvas::blank(40, 20).to_png();
        let grey = [60, 60, 60];
        // A 20×10 CSS viewport scrolled to (0, 100), shot at 2×: the box at
        // (5, 102) in the document, 4×3, covers 10..18 × 4..10.
        let found = json!({"boxes": [[5, 102, 4, 3]], "scrollX": 0, "scrollY": 100, "width": 20, "dpr": 2});
        let c = Canvas::from_png(&cover(png.clone(), &found, Shot::Viewport)).unwrap();
        assert_eq!(c.pixel(12, 6)[..3], grey);
        assert_eq!(c.pixel(30, 6)[..3], [255, 255, 255]);
        // The whole page, from its top: the same box is 100 CSS px lower (off this image).
        let c = Canvas::from_png(&cover(png.clone(), &found, Shot::FullPage)).unwrap();
        assert_eq!(c.pixel(12, 6)[..3], [255, 255, 255]);
        // A clip from (4, 100), 10 CSS px wide, shot at 4×: the box starts at 4 px.
        let c = Canvas::from_png(&cover(
            png.clone(),
            &found,
            Shot::Clip {
                x: 4.0,
                y: 100.0,
                width: 10.0,
            },
        ))
        .unwrap();
        assert_eq!(c.pixel(6, 10)[..3], grey);
        let none = json!({"boxes": [], "scrollX": 0, "scrollY": 0, "width": 20, "dpr": 1});
        assert_eq!(cover(png.clone(), &none, Shot::Viewport), png, "nothing to cover");
    }
}
