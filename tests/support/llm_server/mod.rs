//! A scripted fake LLM server for the end-to-end tests and benchmarks: it
//! listens on 127.0.0.1 and speaks four wire formats (OpenAI Chat
//! Completions, OpenAI Responses, Anthropic Messages, Gemini
//! `generateContent`), computer use included. It answers each accepted
//! request with the next reply a test scripted, records every request, and
//! rejects malformed requests the way the real APIs do (the provider's
//! status and error shape), so a client bug that a real provider would
//! refuse fails the tests instead of passing against a lenient fake.
//!
//! One module per concern: `http` (HTTP/1.1), `gate` (routing, keys,
//! headers, JSON), `check` (validation helpers), one per wire format
//! (`openai_chat`, `openai_responses`, `anthropic`, `gemini`: validation,
//! replies, errors), `recorded` (what tests read back, screenshots decoded
//! by `png`), `reply` (the script), `judge` (an evaluator's judge that
//! answers from the screenshot it is sent).
//!
//! ```ignore
//! let server = LlmServer::with_script(vec![Reply::tool("act", json!({"id": "e1"})), Reply::text("done")]);
//! // point the client at server.openai_base_url() / anthropic_base_url() / gemini_base_url()
//! server.assert_no_malformed();
//! ```

mod anthropic;
mod check;
#[cfg(test)]
mod fixtures;
mod gate;
mod gemini;
mod http;
mod ids;
pub mod judge;
mod openai_chat;
mod openai_responses;
mod png;
mod recorded;
mod reply;

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

use gate::gate;
use http::{encode, Conn, HttpRequest, ReadError, Response};
use ids::{clip, fake_id, floor_char, seed};
pub use png::Png;
pub use recorded::Recorded;
pub use reply::Reply;

/// A model name the server does not know: answered with the provider's real
/// "model not found" response (no scripted reply is consumed).
pub const UNKNOWN_MODEL: &str = "no-such-model";
/// An API key the server refuses (no scripted reply is consumed).
pub const BAD_KEY: &str = "bad-key";

/// The wire formats, one per API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions: `POST /v1/chat/completions`.
    OpenAi,
    /// Anthropic Messages: `POST /v1/messages`.
    Anthropic,
    /// OpenAI Responses: `POST /v1/responses`.
    OpenAiResponses,
    /// Gemini: `POST /v1beta/models/{model}:generateContent`.
    Gemini,
}

impl Wire {
    /// The wire of a request line, if the path is one of the APIs'.
    fn route(method: &str, path: &str) -> Option<Wire> {
        if method != "POST" {
            return None;
        }
        match path {
            "/v1/chat/completions" => Some(Wire::OpenAi),
            "/v1/messages" => Some(Wire::Anthropic),
            "/v1/responses" => Some(Wire::OpenAiResponses),
            p if gemini::model_in_path(p).is_some() => Some(Wire::Gemini),
            _ => None,
        }
    }
}

/// What a scripted reply renders to, before it takes a wire's shape.
pub(crate) struct RenderCtx {
    pub index: usize,
    pub port: u16,
    pub cached_tokens: u64,
}

/// What the assistant says, independent of the wire format.
pub(crate) enum Answer {
    Text(String),
    Calls(Vec<(String, Value)>),
    /// OpenAI Responses computer_call: `action` (one) or `actions` (a batch), checks.
    Computer {
        actions: Vec<Value>,
        batch: bool,
        safety_checks: Vec<Value>,
    },
}

// The server

/// Answers every request the script has no reply for ([`LlmServer::answering`]).
type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

struct State {
    script: VecDeque<Reply>,
    responder: Option<Responder>,
    log: Vec<Recorded>,
    /// Requests that consumed a scripted reply.
    consumed: usize,
    cached_tokens: u64,
    /// OpenAI Responses answered so far, by id: what a request chaining on
    /// one (`previous_response_id`) must answer.
    issued: HashMap<String, openai_responses::Issued>,
}

