//! Screenshots: the viewport, the whole page, or one element.

use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, GetLayoutMetricsParams, GetLayoutMetricsReturns, Viewport,
};

use super::cover::Shot;
use super::handle::Page;
use super::target::{Needs, Target};
use crate::base64;
use crate::error::{ActionErrorKind, Error, Result};

fn clip_rect(x: f64, y: f64, width: f64, height: f64) -> Viewport {
    Viewport {
        x,
        y,
        width,
        height,
        scale: 1.0,
    }
}

/// Checks the PNG signature (Chromium always answers PNG when asked, but a
/// truncated answer should not pass silently).
fn png(bytes: Vec<u8>) -> Result<Vec<u8>> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Ok(bytes)
    } else {
        Err(Error::Cdp {
            method: "Page.captureScreenshot",
            message: "the browser did not return a PNG".into(),
        })
    }
}

/// The tallest (and widest) full-page screenshot, in device pixels: below
/// Chromium's largest texture.
const FULL_PAGE_MAX_HEIGHT: f64 = 16_000.0;
/// The longest side of an image a model's API takes (Anthropic refuses
/// larger ones, and the conversation with them).
pub const MODEL_IMAGE_MAX_SIDE: f64 = 8_000.0;
/// The most bytes of a PNG for a model: Anthropic takes 5 MB of base64
/// (four thirds of the bytes), with room to spare.
pub const MODEL_IMAGE_MAX_BYTES: usize = 3_500_000;

impl Page {
    async fn capture(&self, clip: Option<Viewport>, beyond_viewport: bool, fast: bool) -> Result<Vec<u8>> {
        // A hidden tab paints nothing to capture.
        self.show_if_hidden().await?;
        let p = CaptureScreenshotParams {
            format: Some(CaptureScreenshotFormat::Png),
            clip,
            capture_beyond_viewport: beyond_viewport.then_some(true),
            optimize_for_speed: fast.then_some(true),
            ..Default::default()
        };
        let resp = self.send(p).await?;
        let data: &str = resp.result.data.as_ref();
        png(base64::decode(data).ok_or_else(|| Error::Cdp {
            method: "Page.captureScreenshot",
            message: "the screenshot is not valid base64".into(),
        })?)
    }

    /// A PNG of what the viewport shows.
    pub async fn screenshot(&self) -> Result<Vec<u8>> {
        self.capture(None, false, false).await
    }

    /// A PNG of what the viewport shows, rendered at `scale` (0.5 gives an
    /// image half the viewport's CSS size; Chromium renders it at that size,
    /// so small text stays legible). Models that see screenshots get them
    /// at the size they declare; their coordinates are scaled back. Encoded
    /// for speed (a screenshot per step; a model is charged by pixels, not
    /// bytes): about a fifth faster, two thirds larger.
    pub async fn screenshot_scaled(&self, scale: f64) -> Result<Vec<u8>> {
        let m = self.layout_metrics().await?;
        let vv = &m.css_visual_viewport;
        let clip = Viewport {
            x: vv.page_x,
            y: vv.page_y,
            width: vv.client_width,
            height: vv.client_height,
            scale,
        };
        self.capture(Some(clip), false, true).await
    }

    /// The viewport's size in CSS pixels as screenshots show it (the
    /// visual viewport: without a classic scrollbar, when one takes room).
    pub async fn screenshot_area(&self) -> Result<(f64, f64)> {
        let m = self.layout_metrics().await?;
        let vv = &m.css_visual_viewport;
        Ok((vv.client_width, vv.client_height))
    }

    /// The viewport's and the document's sizes and the scroll offset, in CSS pixels.
    async fn layout_metrics(&self) -> Result<GetLayoutMetricsReturns> {
        self.send(GetLayoutMetricsParams::default()).await.map(|m| m.result)
    }

