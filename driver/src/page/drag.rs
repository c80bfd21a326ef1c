//! `dragAndDrop`: trusted mouse down at the source, moves in steps, mouse up
//! at the destination.
//!
//! That alone drives pointer-event based sortable lists. For HTML5
//! drag-and-drop (`draggable=true`) the browser would start an OS-level drag
//! that headless Chromium can't complete, so, like Playwright, the driver
//! turns on `Input.setInterceptDrags`: when the page starts a drag, Chromium
//! hands over the drag data (`Input.dragIntercepted`) and the driver plays the
//! rest with `Input.dispatchDragEvent` (dragenter, dragover, drop), which fires
//! the page's trusted drag events.

use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::input::{
    DispatchDragEventParams, DispatchDragEventType, DragData, EventDragIntercepted, SetInterceptDragsParams,
};
use chromiumoxide::cdp::browser_protocol::page::FrameId;
use futures::StreamExt;
use serde_json::Value;

use super::actions::ActionResult;
use super::handle::Page;
use super::raw_cdp::RawCommand;
use super::target::{Needs, Target};
use crate::error::{ActionErrorKind, Error, Result};

/// Intermediate mouse moves between source and destination.
const STEPS: usize = 12;

/// Records, in the source frame's engine world, whether the page started an
/// HTML5 drag (a `dragstart` nobody cancelled) on the next mouse move.
const WATCH_DRAGSTART_JS: &str = "(() => {
  const w = { started: false, event: null };
  globalThis.__sl_drag = w;
  addEventListener('dragstart', (e) => { w.event = e; w.started = true; }, { capture: true, once: true });
  return true;
})()";

/// Whether that drag went ahead (after page handlers had their say).
const DRAG_STARTED_JS: &str = "new Promise((r) => setTimeout(() => {
  const w = globalThis.__sl_drag;
  r(!!(w && w.started && w.event && !w.event.defaultPrevented));
}, 0))";

