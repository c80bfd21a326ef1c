//! Page-level tools: screenshots, page scrolling, waiting, evaluating script
//! in an isolated world, and the viewport size.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::page::{
    CaptureScreenshotFormat, CaptureScreenshotParams, CreateIsolatedWorldParams, GetLayoutMetricsParams, Viewport,
};
use chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId;
use serde_json::{json, Value};

use crate::actions::ActionResult;
use crate::browser::ViewportSize;
use crate::error::{ActionErrorKind, Error, Result};
use crate::page::{Page, USER_WORLD_NAME};
use crate::target::{Needs, Target};

/// How far [`Page::scroll`] scrolls; positive is down, negative up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScrollAmount {
    /// CSS pixels.
    Pixels(f64),
    /// Percent of the viewport height (100 = one screen).
    ViewportPercent(f64),
}

impl ScrollAmount {
    /// Parses `"300"`, `"300px"`, `"50%"`, `"-2.5%"`, optionally after a
    /// direction: `"down"`, `"up 300px"`, `"up 50%"` (a bare direction is one screen).
    pub fn parse(s: &str) -> Result<ScrollAmount> {
        let bad = || {
            Error::InvalidAction(format!(
                "scroll amount {s:?}: expected e.g. \"down\", \"up 50%\", \"300px\" or \"-40%\""
            ))
        };
        let mut words = s.split_whitespace();
        let first = words.next().ok_or_else(bad)?;
        let (sign, amount) = match first.to_ascii_lowercase().as_str() {
            "down" => (1.0, words.next()),
            "up" => (-1.0, words.next()),
            _ => (1.0, Some(first)),
        };
        if words.next().is_some() {
            return Err(bad());
        }
        let Some(amount) = amount else {
            return Ok(ScrollAmount::ViewportPercent(sign * 100.0));
        };
        let number = |t: &str| t.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        if let Some(p) = amount.strip_suffix('%') {
            return number(p)
                .map(|v| ScrollAmount::ViewportPercent(sign * v))
                .ok_or_else(bad);
        }
        let px = amount.strip_suffix("px").unwrap_or(amount);
        number(px).map(|v| ScrollAmount::Pixels(sign * v)).ok_or_else(bad)
    }
}

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

impl Page {
    async fn capture(&self, clip: Option<Viewport>, beyond_viewport: bool) -> Result<Vec<u8>> {
        let p = CaptureScreenshotParams {
            format: Some(CaptureScreenshotFormat::Png),
            clip,
            capture_beyond_viewport: beyond_viewport.then_some(true),
            ..Default::default()
        };
        let resp = self
            .unless_crashed(self.cdp().execute(p))
            .await?
            .map_err(|e| Error::cdp("Page.captureScreenshot", e))?;
        let data: &str = resp.result.data.as_ref();
        use base64_decode::decode;
        png(decode(data).ok_or_else(|| Error::Cdp {
            method: "Page.captureScreenshot",
            message: "the screenshot is not valid base64".into(),
        })?)
    }

    /// A PNG of what the viewport shows.
    pub async fn screenshot(&self) -> Result<Vec<u8>> {
        self.capture(None, false).await
    }

    /// A PNG of the whole page, beyond the viewport.
    pub async fn screenshot_full_page(&self) -> Result<Vec<u8>> {
        let m = self
            .cdp()
            .execute(GetLayoutMetricsParams::default())
            .await
            .map_err(|e| Error::cdp("Page.getLayoutMetrics", e))?;
        let size = &m.result.css_content_size;
        let clip = clip_rect(0.0, 0.0, size.width.ceil(), size.height.ceil());
        self.capture(Some(clip), true).await
    }

    /// A PNG of one element's box (scrolled into view first).
    pub async fn screenshot_element(&self, target: impl Into<Target>) -> Result<Vec<u8>> {
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
        let m = self
            .cdp()
            .execute(GetLayoutMetricsParams::default())
            .await
            .map_err(|e| Error::cdp("Page.getLayoutMetrics", e))?;
        // Clips are in document coordinates: add the scroll offset.
        let vv = &m.result.css_visual_viewport;
        let r = ready.rect;
        let clip = clip_rect(r.x + vv.page_x, r.y + vv.page_y, r.width, r.height);
        self.capture(Some(clip), true).await
    }

    /// Scrolls the page by pixels or a percentage of the viewport (positive
    /// down, negative up), instantly. The result's value says where it ended.
    pub async fn scroll(&self, amount: ScrollAmount) -> Result<ActionResult> {
        let args = match amount {
            ScrollAmount::Pixels(px) => json!({"percent": null, "dy": px, "pages": 0}),
            ScrollAmount::ViewportPercent(p) => json!({"percent": null, "dy": 0, "pages": p / 100.0}),
        };
        self.scroll_element("scroll", None, args).await
    }

