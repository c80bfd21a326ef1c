//! `sightline mcp` driven by a real MCP client (the npm SDK's `Client`),
//! over stdio and streamable HTTP, against fixture pages on 127.0.0.1.

mod crash;
mod failures_said;
mod files;
mod hung;
mod leaving;
mod protocol_errors;
mod sessions;

use serde_json::json;

use sightline::mcp::{HttpOptions, HttpServer, McpOptions};
use sightline::Registry;
use sightline_testkit::{LlmServer, Recorded, Reply};

use crate::support::mcp_client::{raw_post, raw_post_status, ref_in, stdio, stdio_env, McpClient, McpHttpServer};
use crate::support::*;

/// The JSON-RPC message of a raw answer: the body, or an SSE stream's data line.
fn message_of(raw: &str) -> serde_json::Value {
    let body = raw.split("\r\n\r\n").nth(1).unwrap_or("");
    let json = body
        .lines()
        .find_map(|l| l.strip_prefix("data: ").filter(|d| d.starts_with('{')))
        .unwrap_or(body.trim());
    serde_json::from_str(json).unwrap_or_else(|e| panic!("not a JSON-RPC answer ({e}):\n{raw}"))
}

/// Playwright MCP's core tool names, all of which Sightline serves.
const PLAYWRIGHT_CORE: &[&str] = &[
    "browser_navigate",
    "browser_navigate_back",
    "browser_snapshot",
    "browser_click",
    "browser_hover",
    "browser_drag",
    "browser_type",
    "browser_press_key",
    "browser_fill_form",
    "browser_select_option",
    "browser_file_upload",
    "browser_handle_dialog",
    "browser_wait_for",
    "browser_take_screenshot",
    "browser_tabs",
    "browser_resize",
    "browser_close",
    "browser_console_messages",
    "browser_network_requests",
];

