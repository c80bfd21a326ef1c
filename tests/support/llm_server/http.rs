//! HTTP/1.1 for the scripted server: requests read with keep-alive,
//! chunked bodies and `Expect: 100-continue`; responses encoded with a
//! Content-Length. Broken HTTP is answered with 400 and a closed connection.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

const MAX_HEAD: usize = 64 * 1024;
/// Screenshots make large bodies; real APIs take tens of MB.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One parsed request.
pub(crate) struct HttpRequest {
    pub method: String,
    pub target: String,
    http10: bool,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpRequest {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// HTTP/1.1 keeps the connection unless told otherwise; 1.0 the reverse.
    pub fn wants_close(&self) -> bool {
        let c = self.header("connection").unwrap_or("").to_ascii_lowercase();
        let tokens: Vec<&str> = c.split(',').map(str::trim).collect();
        tokens.contains(&"close") || (self.http10 && !tokens.contains(&"keep-alive"))
    }
}

pub(crate) enum ReadError {
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
pub(crate) struct Conn<S> {
    pub io: S,
    pub buf: Vec<u8>,
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
    pub async fn read_request(&mut self) -> Result<Option<HttpRequest>, ReadError> {
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
    pub async fn wait_or_hangup(&mut self, ms: u64) -> bool {
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
pub(crate) struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn json(status: u16, body: String) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body,
        }
    }

    pub fn body_json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    pub fn header(&self, name: &str) -> Option<&str> {
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
pub(crate) fn encode(r: &Response, close: bool) -> Vec<u8> {
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
