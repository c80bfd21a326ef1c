//! The stdio client's tool calls run in the order they arrive. rmcp runs
//! each request in a task of its own, and tokio's scheduler runs the task
//! spawned last first (its LIFO slot): calls that a client sent without
//! waiting for answers ran out of order, so a snapshot sent after a click
//! could describe the page before it. The transport gives each tool call a
//! ticket as it reads it; a call waits until the tickets before its own
//! are gone. A ticket rides in the request's extensions, so it goes
//! wherever the request goes: with the call's context when the call ends,
//! or with the request when rmcp turns it away or the client cancels it
//! first. No ticket is left to hold up the calls after it.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex};

use rmcp::model::{ClientRequest, GetExtensions, JsonRpcMessage, JsonRpcRequest};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::Notify;

/// A tool call's place among the calls the client sent; its turn passes
/// when the last clone of it is dropped.
#[derive(Clone)]
pub(crate) struct Ticket(Arc<Place>);

struct Place {
    turns: Arc<Turns>,
    at: u64,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.turns.pass(self.at);
    }
}

/// A transport that gives each tool call it reads a [`Ticket`].
pub(crate) struct Numbered<T> {
    inner: T,
    turns: Arc<Turns>,
    next: u64,
}

impl<T> Numbered<T> {
    pub(crate) fn new(inner: T, turns: Arc<Turns>) -> Numbered<T> {
        Numbered { inner, turns, next: 0 }
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Numbered<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let mut message = self.inner.receive().await?;
        if let JsonRpcMessage::Request(JsonRpcRequest {
            request: ClientRequest::CallToolRequest(call),
            ..
        }) = &mut message
        {
            call.extensions_mut().insert(Ticket(Arc::new(Place {
                turns: self.turns.clone(),
                at: self.next,
            })));
            self.next += 1;
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Whose turn it is among the tickets.
#[derive(Default)]
pub(crate) struct Turns {
    state: Mutex<TurnState>,
    changed: Notify,
}

#[derive(Default)]
struct TurnState {
    /// The first ticket whose turn has not passed.
    next: u64,
    /// Later tickets whose turns passed early (dropped before their turn).
    passed: BTreeSet<u64>,
}

impl Turns {
    /// Resolves once the turns of every ticket before `ticket` have passed.
    pub(crate) async fn until(&self, ticket: &Ticket) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.state.lock().expect("turns").next >= ticket.0.at {
                return;
            }
            notified.await;
        }
    }

    fn pass(&self, at: u64) {
        let mut st = self.state.lock().expect("turns");
        st.passed.insert(at);
        loop {
            let next = st.next;
            if !st.passed.remove(&next) {
                break;
            }
            st.next += 1;
        }
        drop(st);
        self.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ticket(turns: &Arc<Turns>, at: u64) -> Ticket {
        Ticket(Arc::new(Place {
            turns: turns.clone(),
            at,
        }))
    }

    /// Calls started in any order run in their tickets' order; a ticket
    /// dropped before its turn (a request turned away, a cancelled call)
    /// does not hold up the next.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_take_turns_in_ticket_order() {
        let turns = Arc::new(Turns::default());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let first = ticket(&turns, 0);
        let never_run = ticket(&turns, 2);
        let mut tasks = Vec::new();
        for at in [3u64, 1, 4] {
            let (turns, ran, own) = (turns.clone(), ran.clone(), ticket(&turns, at));
            tasks.push(tokio::spawn(async move {
                turns.until(&own).await;
                ran.lock().unwrap().push(at);
                tokio::time::sleep(Duration::from_millis(5)).await;
                drop(own);
            }));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(ran.lock().unwrap().is_empty(), "all wait for the first ticket");
        drop(first);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(*ran.lock().unwrap(), [1], "3 waits for 2");
        drop(never_run);
        for t in tasks {
            tokio::time::timeout(Duration::from_secs(5), t).await.unwrap().unwrap();
        }
        assert_eq!(*ran.lock().unwrap(), [1, 3, 4]);
    }
}
