//! Element actions on real controls in real Chromium. Every effect is read
//! back from the page (its DOM, its own event log via `evaluate`, or the
//! engine's `readValue`), never taken from the driver's answer.
//!
//! One browser for the whole file; the scenarios run one after the other,
//! each in a fresh tab, and all failures are reported together.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::support::*;
use futures::FutureExt;
use serde_json::{json, Value};
use sightline::cdp::browser_protocol::page::{CreateIsolatedWorldParams, GetFrameTreeParams};
use sightline::cdp::js_protocol::runtime::EvaluateParams;
use sightline::{
    ActionErrorKind, Browser, Error, LaunchOptions, Page, ScrollAmount, SnapshotOptions, Target, ViewportSize,
};

struct Ctx {
    browser: Browser,
    server: FixtureServer,
    other: FixtureServer,
}

impl Ctx {
    async fn open(&self, path: &str) -> Page {
        let page = self.browser.new_page().await.expect("new page");
        page.goto(&self.server.url(path)).await.expect("goto");
        page
    }
}

async fn eval(page: &Page, js: &str) -> Value {
    page.evaluate(js).await.unwrap_or_else(|e| panic!("evaluate {js}: {e}"))
}

async fn value_of(page: &Page, id: &str) -> Value {
    eval(page, &format!("document.getElementById('{id}').value")).await
}

/// Evaluates in a child frame (by URL fragment) through raw CDP, in a world of the test's own.
async fn frame_eval(page: &Page, url_part: &str, js: &str) -> Value {
    let tree = page
        .cdp()
        .execute(GetFrameTreeParams::default())
        .await
        .unwrap()
        .result
        .frame_tree
        .clone();
    let frame = tree
        .child_frames
        .unwrap_or_default()
        .into_iter()
        .find(|f| f.frame.url.contains(url_part))
        .unwrap_or_else(|| panic!("no frame with {url_part}"))
        .frame
        .id;
    let mut w = CreateIsolatedWorldParams::new(frame);
    w.world_name = Some("e2e-test-world".into());
    let ctx = page.cdp().execute(w).await.unwrap().result.execution_context_id;
    let mut p = EvaluateParams::new(js);
    p.context_id = Some(ctx);
    p.return_by_value = Some(true);
    let r = page.cdp().execute(p).await.unwrap();
    assert!(
        r.result.exception_details.is_none(),
        "{js}: {:?}",
        r.result.exception_details
    );
    r.result.result.value.clone().unwrap_or(Value::Null)
}

fn kind_of(e: &Error) -> &ActionErrorKind {
    match e {
        Error::Action { kind, .. } => kind,
        other => panic!("expected an action error, got {other:?}"),
    }
}

fn fixture(path: &str) -> PathBuf {
    fixtures_dir().join(path)
}

/// The ref of the first snapshot line containing `needle`.
async fn snap_ref(page: &Page, needle: &str) -> String {
    let snap = page.snapshot(&SnapshotOptions::default()).await.expect("snapshot");
    ref_with(&snap.tree, needle)
}

