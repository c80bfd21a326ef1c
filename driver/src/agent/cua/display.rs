//! The display a computer-use model sees: the viewport's screenshot, scaled
//! down when the viewport is larger than the provider recommends, and the
//! mapping of the model's coordinates back to viewport CSS pixels.
//!
//! The declared display size is the size of the screenshots actually sent
//! (measured on the first one), so the two always match; every later
//! screenshot is rendered at the same scale.

use crate::error::Result;
use crate::page::Page;

/// The largest display a provider is shown, width × height (landscape;
/// swapped for portrait viewports).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    pub width: f64,
    pub height: f64,
}

impl Fit {
    /// Anthropic's guidance: XGA, WXGA or FWXGA, whichever matches the
    /// viewport's aspect ratio best (larger screenshots are downsized by the
    /// API, and the model's coordinates then miss).
    pub fn anthropic(width: f64, height: f64) -> Fit {
        const SIZES: [(f64, f64); 3] = [(1024.0, 768.0), (1280.0, 800.0), (1366.0, 768.0)];
        let (long, short) = (width.max(height), width.min(height).max(1.0));
        let aspect = long / short;
        let (w, h) = SIZES
            .into_iter()
            .min_by(|a, b| {
                let da = (a.0 / a.1 - aspect).abs();
                let db = (b.0 / b.1 - aspect).abs();
                da.total_cmp(&db)
            })
            .expect("three sizes");
        Fit::oriented(w, h, width, height)
    }

    /// OpenAI scales images so the short side is at most 768 px (and the
    /// long one 2048): send them at that size or less.
    pub fn openai(width: f64, height: f64) -> Fit {
        Fit::oriented(2048.0, 768.0, width, height)
    }

    /// Google's recommended computer-use screen, 1440×900.
    pub fn gemini(width: f64, height: f64) -> Fit {
        Fit::oriented(1440.0, 900.0, width, height)
    }

    fn oriented(long: f64, short: f64, width: f64, height: f64) -> Fit {
        if width >= height {
            Fit {
                width: long,
                height: short,
            }
        } else {
            Fit {
                width: short,
                height: long,
            }
        }
    }

    /// The scale that fits a `width` × `height` viewport (never enlarged).
    pub fn scale(&self, width: f64, height: f64) -> f64 {
        (self.width / width).min(self.height / height).min(1.0)
    }
}

/// The scale at which a provider takes a plain image (hybrid mode's
/// annotated screenshots) as it is: its API shrinks a larger one, and the
/// model then answers in the shrunk image's pixels. Anthropic: a long edge
/// of 1568 px and about 1.15 megapixels; OpenAI: a short side of 768 px;
/// Gemini gives no such limit.
pub fn image_scale(provider: crate::llm::Provider, width: f64, height: f64) -> f64 {
    use crate::llm::Provider;
    if width <= 0.0 || height <= 0.0 {
        return 1.0;
    }
    let scale = match provider {
        Provider::Anthropic => (1568.0 / width.max(height)).min((1_150_000.0 / (width * height)).sqrt()),
        Provider::OpenAi => Fit::openai(width, height).scale(width, height),
        Provider::Google => 1.0,
    };
    scale.min(1.0)
}

/// The display of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Display {
    /// The screenshots' size: what the model is told and what it sees.
    pub width: u32,
    pub height: u32,
    /// The viewport in CSS pixels.
    css_width: f64,
    css_height: f64,
    /// Chromium's render scale for the screenshots.
    scale: f64,
}

pub use crate::image::png_size;

/// How far past an edge of the screen a model's point may be (rounding)
/// before it is refused as off the screen.
const EDGE_SLACK: f64 = 2.0;

impl Display {
    /// Measures the viewport, picks the scale that fits `fit`, and takes the
    /// first screenshot (returned: the run sends it with the task).
    pub async fn calibrate(page: &Page, fit: impl Fn(f64, f64) -> Fit) -> Result<(Display, Vec<u8>)> {
        let (w, h) = page.screenshot_area().await?;
        let mut scale = fit(w, h).scale(w, h);
        let mut png = page.screenshot_scaled(scale).await?;
        let (mut pw, mut ph) = png_size(&png).unwrap_or(((w * scale).round() as u32, (h * scale).round() as u32));
        // A browser with a device pixel ratio above 1 renders more pixels
        // than CSS ones: scale down by that ratio too.
        let expected = (w * scale).round();
        if f64::from(pw) > expected + 1.0 {
            scale *= expected / f64::from(pw);
            png = page.screenshot_scaled(scale).await?;
            (pw, ph) = png_size(&png).unwrap_or((expected as u32, (h * scale).round() as u32));
        }
        let display = Display {
            width: pw,
            height: ph,
            css_width: w,
            css_height: h,
            scale,
        };
        Ok((display, png))
    }

    /// A screenshot at the declared size.
    pub async fn capture(&self, page: &Page) -> Result<Vec<u8>> {
        let png = page.screenshot_scaled(self.scale).await?;
        if let Some(size) = png_size(&png).filter(|s| *s != (self.width, self.height)) {
            tracing::warn!(
                "computer use: a screenshot came out {}x{}, not the declared {}x{} (the viewport changed size)",
                size.0,
                size.1,
                self.width,
                self.height
            );
        }
        Ok(png)
    }

