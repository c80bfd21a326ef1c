//! One browser tab: navigation, and the engine in each of its frames.
//!
//! The engine lives in an isolated world named [`WORLD_NAME`] in every frame.
//! `Page.addScriptToEvaluateOnNewDocument` puts it there before any page
//! script runs; `Page.createIsolatedWorld` with the same name hands back that
//! very world's execution context, which we cache per frame. Documents that
//! loaded before the injection get the bundle evaluated on first use.
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::inspector::{
    EnableParams as InspectorEnableParams, EventDetached, EventTargetCrashed, EventTargetReloadedAfterCrash,
};
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, EnableParams, SetBypassCspParams, StopLoadingParams,
};
use futures::StreamExt;
use sightline_engine::protocol::WORLD_NAME;

use super::bundle::{ISOLATED_ENGINE, MAIN_WORLD_HOOK};
use super::events::Events;
use super::held::{ClickButton, Held};
use super::origin_filter::OriginFilter;
use super::raw_cdp;
use super::side_channel::SideChannel;
use super::state::{PageConfig, PageState};
use super::tracker::Tracker;
use crate::config::RemoveBlockerConfig;
use crate::config::WaitUntil;
use crate::domains::{OriginPolicy, Refusal, RefusalLog};
use crate::error::{Error, Result};

/// Everything a [`Page`] handle shares with its clones.
struct Shared {
    state: Arc<Mutex<PageState>>,
    config: Mutex<PageConfig>,
    /// removeBlocker's policy on this tab.
    blockers: Mutex<RemoveBlockerConfig>,
    /// Set when the tab's renderer crashes (`Inspector.targetCrashed`).
    crashed: Arc<tokio::sync::watch::Sender<bool>>,
    /// Set when the tab is closed (`Inspector.detached`: its page called
    /// `window.close()`, or someone closed it): it never answers again.
    closed: Arc<tokio::sync::watch::Sender<bool>>,
    crash_watch: tokio::task::JoinHandle<()>,
    tracker: Tracker,
    events: Events,
    /// Where this tab may navigate.
    origins: OriginPolicy,
    /// Where this tab's refused requests are kept (and those of a tab it opened).
    refusals: RefusalLog,
    /// Enforces `origins` on every document request (None: no restriction).
    _origin_filter: Option<OriginFilter>,
    /// Where the mouse is (top-level viewport CSS pixels), and the main
    /// frame's commit count when it got there (see [`Page::mouse_is_at`]).
    mouse: Mutex<((f64, f64), u64)>,
    /// What stays held down between calls (`mouseDown` … `mouseUp`,
    /// `keyDown` … `keyUp`).
    held: Mutex<Held>,
    /// One action at a time per page: trusted input must not interleave.
    action_lock: tokio::sync::Mutex<()>,
    /// Held while a navigation given up on is being stopped: the next one
    /// waits, or the stop could end it instead.
    abandoning: Arc<tokio::sync::Mutex<()>>,
    /// When the current step began (see [`Page::begin_step`]).
    step: Mutex<StepClock>,
    /// The tab was taken over showing a document no wait has looked at yet
    /// (a popup, a link's new tab, the user's own tab): what it requested
    /// before is unknown to the tracker.
    unseen_document: std::sync::atomic::AtomicBool,
    /// Where navigations are sent (see side_channel.rs); `None`: through
    /// chromiumoxide, which holds them until every frame has loaded.
    side_channel: Option<Arc<SideChannel>>,
}

/// The current step's start (see [`Page::step_started`]).
struct StepClock {
    started: Instant,
    /// The next input event begins the step anew: the step was begun by an
    /// action whose first input is still to come, or the page was waited for.
    awaiting_input: bool,
    /// The step scrolled (see [`Page::step_scrolled`]).
    scrolled: bool,
    /// The tracker's route changes when the step began.
    routes: u64,
    /// The tracker's main-frame commits when the step began.
    commits: u64,
    /// Input being sent prepares the action (see [`Page::preparing_input`]).
    preparing: bool,
    /// The step began at an input event (an action's press, key or
    /// scroll), not at a navigation.
    from_input: bool,
}

