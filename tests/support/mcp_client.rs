//! A real MCP client for tests and benchmarks: the npm SDK's `Client`
//! (`@modelcontextprotocol/sdk`, pinned by scripts/setup.sh), run by
//! `mcp-client.mjs` next to this file and driven over JSON lines.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// One tool call's answer.
#[derive(Debug, Clone)]
pub struct Answer {
    pub is_error: bool,
    pub text: String,
    pub images: u64,
    /// The call's round trip, as the client measured it.
    pub ms: f64,
}

pub struct McpClient {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// What the server said on connecting (protocol version, server info).
    pub hello: Value,
}

/// `tests/support/mcp-client.mjs`.
fn client_script() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("mcp-client.mjs")
        .to_string_lossy()
        .into_owned()
}

impl McpClient {
    /// A server started as `command args…`, over stdio, with extra environment variables.
    pub fn stdio(command: &str, args: &[&str], envs: &[(&str, &str)]) -> McpClient {
        let mut full = vec![client_script(), "stdio".into(), command.to_string()];
        full.extend(args.iter().map(|s| s.to_string()));
        McpClient::spawn(&full, envs)
    }

    /// An HTTP server at `url` (`…/mcp`), with an optional bearer token.
    pub fn http(url: &str, token: Option<&str>) -> McpClient {
        McpClient::http_env(url, token, &[])
    }

    /// [`McpClient::http`] with environment variables for the client
    /// (`MCP_CLIENT_ROOTS`, see [`roots_env`]).
    pub fn http_env(url: &str, token: Option<&str>, envs: &[(&str, &str)]) -> McpClient {
        let mut full = vec![client_script(), "http".into(), url.to_string()];
        if let Some(t) = token {
            full.push(t.to_string());
        }
        McpClient::spawn(&full, envs)
    }

    fn spawn(args: &[String], envs: &[(&str, &str)]) -> McpClient {
        let mut child = Command::new("node")
            .args(args)
            .envs(envs.iter().copied())
            .env_remove("SIGHTLINE_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs the MCP client");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the client answers");
        let hello: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("client said {line:?}: {e}"));
        assert!(hello.get("ready").is_some(), "the client did not connect: {hello}");
        McpClient {
            child,
            stdin,
            stdout,
            hello,
        }
    }

    fn ask(&mut self, req: Value) -> Value {
        writeln!(self.stdin, "{req}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("the client answers");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("client said {line:?}: {e}"));
        assert!(v.get("error").is_none(), "MCP client error for {req}: {v}");
        v
    }

    /// The listed tools' names.
    pub fn tool_names(&mut self) -> Vec<String> {
        self.tools()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }

    pub fn tools(&mut self) -> Vec<Value> {
        self.ask(json!({"op": "list"}))["tools"].as_array().unwrap().clone()
    }

    pub fn call(&mut self, name: &str, args: Value) -> Answer {
        let v = self.ask(json!({"op": "call", "name": name, "args": args}));
        Answer {
            is_error: v["isError"].as_bool().unwrap(),
            text: v["text"].as_str().unwrap_or_default().to_string(),
            images: v["images"].as_u64().unwrap_or(0),
            ms: v["ms"].as_f64().unwrap_or(f64::NAN),
        }
    }

    /// A call that must succeed.
    pub fn ok(&mut self, name: &str, args: Value) -> String {
        let a = self.call(name, args.clone());
        assert!(!a.is_error, "{name} {args} failed:\n{}", a.text);
        a.text
    }

    /// The client's process id (the server over stdio is its child).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Replaces the client's roots (it was started with `MCP_CLIENT_ROOTS`)
    /// and tells the server they changed.
    pub fn set_roots(&mut self, dirs: &[&std::path::Path]) {
        let uris: Value = serde_json::from_str(&roots_env(dirs)).unwrap();
        let v = self.ask(json!({"op": "roots", "roots": uris}));
        assert_eq!(v["changed"], true, "{v}");
    }

    /// Every JSON-RPC message so far, both ways, as one string.
    pub fn transcript(&mut self) -> String {
        self.ask(json!({"op": "transcript"}))["messages"].to_string()
    }
}

/// The `Mcp-Session-Id` of a raw answer to `initialize`.
pub fn session_id_of(raw: &str) -> Option<String> {
    raw.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("mcp-session-id")
            .then(|| value.trim().to_string())
    })
}

/// A raw MCP session over HTTP, as a client that speaks the protocol by
/// hand: `initialize` and `notifications/initialized` on opening.
pub struct RawSession {
    pub port: u16,
    pub id: String,
    next: u64,
}

/// The `initialize` request of a raw session.
pub const RAW_INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

impl RawSession {
    /// Opens a session, or returns the server's refusal (status and text).
    pub fn open(port: u16) -> Result<RawSession, (u16, String)> {
        let (status, raw) = raw_post(port, &[], RAW_INITIALIZE);
        let Some(id) = session_id_of(&raw).filter(|_| status == 200) else {
            return Err((status, raw));
        };
        let s = RawSession { port, id, next: 2 };
        s.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        Ok(s)
    }

    fn headers(&self) -> [(&str, &str); 2] {
        [
            ("Mcp-Session-Id", self.id.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ]
    }

    /// POSTs a message in the session: status and response text.
    pub fn post(&self, body: &str) -> (u16, String) {
        raw_post(self.port, &self.headers(), body)
    }

    /// Calls a tool: status and response text.
    pub fn call(&mut self, name: &str, args: Value) -> (u16, String) {
        let id = self.next;
        self.next += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
        self.post(&body.to_string())
    }

    /// Ends the session (HTTP DELETE): the status.
    pub fn delete(self) -> u16 {
        raw_request(self.port, "DELETE", &self.headers(), "").0
    }
}

/// The value of `MCP_CLIENT_ROOTS` for a client that declares these
/// directories as its roots.
pub fn roots_env(dirs: &[&std::path::Path]) -> String {
    // Test directories are temporary ones: nothing in them needs escaping.
    let uris: Vec<String> = dirs.iter().map(|d| format!("file://{}/", d.display())).collect();
    serde_json::to_string(&uris).unwrap()
}

impl Drop for McpClient {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", json!({"op": "close"}));
        let _ = self.stdin.flush();
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A raw HTTP POST to the MCP endpoint with extra headers: the status code.
pub fn raw_post_status(port: u16, headers: &[(&str, &str)]) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    raw_post(port, headers, body).0
}

/// A raw HTTP POST of `body` to the MCP endpoint: status and response text.
pub fn raw_post(port: u16, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    raw_request(port, "POST", headers, body)
}

/// A raw HTTP request to the MCP endpoint (`DELETE` ends a session):
/// status and response text, headers included.
pub fn raw_request(port: u16, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(120))).unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    // A plain answer ends with the connection (Connection: close); an SSE
    // stream may stay open, so it ends once the JSON-RPC response event
    // has arrived.
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
        let text = String::from_utf8_lossy(&raw);
        // (A whole event: its JSON parses. A long one comes in pieces.)
        let answered = text.lines().any(|l| {
            l.strip_prefix("data: ")
                .and_then(|json| serde_json::from_str::<Value>(json.trim()).ok())
                .is_some_and(|m| m.get("result").is_some() || m.get("error").is_some())
        });
        if text.contains("event-stream") && answered {
            break;
        }
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text)
}