async fn form_controls(cx: &Ctx) {
    let page = cx.open("actions/form.html").await;
    page.fill("#name", "Ada Lovelace").await.expect("fill name");
    assert_eq!(value_of(&page, "name").await, "Ada Lovelace");
    let inputs = eval(&page, "events('input', 'name')").await;
    assert!(!inputs.as_array().unwrap().is_empty(), "no input event");
    assert!(
        inputs.as_array().unwrap().iter().all(|e| e["trusted"] == true),
        "{inputs}"
    );
    assert_eq!(eval(&page, "events('change', 'name').length").await, 1);

    page.fill("#email", "ada@example.com").await.expect("fill email");
    page.fill("#password", "s3cret!").await.expect("fill password");
    page.fill("#message", "Line one\nLine two")
        .await
        .expect("fill textarea");
    assert_eq!(value_of(&page, "email").await, "ada@example.com");
    assert_eq!(value_of(&page, "password").await, "s3cret!");
    assert_eq!(value_of(&page, "message").await, "Line one\nLine two");

    // type: real key events after the current content.
    page.type_into("#email", ".uk").await.expect("type");
    assert_eq!(value_of(&page, "email").await, "ada@example.com.uk");
    let keys = eval(
        &page,
        "events('keydown', 'email').map(e => e.key + ':' + e.trusted).join(' ')",
    )
    .await;
    assert_eq!(keys, ".:true u:true k:true");

    // fill with nothing clears.
    page.fill("#message", "").await.expect("clear");
    assert_eq!(value_of(&page, "message").await, "");

    // Checkboxes and radios: click only when needed, verified.
    page.check("#terms").await.expect("check");
    assert_eq!(eval(&page, "document.getElementById('terms').checked").await, true);
    let again = page.check("#terms").await.expect("check again");
    assert!(again.notes.iter().any(|n| n.contains("already checked")), "{again:?}");
    assert_eq!(
        eval(&page, "events('click', 'terms').length").await,
        1,
        "no second click"
    );
    page.uncheck("#news").await.expect("uncheck");
    assert_eq!(eval(&page, "document.getElementById('news').checked").await, false);
    page.check("#plan-pro").await.expect("radio");
    assert_eq!(
        eval(
            &page,
            "[document.getElementById('plan-free').checked, document.getElementById('plan-pro').checked]"
        )
        .await,
        json!([false, true])
    );
    let e = page.uncheck("#plan-pro").await.expect_err("a radio can't be unchecked");
    assert!(
        matches!(kind_of(&e), ActionErrorKind::Unsupported(m) if m.contains("radio")),
        "{e}"
    );

    // Native select, by label then by value; a bad option lists the real ones.
    let r = page
        .select_option("#country", &["Germany".into()])
        .await
        .expect("select by label");
    assert_eq!(r.value.as_deref(), Some("Germany"));
    assert_eq!(value_of(&page, "country").await, "de");
    page.select_option("#country", &["jp".into()])
        .await
        .expect("select by value");
    assert_eq!(value_of(&page, "country").await, "jp");
    assert!(
        eval(&page, "events('change', 'country').length")
            .await
            .as_u64()
            .unwrap()
            >= 2
    );
    let e = page
        .select_option("#country", &["Atlantis".into()])
        .await
        .expect_err("no such option");
    assert!(
        e.to_string().contains("no option \"Atlantis\"") && e.to_string().contains("France"),
        "{e}"
    );
    // fill on a <select> chooses the option.
    page.fill("#country", "France").await.expect("fill select");
    assert_eq!(value_of(&page, "country").await, "fr");

    // Files.
    page.set_input_files("#avatar", &[fixture("actions/upload-a.txt")])
        .await
        .expect("one file");
    assert_eq!(
        eval(&page, "document.getElementById('avatar').files[0].name").await,
        "upload-a.txt"
    );
    assert_eq!(eval(&page, "events('change', 'avatar').length").await, 1);
    // The snapshot says which file a file input holds.
    let tree = page.snapshot(&SnapshotOptions::default()).await.unwrap().tree;
    assert!(
        tree.lines()
            .any(|l| l.contains("- button ") && l.ends_with(": upload-a.txt")),
        "{tree}"
    );
    page.set_input_files(
        "#attachments",
        &[fixture("actions/upload-a.txt"), fixture("actions/upload-b.txt")],
    )
    .await
    .expect("two files");
    assert_eq!(
        eval(&page, "document.getElementById('attachments').files.length").await,
        2
    );
    let e = page
        .set_input_files(
            "#avatar",
            &[fixture("actions/upload-a.txt"), fixture("actions/upload-b.txt")],
        )
        .await
        .expect_err("single-file input");
    assert!(e.to_string().contains("takes one file"), "{e}");
    let e = page
        .set_input_files("#avatar", &[fixture("actions/no-such-upload.txt")])
        .await
        .expect_err("missing file");
    assert!(matches!(e, Error::NoSuchFile { .. }), "{e:?}");
    // A button in front of a hidden file input: the files go to the
    // chooser its click opens; a button that opens none says so.
    let picker = cx.open("actions/upload-button.html").await;
    let chose = picker
        .set_input_files("#pick", &[fixture("actions/upload-a.txt")])
        .await
        .expect("through the chooser");
    assert_eq!(
        eval(&picker, "document.getElementById('out').textContent").await,
        "Selected: upload-a.txt"
    );
    assert!(chose.notes.iter().any(|n| n.contains("file chooser")), "{chose:?}");
    let e = picker
        .set_input_files("#nothing", &[fixture("actions/upload-a.txt")])
        .await
        .expect_err("no chooser");
    assert!(
        e.to_string().contains("it was clicked, and opened no file chooser"),
        "{e}"
    );
    // A form's submit button is not pressed to find out: the file input is named.
    let e = picker
        .set_input_files("#send", &[fixture("actions/upload-a.txt")])
        .await
        .expect_err("a submit button");
    assert!(e.to_string().contains("the page's file input is input#photo"), "{e}");
    assert_eq!(eval(&picker, "location.hash").await, "", "the form was not sent");
    // The input it names is a selector that works as given, whatever its id holds.
    eval(&picker, "document.getElementById('photo').id = 'photo:main'").await;
    let e = picker
        .set_input_files("#send", &[fixture("actions/upload-a.txt")])
        .await
        .expect_err("a submit button");
    assert!(
        e.to_string().contains(r"the page's file input is input#photo\:main,"),
        "{e}"
    );
    picker
        .set_input_files(r"input#photo\:main", &[fixture("actions/upload-b.txt")])
        .await
        .expect("the advised selector");

    // Picker inputs get their value set (input + change).
    page.fill("#birthday", "2001-02-03").await.expect("date");
    page.fill("#volume", "8").await.expect("range");
    page.fill("#color", "#ff8800").await.expect("color");
    assert_eq!(value_of(&page, "birthday").await, "2001-02-03");
    assert_eq!(value_of(&page, "volume").await, "8");
    assert_eq!(value_of(&page, "color").await, "#ff8800");
    let tree = page.snapshot(&SnapshotOptions::default()).await.unwrap().tree;
    assert!(
        tree.lines().any(|l| l.ends_with(": #ff8800")),
        "the colour said: {tree}"
    );
    let e = page.fill("#birthday", "yesterday").await.expect_err("bad date");
    assert!(
        e.to_string()
            .contains("not a valid value for a date input (YYYY-MM-DD)"),
        "{e}"
    );
    assert_eq!(
        value_of(&page, "birthday").await,
        "2001-02-03",
        "a rejected value keeps the old one"
    );

    // Not editable, disabled: typed, immediate errors naming the element.
    let e = page.fill("#ro", "x").await.expect_err("readonly");
    assert_eq!(kind_of(&e), &ActionErrorKind::NotEditable);
    let started = Instant::now();
    let e = page.click("#delete").await.expect_err("disabled");
    assert_eq!(kind_of(&e), &ActionErrorKind::Disabled);
    assert!(started.elapsed() < Duration::from_secs(2), "disabled is not retried");
    assert!(e.to_string().contains("Delete account"), "{e}");
    assert_eq!(eval(&page, "events('click', 'delete').length").await, 0);

    // Keys: Control+A then Backspace clears; Shift+Tab moves focus back.
    page.fill("#name", "abc").await.unwrap();
    page.press(Some(Target::parse("#name")), &["Control+A".into(), "Backspace".into()])
        .await
        .expect("combo");
    assert_eq!(value_of(&page, "name").await, "");
    page.fill("#name", "Ada").await.unwrap();
    page.press(Some(Target::parse("#email")), &["Shift+Tab".into()])
        .await
        .expect("shift+tab");
    assert_eq!(eval(&page, "document.activeElement.id").await, "name");

    // The engine's readValue agrees with the page.
    assert_eq!(page.read_value("#email").await.unwrap(), "ada@example.com.uk");

    // Submit far below the fold: scrolled into view, trusted click.
    page.click("#submit").await.expect("submit");
    let sub = eval(&page, "window.submitted").await;
    assert_eq!(sub["submitter"], "submit", "{sub}");
    let d = &sub["data"];
    assert_eq!(d["name"], "Ada");
    assert_eq!(d["email"], "ada@example.com.uk");
    assert_eq!(d["password"], "s3cret!");
    assert_eq!(d["terms"], "yes");
    assert!(d.get("news").is_none(), "{d}");
    assert_eq!(d["plan"], "pro");
    assert_eq!(d["country"], "fr");
    assert_eq!(d["avatar"], "upload-a.txt:6");
    assert_eq!(d["attachments"], json!(["upload-a.txt:6", "upload-b.txt:12"]));
    assert_eq!(d["birthday"], "2001-02-03");
    // Enter in a field submits the form (implicit submission).
    page.press(Some(Target::parse("#email")), &["Enter".into()])
        .await
        .expect("enter");
    assert_eq!(eval(&page, "window.submitted.count").await, 2);
    page.close().await.unwrap();
}

