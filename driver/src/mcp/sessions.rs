//! The HTTP server's MCP sessions, bounded: at most `max` at once (a new
//! one beyond that is refused, so no client loses a session it still uses),
//! and each closed once it has been idle for `idle`: no request in flight
//! and none for that long. Closing a session ends its handler, which closes
//! its browser context (its tabs and their memory); a client that went away
//! without ending its session (no DELETE) is covered the same way.
//!
//! Wraps rmcp's in-memory session manager, adding the bookkeeping.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};

/// Use of one session.
struct Activity {
    /// When its last request ended (or it began).
    last: Instant,
    /// Requests whose answer is still being sent.
    in_flight: usize,
}

type Book = Arc<Mutex<HashMap<SessionId, Activity>>>;

pub(super) struct Sessions {
    inner: LocalSessionManager,
    max: usize,
    /// `None`: sessions never expire.
    idle: Option<Duration>,
    book: Book,
    /// One session created at a time, so the cap holds under a burst.
    creating: tokio::sync::Mutex<()>,
    /// Sessions closed since memory was last given back.
    closed: AtomicUsize,
}

/// Returns freed heap memory to the system. glibc's malloc keeps what a
/// burst of sessions freed (thousands of them: some 200 MB) for reuse, so
/// the server's RSS would stay at its peak; trimming brings it back down.
fn give_back_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free heap pages; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[derive(Debug, thiserror::Error)]
pub(super) enum SessionsError {
    #[error("{0}")]
    Full(String),
    #[error(transparent)]
    Inner(#[from] LocalSessionManagerError),
}

impl Sessions {
    /// At most `max` sessions, each closed after `idle` without use (zero: never).
    pub(super) fn new(max: usize, idle: Duration) -> Sessions {
        let idle = (!idle.is_zero()).then_some(idle);
        let mut inner = LocalSessionManager::default();
        // rmcp's own idle limit stays as a backstop, behind ours (which
        // knows a long tool call is no idleness).
        inner.session_config.keep_alive = idle.map(|i| i + Duration::from_secs(60));
        Sessions {
            inner,
            max: max.max(1),
            idle,
            book: Arc::new(Mutex::new(HashMap::new())),
            creating: tokio::sync::Mutex::new(()),
            closed: AtomicUsize::new(0),
        }
    }

    /// Live sessions.
    pub(super) fn count(&self) -> usize {
        self.book.lock().unwrap().len()
    }

    /// Why a new session would be refused now, if it would.
    pub(super) fn refusal(&self) -> Option<String> {
        let n = self.count();
        (n >= self.max).then(|| {
            format!(
                "too many MCP sessions: {n} are open, the most this server allows (--max-sessions {}). End one \
(HTTP DELETE with its Mcp-Session-Id), or wait until one has been idle for --session-idle and is closed.",
                self.max
            )
        })
    }

    /// How often to [`Sessions::tidy`].
    pub(super) fn tidy_every(&self) -> Duration {
        self.idle.map_or(Duration::from_secs(15), |i| {
            (i / 4).clamp(Duration::from_millis(100), Duration::from_secs(15))
        })
    }

    /// Closes the sessions idle for longer than the limit, and gives the
    /// memory of the sessions closed since the last call back to the system.
    pub(super) async fn tidy(&self) {
        if let Some(idle) = self.idle {
            let expired: Vec<SessionId> = self
                .book
                .lock()
                .unwrap()
                .iter()
                .filter(|(_, a)| a.in_flight == 0 && a.last.elapsed() >= idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &expired {
                tracing::info!(session = %id, "closing an MCP session idle for {}s", idle.as_secs_f64());
                let _ = self.close_session(id).await;
            }
        }
        if self.closed.swap(0, Ordering::Relaxed) > 0 {
            give_back_memory();
        }
    }

    fn touch(&self, id: &SessionId) {
        if let Some(a) = self.book.lock().unwrap().get_mut(id) {
            a.last = Instant::now();
        }
    }

    /// Counts a request in flight until `stream` (its answer) is dropped.
    fn in_flight<S: Stream<Item = ServerSseMessage> + Send + Sync + 'static>(
        &self,
        id: &SessionId,
        stream: S,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        if let Some(a) = self.book.lock().unwrap().get_mut(id) {
            a.in_flight += 1;
        }
        let guard = InFlight {
            book: self.book.clone(),
            id: id.clone(),
        };
        stream.map(move |m| {
            let _ = &guard;
            m
        })
    }
}

/// Ends a request's stay in flight when its answer stream is dropped.
struct InFlight {
    book: Book,
    id: SessionId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(a) = self.book.lock().unwrap().get_mut(&self.id) {
            a.in_flight = a.in_flight.saturating_sub(1);
            a.last = Instant::now();
        }
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _one_at_a_time = self.creating.lock().await;
        if let Some(why) = self.refusal() {
            return Err(SessionsError::Full(why));
        }
        let (id, transport) = self.inner.create_session().await?;
        self.book.lock().unwrap().insert(
            id.clone(),
            Activity {
                last: Instant::now(),
                in_flight: 0,
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        if self.book.lock().unwrap().remove(id).is_some() {
            self.closed.fetch_add(1, Ordering::Relaxed);
        }
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        let stream = self.inner.create_stream(id, message).await?;
        Ok(self.in_flight(id, stream))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    /// A standing GET stream is a way to be told things, not use: it keeps
    /// no session alive.
    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
