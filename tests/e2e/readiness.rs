//! Readiness on pages that behave like real sites (tests/fixtures/living/):
//! a step returns when the page is ready as a user would see it, not at the
//! load event and not at network silence. Each behaviour class asserts what
//! the FIRST response contains, through the real MCP client, and a bound on
//! the time with a wide margin ("did not wait for the 12 s iframe").
//!
//! The library part checks the `[loading]` mark, the older waits kept as
//! choices (`WaitUntil::Load`, `WaitUntil::NetworkIdle`) and the report.

use std::time::{Duration, Instant};

use serde_json::json;
use sightline::{Browser, LaunchOptions, SnapshotOptions, WaitUntil};

use crate::support::mcp_client::{ref_in, stdio, McpClient};
use crate::support::*;

/// One timed call: its text and how long it took.
fn timed(client: &mut McpClient, tool: &str, args: serde_json::Value) -> (String, Duration) {
    let t = Instant::now();
    let text = client.ok(tool, args);
    (text, t.elapsed())
}

/// Clicks the element on `page`'s line with `line` in it; the reply.
fn click_on(client: &mut McpClient, page: &str, line: &str) -> String {
    client.ok("browser_click", json!({"target": ref_in(page, line)}))
}

fn assert_within(what: &str, took: Duration, limit: Duration, text: &str) {
    assert!(took < limit, "{what} took {took:?} (limit {limit:?}):\n{text}");
}

#[test]
fn every_behaviour_class_is_ready_in_the_first_response() {
    let files = FixtureServer::start();
    let url = |p: &str| files.url(&format!("living/{p}"));
    let mut client = stdio(&[]);

    // Slow ads: a 12 s ad frame and banner image hold the load event, not the step.
    let (page, took) = timed(&mut client, "browser_navigate", json!({"url": url("article-ad.html")}));
    assert!(page.contains("Council approves new riverside park"), "{page}");
    assert!(
        page.lines()
            .any(|l| l.contains("iframe \"Advertisement\"") && l.contains("[loading]")),
        "the ad frame is marked as loading:\n{page}"
    );
    assert_within("the ad page", took, Duration::from_secs(6), &page);

    // Analytics beacons every 400 ms: neither the page nor an action waits for them.
    let (page, took) = timed(&mut client, "browser_navigate", json!({"url": url("beacons.html")}));
    assert!(page.contains("Quarterly results beat forecasts"), "{page}");
    assert_within("the beacon page", took, Duration::from_secs(3), &page);
    let more = ref_in(&page, "button \"Read more\"");
    let (clicked, took) = timed(&mut client, "browser_click", json!({"target": more}));
    assert!(clicked.contains("Full-year guidance was raised to 10%"), "{clicked}");
    assert!(!clicked.contains("still busy"), "{clicked}");
    assert_within("a click among beacons", took, Duration::from_secs(3), &clicked);

    // A long poll and a stream that never end.
    let (page, took) = timed(&mut client, "browser_navigate", json!({"url": url("live.html")}));
    assert!(page.contains("Election night, live"), "{page}");
    assert_within("the live page", took, Duration::from_secs(3), &page);

    // A client-rendered app: the products arrive after a 700 ms API call.
    let (page, _) = timed(&mut client, "browser_navigate", json!({"url": url("client-app.html")}));
    assert!(
        page.contains("Trail Runner 2"),
        "the rendered content, not the shell:\n{page}"
    );
    assert!(!page.contains("Loading…"), "{page}");

    // A click whose results come from a 900 ms API call.
    let page = client.ok("browser_navigate", json!({"url": url("search.html")}));
    let search = ref_in(&page, "button \"Search\"");
    let (results, _) = timed(&mut client, "browser_click", json!({"target": search}));
    assert!(results.contains("Alpine Hut Weekend"), "{results}");

    // A link to a page whose server takes 1.5 s.
    let page = client.ok("browser_navigate", json!({"url": url("link.html")}));
    let link = ref_in(&page, "Read the full story");
    let (story, _) = timed(&mut client, "browser_click", json!({"target": link}));
    assert!(story.contains("The full story of the freight yard"), "{story}");

    // Reactions without a timer or a request: in the next frame, in a
    // posted task, in a microtask. Each is in the click's own response, and
    // the page's animation loop (a frame callback asking for the next
    // frame) holds nothing.
    let page = client.ok("browser_navigate", json!({"url": url("reactions.html")}));
    for (button, reaction) in [
        ("Save", "Saved by a frame"),
        ("Apply", "Applied by a task"),
        ("Render", "Rendered by a microtask"),
    ] {
        let target = ref_in(&page, &format!("button \"{button}\""));
        let (after, took) = timed(&mut client, "browser_click", json!({"target": target}));
        assert!(after.contains(reaction), "{button}: {after}");
        assert_within(button, took, Duration::from_secs(2), &after);
    }

    // A carousel and a clock changing the DOM every 100 ms.
    let (page, took) = timed(&mut client, "browser_navigate", json!({"url": url("carousel.html")}));
    assert!(page.contains("Deals of the week"), "{page}");
    assert_within("the carousel page", took, Duration::from_secs(3), &page);

    // A consent dialog opening 600 ms after load, by a timer and by a
    // configuration fetch: in the first tree, with the modal note.
    for fixture in ["consent.html", "consent-config.html"] {
        let (page, took) = timed(&mut client, "browser_navigate", json!({"url": url(fixture)}));
        assert!(page.contains("We value your privacy"), "{fixture}: {page}");
        assert!(page.contains("A modal is open"), "{fixture}: {page}");
        assert!(page.contains("button \"Accept all\""), "{fixture}: {page}");
        assert_within(fixture, took, Duration::from_secs(4), &page);
    }

    // An explicit snapshot is the whole tree, even right after another.
    let first = client.ok("browser_snapshot", json!({}));
    let second = client.ok("browser_snapshot", json!({}));
    assert!(
        second.contains("We value your privacy") && second.contains("[ref="),
        "{first}\n{second}"
    );
}

