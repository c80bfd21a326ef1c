//! HTTP sessions are bounded: a session beyond `--max-sessions` is refused
//! with a clear JSON-RPC error (the open ones are left alone), and one idle
//! for `--session-idle` is closed with its browser context, including a
//! client that went away without ending it; a long call is no idleness.

use std::time::{Duration, Instant};

use serde_json::json;

use super::message_of;
use crate::support::mcp_client::{McpClient, McpHttpServer};
use crate::support::*;
use sightline_testkit::mcp_client::RawSession;

#[test]
fn a_session_beyond_the_cap_is_refused_and_the_open_ones_go_on() {
    let files = FixtureServer::start();
    let server = McpHttpServer::start(&["--max-sessions", "2"]);
    let mut first = McpClient::http(&server.url, None);
    first.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let second = RawSession::open(server.port).expect("room for a second session");
    let (status, raw) = RawSession::open(server.port).err().expect("no room for a third");
    assert_eq!(status, 503, "{raw}");
    let m = message_of(&raw);
    assert_eq!(m["error"]["code"], -32000, "{m}");
    let why = m["error"]["message"].as_str().unwrap();
    assert!(
        why.contains("too many MCP sessions") && why.contains("--max-sessions 2") && why.contains("DELETE"),
        "{why}"
    );
    // Ending one makes room; the first session never noticed.
    let ended = second.delete();
    assert!((200..300).contains(&ended), "DELETE: {ended}");
    RawSession::open(server.port).expect("room again once one ended");
    let snap = first.ok("browser_snapshot", json!({}));
    assert!(snap.contains("short.html"), "{snap}");
}

#[test]
fn an_idle_session_is_closed_with_its_tabs_and_a_long_call_is_no_idleness() {
    let files = FixtureServer::start();
    let chrome = RemoteChrome::start();
    let endpoint = format!("http://127.0.0.1:{}", chrome.port);
    let server = McpHttpServer::start(&["--cdp-endpoint", &endpoint, "--session-idle", "2"]);
    // A client that goes away without ending its session (no DELETE).
    let mut gone = RawSession::open(server.port).unwrap();
    let (_, opened) = gone.call("browser_navigate", json!({"url": files.url("short.html?who=gone")}));
    assert!(opened.contains("who=gone"), "{opened}");
    assert!(chrome.tab_urls().iter().any(|u| u.contains("who=gone")));

    // A client busy in one long call all the while.
    let mut busy = McpClient::http(&server.url, None);
    busy.ok("browser_navigate", json!({"url": files.url("short.html?who=busy")}));
    let started = Instant::now();
    let waited = busy.ok("browser_wait_for", json!({"time": 5}));
    assert!(waited.contains("Waited"), "{waited}");
    assert!(started.elapsed() >= Duration::from_secs(5));

    let deadline = Instant::now() + Duration::from_secs(30);
    while chrome.tab_urls().iter().any(|u| u.contains("who=gone")) {
        assert!(Instant::now() < deadline, "the idle session's tab is still open");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, _) = gone.call("browser_snapshot", json!({}));
    assert_eq!(status, 404, "the idle session is over");
    let snap = busy.ok("browser_snapshot", json!({}));
    assert!(snap.contains("who=busy"), "the busy session goes on:\n{snap}");
    assert!(chrome.tab_urls().iter().any(|u| u.contains("who=busy")));
}
