//! Settling: waiting until a page has stopped changing on its own before a
//! snapshot, and after navigations and actions.
//!
//! [`Page::settle`] waits for DOMContentLoaded (and, when the page
//! fired an uncancelled `submit` since the last look, for one turn of its
//! event loop, so the queued navigation is requested) and for network quiet: no
//! in-flight request for [`QUIET_WINDOW`](super::tracker::QUIET_WINDOW), where WebSocket and EventSource
//! requests, and any request older than
//! [`MAX_REQUEST_AGE`](super::tracker::MAX_REQUEST_AGE), don't count. It
//! never waits longer than its budget (default [`DEFAULT_SETTLE_TIMEOUT`]);
//! running out of budget is not an error, the page is simply still busy.

use std::time::{Duration, Instant};

use super::handle::Page;
use crate::error::{Error, Result};

/// Default time budget of one settle.
pub const DEFAULT_SETTLE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleReport {
    /// Time spent.
    pub waited: Duration,
    /// The budget ran out before the page was quiet.
    pub timed_out: bool,
    /// Requests still counted as in flight when it returned.
    pub pending_requests: usize,
}

/// `[document.readyState, a form submission is queued]` (see `takeSubmit`
/// in js-glue/engine-api.js).
const READY_STATE_JS: &str = "[document.readyState, globalThis.__sightline.takeSubmit()]";
/// Resolves after one turn of the event loop: after every task queued
/// before it, such as a form submission's navigation. After an input that
/// changed the page, Chromium runs it after the next frame (~16 ms).
const TASK_TURN_JS: &str = "new Promise((r) => setTimeout(() => setTimeout(r, 0), 0))";
/// Longest wait for that turn (a page that never yields must not hold settle up).
const TASK_TURN_TIMEOUT: Duration = Duration::from_millis(500);

impl Page {
    /// Waits until the page is settled: DOMContentLoaded, then no network
    /// activity for 500 ms (ignoring WebSocket, EventSource and requests
    /// older than 2 s), within the page's settle budget
    /// ([`Page::set_settle_timeout`], default 5 s). Never fails because the
    /// page stays busy; see the returned report.
    pub async fn settle(&self) -> Result<SettleReport> {
        let budget = self.settle_timeout();
        self.settle_within(budget).await
    }

    /// [`Page::settle`] with an explicit budget.
    pub async fn settle_within(&self, budget: Duration) -> Result<SettleReport> {
        let started = Instant::now();
        let deadline = started + budget;
        let tracker = self.tracker();
        loop {
            // A round trip to the renderer: events it sent before (requests
            // started by a click handler, a navigation it scheduled) arrive
            // before this answer, and the tracker applies them before `sync`.
            let (ready, submitting) = match tokio::time::timeout_at(deadline.into(), self.ready_state()).await {
                Ok(Ok(state)) => state,
                Ok(Err(e @ (Error::PageCrashed | Error::BrowserClosed))) => return Err(e),
                Ok(Err(e)) => {
                    // A document being replaced has no context for a moment.
                    tracing::debug!("settle: {e}");
                    ("loading".to_string(), false)
                }
                Err(_) => break,
            };
            if submitting {
                // A form's navigation is queued but not requested yet: let
                // it run, then look again (its request event comes first).
                if let Ok(main) = self.main_frame_id().await {
                    let turn = self.engine_eval(&main, TASK_TURN_JS, true);
                    let _ = tokio::time::timeout(TASK_TURN_TIMEOUT, turn).await;
                }
                continue;
            }
            tracker.sync().await;
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            let loading = ready == "loading" || tracker.with(|s| s.navigating(now));
            if loading {
                tracker.changed_or(deadline.min(now + Duration::from_millis(50))).await;
                continue;
            }
            match tracker.with(|s| s.quiet_at(now)) {
                None => {
                    return Ok(SettleReport {
                        waited: started.elapsed(),
                        timed_out: false,
                        pending_requests: 0,
                    })
                }
                Some(at) => {
                    // Re-check on every change, or when the quiet window could have passed.
                    tracker.changed_or(deadline.min(at)).await;
                    let now = Instant::now();
                    if now < deadline && tracker.with(|s| s.quiet_at(now)).is_none() {
                        continue; // confirm with a fresh round trip
                    }
                    if now >= deadline {
                        break;
                    }
                }
            }
        }
        let pending = tracker.with(|s| s.active_requests(Instant::now()));
        tracing::debug!(pending, "settle: budget of {budget:?} ran out");
        Ok(SettleReport {
            waited: started.elapsed(),
            timed_out: true,
            pending_requests: pending,
        })
    }

    /// `document.readyState` of the main frame (in the engine's world), and
    /// whether a form submission has queued a navigation since the last look.
    async fn ready_state(&self) -> Result<(String, bool)> {
        let main = self.main_frame_id().await?;
        let v = self.engine_eval(&main, READY_STATE_JS, false).await?;
        let state = v[0].as_str().unwrap_or("complete").to_string();
        Ok((state, v[1].as_bool().unwrap_or(false)))
    }

    /// Waits (the `wait` tool), failing early only if the page crashes.
    pub async fn wait(&self, duration: Duration) -> Result<()> {
        self.unless_crashed(tokio::time::sleep(duration)).await
    }
}
