//! Selenium Grid 4 sessions: a Chromium asked for through the grid's
//! WebDriver new-session endpoint, reached over the `se:cdp` WebSocket the
//! grid hands back, and deleted when the task ends.
//!
//! While every slot is busy the grid holds the new-session request in its
//! queue; the request simply takes longer to answer, so a worker waits on
//! it (and reports the task as queued). We drive the browser over CDP, which
//! the grid does not count as use of the session, so a keep-alive WebDriver
//! call keeps long tasks from hitting the grid's idle timeout.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use serde_json::{json, Value};

use crate::browser::{chrome_switches, LaunchOptions};
use crate::error::{one_line, Error, Result};

/// How long a new-session request may wait in the grid's queue (the grid's
/// own `session-request-timeout`, 300 s by default, usually answers first).
const QUEUE_LIMIT: Duration = Duration::from_secs(900);
const CALL_LIMIT: Duration = Duration::from_secs(30);
/// Below the grid's default 300 s session timeout.
pub const KEEPALIVE_EVERY: Duration = Duration::from_secs(60);

/// A grid to ask for sessions.
#[derive(Debug, Clone)]
pub struct Grid {
    /// The WebDriver root, without a trailing slash (`http://host:4444`, or `…/wd/hub`).
    base: String,
    http: reqwest::Client,
}

/// A Chromium session of the grid; delete it with [`GridSession::delete`]
/// (dropping it undeleted deletes it too, synchronously, as a last resort).
#[derive(Debug)]
pub struct GridSession {
    base: String,
    http: reqwest::Client,
    pub id: String,
    /// The session's CDP WebSocket, at the address the grid was reached at.
    pub cdp_url: String,
    deleted: bool,
}

impl Grid {
    pub fn new(url: &str) -> Result<Grid> {
        let bad = |reason: String| Error::Connect {
            url: url.to_string(),
            reason,
        };
        let parsed = url::Url::parse(url.trim()).map_err(|e| bad(format!("not a URL ({e})")))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(bad("a grid URL is http://host:port (or https://)".into()));
        }
        // The same TLS setup as the model client (https grids behind a gateway).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| bad(format!("cannot set up HTTP: {e}")))?;
        Ok(Grid {
            base: url.trim().trim_end_matches('/').to_string(),
            http,
        })
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    /// Slots of the grid's nodes that are up (from `/status`), if it says.
    pub async fn slots(&self) -> Result<usize> {
        let status = self.call(reqwest::Method::GET, "/status", None, CALL_LIMIT).await?;
        let nodes = status["value"]["nodes"].as_array().cloned().unwrap_or_default();
        Ok(nodes
            .iter()
            .filter(|n| n["availability"] == "UP")
            .map(|n| n["slots"].as_array().map_or(0, Vec::len))
            .sum())
    }

    /// Asks for a Chromium session, waiting while the grid queues the request.
    pub async fn new_session(&self, launch: &LaunchOptions, name: &str) -> Result<GridSession> {
        let body = json!({"capabilities": {"alwaysMatch": capabilities(launch, name)}});
        let answer = self
            .call(reqwest::Method::POST, "/session", Some(body), QUEUE_LIMIT)
            .await?;
        let value = &answer["value"];
        let id = value["sessionId"]
            .as_str()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| self.err(format!("no session id in the answer: {}", brief(&answer))))?
            .to_string();
        let mut session = GridSession {
            base: self.base.clone(),
            http: self.http.clone(),
            id,
            cdp_url: String::new(),
            deleted: false,
        };
        match value["capabilities"]["se:cdp"].as_str() {
            Some(cdp) => session.cdp_url = self.reachable(cdp),
            None => {
                session.delete().await.ok();
                return Err(self.err(
                    "the session has no se:cdp WebSocket (a Grid 4 with a Chromium or Chrome node is needed)".into(),
                ));
            }
        }
        Ok(session)
    }

    /// `se:cdp` names the grid as the grid sees itself; keep the scheme,
    /// host and port we reach it at (a router behind a port mapping or a
    /// Kubernetes service), and the path the grid gave.
    fn reachable(&self, cdp: &str) -> String {
        let (Ok(mut ws), Ok(base)) = (url::Url::parse(cdp), url::Url::parse(&self.base)) else {
            return cdp.to_string();
        };
        let _ = ws.set_scheme(if base.scheme() == "https" { "wss" } else { "ws" });
        let _ = ws.set_host(base.host_str());
        let _ = ws.set_port(base.port_or_known_default());
        ws.to_string()
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>, limit: Duration) -> Result<Value> {
        call(&self.http, &self.base, method, path, body, limit).await
    }

    fn err(&self, reason: String) -> Error {
        Error::Connect {
            url: self.base.clone(),
            reason,
        }
    }
}

impl GridSession {
    /// WebDriver traffic that keeps the grid from ending the session as idle.
    pub async fn keep_alive(&self) -> Result<()> {
        let path = format!("/session/{}/timeouts", self.id);
        call(&self.http, &self.base, reqwest::Method::GET, &path, None, CALL_LIMIT)
            .await
            .map(|_| ())
    }

