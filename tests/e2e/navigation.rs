//! Navigation (typed errors, HTTP status, history), readiness, popups and new
//! tabs, and connecting to a running browser with `--cdp-url`.
//!
//! One launched browser runs the scenarios one after the other; the connect
//! test starts its own Chromium with a DevTools port.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use crate::support::*;
use futures::FutureExt;
use serde_json::{json, Value};
use sightline::{Browser, Error, LaunchOptions, NavigationErrorKind, Page, SnapshotOptions};

struct Ctx {
    browser: Browser,
    server: FixtureServer,
}

async fn eval(page: &Page, js: &str) -> Value {
    page.evaluate(js).await.unwrap_or_else(|e| panic!("evaluate {js}: {e}"))
}

fn closed_port() -> u16 {
    sightline_testkit::free_port()
}

async fn typed_errors_and_status(cx: &Ctx) {
    let page = cx.browser.new_page().await.unwrap();
    // An HTTP error status is reported, not fatal.
    let r = page
        .goto(&cx.server.url("actions/no-such-page.html"))
        .await
        .expect("404 loads");
    assert_eq!(r.status, Some(404), "{r:?}");
    assert_eq!(r.status_text, "Not Found");
    assert!(!r.ok());
    let snap = page
        .snapshot(&SnapshotOptions::default())
        .await
        .expect("snapshot of a 404");
    assert!(snap.tree.contains("not found"), "{}", snap.tree);
    let r = page.goto(&cx.server.url("actions/history-a.html")).await.unwrap();
    assert_eq!((r.status, r.ok()), (Some(200), true));
    assert!(r.url.ends_with("/actions/history-a.html"), "{r:?}");

    // Connection refused.
    let url = format!("http://127.0.0.1:{}/", closed_port());
    let e = page.goto(&url).await.expect_err("closed port");
    assert!(
        matches!(
            &e,
            Error::Navigation {
                kind: NavigationErrorKind::ConnectionRefused,
                ..
            }
        ),
        "{e:?}"
    );
    // DNS failure (the browser resolves no names, see the launch options).
    let e = page.goto("http://shop.sightline-test.invalid/").await.expect_err("dns");
    assert!(
        matches!(
            &e,
            Error::Navigation {
                kind: NavigationErrorKind::NameNotResolved,
                ..
            }
        ),
        "{e:?}"
    );
    // The page still works after failures.
    page.goto(&cx.server.url("actions/history-b.html"))
        .await
        .expect("recovers");
    assert_eq!(page.title().await.unwrap(), "Page B");
    page.close().await.unwrap();
}

async fn history(cx: &Ctx) {
    let page = cx.browser.new_page().await.unwrap();
    page.goto(&cx.server.url("actions/history-a.html")).await.unwrap();
    // A click that navigates: the action returns once the new page is ready.
    let r = page.click("#to-b").await.expect("click link");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("navigated to") && n.contains("history-b")),
        "{r:?}"
    );
    assert_eq!(page.title().await.unwrap(), "Page B");

    let back = page.back().await.expect("back").expect("an entry");
    assert!(back.url.ends_with("history-a.html"), "{back:?}");
    assert_eq!(page.title().await.unwrap(), "Page A");
    let fwd = page.forward().await.expect("forward").expect("an entry");
    assert!(fwd.url.ends_with("history-b.html"), "{fwd:?}");
    assert_eq!(page.title().await.unwrap(), "Page B");
    assert_eq!(page.forward().await.expect("forward at the end"), None);

    let loads = eval(&page, "sessionStorage.loadsB").await;
    let r = page.reload().await.expect("reload");
    assert_eq!(r.status, Some(200));
    let after = eval(&page, "sessionStorage.loadsB").await;
    assert_eq!(
        after.as_str().unwrap().parse::<u32>().unwrap(),
        loads.as_str().unwrap().parse::<u32>().unwrap() + 1,
        "reload did not load the page again"
    );
    // Same-document history entries.
    eval(&page, "history.pushState({}, '', '#step2')").await;
    let r = page.back().await.unwrap().unwrap();
    assert!(r.url.ends_with("history-b.html"), "{r:?}");
    assert_eq!(eval(&page, "location.hash").await, "");
    page.close().await.unwrap();
}

