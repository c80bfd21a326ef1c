//! `wait`: a pause, or until a text appears on (or leaves) the page.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};
use crate::error::{Error, Result};
use crate::page::Page;

pub const TOOL: Tool = Tool::new(
    "wait",
    "Wait for the page: a number of milliseconds (ms) or seconds (time), or until a text appears \
(text) or disappears (textGone), for up to 20 s (or up to ms/time, at most 30 s, when given as well).",
    parameters,
    handle,
)
.changing_page()
.with_aliases(&["waitFor"])
.with_positional(&["ms|text"])
.with_mcp_name("browser_wait_for");

/// How a text wait that ran out says to wait longer (the command line says
/// it in its own words).
pub const WAIT_LONGER: &str = "give ms or time to wait longer, up to 30 s";

/// Whether a frame's document shows a text, read as the snapshot reads it:
/// the DOM's text (not `innerText`, which applies `text-transform`), in
/// open shadow roots too, whitespace (no-break spaces among it) collapsed,
/// letter case ignored, in rendered elements only. (Text split over inline
/// elements is read joined.) Each frame, cross-origin ones too, is asked
/// in its own world.
const TEXT_SHOWN_JS: &str = r#"(() => {
  const norm = (s) => s.replace(/\s+/g, " ").trim().toLowerCase();
  const needle = norm(NEEDLE);
  const parts = [];
  const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  // Shown: rendered and not visibility:hidden; a display:contents parent
  // has no box of its own, its nearest ancestor with one decides.
  const shown = (el) => {
    while (el && getComputedStyle(el).display === "contents") el = el.parentElement;
    return !el || el.checkVisibility({ visibilityProperty: true });
  };
  const visit = (root) => {
    const walker = (root.ownerDocument || root).createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.currentNode; n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const p = n.parentElement;
        if (p && !skip.has(p.tagName) && shown(p)) parts.push(n.data);
        continue;
      }
      if (n.shadowRoot) visit(n.shadowRoot);
    }
  };
  if (document.body) visit(document.body);
  return [parts.join(""), parts.join(" ")].some((text) => norm(text).includes(needle));
})()"#;

/// Longest wait for a text to appear or leave.
const TEXT_TIMEOUT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(200);

fn parameters() -> Value {
    object(
        json!({
            "ms": {"type": "integer", "minimum": 0, "maximum": 30000, "description": "Milliseconds to wait."},
            "time": {"type": "number", "minimum": 0, "maximum": 30, "description": "Seconds to wait."},
            "text": {"type": "string", "description": "Wait until this text is on the page."},
            "textGone": {"type": "string", "description": "Wait until this text is no longer on the page."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    ms: Option<u64>,
    #[serde(default)]
    time: Option<f64>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    text_gone: Option<String>,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("wait", args)?;
        let page = ctx.page();
        let pause = a.ms.map(Duration::from_millis).or(a.time.map(Duration::from_secs_f64));
        if let Some(text) = a.text.as_deref().or(a.text_gone.as_deref()) {
            let want_present = a.text.is_some();
            let probe = TEXT_SHOWN_JS.replace("NEEDLE", &serde_json::to_string(text).expect("a string serialises"));
            let deadline = Instant::now() + pause.unwrap_or(TEXT_TIMEOUT);
            loop {
                let present = match page.evaluate_in_frames(&probe).await {
                    // Shown in a frame is shown; gone needs every frame's word
                    // (a frame that did not answer may still show it).
                    Ok(frames) => match frames.iter().any(|v| v.as_ref().and_then(Value::as_bool) == Some(true)) {
                        true => Some(true),
                        false if frames.iter().all(Option::is_some) => Some(false),
                        false => None,
                    },
                    // A document replaced under the probe (the page navigating,
                    // reloading) is not read yet: look again at the next one.
                    Err(e) if e.is_stale_context() || matches!(e, Error::NavigatedWhileRunning { .. }) => None,
                    Err(e) => return Err(e),
                };
                if present == Some(want_present) {
                    let what = if want_present { "appeared" } else { "is gone" };
                    return Ok(ToolOutput::ok(format!("{text:?} {what}")));
                }
                if Instant::now() >= deadline {
                    let what = if want_present {
                        "did not appear"
                    } else {
                        "is still there"
                    };
                    let waited = pause.unwrap_or(TEXT_TIMEOUT).as_secs_f64();
                    return Ok(ToolOutput::failed(format!(
                        "{text:?} {what} after waiting {waited:.1} s ({WAIT_LONGER})"
                    )));
                }
                pause_for(ctx, &page, POLL).await?;
            }
        }
        let Some(pause) = pause else {
            return Ok(ToolOutput::failed("wait needs ms, time, text or textGone"));
        };
        pause_for(ctx, &page, pause).await?;
        Ok(ToolOutput::ok(format!("Waited {} ms", pause.as_millis())))
    })
}

/// Waits `pause`, failing as soon as the page crashes or the browser dies
/// (a wait on a page that is gone has nothing to report).
async fn pause_for(ctx: &ToolContext<'_>, page: &Page, pause: Duration) -> Result<()> {
    let deadline = Instant::now() + pause;
    loop {
        if ctx.browser_is_gone() {
            return Err(Error::BrowserClosed);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        page.wait(left.min(POLL)).await?;
    }
}
