//! The page's event follower: a [`Tracker`] task per page follows the page's
//! DevTools events (Network and Page domains, which chromiumoxide enables on
//! every page session): in-flight requests, main-frame loading and commits,
//! document responses (for [`NavigationResponse`](super::navigation::NavigationResponse)
//! status codes), and which frames got a new document (their cached engine
//! contexts are dropped). Settling reads what it knows.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::network::{
    EventDataReceived, EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, EventResponseReceived,
    ResourceType,
};
use chromiumoxide::cdp::browser_protocol::page::{
    ClientNavigationDisposition, EventDomContentEventFired, EventFrameDetached, EventFrameNavigated,
    EventFrameRequestedNavigation, EventFrameStartedLoading, EventFrameStoppedLoading, EventNavigatedWithinDocument,
    NavigatedWithinDocumentNavigationType,
};
use futures::stream::{BoxStream, StreamExt};
use futures::FutureExt;
use tokio::sync::{mpsc, oneshot, watch};

use super::state::PageState;
use crate::error::{Error, Result};

/// `networkidle` readiness: how long the network must stay quiet.
pub const QUIET_WINDOW: Duration = Duration::from_millis(500);
/// `networkidle` readiness: requests running longer than this (long polls,
/// streams) don't hold up the wait.
pub const MAX_REQUEST_AGE: Duration = Duration::from_secs(2);

/// The response that committed a main-frame document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocumentResponse {
    pub url: String,
    pub status: u16,
    pub status_text: String,
}

struct Request {
    started: Instant,
    /// WebSocket / EventSource: never counted, in any readiness mode.
    ignored: bool,
    /// What the page's content may be waiting on (`ready` readiness).
    role: RequestRole,
    /// When its response headers arrived, when they say a stream comes
    /// (server-sent events, NDJSON): a body still coming after that is the
    /// page's live feed. Other slow bodies (a big JSON, a framework's
    /// streamed route payload) are content.
    stream_since: Option<Instant>,
    /// When the latest piece of its body arrived.
    last_data: Option<Instant>,
    /// It sends something (a POST, a PUT): a question whose answer may
    /// stream back, not a feed (feeds are GETs).
    sends: bool,
    /// The URL, for saying what a step still waits on.
    url: String,
    /// The endpoint of a content data request, followed for polling
    /// (see `polls.rs`).
    endpoint: Option<String>,
}

/// A main-frame document load that failed.
struct DocumentFailure {
    /// Its place among the tab's failed loads (0 first).
    seq: usize,
    url: String,
    /// Chromium's error text (`net::ERR_NAME_NOT_RESOLVED`).
    error: String,
}

/// What a request means for readiness (`ready`; the rules are in readiness.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RequestRole {
    /// Nothing the page's content waits on: subframes' own loading, images,
    /// media, fonts, beacons and pings, WebSocket and EventSource, another
    /// site's requests, push channels (long polls, streams by their names).
    Background,
    /// A script or stylesheet of the page's own site (or of a consent
    /// manager): content may be waiting on it while it is young.
    Code,
    /// A fetch or XHR of the page's own site: data content may be waiting on.
    Data,
    /// A fetch or XHR of another site (an API on a domain of its own, a
    /// search service; or an analytics call): content waits on it only
    /// while the page shows a loading indicator, or the step changed its
    /// route.
    Elsewhere,
}

/// A request that `ready` readiness still waits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingRequest {
    pub url: String,
    pub started: Instant,
    pub role: RequestRole,
}

/// A navigation the main frame's renderer asked for.
#[derive(Debug, Clone, Copy)]
struct Requested {
    at: Instant,
    /// It came in one burst with its load's start (see [`apply_burst`]):
    /// that load's end ends it too (a download, a 204 answer, a navigation
    /// the page cancelled commit nothing).
    load_started: bool,
}

/// What the tracker knows; read under a short lock.
pub(crate) struct NetState {
    main_frame: String,
    inflight: HashMap<String, Request>,
    /// When the last counted request finished (or the tracker started).
    last_finished: Instant,
    /// Between `frameStartedLoading` and DOMContentLoaded / `frameStoppedLoading` of the main frame.
    pub main_loading: bool,
    /// A navigation the main frame's renderer scheduled that has not started yet.
    requested: Option<Requested>,
    /// Main-frame document commits so far.
    pub commits: u64,
    /// Main-frame same-document navigations (history API, fragments) so far.
    pub same_document: u64,
    /// Those of them that are a client-side app's route changes: the
    /// history API, back and forward, to another URL (not a jump to a
    /// fragment, nor a router's `replaceState` of the URL it is at).
    pub routes: u64,
    /// The main frame's URL after its last same-document navigation (None:
    /// none since the last commit).
    routed_url: Option<String>,
    /// Main-frame loads started so far (navigations requested, whether they commit or not).
    pub loads_started: u64,
    /// Main-frame document responses by loader id (the last few).
    documents: Vec<(String, DocumentResponse)>,
    /// Main-frame document responses so far.
    pub responses: u64,
    /// Navigations of the main frame its page asked for so far (a link, a
    /// script, a meta refresh).
    pub page_requests: u64,
    /// Main-frame document requests in flight: request id → loader id.
    document_requests: HashMap<String, String>,
    /// Main-frame document loads that failed, the last few.
    document_failures: Vec<DocumentFailure>,
    /// Main-frame document loads that failed so far.
    failed_loads: usize,
    /// Loader of the main frame's current document.
    pub last_loader: Option<String>,
    /// URL of the main frame's current document, as committed.
    committed_url: Option<String>,
    /// [`NetState::page_requests`] when each of the last few main-frame
    /// documents committed, by loader.
    requests_at_commit: Vec<(String, u64)>,
    /// Child frames that started loading a document and have not stopped:
    /// marked `[loading]` in snapshots.
    loading_frames: HashMap<String, Instant>,
    /// When the latest request the content may wait on (Code, Data) ended.
    pub content_finished: Option<Instant>,
    /// When the main frame's latest document fired DOMContentLoaded.
    pub dom_ready_at: Option<Instant>,
    /// The endpoints the current document polls.
    polls: super::polls::Polls,
    /// When the driver last sent the page input.
    last_input: Option<Instant>,
}