/// A form submission only queues its navigation, and after a click that
/// changed the page Chromium runs it after the next frame: the action still
/// waits for the new page (the engine notices the `submit` event). Repeated,
/// because missing it was a race. A cancelled submission costs no wait.
async fn queued_navigations(cx: &Ctx) {
    let page = cx.browser.new_page().await.unwrap();
    let lands = |r: &sightline::ActionResult| {
        r.notes
            .iter()
            .any(|n| n.contains("navigated to") && n.contains("history-b.html?q=x"))
    };
    for round in 0..4 {
        page.goto(&cx.server.url("actions/queued-nav.html")).await.unwrap();
        let r = page.click("#submit").await.expect("click");
        assert!(lands(&r), "round {round}, click: {r:?}");
        assert_eq!(page.title().await.unwrap(), "Page B", "round {round}");
        // Enter in a field submits too (implicit submission).
        page.goto(&cx.server.url("actions/queued-nav.html")).await.unwrap();
        let r = page
            .press(Some("#q".into()), &["Enter".to_string()])
            .await
            .expect("press");
        assert!(lands(&r), "round {round}, Enter: {r:?}");
    }
    page.goto(&cx.server.url("actions/queued-nav.html")).await.unwrap();
    let r = page.click("#cancelled").await.expect("click");
    assert!(r.notes.is_empty(), "{r:?}");
    assert_eq!(page.title().await.unwrap(), "Queued navigations");
    page.close().await.unwrap();
}

async fn readiness(cx: &Ctx) {
    let page = cx.browser.new_page().await.unwrap();
    page.goto(&cx.server.url("actions/network.html")).await.unwrap();
    // A click that fetches: the action waits for the response and its
    // rendering, not for a quiet network.
    let t = Instant::now();
    page.click("#load").await.unwrap();
    let took = t.elapsed();
    assert_eq!(
        eval(&page, "document.getElementById('status').textContent").await,
        "loaded ok"
    );
    assert!(
        took >= Duration::from_millis(850),
        "did not wait for the response: {took:?}"
    );
    assert!(took < Duration::from_secs(4), "took {took:?}");

    // Content fetched just after load (a timer, then a request) is there when goto returns.
    page.goto(&cx.server.url("actions/network.html?late")).await.unwrap();
    assert_eq!(
        eval(&page, "document.getElementById('status').textContent").await,
        "late content"
    );

    // A request that never ends holds the step while it is young, not for the whole budget.
    let t = Instant::now();
    page.goto(&cx.server.url("actions/network.html?hang")).await.unwrap();
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(800), "ignored a young request: {took:?}");
    assert!(
        took < Duration::from_millis(3500),
        "waited for an old request: {took:?}"
    );
    let t = Instant::now();
    let report = page.wait_ready().await.unwrap();
    assert!(
        !report.timed_out && t.elapsed() < Duration::from_millis(500),
        "{report:?}"
    );

    // An EventSource never counts.
    let t = Instant::now();
    page.goto(&cx.server.url("actions/network.html?events")).await.unwrap();
    assert!(
        t.elapsed() < Duration::from_millis(1800),
        "waited for an event stream: {:?}",
        t.elapsed()
    );

    // The budget bounds the wait and says what it was waiting on.
    eval(&page, "fetch('/__slow?ms=3000'), 0").await;
    let t = Instant::now();
    let report = page.wait_ready_within(Duration::from_millis(400)).await.unwrap();
    assert!(report.timed_out, "{report:?}");
    assert_eq!(
        report.pending,
        vec!["request /__slow?ms=3000".to_string()],
        "{report:?}"
    );
    assert!(t.elapsed() < Duration::from_millis(900), "{:?}", t.elapsed());
    // Snapshots wait for readiness first, within the page's budget.
    page.set_ready_timeout(Duration::from_millis(300));
    eval(&page, "fetch('/__slow?ms=3000'), 0").await;
    let t = Instant::now();
    page.snapshot(&SnapshotOptions::default()).await.unwrap();
    assert!(t.elapsed() < Duration::from_millis(900), "{:?}", t.elapsed());
    page.close().await.unwrap();
}