/// A test's view of the state; a panicking test must not poison the others.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The scripted server, on its own thread with a current-thread runtime (as
/// `FixtureServer`), so tests may block freely. Stops on drop.
pub struct LlmServer {
    port: u16,
    state: Arc<Mutex<State>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LlmServer {
    /// A server with an empty script.
    pub fn start() -> LlmServer {
        LlmServer::with_script(Vec::new())
    }

    pub fn with_script(replies: Vec<Reply>) -> LlmServer {
        LlmServer::spawn(replies, None)
    }

    /// A server that answers every request with `f` (after any scripted
    /// replies pushed later): a stand-in model for benchmarks.
    pub fn answering(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> LlmServer {
        LlmServer::spawn(Vec::new(), Some(Arc::new(f)))
    }

    fn spawn(replies: Vec<Reply>, responder: Option<Responder>) -> LlmServer {
        let state = Arc::new(Mutex::new(State {
            script: replies.into(),
            responder,
            log: Vec::new(),
            consumed: 0,
            cached_tokens: 0,
            issued: HashMap::new(),
        }));
        let shared = state.clone();
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
                let port = listener.local_addr().unwrap().port();
                port_tx.send(port).unwrap();
                let accept = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                            continue;
                        };
                        let _ = sock.set_nodelay(true);
                        let state = shared.clone();
                        tokio::spawn(serve_connection(sock, state, port));
                    }
                };
                tokio::select! {
                    _ = accept => {}
                    _ = stop_rx => {}
                }
            });
            // Dropping the runtime here cancels connections still open
            // (a Delay reply that nobody waits for any more).
        });
        let port = port_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("LLM server started");
        LlmServer {
            port,
            state,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// Appends a reply to the script.
    pub fn push(&self, r: Reply) {
        lock(&self.state).script.push_back(r);
    }

    /// Cached prompt tokens reported in every later response's usage (capped
    /// at the prompt size).
    pub fn set_cached_tokens(&self, n: u64) {
        lock(&self.state).cached_tokens = n;
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT/v1` (OpenAI clients append `/chat/completions`).
    pub fn openai_base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// `http://127.0.0.1:PORT` (Anthropic clients append `/v1/messages`).
    pub fn anthropic_base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT` (Gemini clients append
    /// `/v1beta/models/{model}:generateContent`).
    pub fn gemini_base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, rejected ones included.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state).log.clone()
    }

    /// Requests that were accepted and consumed a scripted reply.
    pub fn request_count(&self) -> usize {
        lock(&self.state).consumed
    }

    pub fn rejected(&self) -> Vec<Recorded> {
        lock(&self.state)
            .log
            .iter()
            .filter(|r| r.rejected.is_some())
            .cloned()
            .collect()
    }

    /// Scripted replies not consumed yet.
    pub fn remaining(&self) -> usize {
        lock(&self.state).script.len()
    }

    /// Panics listing every rejected request (reason and the start of its body).
    pub fn assert_no_malformed(&self) {
        let rejected = self.rejected();
        if rejected.is_empty() {
            return;
        }
        let list: Vec<String> = rejected
            .iter()
            .map(|r| {
                format!(
                    "  #{} {} ({:?}): {}\n    body: {}",
                    r.index,
                    r.path,
                    r.wire,
                    r.rejected.as_deref().unwrap_or_default(),
                    clip(&r.raw, 400)
                )
            })
            .collect();
        panic!(
            "the scripted LLM server rejected {} request(s):\n{}",
            rejected.len(),
            list.join("\n")
        );
    }

    /// Panics if `secret` occurs in any request's body (raw or JSON-escaped),
    /// headers or path, naming the request.
    pub fn assert_never_saw(&self, secret: &str) {
        assert!(!secret.is_empty(), "assert_never_saw needs a non-empty secret");
        let escaped = serde_json::to_string(secret).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        for r in self.requests() {
            for needle in [secret, escaped] {
                if let Some(at) = r.raw.find(needle) {
                    let from = floor_char(&r.raw, at.saturating_sub(60));
                    let to = floor_char(&r.raw, (at + needle.len() + 60).min(r.raw.len()));
                    panic!(
                        "request #{} ({}) sent the secret {secret:?} in its body: …{}…",
                        r.index,
                        r.path,
                        &r.raw[from..to]
                    );
                }
            }
            for (k, v) in &r.headers {
                assert!(
                    !k.contains(secret) && !v.contains(secret),
                    "request #{} ({}) sent the secret {secret:?} in its {k} header",
                    r.index,
                    r.path
                );
            }
            assert!(
                !r.path.contains(secret),
                "request #{} sent the secret {secret:?} in its path",
                r.index
            );
        }
    }
}

impl Drop for LlmServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves requests on one connection until the client closes it or asks to.
async fn serve_connection<S: AsyncRead + AsyncWrite + Unpin>(io: S, state: Arc<Mutex<State>>, port: u16) {
    let mut conn = Conn { io, buf: Vec::new() };
    loop {
        let req = match conn.read_request().await {
            Ok(Some(req)) => req,
            Ok(None) | Err(ReadError::Closed) => return,
            Err(ReadError::Malformed { target, reason }) => {
                let reason = format!("malformed HTTP: {reason}");
                {
                    let mut st = lock(&state);
                    let index = st.log.len();
                    st.log.push(Recorded {
                        index,
                        wire: None,
                        path: target,
                        headers: Vec::new(),
                        body: Value::Null,
                        raw: String::new(),
                        rejected: Some(reason.clone()),
                        at: Instant::now(),
                    });
                }
                let _ = conn
                    .io
                    .write_all(&encode(&error_response(None, 400, &reason), true))
                    .await;
                let _ = conn.io.shutdown().await;
                return;
            }
        };
        let close = req.wants_close();
        let Some(resp) = handle(&state, port, &mut conn, req).await else {
            return; // the client gave up on a delayed reply
        };
        if conn.io.write_all(&encode(&resp, close)).await.is_err() || conn.io.flush().await.is_err() {
            return;
        }
        if close {
            let _ = conn.io.shutdown().await;
            return;
        }
    }
}

/// Records the request and works out the answer: a fixed response when the
/// gate refuses it, else the next scripted reply.
async fn handle<S: AsyncRead + AsyncWrite + Unpin>(
    state: &Arc<Mutex<State>>,
    port: u16,
    conn: &mut Conn<S>,
    req: HttpRequest,
) -> Option<Response> {
    let raw = String::from_utf8_lossy(&req.body).into_owned();
    let (body, parse_error) = match serde_json::from_str::<Value>(&raw) {
        Ok(v) => (v, None),
        Err(e) => (Value::Null, Some(e.to_string())),
    };
    let path_only = req.target.split('?').next().unwrap_or_default();
    let wire = Wire::route(&req.method, path_only);
    let mut rec = Recorded {
        index: 0,
        wire,
        path: req.target.clone(),
        headers: req.headers,
        body,
        raw,
        rejected: None,
        at: Instant::now(),
    };
    let verdict = gate(&req.method, &rec, parse_error.as_deref());

    // One lock for recording and taking the reply, so log order and script
    // order agree even with concurrent connections.
    let (reply, cached_tokens) = {
        let mut st = lock(state);
        rec.index = st.log.len();
        // Chaining (previous_response_id) is checked against what this
        // server answered before.
        let verdict = verdict.or_else(|| match wire {
            Some(Wire::OpenAiResponses) => openai_responses::check_chain(&rec.body, &st.issued)
                .err()
                .and_then(|why| gate::refuse(wire, 400, &why)),
            _ => None,
        });
        let reply = match verdict {
            Some(v) => {
                rec.rejected = v.rejected;
                st.log.push(rec);
                return Some(with_request_id(v.response, wire, port, st.log.len() - 1));
            }
            None => st
                .script
                .pop_front()
                .or_else(|| st.responder.clone().map(Reply::Dynamic)),
        };
        let Some(reply) = reply else {
            rec.rejected = Some("no scripted reply".into());
            let message = format!("scripted LLM server: no reply scripted for request {}", rec.index);
            st.log.push(rec);
            return Some(error_response(wire, 400, &message));
        };
        st.consumed += 1;
        st.log.push(rec.clone());
        (reply, st.cached_tokens)
    };
    let wire = wire.expect("the gate only admits known endpoints");
    let ctx = RenderCtx {
        index: rec.index,
        port,
        cached_tokens,
    };
    let mut reply = reply;
    loop {
        match reply {
            Reply::Delay { ms, then } => {
                if !conn.wait_or_hangup(ms).await {
                    return None;
                }
                reply = *then;
            }
            Reply::Dynamic(f) => match catch_unwind(AssertUnwindSafe(|| f(&rec))) {
                Ok(next) => reply = next,
                Err(panic) => {
                    // Fail the call at once (400 is not retried) and leave a
                    // trace for assert_no_malformed.
                    let msg = panic_message(&panic);
                    let reason = format!("the Dynamic reply panicked: {msg}");
                    if let Some(r) = lock(state).log.get_mut(rec.index) {
                        r.rejected = Some(reason.clone());
                    }
                    let message = format!("scripted LLM server: request {}: {reason}", rec.index);
                    return Some(error_response(Some(wire), 400, &message));
                }
            },
            other => {
                let response = render(&other, wire, &rec, &ctx);
                if wire == Wire::OpenAiResponses && response.status == 200 {
                    if let Some((id, issued)) = openai_responses::issued(&response.body_json()) {
                        lock(state).issued.insert(id, issued);
                    }
                }
                return Some(with_request_id(response, Some(wire), port, rec.index));
            }
        }
    }
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic)".into()
    }
}

/// The providers' request-id headers.
fn with_request_id(mut r: Response, wire: Option<Wire>, port: u16, index: usize) -> Response {
    let id = format!("req_{}", fake_id(seed(port, index, 9, 0), 24));
    let name = match wire {
        Some(Wire::Anthropic) => "request-id",
        Some(Wire::Gemini) => "x-goog-request-id",
        _ => "x-request-id",
    };
    if r.header(name).is_none() {
        r.headers.push((name.into(), id));
    }
    r
}

// Rendering

/// A terminal reply as an HTTP response. (Delay and Dynamic are resolved by
/// the connection handler; here they render at once, for unit tests.)
pub(crate) fn render(reply: &Reply, wire: Wire, rec: &Recorded, ctx: &RenderCtx) -> Response {
    let answer = match reply {
        Reply::Status { code, body, headers } => {
            let mut r = match body {
                Some(b) => Response::json(*code, b.clone()),
                None => default_error(wire, *code),
            };
            r.headers.extend(headers.iter().cloned());
            return r;
        }
        Reply::RawBody(s) => return Response::json(200, s.clone()),
        Reply::Delay { then, .. } => return render(then, wire, rec, ctx),
        Reply::Dynamic(f) => return render(&f(rec), wire, rec, ctx),
        Reply::Tool { name, args } => Answer::Calls(vec![(name.clone(), args.clone())]),
        Reply::Tools(calls) => Answer::Calls(calls.clone()),
        Reply::Text(s) => Answer::Text(s.clone()),
        Reply::Json(v) => match rec.forced_tool() {
            _ if rec.has_response_format() => Answer::Text(v.to_string()),
            Some(tool) => Answer::Calls(vec![(tool, v.clone())]),
            None => Answer::Text(v.to_string()),
        },
        Reply::Computer {
            actions,
            batch,
            safety_checks,
        } => {
            if wire != Wire::OpenAiResponses {
                // A script written for another provider: fail loudly.
                return error_response(
                    Some(wire),
                    500,
                    "scripted LLM server: a computer_call reply only exists in the OpenAI Responses API",
                );
            }
            Answer::Computer {
                actions: actions.clone(),
                batch: *batch,
                safety_checks: safety_checks.clone(),
            }
        }
    };
    let body = match wire {
        Wire::OpenAi => openai_chat::success(answer, rec, ctx),
        Wire::Anthropic => anthropic::success(answer, rec, ctx),
        Wire::OpenAiResponses => openai_responses::success(answer, rec, ctx),
        Wire::Gemini => gemini::success(answer, rec, ctx),
    };
    Response::json(200, body.to_string())
}

/// Prompt tokens ≈ request chars / 4; output ≈ answer chars / 4.
pub(crate) fn token_counts(rec: &Recorded, ctx: &RenderCtx, answer_chars: usize) -> (u64, u64, u64) {
    let prompt = (rec.raw.chars().count() as u64 / 4).max(1);
    let cached = ctx.cached_tokens.min(prompt);
    let completion = (answer_chars as u64 / 4).max(1);
    (prompt, cached, completion)
}

/// A 4xx/5xx in the wire's shape (OpenAI's when the wire is unknown).
pub(crate) fn error_response(wire: Option<Wire>, status: u16, message: &str) -> Response {
    match wire {
        Some(Wire::Anthropic) => anthropic::error(status, anthropic::error_type(status), message),
        Some(Wire::Gemini) => gemini::error(status, message),
        _ => {
            let kind = if status >= 500 {
                "server_error"
            } else {
                "invalid_request_error"
            };
            openai_chat::error(status, message, kind, None)
        }
    }
}

/// What the providers answer with these statuses (for `Reply::status`).
fn default_error(wire: Wire, code: u16) -> Response {
    match wire {
        Wire::OpenAi | Wire::OpenAiResponses => openai_chat::default_error(code),
        Wire::Anthropic => anthropic::default_error(code),
        Wire::Gemini => gemini::default_error(code),
    }
}

#[cfg(test)]
mod tests;