impl NetState {
    fn new(main_frame: String) -> Self {
        NetState {
            main_frame,
            inflight: HashMap::new(),
            last_finished: Instant::now().checked_sub(QUIET_WINDOW).unwrap_or_else(Instant::now),
            main_loading: false,
            requested: None,
            commits: 0,
            same_document: 0,
            routes: 0,
            routed_url: None,
            loads_started: 0,
            documents: Vec::new(),
            responses: 0,
            page_requests: 0,
            document_requests: HashMap::new(),
            document_failures: Vec::new(),
            failed_loads: 0,
            last_loader: None,
            committed_url: None,
            requests_at_commit: Vec::new(),
            loading_frames: HashMap::new(),
            content_finished: None,
            dom_ready_at: None,
            polls: Default::default(),
            last_input: None,
        }
    }

    /// The driver sends the page input now (its requests are not polling).
    pub fn note_input(&mut self) {
        self.last_input = Some(Instant::now());
    }

    /// When the latest piece of a body arrived for a request that sends
    /// something (a POST: a question, not a feed), started since `step` and
    /// still running (Data, or another site's fetch; a stream's type
    /// included): a reply streaming in.
    pub(crate) fn step_data_at(&self, step: Instant) -> Option<Instant> {
        self.inflight
            .values()
            .filter(|r| r.role != RequestRole::Background && !r.ignored && r.sends && r.started >= step)
            .filter_map(|r| r.last_data)
            .max()
    }

    /// Requests the page's content may still be waiting on, oldest first
    /// (`ready` readiness): Code and Data requests still running, except
    /// GETs whose response began streaming (a stream's type) more than
    /// `stream_grace` ago.
    pub(crate) fn content_requests(&self, now: Instant, stream_grace: Duration) -> Vec<PendingRequest> {
        let mut out: Vec<PendingRequest> = self
            .inflight
            .values()
            .filter(|r| r.role != RequestRole::Background)
            // (A stream's type on a question sent, a POST, is its answer
            // on its way: content while it is young, as any other.)
            .filter(|r| r.sends || r.stream_since.is_none_or(|at| now < at + stream_grace))
            .map(|r| PendingRequest {
                url: r.url.clone(),
                started: r.started,
                role: r.role,
            })
            .collect();
        out.sort_by_key(|r| r.started);
        out
    }

    /// Whether a child frame is still loading its document.
    pub(crate) fn frame_loading(&self, frame_id: &str) -> bool {
        self.loading_frames.contains_key(frame_id)
    }

    /// `None` when the network is quiet at `now`; otherwise the earliest
    /// time it could be.
    pub(super) fn quiet_at(&self, now: Instant) -> Option<Instant> {
        let mut busy_until = self.last_finished;
        let mut active = false;
        for r in self.inflight.values().filter(|r| !r.ignored) {
            let aged = r.started + MAX_REQUEST_AGE;
            if aged > now {
                active = true;
                busy_until = busy_until.max(aged);
            } else {
                // A long request stops counting once it is old.
                busy_until = busy_until.max(aged);
            }
        }
        let quiet_from = busy_until + QUIET_WINDOW;
        if !active && quiet_from <= now {
            None
        } else {
            Some(quiet_from.max(now + Duration::from_millis(1)))
        }
    }

    /// A main-frame navigation is on its way (scheduled or loading, before DOMContentLoaded).
    pub fn navigating(&self, now: Instant) -> bool {
        self.main_loading || self.requested.is_some_and(|r| now < r.at + Duration::from_secs(1))
    }

    /// Requests that still count.
    pub fn active_requests(&self, now: Instant) -> usize {
        self.inflight
            .values()
            .filter(|r| !r.ignored && r.started + MAX_REQUEST_AGE > now)
            .count()
    }

    /// Main-frame document loads that failed so far (a mark for [`NetState::failure_since`]).
    pub fn failures(&self) -> usize {
        self.failed_loads
    }

    /// Chromium's error text of the latest main-frame document failure, if
    /// any came after `failures_before` of them.
    pub fn failure_since(&self, failures_before: usize) -> Option<String> {
        self.document_failures
            .last()
            .filter(|f| f.seq >= failures_before)
            .map(|f| f.error.clone())
    }

    fn note_failed_load(&mut self, url: String, error: String) {
        let seq = self.failed_loads;
        self.failed_loads += 1;
        self.document_failures.push(DocumentFailure { seq, url, error });
        if self.document_failures.len() > 16 {
            self.document_failures.remove(0);
        }
    }