fn all_tools_work(client: &mut McpClient, files: &FixtureServer) {
    let names = client.tool_names();
    for n in PLAYWRIGHT_CORE
        .iter()
        .chain(&["browser_scroll", "browser_remove_blocker", "browser_page_text"])
    {
        assert!(names.iter().any(|t| t == n), "{n} is listed: {names:?}");
    }
    assert!(!names.iter().any(|t| t == "browser_evaluate"), "evaluate is opt-in");
    // Read-only tools say so (a client may run them without asking).
    let tools = client.tools();
    let read_only = |name: &str| {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        t["annotations"]["readOnlyHint"].as_bool()
    };
    assert_eq!(read_only("browser_snapshot"), Some(true));
    assert_eq!(read_only("browser_console_messages"), Some(true));
    assert_eq!(read_only("browser_click"), Some(false));
    assert_eq!(read_only("browser_navigate"), Some(false));
    assert!(!names.iter().any(|t| t == "browser_act"), "act needs a model");

    // A modal over the shop: the page behind it is obscured, refs only in the modal.
    let shop = client.ok("browser_navigate", json!({"url": files.url("shop/index.html")}));
    assert!(shop.contains("A modal is open"), "{shop}");
    assert!(
        shop.lines().any(|l| l.contains("[obscured]") && !l.contains("[ref=")),
        "{shop}"
    );
    let cleared = client.ok("browser_remove_blocker", json!({}));
    assert!(cleared.contains("Closed the"), "{cleared}");
    assert!(!cleared.contains("A modal is open"), "{cleared}");

    // A form: type, fill several fields, select, check, upload; the page shows the values.
    let form = client.ok("browser_navigate", json!({"url": files.url("actions/form.html")}));
    let name = ref_in(&form, "textbox \"Full name\"");
    client.ok(
        "browser_type",
        json!({"element": "Full name", "target": name, "text": "Ada Lovelace"}),
    );
    let filled = client.ok(
        "browser_fill_form",
        json!({"fields": [
            {"name": "Email", "type": "textbox", "target": "#email", "value": "ada@example.com"},
            {"name": "Terms", "type": "checkbox", "target": "#terms", "value": "true"}
        ]}),
    );
    assert!(filled.contains("Filled 2 of 2"), "{filled}");
    let upload = fixtures_dir().join("actions/upload-a.txt");
    client.ok(
        "browser_file_upload",
        json!({"target": "#avatar", "paths": [upload.to_str().unwrap()]}),
    );
    let snap = client.ok("browser_snapshot", json!({}));
    assert!(snap.contains("Ada Lovelace"), "{snap}");
    assert!(snap.contains("ada@example.com"), "{snap}");
    assert!(
        snap.lines()
            .any(|l| l.contains("I accept the terms") && l.contains("[checked]")),
        "{snap}"
    );
    // A model asks for the tree when it has lost it: a second look is the
    // whole tree again, refs and all; the changes only when asked for.
    let again = client.ok("browser_snapshot", json!({}));
    assert!(again.contains("Ada Lovelace") && again.contains("[ref="), "{again}");
    let diff = client.ok("browser_snapshot", json!({"diff": true}));
    assert!(
        diff.contains("unchanged since the last snapshot"),
        "with diff, a second look costs nothing: {diff}"
    );
    let text = client.ok("browser_page_text", json!({}));
    assert!(text.contains("# ") && !text.contains("[ref="), "{text}");

    // Errors a model can act on: a stale ref and a covered element.
    let page = client.ok("browser_navigate", json!({"url": files.url("mcp/stale.html")}));
    let doomed = ref_in(&page, "Doomed button");
    client.ok(
        "browser_click",
        json!({"target": ref_in(&page, "Remove the other button")}),
    );
    let stale = client.call("browser_click", json!({"element": "Doomed button", "target": doomed}));
    assert!(
        stale.is_error && stale.text.contains("browser_snapshot"),
        "{}",
        stale.text
    );
    let bar = client.ok("browser_navigate", json!({"url": files.url("modals/cookie-bar.html")}));
    let hidden = ref_in(&bar, "Add to basket");
    let covered = client.call("browser_click", json!({"target": hidden}));
    assert!(
        covered.is_error && covered.text.contains("covered by") && covered.text.contains("browser_remove_blocker"),
        "{}",
        covered.text
    );

    // Tabs: a target=_blank link opens one; select it, close it.
    let opener = client.ok("browser_navigate", json!({"url": files.url("actions/popup.html")}));
    let link = ref_in(&opener, "Open help in a new tab");
    let clicked = client.ok("browser_click", json!({"target": link}));
    assert!(
        clicked.contains("### Open tabs") && clicked.contains("popup-target.html"),
        "{clicked}"
    );
    // The tab the click opened is marked as such (the list alone is shown
    // whenever there are two); the next response lists it as any other.
    let new_tab = clicked.lines().find(|l| l.contains("popup-target.html")).unwrap();
    assert!(new_tab.contains("(new) ["), "{clicked}");
    let listed = client.ok("browser_tabs", json!({"action": "list"}));
    assert!(!listed.contains("(new)"), "{listed}");
    let index = tab_index(&listed, "popup-target.html");
    let selected = client.ok("browser_tabs", json!({"action": "select", "index": index}));
    assert!(
        selected.contains("(current) [")
            && selected.contains("- URL: ")
            && selected.contains("popup-target.html?via=link"),
        "{selected}"
    );
    // Back on the opener: its tree again, not "unchanged" (the tree the
    // client saw last was the other tab's, whose refs differ).
    let opener_index = tab_index(&listed, "popup.html");
    let back = client.ok("browser_tabs", json!({"action": "select", "index": opener_index}));
    assert!(
        back.contains("Open help in a new tab") && !back.contains("Unchanged since"),
        "{back}"
    );
    // A tab opened by the tabs tool: its list, once.
    let added = client.ok("browser_tabs", json!({"action": "new"}));
    assert_eq!(added.matches("popup-target.html").count(), 1, "the list once: {added}");
    client.ok("browser_tabs", json!({"action": "close"}));
    client.ok("browser_tabs", json!({"action": "select", "index": opener_index}));
    client.ok("browser_tabs", json!({"action": "select", "index": index}));
    let closed = client.ok("browser_tabs", json!({"action": "close"}));
    assert!(!closed.contains("- 1:") && !closed.contains("(Help)"), "{closed}");
    // The opener is shown again: the client last saw the closed tab.
    assert!(closed.contains("link \"Open help in a new tab\" [ref=e1]"), "{closed}");

    // A dialog holds the page until it is answered.
    let page = client.ok("browser_navigate", json!({"url": files.url("mcp/dialog.html")}));
    let asked = client.ok("browser_click", json!({"target": ref_in(&page, "Ask my name")}));
    assert!(
        asked.contains("prompt") && asked.contains("browser_handle_dialog"),
        "{asked}"
    );
    let blocked = client.call("browser_snapshot", json!({}));
    assert!(
        blocked.is_error && blocked.text.contains("dialog is open"),
        "{}",
        blocked.text
    );
    let answered = client.ok("browser_handle_dialog", json!({"accept": true, "promptText": "Grace"}));
    assert!(answered.contains("Answer: Grace"), "{answered}");
    // OK with no text answers the prompt's default, as a user's OK would.
    client.ok("browser_click", json!({"target": ref_in(&page, "Ask my name")}));
    let answered = client.ok("browser_handle_dialog", json!({"accept": true}));
    assert!(
        answered.contains("with \"nobody\"") && answered.contains("Answer: nobody"),
        "{answered}"
    );
    // An alert right after another, straight after the page opened: the
    // first answer names the second at once, and the page lives on.
    let page = client.ok("browser_navigate", json!({"url": files.url("mcp/dialog.html")}));
    let twice = client.ok("browser_click", json!({"target": ref_in(&page, "Warn me twice")}));
    assert!(twice.contains("alert \"first\""), "{twice}");
    // (The result names it when it opened before the answer's wait ended,
    // the page section in any case.)
    let first = client.ok("browser_handle_dialog", json!({"accept": true}));
    assert!(first.contains("alert \"second\""), "{first}");
    let second = client.ok("browser_handle_dialog", json!({"accept": true}));
    assert!(second.contains("Warned twice"), "{second}");

    // A download is saved and reported with its path and size.
    let page = client.ok("browser_navigate", json!({"url": files.url("mcp/download.html")}));
    let mut got = client.ok("browser_click", json!({"target": ref_in(&page, "Download the report")}));
    for _ in 0..20 {
        if got.contains("### Downloads") {
            break;
        }
        got = client.ok("browser_wait_for", json!({"time": 0.25}));
    }
    assert!(got.contains("quarterly-report.txt (29 bytes) saved to"), "{got}");
    let saved = got
        .split("saved to ")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .map(|p| std::path::PathBuf::from(p.trim()))
        .unwrap();
    assert!(
        saved.ends_with("quarterly-report.txt") && saved.is_file(),
        "the file is where the reply says: {}",
        saved.display()
    );
    // Opening a URL that is a download is no failed navigation.
    let opened = client.ok(
        "browser_navigate",
        json!({"url": "data:application/octet-stream;base64,aGVsbG8="}),
    );
    assert!(opened.contains("is a download"), "{opened}");

    // Words are not a URL: refused as such, not joined to the page's URL.
    let words = client.call("browser_navigate", json!({"url": "the pricing page"}));
    assert!(
        words.is_error && words.text.contains("\"the pricing page\" is not a URL"),
        "{}",
        words.text
    );

    // Scroll, screenshot, console, network, back.
    client.ok("browser_navigate", json!({"url": files.url("long.html")}));
    let scrolled = client.ok("browser_scroll", json!({"direction": "down"}));
    assert!(
        scrolled.contains("viewport above") || scrolled.contains("viewports above"),
        "{scrolled}"
    );
    let shot = client.call("browser_take_screenshot", json!({}));
    assert!(!shot.is_error && shot.images == 1, "{}", shot.text);
    client.ok("browser_console_messages", json!({}));
    let requests = client.ok("browser_network_requests", json!({}));
    // The page shown's own request and what it made; an earlier page's are not its.
    assert!(requests.contains("long.html"), "{requests}");
    assert!(!requests.contains("download.html"), "{requests}");
    let back = client.ok("browser_navigate_back", json!({}));
    assert!(back.contains("download.html"), "{back}");
}