async fn popups(cx: &Ctx) {
    let page = cx.browser.new_page().await.unwrap();
    page.goto(&cx.server.url("actions/popup.html")).await.unwrap();
    page.click("#help").await.expect("click target=_blank link");
    let tab = cx
        .browser
        .wait_for_popup(&page, Duration::from_secs(10))
        .await
        .expect("new tab");
    assert_eq!(tab.opener_id(), Some(page.target_id()));
    tab.wait_ready().await.unwrap();
    assert!(tab.url().await.unwrap().contains("popup-target.html?via=link"));
    // Acting in the new tab works like in any other.
    tab.click("#thanks").await.expect("click in the new tab");
    assert_eq!(
        eval(&tab, "document.getElementById('thanks-count').textContent").await,
        "1"
    );
    let snap = tab.snapshot(&SnapshotOptions::default()).await.unwrap();
    assert!(snap.tree.contains(r#"button "Thanks""#), "{}", snap.tree);
    // The new tab hides its opener. A hidden tab renders no frames, so
    // scrolling, hit tests and input would stall on it: acting on it shows
    // it first.
    assert_eq!(eval(&page, "document.visibilityState").await, "hidden");

    page.click("#open").await.expect("click window.open");
    let popup = cx
        .browser
        .wait_for_popup(&page, Duration::from_secs(10))
        .await
        .expect("popup");
    popup.wait_ready().await.unwrap();
    assert!(popup.url().await.unwrap().contains("via=button"));
    assert_ne!(popup.target_id(), tab.target_id());
    // No third one.
    let e = cx
        .browser
        .wait_for_popup(&page, Duration::from_millis(300))
        .await
        .expect_err("no more popups");
    assert!(matches!(e, Error::Timeout { .. }), "{e:?}");
    // Acting on the opener showed it (see below); the new tab is hidden
    // behind it now, and a screenshot shows it first.
    assert_eq!(eval(&page, "document.visibilityState").await, "visible");
    assert_eq!(eval(&tab, "document.visibilityState").await, "hidden");
    assert!(!tab.screenshot().await.expect("screenshot of a hidden tab").is_empty());
    assert_eq!(eval(&tab, "document.visibilityState").await, "visible");

    let pages = cx.browser.pages().await.unwrap();
    let ids: Vec<&str> = pages.iter().map(|p| p.target_id()).collect();
    for p in [&page, &tab, &popup] {
        assert!(ids.contains(&p.target_id()), "{ids:?}");
    }
    // The same tab is the same Page.
    assert!(pages.iter().any(|p| p == &popup));
    let newest = cx.browser.newest_page().await.unwrap().unwrap();
    assert_eq!(newest.target_id(), popup.target_id());
    popup.close().await.unwrap();
    tab.close().await.unwrap();
    page.close().await.unwrap();
}

/// Steps that answer dialogs hold them open while they run, and leave the
/// tab as they found it: a dialog after the run is dismissed again.
async fn steps_leave_the_dialog_policy(cx: &Ctx) {
    use sightline::steps::{parse_steps, Runner};
    use sightline::DialogPolicy;
    let page = cx.browser.new_page().await.unwrap();
    page.goto(&cx.server.url("sessions/edge.html")).await.unwrap();
    let steps =
        parse_steps(r##"[{"tool": "click", "target": "#ask"}, {"tool": "handleDialog", "accept": true}]"##).unwrap();
    let mut runner = Runner::new(&cx.browser, page.clone(), None);
    let (report, failure) = runner.run(&steps, |_, _| {}).await;
    assert!(failure.is_none(), "{failure:?} {report:?}");
    assert_eq!(
        eval(&page, "document.getElementById('answer').textContent").await,
        "yes"
    );
    assert_eq!(page.set_dialog_policy(DialogPolicy::Dismiss), DialogPolicy::Dismiss);
    page.close().await.unwrap();
}

async fn scenario<'a, F>(name: &str, failures: &mut Vec<String>, f: F)
where
    F: Future<Output = ()> + 'a,
{
    let started = Instant::now();
    match AssertUnwindSafe(f).catch_unwind().await {
        Ok(()) => eprintln!("scenario {name}: ok ({:.1}s)", started.elapsed().as_secs_f64()),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            eprintln!("scenario {name}: FAILED: {msg}");
            failures.push(format!("{name}: {msg}"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigation_readiness_and_popups() {
    with_timeout("navigation suite", async {
        let server = FixtureServer::start();
        let mut options = LaunchOptions::default();
        // No name resolves (a deterministic DNS failure); 127.0.0.1 needs none.
        options
            .extra_args
            .push("host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1".into());
        let browser = Browser::launch(options).await.expect("launch");
        let cx = Ctx { browser, server };
        let mut failures = Vec::new();
        scenario("typed errors and status", &mut failures, typed_errors_and_status(&cx)).await;
        scenario("history", &mut failures, history(&cx)).await;
        scenario("queued navigations", &mut failures, queued_navigations(&cx)).await;
        scenario("readiness", &mut failures, readiness(&cx)).await;
        scenario("popups", &mut failures, popups(&cx)).await;
        scenario(
            "steps leave the dialog policy",
            &mut failures,
            steps_leave_the_dialog_policy(&cx),
        )
        .await;
        cx.browser.close().await.expect("close");
        assert!(
            failures.is_empty(),
            "{} scenario(s) failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    })
    .await;
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit_once(')').map(|(_, r)| r.trim_start()).unwrap_or("");
            !(state.starts_with('Z') || state.starts_with('X'))
        })
        .unwrap_or(false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_to_a_running_browser() {
    with_timeout("connect test", async {
        let server = FixtureServer::start();
        let remote = RemoteChrome::start();
        let pid = remote.child.id();
        let endpoint = format!("http://127.0.0.1:{}", remote.port);

        let browser = Browser::connect(&endpoint, LaunchOptions::default())
            .await
            .expect("connect over http://");
        assert!(browser.is_connected_remote());
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("short.html")).await.unwrap();
        let snap = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert!(snap.tree.contains(r#"button "Only button""#), "{}", snap.tree);
        page.click(ref_with(&snap.tree, r#"button "Only button""#).as_str())
            .await
            .expect("click over the connection");
        let id = page.target_id().to_string();
        browser.close().await.expect("disconnect");
        assert!(alive(pid), "closing a connected browser must leave it running");

        // Our tab was closed; the browser's own tab is still there.
        let list = tokio::task::spawn_blocking({
            let port = remote.port;
            move || {
                use std::io::{Read, Write};
                let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
                s.write_all(b"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .unwrap();
                // DevTools keeps the connection open: read until the body is complete.
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut raw = Vec::new();
                let mut buf = [0u8; 8192];
                loop {
                    let text = String::from_utf8_lossy(&raw).to_string();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let len = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().to_string())
                            })
                            .and_then(|v| v.parse::<usize>().ok());
                        if len.is_some_and(|n| body.len() >= n) {
                            return text;
                        }
                    }
                    match s.read(&mut buf) {
                        Ok(0) | Err(_) => return text,
                        Ok(n) => raw.extend_from_slice(&buf[..n]),
                    }
                }
            }
        })
        .await
        .unwrap();
        assert!(!list.contains(&id), "the tab we opened is still open:\n{list}");

        // The CLI too, with the ws:// URL this time.
        let out = run_cli(&["snapshot", &server.url("short.html"), "--cdp-url", &endpoint]);
        out.assert_success();
        assert!(out.stdout.contains(r#"button "Only button""#), "{}", out.stdout);
        assert!(alive(pid));

        let e = Browser::connect(&format!("http://127.0.0.1:{}", closed_port()), LaunchOptions::default())
            .await
            .expect_err("nothing listens");
        assert!(matches!(e, Error::Connect { .. }), "{e:?}");
        drop(remote);
    })
    .await;
}

/// In the user's own browser (`--cdp-endpoint`), the tabs it had hold the
/// user's work: closing the session's tabs leaves them, closing one of them
/// by index is refused, and the session's end leaves the browser a tab.
#[test]
fn the_users_own_tabs_are_not_closed() {
    let server = FixtureServer::start();
    let remote = RemoteChrome::start();
    let users_tab = server.url("short.html?mine");
    remote.open_tab(&users_tab);
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let mut client = crate::support::mcp_client::stdio(&["--cdp-endpoint", &endpoint]);
    client.ok("browser_navigate", json!({"url": server.url("long.html")}));
    let tabs = client.ok("browser_tabs", json!({}));
    let index = tab_index(&tabs, "short.html?mine");
    let refused = client.call("browser_tabs", json!({"action": "close", "index": index}));
    assert!(
        refused.is_error && refused.text.contains("is one of your browser's own"),
        "{}",
        refused.text
    );
    let closed = client.ok("browser_close", json!({}));
    assert!(closed.contains("stay open"), "{closed}");
    let urls = remote.tab_urls();
    assert!(urls.contains(&users_tab), "{urls:?}");
    assert!(!urls.iter().any(|u| u.contains("long.html")), "{urls:?}");
    // The user closes their own tabs: the session's end leaves the last
    // tab (a headed browser quits when its last window closes).
    client.ok("browser_navigate", json!({"url": server.url("long.html")}));
    remote.close_tabs_at(&users_tab);
    remote.close_tabs_at("about:blank");
    let deadline = Instant::now() + Duration::from_secs(10);
    while remote.tab_urls().len() > 1 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(client);
    std::thread::sleep(Duration::from_millis(500));
    let urls = remote.tab_urls();
    assert!(urls.len() == 1 && urls[0].contains("long.html"), "{urls:?}");
}

/// `sightline <args…>` with its sessions in `dir` (each test has its own).
fn in_sessions(dir: &std::path::Path, args: &[&str]) -> CliOutput {
    run_cli_env(args, &[("SIGHTLINE_SESSION_DIR", dir.to_str().unwrap())])
}

/// [`in_sessions`], asserted to succeed: its output.
fn ok_in_sessions(dir: &std::path::Path, args: &[&str]) -> String {
    let out = in_sessions(dir, args);
    out.assert_success();
    out.stdout
}

/// A frame of another site whose process is busy (an ad's script that
/// does not yield, in a browser that isolates sites) holds the page's
/// snapshot up for a few seconds once, then not at all while it stays
/// busy: it is left out with a note each time, and the page's own refs act.
#[test]
fn a_busy_frame_of_another_site_holds_up_no_snapshot_for_long() {
    let server = FixtureServer::start();
    let remote = RemoteChrome::start_isolating_sites();
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let sessions = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| ok_in_sessions(sessions.path(), args);
    // (The frame's script is busy for 12 s from 300 ms after it loaded.)
    let page = server.url(&format!(
        "site-frame.html?site=ads.test:{}&page=busy-frame.html",
        server.port
    ));
    run(&["open", "--cdp-url", &endpoint, &page]);
    std::thread::sleep(Duration::from_millis(1000));
    let started = Instant::now();
    let first = run(&["snapshot"]);
    let first_took = started.elapsed();
    let started = Instant::now();
    let second = run(&["snapshot"]);
    let second_took = started.elapsed();
    for snap in [&first, &second] {
        assert!(
            snap.contains("busy-frame.html was left out") && snap.contains("did not answer"),
            "{snap}"
        );
        assert!(snap.contains(r#"button "Pay later""#), "{snap}");
    }
    assert!(
        first_took < Duration::from_secs(9),
        "the first snapshot took {first_took:?}"
    );
    assert!(
        second_took < Duration::from_secs(3),
        "the second snapshot took {second_took:?}"
    );
    let clicked = run(&["click", &ref_with(&first, r#"button "Pay later""#)]);
    assert!(clicked.contains("Clicked"), "{clicked}");
    run(&["close"]);
}

/// In a browser that isolates sites (the user's own, reached with
/// `--cdp-url`), a frame of another site runs in a process of its own,
/// outside the page's frame tree. It is read through its own target: its
/// refs act (a card form filled, checked and sent, one command at a time;
/// a secret bound to the frame's site is typed there, one bound to the
/// page's is not), and a consent dialog served in such a frame is
/// answered. (It was named as not read, and the dialog left alone.)
#[test]
fn a_frame_of_another_site_in_an_isolating_browser_is_read_and_acted_in() {
    let server = FixtureServer::start();
    let remote = RemoteChrome::start_isolating_sites();
    let endpoint = format!("http://127.0.0.1:{}", remote.port);
    let url = server.url(&format!("site-frame.html?site=ads.test:{}", server.port));
    let out = run_cli(&["snapshot", "--cdp-url", &endpoint, &url]);
    out.assert_success();
    assert!(out.stdout.contains(r#"button "Pay later""#), "{}", out.stdout);
    assert!(
        out.stdout.contains(r#"button "Only button" [ref=f1e1]"#),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("process of its own"), "{}", out.stdout);

    let sessions = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| ok_in_sessions(sessions.path(), args);
    let card = server.url(&format!(
        "site-frame.html?site=ads.test:{}&page=card-form.html",
        server.port
    ));
    let secrets = sessions.path().join("secrets.env");
    std::fs::write(
        &secrets,
        "CARD@ads.test=4242424242424242\nSHOP_CARD@127.0.0.1=5555555555554444\n",
    )
    .unwrap();
    let opened = run(&[
        "open",
        "--cdp-url",
        &endpoint,
        "--secrets",
        secrets.to_str().unwrap(),
        &card,
    ]);
    let number = ref_with(&opened, r#"textbox "Card number""#);
    let save = ref_with(&opened, r#"checkbox "Save this card""#);
    let pay = ref_with(&opened, r#"button "Pay""#);
    assert!(number.starts_with('f'), "a ref in the frame: {opened}");
    let refused = in_sessions(sessions.path(), &["fill", &number, "%SHOP_CARD%"]);
    assert_eq!(refused.code(), Some(1), "{}", refused.stdout);
    assert!(
        refused.stdout.contains("the document it would reach is ads.test"),
        "{}",
        refused.stdout
    );
    run(&["fill", &number, "%CARD%"]);
    run(&["check", &save]);
    let paid = run(&["click", &pay]);
    assert!(paid.contains("Paid with the card ending 4242, saved"), "{paid}");
    // Text waited for is looked for in that frame too.
    let waited = in_sessions(sessions.path(), &["wait", "--text", "card ending 4242", "--time", "3"]);
    assert!(waited.code() == Some(0), "{}", waited.stdout);
    // The frame leaves the page: its refs are stale, said as such.
    run(&["eval", "document.querySelector('iframe').remove()"]);
    let stale = in_sessions(sessions.path(), &["click", &pay]);
    assert_eq!(stale.code(), Some(1), "{}", stale.stdout);
    assert!(stale.stdout.contains("the ref is stale"), "{}", stale.stdout);
    run(&["close"]);

    // A consent dialog served in such a frame is answered in it.
    let framed = server.url(&format!("blockers/framed-dialog.html?site=ads.test:{}", server.port));
    let out = run_cli(&["unblock", "--cdp-url", &endpoint, "--consent", "reject", &framed]);
    out.assert_success();
    assert!(
        out.stdout.starts_with("removed by click") && out.stdout.contains(r#""Reject all""#),
        "{}",
        out.stdout
    );
}
