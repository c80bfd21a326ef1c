//! Secrets covered in screenshots a model is sent. The text a model reads
//! has each `%name%` value replaced; a screenshot shows the field the
//! value was typed into, and a page that echoes it ("Signed in as …").
//! Those boxes are painted over in the image, after the capture: the page
//! itself is never changed (a style set on its fields would reach its
//! observers and its own screenshots).

use serde_json::{json, Value};

use super::handle::Page;
use crate::image::{png_size, Canvas, Rgb};

/// The shortest value also looked for in the page's text: a short one (a
/// PIN) covered wherever it occurs would blot out prices and dates. In
/// fields it is always covered.
const IN_TEXT_FROM: usize = 6;

/// The boxes (viewport CSS pixels) of fields whose value holds a secret and
/// of the page's text where one occurs, and the viewport's width.
const SECRET_BOXES_JS: &str = r#"((o) => {
  const boxes = [];
  const push = (r) => { if (r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight) boxes.push([r.x, r.y, r.width, r.height]); };
  const fields = document.querySelectorAll("input, textarea");
  for (const el of fields) {
    const v = el.value;
    if (v && o.values.some((s) => v.includes(s))) push(el.getBoundingClientRect());
  }
  const long = o.values.filter((s) => s.length >= o.inTextFrom);
  if (long.length && document.body) {
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
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
  }
  return { boxes, width: innerWidth };
})"#;

/// The paint over a covered box.
const COVER: Rgb = [60, 60, 60];

impl Page {
    /// `png`, a screenshot of this page's viewport just taken, with every
    /// box that shows one of `values` painted over. Unchanged when none
    /// shows (or the page cannot say: a dialog holds it, it is gone).
    pub async fn cover_secrets(&self, png: Vec<u8>, values: &[String]) -> Vec<u8> {
        if values.is_empty() {
            return png;
        }
        let Ok(main) = self.main_frame_id().await else {
            return png;
        };
        let args = json!({"values": values, "inTextFrom": IN_TEXT_FROM});
        let expression = format!("({SECRET_BOXES_JS})({args})");
        let Ok(found) = self.engine_eval(&main, &expression, false).await else {
            return png;
        };
        cover(png, &found)
    }
}

/// Paints `found`'s boxes over `png`, scaled from CSS pixels to the image's.
fn cover(png: Vec<u8>, found: &Value) -> Vec<u8> {
    let boxes = found["boxes"].as_array().map(Vec::as_slice).unwrap_or_default();
    let css_width = found["width"].as_f64().unwrap_or(0.0);
    let Some((w, _)) = png_size(&png) else { return png };
    if boxes.is_empty() || css_width <= 0.0 {
        return png;
    }
    let Ok(mut canvas) = Canvas::from_png(&png) else {
        return png;
    };
    let scale = f64::from(w) / css_width;
    for b in boxes {
        let n = |i: usize| b[i].as_f64().unwrap_or(0.0) * scale;
        // A pixel more on each side: antialiased glyph edges stay covered.
        let (x, y) = ((n(0) - 1.0).floor() as i64, (n(1) - 1.0).floor() as i64);
        let (bw, bh) = ((n(2) + 2.0).ceil() as i64, (n(3) + 2.0).ceil() as i64);
        canvas.fill(x, y, bw, bh, COVER);
    }
    canvas.to_png()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_are_painted_over_at_the_images_scale() {
        let png = Canvas::blank(40, 20).to_png();
        // A 20×10 CSS viewport shot at 2×: the box (5, 2, 4, 3) covers 10..18 × 4..10.
        let covered = cover(png.clone(), &json!({"boxes": [[5, 2, 4, 3]], "width": 20}));
        let c = Canvas::from_png(&covered).unwrap();
        assert_eq!(c.pixel(12, 6)[..3], [60, 60, 60]);
        assert_eq!(c.pixel(30, 6)[..3], [255, 255, 255]);
        assert_eq!(
            cover(png.clone(), &json!({"boxes": [], "width": 20})),
            png,
            "nothing to cover"
        );
    }
}
