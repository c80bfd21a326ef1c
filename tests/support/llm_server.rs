//! A scripted fake LLM server for the end-to-end tests: it listens on
//! 127.0.0.1, speaks the OpenAI Chat Completions and Anthropic Messages wire
//! formats, answers each accepted request with the next reply a test
//! scripted, records every request, and rejects malformed requests the way
//! the real APIs do (400 in the provider's error shape), so a client bug
//! that a real provider would refuse fails the tests instead of passing
//! against a lenient fake.
//!
//! ```ignore
//! let server = LlmServer::with_script(vec![Reply::tool("act", json!({"id": "e1"})), Reply::text("done")]);
//! // point the client at server.openai_base_url() / server.anthropic_base_url()
//! server.assert_no_malformed();
//! ```

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

/// A model name the server does not know: answered with the provider's real
/// "model not found" response (no scripted reply is consumed).
pub const UNKNOWN_MODEL: &str = "no-such-model";
/// An API key the server refuses with 401 (no scripted reply is consumed).
pub const BAD_KEY: &str = "bad-key";
/// `anthropic-version` values the real API accepts.
const ANTHROPIC_VERSIONS: &[&str] = &["2023-06-01", "2023-01-01"];

const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;

// ---------------------------------------------------------------------------
// Recorded requests
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// One request as the server saw it (accepted or rejected).
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Position in [`LlmServer::requests`], from 0.
    pub index: usize,
    /// Which API the path belongs to (None: unknown path or broken HTTP).
    pub wire: Option<Wire>,
    /// The request target as sent (path and query).
    pub path: String,
    /// Header names lowercased, values trimmed, in order.
    pub headers: Vec<(String, String)>,
    /// The parsed body (Null when it is not JSON).
    pub body: Value,
    /// The body as text.
    pub raw: String,
    /// Why the server refused the request, if it did.
    pub rejected: Option<String>,
}

impl Recorded {
    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    fn is_anthropic(&self) -> bool {
        self.wire == Some(Wire::Anthropic)
    }

    /// Everything the model was shown, one piece per line: system prompt,
    /// message text and content parts, tool results, tool call arguments,
    /// tool descriptions and schemas, the response schema. Images are left
    /// out. For asserting what did (or did not) reach the model.
    pub fn prompt_text(&self) -> String {
        let b = &self.body;
        let mut out = Vec::new();
        if self.is_anthropic() {
            push_content(&mut out, &b["system"]);
            for m in arr(&b["messages"]) {
                push_content(&mut out, &m["content"]);
            }
            for t in arr(&b["tools"]) {
                push_any(&mut out, &t["description"]);
                push_any(&mut out, &t["input_schema"]);
            }
        } else {
            for m in arr(&b["messages"]) {
                push_content(&mut out, &m["content"]);
                for c in arr(&m["tool_calls"]) {
                    push_any(&mut out, &c["function"]["arguments"]);
                }
            }
            for t in arr(&b["tools"]) {
                push_any(&mut out, &t["function"]["description"]);
                push_any(&mut out, &t["function"]["parameters"]);
            }
            let js = &b["response_format"]["json_schema"];
            push_any(&mut out, &js["description"]);
            push_any(&mut out, &js["schema"]);
        }
        out.join("\n")
    }

    /// The newest input the model sees: the last user turn. For Anthropic
    /// that is the last `user` message (text and tool_result contents); for
    /// OpenAI every `user` and `tool` message after the last assistant
    /// message (the same turn, split into several wire messages).
    pub fn last_user_text(&self) -> String {
        let msgs = arr(&self.body["messages"]);
        let mut out = Vec::new();
        if !self.is_anthropic() {
            let start = msgs.iter().rposition(|m| m["role"] == "assistant").map_or(0, |i| i + 1);
            for m in &msgs[start..] {
                if m["role"] == "user" || m["role"] == "tool" {
                    push_content(&mut out, &m["content"]);
                }
            }
        }
        if out.is_empty() {
            if let Some(m) = msgs.iter().rev().find(|m| m["role"] == "user") {
                push_content(&mut out, &m["content"]);
            }
        }
        out.join("\n")
    }

    /// Names of the declared tools, in order.
    pub fn tool_names(&self) -> Vec<String> {
        arr(&self.body["tools"])
            .iter()
            .filter_map(|t| t.get("function").map_or(t.get("name"), |f| f.get("name")))
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    }

    /// The tool the request forces: OpenAI `{"type":"function","function":{name}}`,
    /// Anthropic `{"type":"tool","name"}`.
    pub fn forced_tool(&self) -> Option<String> {
        let c = &self.body["tool_choice"];
        let name = match c["type"].as_str() {
            Some("function") => c["function"]["name"].as_str(),
            Some("tool") => c["name"].as_str(),
            _ => None,
        };
        name.map(str::to_string)
    }

    /// Whether an OpenAI request asks for a `response_format`.
    pub fn has_response_format(&self) -> bool {
        !self.body["response_format"].is_null()
    }
}

