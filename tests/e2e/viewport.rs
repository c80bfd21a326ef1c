//! Page position, viewport mode and offscreen marking.
//!
//! `long.html` is exactly ten 720px sections (a 7200px document), each with
//! one button and one link; `short.html` fits in the viewport.

use crate::support::*;
use sightline::protocol::SnapshotResult;
use sightline::{Browser, LaunchOptions, SnapshotMode, SnapshotOptions};

fn header(snap: &SnapshotResult) -> Vec<&str> {
    snap.tree.lines().take_while(|l| l.starts_with('#')).collect()
}

/// Checks the JSON viewport block and the `# Page position` header against the
/// expected numbers.
fn assert_position(snap: &SnapshotResult, above: u32, below: u32, at_top: bool, at_bottom: bool) {
    let v = &snap.viewport;
    assert_eq!(
        (v.pages_above, v.pages_below, v.at_top, v.at_bottom),
        (above, below, at_top, at_bottom),
        "viewport block {v:?}\n{}",
        snap.tree
    );
    let head = header(snap);
    let first = head.first().copied().unwrap_or("");
    if at_top && at_bottom {
        assert_eq!(first, "# Page position: the whole page is in view.", "{head:?}");
        return;
    }
    // One line; an edge reached is said as one, not as "0 viewports".
    let side = |n: u32, at_edge: bool, edge: &str, direction: &str| match (at_edge, n) {
        (true, _) => format!("at the {edge}"),
        (false, 1) => format!("1 viewport {direction}"),
        (false, n) => format!("{n} viewports {direction}"),
    };
    assert_eq!(
        first,
        format!(
            "# Page position: {}, {}.",
            side(above, at_top, "top", "above"),
            side(below, at_bottom, "bottom", "below")
        ),
        "{head:?}"
    );
    assert!(
        !head.iter().skip(1).any(|l| l.starts_with("# Page position")),
        "{head:?}"
    );
}

