//! A screen between chromiumoxide and a browser Sightline connected to
//! (`--cdp-url`: most often the user's own).
//!
//! chromiumoxide attaches to every tab it hears of and sets each one up
//! (domains enabled, an init script, auto-attach). In the user's browser
//! that touched every tab they had, and a tab that did not answer (an open
//! `alert()`, a hung page) held the commands sent to it for ever: listing
//! the tabs hung the session, and chromiumoxide closed that tab when its
//! setup timed out.
//!
//! So chromiumoxide connects here, and the screen passes every message on
//! as it is, except the browser's news of page targets (`Target.target…`
//! events without a session), which reach chromiumoxide only for the tabs
//! that are the session's ([`Screen::admits`]):
//! - the tabs it opened (`Target.createTarget`: news of a new tab waits
//!   until the browser says which tab that call made);
//! - the tabs of browser contexts it made;
//! - the pop-ups of those, and of tabs admitted before them;
//! - the user's tabs a session chose ([`TabScreen::choose`]), one by one.
//!
//! The other tabs are listed from `Target.getTargets` (answers pass
//! unchanged); the end of any tab is passed on. chromiumoxide closes a tab
//! whose setup timed out: for a chosen tab that `Target.closeTarget` is
//! refused, and the tab given back ([`Screen::release`]).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use async_tungstenite::tungstenite::http::StatusCode;
use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::Message;
use async_tungstenite::{WebSocketReceiver, WebSocketSender};
use futures::io::{AsyncRead, AsyncWrite};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

type Ws = async_tungstenite::WebSocketStream<async_tungstenite::tokio::ConnectStream>;

/// Ids of the screen's own commands to the browser: far above any
/// chromiumoxide will use, so their answers are told apart and dropped.
const OWN_IDS: u64 = 1 << 48;

/// What the screen knows; every decision is made here, over plain text.
#[derive(Default)]
pub(super) struct Screen {
    /// Tabs chromiumoxide may know of: the session's and the chosen ones.
    admitted: HashSet<String>,
    /// The user's tabs a session chose: never closed by the screen's client.
    chosen: HashSet<String>,
    /// Browser contexts made through the screen: their tabs are the session's.
    contexts: HashSet<String>,
    /// Calls in flight whose answers admit something: `createTarget`
    /// (a tab) and `createBrowserContext` (a context).
    creating_tabs: HashSet<u64>,
    creating_contexts: HashSet<u64>,
    /// News of tabs not decided yet, held while a `createTarget` is in flight.
    held: Vec<(String, String)>,
    /// Open page targets kept from chromiumoxide.
    hidden: HashSet<String>,
    /// The session chromiumoxide attached to each admitted tab.
    sessions: HashMap<String, String>,
    /// The frames the admitted tabs' sessions said were attached, and their
    /// tabs (a download begun in one of them is the session's).
    frames: HashMap<String, String>,
    /// Admitted tabs of the contexts made through the screen.
    context_tabs: HashSet<String>,
    /// Every page target in the order the screen first heard of it (tab
    /// lists keep that order).
    seen: HashMap<String, usize>,
    next_own_id: u64,
}

/// What the screen sends on for one message: to chromiumoxide, and to the
/// browser (the screen's own commands), each in order.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Relay {
    pub to_client: Vec<String>,
    pub to_browser: Vec<String>,
}

impl Relay {
    fn client(text: String) -> Relay {
        Relay {
            to_client: vec![text],
            to_browser: Vec::new(),
        }
    }

    fn browser(text: String) -> Relay {
        Relay {
            to_client: Vec::new(),
            to_browser: vec![text],
        }
    }
}

