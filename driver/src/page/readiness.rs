//! Readiness: when a step (a navigation, an action, a snapshot) may return.
//! One rule, used by every caller; docs/design.md ("Readiness") explains it
//! with its reasons.
//!
//! By default ([`WaitUntil::Ready`]) a step returns as soon as the page is
//! ready as a user would see it:
//!
//! 1. the main document is parsed (no navigation on its way, and a form
//!    submission's queued navigation has been given its turn);
//! 2. what the content waits on has arrived: Code and Data requests of the
//!    page's own site and its own site's frames ([`RequestRole`]) while
//!    they are young ([`CONTENT_REQUEST_AGE`]), and a step's own fetches
//!    and code for as long as the page shows a loading indicator in the
//!    viewport or the step changed a client-side app's route; a reply
//!    streaming in for the step's input (a question sent, its answer still
//!    arriving and showing: [`STREAM_GAP`]); on a tab's first look (one the
//!    page opened, whose earlier requests are unknown), a loading
//!    indicator in view;
//! 3. the content in and near the viewport has not changed for
//!    [`QUIET_WINDOW_READY`] since DOMContentLoaded (regions that change at
//!    a steady beat, such as clocks, tickers and carousels, do not count),
//!    after the page's echo: the tasks its handlers queued in reply to the
//!    step's input have run, the frames they asked for have been drawn, and
//!    the first frame after DOMContentLoaded too (each frame waited for at
//!    most [`ECHO_WINDOW`]);
//! 4. for up to [`LATE_WINDOW`] after that (`ready_probe.rs`), timers and idle callbacks the
//!    page set during the step and due within it, animations the step's
//!    input started in view that end within it and whose end the page
//!    awaits, a list the page is filling in chunk by chunk
//!    ([`GROWTH_GAP`](super::ready_probe::GROWTH_GAP)), and a consent manager still loading: the dialogs
//!    pages open just after they render, and what renders when an
//!    entrance ends;
//! 5. an interstitial's `<meta http-equiv="refresh">` to another address
//!    due within a second: the next page is the one waited for.
//!
//! The `load` event, other sites' frames, images, beacons, polls, long polls,
//! feeds (streams the page reads as they come), WebSocket and EventSource
//! never hold a step. The budget (the
//! page's ready timeout) bounds every wait; running out is not an error.
//!
//! [`WaitUntil::Load`] also waits for the load event after navigations, and
//! [`WaitUntil::NetworkIdle`] is the older rule: the load event, then no
//! request for 500 ms.

use std::time::{Duration, Instant};

use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;

use super::handle::Page;
pub use super::ready_probe::LATE_WINDOW;
use super::ready_probe::{late_hold, Echo, Probe, POLL};
use super::tracker::{PendingRequest, RequestRole, MAX_REQUEST_AGE};
use crate::config::WaitUntil;
use crate::error::{Error, Result};

/// Default time budget of one wait for readiness.
pub const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(5);

/// A content request (script, stylesheet, fetch, XHR of the page's site)
/// holds a step while it is younger than this; a fetch the step started
/// holds it longer while a loading indicator is in view.
pub const CONTENT_REQUEST_AGE: Duration = Duration::from_millis(1000);
/// A feed (a response of a stream's type) that keeps coming this long after
/// its headers no longer holds a step.
pub const STREAM_GRACE: Duration = Duration::from_millis(250);
/// After a content request ends, the page gets this long to render what it
/// brought before the DOM is judged quiet.
pub const RESPONSE_GRACE: Duration = Duration::from_millis(50);
/// How long the content in and near the viewport must stay unchanged.
pub const QUIET_WINDOW_READY: Duration = Duration::from_millis(60);
/// Longest wait for the page's next frame in its echo (a hidden page draws
/// none): a frame and a half. Handlers that react later than their next
/// frame set a timer (the late window waits for it) or start a request.
pub const ECHO_WINDOW: Duration = Duration::from_millis(25);
/// A reply streaming in (the step's own request still receiving its body,
/// the content in view still changing) holds the step while both happened
/// within this.
pub const STREAM_GAP: Duration = Duration::from_millis(500);
/// How long a loading indicator on a tab's first look (one opened by the
/// page, whose earlier requests are unknown) may hold it.
const UNSEEN_INDICATOR_LIMIT: Duration = Duration::from_secs(3);
/// A consent manager that has not loaded this long after DOMContentLoaded
/// is not going to show its dialog soon: it stops holding steps.
const CONSENT_LOAD_LIMIT: Duration = Duration::from_secs(3);
/// At most this many looks in a step wait for frames the page asked for
/// (a page that asks again from outside its frame callbacks, each time).
const MAX_FRAMES_WAITED: u32 = 4;
/// The page is told the step began this much earlier than it did: the
/// look reaches it a moment after the step's age is taken (longer on a
/// busy machine), and a timer set by a handler of the step's first input
/// must count.
const STEP_CLOCK_SLACK: Duration = Duration::from_millis(100);
/// A page that left a look unanswered gets this long to answer a trivial
/// question before it counts as not responding.
pub const UNRESPONSIVE_GRACE: Duration = Duration::from_millis(1500);