    /// Ends the session: the grid stops its browser and frees the slot.
    pub async fn delete(&mut self) -> Result<()> {
        if self.deleted {
            return Ok(());
        }
        let path = format!("/session/{}", self.id);
        let r = call(&self.http, &self.base, reqwest::Method::DELETE, &path, None, CALL_LIMIT).await;
        // Tried once: a second try would only fail the same way, and the
        // grid's idle timeout reaps what is left.
        self.deleted = true;
        r.map(|_| ())
    }
}

impl Drop for GridSession {
    fn drop(&mut self) {
        if !self.deleted {
            tracing::debug!(session = %self.id, "grid session dropped undeleted; deleting it now");
            delete_blocking(&self.base, &self.id);
        }
    }
}

/// The requested capabilities: Chromium, headless unless headed, with the
/// switches and window size our own launches use. The node's stereotype
/// picks the binary. The sandbox is off unless asked for: grid nodes often
/// run in containers (or as root) where Chromium's sandbox cannot start.
fn capabilities(launch: &LaunchOptions, name: &str) -> Value {
    let mut args: Vec<String> = chrome_switches().into_iter().map(|s| format!("--{s}")).collect();
    if !launch.headed {
        args.push("--headless=new".into());
    }
    if launch.sandbox != Some(true) {
        args.push("--no-sandbox".into());
    }
    args.push(format!(
        "--window-size={},{}",
        launch.viewport.width, launch.viewport.height
    ));
    args.extend(
        launch
            .extra_args
            .iter()
            .map(|a| format!("--{}", a.trim_start_matches('-'))),
    );
    json!({
        "browserName": "chrome",
        "goog:chromeOptions": {"args": args},
        "se:name": name,
    })
}

async fn call(
    http: &reqwest::Client,
    base: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
    limit: Duration,
) -> Result<Value> {
    let err = |reason: String| Error::Connect {
        url: base.to_string(),
        reason,
    };
    let mut req = http.request(method, format!("{base}{path}")).timeout(limit);
    if let Some(body) = body {
        // Grid 4.20 refuses a JSON body without the charset.
        req = req
            .header("Content-Type", "application/json; charset=utf-8")
            .body(body.to_string());
    }
    let resp = req.send().await.map_err(|e| {
        if e.is_timeout() {
            err(format!("{path}: no answer within {}s", limit.as_secs()))
        } else {
            err(format!("{path}: {}", one_line(&e.to_string())))
        }
    })?;
    let status = resp.status();
    let text = resp.text().await.map_err(|e| err(format!("{path}: {e}")))?;
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if !status.is_success() {
        let v = &value["value"];
        let why = match (v["error"].as_str(), v["message"].as_str()) {
            (Some(e), Some(m)) => format!("{e}: {}", first_line(m)),
            _ => brief(&Value::String(text)),
        };
        return Err(err(format!("{path} answered {status}: {why}")));
    }
    Ok(value)
}

fn first_line(s: &str) -> String {
    one_line(s.lines().next().unwrap_or_default())
}

fn brief(v: &Value) -> String {
    let s = match v {
        Value::String(s) => one_line(s),
        other => other.to_string(),
    };
    crate::text::clip(&s, 200)
}

/// `DELETE /session/<id>` with plain blocking I/O: it works from `Drop`,
/// also while the async runtime is shutting down. http grids only.
fn delete_blocking(base: &str, id: &str) {
    let Ok(url) = url::Url::parse(base) else { return };
    if url.scheme() != "http" {
        return;
    }
    let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
        return;
    };
    let Some(addr) = (host, port).to_socket_addrs().ok().and_then(|mut a| a.next()) else {
        return;
    };
    let Ok(mut sock) = TcpStream::connect_timeout(&addr, Duration::from_secs(3)) else {
        return;
    };
    let _ = sock.set_read_timeout(Some(Duration::from_secs(10)));
    let path = format!("{}/session/{id}", url.path().trim_end_matches('/'));
    let request = format!("DELETE {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n");
    if sock.write_all(request.as_bytes()).is_ok() {
        let mut answer = [0u8; 256];
        let _ = sock.read(&mut answer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_ask_for_headless_chromium() {
        let launch = LaunchOptions {
            extra_args: vec!["lang=de".into()],
            ..LaunchOptions::default()
        };
        let caps = capabilities(&launch, "task-1");
        assert_eq!(caps["browserName"], "chrome");
        assert_eq!(caps["se:name"], "task-1");
        let args: Vec<&str> = caps["goog:chromeOptions"]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        for want in [
            "--headless=new",
            "--no-sandbox",
            "--lang=de",
            "--disable-background-networking",
        ] {
            assert!(args.contains(&want), "{want}: {args:?}");
        }
        assert!(args.iter().any(|a| a.starts_with("--disable-features=")), "{args:?}");
    }

    #[test]
    fn cdp_urls_go_through_the_address_we_reach_the_grid_at() {
        let grid = Grid::new("http://grid.example:8080/").unwrap();
        assert_eq!(grid.url(), "http://grid.example:8080");
        assert_eq!(
            grid.reachable("ws://10.0.0.7:4444/session/abc/se/cdp"),
            "ws://grid.example:8080/session/abc/se/cdp"
        );
        assert!(Grid::new("ws://x:1").is_err());
    }
}