#[test]
fn every_tool_over_stdio() {
    let files = FixtureServer::start();
    // The upload's file is a fixture, outside the server's working directory.
    let fixtures = fixtures_dir();
    let mut client = stdio(&["--allow-file-access", fixtures.to_str().unwrap()]);
    all_tools_work(&mut client, &files);
    let transcript = client.transcript();
    assert!(
        transcript.contains("\"protocolVersion\":\"2025-11-25\""),
        "the SDK's handshake"
    );
}

#[test]
fn every_tool_over_http() {
    let files = FixtureServer::start();
    let fixtures = fixtures_dir();
    let server = McpHttpServer::start(&["--allow-file-access", fixtures.to_str().unwrap()]);
    let mut client = McpClient::http(&server.url, None);
    all_tools_work(&mut client, &files);
}

#[test]
fn http_sessions_are_isolated_and_guarded() {
    let files = FixtureServer::start();
    let server = McpHttpServer::start(&["--auth-token", "s3cret-token"]);
    // Refused before any MCP handling.
    assert_eq!(raw_post_status(server.port, &[]), 401, "no token");
    assert_eq!(raw_post_status(server.port, &[("Authorization", "Bearer wrong")]), 401);
    assert_eq!(
        raw_post_status(
            server.port,
            &[("Authorization", "Bearer s3cret-token"), ("Host", "evil.example")]
        ),
        403,
        "a forged Host (DNS rebinding)"
    );
    assert_eq!(
        raw_post_status(
            server.port,
            &[
                ("Authorization", "Bearer s3cret-token"),
                ("Origin", "http://evil.example")
            ]
        ),
        403,
        "a foreign Origin"
    );
    assert_eq!(
        raw_post_status(server.port, &[("Authorization", "Bearer s3cret-token")]),
        200
    );

    // Two sessions at once: each has its own cookies.
    let mut alice = McpClient::http(&server.url, Some("s3cret-token"));
    let mut bob = McpClient::http(&server.url, Some("s3cret-token"));
    let a = alice.ok(
        "browser_navigate",
        json!({"url": files.url("mcp/cookies.html?set=alice")}),
    );
    assert!(a.contains("Cookies: who=alice"), "{a}");
    let b = bob.ok("browser_navigate", json!({"url": files.url("mcp/cookies.html")}));
    assert!(b.contains("Cookies: none") && b.contains("Stored: none"), "{b}");
    let a = alice.ok("browser_navigate", json!({"url": files.url("mcp/cookies.html")}));
    assert!(a.contains("Cookies: who=alice"), "{a}");
}

