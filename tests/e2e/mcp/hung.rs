//! A page that hangs its main thread (a script in an endless loop) must not
//! take the session down: every call ends within `--tool-timeout` plus a
//! small margin, says the page is not responding, and the session goes on in
//! a fresh tab; a navigation to a page that hangs is never a success; the
//! hung renderer stops burning a core.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::mcp_client::{ref_in, stdio};
use crate::support::*;

/// The tool timeout the server gets, and the margin a call may take beyond it.
const TOOL_TIMEOUT_SECS: u64 = 10;
const MARGIN: Duration = Duration::from_secs(4);

/// The parent of a process (None when it is gone).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
}

fn descends_from(mut pid: u32, ancestor: u32) -> bool {
    for _ in 0..32 {
        match parent_of(pid) {
            Some(p) if p == ancestor => return true,
            Some(p) if p > 1 => pid = p,
            _ => return false,
        }
    }
    false
}

/// Renderer processes of `server`'s browser that burned most of a second
/// of CPU over the last second: a hung page's renderer does. (Only its own:
/// another test's busy page is not this one's.)
fn busy_renderers(server: u32) -> usize {
    let sample = || -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let cmd = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if !(cmd.contains("chromium") && cmd.contains("--type=renderer") && descends_from(pid, server)) {
                continue;
            }
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, r)| r)
                .unwrap_or("")
                .split_whitespace()
                .collect();
            let ticks: u64 = fields.get(11).and_then(|u| u.parse().ok()).unwrap_or(0)
                + fields.get(12).and_then(|s| s.parse().ok()).unwrap_or(0);
            out.push((pid, ticks));
        }
        out
    };
    let before = sample();
    std::thread::sleep(Duration::from_secs(1));
    let after = sample();
    after
        .iter()
        .filter(|(pid, t)| {
            before
                .iter()
                .find(|(p, _)| p == pid)
                .is_some_and(|(_, t0)| t - t0 >= 70)
        })
        .count()
}

#[test]
fn a_hung_page_ends_its_call_in_time_and_the_session_goes_on() {
    let files = FixtureServer::start();
    let timeout = TOOL_TIMEOUT_SECS.to_string();
    let mut c = stdio(&["--tool-timeout", &timeout]);
    let limit = Duration::from_secs(TOOL_TIMEOUT_SECS) + MARGIN;

    // A click whose handler never returns: it was done (said so); the next
    // call finds the page still hung, and ends its tab.
    let page = c.ok("browser_navigate", json!({"url": files.url("hung/loop-button.html")}));
    let spin = ref_in(&page, "Spin forever");
    let t = Instant::now();
    let clicked = c.call("browser_click", json!({"element": "Spin forever", "target": spin}));
    let took = t.elapsed();
    assert!(took < limit, "the hung click took {took:?}");
    assert!(clicked.text.contains("the page took its input"), "{}", clicked.text);
    let t = Instant::now();
    let next = c.call("browser_tabs", json!({}));
    assert!(t.elapsed() < limit, "the next call took {:?}", t.elapsed());
    assert!(next.is_error, "{}", next.text);
    assert!(next.text.contains("not responding"), "{}", next.text);
    assert!(next.text.contains("new, blank tab"), "{}", next.text);
    // The closed tab is gone from the list at once (its target lingers a while).
    let tabs = c.ok("browser_tabs", json!({}));
    assert!(!tabs.contains("hangs the page"), "{tabs}");

    // The next calls work at once, in the fresh tab.
    let t = Instant::now();
    let again = c.ok("browser_navigate", json!({"url": files.url("hung/loop-button.html")}));
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    let fine = ref_in(&again, "A fine button");
    let ok = c.ok("browser_click", json!({"target": fine}));
    assert!(ok.contains("Clicked fine"), "{ok}");

    // A page that hangs just after it loads: never reported as opened.
    let t = Instant::now();
    let hung = c.call(
        "browser_navigate",
        json!({"url": files.url("hung/hang-after-load.html")}),
    );
    let took = t.elapsed();
    assert!(took < limit, "the hung navigation took {took:?}");
    assert!(hung.is_error, "a hung page is no success: {}", hung.text);
    assert!(hung.text.contains("not responding"), "{}", hung.text);
    let snap = c.ok("browser_snapshot", json!({}));
    assert!(snap.contains("about:blank"), "the session goes on in a new tab: {snap}");

    // The hung renderers were ended: none burns a core.
    assert_eq!(busy_renderers(c.pid()), 0, "a hung renderer is still running");
}

/// A script of the caller's in an endless loop is found in seconds, not at
/// the end of the call's time (nor at the browser connection's 30 s).
#[test]
fn a_script_in_an_endless_loop_is_found_in_seconds() {
    let files = FixtureServer::start();
    let mut c = stdio(&["--caps", "evaluate"]);
    c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    // A script that waits is no hung page, and one busy for a few
    // seconds past the first look is not either.
    let waited = c.ok(
        "browser_evaluate",
        json!({"function": "() => new Promise((r) => setTimeout(() => r('waited'), 9000))"}),
    );
    assert!(waited.contains("waited"), "{waited}");
    let busy = c.ok(
        "browser_evaluate",
        json!({"function": "() => { const end = Date.now() + 9000; while (Date.now() < end) {} return 'busy'; }"}),
    );
    assert!(busy.contains("busy"), "{busy}");
    let t = Instant::now();
    let stuck = c.call("browser_evaluate", json!({"function": "() => { while (true) {} }"}));
    let took = t.elapsed();
    assert!(took < Duration::from_secs(20), "found after {took:?}");
    assert!(
        stuck.is_error && stuck.text.contains("not responding"),
        "{}",
        stuck.text
    );
    let snap = c.ok("browser_snapshot", json!({}));
    assert!(snap.contains("about:blank"), "the session goes on in a new tab: {snap}");
}

/// A click whose handler runs long (it sends the order, then computes for
/// 9 s) was done: said so, never "failed", and the tab is kept, so the
/// order is not placed twice. A handler that never ends is found by the
/// next call, which goes on in a new tab.
#[test]
fn a_click_whose_handler_runs_long_was_done_and_keeps_its_tab() {
    let files = FixtureServer::pages(&[(
        "order.html",
        "<!doctype html><title>Order</title><p id=out>Not yet</p>\
         <button onclick=\"const t = Date.now(); while (Date.now() - t < 9000) {} out.textContent = 'Order #42 placed'\">Place order</button>\
         <button onclick=\"while (true) {}\">Freeze</button>",
    )]);
    let mut c = stdio(&[]);
    let page = c.ok("browser_navigate", json!({"url": files.url("order.html")}));
    let placed = c.call("browser_click", json!({"target": ref_in(&page, "Place order")}));
    assert!(
        placed.text.contains("browser_click: the page took its input") && !placed.text.contains("failed"),
        "{}",
        placed.text
    );
    let after = c.ok("browser_snapshot", json!({}));
    assert!(
        after.contains("Order #42 placed"),
        "the same tab, after the handler: {after}"
    );
    let frozen = c.call("browser_click", json!({"target": ref_in(&after, "Freeze")}));
    assert!(frozen.text.contains("the page took its input"), "{}", frozen.text);
    let t = Instant::now();
    let next = c.call("browser_snapshot", json!({}));
    assert!(t.elapsed() < Duration::from_secs(30), "found after {:?}", t.elapsed());
    assert!(next.text.contains("not responding"), "{}", next.text);
}