    /// Waits (the `wait` tool), failing early only if the page crashes.
    pub async fn wait(&self, duration: Duration) -> Result<()> {
        self.unless_crashed(tokio::time::sleep(duration)).await
    }

    /// Evaluates `expression` in the main frame, in an isolated world of its
    /// own (not the page's, not the engine's): page scripts can't see or
    /// tamper with it, and it sees the page's DOM but not its JS globals.
    /// Promises are awaited; the JSON value is returned.
    pub async fn evaluate_isolated(&self, expression: &str) -> Result<Value> {
        let main = self.main_frame_id().await?;
        let mut attempt = 0;
        loop {
            let ctx = self.user_context(&main).await?;
            match self.evaluate_in(&main, ctx, expression, true).await {
                Ok(v) => return Ok(v),
                Err(e) if e.is_stale_context() && attempt == 0 => {
                    self.state().user_contexts.remove(main.inner());
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn user_context(
        &self,
        frame: &chromiumoxide::cdp::browser_protocol::page::FrameId,
    ) -> Result<ExecutionContextId> {
        if let Some(ctx) = self.state().user_contexts.get(frame.inner()) {
            return Ok(*ctx);
        }
        let mut p = CreateIsolatedWorldParams::new(frame.clone());
        p.world_name = Some(USER_WORLD_NAME.to_string());
        let resp = self
            .cdp()
            .execute(p)
            .await
            .map_err(|e| Error::cdp("Page.createIsolatedWorld", e))?;
        let ctx = resp.result.execution_context_id;
        self.state().user_contexts.insert(frame.inner().clone(), ctx);
        Ok(ctx)
    }

    /// Resizes the viewport (CSS pixels, device scale factor 1).
    pub async fn set_viewport(&self, size: ViewportSize) -> Result<()> {
        let p = SetDeviceMetricsOverrideParams::new(i64::from(size.width), i64::from(size.height), 1.0, false);
        self.cdp()
            .execute(p)
            .await
            .map_err(|e| Error::cdp("Emulation.setDeviceMetricsOverride", e))?;
        Ok(())
    }

    /// The viewport size as the page sees it (`innerWidth` × `innerHeight`).
    pub async fn viewport(&self) -> Result<ViewportSize> {
        let main = self.main_frame_id().await?;
        let v = self.engine_eval(&main, "[innerWidth, innerHeight]", false).await?;
        let n = |i: usize| v[i].as_u64().unwrap_or(0) as u32;
        Ok(ViewportSize {
            width: n(0),
            height: n(1),
        })
    }
}

/// A small base64 decoder (standard alphabet, padding optional): the
/// screenshot bytes are the only base64 the driver reads.
mod base64_decode {
    pub fn decode(s: &str) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(s.len() / 4 * 3);
        let mut buf = 0u32;
        let mut bits = 0;
        for c in s.bytes() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' => break,
                b'\r' | b'\n' => continue,
                _ => return None,
            };
            buf = (buf << 6) | u32::from(v);
            bits += 6;
            if bits >= 8 {
                bits -= 8;
                out.push((buf >> bits) as u8);
            }
        }
        Some(out)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn decodes() {
            assert_eq!(super::decode("aGVsbG8=").unwrap(), b"hello");
            assert_eq!(super::decode("aGVsbG8").unwrap(), b"hello");
            assert_eq!(super::decode("").unwrap(), b"");
            assert!(super::decode("a$").is_none());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scroll_amounts() {
        assert_eq!(
            ScrollAmount::parse("down").unwrap(),
            ScrollAmount::ViewportPercent(100.0)
        );
        assert_eq!(
            ScrollAmount::parse("up").unwrap(),
            ScrollAmount::ViewportPercent(-100.0)
        );
        assert_eq!(
            ScrollAmount::parse("up 50%").unwrap(),
            ScrollAmount::ViewportPercent(-50.0)
        );
        assert_eq!(ScrollAmount::parse("300px").unwrap(), ScrollAmount::Pixels(300.0));
        assert_eq!(ScrollAmount::parse("-120").unwrap(), ScrollAmount::Pixels(-120.0));
        assert_eq!(
            ScrollAmount::parse("down 2.5%").unwrap(),
            ScrollAmount::ViewportPercent(2.5)
        );
        assert!(ScrollAmount::parse("sideways").is_err());
        assert!(ScrollAmount::parse("up down").is_err());
        assert!(ScrollAmount::parse("").is_err());
    }
}