fn arr(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// Strings as they are, other JSON as JSON text, null skipped.
fn push_any(out: &mut Vec<String>, v: &Value) {
    match v {
        Value::Null => {}
        Value::String(s) => out.push(s.clone()),
        other => out.push(other.to_string()),
    }
}

/// Message content of either wire format: a string, or blocks/parts whose
/// text, tool_use input and tool_result content count (images do not).
fn push_content(out: &mut Vec<String>, content: &Value) {
    match content {
        Value::String(s) => out.push(s.clone()),
        Value::Array(blocks) => {
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => push_any(out, &b["text"]),
                    Some("tool_use") => push_any(out, &b["input"]),
                    Some("tool_result") => push_content(out, &b["content"]),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// Scripted replies
// ---------------------------------------------------------------------------

/// What the server answers to the next accepted request.
#[derive(Clone)]
pub enum Reply {
    /// One tool call.
    Tool { name: String, args: Value },
    /// Several tool calls in one answer.
    Tools(Vec<(String, Value)>),
    /// Structured output, shaped as the request asked for it (see [`Reply::json`]).
    Json(Value),
    /// Plain assistant text.
    Text(String),
    /// An error status; `body: None` means the provider's error shape.
    Status {
        code: u16,
        body: Option<String>,
        headers: Vec<(String, String)>,
    },
    /// 200 with this body verbatim (for malformed-JSON tests).
    RawBody(String),
    /// Waits, then answers `then` (for timeouts; dropped if the client hung up).
    Delay { ms: u64, then: Box<Reply> },
    /// Decides from the request.
    Dynamic(Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>),
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Tool { name, args } => write!(f, "Tool({name}, {args})"),
            Reply::Tools(calls) => write!(f, "Tools({calls:?})"),
            Reply::Json(v) => write!(f, "Json({v})"),
            Reply::Text(s) => write!(f, "Text({s:?})"),
            Reply::Status { code, .. } => write!(f, "Status({code})"),
            Reply::RawBody(s) => write!(f, "RawBody({s:?})"),
            Reply::Delay { ms, then } => write!(f, "Delay({ms} ms, {then:?})"),
            Reply::Dynamic(_) => write!(f, "Dynamic"),
        }
    }
}

impl Reply {
    pub fn tool(name: impl Into<String>, args: Value) -> Reply {
        Reply::Tool {
            name: name.into(),
            args,
        }
    }

    pub fn tools<S: Into<String>>(calls: Vec<(S, Value)>) -> Reply {
        Reply::Tools(calls.into_iter().map(|(n, a)| (n.into(), a)).collect())
    }

    /// JSON the way the request wants it: OpenAI with `response_format` →
    /// message content; a forced tool (either wire) → a call of that tool
    /// with the value as arguments; otherwise text holding the JSON.
    pub fn json(v: Value) -> Reply {
        Reply::Json(v)
    }

    pub fn text(s: impl Into<String>) -> Reply {
        Reply::Text(s.into())
    }

    pub fn status(code: u16) -> Reply {
        Reply::Status {
            code,
            body: None,
            headers: Vec::new(),
        }
    }

    /// `Reply::status_with(429, &[("Retry-After", "1")], None)`.
    pub fn status_with(code: u16, headers: &[(&str, &str)], body: Option<&str>) -> Reply {
        Reply::Status {
            code,
            body: body.map(str::to_string),
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    pub fn raw(s: impl Into<String>) -> Reply {
        Reply::RawBody(s.into())
    }

    pub fn delay(ms: u64, then: Reply) -> Reply {
        Reply::Delay {
            ms,
            then: Box::new(then),
        }
    }

    pub fn dynamic(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Reply {
        Reply::Dynamic(Arc::new(f))
    }
}

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

/// Answers every request the script has no reply for ([`LlmServer::answering`]).
type Responder = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

struct State {
    script: VecDeque<Reply>,
    responder: Option<Responder>,
    log: Vec<Recorded>,
    /// Requests that consumed a scripted reply.
    consumed: usize,
    cached_tokens: u64,
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

// ---------------------------------------------------------------------------
// HTTP/1.1
// ---------------------------------------------------------------------------

/// One parsed request.
struct HttpRequest {
    method: String,
    target: String,
    http10: bool,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// HTTP/1.1 keeps the connection unless told otherwise; 1.0 the reverse.
    fn wants_close(&self) -> bool {
        let c = self.header("connection").unwrap_or("").to_ascii_lowercase();
        let tokens: Vec<&str> = c.split(',').map(str::trim).collect();
        tokens.contains(&"close") || (self.http10 && !tokens.contains(&"keep-alive"))
    }
}

enum ReadError {
    /// The peer went away (or the socket failed): nothing to answer.
    Closed,
    /// Broken HTTP: answered with 400 and the connection closed.
    Malformed { target: String, reason: String },
}

impl From<std::io::Error> for ReadError {
    fn from(_: std::io::Error) -> Self {
        ReadError::Closed
    }
}

fn malformed(reason: impl Into<String>) -> ReadError {
    ReadError::Malformed {
        target: String::new(),
        reason: reason.into(),
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A connection with its read buffer (bytes of the next request may arrive
/// with the current one; keep-alive reuses the connection).
struct Conn<S> {
    io: S,
    buf: Vec<u8>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Conn<S> {
    async fn fill(&mut self) -> std::io::Result<usize> {
        let mut chunk = [0u8; 16 * 1024];
        let n = self.io.read(&mut chunk).await?;
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(n)
    }

    /// Exactly `n` bytes.
    async fn take(&mut self, n: usize) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < n {
            if self.fill().await? == 0 {
                return Err(ReadError::Closed);
            }
        }
        Ok(self.buf.drain(..n).collect())
    }

    /// One CRLF-terminated line (without the CRLF).
    async fn read_line(&mut self) -> Result<String, ReadError> {
        loop {
            if let Some(p) = find(&self.buf, b"\r\n") {
                let line = String::from_utf8_lossy(&self.buf[..p]).into_owned();
                self.buf.drain(..p + 2);
                return Ok(line);
            }
            if self.buf.len() > 8 * 1024 {
                return Err(malformed("line longer than 8 KiB in the chunked body"));
            }
            if self.fill().await? == 0 {
                return Err(ReadError::Closed);
            }
        }
    }

    /// The next request; `Ok(None)` when the client closed between requests.
    async fn read_request(&mut self) -> Result<Option<HttpRequest>, ReadError> {
        let head_end = loop {
            // Stray CRLFs between requests are allowed (RFC 9112 §2.2).
            while self.buf.starts_with(b"\r\n") {
                self.buf.drain(..2);
            }
            if let Some(p) = find(&self.buf, b"\r\n\r\n") {
                break p;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(malformed("request head larger than 64 KiB"));
            }
            if self.fill().await? == 0 {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(ReadError::Closed)
                };
            }
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        self.buf.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or_default();
        let parts: Vec<&str> = request_line.split(' ').collect();
        if parts.len() != 3 || !parts[2].starts_with("HTTP/1.") || parts[0].is_empty() {
            return Err(malformed(format!("bad request line {request_line:?}")));
        }
        let target = parts[1].to_string();
        let at = |e: ReadError| match e {
            ReadError::Malformed { reason, .. } => ReadError::Malformed {
                target: target.clone(),
                reason,
            },
            closed => closed,
        };
        let mut headers = Vec::new();
        for line in lines {
            if line.starts_with(' ') || line.starts_with('\t') {
                return Err(at(malformed("obsolete header line folding")));
            }
            match line.split_once(':') {
                Some((k, v)) if !k.is_empty() && !k.ends_with(' ') => {
                    headers.push((k.to_ascii_lowercase(), v.trim().to_string()))
                }
                _ => return Err(at(malformed(format!("bad header line {line:?}")))),
            }
        }
        let mut req = HttpRequest {
            method: parts[0].to_string(),
            target: target.clone(),
            http10: parts[2] == "HTTP/1.0",
            headers,
            body: Vec::new(),
        };
        let lengths: Vec<&str> = req
            .headers
            .iter()
            .filter(|(k, _)| k == "content-length")
            .map(|(_, v)| v.as_str())
            .collect();
        let expect_continue = req
            .header("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"));
        if let Some(te) = req.header("transfer-encoding") {
            let te = te.to_ascii_lowercase();
            if te.split(',').map(str::trim).next_back() != Some("chunked") {
                return Err(at(malformed(format!("unsupported Transfer-Encoding {te:?}"))));
            }
            if !lengths.is_empty() {
                // Both framings at once is how requests get smuggled.
                return Err(at(malformed("both Transfer-Encoding and Content-Length")));
            }
            self.send_continue(expect_continue).await?;
            req.body = self.read_chunked().await.map_err(at)?;
        } else if let Some(first) = lengths.first() {
            let n: usize = first
                .parse()
                .map_err(|_| at(malformed(format!("bad Content-Length {first:?}"))))?;
            if lengths.iter().any(|l| l != first) {
                return Err(at(malformed("conflicting Content-Length headers")));
            }
            if n > MAX_BODY {
                return Err(at(malformed(format!("body of {n} bytes is too large"))));
            }
            if n > 0 {
                self.send_continue(expect_continue).await?;
            }
            req.body = self.take(n).await?;
        }
        Ok(Some(req))
    }

    /// `Expect: 100-continue` clients (curl) wait for this before the body.
    async fn send_continue(&mut self, expected: bool) -> Result<(), ReadError> {
        if expected && self.buf.is_empty() {
            self.io.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
            self.io.flush().await?;
        }
        Ok(())
    }

    async fn read_chunked(&mut self) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let line = self.read_line().await?;
            let size_hex = line.split(';').next().unwrap_or_default().trim();
            let size =
                usize::from_str_radix(size_hex, 16).map_err(|_| malformed(format!("bad chunk size line {line:?}")))?;
            if size == 0 {
                // Trailer fields up to the empty line.
                while !self.read_line().await?.is_empty() {}
                return Ok(body);
            }
            if body.len() + size > MAX_BODY {
                return Err(malformed("chunked body too large"));
            }
            let chunk = self.take(size + 2).await?;
            if &chunk[size..] != b"\r\n" {
                return Err(malformed("chunk data not followed by CRLF"));
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }

    /// Sleeps `ms`, watching the socket: false if the client hung up
    /// meanwhile (bytes it sends are kept for the next request).
    async fn wait_or_hangup(&mut self, ms: u64) -> bool {
        let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return true,
                r = self.fill() => {
                    if !matches!(r, Ok(n) if n > 0) {
                        return false;
                    }
                }
            }
        }
    }
}

/// A response before encoding.
#[derive(Debug, Clone)]
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn json(status: u16, body: String) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body,
        }
    }

    #[cfg(test)]
    fn body_json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        529 => "Site Overloaded",
        _ => "Status",
    }
}

/// Status line, headers (Content-Length always; scripted headers as given)
/// and body.
fn encode(r: &Response, close: bool) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {} {}\r\n", r.status, reason_phrase(r.status));
    if r.header("content-type").is_none() {
        out.push_str("content-type: application/json\r\n");
    }
    for (k, v) in &r.headers {
        if !k.eq_ignore_ascii_case("content-length") && !k.eq_ignore_ascii_case("connection") {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    out.push_str(&format!("content-length: {}\r\n", r.body.len()));
    out.push_str(if close {
        "connection: close\r\n\r\n"
    } else {
        "connection: keep-alive\r\n\r\n"
    });
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(r.body.as_bytes());
    bytes
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
    let wire = match (req.method.as_str(), path_only) {
        ("POST", "/v1/chat/completions") => Some(Wire::OpenAi),
        ("POST", "/v1/messages") => Some(Wire::Anthropic),
        _ => None,
    };
    let mut rec = Recorded {
        index: 0,
        wire,
        path: req.target.clone(),
        headers: req.headers,
        body,
        raw,
        rejected: None,
    };
    let verdict = gate(&req.method, &rec, parse_error.as_deref());

    // One lock for recording and taking the reply, so log order and script
    // order agree even with concurrent connections.
    let (reply, cached_tokens) = {
        let mut st = lock(state);
        rec.index = st.log.len();
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
                return Some(with_request_id(
                    render(&other, wire, &rec, &ctx),
                    Some(wire),
                    port,
                    rec.index,
                ))
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
        _ => "x-request-id",
    };
    if r.header(name).is_none() {
        r.headers.push((name.into(), id));
    }
    r
}

// ---------------------------------------------------------------------------
// The gate: routing, auth, JSON, validation, unknown models
// ---------------------------------------------------------------------------

/// A response that does not consume a scripted reply; `rejected` says why
/// the request is malformed (None for the scripted failure modes: a bad key,
/// an unknown model).
struct Verdict {
    response: Response,
    rejected: Option<String>,
}

fn refuse(wire: Option<Wire>, status: u16, message: &str) -> Option<Verdict> {
    Some(Verdict {
        response: error_response(wire, status, message),
        rejected: Some(message.to_string()),
    })
}

/// Checks in the real APIs' order: endpoint, key, headers, JSON, body, model.
fn gate(method: &str, rec: &Recorded, parse_error: Option<&str>) -> Option<Verdict> {
    let path = rec.path.split('?').next().unwrap_or_default();
    let Some(wire) = rec.wire else {
        return Some(Verdict {
            response: openai_error(
                404,
                &format!("Invalid URL ({method} {path})"),
                "invalid_request_error",
                None,
            ),
            rejected: Some(format!("no such endpoint: {method} {path}")),
        });
    };
    match wire {
        Wire::OpenAi => {
            let auth = rec.header("authorization").unwrap_or_default();
            let key = match auth.get(..7) {
                Some(p) if p.eq_ignore_ascii_case("bearer ") => auth[7..].trim(),
                _ => "",
            };
            if key.is_empty() {
                return Some(Verdict {
                    response: openai_error(
                        401,
                        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
                        "invalid_request_error",
                        None,
                    ),
                    rejected: Some("missing `Authorization: Bearer <key>` header".into()),
                });
            }
            if key == BAD_KEY {
                return Some(Verdict {
                    response: openai_error(
                        401,
                        &format!("Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys."),
                        "invalid_request_error",
                        Some("invalid_api_key"),
                    ),
                    rejected: None,
                });
            }
        }
        Wire::Anthropic => {
            let key = rec.header("x-api-key").unwrap_or_default();
            if key.is_empty() {
                return Some(Verdict {
                    response: anthropic_error(401, "authentication_error", "x-api-key header is required"),
                    rejected: Some("missing x-api-key header".into()),
                });
            }
            if key == BAD_KEY {
                return Some(Verdict {
                    response: anthropic_error(401, "authentication_error", "invalid x-api-key"),
                    rejected: None,
                });
            }
            match rec.header("anthropic-version") {
                None | Some("") => return refuse(Some(wire), 400, "anthropic-version: header is required"),
                Some(v) if !ANTHROPIC_VERSIONS.contains(&v) => {
                    return refuse(Some(wire), 400, &format!("anthropic-version: invalid version {v:?}"))
                }
                _ => {}
            }
        }
    }
    let content_type = rec.header("content-type").unwrap_or_default().to_ascii_lowercase();
    if !content_type.starts_with("application/json") {
        return refuse(
            Some(wire),
            400,
            &format!("Content-Type must be application/json (got {content_type:?})"),
        );
    }
    if let Some(e) = parse_error {
        let message = match wire {
            Wire::OpenAi => format!("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON: {e})"),
            Wire::Anthropic => format!("The request body is not valid JSON: {e}"),
        };
        return refuse(Some(wire), 400, &message);
    }
    let checked = match wire {
        Wire::OpenAi => validate_openai(&rec.body),
        Wire::Anthropic => validate_anthropic(&rec.body),
    };
    if let Err(reason) = checked {
        return refuse(Some(wire), 400, &reason);
    }
    if rec.model() == Some(UNKNOWN_MODEL) {
        let response = match wire {
            Wire::OpenAi => openai_error(
                404,
                &format!("The model `{UNKNOWN_MODEL}` does not exist or you do not have access to it."),
                "invalid_request_error",
                Some("model_not_found"),
            ),
            Wire::Anthropic => anthropic_error(404, "not_found_error", &format!("model: {UNKNOWN_MODEL}")),
        };
        return Some(Verdict {
            response,
            rejected: None,
        });
    }
    None
}

// ---------------------------------------------------------------------------
// Validation helpers (shared)
// ---------------------------------------------------------------------------

type Check = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !($cond) {
            return Err(format!($($fmt)+));
        }
    };
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Optional parameters: null counts as absent (both APIs accept that).
fn opt<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

/// `^[a-zA-Z0-9_-]{1,64}$`, the rule for tool and schema names.
fn valid_name(s: &str) -> bool {
    (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_positive_int(o: &Map<String, Value>, key: &str, err: impl Fn(&str) -> String) -> Check {
    if let Some(v) = opt(o, key) {
        ensure!(
            v.as_u64().is_some_and(|n| n >= 1),
            "{}",
            err(&format!("expected an integer >= 1, got {v}"))
        );
    }
    Ok(())
}

fn check_number(o: &Map<String, Value>, key: &str, lo: f64, hi: f64, err: impl Fn(&str) -> String) -> Check {
    if let Some(v) = opt(o, key) {
        let n = v.as_f64();
        ensure!(
            n.is_some_and(|n| (lo..=hi).contains(&n)),
            "{}",
            err(&format!("expected a number from {lo} to {hi}, got {v}"))
        );
    }
    Ok(())
}

fn check_type(o: &Map<String, Value>, key: &str, want: &str, err: impl Fn(&str) -> String) -> Check {
    if let Some(v) = opt(o, key) {
        let t = type_name(v);
        let ok = t == want || (want == "number" && t == "integer");
        ensure!(ok, "{}", err(&format!("expected {want}, got {t}")));
    }
    Ok(())
}

fn check_stream(o: &Map<String, Value>, err: impl Fn(&str) -> String) -> Check {
    match opt(o, "stream") {
        None | Some(Value::Bool(false)) => Ok(()),
        Some(Value::Bool(true)) => Err(err(
            "streaming is not supported by the scripted LLM server (the client must not send stream: true)",
        )),
        Some(v) => Err(err(&format!("expected a boolean, got {}", type_name(v)))),
    }
}

fn check_keys(o: &Map<String, Value>, allowed: &[&str], err: impl Fn(&str) -> String) -> Check {
    for k in o.keys() {
        ensure!(allowed.contains(&k.as_str()), "{}", err(k));
    }
    Ok(())
}

/// `data:image/...;base64,<data>` or an http(s) URL.
fn valid_image_url(url: &str) -> bool {
    if url.starts_with("https://") || url.starts_with("http://") {
        return url.len() > 8;
    }
    let Some(rest) = url.strip_prefix("data:image/") else {
        return false;
    };
    let Some((_, data)) = rest.split_once(";base64,") else {
        return false;
    };
    !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions validation
// ---------------------------------------------------------------------------

const OPENAI_KEYS: &[&str] = &[
    "model",
    "messages",
    "tools",
    "tool_choice",
    "response_format",
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "n",
    "stream",
    "stop",
    "seed",
    "user",
    "parallel_tool_calls",
    "presence_penalty",
    "frequency_penalty",
    "logprobs",
    "top_logprobs",
    "metadata",
    "store",
    "reasoning_effort",
    "stream_options",
    "service_tier",
    "prediction",
    "modalities",
    "audio",
    "logit_bias",
];

/// OpenAI's `Invalid 'param': problem` messages.
fn oa(param: &str) -> impl Fn(&str) -> String + '_ {
    move |problem| format!("Invalid '{param}': {problem}")
}

fn validate_openai(body: &Value) -> Check {
    let Some(o) = body.as_object() else {
        return Err(format!(
            "The request body must be a JSON object, got {}",
            type_name(body)
        ));
    };
    check_keys(o, OPENAI_KEYS, |k| {
        format!("Unrecognized request argument supplied: {k}")
    })?;
    match o.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => {}
        Some(Value::String(_)) | None | Some(Value::Null) => return Err("you must provide a model parameter".into()),
        Some(v) => {
            return Err(format!(
                "Invalid type for 'model': expected a string, got {}",
                type_name(v)
            ))
        }
    }
    check_stream(o, oa("stream"))?;
    ensure!(
        opt(o, "stream_options").is_none() || opt(o, "stream") == Some(&Value::Bool(true)),
        "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    );
    let msgs = match o.get("messages") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) => {
            return Err("Invalid 'messages': empty array. Expected an array with minimum length 1".into())
        }
        None | Some(Value::Null) => return Err("Missing required parameter: 'messages'.".into()),
        Some(v) => {
            return Err(format!(
                "Invalid type for 'messages': expected an array, got {}",
                type_name(v)
            ))
        }
    };
    openai_messages(msgs)?;
    let tools = openai_tools(o)?;
    openai_tool_choice(o, tools.as_deref())?;
    ensure!(
        opt(o, "parallel_tool_calls").is_none() || tools.is_some(),
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."
    );
    openai_response_format(o, msgs)?;
    check_positive_int(o, "max_tokens", oa("max_tokens"))?;
    check_positive_int(o, "max_completion_tokens", oa("max_completion_tokens"))?;
    check_positive_int(o, "n", oa("n"))?;
    check_number(o, "temperature", 0.0, 2.0, oa("temperature"))?;
    check_number(o, "top_p", 0.0, 1.0, oa("top_p"))?;
    check_number(o, "presence_penalty", -2.0, 2.0, oa("presence_penalty"))?;
    check_number(o, "frequency_penalty", -2.0, 2.0, oa("frequency_penalty"))?;
    check_number(o, "top_logprobs", 0.0, 20.0, oa("top_logprobs"))?;
    check_type(o, "seed", "integer", oa("seed"))?;
    check_type(o, "user", "string", oa("user"))?;
    check_type(o, "logprobs", "boolean", oa("logprobs"))?;
    check_type(o, "store", "boolean", oa("store"))?;
    check_type(o, "metadata", "object", oa("metadata"))?;
    check_type(o, "parallel_tool_calls", "boolean", oa("parallel_tool_calls"))?;
    if let Some(stop) = opt(o, "stop") {
        let ok = stop.is_string()
            || stop
                .as_array()
                .is_some_and(|a| a.len() <= 4 && a.iter().all(Value::is_string));
        ensure!(ok, "Invalid 'stop': expected a string or up to 4 strings");
    }
    if let Some(effort) = opt(o, "reasoning_effort") {
        ensure!(
            matches!(effort.as_str(), Some("none" | "minimal" | "low" | "medium" | "high")),
            "Invalid value for 'reasoning_effort': {effort}"
        );
    }
    Ok(())
}

/// Text-only content (system, developer, tool messages): a string or text parts.
fn openai_text_content(content: Option<&Value>, at: &str, extra_part: Option<&str>) -> Check {
    match content {
        Some(Value::String(_)) => Ok(()),
        Some(Value::Array(parts)) => {
            ensure!(
                !parts.is_empty(),
                "Invalid '{at}.content': empty array. Expected an array with minimum length 1"
            );
            for (j, p) in parts.iter().enumerate() {
                let t = p["type"].as_str().unwrap_or_default();
                if t == "text" || Some(t) == extra_part {
                    let field = if t == "text" { "text" } else { t };
                    ensure!(
                        p[field].is_string(),
                        "Missing required parameter: '{at}.content[{j}].{field}'."
                    );
                } else {
                    return Err(format!(
                        "Invalid value: '{t}'. Supported values are: 'text'{}. ('{at}.content[{j}].type')",
                        extra_part.map(|e| format!(" and '{e}'")).unwrap_or_default()
                    ));
                }
            }
            Ok(())
        }
        None | Some(Value::Null) => Err(format!("Missing required parameter: '{at}.content'.")),
        Some(v) => Err(format!(
            "Invalid type for '{at}.content': expected a string or an array of content parts, got {}",
            type_name(v)
        )),
    }
}

fn openai_user_content(content: Option<&Value>, at: &str) -> Check {
    let Some(Value::Array(parts)) = content else {
        return openai_text_content(content, at, None);
    };
    ensure!(
        !parts.is_empty(),
        "Invalid '{at}.content': empty array. Expected an array with minimum length 1"
    );
    for (j, p) in parts.iter().enumerate() {
        let pat = format!("{at}.content[{j}]");
        match p["type"].as_str() {
            Some("text") => ensure!(p["text"].is_string(), "Missing required parameter: '{pat}.text'."),
            Some("image_url") => {
                let url = p["image_url"]["url"].as_str();
                ensure!(url.is_some(), "Missing required parameter: '{pat}.image_url.url'.");
                ensure!(
                    valid_image_url(url.unwrap_or_default()),
                    "Invalid '{pat}.image_url.url': expected an http(s) URL or a base64 data URL of an image"
                );
                if let Some(d) = p["image_url"].get("detail").filter(|d| !d.is_null()) {
                    ensure!(
                        matches!(d.as_str(), Some("auto" | "low" | "high")),
                        "Invalid value for '{pat}.image_url.detail': {d}"
                    );
                }
            }
            Some(t) => {
                return Err(format!(
                    "Invalid value: '{t}'. Supported values are: 'text' and 'image_url'. ('{pat}.type')"
                ))
            }
            None => return Err(format!("Missing required parameter: '{pat}.type'.")),
        }
    }
    Ok(())
}

/// Message shapes, roles, and tool call ↔ tool message pairing.
fn openai_messages(msgs: &[Value]) -> Check {
    // Unanswered tool call ids of the latest assistant message; tool messages
    // may only come directly after it, one per id.
    let mut pending: Vec<String> = Vec::new();
    let mut in_tool_run = false;
    for (i, m) in msgs.iter().enumerate() {
        let at = format!("messages[{i}]");
        let Some(o) = m.as_object() else {
            return Err(format!(
                "Invalid type for '{at}': expected an object, got {}",
                type_name(m)
            ));
        };
        let Some(role) = o.get("role").and_then(Value::as_str) else {
            return Err(format!("Missing required parameter: '{at}.role'."));
        };
        let allowed: &[&str] = match role {
            "system" | "developer" | "user" => &["role", "content", "name"],
            "assistant" => &["role", "content", "name", "tool_calls", "refusal", "audio", "function_call"],
            "tool" => &["role", "content", "tool_call_id"],
            other => {
                return Err(format!(
                    "Invalid value: '{other}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'. ('{at}.role')"
                ))
            }
        };
        check_keys(o, allowed, |k| {
            format!("Additional properties are not allowed ('{k}' was unexpected) - '{at}'")
        })?;
        if role != "tool" {
            ensure!(
                pending.is_empty(),
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {} (before '{at}')",
                pending.join(", ")
            );
            in_tool_run = false;
        }
        check_type(o, "name", "string", oa(&format!("{at}.name")))?;
        match role {
            "system" | "developer" => openai_text_content(o.get("content"), &at, None)?,
            "user" => openai_user_content(o.get("content"), &at)?,
            "assistant" => {
                let content = opt(o, "content");
                if content.is_some() {
                    openai_text_content(content, &at, Some("refusal"))?;
                }
                let ids = openai_tool_calls(o, &at)?;
                ensure!(
                    content.is_some() || !ids.is_empty(),
                    "Invalid value for '{at}.content': expected a string, got null. (An assistant message needs content unless it has tool_calls.)"
                );
                in_tool_run = !ids.is_empty();
                pending = ids;
            }
            "tool" => {
                let Some(id) = o.get("tool_call_id").and_then(Value::as_str) else {
                    return Err(format!("Missing required parameter: '{at}.tool_call_id'."));
                };
                ensure!(
                    in_tool_run,
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. ('{at}')"
                );
                let Some(p) = pending.iter().position(|x| x == id) else {
                    return Err(format!(
                        "Invalid parameter: '{at}.tool_call_id' {id:?} does not answer an unanswered tool call of the preceding assistant message"
                    ));
                };
                pending.remove(p);
                openai_text_content(o.get("content"), &at, None)?;
            }
            _ => unreachable!(),
        }
    }
    ensure!(
        pending.is_empty(),
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
        pending.join(", ")
    );
    Ok(())
}

/// An assistant message's `tool_calls`; returns their ids.
fn openai_tool_calls(o: &Map<String, Value>, at: &str) -> Result<Vec<String>, String> {
    let Some(calls) = opt(o, "tool_calls") else {
        return Ok(Vec::new());
    };
    let Some(calls) = calls.as_array() else {
        return Err(format!(
            "Invalid type for '{at}.tool_calls': expected an array, got {}",
            type_name(calls)
        ));
    };
    ensure!(
        !calls.is_empty(),
        "Invalid '{at}.tool_calls': empty array. Expected an array with minimum length 1"
    );
    let mut ids = Vec::new();
    for (j, c) in calls.iter().enumerate() {
        let ct = format!("{at}.tool_calls[{j}]");
        let id = c["id"].as_str().unwrap_or_default();
        ensure!(!id.is_empty(), "Missing required parameter: '{ct}.id'.");
        ensure!(
            !ids.iter().any(|x| x == id),
            "Invalid '{ct}.id': duplicate tool call id {id:?}"
        );
        ensure!(
            c["type"] == "function",
            "Invalid value: {}. Supported values are: 'function'. ('{ct}.type')",
            c["type"]
        );
        ensure!(
            c["function"]["name"].as_str().is_some_and(|n| !n.is_empty()),
            "Missing required parameter: '{ct}.function.name'."
        );
        let args = &c["function"]["arguments"];
        ensure!(
            args.is_string(),
            "Invalid type for '{ct}.function.arguments': expected a string, but got {} instead.",
            type_name(args)
        );
        ids.push(id.to_string());
    }
    Ok(ids)
}

/// `tools`; returns the declared names (None when there are no tools).
fn openai_tools(o: &Map<String, Value>) -> Result<Option<Vec<String>>, String> {
    let Some(tools) = opt(o, "tools") else {
        return Ok(None);
    };
    let Some(tools) = tools.as_array() else {
        return Err(format!(
            "Invalid type for 'tools': expected an array, got {}",
            type_name(tools)
        ));
    };
    ensure!(
        !tools.is_empty(),
        "Invalid 'tools': empty array. Expected an array with minimum length 1"
    );
    let mut names: Vec<String> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let at = format!("tools[{i}]");
        ensure!(
            t["type"] == "function",
            "Invalid value: {}. Supported values are: 'function'. ('{at}.type')",
            t["type"]
        );
        let Some(f) = t["function"].as_object() else {
            return Err(format!("Missing required parameter: '{at}.function'."));
        };
        check_keys(f, &["name", "description", "parameters", "strict"], |k| {
            format!("Unrecognized request argument supplied: {at}.function.{k}")
        })?;
        let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
        ensure!(
            valid_name(name),
            "Invalid '{at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {name:?}."
        );
        ensure!(
            !names.iter().any(|n| n == name),
            "Invalid 'tools': duplicate function name {name:?}"
        );
        check_type(f, "description", "string", oa(&format!("{at}.function.description")))?;
        check_type(f, "strict", "boolean", oa(&format!("{at}.function.strict")))?;
        if let Some(p) = opt(f, "parameters") {
            ensure!(
                p.get("type").and_then(Value::as_str) == Some("object"),
                "Invalid schema for function '{name}': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{}\"'.",
                p.get("type").map_or("None".to_string(), |t| t.as_str().map_or(t.to_string(), str::to_string))
            );
            if opt(f, "strict") == Some(&Value::Bool(true)) {
                strict_schema(p, &mut Vec::new(), &format!("function '{name}'"))?;
            }
        }
        names.push(name.to_string());
    }
    Ok(Some(names))
}

fn openai_tool_choice(o: &Map<String, Value>, tools: Option<&[String]>) -> Check {
    let Some(choice) = opt(o, "tool_choice") else {
        return Ok(());
    };
    ensure!(
        tools.is_some(),
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
    );
    match choice {
        Value::String(s) => ensure!(
            matches!(s.as_str(), "none" | "auto" | "required"),
            "Invalid value: '{s}'. Supported values are: 'none', 'auto', and 'required'. ('tool_choice')"
        ),
        Value::Object(c) => {
            ensure!(
                c.get("type") == Some(&json!("function")),
                "Invalid value for 'tool_choice.type': expected 'function'"
            );
            let Some(name) = c.get("function").and_then(|f| f.get("name")).and_then(Value::as_str) else {
                return Err("Missing required parameter: 'tool_choice.function.name'.".into());
            };
            ensure!(
                tools.unwrap_or_default().iter().any(|t| t == name),
                "Invalid value for 'tool_choice': tool choice function {name:?} is not among the declared tools"
            );
        }
        v => {
            return Err(format!(
                "Invalid type for 'tool_choice': expected a string or an object, got {}",
                type_name(v)
            ))
        }
    }
    Ok(())
}

fn openai_response_format(o: &Map<String, Value>, msgs: &[Value]) -> Check {
    let Some(rf) = opt(o, "response_format") else {
        return Ok(());
    };
    match rf["type"].as_str() {
        Some("text") => Ok(()),
        Some("json_object") => {
            let mentions_json = msgs.iter().any(|m| {
                let mut parts = Vec::new();
                push_content(&mut parts, &m["content"]);
                parts.iter().any(|p| p.to_ascii_lowercase().contains("json"))
            });
            ensure!(
                mentions_json,
                "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
            );
            Ok(())
        }
        Some("json_schema") => {
            let Some(js) = rf["json_schema"].as_object() else {
                return Err("Missing required parameter: 'response_format.json_schema'.".into());
            };
            check_keys(js, &["name", "schema", "strict", "description"], |k| {
                format!("Unrecognized request argument supplied: response_format.json_schema.{k}")
            })?;
            let name = js.get("name").and_then(Value::as_str).unwrap_or_default();
            ensure!(
                valid_name(name),
                "Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {name:?}."
            );
            check_type(js, "strict", "boolean", oa("response_format.json_schema.strict"))?;
            check_type(js, "description", "string", oa("response_format.json_schema.description"))?;
            let Some(schema) = opt(js, "schema") else {
                return Err("Missing required parameter: 'response_format.json_schema.schema'.".into());
            };
            ensure!(
                schema.is_object(),
                "Invalid type for 'response_format.json_schema.schema': expected an object, got {}",
                type_name(schema)
            );
            if opt(js, "strict") == Some(&Value::Bool(true)) {
                let what = format!("response_format '{name}'");
                ensure!(
                    schema["type"] == "object" && schema.get("anyOf").is_none(),
                    "Invalid schema for {what}: schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{}\"'.",
                    schema["type"].as_str().unwrap_or("None")
                );
                strict_schema(schema, &mut Vec::new(), &what)?;
            }
            Ok(())
        }
        _ => Err(format!(
            "Invalid value: {}. Supported values are: 'text', 'json_object', and 'json_schema'. ('response_format.type')",
            rf["type"]
        )),
    }
}

/// Keywords OpenAI's strict mode refuses.
const STRICT_UNSUPPORTED: &[&str] = &[
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
];

/// OpenAI strict mode: every object schema has `additionalProperties: false`
/// and lists every property in `required`, recursively through properties,
/// items, anyOf and $defs. `path` is the context OpenAI's messages print.
fn strict_schema(s: &Value, path: &mut Vec<String>, what: &str) -> Check {
    let context = |path: &Vec<String>| {
        format!(
            "({})",
            path.iter().map(|p| format!("'{p}'")).collect::<Vec<_>>().join(", ")
        )
    };
    let Some(o) = s.as_object() else {
        ensure!(
            s.is_boolean() && !path.is_empty(),
            "Invalid schema for {what}: In context={}, schema must be a JSON object.",
            context(path)
        );
        return Ok(());
    };
    for kw in STRICT_UNSUPPORTED {
        ensure!(
            !o.contains_key(*kw),
            "Invalid schema for {what}: In context={}, '{kw}' is not permitted.",
            context(path)
        );
    }
    let is_object = match o.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => o.contains_key("properties"),
    };
    if is_object {
        ensure!(
            o.get("additionalProperties") == Some(&Value::Bool(false)),
            "Invalid schema for {what}: In context={}, 'additionalProperties' is required to be supplied and to be false.",
            context(path)
        );
        let required: Vec<&str> = arr(o.get("required").unwrap_or(&Value::Null))
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let empty = Map::new();
        let props = o.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        if let Some(missing) = props.keys().find(|k| !required.contains(&k.as_str())) {
            return Err(format!(
                "Invalid schema for {what}: In context={}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{missing}'.",
                context(path)
            ));
        }
        if let Some(extra) = required.iter().find(|r| !props.contains_key(**r)) {
            return Err(format!(
                "Invalid schema for {what}: In context={}, 'required' lists '{extra}', which is not in properties.",
                context(path)
            ));
        }
        for (k, v) in props {
            path.extend(["properties".to_string(), k.clone()]);
            strict_schema(v, path, what)?;
            path.truncate(path.len() - 2);
        }
    }
    match o.get("items") {
        Some(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                path.extend(["items".to_string(), i.to_string()]);
                strict_schema(v, path, what)?;
                path.truncate(path.len() - 2);
            }
        }
        Some(items) => {
            path.push("items".into());
            strict_schema(items, path, what)?;
            path.pop();
        }
        None => {}
    }
    for (i, v) in arr(o.get("anyOf").unwrap_or(&Value::Null)).iter().enumerate() {
        path.extend(["anyOf".to_string(), i.to_string()]);
        strict_schema(v, path, what)?;
        path.truncate(path.len() - 2);
    }
    for defs in ["$defs", "definitions"] {
        if let Some(d) = o.get(defs).and_then(Value::as_object) {
            for (k, v) in d {
                path.extend([defs.to_string(), k.clone()]);
                strict_schema(v, path, what)?;
                path.truncate(path.len() - 2);
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Anthropic Messages validation
// ---------------------------------------------------------------------------

const ANTHROPIC_KEYS: &[&str] = &[
    "model",
    "messages",
    "max_tokens",
    "system",
    "tools",
    "tool_choice",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "stream",
    "metadata",
    "thinking",
    "service_tier",
];

/// Anthropic's `param.path: problem` messages.
fn an(param: &str) -> impl Fn(&str) -> String + '_ {
    move |problem| format!("{param}: {problem}")
}

fn validate_anthropic(body: &Value) -> Check {
    let Some(o) = body.as_object() else {
        return Err(format!(
            "body: Input should be a valid dictionary, got {}",
            type_name(body)
        ));
    };
    check_keys(o, ANTHROPIC_KEYS, |k| format!("{k}: Extra inputs are not permitted"))?;
    match o.get("model") {
        Some(Value::String(m)) if !m.trim().is_empty() => {}
        None => return Err("model: Field required".into()),
        Some(v) => return Err(format!("model: Input should be a non-empty string, got {v}")),
    }
    match o.get("max_tokens") {
        None => return Err("max_tokens: Field required".into()),
        Some(v) => ensure!(
            v.as_u64().is_some_and(|n| n >= 1),
            "max_tokens: Input should be an integer greater than or equal to 1, got {v}"
        ),
    }
    check_stream(o, an("stream"))?;
    if let Some(system) = opt(o, "system") {
        match system {
            Value::String(_) => {}
            Value::Array(blocks) => {
                for (j, b) in blocks.iter().enumerate() {
                    let at = format!("system.{j}");
                    ensure!(b["type"] == "text", "{at}.type: Input should be 'text'");
                    anthropic_block(b, &at, "system")?;
                }
            }
            v => {
                return Err(format!(
                    "system: Input should be a valid string or list of text blocks, got {}",
                    type_name(v)
                ))
            }
        }
    }
    let tools = anthropic_tools(o)?;
    if let Some(choice) = opt(o, "tool_choice") {
        let Some(c) = choice.as_object() else {
            return Err(format!(
                "tool_choice: Input should be a valid dictionary, got {}",
                type_name(choice)
            ));
        };
        let kind = c.get("type").and_then(Value::as_str).unwrap_or_default();
        check_keys(c, &["type", "name", "disable_parallel_tool_use"], |k| {
            format!("tool_choice.{k}: Extra inputs are not permitted")
        })?;
        match kind {
            "auto" | "none" => {}
            "any" => ensure!(!tools.is_empty(), "tool_choice: tool_choice may only be specified while providing tools"),
            "tool" => {
                let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                ensure!(!name.is_empty(), "tool_choice.tool.name: Field required");
                ensure!(tools.iter().any(|t| t == name), "tool_choice.name: Tool '{name}' not found in provided tools");
            }
            other => {
                return Err(format!(
                    "tool_choice: Input tag '{other}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'"
                ))
            }
        }
    }
    check_number(o, "temperature", 0.0, 1.0, an("temperature"))?;
    check_number(o, "top_p", 0.0, 1.0, an("top_p"))?;
    check_type(o, "top_k", "integer", an("top_k"))?;
    check_type(o, "metadata", "object", an("metadata"))?;
    check_type(o, "thinking", "object", an("thinking"))?;
    if let Some(stops) = opt(o, "stop_sequences") {
        ensure!(
            stops.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            "stop_sequences: Input should be a valid list of strings"
        );
    }
    if let Some(tier) = opt(o, "service_tier") {
        ensure!(
            matches!(tier.as_str(), Some("auto" | "standard_only")),
            "service_tier: Input should be 'auto' or 'standard_only'"
        );
    }
    let msgs = match o.get("messages") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) => return Err("messages: at least one message is required".into()),
        None => return Err("messages: Field required".into()),
        Some(v) => return Err(format!("messages: Input should be a valid list, got {}", type_name(v))),
    };
    anthropic_messages(msgs)
}

