//! Failures exit non-zero with exactly one `error: …` line on stderr.

use crate::support::*;

#[test]
fn unparseable_url() {
    let out = run_cli(&["snapshot", "http://exa mple.com/"]);
    let line = out.assert_one_line_error();
    assert_eq!(out.code(), Some(1));
    assert!(
        line.starts_with("error: invalid URL \"http://exa mple.com/\""),
        "{line}"
    );

    let out = run_cli(&["snapshot", "ftp://127.0.0.1/file.html"]);
    let line = out.assert_one_line_error();
    assert_eq!(out.code(), Some(1));
    assert!(line.contains("unsupported URL scheme"), "{line}");
}

#[test]
fn missing_file() {
    let out = run_cli(&["snapshot", "../../tests/fixtures/no-such-page.html"]);
    let line = out.assert_one_line_error();
    assert_eq!(out.code(), Some(1));
    assert_eq!(line, "error: no such file: ../../tests/fixtures/no-such-page.html");
}

#[test]
fn closed_port_on_localhost() {
    // Bind a free port, then release it: nothing listens there any more.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/");
    let out = run_cli(&["snapshot", &url]);
    let line = out.assert_one_line_error();
    assert_eq!(out.code(), Some(1));
    assert_eq!(
        line,
        format!("error: could not load {url}: connection refused (net::ERR_CONNECTION_REFUSED)")
    );
}

#[test]
fn browser_that_does_not_exist() {
    let out = run_cli_env(
        &["snapshot", "../../tests/fixtures/short.html"],
        &[("SIGHTLINE_CHROME", "/nonexistent")],
    );
    let line = out.assert_one_line_error();
    assert_eq!(out.code(), Some(1));
    assert_eq!(
        line,
        "error: could not start the browser /nonexistent: no such executable"
    );
}

#[test]
fn browser_that_exits_at_once() {
    let out = run_cli_env(
        &["snapshot", "../../tests/fixtures/short.html"],
        &[("SIGHTLINE_CHROME", "/bin/false")],
    );
    let line = out.assert_one_line_error();
    assert_eq!(out.code(), Some(1));
    assert!(
        line.starts_with("error: could not start the browser /bin/false: the process exited"),
        "{line}"
    );
}

#[test]
fn bad_viewport_is_a_usage_error() {
    let out = run_cli(&["snapshot", "../../tests/fixtures/short.html", "--viewport", "huge"]);
    assert_eq!(out.code(), Some(2), "stderr:\n{}", out.stderr);
    assert!(out.stderr.contains("--viewport"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
    // A navigation timeout of nothing would fail every page at once.
    let out = run_cli(&[
        "snapshot",
        "../../tests/fixtures/short.html",
        "--navigation-timeout",
        "0",
    ]);
    assert_eq!(out.code(), Some(2), "stderr:\n{}", out.stderr);
    assert!(out.stderr.contains("--navigation-timeout"), "{}", out.stderr);
}

/// A page that never answers: a typed timeout, and the page stays usable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigation_timeout_is_typed_and_the_page_recovers() {
    use sightline::{Browser, Error, LaunchOptions, NavigationErrorKind, SnapshotOptions};
    use std::time::{Duration, Instant};
    with_timeout("navigation timeout test", async {
        let server = FixtureServer::start();
        let options = LaunchOptions {
            navigation_timeout: Duration::from_secs(3),
            ..Default::default()
        };
        let browser = Browser::launch(options).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        let hang = server.url("__hang");
        let started = Instant::now();
        let err = page.goto(&hang).await.expect_err("/__hang never loads");
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "timeout took {:?}",
            started.elapsed()
        );
        assert!(
            matches!(
                &err,
                Error::Navigation {
                    kind: NavigationErrorKind::NoResponse,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!("could not load {hang}: the server sent no response within the navigation timeout")
        );

        let started = Instant::now();
        page.goto(&server.url("short.html"))
            .await
            .expect("the next navigation works");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "next goto took {:?}",
            started.elapsed()
        );
        let snap = page.snapshot(&SnapshotOptions::default()).await.expect("snapshot");
        assert!(snap.tree.contains(r#"button "Only button""#), "{}", snap.tree);
        browser.close().await.expect("close");
    })
    .await;
}

/// A caller's script whose promise never settles is said as such, not as
/// CDP's "the browser did not reply" (an endless loop is a page that
/// stopped answering: see mcp/hung.rs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promise_that_never_settles_says_so() {
    use sightline::{Browser, Error, LaunchOptions};
    use std::time::Duration;
    with_timeout("unending scripts", async {
        let server = FixtureServer::start();
        let options = LaunchOptions {
            request_timeout: Duration::from_secs(3),
            ..Default::default()
        };
        let browser = Browser::launch(options).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("short.html")).await.expect("goto");
        let e = page.evaluate("new Promise(() => {})").await.expect_err("never settles");
        assert!(
            matches!(&e, Error::Timeout { what, .. } if what.contains("promise that never settles")),
            "{e}"
        );
        let said = e.to_string();
        assert!(
            said.starts_with("timed out after ") && said.contains(" waiting for the script"),
            "{e}"
        );
        assert_eq!(page.evaluate("1 + 1").await.unwrap(), 2, "the page still answers");
        browser.close().await.expect("close");
    })
    .await;
}

/// A renderer that crashes while a command waits on it (here one busy in a
/// long script) never answers that command: it fails at once as a crash,
/// not after the DevTools timeout as "the browser did not reply" (a batch
/// task on a page that crashed its renderer took 30 s so, on a busy machine).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_waiting_on_a_renderer_that_crashes_fails_at_once() {
    use crate::support::world::cdp;
    use serde_json::json;
    use sightline::{Browser, Error, LaunchOptions};
    use std::time::{Duration, Instant};
    with_timeout("a crash under a waiting command", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("short.html")).await.expect("goto");
        // The renderer's main thread is held for 8 s from now: a question
        // to the page waits for it.
        page.evaluate("setTimeout(() => { const end = Date.now() + 8000; while (Date.now() < end) {} }, 0); 0")
            .await
            .expect("the loop is set");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let crasher = page.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(700)).await;
            // (Runs on the renderer's IO thread: the loop cannot hold it.)
            let _ = tokio::time::timeout(Duration::from_secs(2), cdp(&crasher, "Page.crash", json!({}))).await;
        });
        let asked = Instant::now();
        let answer = page.evaluate_in_frames("1").await;
        assert!(matches!(answer, Err(Error::PageCrashed)), "{answer:?}");
        assert!(
            asked.elapsed() < Duration::from_secs(6),
            "failed only after {:?} (the loop holds 8 s, the DevTools timeout is 30 s)",
            asked.elapsed()
        );
        let _ = browser.close().await;
    })
    .await;
}

/// `sightline snapshot --help | head`: a reader that went away is no panic.
#[test]
fn help_into_a_closed_pipe_is_no_panic() {
    for args in [&["snapshot", "--help"][..], &["click", "--help"][..], &["--help"][..]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sightline"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader is gone before the help is written.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
