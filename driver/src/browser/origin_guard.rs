//! The origin policy kept at the browser's level. Each tab Sightline takes
//! over filters its own documents (`page/origin_filter.rs`); what no tab's
//! filter can see is held here, on the browser's own DevTools session,
//! which pauses the document requests of every tab:
//! - a tab a page opened (`window.open`, a `target=_blank` link): its first
//!   document is requested before Sightline can take the tab over;
//! - a download (`<a download>`): the browser fetches it, not the tab.
//!
//! Only a tab's own document (its top frame) is judged here, by the policy
//! of its browser context; frames stay with the tab's filter. A tab's
//! filter sees its requests first, so what it let go the guard lets go.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_tungstenite::tungstenite::Message;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::handle::Browser;
use super::records::GuardState;
use crate::domains::{OriginPolicy, RefusalLog};

/// A page target as the guard's connection announced it.
struct Tab {
    context: Option<String>,
    opener: Option<String>,
    /// Nothing loaded yet (a new tab before its first document).
    blank: bool,
}

/// What the guard's task reads of the browser.
struct Shared {
    context_origins: Arc<Mutex<HashMap<String, OriginPolicy>>>,
    launch_origins: OriginPolicy,
    refusals: RefusalLog,
}

impl Shared {
    /// Why the document request `url` of `frame` is refused, with its tab's
    /// context; None to let it go (a frame's request: frames stay with their
    /// tab's filter; a policy that allows it).
    fn refusal(&self, tabs: &HashMap<String, Tab>, frame: &str, url: &str) -> Option<(Option<String>, String)> {
        // A tab's top frame has the tab's target id.
        let tab = tabs.get(frame)?;
        let own = tab
            .context
            .as_ref()
            .and_then(|c| self.context_origins.lock().unwrap().get(c).cloned());
        // (Kept under the context whose own policy refused it.)
        let context = own.is_some().then(|| tab.context.clone()).flatten();
        let policy = own.unwrap_or_else(|| self.launch_origins.clone());
        policy.refusal(url).map(|why| (context, why))
    }
}

impl Browser {
    /// Starts the guard (or widens what it pauses) when `policy` limits
    /// where tabs may go. Not in a browser Sightline connected to (the
    /// user's own): its every page load would wait on Sightline; there the
    /// tabs' own filters keep the policy. Nor in one that refuses a second
    /// connection (the extension's bridge).
    pub(super) async fn guard_origins(&self, policy: &OriginPolicy) {
        if policy.is_open() || self.is_connected_remote() {
            return;
        }
        let every_url = !policy.limits_only_files();
        let Ok(cdp) = self.cdp_browser() else { return };
        let running = {
            let state = self.origin_guard.lock().unwrap();
            let alive = state.task.as_ref().is_some_and(|t| !t.is_finished());
            if alive && (state.every_url || !every_url) {
                return;
            }
            state.outgoing.clone().filter(|_| alive)
        };
        let outgoing = match running {
            Some(o) => o,
            None => {
                let ws_url = cdp.websocket_address().clone();
                let ws = match async_tungstenite::tokio::connect_async(ws_url.as_str()).await {
                    Ok((ws, _)) => ws,
                    Err(e) => return tracing::warn!("origin guard: no second connection, so a new tab's first document is not held to the policy: {e}"),
                };
                let shared = Shared {
                    context_origins: self.context_origins.clone(),
                    launch_origins: self.options().origins.clone(),
                    refusals: self.refusals.clone(),
                };
                let (outgoing, rx) = mpsc::unbounded_channel::<String>();
                let mut state = self.origin_guard.lock().unwrap();
                match &state.outgoing {
                    // (Another call started one meanwhile: that one widens.)
                    Some(o) if state.task.as_ref().is_some_and(|t| !t.is_finished()) => o.clone(),
                    _ => {
                        let task = tokio::spawn(answer_paused(ws, rx, outgoing.clone(), shared));
                        // (A finished task's state goes: its connection is gone.)
                        *state = GuardState {
                            outgoing: Some(outgoing.clone()),
                            task: Some(task),
                            every_url: false,
                        };
                        // Tabs first, so each tab is known before its first request.
                        let _ = outgoing.send(command(1, "Target.setDiscoverTargets", json!({"discover": true})));
                        outgoing
                    }
                }
            }
        };
        let every_url = {
            let mut state = self.origin_guard.lock().unwrap();
            state.every_url |= every_url;
            state.every_url
        };
        let pattern = json!({
            "urlPattern": if every_url { "*" } else { "file:*" },
            "resourceType": "Document",
            "requestStage": "Request",
        });
        let _ = outgoing.send(command(2, "Fetch.enable", json!({"patterns": [pattern]})));
    }
}

