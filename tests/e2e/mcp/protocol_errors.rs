//! Errors as the protocols say: JSON-RPC's parse error, invalid request and
//! invalid params over HTTP and stdio (where junk lines are skipped), and a
//! browser that dies is reported, never taken for a success (a wait during
//! which it died fails; a call that ran in the new browser says its tabs are
//! gone).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use super::message_of;
use crate::support::mcp_client::{raw_post, stdio, McpHttpServer};
use crate::support::*;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

#[test]
fn http_answers_json_rpc_errors_for_bad_bodies_and_params() {
    let server = McpHttpServer::start(&[]);
    let (status, raw) = raw_post(server.port, &[], "this is not json {");
    assert_eq!(status, 400, "{raw}");
    let m = message_of(&raw);
    assert_eq!(
        (m["jsonrpc"].as_str(), m["error"]["code"].as_i64()),
        (Some("2.0"), Some(-32700)),
        "{m}"
    );
    assert!(m["id"].is_null(), "{m}");

    let (status, raw) = raw_post(server.port, &[], r#"{"hello": "world"}"#);
    assert_eq!(status, 400, "{raw}");
    assert_eq!(message_of(&raw)["error"]["code"], -32600, "{raw}");

    // In a session: tools/call without params is invalid params, not an unknown method.
    let (status, raw) = raw_post(server.port, &[], INITIALIZE);
    assert_eq!(status, 200, "{raw}");
    let session = raw
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id:")
                .map(|_| l[15..].trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id:\n{raw}"));
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (status, _) = raw_post(
        server.port,
        &headers,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(status, 202);
    let (_, raw) = raw_post(
        server.port,
        &headers,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#,
    );
    let m = message_of(&raw);
    assert_eq!(
        (m["id"].as_i64(), m["error"]["code"].as_i64()),
        (Some(2), Some(-32602)),
        "{m}"
    );
    assert!(m["error"]["message"].as_str().unwrap().contains("name"), "{m}");
}

/// Over stdio a line that is not JSON is skipped (as the official SDKs do:
/// an answer could start an error storm with a peer that echoes), JSON that
/// is not a message gets invalid request, and the session goes on.
#[test]
fn stdio_skips_junk_and_answers_invalid_request_and_invalid_params() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("mcp")
        .env_remove("SIGHTLINE_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    for line in [
        INITIALIZE,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "this is not json {",
        r#"{"hello": "world"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#,
    ] {
        writeln!(input, "{line}").unwrap();
    }
    input.flush().unwrap();
    let mut invalid_request = None;
    let answer = loop {
        let mut line = String::new();
        assert!(output.read_line(&mut line).unwrap() > 0, "the server closed its output");
        let m: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        if m["id"].is_null() && m["error"].is_object() {
            invalid_request = Some(m);
        } else if m["id"] == json!(2) {
            break m;
        }
    };
    let invalid_request = invalid_request.expect("the JSON that is no message was answered");
    assert_eq!(invalid_request["error"]["code"], -32600, "{invalid_request}");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    drop(input);
    let _ = child.wait();
}

/// Kills (SIGKILL) every process of the browser using `profile`, as a crash would.
fn kill_browser(profile: &str) {
    let killed = Command::new("pkill")
        .args(["-9", "-f", &format!("user-data-dir={profile}")])
        .status()
        .unwrap();
    assert!(killed.success(), "the browser was found and killed");
}

#[test]
fn a_wait_during_which_the_browser_dies_fails_and_the_next_call_says_it_started_anew() {
    let files = FixtureServer::start();
    let profile = tempfile::tempdir().unwrap();
    let dir = profile.path().to_str().unwrap().to_string();
    let mut client = stdio(&["--user-data-dir", &dir]);
    client.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let killer = {
        let dir = dir.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            kill_browser(&dir);
        })
    };
    let waited = client.call("browser_wait_for", json!({"time": 20}));
    killer.join().unwrap();
    assert!(
        waited.is_error,
        "a wait on a dead browser is no success:\n{}",
        waited.text
    );
    assert!(
        waited.text.contains("crashed or was closed while browser_wait_for ran"),
        "{}",
        waited.text
    );
    // Text that never comes: the same, as soon as the browser is gone.
    client.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let killer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        kill_browser(&dir);
    });
    let waited = client.call("browser_wait_for", json!({"text": "never on this page"}));
    killer.join().unwrap();
    assert!(waited.is_error, "{}", waited.text);
    assert!(waited.text.contains("crashed or was closed"), "{}", waited.text);

    let opened = client.ok("browser_navigate", json!({"url": files.url("long.html")}));
    assert!(
        opened.contains("a new one was started") && opened.contains("earlier tabs and their pages are gone"),
        "the reply says the page was lost:\n{opened}"
    );
    assert!(opened.contains("long.html"), "{opened}");
    let again = client.ok("browser_navigate", json!({"url": files.url("short.html")}));
    assert!(!again.contains("a new one was started"), "said once:\n{again}");
}