/// `tools`; returns the declared names.
fn anthropic_tools(o: &Map<String, Value>) -> Result<Vec<String>, String> {
    let Some(tools) = opt(o, "tools") else {
        return Ok(Vec::new());
    };
    let Some(tools) = tools.as_array() else {
        return Err(format!("tools: Input should be a valid list, got {}", type_name(tools)));
    };
    let mut names: Vec<String> = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let at = format!("tools.{i}");
        let Some(t) = t.as_object() else {
            return Err(format!("{at}: Input should be a valid dictionary"));
        };
        if let Some(kind) = opt(t, "type") {
            ensure!(
                kind == "custom",
                "{at}.type: server tools ({kind}) are not supported by the scripted LLM server"
            );
        }
        check_keys(
            t,
            &["name", "description", "input_schema", "cache_control", "type"],
            |k| format!("{at}.{k}: Extra inputs are not permitted"),
        )?;
        let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
        ensure!(
            valid_name(name),
            "{at}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$', got {name:?}"
        );
        ensure!(
            !names.iter().any(|n| n == name),
            "tools: Tool names must be unique ({name:?} twice)"
        );
        check_type(t, "description", "string", an(&format!("{at}.description")))?;
        let Some(schema) = t.get("input_schema") else {
            return Err(format!("{at}.input_schema: Field required"));
        };
        ensure!(
            schema.is_object() && schema["type"] == "object",
            "{at}.input_schema.type: Input should be 'object', got {}",
            schema["type"]
        );
        names.push(name.to_string());
    }
    Ok(names)
}

