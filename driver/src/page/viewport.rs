//! The viewport: its size, and scrolling the page.

use std::str::FromStr;

use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use serde_json::json;

use super::actions::ActionResult;
use super::handle::Page;
use super::target::Target;
use crate::error::{Error, Result};

/// Size of the page viewport in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewportSize {
    pub width: u32,
    pub height: u32,
}

impl Default for ViewportSize {
    fn default() -> Self {
        ViewportSize {
            width: 1280,
            height: 720,
        }
    }
}

impl FromStr for ViewportSize {
    type Err = String;

    /// Parses `WIDTHxHEIGHT`, e.g. `1280x720`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (w, h) = s
            .trim()
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("expected WIDTHxHEIGHT (e.g. 1280x720), got {s:?}"))?;
        let parse = |v: &str, what: &str| -> std::result::Result<u32, String> {
            let n: u32 = v.trim().parse().map_err(|_| format!("invalid {what} {v:?} in {s:?}"))?;
            if !(100..=10_000).contains(&n) {
                return Err(format!("{what} {n} is out of range (100..=10000)"));
            }
            Ok(n)
        };
        Ok(ViewportSize {
            width: parse(w, "width")?,
            height: parse(h, "height")?,
        })
    }
}

impl std::fmt::Display for ViewportSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

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

    /// The in-page scroller's arguments (see `SCROLL_JS`).
    fn as_args(self) -> serde_json::Value {
        match self {
            ScrollAmount::Pixels(px) => json!({"percent": null, "dy": px, "pages": 0}),
            ScrollAmount::ViewportPercent(p) => json!({"percent": null, "dy": 0, "pages": p / 100.0}),
        }
    }
}
impl Page {
    /// Scrolls the page by pixels or a percentage of the viewport (positive
    /// down, negative up), instantly. The result's value says where it ended.
    pub async fn scroll(&self, amount: ScrollAmount) -> Result<ActionResult> {
        self.scroll_element("scroll", None, amount.as_args()).await
    }

    /// Scrolls the element's scroll container (the page when it has none)
    /// by pixels or a percentage of the container's height.
    pub async fn scroll_container(&self, target: impl Into<Target>, amount: ScrollAmount) -> Result<ActionResult> {
        self.scroll_element("scroll", Some(target.into()), amount.as_args())
            .await
    }

    /// Resizes the viewport (CSS pixels, device scale factor 1).
    pub async fn set_viewport(&self, size: ViewportSize) -> Result<()> {
        let p = SetDeviceMetricsOverrideParams::new(i64::from(size.width), i64::from(size.height), 1.0, false);
        self.send(p).await?;
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

    /// Scrolls the main frame's window to `y` (instantly, whatever the page's
    /// `scroll-behavior`) and waits for a frame.
    pub(crate) async fn scroll_window_to(&self, y: f64) -> Result<()> {
        let main = self.main_frame_id().await?;
        let ctx = self.ensure_engine(&main).await?;
        let expression = format!(
            "window.scrollTo({{ left: 0, top: {}, behavior: \"instant\" }}); {NEXT_FRAMES_JS}",
            y.max(0.0)
        );
        self.evaluate_in(&main, ctx, &expression, true).await?;
        Ok(())
    }
}

/// Resolves when two animation frames have passed (or after 250 ms when the
/// page does not render, e.g. in a background tab).
const NEXT_FRAMES_JS: &str = "new Promise((resolve) => {\
    let done = false;\
    const finish = () => { if (!done) { done = true; resolve(true); } };\
    requestAnimationFrame(() => requestAnimationFrame(finish));\
    setTimeout(finish, 250);\
})";

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

    #[test]
    fn parses_viewport_sizes() {
        assert_eq!(
            "1280x720".parse::<ViewportSize>().unwrap(),
            ViewportSize {
                width: 1280,
                height: 720
            }
        );
        assert_eq!(
            "800X600".parse::<ViewportSize>().unwrap(),
            ViewportSize {
                width: 800,
                height: 600
            }
        );
        assert!("1280".parse::<ViewportSize>().is_err());
        assert!("axb".parse::<ViewportSize>().is_err());
        assert!("10x10".parse::<ViewportSize>().is_err());
    }
}