    /// The latest main-frame document failure: (its URL, Chromium's error text).
    pub fn last_failure(&self) -> Option<(String, String)> {
        self.document_failures.last().map(|f| (f.url.clone(), f.error.clone()))
    }

    /// The response of the main frame's committed document, when it had
    /// one (not a page restored from memory).
    pub fn current_document(&self) -> Option<DocumentResponse> {
        self.document(self.last_loader.as_deref()?)
    }

    /// [`NetState::page_requests`] when `loader`'s document committed.
    pub fn requests_at_commit(&self, loader: &str) -> Option<u64> {
        self.requests_at_commit
            .iter()
            .rev()
            .find(|(l, _)| l == loader)
            .map(|(_, n)| *n)
    }

    /// The URL of the main frame's current document, as last committed.
    pub fn committed_url(&self) -> Option<String> {
        self.committed_url.clone()
    }

    pub fn document(&self, loader_id: &str) -> Option<DocumentResponse> {
        self.documents
            .iter()
            .rev()
            .find(|(l, _)| l == loader_id)
            .map(|(_, d)| d.clone())
    }
}

enum Event {
    Request(Arc<EventRequestWillBeSent>),
    Finished(Arc<EventLoadingFinished>),
    Failed(Arc<EventLoadingFailed>),
    Response(Arc<EventResponseReceived>),
    Data(Arc<EventDataReceived>),
    StartedLoading(Arc<EventFrameStartedLoading>),
    StoppedLoading(Arc<EventFrameStoppedLoading>),
    Navigated(Arc<EventFrameNavigated>),
    Requested(Arc<EventFrameRequestedNavigation>),
    SameDocument(Arc<EventNavigatedWithinDocument>),
    DomContentLoaded,
    Detached(Arc<EventFrameDetached>),
}

/// Follows one page's events; see the module docs.
pub(crate) struct Tracker {
    pub state: Arc<Mutex<NetState>>,
    /// Bumped on every event that changes [`NetState`].
    changed: watch::Receiver<u64>,
    sync: mpsc::UnboundedSender<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Tracker {
    fn drop(&mut self) {
        self.task.abort();
    }
}

macro_rules! listen {
    ($page:expr, $ty:ty, $variant:expr) => {
        $page
            .event_listener::<$ty>()
            .await
            .map_err(|e| Error::cdp(<$ty>::IDENTIFIER, e))?
            .map($variant)
            .boxed()
    };
}

impl Tracker {
    /// Subscribes to the page's events and starts following them.
    pub async fn start(page: &chromiumoxide::Page, page_state: Arc<Mutex<PageState>>) -> Result<Tracker> {
        let streams: Vec<BoxStream<'static, Event>> = vec![
            listen!(page, EventRequestWillBeSent, Event::Request),
            listen!(page, EventLoadingFinished, Event::Finished),
            listen!(page, EventLoadingFailed, Event::Failed),
            listen!(page, EventResponseReceived, Event::Response),
            listen!(page, EventDataReceived, Event::Data),
            listen!(page, EventFrameStartedLoading, Event::StartedLoading),
            listen!(page, EventFrameStoppedLoading, Event::StoppedLoading),
            listen!(page, EventFrameNavigated, Event::Navigated),
            listen!(page, EventFrameRequestedNavigation, Event::Requested),
            listen!(page, EventNavigatedWithinDocument, Event::SameDocument),
            listen!(page, EventDomContentEventFired, |_| Event::DomContentLoaded),
            listen!(page, EventFrameDetached, Event::Detached),
        ];
        // The main frame as chromiumoxide read it from the frame tree when
        // it attached. (Chromium gives a tab's main frame the target's id,
        // but the extension bridge names its targets `tab-<id>`: taken for
        // the frame, no navigation of the tab would ever be seen.)
        let main_frame = match page.mainframe().await {
            Ok(Some(frame)) => frame.inner().clone(),
            _ => page.target_id().inner().clone(),
        };
        let state = Arc::new(Mutex::new(NetState::new(main_frame)));
        let (changed_tx, changed) = watch::channel(0u64);
        let (sync, mut sync_rx) = mpsc::unbounded_channel::<oneshot::Sender<()>>();
        let shared = state.clone();
        let task = tokio::spawn(async move {
            let mut events = futures::stream::select_all(streams);
            loop {
                // Events first: a sync request is answered only once every
                // event that arrived before it has been applied.
                tokio::select! {
                    biased;
                    ev = events.next() => match ev {
                        Some(first) => {
                            // The rest of its burst: chromiumoxide hands the
                            // events it read at once over a channel per kind
                            // before this task runs.
                            tokio::task::yield_now().await;
                            let mut burst = vec![first];
                            while let Some(Some(ev)) = events.next().now_or_never() {
                                burst.push(ev);
                            }
                            // (A body's pieces wake no waiter: only a step
                            // waiting on a reply streaming in reads them.)
                            let only_data = burst.iter().all(|e| matches!(e, Event::Data(_)));
                            apply_burst(&shared, &page_state, burst);
                            if !only_data {
                                changed_tx.send_modify(|n| *n += 1);
                            }
                        }
                        None => break,
                    },
                    req = sync_rx.recv() => match req {
                        Some(tx) => { let _ = tx.send(()); }
                        None => break,
                    },
                }
            }
        });
        Ok(Tracker {
            state,
            changed,
            sync,
            task,
        })
    }