/// One content block of a `role` message (or "system", or "tool_result"
/// for blocks nested in a tool result).
fn anthropic_block(b: &Value, at: &str, role: &str) -> Check {
    let Some(o) = b.as_object() else {
        return Err(format!(
            "{at}: Input should be a valid dictionary, got {}",
            type_name(b)
        ));
    };
    let kind = o.get("type").and_then(Value::as_str).unwrap_or_default();
    let allowed: &[&str] = match kind {
        "text" => &["type", "text", "cache_control", "citations"],
        "image" => &["type", "source", "cache_control"],
        "tool_use" => &["type", "id", "name", "input", "cache_control"],
        "tool_result" => &["type", "tool_use_id", "content", "is_error", "cache_control"],
        "" => return Err(format!("{at}.type: Field required")),
        other => {
            return Err(format!(
                "{at}.type: Input tag '{other}' found using 'type' does not match any of the expected tags: 'text', 'image', 'tool_use', 'tool_result'"
            ))
        }
    };
    check_keys(o, allowed, |k| format!("{at}.{k}: Extra inputs are not permitted"))?;
    match kind {
        "text" => {
            let text = o.get("text").and_then(Value::as_str);
            ensure!(text.is_some(), "{at}.text: Field required");
            ensure!(
                !text.unwrap_or_default().trim().is_empty(),
                "{at}: text content blocks must contain non-whitespace text"
            );
        }
        "image" => {
            let src = &o["source"];
            match src["type"].as_str() {
                Some("base64") => {
                    let mt = src["media_type"].as_str().unwrap_or_default();
                    ensure!(
                        matches!(mt, "image/jpeg" | "image/png" | "image/gif" | "image/webp"),
                        "{at}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp', got {}",
                        src["media_type"]
                    );
                    ensure!(
                        src["data"].as_str().is_some_and(|d| !d.is_empty()),
                        "{at}.source.data: Field required"
                    );
                }
                Some("url") => ensure!(src["url"].is_string(), "{at}.source.url: Field required"),
                _ => {
                    return Err(format!(
                        "{at}.source.type: Input should be 'base64' or 'url', got {}",
                        src["type"]
                    ))
                }
            }
        }
        "tool_use" => {
            ensure!(
                role == "assistant",
                "{at}: tool_use blocks are only allowed in assistant messages"
            );
            let id = o.get("id").and_then(Value::as_str).unwrap_or_default();
            ensure!(
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{at}.id: String should match pattern '^[a-zA-Z0-9_-]+$', got {id:?}"
            );
            let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
            ensure!(!name.is_empty(), "{at}.name: Field required");
            ensure!(
                o.get("input").is_some_and(Value::is_object),
                "{at}.input: Input should be a valid dictionary"
            );
        }
        "tool_result" => {
            ensure!(
                role == "user",
                "{at}: tool_result blocks are only allowed in user messages"
            );
            ensure!(
                o.get("tool_use_id")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty()),
                "{at}.tool_use_id: Field required"
            );
            check_type(o, "is_error", "boolean", an(&format!("{at}.is_error")))?;
            match opt(o, "content") {
                None | Some(Value::String(_)) => {}
                Some(Value::Array(inner)) => {
                    for (k, ib) in inner.iter().enumerate() {
                        let iat = format!("{at}.content.{k}");
                        ensure!(
                            matches!(ib["type"].as_str(), Some("text" | "image")),
                            "{iat}.type: tool_result content may only hold text and image blocks"
                        );
                        anthropic_block(ib, &iat, "tool_result")?;
                    }
                }
                Some(v) => {
                    return Err(format!(
                        "{at}.content: Input should be a valid string or list, got {}",
                        type_name(v)
                    ))
                }
            }
        }
        _ => unreachable!(),
    }
    Ok(())
}