/// Replies that come a moment after the input are in the action's own
/// response: a debounced search (each key sets the timer again), an Enter
/// handler's timer (set on keydown, before the key's release), a menu that
/// opens 250 ms after mouseenter (also on a new document under a mouse
/// that has not moved), and a feed's next posts loaded by an intersection
/// observer after a scroll; the reply to a form posted to `/subscribe`
/// (a push channel's word, but a POST), and a view whose code loads under a
/// loading indicator for longer than a young request is waited for; a
/// toast that is gone by the time the page settles is told all the same.
#[test]
fn replies_on_a_short_timer_or_after_a_frame_are_in_the_response() {
    let files = FixtureServer::start();
    let url = files.url("living/replies.html");
    let mut client = stdio(&[]);
    let page = client.ok("browser_navigate", json!({"url": url}));
    let find = ref_in(&page, "textbox \"Find a trail\"");
    let typed = client.ok("browser_type", json!({"target": find, "text": "ri", "slowly": true}));
    assert!(typed.contains("River walk") && typed.contains("Ridge loop"), "{typed}");
    assert!(!typed.contains("Summit path"), "{typed}");

    let ask = ref_in(&page, "textbox \"Ask a ranger\"");
    client.ok("browser_fill", json!({"target": ask, "value": "Is the pass open?"}));
    let (answered, took) = timed(&mut client, "browser_press_key", json!({"key": "Enter"}));
    assert!(
        answered.contains("The ranger answered: Is the pass open?"),
        "{answered}"
    );
    assert_within("the Enter reply", took, Duration::from_secs(3), &answered);

    for visit in ["first", "second"] {
        if visit == "second" {
            // A new document; the mouse is still where the first hover left it.
            client.ok("browser_navigate", json!({"url": url}));
        }
        let hovered = client.ok("browser_hover", json!({"target": "#trails"}));
        assert!(hovered.contains("Alpine trails"), "{visit} hover: {hovered}");
    }

    let email = ref_in(&page, "textbox \"Newsletter email\"");
    client.ok("browser_fill", json!({"target": email, "value": "ada@example.com"}));
    // The hover menu is still open above the form: moving the mouse to the
    // button closes it and shifts the page up, and the press must follow.
    let subscribed = click_on(&mut client, &page, "button \"Subscribe\"");
    assert!(
        subscribed.contains("You are subscribed"),
        "a POST to /subscribe: {subscribed}"
    );
    let shown = click_on(&mut client, &page, "button \"Show the map\"");
    assert!(
        shown.contains("Map of the Alpine trails"),
        "code loaded under a spinner: {shown}"
    );

    // An answer slower than a request is waited for, with nothing saying it
    // is coming: the step returns, and says what is still loading.
    let asked = click_on(&mut client, &page, "button \"Check the weather\"");
    assert!(
        asked.contains("it started request /__slow/api/weather?ms=3000, which was still loading"),
        "{asked}"
    );
    let planned = click_on(&mut client, &page, "button \"Plan a trip\"");
    assert!(
        planned.contains("Trip planned for Saturday"),
        "two links of timers: {planned}"
    );

    // A toast cleared 600 ms later: waited out, and still told.
    for time in ["first", "second"] {
        // (The same message again is a new one: told again.)
        let saved = click_on(&mut client, &page, "button \"Save this route\"");
        assert!(
            saved.contains("a status message said \"Route saved to your list\" and is gone by now"),
            "{time} save: {saved}"
        );
    }

    let copied = click_on(&mut client, &page, "button \"Copy the link\"");
    assert!(
        copied.contains("a status message said \"Link copied\" and is gone by now"),
        "a toast in a portal: {copied}"
    );
    let archived = click_on(&mut client, &page, "button \"Archive the trip\"");
    assert!(
        archived.contains("a status message said \"Trip archived\" and is gone by now"),
        "a toast with no role, named by its class: {archived}"
    );

    let prepared = click_on(&mut client, &page, "button \"Prepare the GPX file\"");
    assert!(
        prepared.contains("GPX file ready"),
        "a body slower than its headers, under a spinner: {prepared}"
    );

    let started = Instant::now();
    let guided = click_on(&mut client, &page, "button \"Ask the guide\"");
    assert_within(
        "a slow body with nothing saying it comes",
        started.elapsed(),
        Duration::from_secs(3),
        &guided,
    );
    assert!(guided.contains("which was still loading"), "{guided}");

    let scrolled = client.ok("browser_scroll", json!({"direction": "bottom"}));
    assert!(scrolled.contains("Trip report 9"), "the next posts: {scrolled}");
    // A client-side route change keeping the old view while its data
    // loads (1.8 s, no indicator): the user waits for the next view.
    // So does a hash router's (#/boots; a jump to an anchor is no route).
    for page in ["living/slow-route.html", "living/slow-route.html?router=hash"] {
        let home = client.ok("browser_navigate", json!({"url": files.url(page)}));
        let routed = click_on(&mut client, &home, "link \"Boots\"");
        assert!(routed.contains("Alpine Boot, $189"), "{page}: {routed}");
    }
    // A dummy link's `#/` is no route: its slow request is not waited for.
    let home = client.ok("browser_navigate", json!({"url": files.url("living/slow-route.html")}));
    let dummy = click_on(&mut client, &home, "link \"Top\"");
    assert!(
        !dummy.contains("Top counted") && dummy.contains("still loading"),
        "{dummy}"
    );
}