/// How a wait for readiness ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadyReport {
    /// Time spent.
    pub waited: Duration,
    /// The budget ran out before the page was ready.
    pub timed_out: bool,
    /// What it was still waiting on when it returned (empty when ready):
    /// `request /api/items`, `the document`, `the page to stop changing`…
    pub pending: Vec<String>,
    /// What the page's status messages (live regions: a toast, an error
    /// snackbar) said during the step and no longer show: the final tree
    /// will not have it.
    pub said_and_gone: Vec<String>,
    /// Requests the step started that were still loading when the page
    /// looked settled (older than [`CONTENT_REQUEST_AGE`], with no loading
    /// indicator in view): what they bring shows up later.
    pub left_loading: Vec<String>,
}

impl ReadyReport {
    /// "the page was still busy after 5.0s (waiting on …)", when the
    /// budget ran out.
    pub fn busy_note(&self) -> Option<String> {
        self.timed_out.then(|| {
            format!(
                "the page was still busy after {:.1}s (waiting on {})",
                self.waited.as_secs_f64(),
                self.pending.join(", ")
            )
        })
    }

    /// What a navigation says of a page that is not all there: the budget
    /// ran out, or its requests were still loading when it looked settled.
    pub fn unfinished(&self) -> Option<String> {
        self.busy_note().or_else(|| {
            (!self.left_loading.is_empty()).then(|| {
                format!(
                    "{} still loading when the page looked settled (what it brings shows up later)",
                    self.left_loading.join(", ")
                )
            })
        })
    }

    fn ready(started: Instant) -> ReadyReport {
        ReadyReport {
            waited: started.elapsed(),
            timed_out: false,
            pending: Vec::new(),
            said_and_gone: Vec::new(),
            left_loading: Vec::new(),
        }
    }
}

/// Resolves after one turn of the event loop: after every task queued
/// before it, such as a form submission's navigation. After an input that
/// changed the page, Chromium runs it after the next frame (~16 ms).
const TASK_TURN_JS: &str = "new Promise((r) => setTimeout(() => setTimeout(r, 0), 0))";
/// Longest wait for that turn (a page that never yields must not hold the step up).
const TASK_TURN_TIMEOUT: Duration = Duration::from_millis(500);

/// `pending` as the report says it.
fn describe(requests: &[&PendingRequest]) -> Vec<String> {
    requests
        .iter()
        .map(|r| {
            let kind = match r.role {
                RequestRole::Code => "script or stylesheet",
                _ => "request",
            };
            format!("{kind} {}", short_url(&r.url))
        })
        .collect()
}

/// A URL without its origin and with a long query cut.
fn short_url(url: &str) -> String {
    let path = super::address::path_and_query(url).unwrap_or(url);
    crate::text::clip(path, 80)
}

impl Page {
    /// Waits until the page is ready by this page's rule
    /// ([`Page::set_wait_until`], default [`WaitUntil::Ready`]; see the
    /// module docs), within its budget ([`Page::set_ready_timeout`],
    /// default 5 s). Never fails because the page stays busy; see the report.
    pub async fn wait_ready(&self) -> Result<ReadyReport> {
        self.wait_ready_within(self.ready_timeout()).await
    }