    /// Returns once every event already received from the browser is applied.
    pub async fn sync(&self) {
        let (tx, rx) = oneshot::channel();
        if self.sync.send(tx).is_ok() {
            let _ = tokio::time::timeout(Duration::from_secs(1), rx).await;
        }
    }

    /// Waits for the next change, at most until `until`.
    pub async fn changed_or(&self, until: Instant) {
        let mut rx = self.changed.clone();
        rx.borrow_and_update();
        let _ = tokio::time::timeout_at(until.into(), rx.changed()).await;
    }

    pub fn with<T>(&self, f: impl FnOnce(&NetState) -> T) -> T {
        f(&self.state.lock().unwrap())
    }
}

impl Event {
    /// Where the event falls in one navigation as Chromium sends it
    /// (`frameRequestedNavigation`, `frameStartedLoading`,
    /// `requestWillBeSent`, …, `frameNavigated`, `domContentEventFired`,
    /// `frameStoppedLoading`), except that a request to navigate goes
    /// last: it also stands for the next navigation when one burst ends a
    /// document and starts the next, and a request whose load has started
    /// stays in place only until that load commits or ends.
    fn rank_in_burst(&self) -> u8 {
        match self {
            Event::StartedLoading(_) => 0,
            Event::Request(_) => 1,
            Event::Response(_) | Event::SameDocument(_) | Event::Data(_) => 2,
            Event::Navigated(_) => 3,
            Event::DomContentLoaded => 4,
            Event::Finished(_) | Event::Failed(_) => 5,
            Event::StoppedLoading(_) => 6,
            Event::Detached(_) => 7,
            Event::Requested(_) => 8,
        }
    }
}

/// Applies events that arrived together. Chromium sends a page's events in
/// order, but chromiumoxide gives each kind its own channel and flushes
/// the events of one read kind by kind, in its hash map's order: a
/// same-document navigation's `frameStoppedLoading` could come before its
/// `frameStartedLoading` (the frame would count as loading until the next
/// document), a form's `frameRequestedNavigation` after its
/// `frameStartedLoading` (the tab would count as navigating for a second
/// after the new document was parsed). Within a burst, events go in the
/// order one navigation emits them.
fn apply_burst(shared: &Mutex<NetState>, page_state: &Mutex<PageState>, mut burst: Vec<Event>) {
    burst.sort_by_key(Event::rank_in_burst);
    let main = shared.lock().unwrap().main_frame.clone();
    let main_load_started = burst
        .iter()
        .any(|e| matches!(e, Event::StartedLoading(s) if s.frame_id.inner() == &main));
    for ev in burst {
        apply(shared, page_state, ev);
    }
    // Chromium sends a navigation's request just before its load starts:
    // one still set after a burst that started the load (which clears it)
    // was applied after that start, and is that load's.
    if main_load_started {
        if let Some(r) = &mut shared.lock().unwrap().requested {
            r.load_started = true;
        }
    }
}