    /// A PNG of the whole page, beyond the viewport.
    pub async fn screenshot_full_page(&self) -> Result<Vec<u8>> {
        Ok(self.screenshot_full_page_at_most(None).await?.0)
    }

    /// [`Page::screenshot_full_page`], and (what it shows, the page's
    /// height) when it was cut: Chromium captures no image taller than its
    /// largest texture (16,384 device px), so a longer page is taken down
    /// to [`FULL_PAGE_MAX_HEIGHT`] device pixels, or to `most` CSS pixels
    /// when that is less (an image for a model: [`MODEL_IMAGE_MAX_SIDE`]).
    pub async fn screenshot_full_page_at_most(&self, most: Option<f64>) -> Result<(Vec<u8>, Option<(f64, f64)>)> {
        let m = self.layout_metrics().await?;
        let size = &m.css_content_size;
        // The limit is in device pixels: a HiDPI screen's CSS pixel holds several.
        let scale = self
            .evaluate_isolated("devicePixelRatio")
            .await
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(1.0)
            .max(1.0);
        let most = (FULL_PAGE_MAX_HEIGHT / scale).floor().min(most.unwrap_or(f64::MAX));
        let height = size.height.ceil();
        let shown = height.min(most);
        let clip = clip_rect(0.0, 0.0, size.width.ceil().min(most), shown);
        let png = self.capture(Some(clip), true, false).await?;
        Ok((png, (height > shown).then_some((shown, height))))
    }

    /// [`Page::screenshot_full_page_at_most`] for a model's API: at most
    /// [`MODEL_IMAGE_MAX_SIDE`] tall, and taken again shorter until its PNG
    /// has at most [`MODEL_IMAGE_MAX_BYTES`] (a busy page's image).
    pub async fn screenshot_full_page_for_a_model(&self) -> Result<(Vec<u8>, Option<(f64, f64)>)> {
        let mut shot = self.screenshot_full_page_at_most(Some(MODEL_IMAGE_MAX_SIDE)).await?;
        while shot.0.len() > MODEL_IMAGE_MAX_BYTES {
            let tall = crate::image::png_size(&shot.0).map_or(MODEL_IMAGE_MAX_SIDE, |(_, h)| f64::from(h));
            let shown = shot.1.map_or(tall, |(shown, _)| shown);
            let fewer = (shown * MODEL_IMAGE_MAX_BYTES as f64 / shot.0.len() as f64 * 0.9).floor();
            if fewer < 100.0 {
                break;
            }
            shot = self.screenshot_full_page_at_most(Some(fewer)).await?;
        }
        Ok(shot)
    }

    /// A PNG of one element's box (scrolled into view first).
    pub async fn screenshot_element(&self, target: impl Into<Target>) -> Result<Vec<u8>> {
        Ok(self.screenshot_element_shot(target).await?.0)
    }

    /// [`Page::screenshot_element`], and the part of the page it shows.
    pub async fn screenshot_element_shot(&self, target: impl Into<Target>) -> Result<(Vec<u8>, Shot)> {
        let target = target.into();
        let needs = Needs {
            visible: true,
            stable: true,
            scroll: true,
            ..Needs::ATTACHED
        };
        let ready = self.actionable("screenshot", &target, needs).await?;
        if ready.rect.is_empty() {
            return Err(Error::Action {
                method: "screenshot",
                target: target.label(),
                element: Some(ready.info.description.clone()),
                kind: ActionErrorKind::NotVisible,
                waited_ms: None,
            });
        }
        let m = self.layout_metrics().await?;
        // Clips are in document coordinates: add the scroll offset.
        let vv = &m.css_visual_viewport;
        let r = ready.rect;
        let clip = clip_rect(r.x + vv.page_x, r.y + vv.page_y, r.width, r.height);
        let shot = Shot::Clip {
            x: clip.x,
            y: clip.y,
            width: clip.width,
        };
        Ok((self.capture(Some(clip), true, false).await?, shot))
    }
}