    /// [`Page::wait_ready`] with an explicit budget.
    pub async fn wait_ready_within(&self, budget: Duration) -> Result<ReadyReport> {
        // A JavaScript dialog holds the page: nothing changes, nothing
        // answers, until it is answered.
        if self.dialog().is_some() {
            return Ok(ReadyReport {
                waited: Duration::ZERO,
                timed_out: false,
                pending: vec!["a dialog to be answered".into()],
                said_and_gone: Vec::new(),
                left_loading: Vec::new(),
            });
        }
        let report = match self.wait_until() {
            WaitUntil::NetworkIdle => self.network_idle_within(budget).await,
            WaitUntil::Ready | WaitUntil::Load => self.ready_within(budget).await,
        };
        if report.as_ref().is_ok_and(|r| r.timed_out) {
            // What held this wait to its end is not waited for again by the
            // snapshot that follows, nor by the next command's: they wait
            // only for what starts from here (a request that never ends
            // under a spinner would cost every later call its whole budget).
            self.begin_step();
        }
        self.next_input_begins_step();
        report
    }

    async fn ready_within(&self, budget: Duration) -> Result<ReadyReport> {
        let started = Instant::now();
        let deadline = started + budget;
        let tracker = self.tracker();
        let step = self.step_started();
        // A tab opened by the page (a popup, a link to a new tab) looked at
        // for the first time: the requests it made before it was followed
        // are unknown, so a loading indicator in view holds the step, as
        // the step's own requests would under it (for a while: a spinner
        // that never goes costs this once).
        let unseen_until = self.take_unseen_document().then(|| started + UNSEEN_INDICATOR_LIMIT);
        let mut late_until: Option<Instant> = None;
        let mut look_for_busy = false;
        let mut pending: Vec<String> = Vec::new();
        // The first look lets the tasks queued in reply to the step's input
        // run; after a scroll, the next frame is drawn first (scroll events
        // and intersection observers are delivered with it).
        let mut echo = if self.take_step_scrolled() {
            Echo::Frame
        } else {
            Echo::Turn
        };
        let mut frames_waited = 0;
        // When the first look came back, and whether the page's immediate
        // reply has had its frame to go on in (see below).
        let mut first_look_at: Option<Instant> = None;
        let mut reply_framed = false;
        // What the last look heard status messages say: a wait that runs
        // out still tells them (the toast will not be in the tree either).
        let mut said_and_gone: Vec<String> = Vec::new();
        loop {
            let Some((probe, now)) = self
                .look_once_parsed(
                    deadline,
                    look_for_busy,
                    step,
                    std::mem::replace(&mut echo, Echo::None),
                    &mut pending,
                )
                .await?
            else {
                break;
            };

            first_look_at.get_or_insert(now);
            // (The page's list only grows within a step; a look that got no
            // answer, mid-navigation, has none.)
            if !probe.said_and_gone.is_empty() {
                said_and_gone.clone_from(&probe.said_and_gone);
            }
            let requests = tracker.with(|s| s.content_requests(now, STREAM_GRACE));
            // The step's own requests: its fetches, and the code it loads
            // (a route's chunk, fetched when a link of a client-side app is
            // clicked); another site's fetches count only under a loading
            // indicator (or a route change), never for their youth alone.
            let of_step = |r: &PendingRequest| r.role != RequestRole::Background && r.started >= step;
            let elsewhere = |r: &PendingRequest| r.role == RequestRole::Elsewhere;
            let step_fetches_old = requests
                .iter()
                .any(|r| of_step(r) && (elsewhere(r) || now >= r.started + CONTENT_REQUEST_AGE));
            // A route change of the step says the next view is on its way,
            // as a loading indicator does (framework transitions keep the
            // old view, with no indicator, until its data has come).
            let routed = self.routed_during_step();
            if step_fetches_old && !look_for_busy && !routed {
                // Whether the page shows it is waiting decides: look again.
                look_for_busy = true;
                continue;
            }
            let unseen = unseen_until.is_some_and(|t| now < t);
            if unseen && !look_for_busy {
                look_for_busy = true;
                continue;
            }
            look_for_busy = (step_fetches_old && !routed) || unseen;
            if unseen && probe.busy {
                pending = vec!["the new tab's loading indicator".into()];
                tokio::time::sleep_until(deadline.min(now + POLL).into()).await;
                continue;
            }
            let awaited = probe.busy || routed;
            let holding: Vec<&PendingRequest> = requests
                .iter()
                .filter(|r| (!elsewhere(r) && now < r.started + CONTENT_REQUEST_AGE) || (awaited && of_step(r)))
                .collect();
            if !holding.is_empty() {
                pending = describe(&holding);
                let aging = holding
                    .iter()
                    .map(|r| r.started + CONTENT_REQUEST_AGE)
                    .filter(|t| *t > now)
                    .min()
                    .unwrap_or(now + POLL);
                tracker.changed_or(deadline.min(aging).min(now + POLL)).await;
                continue;
            }

            // A reply streaming in for the step (a chat answer, a report
            // written as it is made): its request is still receiving, and
            // what it brings still shows (even at the even pace of a beat).
            // (Only after the step's input: a page that opens a stream as
            // it loads is showing a feed, not answering.)
            let receiving = self.step_began_at_input()
                && tracker
                    .with(|s| s.step_data_at(step))
                    .is_some_and(|at| now < at + STREAM_GAP);
            if receiving && probe.stirred_ago.is_some_and(|a| a < STREAM_GAP) {
                pending = vec!["a reply still streaming in".into()];
                tokio::time::sleep_until(deadline.min(now + POLL).into()).await;
                continue;
            }

            // The content in view has stopped changing.
            let changed_at = probe.changed_ago.and_then(|ago| now.checked_sub(ago));
            let (response_at, parsed_at) = tracker.with(|s| (s.content_finished, s.dom_ready_at));
            // A change of the step the first look already saw, on a document
            // parsed before the step, is the page's immediate reply to the input (a
            // handler that rendered at once): the next frame shows whether
            // more is coming (a scheduler's next chunk, which would be a
            // later change and wait the whole quiet window), not 60 ms.
            let first_look = first_look_at.unwrap_or(now);
            let immediate_reply =
                parsed_at.is_some_and(|p| p <= step) && changed_at.is_some_and(|c| c >= step && c <= first_look);
            if immediate_reply && !reply_framed {
                reply_framed = true;
                echo = Echo::Frame;
                pending = vec!["the page to stop changing".into()];
                continue;
            }
            let quiet_from = [
                changed_at.filter(|_| !immediate_reply).map(|t| t + QUIET_WINDOW_READY),
                response_at.map(|t| t + RESPONSE_GRACE),
            ]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(now);
            if now < quiet_from {
                pending = vec!["the page to stop changing".into()];
                tokio::time::sleep_until(deadline.min(quiet_from).into()).await;
                continue;
            }
            // The first frame after DOMContentLoaded: scripts that run just
            // after it (async ones already loaded) get their turn, and the
            // page is drawn as the user first sees it.
            let drawn_after = self.state().drawn_after_parse;
            if let Some(parsed) = parsed_at.filter(|t| now < *t + ECHO_WINDOW && drawn_after != Some(*t)) {
                self.state().drawn_after_parse = Some(parsed);
                echo = Echo::Frame;
                pending = vec!["the page to stop changing".into()];
                continue;
            }
            // Frames the page asked for in reply to the step: its reaction
            // is drawn in them (the hook stops counting a frame after 100 ms).
            if probe.frames_due > 0 && frames_waited < MAX_FRAMES_WAITED {
                frames_waited += 1;
                echo = Echo::Frame;
                pending = vec!["the page to stop changing".into()];
                continue;
            }

            // Late dialogs: the page's timers due soon, a consent manager
            // loading, what renders when the step's animations end, a list
            // filled in chunks, an interstitial's refresh.
            let late_end = *late_until.get_or_insert(now + LATE_WINDOW);
            let consent = probe.consent_loading
                && tracker
                    .with(|s| s.dom_ready_at)
                    .is_some_and(|t| now < t + CONSENT_LOAD_LIMIT);
            if let Some(hold) = late_hold(&probe, now, late_end, consent) {
                pending = vec![hold.what.into()];
                tokio::time::sleep_until(deadline.min(hold.wake).into()).await;
                continue;
            }
            let late = late_until.map_or(Duration::ZERO, |end| now.saturating_duration_since(end - LATE_WINDOW));
            if late > Duration::from_millis(5) {
                tracing::debug!(
                    "readiness: ready after {:?}, {late:?} of it in the late window",
                    started.elapsed()
                );
            }
            let left: Vec<&PendingRequest> = requests.iter().filter(|r| of_step(r) && !elsewhere(r)).collect();
            return Ok(ReadyReport {
                said_and_gone: probe.said_and_gone,
                left_loading: describe(&left),
                ..ReadyReport::ready(started)
            });
        }
        tracing::debug!(?pending, "readiness: the budget of {budget:?} ran out");
        Ok(ReadyReport {
            waited: started.elapsed(),
            timed_out: true,
            pending,
            said_and_gone,
            ..ReadyReport::ready(started)
        })
    }