fn apply(shared: &Mutex<NetState>, page_state: &Mutex<PageState>, ev: Event) {
    let now = Instant::now();
    let mut st = shared.lock().unwrap();
    match ev {
        Event::Request(e) => {
            let ignored = matches!(e.r#type, Some(ResourceType::WebSocket | ResourceType::EventSource));
            let main = e
                .frame_id
                .as_ref()
                .map(|f| f.inner() == &st.main_frame)
                .unwrap_or(false);
            if main && e.r#type == Some(ResourceType::Document) {
                st.document_requests
                    .insert(e.request_id.inner().clone(), e.loader_id.inner().clone());
            }
            // A frame of the page's own site (a checkout's payment form, an
            // app's panel) is part of the page: its scripts and fetches
            // count as the main frame's. Another site's frames (ads, video,
            // widgets) never hold a step.
            let own_site_frame = !main
                && e.frame_id.is_some()
                && st
                    .committed_url
                    .as_deref()
                    .is_some_and(|top| same_site(top, &e.document_url));
            let mut role = if main || own_site_frame {
                request_role(e.r#type.as_ref(), &e.request.method, &e.request.url, &e.document_url)
            } else {
                RequestRole::Background
            };
            // A redirect reuses the request id: the request goes on.
            if !st.inflight.contains_key(e.request_id.inner()) {
                let endpoint = matches!(role, RequestRole::Data | RequestRole::Elsewhere)
                    .then(|| super::polls::endpoint(&e.request.method, &e.request.url))
                    .flatten();
                if let Some(endpoint) = &endpoint {
                    let last_input = st.last_input;
                    if st.polls.started(endpoint, now, last_input) {
                        role = RequestRole::Background;
                    }
                }
                st.inflight.insert(
                    e.request_id.inner().clone(),
                    Request {
                        started: now,
                        ignored,
                        role,
                        stream_since: None,
                        last_data: None,
                        sends: !["GET", "HEAD"].iter().any(|m| e.request.method.eq_ignore_ascii_case(m)),
                        url: e.request.url.chars().take(200).collect(),
                        endpoint,
                    },
                );
            }
        }
        Event::Finished(e) => {
            st.document_requests.remove(e.request_id.inner());
            finish(&mut st, e.request_id.inner(), now)
        }
        Event::Failed(e) => {
            if st.document_requests.remove(e.request_id.inner()).is_some() && e.canceled != Some(true) {
                let url = st
                    .inflight
                    .get(e.request_id.inner())
                    .map(|r| r.url.clone())
                    .unwrap_or_default();
                st.note_failed_load(url, e.error_text.clone());
            }
            finish(&mut st, e.request_id.inner(), now)
        }
        Event::Data(e) => {
            if let Some(r) = st.inflight.get_mut(e.request_id.inner()) {
                r.last_data = Some(now);
            }
        }
        Event::Response(e) => {
            if let Some(r) = st.inflight.get_mut(e.request_id.inner()) {
                if is_stream_type(&e.response.mime_type) {
                    r.stream_since = Some(now);
                }
            }
            let main = e
                .frame_id
                .as_ref()
                .map(|f| f.inner() == &st.main_frame)
                .unwrap_or(false);
            if main && e.r#type == ResourceType::Document {
                let doc = DocumentResponse {
                    url: e.response.url.clone(),
                    status: u16::try_from(e.response.status).unwrap_or(0),
                    status_text: e.response.status_text.clone(),
                };
                st.documents.push((e.loader_id.inner().clone(), doc));
                st.responses += 1;
                if st.documents.len() > 16 {
                    st.documents.remove(0);
                }
            }
        }
        Event::Requested(e) => {
            // Links to new tabs and downloads don't navigate this tab.
            if e.frame_id.inner() == &st.main_frame && e.disposition == ClientNavigationDisposition::CurrentTab {
                st.requested = Some(Requested {
                    at: now,
                    load_started: false,
                });
                st.page_requests += 1;
            }
        }
        Event::StartedLoading(e) => {
            if e.frame_id.inner() == &st.main_frame {
                st.main_loading = true;
                st.requested = None;
                st.loads_started += 1;
            } else {
                st.loading_frames.insert(e.frame_id.inner().clone(), now);
            }
        }
        Event::StoppedLoading(e) => {
            if e.frame_id.inner() == &st.main_frame {
                st.main_loading = false;
                if st.requested.is_some_and(|r| r.load_started) {
                    st.requested = None;
                }
            } else {
                st.loading_frames.remove(e.frame_id.inner());
            }
        }
        Event::DomContentLoaded => {
            st.main_loading = false;
            st.dom_ready_at = Some(now);
        }
        Event::Navigated(e) => {
            let frame = e.frame.id.inner().clone();
            if frame == st.main_frame {
                st.commits += 1;
                st.polls.forget();
                st.last_loader = Some(e.frame.loader_id.inner().clone());
                st.committed_url = Some(e.frame.url.clone());
                st.routed_url = None;
                let at = st.page_requests;
                st.requests_at_commit.push((e.frame.loader_id.inner().clone(), at));
                if st.requests_at_commit.len() > 16 {
                    st.requests_at_commit.remove(0);
                }
                // Whatever was requested before the commit is this document or gone.
                st.requested = None;
            }
            drop(st);
            // A new document: its engine world is a new context.
            page_state.lock().unwrap().forget_frame_contexts(&frame);
        }
        Event::SameDocument(e) => {
            if e.frame_id.inner() == &st.main_frame {
                st.same_document += 1;
                let was = st.routed_url.clone().or_else(|| st.committed_url.clone());
                // A hash router's view (`#/reports`, `#!/reports`) is a route;
                // a jump to an anchor (`#comments`), or a dummy link's `#/`,
                // is not.
                let hash_route = e.url.split_once('#').is_some_and(|(_, f)| {
                    let view = f.strip_prefix('!').unwrap_or(f);
                    view.starts_with('/') && view.len() > 1
                });
                let routed = e.navigation_type != NavigatedWithinDocumentNavigationType::Fragment || hash_route;
                if routed && was.as_ref() != Some(&e.url) {
                    st.routes += 1;
                }
                st.routed_url = Some(e.url.clone());
                st.requested = None;
            }
        }
        Event::Detached(e) => {
            let frame = e.frame_id.inner().clone();
            st.loading_frames.remove(&frame);
            drop(st);
            page_state.lock().unwrap().forget_frame_contexts(&frame);
        }
    }
}

fn finish(st: &mut NetState, id: &str, now: Instant) {
    if let Some(r) = st.inflight.remove(id) {
        if let Some(endpoint) = &r.endpoint {
            st.polls.ended(endpoint, now);
        }
        if !r.ignored {
            st.last_finished = st.last_finished.max(now);
        }
        if r.role != RequestRole::Background {
            st.content_finished = Some(now);
        }
    }
}

/// Hosts of consent managers: their scripts bring the dialogs a page opens
/// after it loads, so they count although they are another site's.
const CONSENT_HOSTS: &[&str] = &[
    "cookielaw.org",
    "onetrust.com",
    "cookiebot.com",
    "consensu.org",
    "didomi.io",
    "privacy-center.org",
    "privacy-mgmt.com",
    "usercentrics.eu",
    "trustarc.com",
    "quantcast.com",
    "consentmanager.net",
    "iubenda.com",
    "cookieyes.com",
    "osano.com",
    "termly.io",
];

/// Response types that are feeds, not documents: a body that keeps coming.
fn is_stream_type(mime: &str) -> bool {
    let mime = mime.trim().to_ascii_lowercase();
    [
        "text/event-stream",
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/json-seq",
        "application/stream+json",
        "multipart/x-mixed-replace",
        "application/grpc-web",
    ]
    .iter()
    .any(|t| mime.starts_with(t))
}

