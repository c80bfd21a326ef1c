//! A second DevTools connection to the browser, for what chromiumoxide
//! must not see or cannot do:
//! - `Page.navigate`. chromiumoxide holds every navigation it sends until
//!   the page fired `load` in every frame, and queues the next navigation
//!   of the tab behind it, so a page with a 12 s ad frame would hold its
//!   own navigation and the next one for 12 s. Readiness (readiness.rs)
//!   decides when a step returns, so navigations go here.
//! - The frames other processes run (frame_hosts.rs): chromiumoxide has no
//!   way to send to their targets' sessions.
//!
//! A flattened session per target (a tab, an `iframe`), answered as the
//! browser answers. The connection opens on first use; a target's session
//! is attached once and attached again if the browser forgot it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_tungstenite::tungstenite::Message;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};

use crate::error::{Error, Result};

type Answer = std::result::Result<Value, String>;

/// The open connection: a writer fed by a channel, and the calls waiting
/// for their answers.
struct Connection {
    outgoing: mpsc::UnboundedSender<String>,
    waiting: Arc<Mutex<HashMap<u64, oneshot::Sender<Answer>>>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Removes a call from the calls waiting for answers when dropped.
struct Forget<'a> {
    waiting: &'a Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        self.waiting.lock().unwrap().remove(&self.id);
    }
}

/// See the module docs.
pub struct SideChannel {
    ws_url: String,
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    next_id: AtomicU64,
    /// Target id → the session attached to it.
    sessions: Mutex<HashMap<String, String>>,
    /// The endpoint refused a second connection: not tried again.
    refused: AtomicBool,
}

impl std::fmt::Debug for SideChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SideChannel").field("ws_url", &self.ws_url).finish()
    }
}

impl SideChannel {
    /// A channel to the browser at `ws_url` (its DevTools WebSocket), not
    /// opened yet.
    pub fn new(ws_url: impl Into<String>) -> Arc<SideChannel> {
        Arc::new(SideChannel {
            ws_url: ws_url.into(),
            connection: tokio::sync::Mutex::new(None),
            next_id: AtomicU64::new(1),
            sessions: Mutex::new(HashMap::new()),
            refused: AtomicBool::new(false),
        })
    }

    /// False once the endpoint refused a second connection (callers then
    /// navigate through chromiumoxide).
    pub fn is_usable(&self) -> bool {
        !self.refused.load(Ordering::Relaxed)
    }

    /// Runs `method` on the target `target_id` (a tab, an `iframe`),
    /// attaching a session to it first when needed.
    pub async fn on_target(&self, target_id: &str, method: &'static str, params: Value) -> Result<Value> {
        for attempt in 0..2 {
            let session = self.session(target_id).await?;
            match self.call(Some(&session), method, params.clone()).await? {
                Ok(v) => return Ok(v),
                // The browser forgot the session (the tab's renderer was
                // replaced, the session detached): attach again, once.
                Err(e) if attempt == 0 && e.contains("ession") => {
                    self.sessions.lock().unwrap().remove(target_id);
                }
                Err(message) => return Err(Error::Cdp { method, message }),
            }
        }
        unreachable!("the second attempt returns")
    }

    async fn session(&self, target_id: &str) -> Result<String> {
        if let Some(s) = self.sessions.lock().unwrap().get(target_id) {
            return Ok(s.clone());
        }
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await?
            .map_err(|message| Error::Cdp {
                method: "Target.attachToTarget",
                message,
            })?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or_else(|| Error::Cdp {
                method: "Target.attachToTarget",
                message: "no sessionId in the answer".into(),
            })?
            .to_string();
        self.sessions
            .lock()
            .unwrap()
            .insert(target_id.to_string(), session.clone());
        Ok(session)
    }

    /// Sends one command; the outer error is the connection's, the inner
    /// one the browser's answer.
    async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Result<Answer> {
        let connection = self.connection().await?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        connection.waiting.lock().unwrap().insert(id, tx);
        // A call given up on (a frame's busy process let a caller's time run
        // out) is not waited for any more: nothing of it stays behind.
        let _forget = Forget {
            waiting: &connection.waiting,
            id,
        };
        if connection.outgoing.send(message.to_string()).is_err() {
            connection.waiting.lock().unwrap().remove(&id);
            self.forget_connection().await;
            return Err(Error::BrowserClosed);
        }
        match rx.await {
            Ok(answer) => Ok(answer),
            Err(_) => {
                self.forget_connection().await;
                Err(Error::BrowserClosed)
            }
        }
    }

    async fn forget_connection(&self) {
        *self.connection.lock().await = None;
        self.sessions.lock().unwrap().clear();
    }

    async fn connection(&self) -> Result<Arc<Connection>> {
        let mut slot = self.connection.lock().await;
        if let Some(c) = slot.as_ref().filter(|c| !c.outgoing.is_closed()) {
            return Ok(c.clone());
        }
        let refused = |reason: String| {
            self.refused.store(true, Ordering::Relaxed);
            Error::Connect {
                url: self.ws_url.clone(),
                reason,
            }
        };
        if !self.is_usable() {
            return Err(refused("refused before".into()));
        }
        let (ws, _) = async_tungstenite::tokio::connect_async(self.ws_url.as_str())
            .await
            .map_err(|e| refused(crate::error::one_line(&e.to_string())))?;
        let (mut sink, mut stream) = ws.split();
        let (outgoing, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(text) = rx.recv().await {
                if sink.send(Message::text(text)).await.is_err() {
                    break;
                }
            }
            let _ = sink.close(None).await;
        });
        let waiting: Arc<Mutex<HashMap<u64, oneshot::Sender<Answer>>>> = Arc::default();
        let answers = waiting.clone();
        let reader = tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let Message::Text(text) = message else { continue };
                let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                // Events (no id) are not ours to follow.
                let Some(id) = v["id"].as_u64() else { continue };
                let Some(tx) = answers.lock().unwrap().remove(&id) else {
                    continue;
                };
                let answer = match v.get("error") {
                    Some(e) => Err(e["message"].as_str().unwrap_or("error").to_string()),
                    None => Ok(v["result"].clone()),
                };
                let _ = tx.send(answer);
            }
            // Closed: every call still waiting learns it.
            answers.lock().unwrap().clear();
        });
        let connection = Arc::new(Connection {
            outgoing,
            waiting,
            reader,
        });
        *slot = Some(connection.clone());
        Ok(connection)
    }
}