    /// The older rule ([`WaitUntil::NetworkIdle`]): the document parsed,
    /// then no counted request for [`QUIET_WINDOW`](super::tracker::QUIET_WINDOW).
    async fn network_idle_within(&self, budget: Duration) -> Result<ReadyReport> {
        let started = Instant::now();
        let deadline = started + budget;
        let tracker = self.tracker();
        let step = self.step_started();
        let mut pending = Vec::new();
        loop {
            let Some((_, now)) = self
                .look_once_parsed(deadline, false, step, Echo::None, &mut pending)
                .await?
            else {
                break;
            };
            match tracker.with(|s| s.quiet_at(now)) {
                None => return Ok(ReadyReport::ready(started)),
                Some(at) => {
                    // Re-check on every change, or when the quiet window could have passed.
                    tracker.changed_or(deadline.min(at)).await;
                }
            }
        }
        let now = Instant::now();
        let active = tracker.with(|s| s.active_requests(now));
        Ok(ReadyReport {
            waited: started.elapsed(),
            timed_out: true,
            pending: vec![format!(
                "{active} request(s) younger than {} s",
                MAX_REQUEST_AGE.as_secs()
            )],
            ..ReadyReport::ready(started)
        })
    }

    /// Looks at the page until its document is parsed and no form
    /// submission is about to navigate (both rules start there): the look
    /// and when it was taken, or `None` once the budget ran out.
    async fn look_once_parsed(
        &self,
        deadline: Instant,
        look_for_busy: bool,
        step: Instant,
        mut echo: Echo,
        pending: &mut Vec<String>,
    ) -> Result<Option<(Probe, Instant)>> {
        let tracker = self.tracker();
        loop {
            let look = self.look_at_readiness(deadline, look_for_busy, step, echo).await?;
            echo = Echo::None;
            let Some(probe) = look else {
                return Ok(None);
            };
            if probe.submitting {
                self.let_submission_run().await;
                continue;
            }
            // Events the renderer sent before its answer are applied now.
            tracker.sync().await;
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            if probe.parsing || tracker.with(|s| s.navigating(now)) {
                *pending = vec!["the document".into()];
                tracker.changed_or(deadline.min(now + POLL)).await;
                continue;
            }
            return Ok(Some((probe, now)));
        }
    }

