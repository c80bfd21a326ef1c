//! `--cdp-url`: reaching a browser that is already running (a remote fleet,
//! a Kubernetes pool, a local Chromium started with `--remote-debugging-port`).
//!
//! `ws://…/devtools/browser/…` URLs are used as they are. For
//! `http://host:port` (also written `host:port` or `ws://host:port`) the
//! DevTools WebSocket URL is read from `/json/version` with a plain HTTP/1.1
//! GET over TCP (no HTTP client dependency).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::error::{Error, Result};

/// The DevTools WebSocket URL for `cdp_url`.
pub async fn websocket_url(cdp_url: &str, timeout: Duration) -> Result<String> {
    let err = |reason: String| Error::Connect {
        url: cdp_url.to_string(),
        reason,
    };
    // `host:port`, as people write a DevTools port: its HTTP endpoint.
    let given = cdp_url.trim();
    let written = if given.contains("://") {
        given.to_string()
    } else {
        format!("http://{given}")
    };
    let parsed = url::Url::parse(&written).map_err(|e| err(format!("not a URL ({e})")))?;
    // `ws://host:port` without the browser's path (or a query a service
    // authenticates with): Chromium's is found as for http://; a server that
    // answers WebSocket at its root (and no /json/version) is used as given.
    if parsed.scheme() == "ws" && matches!(parsed.path(), "" | "/") && parsed.query().is_none() {
        let mut http = parsed.clone();
        let _ = http.set_scheme("http");
        if let Ok(found) = Box::pin(websocket_url(http.as_str(), timeout)).await {
            return Ok(found);
        }
        return Ok(parsed.to_string());
    }
    if parsed.path().starts_with("/devtools/page/") {
        return Err(err(
            "that is one tab's DevTools URL; give the browser's: http://host:port, or the ws://…/devtools/browser/… \
URL from /json/version"
                .into(),
        ));
    }
    match parsed.scheme() {
        "ws" | "wss" => Ok(parsed.to_string()),
        "http" => {
            let host = parsed.host_str().ok_or_else(|| err("no host".into()))?.to_string();
            let port = parsed.port_or_known_default().unwrap_or(80);
            let mut path = parsed.path().trim_end_matches('/').to_string();
            if !path.ends_with("/json/version") {
                path.push_str("/json/version");
            }
            let body = tokio::time::timeout(timeout, http_get(&host, port, &path))
                .await
                .map_err(|_| err(format!("no answer from {host}:{port} within {}s", timeout.as_secs())))?
                .map_err(err)?;
            let v: serde_json::Value = serde_json::from_str(&body)
                .map_err(|_| err(format!("{path} did not answer JSON (is this a DevTools endpoint?)")))?;
            let ws = v["webSocketDebuggerUrl"]
                .as_str()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| err(format!("{path} has no webSocketDebuggerUrl")))?;
            // Behind a proxy or port mapping the browser names its own
            // address; keep the host and port we reached it at.
            let mut ws_url = url::Url::parse(ws).map_err(|e| err(format!("bad webSocketDebuggerUrl {ws:?}: {e}")))?;
            let _ = ws_url.set_host(Some(&host));
            let _ = ws_url.set_port(Some(port));
            Ok(ws_url.to_string())
        }
        "https" => Err(err(
            "https endpoints are not supported; give the ws:// or wss:// URL from /json/version".into(),
        )),
        other => Err(err(format!(
            "unsupported scheme \"{other}:\" (use ws://, wss:// or http://)"
        ))),
    }
}

async fn http_get(host: &str, port: u16, path: &str) -> std::result::Result<String, String> {
    let mut sock = TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("cannot connect to {host}:{port}: {e}"))?;
    let host_header = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {host_header}\r\nAccept: application/json\r\nConnection: close\r\n\r\n");
    sock.write_all(request.as_bytes())
        .await
        .map_err(|e| format!("cannot send the request: {e}"))?;
    // Read the head, then exactly Content-Length bytes (DevTools keeps the
    // connection open whatever the request says), or to the end.
    let mut raw = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut expected: Option<usize> = None;
    loop {
        if let Some(head_end) = find(&raw, b"\r\n\r\n") {
            if expected.is_none() {
                let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
                expected = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .map(|n| head_end + 4 + n);
            }
            if expected.is_some_and(|n| raw.len() >= n) {
                break;
            }
        }
        let n = sock
            .read(&mut chunk)
            .await
            .map_err(|e| format!("cannot read the answer: {e}"))?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&chunk[..n]);
        if raw.len() > 1 << 20 {
            return Err("the answer is too large".into());
        }
    }
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| "not an HTTP answer".to_string())?;
    let status_line = head.lines().next().unwrap_or("");
    if status_line.split_whitespace().nth(1) != Some("200") {
        return Err(format!("{path} answered {status_line:?}"));
    }
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase().starts_with("transfer-encoding:") && l.to_ascii_lowercase().contains("chunked")
    });
    Ok(if chunked { dechunk(body) } else { body.to_string() })
}

/// Whether a DevTools WebSocket URL is a Chromium's own browser endpoint
/// (`ws://host:port/devtools/browser/<id>`), not a relay's.
pub fn is_browser_endpoint(ws: &str) -> bool {
    let Some((_, rest)) = ws.split_once("://") else {
        return false;
    };
    rest.find('/')
        .is_some_and(|at| rest[at..].starts_with("/devtools/browser/"))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_endpoint_is_told_from_a_relay() {
        assert!(is_browser_endpoint("ws://127.0.0.1:9222/devtools/browser/5d1c-aa"));
        assert!(!is_browser_endpoint("ws://127.0.0.1:9555/cdp/0f3a"));
        assert!(!is_browser_endpoint("ws://grid:4444/session/12/se/cdp"));
        assert!(!is_browser_endpoint("ws://127.0.0.1:9222/devtools/page/ABC"));
    }

    #[test]
    fn dechunks() {
        assert_eq!(dechunk("4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n"), "Wikipedia");
    }

    #[tokio::test]
    async fn ws_urls_pass_and_bad_ones_fail() {
        let t = Duration::from_secs(1);
        assert_eq!(
            websocket_url("ws://127.0.0.1:9222/devtools/browser/x", t)
                .await
                .unwrap(),
            "ws://127.0.0.1:9222/devtools/browser/x"
        );
        assert!(websocket_url("ftp://x", t)
            .await
            .unwrap_err()
            .to_string()
            .contains("unsupported scheme"));
        // One tab's URL is not the browser's.
        let tab = websocket_url("ws://127.0.0.1:9222/devtools/page/ABC", t)
            .await
            .unwrap_err();
        assert!(tab.to_string().contains("that is one tab's DevTools URL"), "{tab}");
        // A closed port: a typed, one-line error.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = websocket_url(&format!("http://127.0.0.1:{port}"), t).await.unwrap_err();
        assert!(matches!(e, Error::Connect { .. }), "{e}");
        assert!(e.to_string().contains("cannot connect"), "{e}");
        // `host:port` is looked up as its HTTP endpoint; `ws://host:port`
        // too, and used as given when that finds nothing (a server that
        // answers WebSocket at its root), as is one with a query.
        let e = websocket_url(&format!("127.0.0.1:{port}"), t).await.unwrap_err();
        assert!(
            e.to_string().contains(&format!("cannot connect to 127.0.0.1:{port}")),
            "{e}"
        );
        for given in [
            format!("ws://127.0.0.1:{port}/"),
            format!("ws://127.0.0.1:{port}/?token=abc"),
        ] {
            assert_eq!(websocket_url(&given, t).await.unwrap(), given);
        }
    }
}