/// The start of a message, where chromiumoxide and Chromium put its method
/// or id (`{"id":…,"method":"…",…}`, `{"method":"…",…}`).
fn head(text: &str) -> &str {
    let mut end = text.len().min(160);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Held news beyond this many is not waited on (a `createTarget` whose
/// answer never came must not hold the user's tabs' news for ever).
const MAX_HELD: usize = 256;

impl Screen {
    pub(super) fn admits(&self, target_id: &str) -> bool {
        self.admitted.contains(target_id)
    }

    /// Whether the tab is open and kept from chromiumoxide (a chosen tab
    /// given back included: the news of its end it was told is not true).
    pub(super) fn hides(&self, target_id: &str) -> bool {
        self.hidden.contains(target_id)
    }

    /// The admitted tab `frame` is in: its main frame (a tab's main frame
    /// has the tab's id) or a frame it attached.
    pub(super) fn tab_of_frame(&self, frame: &str) -> Option<&str> {
        match self.admitted.get(frame) {
            Some(tab) => Some(tab),
            None => self
                .frames
                .get(frame)
                .map(String::as_str)
                .filter(|t| self.admitted.contains(*t)),
        }
    }

    /// Whether an admitted tab is in a context made through the screen.
    pub(super) fn in_a_context(&self, tab: &str) -> bool {
        self.context_tabs.contains(tab)
    }

    /// When the screen first heard of a page target (earlier is smaller).
    pub(super) fn first_heard(&self, target_id: &str) -> Option<usize> {
        self.seen.get(target_id).copied()
    }

    /// A command from chromiumoxide: passed on (noting the calls whose
    /// answers admit something), or, for a `closeTarget` of a chosen tab,
    /// refused (chromiumoxide closes a tab whose setup timed out) and the
    /// tab given back, so that chromiumoxide does not keep a tab it has
    /// stopped driving.
    pub(super) fn on_client_command(&mut self, text: String) -> Relay {
        let watched = [
            "\"Target.createTarget\"",
            "\"Target.createBrowserContext\"",
            "\"Target.closeTarget\"",
        ];
        let h = head(&text);
        if !watched.iter().any(|m| h.contains(m)) {
            return Relay::browser(text);
        }
        let Ok(command) = serde_json::from_str::<Value>(&text) else {
            return Relay::browser(text);
        };
        let Some(id) = command["id"].as_u64() else {
            return Relay::browser(text);
        };
        let on_a_session = command.get("sessionId").is_some_and(|s| !s.is_null());
        match command["method"].as_str() {
            Some("Target.createTarget") if !on_a_session => {
                self.creating_tabs.insert(id);
            }
            Some("Target.createBrowserContext") if !on_a_session => {
                self.creating_contexts.insert(id);
            }
            // (Sent on the tab's own session too, once attached.)
            Some("Target.closeTarget") => {
                let target = command["params"]["targetId"].as_str().unwrap_or_default().to_string();
                if self.chosen.contains(&target) {
                    let mut refused = json!({"id": id, "error": {"code": -32000, "message": "a tab of the user's own: Sightline does not close it"}});
                    if let Some(session) = command.get("sessionId") {
                        refused["sessionId"] = session.clone();
                    }
                    let mut relay = self.release(&target);
                    relay.to_client.insert(0, refused.to_string());
                    return relay;
                }
            }
            _ => {}
        }
        Relay::browser(text)
    }

    /// A message from the browser: what chromiumoxide is told of it.
    pub(super) fn on_browser_message(&mut self, text: String) -> Relay {
        if text.starts_with("{\"method\":\"Target.") {
            return self.target_news(text);
        }
        if text.starts_with("{\"method\":\"Page.frameAttached\"") {
            // (Only admitted tabs have sessions here: theirs is the frame.)
            if let Ok(event) = serde_json::from_str::<Value>(&text) {
                let session = event["sessionId"].as_str().unwrap_or_default();
                let tab = self
                    .sessions
                    .iter()
                    .find(|(_, s)| *s == session)
                    .map(|(t, _)| t.clone());
                if let (Some(frame), Some(tab)) = (event["params"]["frameId"].as_str(), tab) {
                    self.frames.insert(frame.to_string(), tab);
                }
            }
            return Relay::client(text);
        }
        if text.starts_with("{\"method\"") {
            return Relay::client(text);
        }
        let id = answer_id(&text).or_else(|| {
            // An answer whose id is not first (a relay that sorts keys):
            // read when one is awaited, else passed as it is.
            let awaited = !self.creating_tabs.is_empty() || !self.creating_contexts.is_empty();
            awaited
                .then(|| serde_json::from_str::<Value>(&text).ok()?["id"].as_u64())
                .flatten()
        });
        let Some(id) = id else {
            return Relay::client(text);
        };
        if id >= OWN_IDS {
            return Relay::default();
        }
        if self.creating_tabs.remove(&id) {
            return self.tab_created(text);
        }
        if self.creating_contexts.remove(&id) {
            if let Ok(answer) = serde_json::from_str::<Value>(&text) {
                if let Some(c) = answer["result"]["browserContextId"].as_str() {
                    self.contexts.insert(c.to_string());
                }
            }
        }
        Relay::client(text)
    }

    fn target_news(&mut self, text: String) -> Relay {
        let Ok(event) = serde_json::from_str::<Value>(&text) else {
            return Relay::client(text);
        };
        // A tab's own session speaks of its frames and workers: those pass.
        if event.get("sessionId").is_some_and(|s| !s.is_null()) {
            return Relay::client(text);
        }
        let params = &event["params"];
        match event["method"].as_str().unwrap_or_default() {
            "Target.targetCreated" | "Target.targetInfoChanged" => {
                let info = &params["targetInfo"];
                if info["type"].as_str() != Some("page") {
                    return Relay::client(text);
                }
                let id = info["targetId"].as_str().unwrap_or_default().to_string();
                let heard = self.seen.len();
                self.seen.entry(id.clone()).or_insert(heard);
                if info["browserContextId"]
                    .as_str()
                    .is_some_and(|c| self.contexts.contains(c))
                {
                    self.context_tabs.insert(id.clone());
                }
                if self.admitted.contains(&id) {
                    return Relay::client(text);
                }
                if self.belongs(info) {
                    return Relay::client(self.admit(&id, text));
                }
                if self.creating_tabs.is_empty() || self.held.len() >= MAX_HELD {
                    self.hidden.insert(id);
                } else {
                    // (The latest news of a tab is all it needs.)
                    self.held.retain(|(held, _)| held != &id);
                    self.held.push((id, text));
                }
                Relay::default()
            }
            "Target.targetDestroyed" => {
                let id = params["targetId"].as_str().unwrap_or_default().to_string();
                self.held.retain(|(held, _)| held != &id);
                self.admitted.remove(&id);
                self.chosen.remove(&id);
                self.sessions.remove(&id);
                self.frames.retain(|_, tab| tab != &id);
                self.context_tabs.remove(&id);
                // Passed on all the same: chromiumoxide ignores a tab it does
                // not know, and the driver's book of tabs learns it is gone.
                self.hidden.remove(&id);
                Relay::client(text)
            }
            "Target.attachedToTarget" => {
                let (Some(session), Some(id)) =
                    (params["sessionId"].as_str(), params["targetInfo"]["targetId"].as_str())
                else {
                    return Relay::client(text);
                };
                if self.hidden.contains(id) {
                    // An attach that answers a tab given back meanwhile: undone.
                    return Relay::browser(self.detach(session));
                }
                self.sessions.insert(id.to_string(), session.to_string());
                Relay::client(text)
            }
            _ => Relay::client(text),
        }
    }

    /// Admits a tab on its first news, which chromiumoxide must hear as the
    /// tab's creation (it makes no tab of a `targetInfoChanged`).
    fn admit(&mut self, id: &str, news: String) -> String {
        self.admitted.insert(id.to_string());
        self.hidden.remove(id);
        news.replacen("\"Target.targetInfoChanged\"", "\"Target.targetCreated\"", 1)
    }

    /// Whether a page target the screen has not admitted is the session's
    /// all the same: a pop-up of an admitted tab, a tab of a context it made.
    fn belongs(&self, info: &Value) -> bool {
        let opener = info["openerId"].as_str().is_some_and(|o| self.admitted.contains(o));
        let context = info["browserContextId"]
            .as_str()
            .is_some_and(|c| self.contexts.contains(c));
        opener || context
    }

    /// The answer to a `createTarget`: its tab is admitted, and the news of
    /// it that was held goes first (chromiumoxide must know a tab before
    /// the answer that names it), then that of its pop-ups. News of other
    /// tabs held meanwhile is kept from chromiumoxide, unless another call
    /// may still have made them.
    fn tab_created(&mut self, text: String) -> Relay {
        let made = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|a| a["result"]["targetId"].as_str().map(str::to_string));
        let mut relay = Relay::default();
        let mut held = std::mem::take(&mut self.held);
        let mut told = false;
        if let Some(made) = &made {
            if let Some(at) = held.iter().position(|(id, _)| id == made) {
                let (id, news) = held.remove(at);
                relay.to_client.push(self.admit(&id, news));
                told = true;
            } else {
                self.admitted.insert(made.clone());
                self.hidden.remove(made);
            }
        }
        for (id, news) in held {
            let info = serde_json::from_str::<Value>(&news)
                .map(|n| n["params"]["targetInfo"].clone())
                .unwrap_or_default();
            if self.belongs(&info) {
                relay.to_client.push(self.admit(&id, news));
            } else if self.creating_tabs.is_empty() {
                self.hidden.insert(id);
            } else {
                self.held.push((id, news));
            }
        }
        // (The answer right after the tab's news: chromiumoxide panics on
        // an answer naming a tab it does not know.)
        relay.to_client.insert(usize::from(told), text);
        relay
    }

    /// Admits one of the user's tabs a session chose: the news that tells
    /// chromiumoxide of it (`info`: its `TargetInfo`), if it was not told.
    pub(super) fn choose(&mut self, info: &Value) -> Option<String> {
        let id = info["targetId"].as_str()?.to_string();
        self.hidden.remove(&id);
        self.chosen.insert(id.clone());
        if !self.admitted.insert(id) {
            return None;
        }
        Some(json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}).to_string())
    }

    /// Takes a chosen tab back (it did not answer): chromiumoxide is told it
    /// is gone, and its session is detached from the tab.
    pub(super) fn release(&mut self, target_id: &str) -> Relay {
        self.admitted.remove(target_id);
        self.chosen.remove(target_id);
        self.hidden.insert(target_id.to_string());
        self.frames.retain(|_, tab| tab != target_id);
        let mut relay =
            Relay::client(json!({"method": "Target.targetDestroyed", "params": {"targetId": target_id}}).to_string());
        if let Some(session) = self.sessions.remove(target_id) {
            relay.to_browser.push(self.detach(&session));
        }
        relay
    }

    /// The screen's own `Target.detachFromTarget` of `session`.
    fn detach(&mut self, session: &str) -> String {
        self.next_own_id += 1;
        json!({"id": OWN_IDS + self.next_own_id, "method": "Target.detachFromTarget", "params": {"sessionId": session}})
            .to_string()
    }
}