/// Roles, alternation, blocks, and tool_use ↔ tool_result pairing.
fn anthropic_messages(msgs: &[Value]) -> Check {
    let mut prev_role: Option<&str> = None;
    // tool_use ids of the previous (assistant) message: the next message
    // must answer every one of them, tool_result blocks first.
    let mut open: Vec<String> = Vec::new();
    let mut all_tool_use_ids: HashSet<String> = HashSet::new();
    for (i, m) in msgs.iter().enumerate() {
        let at = format!("messages.{i}");
        let Some(o) = m.as_object() else {
            return Err(format!(
                "{at}: Input should be a valid dictionary, got {}",
                type_name(m)
            ));
        };
        check_keys(o, &["role", "content"], |k| {
            format!("{at}.{k}: Extra inputs are not permitted")
        })?;
        let role = match o.get("role").and_then(Value::as_str) {
            Some(r @ ("user" | "assistant")) => r,
            Some("system") => return Err(format!(
                "{at}.role: Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role."
            )),
            Some(other) => return Err(format!("{at}.role: Input should be 'user' or 'assistant', got {other:?}")),
            None => return Err(format!("{at}.role: Field required")),
        };
        ensure!(
            i > 0 || role == "user",
            "messages: first message must use the \"user\" role"
        );
        ensure!(
            prev_role != Some(role),
            "{at}: roles must alternate between \"user\" and \"assistant\", but messages.{} and {at} are both {role:?} (merge them into one turn)",
            i - 1
        );
        let is_final_assistant = role == "assistant" && i + 1 == msgs.len();
        let blocks: Vec<Value> = match o.get("content") {
            Some(Value::String(s)) => {
                ensure!(
                    !s.is_empty() || is_final_assistant,
                    "{at}: all messages must have non-empty content except for the optional final assistant message"
                );
                Vec::new()
            }
            Some(Value::Array(blocks)) => {
                ensure!(
                    !blocks.is_empty() || is_final_assistant,
                    "{at}: all messages must have non-empty content except for the optional final assistant message"
                );
                blocks.clone()
            }
            None => return Err(format!("{at}.content: Field required")),
            Some(v) => {
                return Err(format!(
                    "{at}.content: Input should be a valid string or list, got {}",
                    type_name(v)
                ))
            }
        };
        let mut uses = Vec::new();
        let mut results: Vec<String> = Vec::new();
        let mut seen_other = false;
        for (j, b) in blocks.iter().enumerate() {
            let bat = format!("{at}.content.{j}");
            anthropic_block(b, &bat, role)?;
            match b["type"].as_str() {
                Some("tool_use") => {
                    let id = b["id"].as_str().unwrap_or_default().to_string();
                    ensure!(
                        all_tool_use_ids.insert(id.clone()),
                        "{bat}: `tool_use` ids must be unique ({id:?} repeats)"
                    );
                    uses.push(id);
                }
                Some("tool_result") => {
                    ensure!(
                        !seen_other,
                        "{bat}: tool_result blocks must come first in the user message, before any other content"
                    );
                    let id = b["tool_use_id"].as_str().unwrap_or_default().to_string();
                    ensure!(
                        open.contains(&id) && !results.contains(&id),
                        "{bat}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    );
                    results.push(id);
                }
                _ => seen_other = true,
            }
        }
        if role == "user" {
            let missing: Vec<&str> = open
                .iter()
                .filter(|id| !results.contains(id))
                .map(String::as_str)
                .collect();
            ensure!(
                missing.is_empty(),
                "{at}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                missing.join(", ")
            );
        }
        open = uses;
        prev_role = Some(role);
    }
    ensure!(
        open.is_empty(),
        "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        msgs.len() - 1,
        open.join(", ")
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Rendering replies and errors
// ---------------------------------------------------------------------------

struct RenderCtx {
    index: usize,
    port: u16,
    cached_tokens: u64,
}

/// What the assistant says, independent of the wire format.
enum Answer {
    Text(String),
    Calls(Vec<(String, Value)>),
}

/// A terminal reply as an HTTP response. (Delay and Dynamic are resolved by
/// the connection handler; here they render at once, for unit tests.)
fn render(reply: &Reply, wire: Wire, rec: &Recorded, ctx: &RenderCtx) -> Response {
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
            _ if wire == Wire::OpenAi && rec.has_response_format() => Answer::Text(v.to_string()),
            Some(tool) => Answer::Calls(vec![(tool, v.clone())]),
            None => Answer::Text(v.to_string()),
        },
    };
    let body = match wire {
        Wire::OpenAi => openai_success(answer, rec, ctx),
        Wire::Anthropic => anthropic_success(answer, rec, ctx),
    };
    Response::json(200, body.to_string())
}

/// Prompt tokens ≈ request chars / 4; output ≈ answer chars / 4.
fn token_counts(rec: &Recorded, ctx: &RenderCtx, answer_chars: usize) -> (u64, u64, u64) {
    let prompt = (rec.raw.chars().count() as u64 / 4).max(1);
    let cached = ctx.cached_tokens.min(prompt);
    let completion = (answer_chars as u64 / 4).max(1);
    (prompt, cached, completion)
}

fn openai_success(answer: Answer, rec: &Recorded, ctx: &RenderCtx) -> Value {
    let (message, finish, chars) = match answer {
        Answer::Text(t) => {
            let n = t.chars().count();
            (
                json!({"role": "assistant", "content": t, "refusal": null, "annotations": []}),
                "stop",
                n,
            )
        }
        Answer::Calls(calls) => {
            let mut chars = 0;
            let tool_calls: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    let arguments = args.to_string();
                    chars += name.len() + arguments.chars().count();
                    json!({"id": format!("call_{}", fake_id(seed(ctx.port, ctx.index, 1, i), 24)),
                           "type": "function", "function": {"name": name, "arguments": arguments}})
                })
                .collect();
            (
                json!({"role": "assistant", "content": null, "tool_calls": tool_calls, "refusal": null, "annotations": []}),
                "tool_calls",
                chars,
            )
        }
    };
    let (prompt, cached, completion) = token_counts(rec, ctx, chars);
    json!({
        "id": format!("chatcmpl-{}", fake_id(seed(ctx.port, ctx.index, 0, 0), 29)),
        "object": "chat.completion",
        "created": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "model": rec.model().unwrap_or_default(),
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
        },
        "service_tier": "default",
        "system_fingerprint": "fp_scripted"
    })
}

fn anthropic_success(answer: Answer, rec: &Recorded, ctx: &RenderCtx) -> Value {
    let (content, stop, chars) = match answer {
        Answer::Text(t) => {
            let n = t.chars().count();
            (json!([{"type": "text", "text": t}]), "end_turn", n)
        }
        Answer::Calls(calls) => {
            let mut chars = 0;
            let blocks: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (name, input))| {
                    chars += name.len() + input.to_string().chars().count();
                    json!({"type": "tool_use", "id": format!("toolu_01{}", fake_id(seed(ctx.port, ctx.index, 1, i), 22)),
                           "name": name, "input": input})
                })
                .collect();
            (Value::Array(blocks), "tool_use", chars)
        }
    };
    let (prompt, cached, completion) = token_counts(rec, ctx, chars);
    json!({
        "id": format!("msg_01{}", fake_id(seed(ctx.port, ctx.index, 0, 0), 22)),
        "type": "message",
        "role": "assistant",
        "model": rec.model().unwrap_or_default(),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {
            // Anthropic counts cache reads apart from input_tokens.
            "input_tokens": prompt - cached,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cached,
            "output_tokens": completion,
            "service_tier": "standard"
        }
    })
}