impl StepClock {
    /// A step beginning now, when the tracker has seen `routes` route
    /// changes and `commits` commits.
    fn starting((routes, commits): (u64, u64), awaiting_input: bool) -> StepClock {
        StepClock {
            started: Instant::now(),
            awaiting_input,
            scrolled: false,
            routes,
            commits,
            preparing: false,
            from_input: false,
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.crash_watch.abort();
    }
}

/// A browser tab driven by Sightline. Cheap to clone: clones are handles to
/// the same tab.
#[derive(Clone)]
pub struct Page {
    pub(super) inner: chromiumoxide::Page,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page").field("target", self.inner.target_id()).finish()
    }
}

impl PartialEq for Page {
    fn eq(&self, other: &Self) -> bool {
        self.inner.target_id() == other.inner.target_id()
    }
}

/// Where a tab the driver attaches to comes from: it decides whether the
/// tab's current document gets the scripts too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TabOrigin {
    /// Opened by us on `about:blank`, about to navigate: only the
    /// documents to come need the scripts (running the engine on the blank
    /// page would cost a wasm compile for nothing).
    Fresh,
    /// A tab that already shows a page (a popup, the user's own tab): its
    /// current document gets the scripts as well.
    Adopted,
}

impl Page {
    /// Prepares a tab: CSP bypass, and the main-world hook and the engine
    /// installed for every future document.
    pub(crate) async fn attach(
        inner: chromiumoxide::Page,
        config: PageConfig,
        blockers: RemoveBlockerConfig,
        origins: OriginPolicy,
        refusals: RefusalLog,
        side_channel: Option<Arc<SideChannel>>,
        origin: TabOrigin,
    ) -> Result<Page> {
        let current_document_too = origin == TabOrigin::Adopted;
        let mut hook = AddScriptToEvaluateOnNewDocumentParams::new(MAIN_WORLD_HOOK);
        hook.run_immediately = Some(current_document_too);
        let mut engine = AddScriptToEvaluateOnNewDocumentParams::new(ISOLATED_ENGINE);
        engine.world_name = Some(WORLD_NAME.to_string());
        engine.run_immediately = Some(current_document_too);
        // A crashed renderer answers nothing: notice it instead of waiting for timeouts.
        let mut crashes = inner
            .event_listener::<EventTargetCrashed>()
            .await
            .map_err(|e| Error::cdp("Inspector.targetCrashed", e))?;
        // (Reloaded by someone else, the user of a headed window or of a
        // browser we attached to: it answers again.)
        let mut revived = inner
            .event_listener::<EventTargetReloadedAfterCrash>()
            .await
            .map_err(|e| Error::cdp("Inspector.targetReloadedAfterCrash", e))?;
        let mut detached = inner
            .event_listener::<EventDetached>()
            .await
            .map_err(|e| Error::cdp("Inspector.detached", e))?;
        // Sent together: the browser runs them in this order, and the tab
        // waits for one round trip instead of five.
        futures::try_join!(
            async {
                inner
                    .execute(EnableParams::default())
                    .await
                    .map_err(|e| Error::cdp("Page.enable", e))
            },
            async {
                inner
                    .execute(SetBypassCspParams::new(true))
                    .await
                    .map_err(|e| Error::cdp("Page.setBypassCSP", e))
            },
            async {
                inner
                    .execute(hook)
                    .await
                    .map_err(|e| Error::cdp("Page.addScriptToEvaluateOnNewDocument", e))
            },
            async {
                inner
                    .execute(engine)
                    .await
                    .map_err(|e| Error::cdp("Page.addScriptToEvaluateOnNewDocument", e))
            },
            async {
                inner
                    .execute(InspectorEnableParams::default())
                    .await
                    .map_err(|e| Error::cdp("Inspector.enable", e))
            },
        )?;
        let crashed = Arc::new(tokio::sync::watch::channel(false).0);
        let closed = Arc::new(tokio::sync::watch::channel(false).0);
        let (flag, closed_flag) = (crashed.clone(), closed.clone());
        let crash_watch = tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(_) = crashes.next() => {
                        tracing::debug!("the page's renderer crashed");
                        flag.send_replace(true);
                    }
                    Some(ev) = detached.next() => {
                        tracing::debug!("the tab was detached: {}", ev.reason);
                        // (A crash detaches too, for another reason: that one
                        // is said as a crash.)
                        if ev.reason == "target_closed" {
                            closed_flag.send_replace(true);
                        }
                    }
                    Some(_) = revived.next() => {
                        flag.send_replace(false);
                    }
                    else => break,
                }
            }
            // Every stream ended: the tab's session is gone with its target
            // (the detach event does not always come first).
            if !*flag.borrow() {
                closed_flag.send_replace(true);
            }
        });

        let state = Arc::new(Mutex::new(PageState::default()));
        // Each registers its listeners and enables its domain: side by side.
        let started = futures::try_join!(
            Tracker::start(&inner, state.clone()),
            Events::start(&inner),
            OriginFilter::start(&inner, &origins, refusals.clone()),
        );
        let (tracker, events, origin_filter) = match started {
            Ok(v) => v,
            Err(e) => {
                crash_watch.abort();
                return Err(e);
            }
        };
        Ok(Page {
            inner,
            shared: Arc::new(Shared {
                state,
                config: Mutex::new(config),
                blockers: Mutex::new(blockers),
                crashed,
                closed,
                crash_watch,
                tracker,
                events,
                origins,
                refusals,
                _origin_filter: origin_filter,
                mouse: Mutex::new(((0.0, 0.0), 0)),
                held: Mutex::default(),
                action_lock: tokio::sync::Mutex::new(()),
                abandoning: Arc::default(),
                step: Mutex::new(StepClock::starting((0, 0), false)),
                unseen_document: std::sync::atomic::AtomicBool::new(current_document_too),
                side_channel,
            }),
        })
    }

    /// The chromiumoxide page underneath, for raw CDP commands.
    pub fn cdp(&self) -> &chromiumoxide::Page {
        &self.inner
    }

    /// The DevTools target id of this tab.
    pub fn target_id(&self) -> &str {
        self.inner.target_id().inner()
    }

    /// The target id of the tab that opened this one (popups, `target=_blank` links).
    pub fn opener_id(&self) -> Option<&str> {
        self.inner.opener_id().as_ref().map(|t| t.inner().as_str())
    }

    pub(crate) fn state(&self) -> std::sync::MutexGuard<'_, PageState> {
        self.shared.state.lock().unwrap()
    }

    pub(crate) fn side_channel(&self) -> Option<&SideChannel> {
        self.shared.side_channel.as_deref()
    }

    pub(crate) fn tracker(&self) -> &Tracker {
        &self.shared.tracker
    }

    /// Where this tab may navigate (from `LaunchOptions::origins`).
    pub fn origins(&self) -> &OriginPolicy {
        &self.shared.origins
    }

    /// Requests of this tab's policy refused before they were sent (by
    /// this tab's filter, another tab's of the same policy, or the
    /// browser's guard for a tab a page opened) after the one numbered
    /// `after`; [`Page::refusal_mark`] gives the number to start from.
    pub fn refusals_since(&self, after: u64) -> Vec<Refusal> {
        self.shared.refusals.since(after)
    }

    /// The number of the latest refusal (0: none yet).
    pub fn refusal_mark(&self) -> u64 {
        self.shared.refusals.mark()
    }

    /// Refusals of this tab's policy that no tool call has said yet; said
    /// from now on (see [`Page::refusals_since`]).
    pub fn unsaid_refusals(&self) -> Vec<Refusal> {
        self.shared.refusals.unsaid()
    }

    pub(crate) fn events(&self) -> &Events {
        &self.shared.events
    }

    /// Where the mouse is (top-level viewport CSS pixels).
    pub fn mouse_position(&self) -> (f64, f64) {
        self.shared.mouse.lock().unwrap().0
    }

    /// The mouse was moved to `at` in `document` (the commit count read
    /// before the move was sent: a click that navigates at once must not
    /// stamp the new document as having seen the mouse arrive).
    pub(crate) fn set_mouse_position(&self, at: (f64, f64), document: u64) {
        *self.shared.mouse.lock().unwrap() = (at, document);
    }

    /// Whether the mouse is at `at` as the current document knows: one that
    /// came after its last move has not seen the mouse arrive, so its
    /// element under it gets mouseenter (a hover menu opens) only from the
    /// next move.
    pub(crate) fn mouse_is_at(&self, at: (f64, f64)) -> bool {
        let document = self.tracker().with(|s| s.commits);
        *self.shared.mouse.lock().unwrap() == (at, document)
    }

    /// The mouse button held down and where it went down, if one is.
    pub fn pressed_at(&self) -> Option<(ClickButton, (f64, f64))> {
        self.held().button
    }

    /// The keys held down (`keyDown` … `keyUp`), in Sightline's names.
    pub fn held_keys(&self) -> Vec<String> {
        self.held().keys.iter().map(|k| k.key.clone()).collect()
    }

    /// What is held down, in words (`the left button (pressed at (510,
    /// 350)), Shift`), or `None`.
    pub fn held_down(&self) -> Option<String> {
        let held = self.held();
        let mut parts: Vec<String> = held
            .button
            .iter()
            .map(|(b, (x, y))| format!("the {} button (pressed at ({x:.0}, {y:.0}))", b.name()))
            .collect();
        parts.extend(held.keys.iter().map(|k| k.key.clone()));
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    pub(crate) fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        self.shared.held.lock().unwrap()
    }

    pub(crate) fn action_lock(&self) -> &tokio::sync::Mutex<()> {
        &self.shared.action_lock
    }

    /// See `Shared::abandoning`.
    pub(crate) fn abandoning(&self) -> Arc<tokio::sync::Mutex<()>> {
        self.shared.abandoning.clone()
    }

    pub(crate) fn config(&self) -> PageConfig {
        *self.shared.config.lock().unwrap()
    }

    /// Time budget of [`Page::wait_ready`] (default 5 s).
    pub fn ready_timeout(&self) -> Duration {
        self.config().ready_timeout
    }

    /// Sets the time budget of [`Page::wait_ready`], which runs before every
    /// snapshot and after navigations and actions. Zero turns the wait off.
    pub fn set_ready_timeout(&self, budget: Duration) {
        self.shared.config.lock().unwrap().ready_timeout = budget;
    }

    /// What steps on this page wait for (default [`WaitUntil::Ready`]).
    pub fn wait_until(&self) -> WaitUntil {
        self.config().wait_until
    }

    /// Changes what steps on this page wait for.
    pub fn set_wait_until(&self, wait_until: WaitUntil) {
        self.shared.config.lock().unwrap().wait_until = wait_until;
    }

    /// When the current step began: its first input, or its navigation.
    pub(crate) fn step_started(&self) -> Instant {
        self.shared.step.lock().unwrap().started
    }

    /// Whether the step began at an input event (see `StepClock::from_input`).
    pub(crate) fn step_began_at_input(&self) -> bool {
        self.shared.step.lock().unwrap().from_input
    }

    /// A step begins now (a navigation): what the page does from here on is
    /// its doing (readiness waits for the requests and timers it starts).
    pub(crate) fn begin_step(&self) {
        // (A document the driver navigates to is no unseen one: its
        // requests are all known.)
        self.take_unseen_document();
        let seen = self.tracker().with(|s| (s.routes, s.commits));
        *self.shared.step.lock().unwrap() = StepClock::starting(seen, false);
    }

    /// An action begins: its step begins now, and again at its first input
    /// event if one comes (the wait for its element is not the page's reply).
    pub(crate) fn begin_action_step(&self) {
        let seen = self.tracker().with(|s| (s.routes, s.commits));
        *self.shared.step.lock().unwrap() = StepClock::starting(seen, true);
    }

    /// The step scrolled: the page's reply (its scroll listeners, its
    /// intersection observers, which load the next items of a feed) comes
    /// after the next frame, not in the next task.
    pub(crate) fn step_scrolled(&self) {
        self.shared.step.lock().unwrap().scrolled = true;
    }

    /// Whether a client-side app changed its route during the step (the
    /// history API, back, forward): the user is waiting for the next view,
    /// as under a loading indicator.
    pub(crate) fn routed_during_step(&self) -> bool {
        // In the document the step began in: a new document routing itself
        // as it starts (a router settling on its first URL) is no view the
        // user asked for, and its requests are the page load's.
        let (routes, commits) = {
            let step = self.shared.step.lock().unwrap();
            (step.routes, step.commits)
        };
        self.tracker().with(|s| s.commits == commits && s.routes > routes)
    }

    /// Whether the tab's document is one no wait has looked at yet (see
    /// `Shared::unseen_document`); from now on it has been.
    pub(crate) fn take_unseen_document(&self) -> bool {
        self.shared
            .unseen_document
            .swap(false, std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether the step scrolled since this was last asked.
    pub(crate) fn take_step_scrolled(&self) -> bool {
        std::mem::take(&mut self.shared.step.lock().unwrap().scrolled)
    }

    /// The page was waited for: the next input event begins a new step
    /// (keys sent on their own, outside an action, begin one too).
    pub(crate) fn next_input_begins_step(&self) {
        self.shared.step.lock().unwrap().awaiting_input = true;
    }

    /// An input event is about to be sent. Only a step's first begins it:
    /// a key's release, the next character or the next mouse move must not
    /// end the step that the press began, or the timers its handlers set
    /// would fall before the step and go unwaited.
    pub(crate) fn input_begins(&self) {
        let mut step = self.shared.step.lock().unwrap();
        if !step.preparing && std::mem::take(&mut step.awaiting_input) {
            step.started = Instant::now();
            step.from_input = true;
        }
    }

    /// Runs `input` as preparation when `preparing` (the mouse moving to
    /// what a click will press): it does not begin the step, so what the
    /// page does on the way (a tooltip's timer, a hover prefetch) and while
    /// the element is waited for is not the click's reply.
    pub(crate) async fn preparing_input<T>(&self, preparing: bool, input: impl std::future::Future<Output = T>) -> T {
        if !preparing {
            return input.await;
        }
        // Reset however the input ends (a cancelled action drops it).
        struct Prepared<'a>(&'a Mutex<StepClock>);
        impl Drop for Prepared<'_> {
            fn drop(&mut self) {
                self.0.lock().unwrap().preparing = false;
            }
        }
        self.shared.step.lock().unwrap().preparing = true;
        let _reset = Prepared(&self.shared.step);
        input.await
    }

    /// How long element actions retry transient failures (default 5 s).
    pub fn action_timeout(&self) -> Duration {
        self.config().action_timeout
    }

    /// Sets how long element actions wait for their element to become
    /// actionable (visible, stable, uncovered…).
    pub fn set_action_timeout(&self, timeout: Duration) {
        self.shared.config.lock().unwrap().action_timeout = timeout;
    }

    /// How long navigations wait for the load event (default 30 s).
    pub fn navigation_timeout(&self) -> Duration {
        self.config().navigation_timeout
    }

    /// Sets how long navigations wait for the load event.
    pub fn set_navigation_timeout(&self, timeout: Duration) {
        self.shared.config.lock().unwrap().navigation_timeout = timeout;
    }

    /// removeBlocker's policy on this tab (from `LaunchOptions::remove_blocker`).
    pub fn blocker_config(&self) -> RemoveBlockerConfig {
        self.shared.blockers.lock().unwrap().clone()
    }

    /// Changes removeBlocker's policy on this tab.
    pub fn set_blocker_config(&self, config: RemoveBlockerConfig) {
        *self.shared.blockers.lock().unwrap() = config;
    }

    /// Whether the tab's renderer has crashed (until a navigation gives it a new one).
    pub fn is_crashed(&self) -> bool {
        *self.shared.crashed.borrow()
    }

    /// Marks the renderer as alive again (a navigation gives a crashed tab a new one).
    pub(crate) fn clear_crashed(&self) {
        self.shared.crashed.send_replace(false);
    }

    /// Whether the tab was closed (it cannot be used again).
    pub fn is_closed(&self) -> bool {
        *self.shared.closed.borrow()
    }

    /// Whether the tab is closed, or closes within `limit`: a tab closing
    /// drops its DevTools channel, and a command may fail on that (as if
    /// the browser were gone) a moment before the close is told.
    pub(crate) async fn closes_within(&self, limit: std::time::Duration) -> bool {
        let mut closed = self.shared.closed.subscribe();
        tokio::time::timeout(limit, closed.wait_for(|c| *c))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Runs `fut` unless the renderer crashes or the tab closes first.
    pub(crate) async fn unless_crashed<T>(&self, fut: impl Future<Output = T>) -> Result<T> {
        let mut crashed = self.shared.crashed.subscribe();
        let mut closed = self.shared.closed.subscribe();
        tokio::select! {
            v = fut => Ok(v),
            _ = crashed.wait_for(|c| *c) => Err(Error::PageCrashed),
            _ = closed.wait_for(|c| *c) => Err(Error::TabClosed),
        }
    }

    /// Gives up on a navigation that timed out: stops it. Sent through
    /// chromiumoxide, it is also watched there (later navigations queue
    /// behind it) until its own 30 s deadline; committing a blank document
    /// ends that watch at once.
    pub(crate) async fn abandon_navigation(&self) {
        let _ = self.inner.execute(StopLoadingParams::default()).await;
        if self.side_channel().is_some_and(|s| s.is_usable()) {
            self.forget_contexts();
            return;
        }
        let blank = async {
            let main = self.main_frame_id().await?;
            let ctx = self.world_context(&main).await?;
            self.evaluate_in(&main, ctx, "location.replace('about:blank')", false)
                .await
        };
        match tokio::time::timeout(Duration::from_secs(2), blank).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::debug!("abandon navigation: {e}"),
            Err(_) => tracing::debug!("abandon navigation: timed out"),
        }
        self.forget_contexts();
    }

    /// Makes this the tab the browser shows. A tab that a popup or a newer
    /// tab covered is hidden: it renders no frames, so scrolling, hit tests,
    /// trusted input and screenshots stall on it until it is shown again.
    pub async fn bring_to_front(&self) -> Result<()> {
        self.inner
            .bring_to_front()
            .await
            .map(|_| ())
            .map_err(|e| Error::cdp("Page.bringToFront", e))
    }

    /// Brings the tab to the front if it is hidden (one round trip when it
    /// is not).
    pub(crate) async fn show_if_hidden(&self) -> Result<()> {
        let main = self.main_frame_id().await?;
        let hidden = self
            .engine_eval(&main, "document.visibilityState === 'hidden'", false)
            .await?;
        if hidden.as_bool() == Some(true) {
            self.bring_to_front().await?;
        }
        Ok(())
    }

    /// The URL and title the browser lists for this tab: no question to
    /// the page, so it works when the page does not answer.
    pub async fn listed(&self) -> (String, String) {
        let info = raw_cdp::on_page(&self.inner, "Target.getTargetInfo", serde_json::json!({}));
        match tokio::time::timeout(Duration::from_secs(2), info).await {
            Ok(Ok(v)) => (
                v["targetInfo"]["url"].as_str().unwrap_or_default().to_string(),
                v["targetInfo"]["title"].as_str().unwrap_or_default().to_string(),
            ),
            _ => (self.inner.url().await.ok().flatten().unwrap_or_default(), String::new()),
        }
    }

    /// Closes the tab.
    pub async fn close(self) -> Result<()> {
        self.inner
            .clone()
            .close()
            .await
            .map_err(|e| Error::cdp("Page.close", e))
    }
}