/// Words that name push channels in request URLs (socket.io's
/// `transport=polling`, `/longpoll`, `/comet`, `/subscribe`, `/stream`):
/// a request to one is held open by design, waiting for news, not content.
/// Whole words of the path and query only (`/api/polls/vote` and
/// `/upstream-sync` are content), and only in a GET: a POST to
/// `/api/subscribe` is a form being sent.
const PUSH_CHANNEL_WORDS: &[&str] = &["poll", "comet", "subscribe", "stream", "streaming"];
/// Words that name a long poll whatever its method (CometD's and
/// socket.io's are POSTs too).
const LONG_POLL_WORDS: &[&str] = &["cometd", "longpoll", "longpolling", "polling"];

/// What a main-frame request of `kind` to `url`, made by the document at
/// `document_url`, means for readiness.
pub(crate) fn request_role(kind: Option<&ResourceType>, method: &str, url: &str, document_url: &str) -> RequestRole {
    let role = match kind {
        Some(ResourceType::Script | ResourceType::Stylesheet) => RequestRole::Code,
        Some(ResourceType::Fetch | ResourceType::Xhr) => RequestRole::Data,
        _ => return RequestRole::Background,
    };
    let host = host_of(url);
    let consent = CONSENT_HOSTS
        .iter()
        .any(|h| host == *h || host.ends_with(&format!(".{h}")));
    if consent && role == RequestRole::Code {
        return role;
    }
    // A push channel is background wherever it is (another site's
    // socket.io, a Firestore channel).
    if role == RequestRole::Data {
        let get = method.eq_ignore_ascii_case("GET");
        let rest = url.split_once(host).map_or(url, |(_, r)| r).to_ascii_lowercase();
        let mut words = rest.split(|c: char| !c.is_ascii_alphanumeric());
        if words.any(|w| LONG_POLL_WORDS.contains(&w) || (get && PUSH_CHANNEL_WORDS.contains(&w))) {
            return RequestRole::Background;
        }
    }
    if site_of(host) != site_of(host_of(document_url)) && !document_url.is_empty() {
        return if role == RequestRole::Data && !is_analytics(host) {
            RequestRole::Elsewhere
        } else {
            RequestRole::Background
        };
    }
    role
}

/// Whether two documents' addresses are of one site (registrable domain).
fn same_site(a: &str, b: &str) -> bool {
    let (a, b) = (host_of(a), host_of(b));
    !a.is_empty() && site_of(a) == site_of(b)
}

/// Hosts that only collect (analytics, tag managers): never content.
const ANALYTICS_HOSTS: &[&str] = &[
    "google-analytics.com",
    "analytics.google.com",
    "googletagmanager.com",
    "doubleclick.net",
    "segment.io",
    "segment.com",
    "mixpanel.com",
    "amplitude.com",
    "hotjar.com",
    "sentry.io",
    "newrelic.com",
    "nr-data.net",
    "facebook.com",
    "clarity.ms",
    "posthog.com",
    "plausible.io",
    "datadoghq.com",
    "datadoghq.eu",
    "fullstory.com",
    "heapanalytics.com",
    "intercom.io",
    "bing.com",
    "launchdarkly.com",
    "optimizely.com",
    "braze.com",
    "rudderstack.com",
];

fn is_analytics(host: &str) -> bool {
    ANALYTICS_HOSTS
        .iter()
        .any(|h| host == *h || host.ends_with(&format!(".{h}")))
}