/// A page polling its own API back to back (a job's status, each request
/// young for most of its life) holds no step once the poll is learned: a
/// click took 10 s (its budget, then the response's snapshot's).
#[test]
fn a_page_polling_its_own_api_holds_no_step() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    let page = client.ok("browser_navigate", json!({"url": files.url("living/status-poll.html")}));
    let like = ref_in(&page, "button \"Like\"");
    let (liked, took) = timed(&mut client, "browser_click", json!({"target": like}));
    assert!(liked.contains("1 like") && !liked.contains("still busy"), "{liked}");
    assert_within("a click on a polling page", took, Duration::from_secs(3), &liked);
    let (shown, took) = timed(&mut client, "browser_snapshot", json!({}));
    assert_within("a snapshot on a polling page", took, Duration::from_secs(2), &shown);
}

/// Results from another site's API (a search service) under a progress bar
/// are waited for: the step returned at once with the bar. Without an
/// indicator such a request (an analytics call, as far as anyone can tell)
/// holds nothing.
#[test]
fn another_sites_api_under_a_loading_indicator_is_waited_for() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    let page = client.ok("browser_navigate", json!({"url": files.url("living/elsewhere.html")}));
    let (found, took) = timed(
        &mut client,
        "browser_click",
        json!({"target": ref_in(&page, "button \"Search\"")}),
    );
    assert!(
        found.contains("3 trips found") && found.contains("Glacier Walk"),
        "{found}"
    );
    assert!(took >= Duration::from_millis(1400), "{took:?}");
    let page = client.ok(
        "browser_navigate",
        json!({"url": files.url("living/elsewhere.html?busy=none")}),
    );
    let (quiet, took) = timed(
        &mut client,
        "browser_click",
        json!({"target": ref_in(&page, "button \"Search\"")}),
    );
    assert_within(
        "another site's request with no indicator",
        took,
        Duration::from_millis(1200),
        &quiet,
    );
}