    /// One look at the page; `None` when the deadline passed first. A
    /// document being replaced has no context for a moment: it reads as
    /// still parsing. A page that did not answer until the deadline, nor
    /// a trivial question after it, is not responding: an error.
    async fn look_at_readiness(
        &self,
        deadline: Instant,
        look_for_busy: bool,
        step: Instant,
        echo: Echo,
    ) -> Result<Option<Probe>> {
        // The page counts back from when the look reaches it, a moment after
        // this is taken: without the slack, timers its handlers set in the
        // step's first milliseconds would fall before the step.
        let step_ms = (step.elapsed() + STEP_CLOCK_SLACK).as_millis();
        let probe = |ms: &str| format!("globalThis.__sightline.readiness({look_for_busy}, {ms})");
        // The step's age grows by the echo's wait before the probe runs.
        let js = match echo {
            Echo::None => probe(&step_ms.to_string()),
            Echo::Turn | Echo::Frame => format!(
                "globalThis.__sightline.echo({}).then((waited) => {})",
                echo == Echo::Frame,
                probe(&format!("{step_ms} + waited"))
            ),
        };
        let asked = Instant::now();
        // A crashed renderer answers nothing either: said as such.
        let look = async {
            let main = self.main_frame_id().await?;
            self.unless_crashed(self.engine_eval(&main, &js, echo != Echo::None))
                .await?
        };
        match tokio::time::timeout_at(deadline.into(), look).await {
            Err(_) => {
                if self.is_hung().await {
                    return Err(Error::PageNotResponding { after: asked.elapsed() });
                }
                Ok(None)
            }
            Ok(Ok(v)) => Ok(Some(Probe::read(&v))),
            Ok(Err(e @ (Error::PageCrashed | Error::BrowserClosed | Error::TabClosed))) => Err(e),
            Ok(Err(e)) => {
                tracing::debug!("readiness: {e}");
                tokio::time::sleep(Duration::from_millis(10).min(deadline.saturating_duration_since(Instant::now())))
                    .await;
                Ok(Some(Probe {
                    parsing: true,
                    ..Probe::default()
                }))
            }
        }
    }

