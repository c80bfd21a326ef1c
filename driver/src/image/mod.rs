//! Drawing on screenshots: PNG in, PNG out, boxes and labels drawn in
//! between. Pure (no page, no CDP): the annotated screenshot (`page/annotate.rs`)
//! uses it to outline each ref's box and write its name.

mod font;

use crate::error::{Error, Result};

/// Width and height from a PNG's header.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[12..16] != b"IHDR" {
        return None;
    }
    let n = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    Some((n(16), n(20)))
}

/// An RGBA image being drawn on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    /// Row-major, 4 bytes a pixel.
    pub rgba: Vec<u8>,
}

/// An opaque colour.
pub type Rgb = [u8; 3];

fn bad_png(e: impl std::fmt::Display) -> Error {
    Error::Cdp {
        method: "Page.captureScreenshot",
        message: format!("the screenshot could not be decoded: {e}"),
    }
}

impl Canvas {
    /// Decodes a PNG (any bit depth or colour type) to RGBA.
    /// A white canvas (for tests that draw on one).
    #[cfg(test)]
    pub(crate) fn blank(width: u32, height: u32) -> Canvas {
        Canvas {
            width,
            height,
            rgba: vec![255; width as usize * height as usize * 4],
        }
    }

    pub fn from_png(bytes: &[u8]) -> Result<Canvas> {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().map_err(bad_png)?;
        let size = reader.output_buffer_size().ok_or_else(|| bad_png("too large"))?;
        let mut buf = vec![0; size];
        let info = reader.next_frame(&mut buf).map_err(bad_png)?;
        buf.truncate(info.buffer_size());
        let rgba = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
            png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::Indexed => return Err(bad_png("indexed colour left after expansion")),
        };
        Ok(Canvas {
            width: info.width,
            height: info.height,
            rgba,
        })
    }

    /// Encodes as an RGBA PNG (fast compression: screenshots are sent at once).
    pub fn to_png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            encoder.set_compression(png::Compression::Fast);
            let mut writer = encoder.write_header().expect("a PNG header writes to memory");
            writer
                .write_image_data(&self.rgba)
                .expect("the image data matches its header");
        }
        out
    }

    #[cfg(test)]
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }

    /// Fills the rectangle (clipped to the canvas).
    pub fn fill(&mut self, x: i64, y: i64, w: i64, h: i64, color: Rgb) {
        let x0 = x.clamp(0, i64::from(self.width));
        let y0 = y.clamp(0, i64::from(self.height));
        let x1 = (x + w).clamp(0, i64::from(self.width));
        let y1 = (y + h).clamp(0, i64::from(self.height));
        for py in y0..y1 {
            for px in x0..x1 {
                let i = ((py * i64::from(self.width) + px) * 4) as usize;
                self.rgba[i..i + 4].copy_from_slice(&[color[0], color[1], color[2], 255]);
            }
        }
    }

    /// Outlines the rectangle with a border `thickness` wide, inside it.
    pub fn stroke(&mut self, x: i64, y: i64, w: i64, h: i64, thickness: i64, color: Rgb) {
        let t = thickness.min(w / 2).min(h / 2).max(1);
        self.fill(x, y, w, t, color);
        self.fill(x, y + h - t, w, t, color);
        self.fill(x, y, t, h, color);
        self.fill(x + w - t, y, t, h, color);
    }

    /// The size of `text` in the label font at `scale`.
    pub fn text_size(text: &str, scale: u32) -> (u32, u32) {
        let n = text.chars().count() as u32;
        ((n * (font::WIDTH + 1)).saturating_sub(1) * scale, font::HEIGHT * scale)
    }

    /// Writes `text` (digits, `e`, `f`; other characters are skipped) with
    /// its top-left corner at (x, y).
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: u32, color: Rgb) {
        let s = i64::from(scale);
        let mut cx = x;
        for c in text.chars() {
            if let Some(rows) = font::glyph(c) {
                for (row, bits) in rows.iter().enumerate() {
                    for col in 0..font::WIDTH {
                        if bits & (1 << (font::WIDTH - 1 - col)) != 0 {
                            self.fill(cx + i64::from(col) * s, y + row as i64 * s, s, s, color);
                        }
                    }
                }
            }
            cx += i64::from(font::WIDTH + 1) * s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_and_round_trips_through_png() {
        let mut c = Canvas::blank(40, 30);
        c.stroke(5, 5, 20, 10, 2, [255, 0, 0]);
        c.text(8, 18, "e1", 1, [0, 0, 255]);
        assert_eq!(c.pixel(5, 5), [255, 0, 0, 255]);
        assert_eq!(c.pixel(10, 9), [255, 255, 255, 255], "the inside stays");
        assert_eq!(c.pixel(24, 14), [255, 0, 0, 255]);
        // '1' has its stem in column 2 of its glyph: x = 8 + 6 + 2.
        assert_eq!(c.pixel(16, 20), [0, 0, 255, 255]);
        assert_eq!(Canvas::text_size("e12", 2), (34, 14));
        let back = Canvas::from_png(&c.to_png()).unwrap();
        assert_eq!(back, c);
        // Off-canvas drawing is clipped, not a panic.
        c.fill(-10, -10, 100, 100, [0, 0, 0]);
        assert!(Canvas::from_png(b"not a png").is_err());
    }
}