/// What renders when a step's animation ends is in the reply: a dialog's
/// body after its entrance (Bootstrap's way), content after a Web
/// Animations fade, and an idle callback's list. A slow hover effect on
/// the clicked button, or a colour fading elsewhere, is not waited for.
#[test]
fn content_rendered_when_an_animation_ends_is_in_the_reply() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    let page = client.ok("browser_navigate", json!({"url": files.url("living/motion.html")}));
    let promo = click_on(&mut client, &page, "button \"Open the promo\"");
    assert!(promo.contains("Apply SAVE10"), "after transitionend: {promo}");
    let plan = click_on(&mut client, &page, "button \"Open the plan\"");
    assert!(plan.contains("Confirm the plan"), "after finished: {plan}");
    let idle = click_on(&mut client, &page, "button \"Render when idle\"");
    assert!(idle.contains("Idle list ready"), "an idle callback: {idle}");
    for (button, said) in [
        ("Lift the card", "Card lifted"),
        ("Mark as read", "Offers marked as read"),
    ] {
        let (text, took) = timed(
            &mut client,
            "browser_click",
            json!({"target": ref_in(&page, &format!("button \"{button}\""))}),
        );
        assert!(text.contains(said), "{text}");
        // (Each effect lasts 950 ms.)
        assert_within(button, took, Duration::from_millis(700), &text);
    }
}

/// A list rendered in chunks (a frame's or a timer's worth of rows at a
/// time) is waited for to its end, though its cadence reads as a beat and
/// its last rows fall below the viewport: steps returned with a third.
#[test]
fn a_list_rendered_in_chunks_is_waited_for() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    // The list's last element is a button: the hint below the tree tells it is there.
    let whole = "1 interactive element below the viewport";
    let opened = client.ok(
        "browser_navigate",
        json!({"url": files.url("living/chunks.html?how=frame&auto=1")}),
    );
    assert!(opened.contains(whole), "rendered on open: {opened}");
    // A frame's rows at a time; a timer's, 30 ms apart; a timer's, 120 ms
    // apart (the second chunk comes after the first looked settled).
    // And a framework's, rendered in a microtask after the timer that set
    // the next one.
    for how in [
        "how=frame",
        "how=timer&gap=30",
        "how=timer&gap=120&per=10",
        "how=micro&gap=120&per=10",
    ] {
        let page = client.ok(
            "browser_navigate",
            json!({"url": files.url(&format!("living/chunks.html?{how}"))}),
        );
        let shown = click_on(&mut client, &page, "button \"Show the stages\"");
        assert!(shown.contains(whole), "{how}: {shown}");
    }
    // A feed growing since before the step is not waited for (each
    // snapshot took 0.8 s).
    client.ok(
        "browser_navigate",
        json!({"url": files.url("living/chunks.html?feed=1")}),
    );
    for _ in 0..2 {
        let (shown, took) = timed(&mut client, "browser_snapshot", json!({}));
        assert_within(
            "a snapshot beside a growing feed",
            took,
            Duration::from_millis(600),
            &shown,
        );
    }
}