    /// A form's navigation is queued but not requested yet: lets it run
    /// (its request event then comes before the next look's answer).
    async fn let_submission_run(&self) {
        if let Ok(main) = self.main_frame_id().await {
            let turn = self.engine_eval(&main, TASK_TURN_JS, true);
            let _ = tokio::time::timeout(TASK_TURN_TIMEOUT, turn).await;
        }
    }

    /// Whether the page's main thread answers a trivial question within
    /// `limit` (a hung page, busy in an endless loop, does not).
    /// (A crashed page is not hung: callers learn of it as a crash.)
    pub async fn responds_within(&self, limit: Duration) -> bool {
        if self.is_crashed() {
            return true;
        }
        // (An error is an answer: between documents there may be no
        // context to run in, but the renderer said so.)
        let ask = self.unless_crashed(self.cdp().execute(EvaluateParams::new("0")));
        tokio::time::timeout(limit, ask).await.is_ok()
    }

    /// Whether the page is hung (a script in an endless loop holds its one
    /// thread): it left a trivial question unanswered for
    /// [`UNRESPONSIVE_GRACE`] twice in a row, with no dialog open before or
    /// after (a dialog holds the page too, and is no hang). The one rule for
    /// every caller that waited too long for the page.
    pub async fn is_hung(&self) -> bool {
        for _ in 0..2 {
            if self.dialog().is_some() || self.responds_within(UNRESPONSIVE_GRACE).await {
                return false;
            }
        }
        self.dialog().is_none()
    }

    /// Ends a tab whose page stopped answering: its renderer is crashed
    /// first (`Page.crash` runs on the renderer's IO thread, so a main
    /// thread stuck in a loop cannot block it; the process stops burning a
    /// core), then the tab is closed.
    pub async fn kill(self) {
        // Its script stopped first: a page that answers then is closed as
        // any tab (a crash would take down the tabs that share its process,
        // a pop-up's opener among them).
        self.stop_scripts().await;
        let crash = || async {
            let crash = super::raw_cdp::on_page(self.cdp(), "Page.crash", serde_json::json!({}));
            let _ = tokio::time::timeout(Duration::from_secs(2), crash).await;
        };
        if !self.responds_within(UNRESPONSIVE_GRACE).await {
            crash().await;
        }
        // (A page busy again by then, a timer's loop, holds its close: crashed.)
        if tokio::time::timeout(Duration::from_secs(5), self.clone().close())
            .await
            .is_err()
        {
            crash().await;
            let _ = tokio::time::timeout(Duration::from_secs(5), self.close()).await;
        }
    }

    /// Stops the script running in the tab (an endless loop, one that keeps
    /// opening dialogs) and dismisses an open dialog. DevTools interrupts a
    /// busy main thread for it; a closed tab's loop would go on spinning on
    /// the thread its process's other tabs share.
    pub(crate) async fn stop_scripts(&self) {
        let stop = super::raw_cdp::on_page(self.cdp(), "Runtime.terminateExecution", serde_json::json!({}));
        let _ = tokio::time::timeout(Duration::from_secs(2), stop).await;
        if self.dialog().is_some() {
            let dismiss = super::raw_cdp::on_page(
                self.cdp(),
                "Page.handleJavaScriptDialog",
                serde_json::json!({"accept": false}),
            );
            let _ = tokio::time::timeout(Duration::from_secs(2), dismiss).await;
        }
    }

    /// Waits (the `wait` tool), failing early only if the page crashes.
    pub async fn wait(&self, duration: Duration) -> Result<()> {
        self.unless_crashed(tokio::time::sleep(duration)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_until_reads_its_names() {
        assert_eq!("ready".parse::<WaitUntil>().unwrap(), WaitUntil::Ready);
        assert_eq!("NetworkIdle".parse::<WaitUntil>().unwrap(), WaitUntil::NetworkIdle);
        assert_eq!("load".parse::<WaitUntil>().unwrap().to_string(), "load");
        assert!("domcontentloaded".parse::<WaitUntil>().is_err());
    }

    #[test]
    fn urls_are_shortened_to_their_path() {
        assert_eq!(short_url("http://127.0.0.1:8080/api/items?x=1"), "/api/items?x=1");
        assert!(short_url(&format!("http://a/{}", "x".repeat(200))).ends_with('…'));
    }
}
