//! Hybrid mode and the annotated screenshot: a DOM agent with the
//! coordinate tools and, beside every page message, the viewport with each
//! ref's box drawn and labelled; the same annotated screenshot from the
//! MCP screenshot tool (`annotate: true`), and the coordinate tools under
//! `--caps vision`.

use serde_json::{json, Value};
use sightline::{Agent, AgentMode, AgentOptions};
use sightline_testkit::{LlmServer, Png, Recorded, Reply};

use super::*;
use crate::support::mcp_client::{ref_in, stdio};
use crate::support::{ref_of, with_timeout};

/// A pixel is a label colour: saturated, unlike the page's greys.
fn saturated(p: [u8; 4]) -> bool {
    let max = p[0].max(p[1]).max(p[2]);
    let min = p[0].min(p[1]).min(p[2]);
    max - min > 90
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_agent_reads_labelled_refs_and_acts_at_points() {
    with_timeout("hybrid", async {
        let ctx = Ctx::new(1280, 720).await;
        let server = LlmServer::with_script(vec![
            Reply::tool("removeBlocker", json!({})),
            Reply::tool(
                "typeAt",
                json!({"x": EMAIL.0, "y": EMAIL.1, "text": ADDRESS, "submit": true}),
            ),
            // The drawing pad has no ref: only a point can reach a spot in it.
            Reply::tool("clickAt", json!({"x": 250, "y": 395})),
            Reply::tool(
                "done",
                json!({"reasoning": "Subscribed and marked the pad.", "taskComplete": true}),
            ),
        ]);
        let llm = llm("openai/gpt-4.1-mini", server.openai_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Hybrid,
            start_url: Some(ctx.url()),
            ..AgentOptions::default()
        };
        let result = Agent::new(&page, &llm, opts)
            .execute("Subscribe ada@example.org")
            .await
            .unwrap();
        assert!(result.success, "{}\n{:#?}", result.message, result.actions);
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS));
        let pad: Value = js(&page, "window.padClicks").await;
        assert_eq!(pad.as_array().unwrap().len(), 1, "{pad}");
        assert_eq!(pad[0][2], json!(true), "a trusted click");

        let reqs = server.requests();
        assert_eq!(reqs.len(), 4);
        let tools = reqs[0].tool_names();
        for t in ["click", "typeAt", "clickAt", "dragAt", "hoverAt", "scrollAt", "done"] {
            assert!(tools.iter().any(|n| n == t), "{t} offered: {tools:?}");
        }
        // After removeBlocker: the tree names the email field, and the
        // screenshot shows its box outlined in a label colour.
        let after = &reqs[1];
        let shots = after.screenshots();
        let shot: &Png = shots.last().expect("an annotated screenshot");
        assert_eq!((shot.width, shot.height), (1280, 720));
        let text = after.prompt_text();
        let email_line = text
            .lines()
            .rev()
            .find(|l| l.contains("textbox \"Email\""))
            .expect("the email field");
        assert!(ref_of(email_line).is_some(), "{email_line}");
        assert!(
            saturated(shot.pixel(100, 220)),
            "left border of #email: {:?}",
            shot.pixel(100, 220)
        );
        assert!(
            saturated(shot.pixel(101, 190)),
            "its label above it: {:?}",
            shot.pixel(101, 190)
        );
        assert!(!saturated(shot.pixel(300, 222)), "the inside is not painted");
        assert!(system_prompt_mentions_labels(&reqs[0]));
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// A viewport larger than the provider takes an image: the screenshot is
/// sent at its size (OpenAI: a short side of 768 px), and the model's
/// points, in that image's pixels, are mapped back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hybrid_screenshots_fit_the_provider_and_points_map_back() {
    with_timeout("hybrid large", async {
        let ctx = Ctx::new(1920, 1080).await;
        let scale = 768.0 / 1080.0;
        let shown = |p: (f64, f64)| ((p.0 * scale).round(), (p.1 * scale).round());
        let (close, email) = (shown(CLOSE), shown(EMAIL));
        let server = LlmServer::with_script(vec![
            // A point past the screenshot's edge is said in its pixels.
            Reply::tool("clickAt", json!({"x": 1400, "y": 50})),
            Reply::tool("clickAt", json!({"x": close.0, "y": close.1})),
            Reply::tool(
                "typeAt",
                json!({"x": email.0, "y": email.1, "text": ADDRESS, "submit": true}),
            ),
            Reply::tool("done", json!({"reasoning": "Subscribed.", "taskComplete": true})),
        ]);
        let llm = llm("openai/gpt-4.1-mini", server.openai_base_url());
        let page = ctx.browser.new_page().await.unwrap();
        let opts = AgentOptions {
            mode: AgentMode::Hybrid,
            start_url: Some(ctx.url()),
            ..AgentOptions::default()
        };
        let result = Agent::new(&page, &llm, opts)
            .execute("Subscribe ada@example.org")
            .await
            .unwrap();
        assert!(result.success, "{}\n{:#?}", result.message, result.actions);
        assert_eq!(js(&page, "window.subscribed").await, json!(ADDRESS));
        let first = server.requests()[0].screenshots();
        let shot = first.last().expect("an annotated screenshot");
        assert_eq!((shot.width, shot.height), (1365, 768));
        assert_eq!(
            result.actions[0].result,
            "(1400, 50) is outside the 1365×768 screenshot: give points in its pixels, from its top-left corner"
        );
        server.assert_no_malformed();
        ctx.browser.close().await.unwrap();
    })
    .await
}

/// Boxes are drawn as far as they show (a scroll box, overflow: hidden,
/// the viewport's edge cut them), and tags too crowded to place apart are
/// named.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotated_boxes_are_cut_to_what_shows() {
    with_timeout("annotate clipped", async {
        let ctx = Ctx::new(1280, 720).await;
        let page = ctx.browser.new_page().await.unwrap();
        page.goto(&ctx.files.url("cua/clipped.html")).await.unwrap();
        let shot = page.annotated_screenshot().await.unwrap();
        let rect_of = |name: &str| {
            let r = shot
                .snapshot
                .refs
                .iter()
                .find(|(_, i)| i.name == name)
                .map(|(r, _)| r.clone())
                .unwrap_or_else(|| panic!("{name}: {}", shot.snapshot.tree));
            shot.boxes.iter().find(|b| b.ref_ == r).expect("drawn").rect
        };
        let wide = rect_of("Wider than its box");
        assert!(wide.x + wide.width <= 401.0, "the scroll box ends at 401: {wide:?}");
        let cut = rect_of("A link cut by its box");
        assert!(cut.x + cut.width <= 700.5, "overflow: hidden ends at 700: {cut:?}");
        let edge = rect_of("Half out");
        assert!(edge.x + edge.width <= 1280.0, "the viewport ends at 1280: {edge:?}");
        assert!(
            !shot.crowded.is_empty(),
            "24 one-letter links 2 px apart: {:?}",
            shot.boxes
        );
        // Not cut by what does not clip them: an inline span's overflow, an
        // overflow: hidden bar below a positioned item's containing block.
        let span = rect_of("A link in a truncating span");
        assert!(span.width > 50.0 && span.height > 10.0, "{span:?}");
        let item = rect_of("An item of an open menu");
        assert!(item.y >= 639.0 && item.height > 10.0, "{item:?}");
        // What a layer covers (a cookie banner, no dialog) gets no label: a
        // model that picks it from the picture would click the layer.
        js(
            &page,
            "document.body.insertAdjacentHTML('beforeend', '<div style=\"position:fixed;inset:0;background:#222\">\
             </div>')",
        )
        .await;
        let covered = page.annotated_screenshot().await.unwrap();
        let labelled: Vec<&str> = covered.boxes.iter().map(|b| b.ref_.as_str()).collect();
        assert!(labelled.is_empty(), "nothing shows but the layer: {labelled:?}");
        ctx.browser.close().await.unwrap();
    })
    .await
}