fn lerp(a: (f64, f64), b: (f64, f64), t: f64) -> (f64, f64) {
    (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
}

impl Page {
    /// Drags `source` onto `destination` with trusted input (see the module docs).
    pub async fn drag_and_drop(
        &self,
        source: impl Into<Target>,
        destination: impl Into<Target>,
    ) -> Result<ActionResult> {
        let source = source.into();
        let destination = destination.into();
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let src = self.actionable("dragAndDrop", &source, Needs::POINTER).await?;
        let from = src.point.expect("a hit test found a point");
        // The destination must be reachable too (it may be scrolled into view,
        // which moves the source: measure the source again afterwards).
        let dest_needs = Needs {
            enabled: false,
            ..Needs::POINTER
        };
        let dst = self.actionable("dragAndDrop", &destination, dest_needs).await?;
        let to = dst.point.expect("a hit test found a point");
        let src = self.actionable("dragAndDrop", &source, Needs::POINTER).await?;
        let from = src.point.unwrap_or(from);
        if src.loc.frame != dst.loc.frame {
            return Err(Error::Action {
                method: "dragAndDrop",
                target: source.label(),
                element: Some(src.info.description.clone()),
                kind: ActionErrorKind::Unsupported("the destination is in another frame".into()),
                waited_ms: None,
            });
        }

        let kind = self.drag_between(&src.loc.frame, from, to).await?;
        let mut result = ActionResult {
            element: Some(src.info.description.clone()).filter(|d| !d.is_empty()),
            selector: Some(src.info.selector.clone()).filter(|s| !s.is_empty()),
            value: Some(format!("dropped on {}", dst.info.description)),
            notes: vec![kind.to_string()],
            rect: Some(src.rect).filter(|r| !r.is_empty()),
            ..Default::default()
        };
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    /// A trusted drag between two points whose source lies in `frame`:
    /// HTML5 drag and drop when the page starts one, else a pointer drag.
    async fn drag_between(&self, frame: &FrameId, from: (f64, f64), to: (f64, f64)) -> Result<&'static str> {
        let mut intercepted = self
            .cdp()
            .event_listener::<EventDragIntercepted>()
            .await
            .map_err(|e| Error::cdp("Input.dragIntercepted", e))?;
        self.engine_eval(frame, WATCH_DRAGSTART_JS, false).await?;
        self.set_intercept_drags(true).await?;
        let pressed = std::sync::atomic::AtomicBool::new(false);
        let outcome = async {
            self.mouse_move(from.0, from.1).await?;
            self.mouse_down(1).await?;
            pressed.store(true, std::sync::atomic::Ordering::Relaxed);
            // A first short move past the drag threshold starts a drag, if the page wants one.
            let nudge = lerp(from, to, 1.0 / STEPS as f64);
            let nudge = if (nudge.0 - from.0).abs() + (nudge.1 - from.1).abs() < 6.0 {
                (from.0 + 6.0, from.1 + 6.0)
            } else {
                nudge
            };
            self.mouse_move_buttons(nudge.0, nudge.1, 1).await?;
            let html5 = self.engine_eval(frame, DRAG_STARTED_JS, true).await? == Value::Bool(true);
            let data: Option<DragData> = if html5 {
                match tokio::time::timeout(Duration::from_secs(2), intercepted.next()).await {
                    Ok(Some(ev)) => Some(ev.data.clone()),
                    _ => {
                        tracing::debug!("dragstart fired but Chromium intercepted no drag");
                        None
                    }
                }
            } else {
                None
            };
            self.set_intercept_drags(false).await?;
            match data {
                Some(data) => {
                    self.drag_event(DispatchDragEventType::DragEnter, nudge, &data).await?;
                    for i in 2..=STEPS {
                        let p = lerp(from, to, i as f64 / STEPS as f64);
                        self.drag_event(DispatchDragEventType::DragOver, p, &data).await?;
                    }
                    self.drag_event(DispatchDragEventType::DragOver, to, &data).await?;
                    let document = self.navigation_mark();
                    self.drag_event(DispatchDragEventType::Drop, to, &data).await?;
                    self.set_mouse_position(to, document);
                    Ok::<_, Error>("HTML5 drag and drop")
                }
                None => {
                    for i in 2..=STEPS {
                        let p = lerp(from, to, i as f64 / STEPS as f64);
                        self.mouse_move_buttons(p.0, p.1, 1).await?;
                    }
                    self.mouse_move_buttons(to.0, to.1, 1).await?;
                    self.mouse_up(1).await?;
                    Ok("pointer drag")
                }
            }
        }
        .await;
        // Never leave interception on, nor the button down, whatever
        // happened: the page would take no click after. (Not on a page that
        // stopped answering: the release would wait as long again.)
        if let Err(e) = &outcome {
            let _ = self.set_intercept_drags(false).await;
            let gone = matches!(
                e,
                Error::PageNotResponding { .. } | Error::BusyAfterInput { .. } | Error::PageCrashed
            );
            if pressed.load(std::sync::atomic::Ordering::Relaxed) && !gone {
                let _ = self.mouse_up(1).await;
            }
        }
        outcome
    }

    /// A trusted drag from one point to another (top-level viewport CSS
    /// pixels), for models that see screenshots; see [`Page::drag_and_drop`].
    pub async fn drag_points(&self, from: (f64, f64), to: (f64, f64)) -> Result<ActionResult> {
        self.show_if_hidden().await?;
        let _guard = self.action_lock().lock().await;
        let mark = self.begin_action();
        let main = self.main_frame_id().await?;
        let kind = self.drag_between(&main, from, to).await?;
        let mut result = ActionResult {
            notes: vec![kind.to_string()],
            ..Default::default()
        };
        self.after_action(&mut result, mark).await?;
        Ok(result)
    }

    async fn set_intercept_drags(&self, on: bool) -> Result<()> {
        self.send(SetInterceptDragsParams::new(on)).await.map(|_| ())
    }

    async fn drag_event(&self, ty: DispatchDragEventType, at: (f64, f64), data: &DragData) -> Result<()> {
        let mut p = DispatchDragEventParams::new(ty, at.0, at.1, data.clone());
        p.modifiers = Some(0);
        let method = "Input.dispatchDragEvent";
        let mut params = serde_json::to_value(&p).map_err(|e| Error::Cdp {
            method,
            message: e.to_string(),
        })?;
        // chromiumoxide leaves out an empty `items`, which the browser
        // requires: a drag whose dragstart set no data (many sortable lists)
        // carries none.
        if params["data"].get("items").is_none() {
            params["data"]["items"] = serde_json::json!([]);
        }
        self.input_begins();
        self.send(RawCommand { method, params }).await.map(|_| ())
    }
}