/// A callback that sets itself again (a typewriter's, every 40 ms) makes a
/// growing list one being filled only when its own runs grew it: beside a
/// click that adds one row, the main-world hook does not count it (the
/// step waited 300 ms more), and a list filled from such a callback is
/// still waited for (above).
#[test]
fn a_ticker_beside_one_added_row_is_no_list_being_filled() {
    let files = FixtureServer::start();
    let mut client = stdio(&["--caps", "evaluate"]);
    let page = client.ok(
        "browser_navigate",
        json!({"url": files.url("living/chunks.html?ticker=1")}),
    );
    let added = click_on(&mut client, &page, "button \"Add a stage\"");
    assert!(added.contains("Extra stage"), "{added}");
    // The hook's answer to the engine (the 8th field: ms to the nearest
    // self-set callback whose run grew the list, -1: none), for a growth
    // when the row was added, and one just after a typewriter run.
    let ask = |growth: &str| {
        format!(
            "() => new Promise((done) => {{ document.addEventListener('__sightline_timers_state', (e) => \
done(e.detail.split(',')[7]), {{ once: true }}); document.dispatchEvent(new CustomEvent('__sightline_timers', \
{{ detail: '60000,' + {growth} }})); }})"
        )
    };
    let row = client.ok("browser_evaluate", json!({"function": ask("window.addedAt")}));
    assert!(row.contains("\"-1\""), "the row was the click's: {row}");
    let ticker = client.ok("browser_evaluate", json!({"function": ask("window.typedAt")}));
    assert!(
        !ticker.contains("\"-1\""),
        "a growth from the ticker's run counts: {ticker}"
    );
}

/// A reply streaming into the page (a chat answer, a word every 80 ms for
/// 2.4 s, plain or as server-sent events) is waited for to its end: the
/// step returned with a third of it, or a few words.
#[test]
fn a_reply_streaming_in_is_waited_for() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    for button in ["Ask about the pass", "Ask about the weather", "Ask about the trail"] {
        let page = client.ok("browser_navigate", json!({"url": files.url("living/chat.html")}));
        let (answered, took) = timed(
            &mut client,
            "browser_click",
            json!({"target": ref_in(&page, &format!("button \"{button}\""))}),
        );
        assert!(
            answered.contains("word29") && answered.contains("Answer complete"),
            "{button}: {answered}"
        );
        assert!(!answered.contains("still busy"), "{answered}");
        assert_within(button, took, Duration::from_millis(4500), &answered);
    }
    // A live feed read through fetch (a GET that keeps coming) is shown as
    // it comes: neither the open that starts it nor a click that does
    // waits for it (each took the whole budget).
    let (page, took) = timed(
        &mut client,
        "browser_navigate",
        json!({"url": files.url("living/chat.html?live=1")}),
    );
    assert_within("an open with a live feed", took, Duration::from_millis(2500), &page);
    let page = client.ok("browser_navigate", json!({"url": files.url("living/chat.html")}));
    let (watched, took) = timed(
        &mut client,
        "browser_click",
        json!({"target": ref_in(&page, "button \"Watch the river level\"")}),
    );
    assert_within(
        "a click that starts a live feed",
        took,
        Duration::from_millis(2500),
        &watched,
    );
}

/// A tab the page opens (a popup, a link to a new tab) shows its content
/// at the first look: its API call started before the tab was followed,
/// under a skeleton, and the snapshot returned with the skeleton.
#[test]
fn a_new_tabs_first_look_waits_for_its_loading_indicator() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    for (opener, tab) in [("button \"Open the offer\"", 1), ("link \"The offer in a new tab\"", 2)] {
        let page = client.ok(
            "browser_navigate",
            json!({"url": files.url("living/popup-opener.html")}),
        );
        let opened = click_on(&mut client, &page, opener);
        assert!(opened.contains("(new) [Your offer]"), "{opened}");
        client.ok("browser_tabs", json!({"action": "select", "index": tab}));
        let (shown, took) = timed(&mut client, "browser_snapshot", json!({}));
        assert!(shown.contains("20% off the Alpine Boot"), "{opener}: {shown}");
        assert_within(opener, took, Duration::from_secs(3), &shown);
        client.ok("browser_tabs", json!({"action": "select", "index": 0}));
    }
}