/// The id of an answer (`{"id":12,…`), read without parsing the rest.
fn answer_id(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("{\"id\":")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest[..digits].parse().ok()
}

/// Where relayed messages go: the writers of both connections, once both
/// are open.
#[derive(Clone)]
struct Links {
    client: mpsc::UnboundedSender<String>,
    browser: mpsc::UnboundedSender<String>,
}

/// What the screen knows and where its messages go, shared by its tasks.
#[derive(Default)]
struct Shared {
    screen: Arc<Mutex<Screen>>,
    links: Mutex<Option<Links>>,
}

impl Shared {
    /// Runs one decision and sends what it relays, under the screen's lock:
    /// messages leave in the order they were decided.
    fn relay(&self, decide: impl FnOnce(&mut Screen) -> Relay) {
        let mut screen = self.screen.lock().unwrap();
        let relay = decide(&mut screen);
        if let Some(links) = self.links.lock().unwrap().as_ref() {
            for text in relay.to_client {
                let _ = links.client.send(text);
            }
            for text in relay.to_browser {
                let _ = links.browser.send(text);
            }
        }
    }
}

/// The running screen: the address chromiumoxide connects to, and a way to
/// speak to it (chosen tabs).
pub(super) struct TabScreen {
    pub url: String,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for TabScreen {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn config() -> WebSocketConfig {
    // As chromiumoxide's own: a screenshot or a script is one large message.
    WebSocketConfig::default().max_message_size(None).max_frame_size(None)
}

/// How long chromiumoxide has to finish its handshake once connected.
const HANDSHAKE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

impl TabScreen {
    /// Connects to the browser at `upstream` (its refusal is the caller's
    /// error, as if it had connected itself), then listens on 127.0.0.1 for
    /// chromiumoxide (one connection, at a path with a secret in it).
    pub async fn start(upstream: &str) -> std::result::Result<TabScreen, String> {
        let browser = async_tungstenite::tokio::connect_async_with_config(upstream, Some(config()))
            .await
            .map_err(|e| e.to_string())?
            .0;
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| format!("no local port for the DevTools connection: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let secret = crate::text::random_hex(16);
        let url = format!("ws://127.0.0.1:{port}/devtools/browser/{secret}");
        let shared = Arc::new(Shared::default());
        let task = tokio::spawn(serve(
            listener,
            format!("/devtools/browser/{secret}"),
            browser,
            shared.clone(),
        ));
        Ok(TabScreen { url, shared, task })
    }

    pub fn admits(&self, target_id: &str) -> bool {
        self.shared.screen.lock().unwrap().admits(target_id)
    }

    /// See [`Screen::first_heard`].
    pub fn first_heard(&self, target_id: &str) -> Option<usize> {
        self.shared.screen.lock().unwrap().first_heard(target_id)
    }

    /// What the screen knows, for those who read it later (see [`Screen::hides`]).
    pub fn screen(&self) -> Arc<Mutex<Screen>> {
        self.shared.screen.clone()
    }

    /// Tells chromiumoxide of one of the user's tabs (`info`: its `TargetInfo`).
    pub fn choose(&self, info: &Value) {
        self.shared.relay(|s| Relay {
            to_client: s.choose(info).into_iter().collect(),
            to_browser: Vec::new(),
        });
    }

    /// Takes a chosen tab back from chromiumoxide (see [`Screen::release`]).
    pub fn release(&self, target_id: &str) {
        self.shared.relay(|s| s.release(target_id));
    }
}

/// A task writing the texts sent on the returned channel to `sink`, in
/// order; it closes the socket when the channel's senders are gone.
fn writer<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    mut sink: WebSocketSender<S>,
) -> (mpsc::UnboundedSender<String>, JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let task = tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            if sink.send(Message::text(text)).await.is_err() {
                break;
            }
        }
        let _ = sink.close(None).await;
    });
    (tx, task)
}

