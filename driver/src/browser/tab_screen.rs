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
//! unchanged); the end of any tab is passed on. chromiumoxide closes a tab whose setup timed out: the screen
//! answers that `Target.closeTarget` with an error for a chosen tab.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use async_tungstenite::tungstenite::http::StatusCode;
use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use async_tungstenite::tungstenite::Message;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};

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
    next_own_id: u64,
}

/// What to do with a command from chromiumoxide.
#[derive(Debug, PartialEq)]
pub(super) enum ClientCommand {
    Pass,
    /// Not sent: this is the answer.
    Answer(String),
}

fn command_head(text: &str) -> &str {
    // chromiumoxide writes `{"id":…,"method":"…",…}`: the method is near the front.
    let mut end = text.len().min(160);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl Screen {
    pub(super) fn admits(&self, target_id: &str) -> bool {
        self.admitted.contains(target_id)
    }

    /// Whether the tab is open and kept from chromiumoxide (a chosen tab
    /// given back included: the news of its end it was told is not true).
    pub(super) fn hides(&self, target_id: &str) -> bool {
        self.hidden.contains(target_id)
    }

    pub(super) fn on_client_command(&mut self, text: &str) -> ClientCommand {
        let head = command_head(text);
        let watched = [
            "\"Target.createTarget\"",
            "\"Target.createBrowserContext\"",
            "\"Target.closeTarget\"",
        ];
        if !watched.iter().any(|m| head.contains(m)) {
            return ClientCommand::Pass;
        }
        let Ok(command) = serde_json::from_str::<Value>(text) else {
            return ClientCommand::Pass;
        };
        if command.get("sessionId").is_some_and(|s| !s.is_null()) {
            return ClientCommand::Pass;
        }
        let Some(id) = command["id"].as_u64() else {
            return ClientCommand::Pass;
        };
        match command["method"].as_str() {
            Some("Target.createTarget") => {
                self.creating_tabs.insert(id);
            }
            Some("Target.createBrowserContext") => {
                self.creating_contexts.insert(id);
            }
            Some("Target.closeTarget") => {
                let target = command["params"]["targetId"].as_str().unwrap_or_default();
                if self.chosen.contains(target) {
                    return ClientCommand::Answer(
                        json!({"id": id, "error": {"code": -32000, "message": "a tab of the user's own: Sightline does not close it"}})
                            .to_string(),
                    );
                }
            }
            _ => {}
        }
        ClientCommand::Pass
    }

    /// The messages to hand chromiumoxide for one from the browser, in order.
    pub(super) fn on_browser_message(&mut self, text: String) -> Vec<String> {
        if text.starts_with("{\"method\":\"Target.") {
            return self.target_news(text);
        }
        if let Some(id) = answer_id(&text) {
            if id >= OWN_IDS {
                return Vec::new();
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
        }
        vec![text]
    }

    fn target_news(&mut self, text: String) -> Vec<String> {
        let Ok(event) = serde_json::from_str::<Value>(&text) else {
            return vec![text];
        };
        // A tab's own session speaks of its frames and workers: those pass.
        if event.get("sessionId").is_some_and(|s| !s.is_null()) {
            return vec![text];
        }
        let params = &event["params"];
        match event["method"].as_str().unwrap_or_default() {
            "Target.targetCreated" | "Target.targetInfoChanged" => {
                let info = &params["targetInfo"];
                if info["type"].as_str() != Some("page") {
                    return vec![text];
                }
                let id = info["targetId"].as_str().unwrap_or_default().to_string();
                if self.admitted.contains(&id) || self.belongs(info) {
                    self.admitted.insert(id.clone());
                    self.hidden.remove(&id);
                    return vec![text];
                }
                if !self.creating_tabs.is_empty() {
                    self.held.push((id, text));
                } else {
                    self.hidden.insert(id);
                }
                Vec::new()
            }
            "Target.targetDestroyed" => {
                let id = params["targetId"].as_str().unwrap_or_default().to_string();
                self.held.retain(|(held, _)| held != &id);
                self.admitted.remove(&id);
                self.chosen.remove(&id);
                self.sessions.remove(&id);
                // Passed on all the same: chromiumoxide ignores a tab it does
                // not know, and the driver's book of tabs learns it is gone.
                self.hidden.remove(&id);
                vec![text]
            }
            "Target.attachedToTarget" => {
                if let (Some(session), Some(id)) =
                    (params["sessionId"].as_str(), params["targetInfo"]["targetId"].as_str())
                {
                    self.sessions.insert(id.to_string(), session.to_string());
                }
                vec![text]
            }
            _ => vec![text],
        }
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
    /// the answer that names it). News of other tabs held meanwhile is kept
    /// from chromiumoxide, unless another call may still have made them.
    fn tab_created(&mut self, text: String) -> Vec<String> {
        let made = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|a| a["result"]["targetId"].as_str().map(str::to_string));
        let mut out = Vec::new();
        if let Some(made) = made {
            self.admitted.insert(made.clone());
            self.hidden.remove(&made);
            let held = std::mem::take(&mut self.held);
            for (id, news) in held {
                if id == made {
                    out.push(news);
                } else if self.creating_tabs.is_empty() {
                    self.hidden.insert(id);
                } else {
                    self.held.push((id, news));
                }
            }
        }
        out.push(text);
        out
    }

    /// Admits one of the user's tabs a session chose, with the news that
    /// tells chromiumoxide of it (`info`: its `TargetInfo`).
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
    /// is gone, and its session is detached from the tab. Returns the news
    /// for chromiumoxide and the command for the browser.
    pub(super) fn release(&mut self, target_id: &str) -> (String, Option<String>) {
        self.admitted.remove(target_id);
        self.chosen.remove(target_id);
        self.hidden.insert(target_id.to_string());
        let detach = self.sessions.remove(target_id).map(|session| {
            self.next_own_id += 1;
            json!({"id": OWN_IDS + self.next_own_id, "method": "Target.detachFromTarget", "params": {"sessionId": session}})
                .to_string()
        });
        (
            json!({"method": "Target.targetDestroyed", "params": {"targetId": target_id}}).to_string(),
            detach,
        )
    }
}

/// The id of an answer (`{"id":12,…`), read without parsing the rest.
fn answer_id(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("{\"id\":")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    rest[..digits].parse().ok()
}

/// The running screen: the address chromiumoxide connects to, and a way to
/// speak to it (chosen tabs).
pub(super) struct TabScreen {
    pub url: String,
    state: Arc<Mutex<Screen>>,
    to_client: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>,
    to_browser: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>,
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

impl TabScreen {
    /// Listens on 127.0.0.1 for chromiumoxide (one connection, at a path
    /// with a secret in it), which it joins to the browser at `upstream`.
    pub async fn start(upstream: &str) -> Result<TabScreen> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| Error::Io(format!("a local port for the DevTools connection: {e}")))?;
        let port = listener.local_addr().map_err(|e| Error::Io(e.to_string()))?.port();
        let secret = crate::bridge::random_hex(16);
        let url = format!("ws://127.0.0.1:{port}/devtools/browser/{secret}");
        let state = Arc::new(Mutex::new(Screen::default()));
        let to_client = Arc::new(Mutex::new(None));
        let to_browser = Arc::new(Mutex::new(None));
        let task = tokio::spawn(serve(
            listener,
            format!("/devtools/browser/{secret}"),
            upstream.to_string(),
            state.clone(),
            to_client.clone(),
            to_browser.clone(),
        ));
        Ok(TabScreen {
            url,
            state,
            to_client,
            to_browser,
            task,
        })
    }

    pub fn admits(&self, target_id: &str) -> bool {
        self.state.lock().unwrap().admits(target_id)
    }

    /// What the screen knows, for those who read it later (see [`Screen::hides`]).
    pub fn shared(&self) -> Arc<Mutex<Screen>> {
        self.state.clone()
    }

    /// Tells chromiumoxide of one of the user's tabs (`info`: its `TargetInfo`).
    pub fn choose(&self, info: &Value) {
        let news = self.state.lock().unwrap().choose(info);
        if let (Some(news), Some(tx)) = (news, self.to_client.lock().unwrap().as_ref()) {
            let _ = tx.send(news);
        }
    }

    /// Takes a chosen tab back from chromiumoxide (see [`Screen::release`]).
    pub fn release(&self, target_id: &str) {
        let (news, detach) = self.state.lock().unwrap().release(target_id);
        if let Some(tx) = self.to_client.lock().unwrap().as_ref() {
            let _ = tx.send(news);
        }
        if let (Some(detach), Some(tx)) = (detach, self.to_browser.lock().unwrap().as_ref()) {
            let _ = tx.send(detach);
        }
    }
}

async fn serve(
    listener: TcpListener,
    path: String,
    upstream: String,
    state: Arc<Mutex<Screen>>,
    to_client: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>,
    to_browser: Arc<Mutex<Option<mpsc::UnboundedSender<String>>>>,
) {
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
        if let Ok(ws) = async_tungstenite::tokio::accept_hdr_async_with_config(stream, check, Some(config())).await {
            break ws;
        }
    };
    drop(listener);
    let browser = match async_tungstenite::tokio::connect_async_with_config(upstream.as_str(), Some(config())).await {
        Ok((ws, _)) => ws,
        Err(e) => {
            tracing::warn!("the DevTools connection to {upstream} failed: {e}");
            return;
        }
    };
    let (mut client_sink, mut client_stream) = client.split();
    let (mut browser_sink, mut browser_stream) = browser.split();
    let (client_tx, mut client_rx) = mpsc::unbounded_channel::<String>();
    let (browser_tx, mut browser_rx) = mpsc::unbounded_channel::<String>();
    *to_client.lock().unwrap() = Some(client_tx.clone());
    *to_browser.lock().unwrap() = Some(browser_tx.clone());
    let client_writer = tokio::spawn(async move {
        while let Some(text) = client_rx.recv().await {
            if client_sink.send(Message::text(text)).await.is_err() {
                break;
            }
        }
        let _ = client_sink.close(None).await;
    });
    let browser_writer = tokio::spawn(async move {
        while let Some(text) = browser_rx.recv().await {
            if browser_sink.send(Message::text(text)).await.is_err() {
                break;
            }
        }
        let _ = browser_sink.close(None).await;
    });
    let from_browser = {
        let state = state.clone();
        let client_tx = client_tx.clone();
        async move {
            while let Some(Ok(message)) = browser_stream.next().await {
                let Message::Text(text) = message else {
                    if message.is_close() {
                        break;
                    }
                    continue;
                };
                let out = state.lock().unwrap().on_browser_message(text.to_string());
                for text in out {
                    let _ = client_tx.send(text);
                }
            }
        }
    };
    let from_client = async move {
        while let Some(Ok(message)) = client_stream.next().await {
            let Message::Text(text) = message else {
                if message.is_close() {
                    break;
                }
                continue;
            };
            match state.lock().unwrap().on_client_command(&text) {
                ClientCommand::Pass => {
                    let _ = browser_tx.send(text.to_string());
                }
                ClientCommand::Answer(answer) => {
                    let _ = client_tx.send(answer);
                }
            }
        }
    };
    // Either side ending ends both: chromiumoxide sees the browser go.
    tokio::select! {
        _ = from_browser => {}
        _ = from_client => {}
    }
    *to_client.lock().unwrap() = None;
    *to_browser.lock().unwrap() = None;
    // (Dropping the senders ends the writers, which close their sockets.)
    let _ = tokio::join!(client_writer, browser_writer);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created(id: &str, opener: Option<&str>, context: Option<&str>) -> String {
        let mut info = json!({"targetId": id, "type": "page", "title": "", "url": "about:blank", "attached": false, "canAccessOpener": false});
        if let Some(o) = opener {
            info["openerId"] = json!(o);
        }
        if let Some(c) = context {
            info["browserContextId"] = json!(c);
        }
        json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}).to_string()
    }

    #[test]
    fn the_users_tabs_are_kept_from_the_client() {
        let mut s = Screen::default();
        assert!(s.on_browser_message(created("USER", None, None)).is_empty());
        assert!(s.hides("USER"));
        // Its end is told (chromiumoxide ignores it; the driver's book needs it).
        let gone = json!({"method": "Target.targetDestroyed", "params": {"targetId": "USER"}}).to_string();
        assert_eq!(s.on_browser_message(gone.clone()), vec![gone]);
        assert!(!s.hides("USER"));
        // Other targets and every answer and session message pass.
        let worker = created("W", None, None).replace("\"page\"", "\"service_worker\"");
        assert_eq!(s.on_browser_message(worker.clone()), vec![worker]);
        let answer = r#"{"id":3,"result":{}}"#.to_string();
        assert_eq!(s.on_browser_message(answer.clone()), vec![answer]);
    }

    #[test]
    fn a_tab_the_client_opened_is_told_before_the_answer_naming_it() {
        let mut s = Screen::default();
        let call = r#"{"id":7,"method":"Target.createTarget","params":{"url":"about:blank"}}"#;
        assert_eq!(s.on_client_command(call), ClientCommand::Pass);
        // News of the new tab and of a tab the user opened meanwhile: held.
        assert!(s.on_browser_message(created("OURS", None, None)).is_empty());
        assert!(s.on_browser_message(created("USERS", None, None)).is_empty());
        let answer = r#"{"id":7,"result":{"targetId":"OURS"}}"#.to_string();
        let out = s.on_browser_message(answer.clone());
        assert_eq!(out, vec![created("OURS", None, None), answer]);
        assert!(s.admits("OURS") && !s.admits("USERS"));
        // Its pop-ups are the session's, and a pop-up's pop-up.
        assert_eq!(s.on_browser_message(created("POP", Some("OURS"), None)).len(), 1);
        assert_eq!(s.on_browser_message(created("POP2", Some("POP"), None)).len(), 1);
        assert!(s.on_browser_message(created("OTHER", Some("USERS"), None)).is_empty());
    }

    #[test]
    fn tabs_of_a_context_the_client_made_are_its_own() {
        let mut s = Screen::default();
        s.on_client_command(r#"{"id":2,"method":"Target.createBrowserContext","params":{}}"#);
        s.on_browser_message(r#"{"id":2,"result":{"browserContextId":"CTX"}}"#.into());
        assert_eq!(s.on_browser_message(created("T", None, Some("CTX"))).len(), 1);
        assert!(s.on_browser_message(created("U", None, Some("ELSE"))).is_empty());
    }

    #[test]
    fn a_chosen_tab_is_told_and_never_closed_by_the_client() {
        let mut s = Screen::default();
        s.on_browser_message(created("USER", None, None));
        let info = json!({"targetId": "USER", "type": "page", "title": "Mine", "url": "https://example.test/"});
        let news = s.choose(&info).expect("news of the tab");
        assert!(news.contains("Target.targetCreated") && news.contains("USER"), "{news}");
        assert!(s.choose(&info).is_none(), "told once");
        let close = r#"{"id":9,"method":"Target.closeTarget","params":{"targetId":"USER"}}"#;
        match s.on_client_command(close) {
            ClientCommand::Answer(a) => assert!(a.contains("\"id\":9") && a.contains("error"), "{a}"),
            other => panic!("{other:?}"),
        }
        s.on_browser_message(
            json!({"method": "Target.attachedToTarget", "params": {"sessionId": "S1", "targetInfo": {"targetId": "USER"}}})
                .to_string(),
        );
        let (gone, detach) = s.release("USER");
        assert!(gone.contains("Target.targetDestroyed"), "{gone}");
        let detach = detach.expect("its session is detached");
        assert!(detach.contains("S1"), "{detach}");
        // The screen's own answers are not the client's.
        let id = serde_json::from_str::<Value>(&detach).unwrap()["id"].as_u64().unwrap();
        assert!(s
            .on_browser_message(format!("{{\"id\":{id},\"result\":{{}}}}"))
            .is_empty());
        assert!(!s.admits("USER"));
    }
}