/// The host of a URL (`a.example.com`), or "" when it has none.
fn host_of(url: &str) -> &str {
    let Some((_, rest)) = url.split_once("://") else {
        return "";
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit('@').next().unwrap_or("");
    if let Some(v6) = host_port.strip_prefix('[') {
        return v6.split(']').next().unwrap_or("");
    }
    host_port.split(':').next().unwrap_or("")
}

/// The site of a host, roughly its registrable domain: the last two labels,
/// or three when the second-last is a short public suffix part (`co.uk`,
/// `com.au`); an IP address or a one-label name is its own site.
fn site_of(host: &str) -> &str {
    if host.parse::<std::net::IpAddr>().is_ok() || !host.contains('.') {
        return host;
    }
    let labels: Vec<&str> = host.rsplitn(4, '.').collect();
    let keep = if labels.len() >= 3 && labels[1].len() <= 3 && labels[0].len() == 2 {
        3
    } else {
        2
    };
    let cut: usize = labels.iter().take(keep).map(|l| l.len() + 1).sum::<usize>() - 1;
    &host[host.len().saturating_sub(cut)..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st() -> NetState {
        NetState::new("main".into())
    }

    fn request(started: Instant, ignored: bool) -> Request {
        Request {
            started,
            ignored,
            role: RequestRole::Data,
            stream_since: None,
            last_data: None,
            sends: false,
            url: "http://a.test/api".into(),
            endpoint: None,
        }
    }

    /// A main-frame event of the kind `method`, as Chromium sends it.
    fn event(method: &str) -> Event {
        fn de<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Arc<T> {
            Arc::new(serde_json::from_value(v).expect("a well-formed event"))
        }
        let frame = serde_json::json!({"frameId": "main"});
        match method {
            "requested" => Event::Requested(de(serde_json::json!({
                "frameId": "main", "reason": "formSubmissionGet",
                "url": "http://a.test/placed", "disposition": "currentTab"
            }))),
            "started" => Event::StartedLoading(de(frame)),
            "stopped" => Event::StoppedLoading(de(frame)),
            "same" => Event::SameDocument(de(serde_json::json!({
                "frameId": "main", "url": "http://a.test/#x", "navigationType": "fragment"
            }))),
            "navigated" => Event::Navigated(de(serde_json::json!({
                "frame": {
                    "id": "main", "loaderId": "L2", "url": "http://a.test/placed",
                    "domainAndRegistry": "a.test", "securityOrigin": "http://a.test",
                    "mimeType": "text/html", "secureContextType": "InsecureScheme",
                    "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []
                },
                "type": "Navigation"
            }))),
            "dcl" => Event::DomContentLoaded,
            other => panic!("no such event {other}"),
        }
    }

    /// Every order of `names`.
    fn orders(names: &[&'static str]) -> Vec<Vec<&'static str>> {
        if names.len() <= 1 {
            return vec![names.to_vec()];
        }
        let mut all = Vec::new();
        for i in 0..names.len() {
            let mut rest = names.to_vec();
            let first = rest.remove(i);
            for mut tail in orders(&rest) {
                tail.insert(0, first);
                all.push(tail);
            }
        }
        all
    }

    /// A tab's failed loads are told apart however many came before (only
    /// the last few are kept).
    #[test]
    fn a_failed_load_is_found_after_many() {
        let mut s = st();
        for i in 0..40 {
            let before = s.failures();
            assert_eq!(s.failure_since(before), None);
            s.note_failed_load(format!("http://a.test/{i}"), "net::ERR_FAILED".into());
            assert_eq!(
                s.failure_since(before).as_deref(),
                Some("net::ERR_FAILED"),
                "failure {i}"
            );
            assert_eq!(s.last_failure().unwrap().0, format!("http://a.test/{i}"));
        }
    }

    /// chromiumoxide hands over a burst's events kind by kind in any
    /// order: each comes out as the one navigation Chromium sent.
    #[test]
    fn a_burst_is_applied_in_the_order_chromium_sent_it() {
        let page_state = Mutex::new(PageState::default());
        let run = |bursts: &[Vec<&str>]| {
            let shared = Mutex::new(st());
            for b in bursts {
                apply_burst(&shared, &page_state, b.iter().map(|m| event(m)).collect());
            }
            let now = Instant::now();
            let st = shared.lock().unwrap();
            st.navigating(now)
        };
        for order in orders(&["started", "same", "stopped"]) {
            assert!(!run(std::slice::from_ref(&order)), "a fragment link, sent as {order:?}");
        }
        for order in orders(&["requested", "started"]) {
            assert!(
                run(std::slice::from_ref(&order)),
                "a form submission, sent as {order:?}"
            );
            assert!(
                !run(&[order.clone(), vec!["navigated"], vec!["dcl"]]),
                "its document parsed, the submission sent as {order:?}"
            );
            assert!(
                !run(&[order.clone(), vec!["navigated", "dcl"]]),
                "committed and parsed at once, the submission sent as {order:?}"
            );
        }
        // A page that navigates as it finishes loading: the next one is on its way,
        // and stays so until it commits.
        for order in orders(&["dcl", "stopped", "requested", "started"]) {
            assert!(run(std::slice::from_ref(&order)), "sent as {order:?}");
            assert!(
                !run(&[order.clone(), vec!["navigated"], vec!["dcl"]]),
                "sent as {order:?}"
            );
        }
        // A navigation that commits nothing (a download, a 204 answer) ends with its load.
        for order in orders(&["requested", "started"]) {
            assert!(!run(&[order.clone(), vec!["stopped"]]), "sent as {order:?}");
        }
        // A request whose load has not started yet outlives the current load's end.
        assert!(run(&[vec!["requested"], vec!["stopped"]]));
    }

    #[test]
    fn what_content_waits_on() {
        use RequestRole::*;
        let page = "https://shop.example.com/cart";
        let role = |kind, url| request_role(Some(&kind), "GET", url, page);
        assert_eq!(role(ResourceType::Fetch, "https://shop.example.com/api/items"), Data);
        assert_eq!(
            role(ResourceType::Xhr, "https://api.example.com/v1/items"),
            Data,
            "same site"
        );
        assert_eq!(role(ResourceType::Script, "https://shop.example.com/app.js"), Code);
        assert_eq!(role(ResourceType::Stylesheet, "https://cdn.example.com/a.css"), Code);
        assert_eq!(
            role(ResourceType::Script, "https://ads.adnet.test/gpt.js"),
            Background,
            "another site"
        );
        assert_eq!(
            role(ResourceType::Script, "https://cdn.cookielaw.org/otSDKStub.js"),
            Code,
            "a consent manager"
        );
        assert_eq!(
            role(ResourceType::Fetch, "https://www.google-analytics.com/g/collect"),
            Background
        );
        assert_eq!(
            role(ResourceType::Fetch, "https://abc-dsn.algolia.net/1/indexes/x/query"),
            Elsewhere,
            "another site's API: counted under a loading indicator"
        );
        assert_eq!(
            role(
                ResourceType::Xhr,
                "https://rt.chat.test/socket.io/?EIO=4&transport=polling"
            ),
            Background,
            "another site's push channel"
        );
        assert_eq!(role(ResourceType::Fetch, "https://eu.posthog.com/e/"), Background);
        assert_eq!(role(ResourceType::Ping, "https://shop.example.com/beacon"), Background);
        assert_eq!(
            role(ResourceType::Image, "https://shop.example.com/banner.png"),
            Background
        );
        assert_eq!(
            role(ResourceType::Fetch, "https://shop.example.com/api/live/poll?since=3"),
            Background
        );
        assert_eq!(
            role(
                ResourceType::Xhr,
                "https://shop.example.com/socket.io/?EIO=4&transport=polling"
            ),
            Background
        );
        assert_eq!(
            role(ResourceType::Fetch, "https://shop.example.com/api/stream"),
            Background
        );
        // Content that only looks like a push channel: a form's POST, words
        // that contain a push word.
        let post = |url| request_role(Some(&ResourceType::Fetch), "POST", url, page);
        assert_eq!(post("https://shop.example.com/api/subscribe"), Data);
        assert_eq!(
            role(ResourceType::Fetch, "https://shop.example.com/api/polls/vote"),
            Data
        );
        assert_eq!(
            role(ResourceType::Fetch, "https://shop.example.com/api/upstream-sync"),
            Data
        );
        assert_eq!(
            role(ResourceType::Fetch, "https://shop.example.com/longpoll?id=2"),
            Background
        );
        assert_eq!(
            request_role(None, "GET", "https://shop.example.com/x", page),
            Background
        );
        // Ports do not make a site; other hosts on loopback do.
        let local = "http://127.0.0.1:8080/index.html";
        assert_eq!(
            request_role(Some(&ResourceType::Fetch), "GET", "http://127.0.0.1:9090/api", local),
            Data
        );
        assert_eq!(
            request_role(Some(&ResourceType::Fetch), "GET", "http://localhost:8080/api", local),
            Elsewhere
        );
        assert_eq!(site_of("www.bbc.co.uk"), "bbc.co.uk");
        assert_eq!(site_of("a.b.example.com"), "example.com");
        assert_eq!(site_of("localhost"), "localhost");
        assert_eq!(host_of("https://u:p@[::1]:80/x"), "::1");
    }

    #[test]
    fn a_reply_streaming_in_is_a_question_sent_since_the_step() {
        let mut s = st();
        let t0 = Instant::now();
        let step = t0 + Duration::from_millis(10);
        let put = |s: &mut NetState, id: &str, started: Instant, sends: bool, role: RequestRole, data: bool| {
            let mut r = request(started, false);
            r.sends = sends;
            r.role = role;
            r.last_data = data.then(|| started + Duration::from_millis(5));
            s.inflight.insert(id.into(), r);
        };
        put(&mut s, "feed", step, false, RequestRole::Data, true);
        put(&mut s, "before", t0, true, RequestRole::Data, true);
        put(&mut s, "beacon", step, true, RequestRole::Background, true);
        put(&mut s, "quiet", step, true, RequestRole::Data, false);
        assert_eq!(
            s.step_data_at(step),
            None,
            "a GET feed, an older question, a beacon, no data yet"
        );
        put(&mut s, "answer", step, true, RequestRole::Data, true);
        assert_eq!(s.step_data_at(step), Some(step + Duration::from_millis(5)));
    }

    #[test]
    fn frames_of_one_site() {
        assert!(same_site(
            "https://shop.example.com/cart",
            "https://pay.example.com/form"
        ));
        assert!(!same_site("https://shop.example.com/", "https://ads.example.net/slot"));
        assert!(!same_site("https://shop.example.com/", "about:blank"));
        assert!(!same_site("https://shop.example.com/", "about:srcdoc"));
    }

    #[test]
    fn idle_page_is_quiet_at_once() {
        let s = st();
        assert_eq!(s.quiet_at(Instant::now()), None);
    }

    #[test]
    fn quiet_window_follows_the_last_request() {
        let mut s = st();
        let now = Instant::now();
        s.inflight.insert("1".into(), request(now, false));
        assert!(s.quiet_at(now).is_some());
        finish(&mut s, "1", now);
        let at = s.quiet_at(now).expect("not quiet right after a request");
        assert!(at >= now + QUIET_WINDOW - Duration::from_millis(1));
        assert_eq!(s.quiet_at(now + QUIET_WINDOW), None);
    }

    #[test]
    fn websockets_and_old_requests_do_not_count() {
        let mut s = st();
        let now = Instant::now();
        s.inflight.insert("ws".into(), request(now, true));
        assert_eq!(s.quiet_at(now), None);
        s.inflight.insert("poll".into(), request(now, false));
        assert_eq!(s.active_requests(now), 1);
        let later = now + MAX_REQUEST_AGE;
        assert_eq!(s.active_requests(later), 0);
        // Once it is old it stops counting, and the quiet window runs from then.
        assert!(s.quiet_at(later).is_some());
        assert_eq!(s.quiet_at(later + QUIET_WINDOW), None);
    }

    #[test]
    fn only_a_feed_type_makes_a_slow_body_a_stream() {
        for feed in [
            "text/event-stream",
            "application/x-ndjson",
            "Multipart/X-Mixed-Replace; boundary=x",
        ] {
            assert!(is_stream_type(feed), "{feed}");
        }
        for content in ["application/json", "text/x-component", "text/html", "text/plain", ""] {
            assert!(!is_stream_type(content), "{content}");
        }
    }
}
