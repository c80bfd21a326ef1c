//! The stdio client's tool calls run in the order they arrive. rmcp runs
//! each request in a task of its own, and tokio's scheduler runs the task
//! spawned last first (its LIFO slot): calls that a client sent without
//! waiting for answers ran out of order, so a snapshot sent after a click
//! could describe the page before it. The transport numbers the calls as it
//! reads them, and each call waits for its turn.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::Mutex;

use rmcp::model::{ClientRequest, GetExtensions, JsonRpcMessage, JsonRpcRequest};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::Notify;

/// A tool call's place among the calls the client sent (0 first).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arrival(pub u64);

/// A transport that stamps each tool call it reads with its [`Arrival`].
pub(crate) struct Numbered<T> {
    inner: T,
    next: u64,
}

impl<T> Numbered<T> {
    pub(crate) fn new(inner: T) -> Numbered<T> {
        Numbered { inner, next: 0 }
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
            call.extensions_mut().insert(Arrival(self.next));
            self.next += 1;
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Whose turn it is among numbered calls.
#[derive(Default)]
pub(crate) struct Turns {
    state: Mutex<TurnState>,
    changed: Notify,
}

#[derive(Default)]
struct TurnState {
    /// The first arrival whose turn has not passed.
    next: u64,
    /// Later arrivals whose turns passed early (calls dropped while waiting).
    passed: BTreeSet<u64>,
}

impl Turns {
    /// Waits until every earlier arrival's turn has passed. The turn passes
    /// when the returned [`Turn`] drops, or at once if this wait is dropped
    /// (a cancelled call must not hold up the ones after it).
    pub(crate) async fn wait(&self, arrival: Arrival) -> Turn<'_> {
        let turn = Turn {
            turns: self,
            at: arrival.0,
        };
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.state.lock().expect("turns").next >= arrival.0 {
                return turn;
            }
            notified.await;
        }
    }
}

/// A call's turn: held while it runs.
pub(crate) struct Turn<'a> {
    turns: &'a Turns,
    at: u64,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut st = self.turns.state.lock().expect("turns");
        st.passed.insert(self.at);
        loop {
            let next = st.next;
            if !st.passed.remove(&next) {
                break;
            }
            st.next += 1;
        }
        drop(st);
        self.turns.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    /// Calls started in any order run in their arrival order; a call
    /// dropped before its turn does not hold up the next.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_take_turns_in_arrival_order() {
        let turns = Arc::new(Turns::default());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let first = turns.wait(Arrival(0)).await;
        let mut tasks = Vec::new();
        for at in [3u64, 1, 4] {
            let (turns, ran) = (turns.clone(), ran.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = turns.wait(Arrival(at)).await;
                ran.lock().unwrap().push(at);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }));
        }
        // Arrival 2 is cancelled while 0 runs.
        let waiting = tokio::time::timeout(Duration::from_millis(50), turns.wait(Arrival(2))).await;
        assert!(waiting.is_err(), "2 waits for 0 and 1");
        assert!(ran.lock().unwrap().is_empty(), "all wait for 0");
        drop(first);
        for t in tasks {
            tokio::time::timeout(Duration::from_secs(5), t).await.unwrap().unwrap();
        }
        assert_eq!(*ran.lock().unwrap(), [1, 3, 4]);
    }
}