    /// Screenshot pixels → viewport CSS pixels. A point off the screenshot
    /// is refused, not moved to its edge, where a page keeps its corner
    /// buttons ("Delete account", a menu): a pixel or two past it is
    /// rounding, and is clamped.
    pub fn css_point(&self, x: f64, y: f64) -> Result<(f64, f64), String> {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let off = |v: f64, size: f64| !(-EDGE_SLACK..size - 1.0 + EDGE_SLACK).contains(&v) || v.is_nan();
        if off(x, w) || off(y, h) {
            return Err(format!(
                "({x}, {y}) is off the screen: it is {}×{} (x 0-{}, y 0-{}); nothing was done",
                self.width,
                self.height,
                self.width.saturating_sub(1),
                self.height.saturating_sub(1)
            ));
        }
        Ok((
            (x * self.css_width / w).clamp(0.0, self.css_width - 1.0),
            (y * self.css_height / h).clamp(0.0, self.css_height - 1.0),
        ))
    }

    /// Viewport CSS pixels → screenshot pixels (cursor_position).
    pub fn display_point(&self, x: f64, y: f64) -> (f64, f64) {
        (
            x * f64::from(self.width) / self.css_width,
            y * f64::from(self.height) / self.css_height,
        )
    }

    /// Gemini's 0–999 grid → viewport CSS pixels (a point off the grid is
    /// refused, as in [`Display::css_point`]).
    pub fn grid_point(&self, x: f64, y: f64) -> Result<(f64, f64), String> {
        let off = |v: f64| !(-EDGE_SLACK..999.0 + EDGE_SLACK).contains(&v) || v.is_nan();
        if off(x) || off(y) {
            return Err(format!(
                "({x}, {y}) is off the screen: points are on the 0-999 grid; nothing was done"
            ));
        }
        Ok((
            (x.clamp(0.0, 999.0) / 1000.0 * self.css_width).floor(),
            (y.clamp(0.0, 999.0) / 1000.0 * self.css_height).floor(),
        ))
    }

    /// A distance on Gemini's grid → CSS pixels along the vertical (or
    /// horizontal) axis.
    pub fn normalized_distance(&self, d: f64, vertical: bool) -> f64 {
        let axis = if vertical { self.css_height } else { self.css_width };
        d / 1000.0 * axis
    }

    /// A distance in screenshot pixels → CSS pixels.
    pub fn css_distance(&self, d: f64) -> f64 {
        d * self.css_width / f64::from(self.width)
    }

    /// The viewport in CSS pixels.
    pub fn css_size(&self) -> (f64, f64) {
        (self.css_width, self.css_height)
    }

    #[cfg(test)]
    pub fn for_test(width: u32, height: u32, css_width: f64, css_height: f64) -> Display {
        Display {
            width,
            height,
            css_width,
            css_height,
            scale: f64::from(width) / css_width,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_follow_each_providers_guidance() {
        // 1280×720 is 16:9: Anthropic's FWXGA holds it unscaled.
        assert_eq!(Fit::anthropic(1280.0, 720.0).scale(1280.0, 720.0), 1.0);
        // 1600×1000 is 16:10: down to WXGA.
        let f = Fit::anthropic(1600.0, 1000.0);
        assert_eq!((f.width, f.height), (1280.0, 800.0));
        assert_eq!(f.scale(1600.0, 1000.0), 0.8);
        // 4:3 goes to XGA; portrait swaps.
        assert_eq!(Fit::anthropic(2048.0, 1536.0).scale(2048.0, 1536.0), 0.5);
        assert_eq!(Fit::anthropic(800.0, 1280.0).height, 1280.0);
        // OpenAI: the short side at most 768.
        assert_eq!(Fit::openai(1280.0, 720.0).scale(1280.0, 720.0), 1.0);
        assert_eq!(Fit::openai(1920.0, 1080.0).scale(1920.0, 1080.0), 768.0 / 1080.0);
        assert_eq!(Fit::gemini(1920.0, 1200.0).scale(1920.0, 1200.0), 0.75);
    }

    #[test]
    fn coordinates_map_back_to_css_pixels() {
        let d = Display::for_test(1280, 800, 1600.0, 1000.0);
        assert_eq!(d.css_point(640.0, 400.0), Ok((800.0, 500.0)));
        assert_eq!(d.display_point(800.0, 500.0), (640.0, 400.0));
        // A pixel or two past an edge is rounding; further is off the screen.
        assert_eq!(d.css_point(1280.5, -1.0), Ok((1599.0, 0.0)));
        let off = d.css_point(5000.0, -3.0).unwrap_err();
        assert_eq!(
            off,
            "(5000, -3) is off the screen: it is 1280×800 (x 0-1279, y 0-799); nothing was done"
        );
        assert!(d.css_point(f64::NAN, 3.0).is_err());
        let g = Display::for_test(1000, 700, 1000.0, 700.0);
        assert_eq!(g.grid_point(500.0, 500.0), Ok((500.0, 350.0)));
        assert_eq!(g.grid_point(1000.0, 0.0), Ok((999.0, 0.0)));
        assert!(g.grid_point(999.0, 1200.0).unwrap_err().contains("0-999 grid"));
        assert_eq!(g.normalized_distance(800.0, true), 560.0);
        let mut png = vec![0u8; 24];
        png[12..16].copy_from_slice(b"IHDR");
        png[16..20].copy_from_slice(&1280u32.to_be_bytes());
        png[20..24].copy_from_slice(&800u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1280, 800)));
    }
}
