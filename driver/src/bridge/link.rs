//! What the bridge's two connections share: the extension's socket (with
//! its requests awaiting answers), the CDP client's socket, the shared tabs
//! and whether the user approved the connection.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, watch};

use super::targets::SharedTab;

/// Where the connection with the extension stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Listening; no extension has connected yet, or the user has not answered.
    Waiting,
    /// The extension accepted: the token it handed over.
    Approved { token: String },
    /// The extension (or the user) refused the connection.
    Refused(String),
    /// An approved extension went away.
    Closed(String),
}

/// Frames to send on a socket (text, or a close with code and reason).
#[derive(Debug)]
pub enum Outgoing {
    Text(String),
    Close(u16, String),
}

pub struct Link {
    to_extension: Mutex<Option<mpsc::UnboundedSender<Outgoing>>>,
    to_cdp: Mutex<Option<mpsc::UnboundedSender<Outgoing>>>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
    next_id: AtomicU64,
    tabs: Mutex<Vec<SharedTab>>,
    /// Tabs the extension attached chrome.debugger to for us.
    attached: Mutex<HashSet<i64>>,
    status: watch::Sender<Status>,
    /// Approvals so far: a DevTools connection made under an earlier one
    /// belongs to an extension connection that is gone.
    approvals: AtomicU64,
    /// The token the extension handed over on the user's Allow: its next
    /// connections to this bridge (a tab unshared and shared again) prove
    /// it, and the user is not asked again.
    handed_token: Mutex<Option<String>>,
}

impl Link {
    pub fn new() -> Link {
        Link {
            to_extension: Mutex::new(None),
            to_cdp: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            tabs: Mutex::new(Vec::new()),
            attached: Mutex::new(HashSet::new()),
            status: watch::channel(Status::Waiting).0,
            approvals: AtomicU64::new(0),
            handed_token: Mutex::new(None),
        }
    }

    pub fn status(&self) -> watch::Receiver<Status> {
        self.status.subscribe()
    }

    pub fn current_status(&self) -> Status {
        self.status.borrow().clone()
    }

    pub fn set_status(&self, s: Status) {
        if let Status::Approved { token } = &s {
            self.approvals.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if !token.is_empty() {
                *self.handed_token.lock().unwrap() = Some(token.clone());
            }
        }
        self.status.send_replace(s);
    }

    /// The token the extension handed over, once it did.
    pub fn handed_token(&self) -> Option<String> {
        self.handed_token.lock().unwrap().clone()
    }

    /// The number of the current approval (see `approvals`).
    pub fn approval(&self) -> u64 {
        self.approvals.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn is_approved(&self) -> bool {
        matches!(*self.status.borrow(), Status::Approved { .. })
    }

    pub fn tabs(&self) -> Vec<SharedTab> {
        self.tabs.lock().unwrap().clone()
    }

    pub fn tab(&self, tab_id: i64) -> Option<SharedTab> {
        self.tabs.lock().unwrap().iter().find(|t| t.tab_id == tab_id).cloned()
    }

    /// Replaces the shared tabs; returns (added, removed).
    pub fn set_tabs(&self, tabs: Vec<SharedTab>) -> (Vec<SharedTab>, Vec<SharedTab>) {
        let mut current = self.tabs.lock().unwrap();
        let added = tabs
            .iter()
            .filter(|t| !current.iter().any(|c| c.tab_id == t.tab_id))
            .cloned()
            .collect();
        let removed = current
            .iter()
            .filter(|c| !tabs.iter().any(|t| t.tab_id == c.tab_id))
            .cloned()
            .collect();
        *current = tabs;
        (added, removed)
    }

    pub fn set_attached(&self, tab_id: i64, attached: bool) {
        let mut set = self.attached.lock().unwrap();
        if attached {
            set.insert(tab_id);
        } else {
            set.remove(&tab_id);
        }
    }

    pub fn is_attached(&self, tab_id: i64) -> bool {
        self.attached.lock().unwrap().contains(&tab_id)
    }

    pub fn connect_extension(&self, tx: mpsc::UnboundedSender<Outgoing>) -> bool {
        let mut slot = self.to_extension.lock().unwrap();
        if slot.as_ref().is_some_and(|s| !s.is_closed()) {
            return false;
        }
        *slot = Some(tx);
        true
    }

    /// The extension's socket closed: fail what waits for it.
    pub fn disconnect_extension(&self) {
        *self.to_extension.lock().unwrap() = None;
        self.attached.lock().unwrap().clear();
        for (_, waiter) in self.pending.lock().unwrap().drain() {
            let _ = waiter.send(Err("the extension disconnected".into()));
        }
    }

    pub fn connect_cdp(&self, tx: mpsc::UnboundedSender<Outgoing>) -> bool {
        let mut slot = self.to_cdp.lock().unwrap();
        if slot.as_ref().is_some_and(|s| !s.is_closed()) {
            return false;
        }
        *slot = Some(tx);
        true
    }

    /// Ends the CDP client's connection (the extension went away).
    pub fn close_cdp(&self, reason: &str) {
        if let Some(tx) = self.to_cdp.lock().unwrap().take() {
            let _ = tx.send(Outgoing::Close(1001, reason.to_string()));
        }
    }

    /// A frame to the CDP client, if one is connected.
    pub fn to_cdp(&self, frame: Value) {
        if let Some(tx) = self.to_cdp.lock().unwrap().as_ref() {
            let _ = tx.send(Outgoing::Text(frame.to_string()));
        }
    }

    /// A message to the extension with no answer expected.
    pub fn tell_extension(&self, message: Outgoing) -> bool {
        match self.to_extension.lock().unwrap().as_ref() {
            Some(tx) => tx.send(message).is_ok(),
            None => false,
        }
    }

    /// A request to the extension (`{"type": …}` gets an `id`); its answer.
    pub async fn ask_extension(&self, request: Value) -> Result<Value, String> {
        self.send_request(request).await
    }

    /// Sends a request to the extension now, in call order (commands such
    /// as a mouse press and its release must reach the tab in the order
    /// they were given); the returned future is its answer.
    pub fn send_request(&self, mut request: Value) -> impl std::future::Future<Output = Result<Value, String>> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        request["id"] = json!(id);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let sent = self.tell_extension(Outgoing::Text(request.to_string()));
        if !sent {
            self.pending.lock().unwrap().remove(&id);
        }
        async move {
            if !sent {
                return Err("the extension is not connected".into());
            }
            rx.await.unwrap_or_else(|_| Err("the extension disconnected".into()))
        }
    }

    /// The extension answered request `id`.
    pub fn answer(&self, id: u64, answer: Result<Value, String>) {
        if let Some(waiter) = self.pending.lock().unwrap().remove(&id) {
            let _ = waiter.send(answer);
        }
    }
}