/// Hands each text message of `stream` to `each`, until it closes.
async fn each_text<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut WebSocketReceiver<S>, mut each: impl FnMut(String)) {
    while let Some(Ok(message)) = stream.next().await {
        match message {
            Message::Text(text) => each(text.to_string()),
            Message::Close(_) => break,
            _ => {}
        }
    }
}

async fn serve(listener: TcpListener, path: String, browser: Ws, shared: Arc<Shared>) {
    // One client: chromiumoxide's handler, which connects once.
    let client = loop {
        let Ok((stream, peer)) = listener.accept().await else {
            return;
        };
        if !peer.ip().is_loopback() {
            continue;
        }
        let path = path.clone();
        #[allow(clippy::result_large_err)] // (tungstenite's type: an HTTP response)
        let check = move |req: &Request, resp: Response| -> std::result::Result<Response, ErrorResponse> {
            if req.uri().path() == path {
                return Ok(resp);
            }
            let mut refused = ErrorResponse::new(Some("not found".into()));
            *refused.status_mut() = StatusCode::NOT_FOUND;
            Err(refused)
        };
        let handshake = async_tungstenite::tokio::accept_hdr_async_with_config(stream, check, Some(config()));
        if let Ok(Ok(ws)) = tokio::time::timeout(HANDSHAKE_LIMIT, handshake).await {
            break ws;
        }
    };
    drop(listener);
    let (client_sink, mut client_stream) = client.split();
    let (browser_sink, mut browser_stream) = browser.split();
    let (client_tx, client_writer) = writer(client_sink);
    let (browser_tx, browser_writer) = writer(browser_sink);
    *shared.links.lock().unwrap() = Some(Links {
        client: client_tx,
        browser: browser_tx,
    });
    // Either side ending ends both: chromiumoxide sees the browser go.
    tokio::select! {
        _ = each_text(&mut browser_stream, |text| shared.relay(|s| s.on_browser_message(text))) => {}
        _ = each_text(&mut client_stream, |text| shared.relay(|s| s.on_client_command(text))) => {}
    }
    // (Dropping the senders ends the writers, which close their sockets.)
    *shared.links.lock().unwrap() = None;
    let _ = tokio::join!(client_writer, browser_writer);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn news(method: &str, id: &str, opener: Option<&str>, context: Option<&str>) -> String {
        let mut info = json!({"targetId": id, "type": "page", "title": "", "url": "about:blank", "attached": false, "canAccessOpener": false});
        if let Some(o) = opener {
            info["openerId"] = json!(o);
        }
        if let Some(c) = context {
            info["browserContextId"] = json!(c);
        }
        json!({"method": method, "params": {"targetInfo": info}}).to_string()
    }

    fn created(id: &str, opener: Option<&str>, context: Option<&str>) -> String {
        news("Target.targetCreated", id, opener, context)
    }

    fn told(relay: Relay) -> Vec<String> {
        assert!(relay.to_browser.is_empty(), "{relay:?}");
        relay.to_client
    }

    #[test]
    fn the_users_tabs_are_kept_from_the_client() {
        let mut s = Screen::default();
        assert!(told(s.on_browser_message(created("USER", None, None))).is_empty());
        assert!(s.hides("USER"));
        // Its end is told (chromiumoxide ignores it; the driver's book needs it).
        let gone = json!({"method": "Target.targetDestroyed", "params": {"targetId": "USER"}}).to_string();
        assert_eq!(told(s.on_browser_message(gone.clone())), vec![gone]);
        assert!(!s.hides("USER"));
        // Other targets and every answer and session message pass.
        let worker = created("W", None, None).replace("\"page\"", "\"service_worker\"");
        assert_eq!(told(s.on_browser_message(worker.clone())), vec![worker]);
        let answer = r#"{"id":3,"result":{}}"#.to_string();
        assert_eq!(told(s.on_browser_message(answer.clone())), vec![answer]);
    }

    #[test]
    fn a_tab_the_client_opened_is_told_before_the_answer_naming_it() {
        let mut s = Screen::default();
        let call = r#"{"id":7,"method":"Target.createTarget","params":{"url":"about:blank"}}"#.to_string();
        assert_eq!(s.on_client_command(call.clone()), Relay::browser(call));
        // News of the new tab and of a tab the user opened meanwhile: held.
        assert!(told(s.on_browser_message(created("OURS", None, None))).is_empty());
        assert!(told(s.on_browser_message(created("USERS", None, None))).is_empty());
        let answer = r#"{"id":7,"result":{"targetId":"OURS"}}"#.to_string();
        assert_eq!(
            told(s.on_browser_message(answer.clone())),
            vec![created("OURS", None, None), answer]
        );
        assert!(s.admits("OURS") && !s.admits("USERS") && s.hides("USERS"));
        // Its pop-ups are the session's, and a pop-up's pop-up.
        assert_eq!(told(s.on_browser_message(created("POP", Some("OURS"), None))).len(), 1);
        assert_eq!(told(s.on_browser_message(created("POP2", Some("POP"), None))).len(), 1);
        assert!(told(s.on_browser_message(created("OTHER", Some("USERS"), None))).is_empty());
    }

    #[test]
    fn an_answer_whose_id_is_not_first_is_read_while_one_is_awaited() {
        let mut s = Screen::default();
        s.on_client_command(r#"{"id":4,"method":"Target.createTarget","params":{"url":"about:blank"}}"#.into());
        s.on_browser_message(created("OURS", None, None));
        let sorted = r#"{"result":{"targetId":"OURS"},"id":4}"#.to_string();
        assert_eq!(
            told(s.on_browser_message(sorted.clone())),
            vec![created("OURS", None, None), sorted]
        );
    }

    #[test]
    fn a_tab_first_admitted_on_a_change_is_told_as_created() {
        let mut s = Screen::default();
        s.on_browser_message(created("USER", None, None));
        s.on_browser_message(created("POP", Some("USER"), None));
        s.choose(&json!({"targetId": "USER", "type": "page", "title": "", "url": ""}));
        // The user's pop-up changes: now a pop-up of a tab the session acts in.
        let changed = news("Target.targetInfoChanged", "POP", Some("USER"), None);
        assert_eq!(
            told(s.on_browser_message(changed)),
            vec![created("POP", Some("USER"), None)]
        );
    }

    #[test]
    fn the_frames_of_admitted_tabs_are_known() {
        let mut s = Screen::default();
        s.on_client_command(r#"{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}"#.into());
        s.on_browser_message(created("OURS", None, None));
        s.on_browser_message(r#"{"id":1,"result":{"targetId":"OURS"}}"#.into());
        s.on_browser_message(
            json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S", "targetInfo": {"targetId": "OURS"}}})
                .to_string(),
        );
        let attached =
            r#"{"method":"Page.frameAttached","params":{"frameId":"F1","parentFrameId":"OURS"},"sessionId":"S"}"#;
        assert_eq!(told(s.on_browser_message(attached.into())), vec![attached.to_string()]);
        assert_eq!(
            (s.tab_of_frame("OURS"), s.tab_of_frame("F1")),
            (Some("OURS"), Some("OURS"))
        );
        assert_eq!(s.tab_of_frame("USER"), None);
        assert!(!s.in_a_context("OURS"));
    }

    #[test]
    fn tabs_of_a_context_the_client_made_are_its_own() {
        let mut s = Screen::default();
        s.on_client_command(r#"{"id":2,"method":"Target.createBrowserContext","params":{}}"#.into());
        s.on_browser_message(r#"{"id":2,"result":{"browserContextId":"CTX"}}"#.into());
        assert_eq!(told(s.on_browser_message(created("T", None, Some("CTX")))).len(), 1);
        assert!(told(s.on_browser_message(created("U", None, Some("ELSE")))).is_empty());
        assert!(s.in_a_context("T"));
    }

    #[test]
    fn a_chosen_tab_is_told_never_closed_by_the_client_and_given_back() {
        let mut s = Screen::default();
        s.on_browser_message(created("USER", None, None));
        let info = json!({"targetId": "USER", "type": "page", "title": "Mine", "url": "https://example.test/"});
        let news = s.choose(&info).expect("news of the tab");
        assert_eq!(s.first_heard("USER"), Some(0));
        assert!(news.contains("Target.targetCreated") && news.contains("USER"), "{news}");
        assert!(s.choose(&info).is_none(), "told once");
        s.on_browser_message(
            json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S1", "targetInfo": {"targetId": "USER"}}})
                .to_string(),
        );
        // chromiumoxide closes a tab whose setup timed out, on its session:
        // refused, and the tab is given back (its session detached).
        let close = r#"{"id":9,"method":"Target.closeTarget","sessionId":"S1","params":{"targetId":"USER"}}"#;
        let relay = s.on_client_command(close.into());
        assert!(
            relay.to_client[0].contains("\"id\":9") && relay.to_client[0].contains("error"),
            "{relay:?}"
        );
        assert!(relay.to_client[1].contains("Target.targetDestroyed"), "{relay:?}");
        assert!(relay.to_browser[0].contains("S1"), "{relay:?}");
        assert!(!s.admits("USER") && s.hides("USER"));
        // The screen's own answers are not the client's.
        let id = serde_json::from_str::<Value>(&relay.to_browser[0]).unwrap()["id"]
            .as_u64()
            .unwrap();
        assert_eq!(
            s.on_browser_message(format!("{{\"id\":{id},\"result\":{{}}}}")),
            Relay::default()
        );
        // An attach that lands after the tab was given back is undone.
        let late = json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S2", "targetInfo": {"targetId": "USER"}}});
        let relay = s.on_browser_message(late.to_string());
        assert!(
            relay.to_client.is_empty() && relay.to_browser[0].contains("S2"),
            "{relay:?}"
        );
    }
}