/// A frame of the page's own site that fetches its content (a checkout's
/// payment form) is part of the page: its form is in the first response,
/// on opening and when a click adds the frame.
#[test]
fn an_own_site_frames_content_is_waited_for() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    let page = client.ok("browser_navigate", json!({"url": files.url("living/checkout.html")}));
    assert!(page.contains("textbox \"Card number\""), "{page}");
    let added = click_on(&mut client, &page, "button \"Pay with a gift card\"");
    assert_eq!(
        added.matches("textbox \"Card number\"").count(),
        1,
        "the new frame's: {added}"
    );
    assert!(!added.contains("Loading the payment form"), "{added}");
}

/// A Bootstrap-style modal (a full-viewport layer that lands under the
/// pointer, focus moved into it) renders its body when its entrance ends,
/// and a row removed when its exit ends, its Delete inside it: both are in
/// the reply (they were missed: the animation was taken for the pointer's
/// or the focus's own effect).
#[test]
fn what_an_awaited_animation_brings_is_in_the_reply() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    let url = files.url("living/modal-motion.html");
    let page = client.ok("browser_navigate", json!({"url": url}));
    let deleted = click_on(&mut client, &page, "button \"Delete parcel 2\"");
    let removed = |line: &str| line.starts_with('-') && line.contains("button \"Delete parcel 2\"");
    assert!(deleted.lines().any(removed), "the row is gone: {deleted}");
    let page = client.ok("browser_navigate", json!({"url": url}));
    let opened = click_on(&mut client, &page, "button \"Open order\"");
    assert!(opened.contains("Confirm order"), "{opened}");
}

/// An interstitial's one-second meta refresh is waited for: the step
/// returns with the page it leads to.
#[test]
fn a_meta_refresh_due_soon_is_followed() {
    let files = FixtureServer::start();
    let mut client = stdio(&[]);
    // (The browser's start is not the refresh's time: on a loaded 2-core
    // machine it took the first call past the bound.)
    client.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let (page, took) = timed(
        &mut client,
        "browser_navigate",
        json!({"url": files.url("living/interstitial.html")}),
    );
    assert!(
        page.contains("Trip offers") && !page.contains("Redirecting you"),
        "{page}"
    );
    assert_within("the refresh", took, Duration::from_secs(4), &page);
    // A page that reloads itself every second is not on its way anywhere
    // (its open took 10 s).
    let (page, took) = timed(
        &mut client,
        "browser_navigate",
        json!({"url": files.url("living/refresh-self.html")}),
    );
    assert!(page.contains("Bus 42"), "{page}");
    assert_within("a page refreshing itself", took, Duration::from_millis(1500), &page);
}

/// A request that never ends under a spinner costs one budget: the
/// navigation waits it out, and neither its reply's snapshot nor the next
/// call waits for it again.
#[test]
fn a_wait_that_ran_out_is_not_waited_again() {
    let files = FixtureServer::start();
    let mut client = stdio(&["--ready-timeout", "2000"]);
    // The browser starts with the first call: not timed.
    client.ok("browser_navigate", json!({"url": files.url("short.html")}));
    let url = files.url("living/stuck.html");
    let (page, took) = timed(&mut client, "browser_navigate", json!({"url": url}));
    assert!(page.contains("Loading your orders"), "{page}");
    // The navigation says so, as an action does (it was silent).
    assert!(
        page.contains("the page was still busy after 2.0s (waiting on request"),
        "{page}"
    );
    assert!(
        took >= Duration::from_millis(1900),
        "the budget is waited out: {took:?}"
    );
    assert_within(
        "the navigation and its snapshot",
        took,
        Duration::from_millis(3500),
        &page,
    );
    let (again, took) = timed(&mut client, "browser_snapshot", json!({}));
    assert_within("the next snapshot", took, Duration::from_millis(1500), &again);

    // A step that runs out of budget still tells what its toast said.
    let retried = click_on(&mut client, &again, "button \"Try again\"");
    assert!(
        retried.contains("still busy")
            && retried.contains("a status message said \"Asking the orders service again\" and is gone by now"),
        "{retried}"
    );
}