fn openai_error(status: u16, message: &str, kind: &str, code: Option<&str>) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    Response::json(status, body.to_string())
}

fn anthropic_error(status: u16, kind: &str, message: &str) -> Response {
    let body = json!({"type": "error", "error": {"type": kind, "message": message},
                      "request_id": format!("req_011C{}", fake_id(u64::from(status) ^ message.len() as u64, 20))});
    Response::json(status, body.to_string())
}

/// A 4xx/5xx in the wire's shape (OpenAI's when the wire is unknown).
fn error_response(wire: Option<Wire>, status: u16, message: &str) -> Response {
    match wire {
        Some(Wire::Anthropic) => anthropic_error(status, anthropic_error_type(status), message),
        _ => {
            let kind = if status >= 500 {
                "server_error"
            } else {
                "invalid_request_error"
            };
            openai_error(status, message, kind, None)
        }
    }
}

fn anthropic_error_type(status: u16) -> &'static str {
    match status {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    }
}

/// What the providers answer with these statuses (for `Reply::status`).
fn default_error(wire: Wire, code: u16) -> Response {
    match wire {
        Wire::OpenAi => {
            let (message, kind, c) = match code {
                400 => ("Bad request (scripted).", "invalid_request_error", None),
                401 => (
                    "Incorrect API key provided.",
                    "invalid_request_error",
                    Some("invalid_api_key"),
                ),
                403 => (
                    "You are not allowed to sample from this model.",
                    "invalid_request_error",
                    None,
                ),
                404 => (
                    "The requested resource was not found (scripted).",
                    "invalid_request_error",
                    None,
                ),
                429 => (
                    "Rate limit reached for requests per min (RPM). Please try again in 1s.",
                    "requests",
                    Some("rate_limit_exceeded"),
                ),
                500 => (
                    "The server had an error while processing your request. Sorry about that!",
                    "server_error",
                    None,
                ),
                502 => ("Bad gateway.", "server_error", None),
                503 => (
                    "The engine is currently overloaded, please try again later.",
                    "server_error",
                    None,
                ),
                c if c >= 500 => ("Server error (scripted).", "server_error", None),
                _ => ("Request failed (scripted).", "invalid_request_error", None),
            };
            openai_error(code, message, kind, c)
        }
        Wire::Anthropic => {
            let message = match code {
                401 => "invalid x-api-key",
                403 => "Your API key does not have permission to use the specified resource.",
                404 => "Not found (scripted).",
                429 => "Number of request tokens has exceeded your per-minute rate limit.",
                500 => "Internal server error",
                529 => "Overloaded",
                c if c >= 500 => "Internal server error",
                _ => "Bad request (scripted).",
            };
            anthropic_error(code, anthropic_error_type(code), message)
        }
    }
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

fn seed(port: u16, index: usize, kind: u64, i: usize) -> u64 {
    (u64::from(port) << 40) ^ ((index as u64) << 16) ^ (kind << 8) ^ i as u64
}

/// A deterministic id of base62 characters (real ids look random).
fn fake_id(seed: u64, len: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut x = seed;
    (0..len)
        .map(|_| {
            // splitmix64
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ALPHABET[(z % 62) as usize] as char
        })
        .collect()
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    fn strict_schema_value() -> Value {
        json!({
            "type": "object", "additionalProperties": false, "required": ["items", "note"],
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "$defs": {"item": {"type": "object", "additionalProperties": false, "required": ["name"],
                               "properties": {"name": {"type": "string"}}}}
        })
    }

    /// What the client sends for an act step with history (all features).
    fn good_openai() -> Value {
        json!({
            "model": "gpt-4.1-mini",
            "messages": [
                {"role": "system", "content": "You act on web pages."},
                {"role": "user", "content": [
                    {"type": "text", "text": "Instruction: click Buy"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "performAction", "arguments": "{\"elementId\":\"e1\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "removeBlocker", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "clicked"},
                {"role": "tool", "tool_call_id": "call_2", "content": "Error: nothing to remove"},
                {"role": "user", "content": "What next?"}
            ],
            "max_tokens": 4096,
            "temperature": 0.2,
            "tools": [
                {"type": "function", "function": {"name": "performAction", "description": "Act on an element",
                    "parameters": {"type": "object", "properties": {"elementId": {"type": "string"}}, "required": ["elementId"]}}},
                {"type": "function", "function": {"name": "removeBlocker", "description": "Close an overlay",
                    "parameters": {"type": "object"}}}
            ],
            "tool_choice": "required"
        })
    }

    fn good_openai_structured() -> Value {
        json!({
            "model": "gpt-4.1-mini",
            "messages": [{"role": "system", "content": "Extract."}, {"role": "user", "content": "the page"}],
            "max_tokens": 1000,
            "response_format": {"type": "json_schema", "json_schema": {"name": "extraction", "schema": strict_schema_value(), "strict": true}}
        })
    }

    fn good_anthropic() -> Value {
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "system": "You act on web pages.",
            "temperature": 0.5,
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Instruction: click Buy"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Clicking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "performAction", "input": {"elementId": "e1"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "clicked", "is_error": false},
                    {"type": "text", "text": "What next?"}]}
            ],
            "tools": [
                {"name": "performAction", "description": "Act", "input_schema": {"type": "object", "properties": {"elementId": {"type": "string"}}}},
                {"name": "extraction", "description": "Give your answer by calling this tool.", "input_schema": {"type": "object"}}
            ],
            "tool_choice": {"type": "tool", "name": "extraction"}
        })
    }

    fn rejects(validate: fn(&Value) -> Check, base: Value, mutate: impl FnOnce(&mut Value), needle: &str) {
        let mut b = base;
        mutate(&mut b);
        match validate(&b) {
            Ok(()) => panic!("accepted, expected a rejection mentioning {needle:?}:\n{b:#}"),
            Err(e) => assert!(e.contains(needle), "rejection {e:?} does not mention {needle:?}"),
        }
    }

    fn oa_rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
        rejects(validate_openai, good_openai(), mutate, needle)
    }

    fn oa_structured_rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
        rejects(validate_openai, good_openai_structured(), mutate, needle)
    }

    fn an_rejects(mutate: impl FnOnce(&mut Value), needle: &str) {
        rejects(validate_anthropic, good_anthropic(), mutate, needle)
    }

    fn messages(b: &mut Value) -> &mut Vec<Value> {
        b["messages"].as_array_mut().unwrap()
    }

    #[test]
    fn accepts_good_bodies() {
        validate_openai(&good_openai()).unwrap();
        validate_openai(&good_openai_structured()).unwrap();
        validate_anthropic(&good_anthropic()).unwrap();
        // Minimal bodies.
        validate_openai(&json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})).unwrap();
        validate_anthropic(&json!({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]}))
            .unwrap();
        // Non-strict schemas may be open; tool_choice naming a declared function.
        let mut b = good_openai();
        b["tool_choice"] = json!({"type": "function", "function": {"name": "removeBlocker"}});
        b["response_format"] =
            json!({"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}, "strict": false}});
        validate_openai(&b).unwrap();
        // System as blocks, a final assistant prefill, tool_result with block content.
        let mut a = good_anthropic();
        a["system"] = json!([{"type": "text", "text": "sys"}]);
        messages(&mut a)[2]["content"][0]["content"] = json!([{"type": "text", "text": "ok"}]);
        messages(&mut a).push(json!({"role": "assistant", "content": "{"}));
        validate_anthropic(&a).unwrap();
    }

    #[test]
    fn openai_rejects_malformed_bodies() {
        oa_rejects(|b| *b = json!([1]), "JSON object");
        oa_rejects(|b| b["foo"] = json!(1), "Unrecognized request argument supplied: foo");
        oa_rejects(|b| b["model"] = json!(""), "model");
        oa_rejects(
            |b| {
                b.as_object_mut().unwrap().remove("model");
            },
            "model",
        );
        oa_rejects(|b| b["messages"] = json!([]), "'messages'");
        oa_rejects(|b| b["stream"] = json!(true), "stream");
        oa_rejects(|b| messages(b)[0]["role"] = json!("robot"), "'robot'");
        oa_rejects(|b| messages(b)[0]["extra"] = json!(1), "'extra' was unexpected");
        oa_rejects(|b| messages(b)[5]["content"] = json!(5), "messages[5].content");
        oa_rejects(|b| messages(b)[5]["content"] = json!(null), "messages[5].content");
        oa_rejects(
            |b| messages(b)[0]["content"] = json!([{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]),
            "'image_url'",
        );
        oa_rejects(
            |b| messages(b)[1]["content"][1] = json!({"type": "video", "url": "x"}),
            "'video'",
        );
        oa_rejects(
            |b| messages(b)[1]["content"][1] = json!({"type": "image_url", "image_url": {}}),
            "image_url.url",
        );
        oa_rejects(
            |b| messages(b)[1]["content"][1]["image_url"]["url"] = json!("file:///etc/passwd"),
            "image_url.url",
        );
        oa_rejects(|b| messages(b)[1]["content"] = json!([]), "empty array");
        oa_rejects(
            |b| {
                messages(b)[2].as_object_mut().unwrap().remove("tool_calls");
            },
            "messages[2].content",
        );
        oa_rejects(
            |b| messages(b)[2]["tool_calls"][0]["function"]["arguments"] = json!({"elementId": "e1"}),
            "expected a string",
        );
        oa_rejects(|b| messages(b)[2]["tool_calls"][0]["type"] = json!("fn"), "'function'");
        oa_rejects(
            |b| messages(b)[2]["tool_calls"][1]["id"] = json!("call_1"),
            "duplicate tool call id",
        );
        oa_rejects(|b| messages(b)[2]["tool_calls"] = json!([]), "tool_calls");
        oa_rejects(|b| messages(b)[3]["tool_call_id"] = json!("call_9"), "call_9");
        oa_rejects(
            |b| {
                messages(b)[3].as_object_mut().unwrap().remove("tool_call_id");
            },
            "tool_call_id",
        );
        // A tool message after a user message, and an unanswered call.
        oa_rejects(
            |b| messages(b).push(json!({"role": "tool", "tool_call_id": "call_1", "content": "x"})),
            "preceeding message with 'tool_calls'",
        );
        oa_rejects(
            |b| {
                messages(b).remove(4);
            },
            "call_2",
        );
        oa_rejects(
            |b| {
                messages(b).truncate(3);
            },
            "call_1, call_2",
        );
        // Tools.
        oa_rejects(
            |b| {
                b["tools"] = json!([]);
                b.as_object_mut().unwrap().remove("tool_choice");
            },
            "'tools'",
        );
        oa_rejects(
            |b| b["tools"][0]["function"]["name"] = json!("perform action"),
            "pattern",
        );
        oa_rejects(|b| b["tools"][0]["function"]["name"] = json!("x".repeat(65)), "pattern");
        oa_rejects(
            |b| b["tools"][1]["function"]["name"] = json!("performAction"),
            "duplicate",
        );
        oa_rejects(
            |b| b["tools"][0]["function"]["parameters"] = json!({"type": "array"}),
            "type: \"object\"",
        );
        oa_rejects(|b| b["tools"][0]["function"]["description"] = json!(5), "description");
        oa_rejects(|b| b["tools"][0]["type"] = json!("retrieval"), "'function'");
        oa_rejects(
            |b| b["tools"][0]["function"]["strict"] = json!(true),
            "additionalProperties",
        );
        oa_rejects(|b| b["tool_choice"] = json!("sometimes"), "'sometimes'");
        oa_rejects(
            |b| b["tool_choice"] = json!({"type": "function", "function": {"name": "nope"}}),
            "\"nope\"",
        );
        oa_rejects(
            |b| {
                b.as_object_mut().unwrap().remove("tools");
            },
            "only allowed when 'tools' are specified",
        );
        // Numbers.
        oa_rejects(|b| b["max_tokens"] = json!(0), "'max_tokens'");
        oa_rejects(|b| b["max_tokens"] = json!(1.5), "'max_tokens'");
        oa_rejects(|b| b["max_completion_tokens"] = json!(-1), "'max_completion_tokens'");
        oa_rejects(|b| b["temperature"] = json!(2.5), "'temperature'");
        oa_rejects(|b| b["temperature"] = json!("hot"), "'temperature'");
        // Response formats.
        oa_structured_rejects(
            |b| b["response_format"] = json!({"type": "xml"}),
            "response_format.type",
        );
        oa_structured_rejects(|b| b["response_format"] = json!({"type": "json_object"}), "word 'json'");
        oa_structured_rejects(
            |b| b["response_format"]["json_schema"]["name"] = json!("my schema"),
            "json_schema.name",
        );
        oa_structured_rejects(
            |b| {
                b["response_format"]["json_schema"]
                    .as_object_mut()
                    .unwrap()
                    .remove("schema");
            },
            "json_schema.schema",
        );
        oa_structured_rejects(
            |b| b["response_format"]["json_schema"]["schema"] = json!({"type": "array", "items": {}}),
            "type: \"object\"",
        );
    }

    #[test]
    fn openai_strict_mode_rules_are_recursive() {
        let with_schema = |schema: Value| {
            let mut b = good_openai_structured();
            b["response_format"]["json_schema"]["schema"] = schema;
            validate_openai(&b)
        };
        let s = |f: &dyn Fn(&mut Value)| {
            let mut v = strict_schema_value();
            f(&mut v);
            with_schema(v).unwrap_err()
        };
        let e = s(&|v| {
            v.as_object_mut().unwrap().remove("additionalProperties");
        });
        assert!(e.contains("context=()") && e.contains("additionalProperties"), "{e}");
        let e = s(&|v| v["required"] = json!(["items"]));
        assert!(e.contains("Missing 'note'"), "{e}");
        let e = s(&|v| v["$defs"]["item"]["additionalProperties"] = json!(true));
        assert!(e.contains("'$defs', 'item'"), "{e}");
        let e = s(&|v| {
            v["properties"]["items"]["items"] =
                json!({"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}})
        });
        assert!(
            e.contains("'properties', 'items', 'items'") && e.contains("Missing 'a'"),
            "{e}"
        );
        let e =
            s(&|v| v["properties"]["note"]["anyOf"][0] = json!({"type": "object", "properties": {}, "required": []}));
        assert!(e.contains("'anyOf', '0'"), "{e}");
        let e = s(&|v| v["properties"]["note"] = json!({"oneOf": [{"type": "string"}]}));
        assert!(e.contains("'oneOf' is not permitted"), "{e}");
        // The same schema without strict is fine.
        let mut b = good_openai_structured();
        b["response_format"]["json_schema"]["schema"] =
            json!({"type": "object", "properties": {"a": {"type": "string"}}});
        b["response_format"]["json_schema"]["strict"] = json!(false);
        validate_openai(&b).unwrap();
    }

    #[test]
    fn anthropic_rejects_malformed_bodies() {
        an_rejects(|b| *b = json!("text"), "dictionary");
        an_rejects(
            |b| {
                b.as_object_mut().unwrap().remove("max_tokens");
            },
            "max_tokens: Field required",
        );
        an_rejects(|b| b["max_tokens"] = json!(0), "max_tokens");
        an_rejects(
            |b| {
                b.as_object_mut().unwrap().remove("model");
            },
            "model: Field required",
        );
        an_rejects(
            |b| b["response_format"] = json!({}),
            "response_format: Extra inputs are not permitted",
        );
        an_rejects(|b| b["stream"] = json!(true), "stream");
        an_rejects(|b| b["temperature"] = json!(1.5), "temperature");
        an_rejects(|b| b["messages"] = json!([]), "at least one message");
        an_rejects(
            |b| {
                messages(b).remove(0);
            },
            "first message must use the \"user\" role",
        );
        an_rejects(
            |b| messages(b).insert(1, json!({"role": "user", "content": "more"})),
            "roles must alternate",
        );
        an_rejects(
            |b| messages(b).insert(0, json!({"role": "system", "content": "sys"})),
            "Unexpected role \"system\"",
        );
        an_rejects(|b| messages(b)[0]["content"][0]["text"] = json!("  "), "non-whitespace");
        an_rejects(|b| messages(b)[0]["content"] = json!(""), "non-empty content");
        an_rejects(|b| messages(b)[0]["content"] = json!([]), "non-empty content");
        an_rejects(
            |b| messages(b)[0]["content"][1]["source"]["type"] = json!("file"),
            "source.type",
        );
        an_rejects(
            |b| messages(b)[0]["content"][1]["source"]["media_type"] = json!("image/bmp"),
            "media_type",
        );
        an_rejects(|b| messages(b)[0]["content"][1] = json!({"type": "video"}), "'video'");
        an_rejects(
            |b| messages(b)[0]["content"][0]["extra"] = json!(1),
            "extra: Extra inputs",
        );
        an_rejects(
            |b| messages(b)[0]["content"][0] = json!({"type": "tool_use", "id": "t", "name": "n", "input": {}}),
            "only allowed in assistant",
        );
        an_rejects(
            |b| messages(b)[1]["content"][0] = json!({"type": "tool_result", "tool_use_id": "t"}),
            "only allowed in user",
        );
        an_rejects(
            |b| messages(b)[1]["content"][1]["input"] = json!("e1"),
            "input: Input should be a valid dictionary",
        );
        an_rejects(|b| messages(b)[1]["content"][1]["id"] = json!("bad id"), "pattern");
        an_rejects(
            |b| {
                messages(b)[2]["content"].as_array_mut().unwrap().remove(0);
            },
            "without `tool_result`",
        );
        an_rejects(
            |b| {
                messages(b).truncate(2);
            },
            "without `tool_result`",
        );
        an_rejects(
            |b| messages(b)[2]["content"].as_array_mut().unwrap().reverse(),
            "must come first",
        );
        an_rejects(
            |b| messages(b)[2]["content"][0]["tool_use_id"] = json!("toolu_9"),
            "unexpected `tool_use_id`",
        );
        an_rejects(|b| messages(b)[2]["content"][0]["is_error"] = json!("no"), "is_error");
        an_rejects(
            |b| {
                messages(b)[2]["content"][0]["content"] =
                    json!([{"type": "tool_use", "id": "x", "name": "n", "input": {}}])
            },
            "text and image",
        );
        an_rejects(|b| b["system"] = json!(5), "system");
        an_rejects(
            |b| b["system"] = json!([{"type": "image", "source": {}}]),
            "system.0.type",
        );
        an_rejects(
            |b| {
                b["tools"][0].as_object_mut().unwrap().remove("input_schema");
            },
            "input_schema: Field required",
        );
        an_rejects(
            |b| b["tools"][0]["input_schema"] = json!({"type": "array"}),
            "input_schema.type",
        );
        an_rejects(|b| b["tools"][0]["name"] = json!("perform.action"), "pattern");
        an_rejects(|b| b["tools"][1]["name"] = json!("performAction"), "unique");
        an_rejects(|b| b["tools"][0]["type"] = json!("web_search_20250305"), "server tools");
        an_rejects(|b| b["tool_choice"] = json!({"type": "required"}), "'required'");
        an_rejects(
            |b| b["tool_choice"] = json!({"type": "tool", "name": "nope"}),
            "Tool 'nope' not found",
        );
        an_rejects(
            |b| {
                b.as_object_mut().unwrap().remove("tools");
                b["tool_choice"] = json!({"type": "any"});
            },
            "while providing tools",
        );
    }

    fn rec(wire: Wire, body: Value, headers: &[(&str, &str)]) -> Recorded {
        Recorded {
            index: 0,
            wire: Some(wire),
            path: match wire {
                Wire::OpenAi => "/v1/chat/completions".into(),
                Wire::Anthropic => "/v1/messages".into(),
            },
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
                .collect(),
            raw: body.to_string(),
            body,
            rejected: None,
        }
    }

    const OA_HEADERS: &[(&str, &str)] = &[
        ("Authorization", "Bearer test-key"),
        ("Content-Type", "application/json"),
    ];
    const AN_HEADERS: &[(&str, &str)] = &[
        ("x-api-key", "test-key"),
        ("anthropic-version", "2023-06-01"),
        ("content-type", "application/json"),
    ];

    #[test]
    fn gate_checks_endpoint_auth_headers_and_models() {
        assert!(gate("POST", &rec(Wire::OpenAi, good_openai(), OA_HEADERS), None).is_none());
        assert!(gate("POST", &rec(Wire::Anthropic, good_anthropic(), AN_HEADERS), None).is_none());

        let mut r = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
        r.wire = None;
        r.path = "/v1/completions".into();
        let v = gate("POST", &r, None).unwrap();
        assert_eq!(v.response.status, 404);
        assert!(v.rejected.unwrap().contains("/v1/completions"));

        let v = gate("POST", &rec(Wire::OpenAi, good_openai(), &OA_HEADERS[1..]), None).unwrap();
        assert_eq!((v.response.status, v.rejected.is_some()), (401, true));
        let v = gate(
            "POST",
            &rec(
                Wire::OpenAi,
                good_openai(),
                &[
                    ("authorization", "Bearer bad-key"),
                    ("content-type", "application/json"),
                ],
            ),
            None,
        )
        .unwrap();
        assert_eq!((v.response.status, v.rejected.is_none()), (401, true));
        assert_eq!(v.response.body_json()["error"]["code"], "invalid_api_key");
        assert!(v.response.body_json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("API key"));

        let v = gate("POST", &rec(Wire::Anthropic, good_anthropic(), &AN_HEADERS[1..]), None).unwrap();
        assert_eq!((v.response.status, v.rejected.is_some()), (401, true));
        let v = gate(
            "POST",
            &rec(
                Wire::Anthropic,
                good_anthropic(),
                &[("x-api-key", "k"), ("content-type", "application/json")],
            ),
            None,
        )
        .unwrap();
        assert_eq!(v.response.status, 400);
        assert!(v.rejected.unwrap().contains("anthropic-version"));
        let v = gate(
            "POST",
            &rec(
                Wire::Anthropic,
                good_anthropic(),
                &[("x-api-key", "bad-key"), ("anthropic-version", "2023-06-01")],
            ),
            None,
        )
        .unwrap();
        assert_eq!((v.response.status, v.rejected.is_none()), (401, true));
        assert_eq!(v.response.body_json()["error"]["type"], "authentication_error");

        let v = gate(
            "POST",
            &rec(Wire::OpenAi, Value::Null, OA_HEADERS),
            Some("expected value"),
        )
        .unwrap();
        assert_eq!(v.response.status, 400);
        assert!(v.rejected.unwrap().contains("could not parse the JSON body"));
        let v = gate("POST", &rec(Wire::OpenAi, good_openai(), &OA_HEADERS[..1]), None).unwrap();
        assert!(v.rejected.unwrap().contains("Content-Type"));

        let mut b = good_openai();
        b["model"] = json!(UNKNOWN_MODEL);
        let v = gate("POST", &rec(Wire::OpenAi, b, OA_HEADERS), None).unwrap();
        assert_eq!((v.response.status, v.rejected.is_none()), (404, true));
        assert_eq!(
            v.response.body_json(),
            json!({"error": {"message": "The model `no-such-model` does not exist or you do not have access to it.",
                             "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
        );
        let mut b = good_anthropic();
        b["model"] = json!(UNKNOWN_MODEL);
        let v = gate("POST", &rec(Wire::Anthropic, b, AN_HEADERS), None).unwrap();
        assert_eq!(v.response.status, 404);
        assert_eq!(
            v.response.body_json()["error"],
            json!({"type": "not_found_error", "message": "model: no-such-model"})
        );
        assert_eq!(v.response.body_json()["type"], "error");

        // A malformed body is a 400 in the provider's shape with the reason.
        let mut b = good_anthropic();
        b["max_tokens"] = json!(0);
        let v = gate("POST", &rec(Wire::Anthropic, b, AN_HEADERS), None).unwrap();
        assert_eq!(v.response.status, 400);
        assert_eq!(v.response.body_json()["error"]["type"], "invalid_request_error");
        assert!(v.rejected.unwrap().contains("max_tokens"));
    }

    fn ctx() -> RenderCtx {
        RenderCtx {
            index: 3,
            port: 4000,
            cached_tokens: 0,
        }
    }

    #[test]
    fn renders_tool_calls_text_and_json_in_both_formats() {
        let oa = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
        let r = render(
            &Reply::tool("performAction", json!({"elementId": "e1"})),
            Wire::OpenAi,
            &oa,
            &ctx(),
        );
        assert_eq!(r.status, 200);
        let b = r.body_json();
        assert_eq!(b["object"], "chat.completion");
        assert_eq!(b["model"], "gpt-4.1-mini");
        assert!(b["created"].as_u64().unwrap() > 1_600_000_000);
        assert!(b["id"].as_str().unwrap().starts_with("chatcmpl-"));
        let choice = &b["choices"][0];
        assert_eq!(choice["finish_reason"], "tool_calls");
        assert_eq!(choice["message"]["content"], Value::Null);
        let call = &choice["message"]["tool_calls"][0];
        assert_eq!(call["type"], "function");
        assert_eq!(call["function"]["name"], "performAction");
        assert_eq!(call["function"]["arguments"], json!("{\"elementId\":\"e1\"}"));
        assert!(call["id"].as_str().unwrap().starts_with("call_"));
        let u = &b["usage"];
        assert_eq!(u["prompt_tokens"].as_u64().unwrap(), oa.raw.len() as u64 / 4);
        assert_eq!(
            u["total_tokens"].as_u64().unwrap(),
            u["prompt_tokens"].as_u64().unwrap() + u["completion_tokens"].as_u64().unwrap()
        );
        assert_eq!(u["prompt_tokens_details"]["cached_tokens"], 0);

        let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
        let r = render(
            &Reply::tools(vec![("a", json!({"x": 1})), ("b", json!({}))]),
            Wire::Anthropic,
            &an,
            &ctx(),
        );
        let b = r.body_json();
        assert_eq!(
            (b["type"].as_str(), b["role"].as_str()),
            (Some("message"), Some("assistant"))
        );
        assert_eq!(b["stop_reason"], "tool_use");
        assert_eq!(b["content"][1]["type"], "tool_use");
        assert_eq!(b["content"][1]["name"], "b");
        assert_eq!(b["content"][0]["input"], json!({"x": 1}));
        assert_ne!(b["content"][0]["id"], b["content"][1]["id"]);
        assert!(b["usage"]["input_tokens"].as_u64().unwrap() > 0);
        assert!(b.get("created").is_none());

        // Text.
        let b = render(&Reply::text("hello"), Wire::OpenAi, &oa, &ctx()).body_json();
        assert_eq!(
            (
                b["choices"][0]["message"]["content"].as_str(),
                b["choices"][0]["finish_reason"].as_str()
            ),
            (Some("hello"), Some("stop"))
        );
        let b = render(&Reply::text("hello"), Wire::Anthropic, &an, &ctx()).body_json();
        assert_eq!(b["content"], json!([{"type": "text", "text": "hello"}]));
        assert_eq!(b["stop_reason"], "end_turn");

        // Json: response_format → content; forced tool → a call of it; else text.
        let v = json!({"n": 7});
        let st = rec(Wire::OpenAi, good_openai_structured(), OA_HEADERS);
        let b = render(&Reply::json(v.clone()), Wire::OpenAi, &st, &ctx()).body_json();
        assert_eq!(b["choices"][0]["message"]["content"], json!("{\"n\":7}"));
        let b = render(&Reply::json(v.clone()), Wire::Anthropic, &an, &ctx()).body_json();
        assert_eq!(b["content"][0]["name"], "extraction");
        assert_eq!(b["content"][0]["input"], v);
        let mut forced = good_openai();
        forced["tool_choice"] = json!({"type": "function", "function": {"name": "removeBlocker"}});
        let b = render(
            &Reply::json(v.clone()),
            Wire::OpenAi,
            &rec(Wire::OpenAi, forced, OA_HEADERS),
            &ctx(),
        )
        .body_json();
        assert_eq!(
            b["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
            "removeBlocker"
        );
        let b = render(&Reply::json(v.clone()), Wire::OpenAi, &oa, &ctx()).body_json();
        assert_eq!(b["choices"][0]["message"]["content"], json!("{\"n\":7}"));

        // Dynamic and Delay resolve to their replies.
        let d = Reply::dynamic(|r: &Recorded| Reply::text(r.last_user_text()));
        let b = render(&Reply::delay(1, d), Wire::Anthropic, &an, &ctx()).body_json();
        assert_eq!(b["content"][0]["text"], "clicked\nWhat next?");
    }

    #[test]
    fn renders_statuses_raw_bodies_and_cache_usage() {
        let oa = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
        let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
        let r = render(
            &Reply::status_with(429, &[("Retry-After", "1")], None),
            Wire::OpenAi,
            &oa,
            &ctx(),
        );
        assert_eq!(r.status, 429);
        assert_eq!(r.header("retry-after"), Some("1"));
        assert_eq!(r.body_json()["error"]["code"], "rate_limit_exceeded");
        let r = render(&Reply::status(529), Wire::Anthropic, &an, &ctx());
        assert_eq!(r.body_json()["error"]["type"], "overloaded_error");
        assert_eq!(r.body_json()["type"], "error");
        let r = render(&Reply::status(500), Wire::OpenAi, &oa, &ctx());
        assert_eq!(r.body_json()["error"]["type"], "server_error");
        let r = render(
            &Reply::status_with(503, &[], Some("upstream down")),
            Wire::OpenAi,
            &oa,
            &ctx(),
        );
        assert_eq!((r.status, r.body.as_str()), (503, "upstream down"));
        let r = render(&Reply::raw("{\"choices\": [ oops"), Wire::OpenAi, &oa, &ctx());
        assert_eq!((r.status, r.body.as_str()), (200, "{\"choices\": [ oops"));

        let mut c = ctx();
        c.cached_tokens = 10;
        let b = render(&Reply::text("x"), Wire::OpenAi, &oa, &c).body_json();
        assert_eq!(b["usage"]["prompt_tokens_details"]["cached_tokens"], 10);
        let b = render(&Reply::text("x"), Wire::Anthropic, &an, &c).body_json();
        let prompt = an.raw.len() as u64 / 4;
        assert_eq!(b["usage"]["cache_read_input_tokens"], 10);
        assert_eq!(b["usage"]["input_tokens"].as_u64().unwrap(), prompt - 10);

        // Encoding: status line, content-length, scripted headers.
        let bytes = encode(
            &render(
                &Reply::status_with(429, &[("Retry-After", "1")], None),
                Wire::OpenAi,
                &oa,
                &ctx(),
            ),
            false,
        );
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.starts_with("HTTP/1.1 429 Too Many Requests\r\n"), "{text}");
        assert!(
            text.contains("Retry-After: 1\r\n") && text.contains("content-length: "),
            "{text}"
        );
    }

    #[test]
    fn recorded_helpers_read_both_formats() {
        let oa = rec(Wire::OpenAi, good_openai(), OA_HEADERS);
        assert_eq!(oa.header("AUTHORIZATION"), Some("Bearer test-key"));
        assert_eq!(oa.model(), Some("gpt-4.1-mini"));
        assert_eq!(oa.tool_names(), ["performAction", "removeBlocker"]);
        assert_eq!(oa.forced_tool(), None);
        assert!(!oa.has_response_format());
        assert_eq!(oa.last_user_text(), "clicked\nError: nothing to remove\nWhat next?");
        let p = oa.prompt_text();
        for needle in [
            "You act on web pages.",
            "Instruction: click Buy",
            "{\"elementId\":\"e1\"}",
            "Act on an element",
            "\"required\":[\"elementId\"]",
        ] {
            assert!(p.contains(needle), "{needle:?} missing from {p}");
        }
        assert!(!p.contains("iVBORw0KGgo"), "images are not prompt text");

        let st = rec(Wire::OpenAi, good_openai_structured(), OA_HEADERS);
        assert!(st.has_response_format());
        assert!(st.prompt_text().contains("\"$defs\""));
        assert_eq!(st.last_user_text(), "the page");

        let an = rec(Wire::Anthropic, good_anthropic(), AN_HEADERS);
        assert_eq!(an.forced_tool().as_deref(), Some("extraction"));
        assert_eq!(an.tool_names(), ["performAction", "extraction"]);
        assert_eq!(an.last_user_text(), "clicked\nWhat next?");
        let p = an.prompt_text();
        for needle in [
            "You act on web pages.",
            "Clicking.",
            "{\"elementId\":\"e1\"}",
            "Give your answer",
            "clicked",
        ] {
            assert!(p.contains(needle), "{needle:?} missing from {p}");
        }
    }

    /// Sends raw bytes, reads one response (head + Content-Length body).
    fn exchange(stream: &mut std::net::TcpStream, request: &[u8]) -> (u16, String, Value) {
        use std::io::{Read, Write};
        stream.write_all(request).unwrap();
        let mut buf = Vec::new();
        let mut byte = [0u8; 1];
        while !buf.ends_with(b"\r\n\r\n") {
            assert_eq!(stream.read(&mut byte).unwrap(), 1, "connection closed early");
            buf.push(byte[0]);
        }
        let head = String::from_utf8(buf).unwrap();
        let status: u16 = head[9..12].parse().unwrap();
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let mut body = vec![0u8; len];
        stream.read_exact(&mut body).unwrap();
        (status, head, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    #[test]
    fn http_keep_alive_chunked_bodies_and_expect_continue() {
        let server = LlmServer::with_script(vec![Reply::text("one"), Reply::text("two"), Reply::text("three")]);
        let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port())).unwrap();
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).to_string();
        let plain = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let (status, head, b) = exchange(&mut s, plain.as_bytes());
        assert_eq!(status, 200, "{head}");
        assert!(head.contains("connection: keep-alive"));
        assert_eq!(b["choices"][0]["message"]["content"], "one");
        // Same connection, chunked body split at an awkward place.
        let (a, z) = body.split_at(7);
        let chunked = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x};ext=1\r\n{z}\r\n0\r\n\r\n",
            a.len(),
            z.len()
        );
        let (status, _, b) = exchange(&mut s, chunked.as_bytes());
        assert_eq!(status, 200);
        assert_eq!(b["choices"][0]["message"]["content"], "two");
        // Expect: 100-continue, then Connection: close.
        use std::io::{Read, Write};
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        let mut cont = [0u8; 25];
        s.read_exact(&mut cont).unwrap();
        assert_eq!(&cont, b"HTTP/1.1 100 Continue\r\n\r\n");
        let (status, head, b) = exchange(&mut s, body.as_bytes());
        assert_eq!(status, 200);
        assert!(head.contains("connection: close"));
        assert_eq!(b["choices"][0]["message"]["content"], "three");
        let mut rest = Vec::new();
        s.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "the server closed the connection");
        assert_eq!(server.request_count(), 3);
        assert_eq!(
            server.requests()[1].body,
            server.requests()[0].body,
            "the chunked body reassembles"
        );
        server.assert_no_malformed();
    }
}