/// Links and a button with no box of their own (content floated, placed
/// absolutely over its card, `display:contents`): each has a ref, and a
/// click by ref lands on its content.
async fn boxless_links(cx: &Ctx) {
    let page = cx.open("boxless-links.html").await;
    for (line, hash) in [
        (r#"link "Red shoes, $49""#, "#product"),
        (r#"link "Read: Storm closes the harbour""#, "#story"),
        (r#"link "Contents link""#, "#contents"),
    ] {
        let r = snap_ref(&page, line).await;
        page.click(r.as_str()).await.unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(eval(&page, "location.hash").await, hash, "{line}");
    }
    let r = snap_ref(&page, r#"button "Contents button""#).await;
    page.click(r.as_str()).await.expect("the contents button");
    assert_eq!(eval(&page, "window.pressed === true").await, true);
    // A link of one picture still loading: its ref is there already, and a
    // click waits for the picture (brought into view, when lazy).
    let page = cx.open("picture-links.html").await;
    assert_eq!(
        eval(&page, "[...document.images].every((i) => !i.complete)").await,
        true,
        "the pictures are still loading"
    );
    for (line, hash) in [(r#"link "Rain jacket""#, "#picture"), (r#"link "Far away""#, "#far")] {
        let r = snap_ref(&page, line).await;
        page.click(r.as_str()).await.unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(eval(&page, "location.hash").await, hash, "{line}");
    }
    // One in a closed menu is not visible: its picture will not come.
    page.set_action_timeout(Duration::from_millis(800));
    let e = page.click("#hidden-pic").await.expect_err("hidden");
    assert_eq!(kind_of(&e), &ActionErrorKind::NotVisible, "{e}");

    // A collapsed menu's items (no height, overflow clipped): out of sight,
    // not covered by what lies where they would show.
    let menu = cx.open("collapsed-menu.html").await;
    let tree = menu.snapshot(&SnapshotOptions::default()).await.unwrap().tree;
    for item in [r#"link "Laptops""#, r#"link "Phones""#] {
        assert!(!line_with(&tree, item).contains("[covered]"), "{tree}");
    }
    let phones = ref_of(line_with(&tree, r#"link "Phones""#)).unwrap();
    let e = menu.click(phones.as_str()).await.expect_err("clipped");
    assert_eq!(kind_of(&e), &ActionErrorKind::Clipped, "{e}");
    menu.click(snap_ref(&menu, r#"button "Products""#).await.as_str())
        .await
        .expect("open the menu");
    menu.click(snap_ref(&menu, r#"link "Phones""#).await.as_str())
        .await
        .expect("an item of the open menu");
    assert_eq!(eval(&menu, "location.hash").await, "#phones");
}

/// Players with the browser's controls are targets that say whether they
/// play; a click plays or pauses them, as their play button does (the
/// middle of an audio bar is its time scrubber).
async fn players(cx: &Ctx) {
    let page = cx.open("media/player.html").await;
    let tree = page.snapshot(&SnapshotOptions::default()).await.unwrap().tree;
    assert!(line_with(&tree, r#"audio "Anthem""#).ends_with(": paused"), "{tree}");
    assert!(line_with(&tree, r#"video "Clip""#).contains("[ref="), "{tree}");
    assert_eq!(tree.matches("- audio").count(), 1, "no controls, no player: {tree}");
    let anthem = snap_ref(&page, r#"audio "Anthem""#).await;
    let played = page.click(anthem.as_str()).await.expect("play");
    assert_eq!(played.value.as_deref(), Some("playing"), "{played:?}");
    assert_eq!(eval(&page, "anthem.paused").await, false);
    let tree = page.snapshot(&SnapshotOptions::default()).await.unwrap().tree;
    assert!(line_with(&tree, r#"audio "Anthem""#).ends_with(": playing"), "{tree}");
    let paused = page.click(anthem.as_str()).await.expect("pause");
    assert_eq!(paused.value.as_deref(), Some("paused"), "{paused:?}");
    assert_eq!(eval(&page, "anthem.paused").await, true);
    let clip = snap_ref(&page, r#"video "Clip""#).await;
    page.click(clip.as_str()).await.expect("play the clip");
    assert_eq!(eval(&page, "clip.paused").await, false);
}

/// A veil placed over the window from deep inside the content column is
/// named as the cover, not the column that holds it.
async fn cover_named(cx: &Ctx) {
    let page = cx.open("blockers/nested-veil.html").await;
    let e = page.click("#search").await.expect_err("covered");
    match kind_of(&e) {
        ActionErrorKind::Covered { selector, .. } => assert_eq!(selector, "div#veil", "{e}"),
        other => panic!("{other:?}"),
    }
}

async fn widgets(cx: &Ctx) {
    let page = cx.open("actions/widgets.html").await;
    // A custom dropdown: click to open, then click the option (by ref).
    page.click("#fruit").await.expect("open dropdown");
    assert_eq!(eval(&page, "document.getElementById('fruit-list').hidden").await, false);
    let banana = snap_ref(&page, r#"option "Banana""#).await;
    page.click(banana.as_str()).await.expect("click option");
    assert_eq!(
        eval(&page, "document.getElementById('fruit-value').textContent").await,
        "banana"
    );
    let e = page
        .select_option("#fruit", &["Apple".into()])
        .await
        .expect_err("not a native select");
    assert!(
        e.to_string().contains("not a native <select>; click it to open it"),
        "{e}"
    );
    // An autocomplete offers its options as text is typed.
    let e = page
        .select_option("#city", &["Paris".into()])
        .await
        .expect_err("an autocomplete");
    assert!(e.to_string().contains("type into it, then click the option"), "{e}");
    // A native select the page covers with its own widget (Tom Select):
    // the page reads the widget, so a choice made in the list underneath
    // would never reach it. Refused as covered, and nothing changed.
    let tom = cx.open("widgets/tom-select.html").await;
    let e = tom
        .select_option("#fruit", &["Banana".into()])
        .await
        .expect_err("covered by its widget");
    assert!(e.to_string().contains("covered by"), "{e}");
    // (Such a cover stays: the refusal does not wait out the 5 s action timeout.)
    match &e {
        sightline::Error::Action {
            waited_ms: Some(waited),
            ..
        } => assert!(*waited < 3_000, "waited {waited} ms"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        eval(&tom, "document.getElementById('fruit').tomselect.getValue()").await,
        ""
    );
    // Shoelace's checkbox and switch by ref: the click point is on their
    // slotted label text, which the hit test gives back as the component's
    // own host. That is not a cover (the click reaches the control).
    let sl = cx.open("widgets/shoelace-controls.html").await;
    let defined = Instant::now();
    while eval(&sl, "document.body.dataset.ready === '1'").await != true {
        assert!(
            defined.elapsed() < Duration::from_secs(20),
            "Shoelace's components were not defined"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for (line, tag) in [
        (r#"checkbox "Send me the newsletter""#, "sl-checkbox"),
        (r#"switch "Dark mode""#, "sl-switch"),
    ] {
        let r = snap_ref(&sl, line).await;
        sl.check(r.as_str())
            .await
            .unwrap_or_else(|e| panic!("check {tag}: {e}"));
        assert_eq!(
            eval(&sl, &format!("document.querySelector('{tag}').checked")).await,
            true,
            "{tag}"
        );
        sl.click(r.as_str())
            .await
            .unwrap_or_else(|e| panic!("click {tag}: {e}"));
        assert_eq!(
            eval(&sl, &format!("document.querySelector('{tag}').checked")).await,
            false,
            "{tag}"
        );
    }
    // A submit the browser refuses is said; one the page sent is not,
    // though the page emptied its required field afterwards.
    let form = cx.open("actions/validation.html").await;
    form.fill("#email", "not-an-address").await.expect("fill");
    let refused = form.click("#join").await.expect("click");
    assert!(
        refused
            .notes
            .iter()
            .any(|n| n.starts_with("the form was not sent: the browser refused Email: \"")),
        "{refused:?}"
    );
    form.fill("#task", "Buy milk").await.expect("fill");
    let sent = form.click("#add").await.expect("click");
    assert!(!sent.notes.iter().any(|n| n.contains("not sent")), "{sent:?}");
    assert_eq!(
        eval(&form, "document.getElementById('tasks').textContent").await,
        "Buy milk"
    );
    // A number field that refuses the text keeps the number it had.
    let order = cx.open("actions/order.html").await;
    order.fill("#qty", "3").await.expect("a number");
    let e = order.fill("#qty", "many").await.expect_err("not a number");
    assert!(e.to_string().contains("its number was put back"), "{e}");
    assert_eq!(eval(&order, "document.getElementById('qty').value").await, "3");
    // A slider of the page's own takes keys, and fill says so.
    let e = page.fill("#volume", "7").await.expect_err("a slider");
    assert!(e.to_string().contains("press ArrowRight or ArrowLeft"), "{e}");

    // contenteditable: fill replaces, type appends.
    page.fill("#editor", "Fresh notes").await.expect("fill editable");
    assert_eq!(
        eval(&page, "document.getElementById('editor').textContent").await,
        "Fresh notes"
    );
    page.type_into("#editor", " and more").await.expect("type editable");
    assert_eq!(
        eval(&page, "document.getElementById('editor').textContent").await,
        "Fresh notes and more"
    );
    assert!(eval(&page, "events('input', 'editor').every(e => e.trusted)").await == true);

    // ARIA switch: check/uncheck read aria-checked; a control that ignores clicks is reported.
    page.check("#wifi").await.expect("check switch");
    assert_eq!(
        eval(&page, "document.getElementById('wifi').getAttribute('aria-checked')").await,
        "true"
    );
    page.uncheck("#wifi").await.expect("uncheck switch");
    assert_eq!(
        eval(&page, "document.getElementById('wifi').getAttribute('aria-checked')").await,
        "false"
    );
    let e = page.check("#stuck").await.expect_err("no effect");
    assert!(matches!(kind_of(&e), ActionErrorKind::NoEffect(_)), "{e}");

    // hover: :hover styles apply, trusted mouseover.
    page.hover("#hover-target").await.expect("hover");
    assert_eq!(
        eval(&page, "getComputedStyle(document.getElementById('tip')).display").await,
        "inline"
    );
    assert!(eval(&page, "events('mouseover', 'hover-target').some(e => e.trusted)").await == true);

    page.double_click("#dbl").await.expect("double click");
    assert_eq!(
        eval(&page, "document.getElementById('dbl-count').textContent").await,
        "1"
    );

    // press without a target goes to the focused element.
    page.type_into("#keys", "hi").await.unwrap();
    page.press(None, &["Backspace".into()]).await.expect("press");
    assert_eq!(value_of(&page, "keys").await, "h");
    // Shift makes the shifted character, as on a keyboard.
    page.press(None, &["Shift+a".into(), "Shift+1".into()])
        .await
        .expect("press");
    assert_eq!(value_of(&page, "keys").await, "hA!");
    // The keypad types its digits, as the page's key events say; F13–F24 are keys too.
    page.evaluate("window.seenKeys = []; addEventListener('keydown', (e) => seenKeys.push(e.code + ':' + e.location))")
        .await
        .unwrap();
    page.press(None, &["Numpad7".into(), "NumpadAdd".into(), "F13".into()])
        .await
        .expect("press");
    assert_eq!(value_of(&page, "keys").await, "hA!7+");
    assert_eq!(eval(&page, "seenKeys.join()").await, "Numpad7:3,NumpadAdd:3,F13:0");
    page.close().await.unwrap();
}

async fn drag_and_drop(cx: &Ctx) {
    let page = cx.open("actions/dnd.html").await;
    let r = page.drag_and_drop("#h-a", "#h-c").await.expect("html5 drag");
    assert!(r.notes.iter().any(|n| n.contains("HTML5")), "{r:?}");
    assert_eq!(eval(&page, "order('html5')").await, "Bravo,Charlie,Alpha,Delta");
    assert_eq!(eval(&page, "dnd.html5Drops").await, 1);
    let r = page.drag_and_drop("#p-a", "#p-c").await.expect("pointer drag");
    assert!(r.notes.iter().any(|n| n.contains("pointer")), "{r:?}");
    assert_eq!(eval(&page, "order('pointer')").await, "Banana,Cherry,Apple,Date");
    assert!(eval(&page, "dnd.pointerMoves").await.as_u64().unwrap() >= 5);
    assert_eq!(eval(&page, "dnd.trusted").await, true);
    // Upwards, by refs... of list items found by selector: Delta onto Bravo.
    page.drag_and_drop("#h-d", "#h-b").await.expect("html5 drag up");
    assert_eq!(eval(&page, "order('html5')").await, "Delta,Bravo,Charlie,Alpha");
    // What is draggable has a ref: a model drags by the snapshot alone.
    let snap = page.snapshot(&SnapshotOptions::default()).await.expect("snapshot");
    let (alpha, delta) = (ref_with(&snap.tree, "Alpha"), ref_with(&snap.tree, "Delta"));
    // So has the drop zone (a drop listener): a column to drop onto.
    ref_with(&snap.tree, "list \"HTML5 list\"");
    page.drag_and_drop(alpha.as_str(), delta.as_str())
        .await
        .expect("drag by refs");
    assert_eq!(eval(&page, "order('html5')").await, "Alpha,Delta,Bravo,Charlie");
    // A dragstart that sets no data still drops, and the page takes input after.
    let r = page.drag_and_drop("#bare", "#bin").await.expect("a drag with no data");
    assert!(r.notes.iter().any(|n| n.contains("HTML5")), "{r:?}");
    assert_eq!(eval(&page, "dnd.bareDrops").await, 1);
    page.click("#after").await.expect("click after the drag");
    assert_eq!(eval(&page, "document.activeElement.id").await, "after");
    page.close().await.unwrap();
}

async fn shadow_dom(cx: &Ctx) {
    let page = cx.open("actions/shadow.html").await;
    page.fill("news-card >>> #inner-email", "s@x.io")
        .await
        .expect("fill in shadow");
    page.click("news-card >>> #inner-go").await.expect("click in shadow");
    assert_eq!(
        eval(&page, "document.getElementById('subscribed').textContent").await,
        "s@x.io"
    );
    // The same through refs.
    let field = snap_ref(&page, r#"textbox "Your email""#).await;
    page.fill(field.as_str(), "t@y.io").await.expect("fill by ref");
    let go = snap_ref(&page, r#"button "Subscribe""#).await;
    page.click(go.as_str()).await.expect("click by ref");
    assert_eq!(
        eval(&page, "document.getElementById('subscribed').textContent").await,
        "t@y.io"
    );
    page.close().await.unwrap();
}

async fn cross_origin_frame(cx: &Ctx) {
    let page = cx
        .open(&format!("actions/frame-host.html?xport={}", cx.other.port))
        .await;
    let snap = page.snapshot(&SnapshotOptions::default()).await.expect("snapshot");
    let pay = ref_with(&snap.tree, r#"button "Pay 12 €""#);
    let card = ref_with(&snap.tree, r#"textbox "Card number""#);
    assert!(
        pay.starts_with('f') && card.starts_with('f'),
        "frame refs: {pay} {card}"
    );

    let filled = page
        .fill(card.as_str(), "4242 4242 4242 4242")
        .await
        .expect("fill in frame");
    // Named as the snapshot named it, as in the main frame.
    assert_eq!(
        filled.element.as_deref(),
        Some(r#"textbox "Card number""#),
        "{filled:?}"
    );
    assert_eq!(
        frame_eval(&page, "frame-inner", "document.getElementById('card').value").await,
        "4242 4242 4242 4242"
    );
    // The iframe sits 900 px down, behind margin, border and padding: the
    // click must be translated through its content box exactly.
    page.click(pay.as_str()).await.expect("click in frame");
    assert_eq!(
        frame_eval(&page, "frame-inner", "document.getElementById('paid').textContent").await,
        "1"
    );
    let at: Value = serde_json::from_str(
        frame_eval(&page, "frame-inner", "document.body.dataset.click")
            .await
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let dx = at["x"].as_f64().unwrap() - at["cx"].as_f64().unwrap();
    let dy = at["y"].as_f64().unwrap() - at["cy"].as_f64().unwrap();
    assert!(
        dx.abs() <= 1.5 && dy.abs() <= 1.5,
        "click landed off centre by ({dx}, {dy}): {at}"
    );
    assert_eq!(
        eval(&page, "window.topClicks").await,
        0,
        "the top-level page got the click"
    );

    // A selector inside a frame picked by its <iframe>'s selector.
    page.click(Target::in_frame("#pay", "iframe#pay"))
        .await
        .expect("frame by selector");
    page.click(Target::in_frame("#pay", "f1"))
        .await
        .expect("frame by prefix");
    assert_eq!(
        frame_eval(&page, "frame-inner", "document.getElementById('paid').textContent").await,
        "3"
    );

    // Something over the iframe at the point: a typed error naming it, no click.
    eval(
        &page,
        "(() => { const v = document.createElement('div'); v.id = 'veil'; v.textContent = 'Please wait'; \
         v.style = 'position:fixed;inset:0;z-index:9;background:rgba(0,0,0,.2)'; document.body.appendChild(v); })()",
    )
    .await;
    page.set_action_timeout(Duration::from_millis(800));
    let e = page.click(pay.as_str()).await.expect_err("covered iframe");
    match kind_of(&e) {
        ActionErrorKind::Covered { selector, description } => {
            assert_eq!(selector, "div#veil", "{e}");
            assert!(description.contains("Please wait"), "{e}");
        }
        other => panic!("expected covered, got {other:?}: {e}"),
    }
    assert_eq!(
        frame_eval(&page, "frame-inner", "document.getElementById('paid').textContent").await,
        "3"
    );
    page.close().await.unwrap();
}

async fn hazards(cx: &Ctx) {
    let page = cx.open("actions/hazards.html").await;
    page.set_action_timeout(Duration::from_millis(1500));

    // A target that glides for 600 ms: the click waits until it is still, and lands.
    eval(&page, "startRun()").await;
    page.click("#runner").await.expect("moving target");
    assert_eq!(eval(&page, "window.clicks['Moving target']").await, 1);
    assert_eq!(
        eval(&page, "document.getElementById('runner').style.left").await,
        "300px"
    );

    // One that never stops: not stable, after the timeout, and never clicked.
    let started = Instant::now();
    let e = page.click("#spinner").await.expect_err("never stable");
    assert_eq!(kind_of(&e), &ActionErrorKind::NotStable, "{e}");
    assert!(started.elapsed() >= Duration::from_millis(1400), "gave up too early");
    assert!(e.to_string().contains("waited"), "{e}");
    assert_eq!(eval(&page, "window.clicks['Never still'] || 0").await, 0);

    // Covered by a consent overlay: the error names the overlay; accepting it unblocks.
    eval(&page, "showConsent()").await;
    let e = page.click("#pay").await.expect_err("covered");
    match kind_of(&e) {
        ActionErrorKind::Covered { selector, description } => {
            assert!(selector.contains("consent"), "{e}");
            assert!(description.contains("We use cookies"), "{e}");
        }
        other => panic!("expected covered, got {other:?}: {e}"),
    }
    assert_eq!(eval(&page, "window.clicks['Pay now'] || 0").await, 0);
    page.click("#accept").await.expect("accept");
    page.click("#pay").await.expect("uncovered");
    assert_eq!(eval(&page, "window.clicks['Pay now']").await, 1);

    // A link broken over two lines is neither covered nor missed: the
    // pointer aims at its first line box, not between them.
    let lines = eval(&page, "document.getElementById('wrapped').getClientRects().length").await;
    assert_eq!(lines, 2, "the fixture's link wraps");
    let snap = page.snapshot(&SnapshotOptions::default()).await.unwrap();
    let link = line_with(&snap.tree, r#"link "a link that wraps over two lines""#);
    assert!(!link.contains("[covered]"), "{link}");
    page.click(ref_of(link).unwrap().as_str()).await.expect("wrapped link");
    assert_eq!(eval(&page, "window.wrappedClicks").await, 1);

    // A stale ref after a re-render: an error, and no click on anything else.
    let old = snap_ref(&page, r#"button "Archive order 2""#).await;
    page.click("#rerender").await.expect("re-render");
    let e = page.click(old.as_str()).await.expect_err("stale");
    assert_eq!(kind_of(&e), &ActionErrorKind::StaleRef, "{e}");
    assert!(e.to_string().contains("stale"), "{e}");
    for n in 1..=3 {
        assert_eq!(
            eval(&page, &format!("window.clicks['Archive order {n}'] || 0")).await,
            0,
            "a wrong element was clicked"
        );
    }
    // An element with its own identity, swapped for an equal one, is acted
    // on through its replacement, and the result says so.
    let save = snap_ref(&page, r#"button "Save""#).await;
    let email = snap_ref(&page, r#"textbox "Email""#).await;
    let later = snap_ref(&page, r#"button "Later""#).await;
    eval(&page, "renderProfile('Save')").await;
    let done = page.click(save.as_str()).await.expect("the re-rendered Save");
    let said = done.element.unwrap_or_default();
    assert!(
        said.starts_with(r#"button "Save" (the page re-rendered"#) && said.contains("#save"),
        "{said}"
    );
    assert_eq!(eval(&page, "window.clicks['Save']").await, 1);
    page.fill(email.as_str(), "ada@example.com")
        .await
        .expect("the re-rendered field");
    assert_eq!(
        eval(&page, "document.querySelector('[name=email]').value").await,
        "ada@example.com"
    );
    eval(&page, "renderProfile('Save')").await;
    page.click(later.as_str()).await.expect("the re-rendered test id");
    assert_eq!(eval(&page, "window.clicks['Later']").await, 1);
    // The same id on another control is not the ref's element.
    eval(&page, "renderProfile('Delete account')").await;
    let e = page.click(save.as_str()).await.expect_err("another control");
    assert_eq!(kind_of(&e), &ActionErrorKind::StaleRef, "{e}");
    assert_eq!(eval(&page, "window.clicks['Delete account'] || 0").await, 0);
    let fresh = snap_ref(&page, r#"button "Archive order 2""#).await;
    assert_ne!(fresh, old);
    page.click(fresh.as_str()).await.expect("fresh ref");
    assert_eq!(eval(&page, "window.clicks['Archive order 2']").await, 1);
    let e = page.click("e999").await.expect_err("unknown ref");
    assert_eq!(kind_of(&e), &ActionErrorKind::UnknownRef, "{e}");
    // A ref from before a navigation never acts on the new document, even
    // though the new document has an element with the same ref number.
    let pay = snap_ref(&page, r#"button "Pay now""#).await;
    page.goto(&cx.server.url("actions/hazards.html")).await.unwrap();
    let e = page
        .click(pay.as_str())
        .await
        .expect_err("ref from the previous document");
    assert_eq!(kind_of(&e), &ActionErrorKind::StaleRef, "{e}");
    assert_eq!(eval(&page, "Object.keys(window.clicks).length").await, 0);
    let e = page.click("#nope").await.expect_err("missing selector");
    assert_eq!(kind_of(&e), &ActionErrorKind::NotFound);
    page.close().await.unwrap();
}

async fn scrolling(cx: &Ctx) {
    let page = cx.open("actions/scroll.html").await;
    let y = || eval(&page, "scrollY");
    page.scroll_into_view("#far").await.expect("scroll into view");
    let r = eval(&page, "(() => { const r = document.getElementById('far').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()").await;
    assert_eq!(r, true, "#far is not in view");

    let max = eval(
        &page,
        "document.documentElement.scrollHeight - document.documentElement.clientHeight",
    )
    .await
    .as_f64()
    .unwrap();
    page.scroll_to(None, 50.0).await.expect("scrollTo 50%");
    let at = y().await.as_f64().unwrap();
    assert!((at - max / 2.0).abs() <= 1.0, "scrollY {at}, expected {}", max / 2.0);
    let vh = eval(&page, "document.documentElement.clientHeight")
        .await
        .as_f64()
        .unwrap();
    page.next_chunk(None).await.expect("next chunk");
    assert!((y().await.as_f64().unwrap() - (at + vh)).abs() <= 1.0);
    page.prev_chunk(None).await.expect("prev chunk");
    assert!((y().await.as_f64().unwrap() - at).abs() <= 1.0);
    page.scroll(ScrollAmount::Pixels(-300.0))
        .await
        .expect("scroll up 300px");
    assert!((y().await.as_f64().unwrap() - (at - 300.0)).abs() <= 1.0);
    page.scroll(ScrollAmount::parse("down 50%").unwrap())
        .await
        .expect("scroll down 50%");
    assert!((y().await.as_f64().unwrap() - (at - 300.0 + vh / 2.0)).abs() <= 1.0);

    // An element's scroll container.
    let list_max = eval(
        &page,
        "(() => { const l = document.getElementById('list'); return l.scrollHeight - l.clientHeight; })()",
    )
    .await
    .as_f64()
    .unwrap();
    page.scroll_to(Some(Target::parse("#m3")), 100.0)
        .await
        .expect("container 100%");
    assert_eq!(
        eval(&page, "document.getElementById('list').scrollTop")
            .await
            .as_f64()
            .unwrap(),
        list_max
    );
    page.prev_chunk(Some(Target::parse("#list")))
        .await
        .expect("container prev chunk");
    let ch = eval(&page, "document.getElementById('list').clientHeight")
        .await
        .as_f64()
        .unwrap();
    assert_eq!(
        eval(&page, "document.getElementById('list').scrollTop")
            .await
            .as_f64()
            .unwrap(),
        list_max - ch
    );
    page.next_chunk(Some(Target::parse("#list")))
        .await
        .expect("container next chunk");
    assert_eq!(
        eval(&page, "document.getElementById('list').scrollTop")
            .await
            .as_f64()
            .unwrap(),
        list_max
    );
    page.close().await.unwrap();
}

/// Width and height from a PNG's IHDR.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    (be(16), be(20))
}

async fn page_tools(cx: &Ctx) {
    let page = cx.open("actions/scroll.html").await;
    let shot = page.screenshot().await.expect("viewport screenshot");
    assert_eq!(png_size(&shot), (1280, 720));
    let full = page.screenshot_full_page().await.expect("full page");
    let doc_h = eval(&page, "document.documentElement.scrollHeight")
        .await
        .as_u64()
        .unwrap() as u32;
    assert_eq!(png_size(&full), (1280, doc_h));

    // An element screenshot shows the element: paint a box and read a pixel back.
    eval(
        &page,
        "(() => { const d = document.createElement('div'); d.id = 'swatch'; \
         d.style = 'width:120px;height:80px;background:rgb(255,0,0);margin:2000px 0 0 50px'; \
         document.body.appendChild(d); })()",
    )
    .await;
    let el = page.screenshot_element("#swatch").await.expect("element screenshot");
    assert_eq!(png_size(&el), (120, 80));
    let b64 = {
        const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in el.chunks(3) {
            let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
            for i in 0..4 {
                if i <= c.len() {
                    s.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    };
    let pixel = eval(
        &page,
        &format!(
            "new Promise((r) => {{ const i = new Image(); i.onload = () => {{ const c = document.createElement('canvas'); \
             c.width = i.width; c.height = i.height; const g = c.getContext('2d'); g.drawImage(i, 0, 0); \
             r([...g.getImageData(60, 40, 1, 1).data]); }}; i.src = 'data:image/png;base64,{b64}'; }})"
        ),
    )
    .await;
    assert_eq!(
        pixel,
        json!([255, 0, 0, 255]),
        "the element screenshot is not the red box"
    );

    // evaluate in an isolated world: the DOM, not the page's globals, not the engine.
    eval(&page, "window.pageSecret = 42").await;
    let v = page
        .evaluate_isolated("[typeof window.pageSecret, typeof globalThis.__sightline, document.title]")
        .await
        .expect("isolated evaluate");
    assert_eq!(v, json!(["undefined", "undefined", "Scrolling"]));
    let v = page
        .evaluate_isolated("new Promise(r => setTimeout(() => r(document.querySelectorAll('#list p').length), 10))")
        .await
        .unwrap();
    assert_eq!(v, 40);

    // Viewport size and wait.
    page.set_viewport(ViewportSize {
        width: 800,
        height: 600,
    })
    .await
    .expect("viewport");
    assert_eq!(
        page.viewport().await.unwrap(),
        ViewportSize {
            width: 800,
            height: 600
        }
    );
    assert_eq!(png_size(&page.screenshot().await.unwrap()), (800, 600));
    let t = Instant::now();
    page.wait(Duration::from_millis(300)).await.unwrap();
    assert!(t.elapsed() >= Duration::from_millis(300));
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
async fn element_actions_on_real_controls() {
    with_timeout("actions suite", async {
        let (server, other) = FixtureServer::pair();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let cx = Ctx { browser, server, other };
        let mut failures = Vec::new();
        scenario("form controls", &mut failures, form_controls(&cx)).await;
        scenario("widgets", &mut failures, widgets(&cx)).await;
        scenario("links without a box", &mut failures, boxless_links(&cx)).await;
        scenario("the cover named", &mut failures, cover_named(&cx)).await;
        scenario("players", &mut failures, players(&cx)).await;
        scenario("drag and drop", &mut failures, drag_and_drop(&cx)).await;
        scenario("shadow DOM", &mut failures, shadow_dom(&cx)).await;
        scenario("cross-origin frame", &mut failures, cross_origin_frame(&cx)).await;
        scenario("hazards", &mut failures, hazards(&cx)).await;
        scenario("scrolling", &mut failures, scrolling(&cx)).await;
        scenario("page tools", &mut failures, page_tools(&cx)).await;
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
