//! Screenshots as the server received them: base64 PNG data decoded to
//! pixels, so a test can check the size a client declared and look at what
//! the model was actually shown.

use base64::Engine as _;

/// A decoded image, as 8-bit RGBA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Png {
    pub width: u32,
    pub height: u32,
    /// Row-major, 4 bytes a pixel.
    pub rgba: Vec<u8>,
}

impl Png {
    /// Decodes base64 PNG data (as sent in a request).
    pub fn from_base64(data: &str) -> Result<Png, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|e| format!("not base64: {e}"))?;
        Png::decode(&bytes)
    }

    /// Decodes PNG bytes (any bit depth and colour type) to RGBA.
    pub fn decode(bytes: &[u8]) -> Result<Png, String> {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
        let mut buf = vec![0; reader.output_buffer_size().ok_or("the image is too large")?];
        let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
        buf.truncate(info.buffer_size());
        let rgba = match info.color_type {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
            png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
            png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::Indexed => return Err("indexed colour left after expansion".into()),
        };
        Ok(Png {
            width: info.width,
            height: info.height,
            rgba,
        })
    }

    /// The pixel at (x, y), RGBA.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        assert!(
            x < self.width && y < self.height,
            "({x}, {y}) is outside {}x{}",
            self.width,
            self.height
        );
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }
}