/// Top, middle, bottom (and past the bottom) of a long page, then a short page,
/// in one browser through the library API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_position_at_top_middle_bottom_and_short_page() {
    with_timeout("position test", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("long.html")).await.expect("goto long.html");

        let top = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("snapshot at top");
        assert_eq!(
            (top.viewport.viewport_width, top.viewport.viewport_height),
            (1280.0, 720.0)
        );
        assert_eq!(top.viewport.doc_height, 7200.0);
        assert_position(&top, 0, 9, true, false);
        // Full mode renders everything; what is outside the viewport says so.
        let first = line_with(&top.tree, r#"button "Button 1""#);
        assert!(!offscreen(&top.tree, r#"button "Button 1""#), "{}", top.tree);
        let last = line_with(&top.tree, r#"button "Button 10""#);
        assert!(offscreen(&top.tree, r#"button "Button 10""#), "{}", top.tree);
        assert!(top.refs.get(&ref_of(first).unwrap()).unwrap().in_viewport);
        assert!(!top.refs.get(&ref_of(last).unwrap()).unwrap().in_viewport);

        let middle = page
            .snapshot(&SnapshotOptions {
                scroll_y: Some(3600.0),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(middle.viewport.scroll_y, 3600.0);
        assert_position(&middle, 5, 4, false, false);
        assert!(!offscreen(&middle.tree, r#"button "Button 6""#), "{}", middle.tree);
        assert!(offscreen(&middle.tree, r#"button "Button 1""#), "{}", middle.tree);

        let bottom = page
            .snapshot(&SnapshotOptions {
                scroll_y: Some(6480.0),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_position(&bottom, 9, 0, false, true);
        // Scrolling past the end clamps to the bottom.
        let past = page
            .snapshot(&SnapshotOptions {
                scroll_y: Some(100_000.0),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(past.viewport.scroll_y, 6480.0);
        assert_position(&past, 9, 0, false, true);

        page.goto(&server.url("short.html")).await.expect("goto short.html");
        let short = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert_position(&short, 0, 0, true, true);
        assert!(!offscreen(&short.tree, r#"button "Only button""#), "{}", short.tree);

        browser.close().await.expect("close");
    })
    .await;
}

/// The CLI's `--scroll-y` and `--viewport`, and `--mode viewport` with its
/// footer hint (the page given as a relative path).
#[test]
fn cli_scroll_y_viewport_size_and_viewport_mode() {
    let server = FixtureServer::start();
    // 800x600: 3600px down is 6 viewports above, (7200-3600-600)/600 = 5 below.
    let (_, snap) = snapshot_json(
        &server.url("long.html"),
        &["--scroll-y", "3600", "--viewport", "800x600"],
    );
    assert_eq!(
        (snap.viewport.viewport_width, snap.viewport.viewport_height),
        (800.0, 600.0)
    );
    assert_eq!(snap.viewport.scroll_y, 3600.0);
    assert_position(&snap, 6, 5, false, false);

    // cargo runs integration tests from the package directory (driver/).
    let text = snapshot_text("../../tests/fixtures/long.html", &["--mode", "viewport"]);
    assert!(text.contains(r#"button "Button 1""#), "{text}");
    assert!(
        !text.contains(r#"button "Button 2""#),
        "viewport mode shows offscreen content:\n{text}"
    );
    assert!(!text.contains("[offscreen]"), "{text}");
    // Sections 2..=10 each hold a button and a link below the viewport.
    assert!(
        text.lines()
            .any(|l| l == "# 18 interactive elements below the viewport; scroll down to see them."),
        "missing viewport-mode hint:\n{text}"
    );
    assert!(
        text.lines()
            .next()
            .unwrap()
            .starts_with("# Page position: at the top, 9 viewports below."),
        "{text}"
    );
}

/// Viewport mode through the library, scrolled to the middle: hints both ways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewport_mode_in_the_middle_counts_both_directions() {
    with_timeout("viewport mode test", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("long.html")).await.expect("goto");
        let opts = SnapshotOptions {
            mode: SnapshotMode::Viewport,
            scroll_y: Some(3600.0),
            ..Default::default()
        };
        let snap = page.snapshot(&opts).await.expect("snapshot");
        let tree = &snap.tree;
        assert!(tree.contains(r#"button "Button 6""#), "{tree}");
        assert!(
            !tree.contains(r#"button "Button 5""#) && !tree.contains(r#"button "Button 7""#),
            "{tree}"
        );
        assert!(
            tree.lines()
                .any(|l| l == "# 8 interactive elements below the viewport; scroll down to see them."),
            "{tree}"
        );
        assert!(
            tree.lines()
                .any(|l| l.starts_with("# 10 interactive elements above the viewport")),
            "{tree}"
        );
        assert_refs_consistent(&snap);
        browser.close().await.expect("close");
    })
    .await;
}

/// A page with no doctype (quirks mode, common on old and CMS-made pages):
/// the root element is as tall as the document there, so its client box is
/// no viewport. The position, a page scroll and a click below the fold read
/// the viewport from the body, as the browser does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quirks_mode_page_has_a_position_scrolls_and_clicks_below_the_fold() {
    use sightline::ScrollAmount;
    with_timeout("quirks mode", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("long-quirks.html")).await.expect("goto");
        assert_eq!(page.evaluate("document.compatMode").await.unwrap(), "BackCompat");
        let top = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert_eq!(top.viewport.viewport_height, 720.0);
        assert_position(&top, 0, 9, true, false);
        let scrolled = page.scroll(ScrollAmount::ViewportPercent(100.0)).await.unwrap();
        assert_eq!(
            scrolled.value.as_deref(),
            Some("page scrolled to y=720 of 6480"),
            "{scrolled:?}"
        );
        let below = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert_position(&below, 1, 8, false, false);
        let last = ref_of(line_with(&below.tree, r#"button "Button 10""#)).unwrap();
        page.click(last.as_str()).await.expect("click below the fold");
        assert_eq!(page.evaluate("window.clicked").await.unwrap(), "Button 10");
        browser.close().await.expect("close");
    })
    .await;
}

/// Opens an app shell at `url` whose content box (`div#main`) holds at least
/// five viewports, and scrolls the page 80%: the box's `pages_below` before,
/// the scroll's result and the snapshot after.
async fn scroll_content_box(page: &sightline::Page, url: &str) -> (u32, sightline::ActionResult, SnapshotResult) {
    page.goto(url).await.expect("goto");
    let before = page.snapshot(&SnapshotOptions::default()).await.unwrap();
    let below = before.viewport.pages_below;
    assert!(below >= 5, "{}", before.tree);
    let scrolled = page
        .scroll(sightline::ScrollAmount::ViewportPercent(80.0))
        .await
        .unwrap();
    assert!(
        scrolled
            .value
            .as_deref()
            .unwrap_or_default()
            .starts_with("div#main scrolled to y="),
        "{scrolled:?}"
    );
    let after = page.snapshot(&SnapshotOptions::default()).await.unwrap();
    (below, scrolled, after)
}

/// An app's shell: the page does not scroll, its content box does. Scrolling
/// the page scrolls that box, and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrolling_a_page_that_does_not_scroll_scrolls_its_content_box() {
    use sightline::ScrollAmount;
    with_timeout("app shell", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("app-shell.html")).await.expect("goto");
        // Its position is its content box's, and that box is the page, not
        // an overlay to warn of.
        let before = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert!(before.modal.is_none(), "{:?}", before.modal);
        let below = before.viewport.pages_below;
        assert!(below >= 5, "{}", before.tree);
        assert_position(&before, 0, below, true, false);
        let scrolled = page.scroll(ScrollAmount::ViewportPercent(80.0)).await.unwrap();
        let said = scrolled.value.clone().unwrap_or_default();
        assert!(said.starts_with("div#main scrolled to y="), "{scrolled:?}");
        let top = page
            .evaluate("document.getElementById('main').scrollTop")
            .await
            .unwrap();
        assert!(top.as_f64().unwrap() > 400.0, "{top}");
        let after = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert_position(&after, 1, below - 1, false, false);
        // The same shell inside a component's shadow root: scrolled too.
        let (below, scrolled, after) = scroll_content_box(&page, &server.url("app-shell-component.html")).await;
        assert_eq!(scrolled.moved, Some(true), "{scrolled:?}");
        assert_position(&after, 1, below - 1, false, false);
        // A larger box that scrolls sideways only (a carousel) is not the
        // page: the position is the box `scroll` moves.
        let (_, _, after) = scroll_content_box(&page, &server.url("app-shell-carousel.html")).await;
        assert!(after.viewport.pages_above >= 1, "{}", after.tree);
        browser.close().await.expect("close");
    })
    .await;
}