/// The older waits stay available: `load` waits for the load event after
/// navigations, `networkidle` for 500 ms without requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_older_waits_are_choices() {
    with_timeout("wait-until", async {
        let files = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.unwrap();
        let slow_image = files.url("living/slow-image.html");

        let t = Instant::now();
        page.goto(&slow_image).await.unwrap();
        let ready = t.elapsed();
        assert!(
            ready < Duration::from_millis(1500),
            "ready did not wait for the image: {ready:?}"
        );

        page.set_wait_until(WaitUntil::Load);
        let t = Instant::now();
        page.goto(&slow_image).await.unwrap();
        let loaded = t.elapsed();
        assert!(
            loaded >= Duration::from_millis(1900),
            "load waited for the image: {loaded:?}"
        );
        assert_eq!(
            page.evaluate("document.readyState").await.unwrap(),
            serde_json::json!("complete")
        );

        // Beacons every 400 ms: the network is never idle for 500 ms.
        page.set_wait_until(WaitUntil::NetworkIdle);
        page.set_ready_timeout(Duration::from_millis(1500));
        page.goto(&files.url("living/beacons.html")).await.unwrap();
        let report = page.wait_ready().await.unwrap();
        assert!(report.timed_out, "{report:?}");
        page.set_wait_until(WaitUntil::Ready);
        let report = page.wait_ready().await.unwrap();
        assert!(!report.timed_out && report.pending.is_empty(), "{report:?}");

        // A step's request that takes longer than a content request's young
        // age holds the step while the page shows a loading indicator.
        page.set_ready_timeout(Duration::from_secs(5));
        page.goto(&files.url("living/search.html?api=2200")).await.unwrap();
        let t = Instant::now();
        page.click("button").await.unwrap();
        let took = t.elapsed();
        let status = page
            .evaluate("document.getElementById('results').textContent")
            .await
            .unwrap();
        assert!(
            status.as_str().unwrap_or("").contains("Alpine Hut Weekend"),
            "{status} after {took:?}"
        );
        assert!(took >= Duration::from_millis(2000), "{took:?}");
        // So do the indicators of the common component libraries (MUI's
        // skeleton, Tailwind's animate-spin and animate-pulse, Bootstrap's
        // placeholders) and a "Fetching…" line: the step returned at the
        // young request's age with none of the results.
        for busy in ["mui", "tailwind", "pulse", "bootstrap", "fetching"] {
            page.goto(&files.url(&format!("living/search.html?api=2200&busy={busy}")))
                .await
                .unwrap();
            page.click("button").await.unwrap();
            let results = page
                .evaluate("document.getElementById('results').textContent")
                .await
                .unwrap();
            assert!(
                results.as_str().unwrap_or("").contains("Alpine Hut Weekend"),
                "{busy}: {results}"
            );
        }

        // A frame still loading is marked in the snapshot.
        page.goto(&files.url("living/article-ad.html")).await.unwrap();
        let snap = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert!(
            snap.tree.contains("iframe \"Advertisement\" [loading]"),
            "{}",
            snap.tree
        );
        browser.close().await.unwrap();
    })
    .await;
}

/// Frames the page asks for count as its reaction to a step only when asked
/// for outside a frame callback: an animation loop (the spinner of
/// `living/reactions.html`) never counts, a click handler's frame does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_animation_loop_is_no_reaction() {
    with_timeout("frame accounting", async {
        let files = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.unwrap();
        page.goto(&files.url("living/reactions.html")).await.unwrap();
        // The hook's report (`count,next,consent,framesDue,ranAgo`) of the
        // last 300 ms, read as the engine reads it; then a click on Save
        // asks for one frame, read before that frame is drawn.
        const FRAMES_DUE: &str = "new Promise((r) => { \
            document.addEventListener('__sightline_timers_state', (e) => r(e.detail.split(',')[3]), { once: true }); \
            document.dispatchEvent(new CustomEvent('__sightline_timers', { detail: 300 })); })";
        for _ in 0..10 {
            let due = page.evaluate(FRAMES_DUE).await.unwrap();
            assert_eq!(due, "0", "the spinner's loop counted as a reaction");
            tokio::time::sleep(Duration::from_millis(7)).await;
        }
        let clicked = format!("document.getElementById('frame').click(); {FRAMES_DUE}");
        assert_eq!(page.evaluate(&clicked).await.unwrap(), "1");
        browser.close().await.unwrap();
    })
    .await;
}