fn command(id: u64, method: &str, params: Value) -> String {
    json!({"id": id, "method": method, "params": params}).to_string()
}

/// Reads the guard's connection: page targets as they come and go, and
/// each paused request, let go or refused at once (answers are not read:
/// a request the browser no longer holds has nothing to lose).
async fn answer_paused<S>(
    ws: S,
    mut rx: mpsc::UnboundedReceiver<String>,
    outgoing: mpsc::UnboundedSender<String>,
    shared: Shared,
) where
    S: futures::Stream<Item = Result<Message, async_tungstenite::tungstenite::Error>>
        + futures::Sink<Message>
        + Unpin
        + Send
        + 'static,
{
    let (mut sink, mut stream) = ws.split();
    let writer = tokio::spawn(async move {
        while let Some(text) = rx.recv().await {
            if sink.send(Message::text(text)).await.is_err() {
                break;
            }
        }
    });
    let mut tabs: HashMap<String, Tab> = HashMap::new();
    let mut next_id = 10u64;
    while let Some(Ok(message)) = stream.next().await {
        let Message::Text(text) = message else { continue };
        let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
            continue;
        };
        let params = &v["params"];
        match v["method"].as_str() {
            Some("Target.targetCreated") | Some("Target.targetInfoChanged") => {
                let info = &params["targetInfo"];
                if info["type"] == "page" {
                    let id = info["targetId"].as_str().unwrap_or_default().to_string();
                    let text = |k: &str| info[k].as_str().map(str::to_string);
                    let url = text("url").unwrap_or_default();
                    tabs.insert(
                        id,
                        Tab {
                            context: text("browserContextId"),
                            opener: text("openerId"),
                            blank: url.is_empty() || url == "about:blank",
                        },
                    );
                }
            }
            Some("Target.targetDestroyed") => {
                tabs.remove(params["targetId"].as_str().unwrap_or_default());
            }
            Some("Fetch.requestPaused") => {
                let request = params["requestId"].clone();
                let url = params["request"]["url"].as_str().unwrap_or_default();
                let frame = params["frameId"].as_str().unwrap_or_default();
                let mut answers = Vec::new();
                match shared.refusal(&tabs, frame, url) {
                    None => answers.push(("Fetch.continueRequest", json!({"requestId": request}))),
                    Some((context, why)) => {
                        tracing::info!("refused a request of tab {frame}: {why}");
                        // A new tab opened for that site alone has nothing to show: it goes.
                        let close = tabs.get(frame).is_some_and(|t| t.blank && t.opener.is_some());
                        shared.refusals.in_context(context).keep(url, frame, why, close, false);
                        // (Aborted: the opener stays on its page; see `origin_filter.rs`.)
                        let fail = json!({"requestId": request, "errorReason": "Aborted"});
                        answers.push(("Fetch.failRequest", fail));
                        if close {
                            answers.push(("Target.closeTarget", json!({"targetId": frame})));
                        }
                    }
                }
                for (method, params) in answers {
                    next_id += 1;
                    if outgoing.send(command(next_id, method, params)).is_err() {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    writer.abort();
}