fn system_prompt_mentions_labels(r: &Recorded) -> bool {
    r.prompt_text()
        .contains("its ref (e12) written at the box's top-left corner")
}

/// The base64 data of the last image in an MCP transcript.
fn last_image(transcript: &str) -> Png {
    Png::from_base64(&last_image_base64(transcript)).unwrap()
}

/// The last image a tool answered with, as the base64 the client got.
fn last_image_base64(transcript: &str) -> String {
    let messages: Value = serde_json::from_str(transcript).unwrap();
    let mut data = None;
    for m in messages.as_array().unwrap() {
        let content = &m["m"]["result"]["content"];
        for c in content.as_array().into_iter().flatten() {
            if c["type"] == "image" {
                data = c["data"].as_str().map(str::to_string);
            }
        }
    }
    data.expect("an image in the transcript")
}

#[test]
fn mcp_screenshot_annotates_refs_and_vision_caps_click_at_points() {
    let files = sightline_testkit::FixtureServer::start();
    let mut client = stdio(&["--caps", "vision", "--viewport", "1280x720"]);
    let names = client.tool_names();
    for t in [
        "browser_mouse_click_xy",
        "browser_mouse_drag_xy",
        "browser_mouse_move_xy",
        "browser_type_xy",
        "browser_mouse_down",
        "browser_mouse_up",
        "browser_key_down",
        "browser_key_up",
    ] {
        assert!(names.iter().any(|n| n == t), "{t}: {names:?}");
    }
    let page = client.ok("browser_navigate", json!({"url": files.url("cua/newsletter.html")}));
    let close = ref_in(&page, "button \"Close\"");
    let shot = client.call("browser_take_screenshot", json!({"annotate": true}));
    assert!(!shot.is_error && shot.images == 1, "{}", shot.text);
    assert!(
        shot.text.contains(&close),
        "the labels are the snapshot's refs: {}",
        shot.text
    );
    let png = last_image(&client.transcript());
    assert_eq!((png.width, png.height), (1280, 720));
    // The close button (840..880 × 170..210) is outlined.
    assert!(saturated(png.pixel(840, 190)), "{:?}", png.pixel(840, 190));
    let refused = client.call("browser_take_screenshot", json!({"annotate": true, "fullPage": true}));
    assert!(
        refused.is_error || refused.text.contains("leave out"),
        "{}",
        refused.text
    );

    // Clicks at points: the promo's close button, then a spot on the pad.
    let clicked = client.ok("browser_mouse_click_xy", json!({"x": CLOSE.0, "y": CLOSE.1}));
    assert!(clicked.contains("on button \"Close\""), "{clicked}");
    assert!(!clicked.contains("A modal is open"), "{clicked}");
    client.ok(
        "browser_type_xy",
        json!({"x": EMAIL.0, "y": EMAIL.1, "text": ADDRESS, "submit": true}),
    );
    let state = client.ok("browser_snapshot", json!({}));
    assert!(state.contains("Subscribed: ada@example.org"), "{state}");

    // Scrolled by 150 px, the field sits at y 50..90 of the viewport: the
    // point is the viewport's, and so is the element named under it.
    let wheeled = client.ok("browser_mouse_wheel", json!({"x": 300, "y": 400, "deltaY": 150}));
    assert!(wheeled.contains("page at y=150 of"), "{wheeled}");
    let clicked = client.ok("browser_mouse_click_xy", json!({"x": 300, "y": 70}));
    assert!(clicked.contains("on textbox \"Email\""), "{clicked}");
    // Text aimed at empty space is not typed, and not said to be.
    let typed = client.call("browser_type_xy", json!({"x": 800, "y": 600, "text": "lost words"}));
    assert!(typed.is_error && typed.text.contains("typed nothing"), "{}", typed.text);
    // A point below the viewport is a mixed-up coordinate, not a click.
    let outside = client.call("browser_mouse_click_xy", json!({"x": 320, "y": 1250}));
    assert!(
        outside.is_error && outside.text.contains("outside the 1280×720 viewport"),
        "{}",
        outside.text
    );

    // The wheel says what it moved: a box under the point, or nothing.
    client.ok("browser_navigate", json!({"url": files.url("cua/clipped.html")}));
    let inner = client.ok("browser_mouse_wheel", json!({"x": 250, "y": 175, "deltaX": 100}));
    assert!(inner.contains("scrolled div#scroller to x=100 of"), "{inner}");
    // (Over a child that overflows but does not scroll: its scroll box moves.)
    let outer = client.ok("browser_mouse_wheel", json!({"x": 950, "y": 120, "deltaY": 60}));
    assert!(outer.contains("scrolled div#outer to y=60 of"), "{outer}");
    let still = client.ok("browser_mouse_wheel", json!({"x": 640, "y": 600, "deltaY": -100}));
    assert!(still.contains("nothing scrolled"), "{still}");
    // A click on no element is said as such (not as html with the page's text).
    let blank = client.ok("browser_mouse_click_xy", json!({"x": 640, "y": 600}));
    assert!(
        blank.contains("Clicked at (640, 600) on the page background"),
        "{blank}"
    );
    // A field in a closed shadow root: its host has the focus, and it types.
    let coded = client.ok("browser_type_xy", json!({"x": 800, "y": 515, "text": "4711"}));
    assert!(coded.contains("textbox \"Code\"") && coded.contains("4711"), "{coded}");

    // A tall page's full-page screenshot is no taller than a model's API
    // takes an image (the session commands, saving files, go to 16000).
    client.ok(
        "browser_navigate",
        json!({"url": files.url("sessions/edge.html?items=8000")}),
    );
    let tall = client.call("browser_take_screenshot", json!({"fullPage": true}));
    assert!(tall.text.contains("first 8000 px of"), "{}", tall.text);
    let png = last_image(&client.transcript());
    assert_eq!((png.width, png.height), (1280, 8000));
    // Nor of more bytes than one image may have (noise does not compress).
    client.ok("browser_navigate", json!({"url": files.url("cua/noise.html")}));
    let noisy = client.call("browser_take_screenshot", json!({"fullPage": true}));
    assert!(noisy.text.contains("px of 6000"), "{}", noisy.text);
    let base64 = last_image_base64(&client.transcript()).len();
    assert!(base64 <= 5_000_000, "{base64} characters of base64");
}
