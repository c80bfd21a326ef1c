//! Leaving a page: a leave-page (`beforeunload`) dialog raised by a
//! navigation is the page asking, and its answer decides (Cancel keeps the
//! draft, OK carries the navigation on); a pop-up tab that closes itself
//! hands the session back to the tabs left, with the browser alive; typing
//! that makes the page load another stops there; a page's console errors
//! are not the next page's.

use serde_json::json;

use crate::support::mcp_client::{ref_in, stdio};
use crate::support::*;

#[test]
fn the_leave_page_dialog_of_a_navigation_decides_it() {
    let files = FixtureServer::start();
    let mut c = stdio(&[]);
    let page = c.ok("browser_navigate", json!({"url": files.url("mcp/unsaved.html")}));
    let draft = ref_in(&page, "Draft");
    c.ok("browser_type", json!({"target": draft, "text": "my draft"}));
    // (A user's gesture: only then may a page ask before it is left.)
    c.ok("browser_click", json!({"target": draft}));
    let asked = c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    assert!(asked.contains("beforeunload"), "{asked}");
    // The page shown is still the one being left.
    assert!(
        asked.contains(&format!(
            "URL: {} (leaving for {} if the dialog is accepted)",
            files.url("mcp/unsaved.html"),
            files.url("short.html")
        )),
        "{asked}"
    );
    let stayed = c.ok("browser_handle_dialog", json!({"accept": false}));
    assert!(
        stayed.contains("Title: Unsaved draft"),
        "Cancel keeps the page: {stayed}"
    );
    let kept = c.ok("browser_snapshot", json!({}));
    assert!(kept.contains("my draft"), "and its draft: {kept}");
    let asked = c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    assert!(asked.contains("beforeunload"), "{asked}");
    let left = c.ok("browser_handle_dialog", json!({"accept": true}));
    assert!(left.contains("Title: Short page"), "OK leaves the page: {left}");
    let after = c.ok("browser_snapshot", json!({}));
    assert!(after.contains("Title: Short page"), "{after}");
}

#[test]
fn a_pop_up_that_closes_itself_hands_the_session_back_to_its_opener() {
    let files = FixtureServer::start();
    let mut c = stdio(&[]);
    let opener = c.ok("browser_navigate", json!({"url": files.url("mcp/opener.html")}));
    // A newer tab than the opener: the session goes back to the opener
    // all the same, not to the newest tab.
    c.ok("browser_tabs", json!({"action": "new"}));
    c.ok("browser_tabs", json!({"action": "select", "index": 0}));
    c.ok(
        "browser_click",
        json!({"target": ref_in(&opener, "Sign in with a pop-up")}),
    );
    let popup = c.ok("browser_tabs", json!({"action": "select", "index": 2}));
    assert!(popup.contains("Title: Sign-in pop-up"), "{popup}");
    let closed = c.call("browser_click", json!({"target": ref_in(&popup, "Done, close me")}));
    assert!(!closed.is_error, "{}", closed.text);
    assert!(closed.text.contains("The tab was closed"), "{}", closed.text);
    assert!(
        closed.text.contains("Title: Opener page") && !closed.text.contains("crashed"),
        "the opener is shown, no new browser: {}",
        closed.text
    );
    let next = c.ok("browser_snapshot", json!({}));
    assert!(
        next.contains("Title: Opener page") && !next.contains("a new one was started"),
        "{next}"
    );
}

#[test]
fn typing_stops_when_the_page_starts_loading_another() {
    let files = FixtureServer::start();
    let mut c = stdio(&["--caps", "evaluate"]);
    let page = c.ok("browser_navigate", json!({"url": files.url("mcp/code-entry.html")}));
    let typed = c.call(
        "browser_type",
        json!({"target": ref_in(&page, "Code"), "text": "123456789 delete my account", "slowly": true, "submit": true}),
    );
    assert!(typed.is_error, "not all was typed: {}", typed.text);
    assert!(
        typed.text.contains("Typed only ")
            && typed.text.contains(" of 27 characters into")
            && typed.text.contains("the rest was not typed"),
        "{}",
        typed.text
    );
    assert!(typed.text.contains("Title: Message support"), "{}", typed.text);
    let message = c.ok(
        "browser_evaluate",
        json!({"function": "() => document.getElementById('msg').value"}),
    );
    assert!(
        message.contains("\"\""),
        "nothing went into the next page's field: {message}"
    );
}

#[test]
fn a_pages_console_errors_are_not_the_next_pages() {
    let files = FixtureServer::start();
    let mut c = stdio(&[]);
    c.ok("browser_navigate", json!({"url": files.url("mcp/noisy.html")}));
    let noisy = c.ok("browser_wait_for", json!({"time": 0.5}));
    assert!(
        noisy.contains("### New console errors") && noisy.contains("noisy error"),
        "{noisy}"
    );
    // It goes on logging until it is left: none of that is the next page's.
    c.ok("browser_wait_for", json!({"time": 0.5}));
    std::thread::sleep(std::time::Duration::from_millis(500));
    let quiet = c.ok("browser_navigate", json!({"url": files.url("short.html")}));
    assert!(!quiet.contains("noisy error"), "{quiet}");
    let listed = c.ok("browser_console_messages", json!({}));
    assert!(!listed.contains("noisy error"), "{listed}");
}