/// A client that sends calls without waiting for their answers (parallel
/// tool calls, written to stdin in one go) gets them run in the order it
/// sent them: each snapshot describes the page the call before it opened.
#[test]
fn calls_sent_at_once_run_in_the_order_sent() {
    use std::io::{BufRead, BufReader, Write};
    let files = FixtureServer::start();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("mcp")
        .env_remove("SIGHTLINE_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    // A call that never gets its turn must fail the test, not hang it
    // (the server is ended, so its output closes; only while it runs: its
    // pid may be another process's afterwards).
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let finished = done.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(90));
        if !finished.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = std::process::Command::new("kill").arg(pid.to_string()).status();
        }
    });
    let pages = ["short.html", "long.html", "refs.html", "shadow.html"];
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    writeln!(input, "{initialize}").unwrap();
    let mut initialized = String::new();
    output.read_line(&mut initialized).unwrap();
    let mut lines = vec![json!({"jsonrpc": "2.0", "method": "notifications/initialized"})];
    for (i, page) in pages.iter().enumerate() {
        let call = |id: usize, name: &str, args: serde_json::Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
        lines.push(call(10 + 2 * i, "browser_navigate", json!({"url": files.url(page)})));
        lines.push(call(11 + 2 * i, "browser_snapshot", json!({})));
    }
    let all: String = lines.iter().map(|l| format!("{l}\n")).collect();
    input.write_all(all.as_bytes()).unwrap();
    input.flush().unwrap();
    let mut answers = std::collections::HashMap::new();
    while answers.len() < 2 * pages.len() {
        let mut line = String::new();
        assert!(output.read_line(&mut line).unwrap() > 0, "the server closed its output");
        let m: serde_json::Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = m["id"].as_u64().filter(|id| *id >= 10) {
            let text = m["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            answers.insert(id, text);
        }
    }
    for (i, page) in pages.iter().enumerate() {
        let snap = &answers[&(11 + 2 * i as u64)];
        let url = snap.lines().find(|l| l.starts_with("- URL: ")).unwrap_or_default();
        assert!(
            url.ends_with(&format!("/{page}")),
            "snapshot {i} after opening {page}: {url}"
        );
    }
    drop(input);
    let _ = child.wait();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_killed_browser_is_replaced_on_the_next_call() {
    let files = FixtureServer::start();
    let profile = tempfile::tempdir().unwrap();
    let dir = profile.path().to_str().unwrap().to_string();
    let mut client = stdio(&["--user-data-dir", &dir]);
    client.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let killed = std::process::Command::new("pkill")
        .args(["-9", "-f", &format!("user-data-dir={dir}")])
        .status()
        .unwrap();
    assert!(killed.success(), "the browser was found and killed");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let again = client.ok("browser_navigate", json!({"url": files.url("long.html")}));
    assert!(again.contains("- URL: ") && again.contains("long.html"), "{again}");
    assert!(again.contains("a new one was started"), "the reply says so: {again}");
}

#[test]
fn logins_persist_in_a_profile_and_travel_in_storage_state() {
    let files = FixtureServer::start();
    let profile = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let state = out.path().join("state.json");
    {
        let mut c = stdio(&[
            "--user-data-dir",
            profile.path().to_str().unwrap(),
            "--output-dir",
            out.path().to_str().unwrap(),
        ]);
        let set = c.ok(
            "browser_navigate",
            json!({"url": files.url("mcp/cookies.html?set=bob")}),
        );
        assert!(set.contains("Cookies: who=bob"), "{set}");
        let saved = c.ok("browser_storage_state", json!({"filename": "state.json"}));
        assert!(saved.contains("1 cookie(s)"), "{saved}");
    }
    // The same profile next time: still there.
    let mut c = stdio(&["--user-data-dir", profile.path().to_str().unwrap()]);
    let page = c.ok("browser_navigate", json!({"url": files.url("mcp/cookies.html")}));
    assert!(
        page.contains("Cookies: who=bob") && page.contains("Stored: bob"),
        "{page}"
    );
    drop(c);
    // A fresh profile with the saved state: cookies and local storage come back.
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    assert_eq!(saved["cookies"][0]["name"], "who");
    assert_eq!(saved["origins"][0]["localStorage"][0]["value"], "bob");
    let mut c = stdio(&["--storage-state", state.to_str().unwrap()]);
    let page = c.ok("browser_navigate", json!({"url": files.url("mcp/cookies.html")}));
    assert!(
        page.contains("Cookies: who=bob") && page.contains("Stored: bob"),
        "{page}"
    );
}

#[test]
fn origins_and_secrets_are_enforced() {
    let (a, b) = FixtureServer::pair();
    let allowed = format!("127.0.0.1:{}", a.port);
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join(".env");
    std::fs::write(&secrets, "PASSWORD=correct-horse-battery\n").unwrap();
    let mut c = stdio(&["--allowed-origins", &allowed, "--secrets", secrets.to_str().unwrap()]);
    let refused = c.call("browser_navigate", json!({"url": b.url("short.html")}));
    assert!(
        refused.is_error && refused.text.contains("outside the allowed origins"),
        "{}",
        refused.text
    );
    let form = c.ok("browser_navigate", json!({"url": a.url("actions/form.html")}));
    // The secret goes into the page, and never into a response.
    let name = ref_in(&form, "textbox \"Full name\"");
    let typed = c.ok("browser_type", json!({"target": name, "text": "%PASSWORD%"}));
    assert!(
        typed.contains("%PASSWORD%"),
        "the response shows the placeholder: {typed}"
    );
    let value = c.ok("browser_snapshot", json!({}));
    assert!(value.contains("%PASSWORD%"), "{value}");
    let transcript = c.transcript();
    assert!(
        !transcript.contains("correct-horse-battery"),
        "the secret leaked into the transcript"
    );
    drop(c);

    let blocked = format!("127.0.0.1:{}", b.port);
    let mut c = stdio(&["--blocked-origins", &blocked]);
    let refused = c.call("browser_navigate", json!({"url": b.url("short.html")}));
    assert!(
        refused.is_error && refused.text.contains("blocked origins"),
        "{}",
        refused.text
    );
    c.ok("browser_navigate", json!({"url": a.url("short.html")}));
}

/// A page that keeps opening dialogs is no trap: its tab can be listed,
/// closed, or all tabs closed, while a dialog holds it, and the refusal of
/// other calls says so.
#[test]
fn a_page_that_keeps_opening_dialogs_can_be_left() {
    let files = FixtureServer::pages(&[(
        "nag.html",
        "<!doctype html><title>Nag</title><button onclick=\"while (true) alert('again')\">Nag me</button>",
    )]);
    let mut c = stdio(&[]);
    let page = c.ok("browser_navigate", json!({"url": files.url("nag.html")}));
    c.ok("browser_click", json!({"target": ref_in(&page, "Nag me")}));
    let again = c.ok("browser_handle_dialog", json!({"accept": true}));
    assert!(again.contains("alert \"again\""), "{again}");
    let refused = c.call("browser_snapshot", json!({}));
    assert!(
        refused.is_error
            && refused
                .text
                .contains("closing its tab (browser_tabs with action close)"),
        "{}",
        refused.text
    );
    let listed = c.ok("browser_tabs", json!({"action": "list"}));
    assert!(listed.contains("- 0: (current) [Nag]"), "{listed}");
    c.ok("browser_tabs", json!({"action": "new"}));
    c.ok("browser_tabs", json!({"action": "select", "index": 0}));
    let closed = c.ok("browser_close", json!({}));
    assert!(closed.contains("Closed 2 tab(s)"), "{closed}");
    let back = c.ok("browser_navigate", json!({"url": files.url("nag.html")}));
    assert!(back.contains("Nag me"), "{back}");
}

/// A page that swaps its whole document (a document.write, a new root)
/// shows the new one, with no error of Sightline's own among the page's.
#[test]
fn a_swapped_document_is_shown_with_no_error_of_ours() {
    let files = FixtureServer::pages(&[(
        "swap.html",
        "<!doctype html><title>Original</title><button onclick=\"const n = document.createElement('html'); \
         n.innerHTML = '<head><title>Swapped</title></head><body><button>After</button></body>'; \
         document.replaceChild(n, document.documentElement)\">Swap</button>",
    )]);
    let mut c = stdio(&[]);
    let page = c.ok("browser_navigate", json!({"url": files.url("swap.html")}));
    let swapped = c.ok("browser_click", json!({"target": ref_in(&page, "Swap")}));
    assert!(swapped.contains("button \"After\""), "{swapped}");
    assert!(!swapped.contains("console errors"), "{swapped}");
}

/// A pop-up that keeps opening dialogs holds its first one (as its opener's
/// tab holds them), is listed with it, and pauses its opener (one process):
/// the opener is then no hung page to close, and the reply names the tab to
/// answer or close. Closed, the opener goes on with what was typed.
#[test]
fn a_pop_ups_dialogs_never_get_its_opener_closed() {
    let files = FixtureServer::pages(&[
        (
            "opener.html",
            "<!doctype html><title>Opener</title><label>Draft <input></label>\
             <button onclick=\"window.open('nag.html')\">Open the pop-up</button>",
        ),
        (
            "nag.html",
            "<!doctype html><title>Nag</title><script>setTimeout(() => { while (true) alert('popup nag') }, 300)</script>",
        ),
    ]);
    let mut c = stdio(&[]);
    let page = c.ok("browser_navigate", json!({"url": files.url("opener.html")}));
    c.ok(
        "browser_type",
        json!({"target": ref_in(&page, "textbox \"Draft\""), "text": "important draft"}),
    );
    c.ok("browser_click", json!({"target": ref_in(&page, "Open the pop-up")}));
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let tabs = c.ok("browser_tabs", json!({"action": "list"}));
    assert!(
        tabs.contains("- 1: [Nag]") && tabs.contains("an alert is open (\"popup nag\")"),
        "{tabs}"
    );
    let t = std::time::Instant::now();
    let paused = c.call("browser_snapshot", json!({}));
    assert!(
        t.elapsed() < std::time::Duration::from_secs(5),
        "told at once: {:?}",
        t.elapsed()
    );
    assert!(
        paused.is_error
            && paused
                .text
                .contains("tab 1 shows an alert (\"popup nag\"), which pauses this page too"),
        "{}",
        paused.text
    );
    c.ok("browser_tabs", json!({"action": "close", "index": 1}));
    let after = c.ok("browser_snapshot", json!({}));
    assert!(after.contains("important draft"), "{after}");
}

/// Under `--allowed-origins`, nothing the page does reaches another site:
/// a link, a tab it opens (whose first document is requested before any
/// tool could take the tab over) and a download. The tab stays on its page
/// with what was typed into it, and each response says what was refused.
#[test]
fn a_page_cannot_send_a_link_a_new_tab_or_a_download_outside_the_allowed_origins() {
    let outside = RecordingSite::start();
    let shop = FixtureServer::pages(&[(
        "offers.html",
        &format!(
            "<!doctype html><title>Offers</title><label>Note <input id=note></label>\
             <iframe title=Ad src={:?}></iframe> <a href={:?}>Partner link</a> <a target=_blank href={:?}>Partner tab</a>\
             <button onclick=\"window.open('{}')\">Partner window</button> <a download href={:?}>Price list</a>",
            outside.url("ad"),
            outside.url("link"),
            outside.url("tab"),
            outside.url("window"),
            outside.url("prices.csv")
        ),
    )]);
    let mut c = stdio(&[
        "--allowed-origins",
        &format!("127.0.0.1:{}", shop.port),
        "--caps",
        "evaluate",
    ]);
    let page = c.ok("browser_navigate", json!({"url": shop.url("offers.html")}));
    // A frame of another site is refused too (counted: ads would fill the reply).
    assert!(
        page.contains("1 frame document(s) of sites outside the policy"),
        "{page}"
    );
    c.ok(
        "browser_type",
        json!({"target": ref_in(&page, "textbox \"Note\""), "text": "kept"}),
    );
    for (name, path) in [
        ("link \"Partner link\"", "link"),
        ("link \"Partner tab\"", "tab"),
        ("button \"Partner window\"", "window"),
        ("link \"Price list\"", "prices.csv"),
    ] {
        let said = c.call("browser_click", json!({"target": ref_in(&page, name)})).text;
        let refused = format!(
            "Refused before it was sent: {} is outside the allowed origins",
            outside.url(path)
        );
        // (A pop-up's first request may come after the click returned:
        // then the next call says it.)
        let said = match said.contains(&refused) {
            true => said,
            false => c.call("browser_snapshot", json!({})).text,
        };
        assert!(said.contains(&refused), "{name}: {said}");
    }
    let tabs = c.ok("browser_tabs", json!({"action": "list"}));
    assert!(
        !tabs.contains("- 1:"),
        "the tabs opened for the site outside were closed: {tabs}"
    );
    // A redirect there from an allowed page is refused, and said so.
    let redirect = shop.url(&format!("__redirect//127.0.0.1:{}/redirected", outside.port));
    let refused = c.call("browser_navigate", json!({"url": redirect}));
    assert!(
        refused.is_error && refused.text.contains("redirected is outside the allowed origins"),
        "{}",
        refused.text
    );
    let now = c.ok(
        "browser_evaluate",
        json!({"function": "() => location.href + ' ' + note.value"}),
    );
    assert!(now.contains(&format!("{} kept", shop.url("offers.html"))), "{now}");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(outside.seen(), Vec::<String>::new());
}

/// A secret bound to a site is typed into that site's documents only: a
/// frame of another site on it (an ad, a widget asking for the password)
/// is refused, whether the field is named or has focus.
#[test]
fn a_site_bound_secret_is_not_typed_into_another_sites_frame() {
    let widget = FixtureServer::pages(&[(
        "widget.html",
        "<!doctype html><title>Widget</title><label>Confirm your password <input id=pin></label>\
         <p id=out></p><script>pin.oninput = () => out.textContent = 'widget got ' + pin.value.length;</script>",
    )]);
    let bank = FixtureServer::pages(&[(
        "login.html",
        &format!(
            "<!doctype html><title>Bank</title><label>Password <input id=pw type=password></label>\
             <iframe title=Offers src=\"{}\" width=500 height=120></iframe>",
            widget.url("widget.html")
        ),
    )]);
    let site = bank
        .url("")
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join(".env");
    std::fs::write(&secrets, format!("PW@{site}=s3cret-pass\n")).unwrap();
    let mut c = stdio(&["--secrets", secrets.to_str().unwrap()]);
    let page = c.ok("browser_navigate", json!({"url": bank.url("login.html")}));
    let framed = ref_in(&page, "textbox \"Confirm your password\"");
    assert!(framed.starts_with('f'), "{page}");
    for (how, args) in [
        ("named", json!({"target": framed, "text": "%PW%"})),
        ("focused", json!({"text": "%PW%"})),
    ] {
        if how == "focused" {
            c.ok("browser_click", json!({"target": framed}));
        }
        let refused = c.call("browser_type", args);
        assert!(
            refused.is_error && refused.text.contains(&format!("%PW% may only be typed on {site}")),
            "{how}: {}",
            refused.text
        );
    }
    let own = ref_in(&page, "textbox \"Password\"");
    c.ok("browser_type", json!({"target": own, "text": "%PW%"}));
    let shown = c.ok("browser_snapshot", json!({}));
    assert!(!shown.contains("widget got"), "{shown}");
    assert!(!c.transcript().contains("s3cret-pass"));
}

#[test]
fn a_registry_tool_is_served_with_no_mcp_code() {
    let files = FixtureServer::start();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let options = McpOptions {
        registry: Registry::standard().with(crate::agent::STAMP),
        ..McpOptions::default()
    };
    let http = HttpOptions {
        port: 0,
        ..HttpOptions::default()
    };
    let server = rt.block_on(HttpServer::bind(options, http)).unwrap();
    let url = format!("http://{}/mcp", server.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = rt.spawn(server.serve(async {
        let _ = stopped.await;
    }));
    let mut c = McpClient::http(&url, None);
    assert!(c.tool_names().iter().any(|n| n == "browser_stamp"));
    c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let stamped = c.ok("browser_stamp", json!({"word": "registry"}));
    assert!(
        stamped.contains("stamped registry") && stamped.contains("- Title: registry"),
        "{stamped}"
    );
    drop(c);
    let _ = stop.send(());
    rt.block_on(serving).unwrap().unwrap();
}

#[test]
fn model_tools_appear_with_a_model() {
    let files = FixtureServer::start();
    let llm = LlmServer::with_script(vec![
        Reply::dynamic(|rec: &Recorded| {
            let text = rec.prompt_text();
            let id = text
                .lines()
                .filter(|l| l.contains("button \"Subscribe\""))
                .find_map(ref_of)
                .unwrap_or_else(|| panic!("no Subscribe ref in:\n{text}"));
            Reply::tool(
                "performAction",
                json!({"elementId": id, "description": "Subscribe", "method": "click", "arguments": [], "twoStep": false}),
            )
        }),
        Reply::json(json!({"extraction": "Get 10% off your first order"})),
        Reply::json(json!({"progress": "the title", "completed": true})),
        Reply::json(json!({"elements": []})),
        Reply::json(json!({"extraction": "a name"})),
        Reply::json(json!({"progress": "the name", "completed": true})),
    ]);
    let base = llm.openai_base_url();
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path().join(".env");
    std::fs::write(&secrets, "PASSWORD=correct-horse-battery\n").unwrap();
    let mut c = stdio_env(
        &[
            "--model",
            "openai/gpt-4.1-mini",
            "--base-url",
            &base,
            "--secrets",
            secrets.to_str().unwrap(),
        ],
        &[("OPENAI_API_KEY", "test-key")],
    );
    let names = c.tool_names();
    for n in ["browser_act", "browser_observe", "browser_extract"] {
        assert!(names.iter().any(|t| t == n), "{n}: {names:?}");
    }
    c.ok("browser_navigate", json!({"url": files.url("shop/index.html")}));
    let acted = c.ok("browser_act", json!({"action": "click the Subscribe button"}));
    assert!(acted.contains("Action performed"), "{acted}");
    let data = c.ok("browser_extract", json!({"instruction": "the offer's title"}));
    assert!(data.contains("Get 10% off"), "{data}");
    // A secret typed into a field shows in the page the model tools read:
    // it reaches the model as its placeholder only.
    let form = c.ok("browser_navigate", json!({"url": files.url("actions/form.html")}));
    let name = ref_in(&form, "textbox \"Full name\"");
    c.ok("browser_type", json!({"target": name, "text": "%PASSWORD%"}));
    c.ok("browser_observe", json!({"instruction": "the form's fields"}));
    c.ok("browser_extract", json!({"instruction": "the name typed"}));
    let sent: Vec<String> = llm.requests().iter().map(|r| r.raw.clone()).collect();
    assert_eq!(sent.len(), 6);
    assert!(
        sent[3..5].iter().all(|r| r.contains("%PASSWORD%")),
        "observe and extract see the placeholder"
    );
    assert!(
        !sent.iter().any(|r| r.contains("correct-horse-battery")),
        "the secret reached the model"
    );
    llm.assert_no_malformed();
}

#[test]
fn the_newest_protocol_is_served_statelessly() {
    let files = FixtureServer::start();
    let server = McpHttpServer::start(&[]);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let headers = |method: &'static str, name: Option<&'static str>| {
        let mut h = vec![("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
        if let Some(n) = name {
            h.push(("Mcp-Name", n));
        }
        h
    };
    let (status, list) = raw_post(
        server.port,
        &headers("tools/list", None),
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}}"#),
    );
    assert_eq!(status, 200, "{list}");
    assert!(list.contains("browser_navigate"), "{list}");
    let url = files.url("short.html");
    let call = |id: u32, name: &'static str, args: &str| {
        raw_post(
            server.port,
            &headers("tools/call", Some(name)),
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args},{meta}}}}}"#
            ),
        )
    };
    let (_, opened) = call(2, "browser_navigate", &format!(r#"{{"url":"{url}"}}"#));
    assert!(
        opened.contains("short.html") && !opened.contains("isError\":true"),
        "{opened}"
    );
    // No session: the requests share the server's session, so the page is still there.
    let (_, snap) = call(3, "browser_snapshot", "{}");
    assert!(snap.contains("short.html"), "{snap}");
}

#[test]
fn the_readme_lists_every_mcp_tool() {
    let readme = std::fs::read_to_string(fixtures_dir().join("../../README.md")).unwrap();
    let registry = Registry::standard();
    for tool in registry.for_mcp(true, &["evaluate".to_string()]) {
        let name = tool.mcp_name();
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "README's MCP table lacks {name}"
        );
    }
}
