//! DOM-layer tests: the real walk in a real browser page
//! (`wasm-pack test --headless --chrome engine-wasm`).
#![cfg(target_arch = "wasm32")]

use serde_json::Value;
use sightline_engine::adapter;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    install_dom_reads();
    web_sys::window().unwrap().document().unwrap()
}

/// The engine imports its batched DOM reads from `__sl_reads`, which the
/// bundle defines (js-glue/build-bundle.mjs). The test page has no bundle,
/// so the same source is installed here, before the engine's first call.
fn install_dom_reads() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let src = include_str!("../src/adapter/dom_reads.js");
        js_sys::eval(&format!("globalThis.__sl_reads = {src};")).expect("dom_reads.js evaluates");
    });
}

/// Test content lives in its own container: the test runner keeps its
/// output elements in the body, which must survive.
fn root() -> web_sys::Element {
    let doc = document();
    match doc.get_element_by_id("sl-test-root") {
        Some(el) => el,
        None => {
            let el = doc.create_element("div").unwrap();
            el.set_id("sl-test-root");
            doc.body().unwrap().append_child(&el).unwrap();
            el
        }
    }
}

fn set_body(html: &str) {
    root().set_inner_html(html);
}

fn snap(mode: &str) -> Value {
    let json = adapter::snapshot(&format!("{{\"mode\":\"{mode}\",\"root_selector\":\"#sl-test-root\"}}")).unwrap();
    serde_json::from_str(&json).unwrap()
}

fn text(s: &Value) -> String {
    s["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

fn ref_of(s: &Value, name: &str) -> String {
    s["refs"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, r)| r["name"] == name)
        .map(|(k, _)| k.clone())
        .unwrap_or_else(|| panic!("no ref named {name} in {}", text(s)))
}

#[wasm_bindgen_test]
fn controls_get_refs_and_refs_are_stable() {
    set_body(
        r#"<main><h1>Shop</h1><button id="buy">Buy now</button><a href="/docs">Docs</a>
        <label>Email <input type="email" value="a@b.c"></label>
        <input type="password" value="hunter2" aria-label="Password"></main>"#,
    );
    let s1 = snap("full");
    let t = text(&s1);
    assert!(t.contains("- heading \"Shop\" [level=1]"), "{t}");
    assert!(t.contains("button \"Buy now\" [ref="), "{t}");
    assert!(t.contains("link \"Docs\" [ref=e") && t.contains("] [url=/docs]"), "{t}");
    assert!(!t.contains("hunter2"), "password leaked: {t}");
    assert!(!serde_json::to_string(&s1).unwrap().contains("hunter2"));
    let buy = ref_of(&s1, "Buy now");
    assert_eq!(s1["refs"][&buy]["selector"], "#buy");

    // Same element, same ref, even after unrelated DOM changes.
    let extra = document().create_element("button").unwrap();
    extra.set_text_content(Some("Extra"));
    root().prepend_with_node_1(&extra).unwrap();
    let s2 = snap("full");
    assert_eq!(ref_of(&s2, "Buy now"), buy);
    assert_ne!(ref_of(&s2, "Extra"), buy);

    // A removed element's ref is reported stale, never re-used.
    document().get_element_by_id("buy").unwrap().remove();
    let info: Value = serde_json::from_str(&adapter::action_target(&format!("{{\"target\":\"{buy}\"}}"))).unwrap();
    assert_eq!(info["stale"], true, "{info}");
    assert!(adapter::resolve(&buy).is_none());
}

#[wasm_bindgen_test]
fn hidden_rules_exclude_content() {
    set_body(
        r#"<div style="display:none"><button>DisplayNone</button></div>
        <div aria-hidden="true"><button>AriaHidden</button></div>
        <div style="visibility:hidden"><button>VisHidden</button><button style="visibility:visible">VisBack</button></div>
        <div inert><button>Inert</button></div>
        <div hidden><button>HiddenAttr</button></div>
        <details><summary>More</summary><button>InClosedDetails</button></details>
        <button>Shown</button>"#,
    );
    let t = text(&snap("full"));
    for gone in [
        "DisplayNone",
        "AriaHidden",
        "\"VisHidden\"",
        "Inert",
        "HiddenAttr",
        "InClosedDetails",
    ] {
        assert!(!t.contains(gone), "{gone} should be hidden:\n{t}");
    }
    assert!(t.contains("Shown") && t.contains("VisBack"), "{t}");
}

/// Snapshots with every `getComputedStyle` read of the walk recorded:
/// (element id, the `want` bits the walk asked for: 1 pointer-events,
/// 2 cursor, 4 position and overflow; see `adapter/reads.rs`).
fn snap_recording_style_reads() -> (Value, Vec<(String, u32)>) {
    snap_recording("style", "full")
}

/// Snapshots in `mode` with every call of the batched read `method`
/// recorded: (element id, the call's second argument or 0).
fn snap_recording(method: &str, mode: &str) -> (Value, Vec<(String, u32)>) {
    js_sys::eval(&format!(
        "(() => {{ const r = globalThis.__sl_reads; const orig = r.{method}; r.__log = [];\
          r.__orig = orig; r.{method} = (el, arg) => {{ r.__log.push([el.id, arg ?? 0]); return orig(el, arg); }}; }})()"
    ))
    .unwrap();
    let s = snap(mode);
    let log = js_sys::eval(&format!(
        "(() => {{ const r = globalThis.__sl_reads; r.{method} = r.__orig; return JSON.stringify(r.__log); }})()"
    ))
    .unwrap()
    .as_string()
    .unwrap();
    let reads: Vec<(String, u32)> = serde_json::from_str(&log).unwrap();
    (s, reads.into_iter().filter(|(id, _)| !id.is_empty()).collect())
}

#[wasm_bindgen_test]
fn full_mode_reads_no_box_of_plain_containers_in_the_flow() {
    set_body(
        r#"<div id="wrap"><label id="lab">Name <input id="in"></label><span id="tap" onclick="void 0">Tap</span></div>
        <div id="scroller" style="overflow:auto;height:60px;width:200px"><div id="tall" style="height:300px">tall</div></div>
        <div id="layer" style="position:absolute;left:0;top:5000px;width:900px;height:600px;z-index:5"></div>
        <div style="height:3000px"></div>
        <div id="far"><a id="contents" href="/far" style="display:contents">Far link</a></div>"#,
    );
    let (s, reads) = snap_recording("rect", "full");
    let read = |id: &str| reads.iter().any(|(i, _)| i == id);
    // In the flow, not a target, not scrolling: no box.
    for id in ["wrap", "lab", "tall"] {
        assert!(!read(id), "{id}: {reads:?}");
    }
    // Targets, scrollers and positioned layers keep theirs.
    for id in ["in", "tap", "scroller", "layer"] {
        assert!(read(id), "{id}: {reads:?}");
    }
    let t = text(&s);
    assert!(
        t.lines()
            .any(|l| l.contains("- generic [ref=") && l.ends_with("]: tall")),
        "{t}"
    );
    // A box-less link is placed by its nearest ancestor with a box: that
    // container's box is read after all, and the link is offscreen.
    assert!(read("far"), "{reads:?}");
    assert!(t.contains("link \"Far link\" [offscreen]"), "{t}");
    // Viewport mode places text by its containers: every box is read.
    let (_, reads) = snap_recording("rect", "viewport");
    assert!(reads.iter().any(|(i, _)| i == "wrap"), "{reads:?}");
}

#[wasm_bindgen_test]
fn a_boxless_modal_whose_content_is_plain_containers_is_still_shown() {
    // The dialog has no box (`display:contents`); it counts as shown through
    // a descendant's box, and its only descendants are plain containers in
    // the flow, whose boxes a full snapshot otherwise skips.
    set_body(
        r#"<button id="behind">Behind</button>
        <div id="dlg" role="dialog" aria-modal="true" aria-label="Please wait" style="display:contents">
          <div id="panel"><div id="msg">Saving your changes</div></div>
        </div>"#,
    );
    let (s, reads) = snap_recording("rect", "full");
    assert!(reads.iter().any(|(i, _)| i == "panel"), "{reads:?}");
    assert!(!s["modal"].is_null(), "{s}");
    let t = text(&s);
    // (Outlined by default: the page behind is counted, not listed.)
    assert!(t.contains("- … 1 button, hidden behind the modal"), "{t}");
}

#[wasm_bindgen_test]
fn cursor_is_read_only_where_it_can_decide_a_ref() {
    set_body(
        r#"<div id="card" style="cursor:pointer">Card <span id="inherits">inner</span></div>
        <div id="plain">x <span id="own" style="cursor:pointer">Own</span></div>
        <button id="btn">B <span id="inbtn" style="cursor:pointer">in</span></button>"#,
    );
    let (s, reads) = snap_recording_style_reads();
    let want = |id: &str| {
        reads
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, w)| *w)
            .unwrap_or_else(|| panic!("{id} not style-read: {reads:?}"))
    };
    const CURSOR: u32 = 2;
    const POINTER_EVENTS: u32 = 1;
    // Read where it decides: no pointer parent, not a target by its tag.
    for id in ["card", "plain", "own", "inbtn"] {
        assert_ne!(want(id) & CURSOR, 0, "{id}: {reads:?}");
    }
    // A button is a target whatever its cursor.
    assert_eq!(want("btn") & CURSOR, 0, "{reads:?}");
    // Under a pointer parent, `cursor` is taken as inherited, not read; the
    // element is still a possible target, so its pointer-events is read.
    assert_eq!(want("inherits") & CURSOR, 0, "{reads:?}");
    assert_ne!(want("inherits") & POINTER_EVENTS, 0, "{reads:?}");
    // Where the pointer starts is the target; inside a button, it isn't.
    let t = text(&s);
    assert!(t.contains("generic [ref=") && t.contains("Card inner"), "{t}");
    assert!(t.contains("- generic [ref=e") && t.contains("]: Own"), "{t}");
    assert!(!t.contains("\"in\"") && !t.contains("\"inner\""), "{t}");
}

#[wasm_bindgen_test]
fn closed_details_content_is_not_style_read() {
    set_body(
        r#"<details id="closed"><summary id="sum">More</summary><p id="inside">Folded <b id="deep">away</b></p></details>
        <details id="opened" open><summary id="sum2">Less</summary><p id="shown">Unfolded</p></details>
        <button id="by" aria-labelledby="inside">x</button>"#,
    );
    let (s, reads) = snap_recording_style_reads();
    let read = |id: &str| reads.iter().any(|(i, _)| i == id);
    assert!(read("closed") && read("sum") && read("opened") && read("sum2") && read("shown"));
    assert!(!read("inside") && !read("deep"), "{reads:?}");
    let t = text(&s);
    assert!(
        !t.contains("paragraph: Folded") && t.contains("paragraph: Unfolded"),
        "{t}"
    );
    assert!(t.contains("button \"More\" [collapsed]"), "{t}");
    // Unread boxes still feed names by reference.
    assert!(t.contains("button \"Folded away\" [ref="), "{t}");
}

#[wasm_bindgen_test]
fn a_parent_with_many_children_keeps_them_all_in_order() {
    // More children than the enumeration buffer first holds (it grows).
    let buttons: String = (0..700).map(|i| format!("<button>B{i}</button> <i>t{i}</i>")).collect();
    set_body(&format!("<div id=\"many\">{buttons}</div>"));
    let s = snap("full");
    let t = text(&s);
    let pos = |name: &str| {
        t.find(&format!("button \"{name}\" ["))
            .unwrap_or_else(|| panic!("{name}: {t}"))
    };
    assert!(pos("B0") < pos("B1") && pos("B1") < pos("B699"), "{t}");
    assert!(t.contains("t699"), "{t}");
    let last = ref_of(&s, "B699");
    assert_eq!(s["refs"][&last]["selector"], "#many > button:nth-of-type(700)");
}

#[wasm_bindgen_test]
fn shadow_roots_and_slots_are_walked() {
    set_body(r#"<div id="host"><span slot="s">Slotted text</span></div>"#);
    let host = document().get_element_by_id("host").unwrap();
    let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let root = host.attach_shadow(&init).unwrap();
    root.set_inner_html(
        r#"<section aria-label="Card"><slot name="s"></slot><button id="inner">Inner</button></section>"#,
    );
    let s = snap("full");
    let t = text(&s);
    assert!(t.contains("Slotted text") && t.contains("button \"Inner\""), "{t}");
    let inner = ref_of(&s, "Inner");
    let sel = s["refs"][&inner]["selector"].as_str().unwrap().to_string();
    assert!(sel.contains(" >>> "), "{sel}");
    let el = adapter::resolve(&sel).expect("selector resolves");
    assert_eq!(el.id(), "inner");
}

#[wasm_bindgen_test]
fn deep_nesting_does_not_overflow() {
    set_body("");
    let doc = document();
    let mut parent: web_sys::Element = root();
    for _ in 0..1000 {
        let d = doc.create_element("div").unwrap();
        parent.append_child(&d).unwrap();
        parent = d;
    }
    let b = doc.create_element("button").unwrap();
    b.set_text_content(Some("Deep"));
    parent.append_child(&b).unwrap();
    let t = text(&snap("full"));
    assert!(t.contains("button \"Deep\""), "{t}");
}

#[wasm_bindgen_test]
fn viewport_mode_counts_offscreen_elements() {
    set_body(r#"<button>Top</button><div style="height:5000px"></div><button>Far1</button><button>Far2</button>"#);
    let s = snap("viewport");
    let t = text(&s);
    assert!(t.contains("Top") && !t.contains("Far1"), "{t}");
    assert_eq!(s["offscreen"]["below"], 2);
    let full = text(&snap("full"));
    assert!(full.contains("button \"Far1\" [offscreen]"), "{full}");
}

#[wasm_bindgen_test]
fn viewport_mode_keeps_generated_content_in_view() {
    // Viewport mode reads CSS generated content only near the viewport (the
    // only names it renders); what it renders must stay exact.
    set_body(
        r#"<style>.star::before{content:"\2605  "}</style><button class="star">Near</button><div style="height:5000px"></div><button class="star">Far</button>"#,
    );
    root().scroll_into_view();
    let whole = |mode: &str| -> Value {
        serde_json::from_str(&adapter::snapshot(&format!("{{\"mode\":\"{mode}\"}}")).unwrap()).unwrap()
    };
    let viewport = whole("viewport");
    ref_of(&viewport, "\u{2605} Near");
    let full = whole("full");
    ref_of(&full, "\u{2605} Near");
    ref_of(&full, "\u{2605} Far");
}

#[wasm_bindgen_test]
fn generated_content_follows_style_sheet_changes() {
    // Sheets that generate no text (here only the clearfix idiom) let the
    // walk skip reading `::before`/`::after`; verdicts are cached per sheet,
    // so a sheet added or grown later must be noticed.
    set_body(r#"<style>.cf::after{content:"";display:table}</style><button class="cf mark">Plain</button>"#);
    ref_of(&snap("full"), "Plain");

    // A new sheet that generates text.
    root()
        .insert_adjacent_html("afterbegin", r#"<style>.mark::before{content:"\2192  "}</style>"#)
        .unwrap();
    ref_of(&snap("full"), "\u{2192} Plain");

    // A rule inserted into a sheet that was already judged.
    set_body(r#"<style id="grow">.cf::after{content:""}</style><button class="late">Late</button>"#);
    ref_of(&snap("full"), "Late");
    js_sys::eval(r#"document.getElementById("grow").sheet.insertRule('.late::after{content:" \u2713"}', 1)"#).unwrap();
    ref_of(&snap("full"), "Late \u{2713}");
}

#[wasm_bindgen_test]
fn generated_content_from_shadow_root_styles() {
    set_body(r#"<div id="host2"></div>"#);
    let host = document().get_element_by_id("host2").unwrap();
    let init = web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open);
    let shadow = host.attach_shadow(&init).unwrap();
    shadow.set_inner_html(r#"<style>button::before{content:"\2605  "}</style><button>Inside</button>"#);
    ref_of(&snap("full"), "\u{2605} Inside");
}

#[wasm_bindgen_test]
fn inline_text_elements_keep_text_and_targets() {
    // Inline text-level elements that can't be targets have no rect read;
    // their text still flows into the tree, and those that can be targets
    // (a handler, a pointer cursor, a role) still get refs.
    set_body(
        r#"<p>Read <span>the <b>fine</b> print</span> now.
        <span onclick="void 0">Tap</span> <span style="cursor:pointer">Point</span>
        <span role="button" tabindex="0">Role</span></p>"#,
    );
    let s = snap("full");
    let t = text(&s);
    assert!(t.contains("Read the fine print now."), "{t}");
    for line_end in ["]: Tap", "]: Point", "\"Role\" [ref="] {
        let line = t
            .lines()
            .find(|l| l.contains(line_end))
            .unwrap_or_else(|| panic!("{line_end}: {t}"));
        let r = line.split("[ref=").nth(1).and_then(|x| x.split(']').next()).unwrap();
        assert_eq!(s["refs"][r]["in_viewport"], true, "{line}: {t}");
    }
}

#[wasm_bindgen_test]
fn generated_content_from_adopted_style_sheets() {
    // Constructed sheets reach a document or shadow root only through
    // `adoptedStyleSheets` (the usual way web-component libraries style).
    set_body(r#"<div id="host3"></div>"#);
    js_sys::eval(
        r#"(() => {
            const sheet = new CSSStyleSheet();
            sheet.replaceSync('button::after{content:" \u00bb"}');
            const root = document.getElementById("host3").attachShadow({ mode: "open" });
            root.adoptedStyleSheets = [sheet];
            root.innerHTML = "<button>Next</button>";
        })()"#,
    )
    .unwrap();
    ref_of(&snap("full"), "Next \u{bb}");
}

/// A viewport snapshot of the whole page (no region: offscreen boundaries
/// apply only then).
fn snap_page_viewport() -> Value {
    let json = adapter::snapshot(r#"{"mode":"viewport"}"#).unwrap();
    serde_json::from_str(&json).unwrap()
}

#[wasm_bindgen_test]
fn offscreen_boundaries_still_see_out_of_flow_descendants() {
    set_body(
        r#"<button>Top</button><div style="height:4000px"></div>
        <section id="far"><p>Far text</p><button>Far1</button>
          <div><a href="/deep">Far link</a><span style="cursor:pointer" onclick="void 0">Far span</span></div>
          <div style="position:fixed;top:8px;left:8px;background:#fff"><button>Pinned</button></div>
          <div style="display:none"><button>Gone</button></div>
        </section>"#,
    );
    let before = snap_page_viewport();
    let t = text(&before);
    assert!(t.contains("Top") && t.contains("Pinned"), "{t}");
    assert!(
        !t.contains("Far1") && !t.contains("Far link") && !t.contains("Gone"),
        "{t}"
    );
    let below = before["offscreen"]["below"].as_u64().unwrap();
    // Far1, the link and the clickable span; not the hidden button.
    assert!(below >= 3, "{}", before["offscreen"]);
    // The light reads change nothing in full mode.
    let full = text(&snap("full"));
    assert!(
        full.contains("button \"Far1\" [offscreen]") && full.contains(" [url="),
        "{full}"
    );
    // Scrolled to it, the section is read in full again.
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 4000.0);
    let t = text(&snap_page_viewport());
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
    assert!(
        t.contains("Far1") && t.contains("Far link") && t.contains("Pinned"),
        "{t}"
    );
}

/// A full snapshot of the whole page (offscreen boundaries apply).
fn snap_page_full() -> Value {
    serde_json::from_str(&adapter::snapshot(r#"{"mode":"full"}"#).unwrap()).unwrap()
}

/// The refs of a snapshot as (role, name, in_viewport), sorted.
fn ref_summary(s: &Value) -> Vec<(String, String, bool)> {
    let mut out: Vec<_> = s["refs"]
        .as_object()
        .unwrap()
        .values()
        .map(|r| {
            let field = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (
                field("role"),
                field("name"),
                r["in_viewport"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    out.sort();
    out
}

/// Counts `getBoundingClientRect` calls while `f` runs.
fn rect_reads_during(f: impl FnOnce()) -> u32 {
    js_sys::eval(
        r#"(() => {
            const proto = Element.prototype;
            globalThis.__slRectReads = 0;
            globalThis.__slRealRect = proto.getBoundingClientRect;
            proto.getBoundingClientRect = function () {
                globalThis.__slRectReads++;
                return globalThis.__slRealRect.call(this);
            };
        })()"#,
    )
    .unwrap();
    f();
    let n = js_sys::eval("Element.prototype.getBoundingClientRect = globalThis.__slRealRect; globalThis.__slRectReads")
        .unwrap();
    n.as_f64().unwrap() as u32
}

/// Far below the viewport a full snapshot guesses in-flow boxes instead of
/// reading them; wherever a box's own size or place decides something (a
/// zero-size target, a scroll container, an escaped absolute box, a
/// collapsed aria-modal dialog, a box-less element), the outcome is the one
/// the exact walk (a region snapshot: no boundaries) gives.
#[wasm_bindgen_test]
fn full_mode_boundaries_guess_only_what_cannot_change_the_snapshot() {
    set_body(
        r#"<button>Top</button><div style="height:4000px"></div>
        <section id="far"><p>Far text <a href="/far">Far link</a></p>
          <a href="/empty"><span></span> </a>
          <a href="/floated"><div style="float:left;width:60px;height:20px">Floated</div></a>
          <a href="/icon"><img alt="" style="width:16px;height:16px"></a>
          <div style="width:0;height:0;overflow:hidden"><div role="button" tabindex="0">Squeezed</div></div>
          <span onclick="void 0"><b></b></span>
          <input aria-label="Flat input" style="width:0;height:0;padding:0;border:0">
          <a href="/contents" style="display:contents">Contents link</a>
          <div style="height:80px;overflow:auto"><div style="height:400px">Scroll me</div></div>
          <div style="position:absolute;top:10px;left:300px"><button>Escaped</button></div>
          <div role="dialog" aria-modal="true" style="height:0;overflow:hidden"><div><div><b></b></div></div></div>
          <a href="/zwsp">&#8203;</a>
          <a href="/tiny" style="font-size:0"><img alt="" style="width:20px;height:20px"></a>
          <div id="log" style="height:80px;overflow:auto"><div style="height:8000px">
            <a href="/old" style="display:block;margin-top:1000px">Old entry</a></div></div>
        </section>"#,
    );
    // Scrolled so far that its box is reported inside the viewport: clipped
    // by its scroll container, far below, so out of view in both walks.
    let log = root().query_selector("#log").unwrap().unwrap();
    log.set_scroll_top(log.get_bounding_client_rect().y() as i32 + 700);
    let exact = snap("full");
    let guessed = snap_page_full();
    assert_eq!(ref_summary(&guessed), ref_summary(&exact), "{}", text(&guessed));
    assert!(ref_summary(&exact).contains(&("link".into(), "Old entry".into(), false)));
    assert!(guessed["modal"].is_null(), "{}", guessed["modal"]);
    let t = text(&guessed);
    assert!(
        t.contains("paragraph [offscreen]") && t.contains("button \"Escaped\" [ref="),
        "{t}"
    );
    assert!(!t.contains("Escaped\" [offscreen]"), "{t}");

    // And it does save the reads: 300 more links far below cost few boxes.
    let reads = || rect_reads_during(|| drop(snap_page_full()));
    let before = reads();
    let links: String = (0..300).map(|i| format!("<a href=\"/l{i}\">Link {i}</a> ")).collect();
    root()
        .query_selector("#far")
        .unwrap()
        .unwrap()
        .insert_adjacent_html("beforeend", &format!("<p>{links}</p>"))
        .unwrap();
    let after = reads();
    assert!(after < before + 30, "{before} box reads, then {after}");
    assert_eq!(ref_summary(&snap_page_full()), ref_summary(&snap("full")));
}

/// The string-only resolution of plain hrefs agrees with the browser's
/// `a.href`, under the test server's URL and under a `<base>` element, and
/// the snapshot's link URLs are the browser's.
#[wasm_bindgen_test]
fn plain_href_resolution_matches_the_browser() {
    use sightline_engine::url_resolve::resolve_plain;
    let hrefs = [
        "#top",
        "",
        " /a/b ",
        "?q=1",
        "page.html",
        "./x/../y/./z",
        "../..",
        "a/..",
        "/a/./",
        "/a//b",
        "/x?q=a/../b#f/./g",
        "//Sub.Example.org/p.png",
        "//example.org",
        "//example.org?q",
        "HTTP://Example.COM",
        "https://a.org/%7Euser/%20x",
        "http://a.org/b/../c",
        "/a%2Fb",
        "/v1.0/x",
        "/.well-known/x",
        "/a/.hidden",
        "#a#b",
        "?a?b",
        "/a?",
        "/a#",
        "x:y",
        "/a[1]",
        "a b",
        "/caf\u{e9}",
        "/a\\b",
        "/it's",
        "/%2e%2E/x",
        "mailto:a@b.org",
        "http:/a",
        "//user@a.org/",
        "//a.org:443/",
        "//127.0.0.1/",
        "//xn--mnchen-3ya.de/",
    ];
    let doc = document();
    let check = |expect_fast: bool| {
        let base = doc.base_uri().unwrap().unwrap();
        let mut fast = 0;
        for href in hrefs {
            let a: web_sys::HtmlAnchorElement = doc.create_element("a").unwrap().dyn_into().unwrap();
            a.set_attribute("href", href).unwrap();
            if let Some(mine) = resolve_plain(&base, href) {
                assert_eq!(mine, a.href(), "href {href:?} against {base}");
                fast += 1;
            }
        }
        if expect_fast {
            assert!(fast >= 20, "only {fast} plain hrefs under {base}");
        }
    };
    check(true);
    let base_el = doc.create_element("base").unwrap();
    base_el
        .set_attribute("href", "https://Example.org/dir/page?x=1#frag")
        .unwrap();
    doc.query_selector("head")
        .unwrap()
        .unwrap()
        .append_child(&base_el)
        .unwrap();
    check(true);
    set_body(r##"<a href="../up/there?x#y">Up</a><a href="a b">Odd</a>"##);
    let s = snap("full");
    doc.query_selector("head")
        .unwrap()
        .unwrap()
        .remove_child(&base_el)
        .unwrap();
    let url = |name: &str| s["refs"][ref_of(&s, name)]["url"].as_str().unwrap().to_string();
    assert_eq!(url("Up"), "https://example.org/up/there?x#y");
    assert_eq!(url("Odd"), "https://example.org/dir/a%20b");
}

// Issue 27: snapshot fidelity on real widgets. Each test below fails
// without its fix.

/// `content: url(…)` is an image, not text: its data URL must not become
/// the name of a checkbox or a disclosure button.
#[wasm_bindgen_test]
fn generated_images_are_not_text() {
    set_body(
        r#"<style>
        .sl27-check::before { content: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E"); }
        .sl27-alt::before { content: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'%3E%3C/svg%3E") / "Close"; }
        </style>
        <button class="sl27-check">Remember me</button>
        <button class="sl27-alt"></button>"#,
    );
    let s = snap("full");
    let t = text(&s);
    assert!(t.contains("button \"Remember me\" [ref="), "{t}");
    assert!(t.contains("button \"Close\" [ref="), "{t}");
    assert!(!t.contains("data:image"), "{t}");
}

/// An absolutely positioned `::before` is a box of its own: its text is a
/// word apart from the element's ("Current Rows", not "CurrentRows").
#[wasm_bindgen_test]
fn a_positioned_before_keeps_its_space() {
    set_body(
        r#"<style>
        .sl27-cur { position: relative; }
        .sl27-cur::before { content: "Current"; position: absolute; left: -200px; }
        .sl27-inl::before { content: "Pre"; }
        </style>
        <button class="sl27-cur">Rows</button>
        <button class="sl27-inl">fix</button>"#,
    );
    let t = text(&snap("full"));
    assert!(t.contains("button \"Current Rows\" [ref="), "{t}");
    assert!(t.contains("button \"Prefix\" [ref="), "{t}");
}

/// Syntax-highlighted code is one run of text, as the page shows it.
#[wasm_bindgen_test]
fn highlighted_code_is_not_spaced_token_by_token() {
    set_body(
        r#"<pre><code><span class="tag">&lt;</span><span class="name">label</span> <span class="attr">for</span><span class="op">=</span><span class="str">"notes"</span><span class="tag">&gt;</span></code></pre>
        <div><div>First</div><div>second</div>third <b>bold</b>er</div>"#,
    );
    let t = text(&snap("full"));
    assert!(t.contains("<label for=\"notes\">"), "{t}");
    assert!(t.contains("First second third bolder"), "{t}");
}

/// ARIA widgets drawn in SVG: a `<g role="slider">` and `<g role="radio">`
/// stars are walked and get refs; the `<svg role="none">` that delegates
/// their clicks does not.
#[wasm_bindgen_test]
fn svg_widgets_get_refs() {
    set_body(
        r#"<svg id="sl27-rating" role="none" width="200" height="40">
          <g role="radiogroup" aria-label="Rating">
            <g role="radio" aria-checked="false" aria-label="one star" tabindex="0"><rect width="30" height="30"/></g>
            <g role="radio" aria-checked="true" aria-label="two stars" tabindex="-1"><rect x="40" width="30" height="30"/></g>
          </g>
        </svg>
        <svg width="300" height="40"><g><g role="slider" aria-label="Volume" aria-valuenow="30" tabindex="0"><circle cx="20" cy="20" r="10"/></g></g><path d="M0 0 L10 10"/></svg>"#,
    );
    set_onclick(&document().get_element_by_id("sl27-rating").unwrap(), true);
    let s = snap("full");
    let t = text(&s);
    assert!(t.contains("radio \"one star\" [ref="), "{t}");
    assert!(t.contains("radio \"two stars\" [checked] [ref="), "{t}");
    assert!(t.contains("slider \"Volume\" [ref="), "{t}");
    assert!(!t.contains("generic [ref="), "the delegating svg got a ref: {t}");
}

/// Composite widgets that delegate their clicks: the grid of a grid-style
/// combobox carries the listener, its gridcells are the targets; focusable
/// column headers and tree-grid rows (`tabindex=-1`) are targets too.
#[wasm_bindgen_test]
fn delegated_composite_items_and_focusables_get_refs() {
    set_body(
        r#"<div role="grid" id="sl27-grid" aria-label="Fruit">
          <div role="row"><div role="gridcell">Apple</div><div role="gridcell">Banana</div></div>
        </div>
        <table><tr><th tabindex="-1">Name</th><th>Size</th></tr><tr><td>a</td><td>1</td></tr></table>
        <table role="treegrid" aria-label="Files"><tr tabindex="-1" aria-expanded="false"><td>src</td></tr></table>"#,
    );
    set_onclick(&document().get_element_by_id("sl27-grid").unwrap(), true);
    let s = snap("full");
    let t = text(&s);
    assert!(t.contains("gridcell \"Apple\" [ref="), "{t}");
    assert!(t.contains("gridcell \"Banana\" [ref="), "{t}");
    assert!(!t.contains("grid \"Fruit\" [ref="), "{t}");
    assert!(t.contains("columnheader \"Name\" [ref="), "{t}");
    assert!(!t.contains("columnheader \"Size\" [ref="), "{t}");
    assert!(t.contains("row \"src\" [collapsed] [ref="), "{t}");
}

/// A page-wide listener (`document.body.onclick`, "click outside to close")
/// makes no `generic [ref]` wrapping the whole page.
#[wasm_bindgen_test]
fn page_wide_listeners_make_no_wrapper_ref() {
    set_body(r#"<button>Inside</button>"#);
    let doc = document();
    let body: web_sys::Element = doc.body().unwrap().into();
    let html = doc.document_element().unwrap();
    set_onclick(&body, true);
    set_onclick(&html, true);
    let json = adapter::snapshot("{\"mode\":\"full\"}").unwrap();
    set_onclick(&body, false);
    set_onclick(&html, false);
    let s: Value = serde_json::from_str(&json).unwrap();
    let t = text(&s);
    // Not nested under a wrapper line: at the top level.
    assert!(t.lines().any(|l| l.starts_with("- button \"Inside\" [ref=")), "{t}");
    assert!(!t.contains("generic [ref="), "{t}");
}

/// Gives `el` a click handler property (what the engine reads outside the
/// driver's isolated world), or takes it away.
fn set_onclick(el: &web_sys::Element, on: bool) {
    let handler: wasm_bindgen::JsValue = if on {
        js_sys::Function::new_no_args("").into()
    } else {
        wasm_bindgen::JsValue::NULL
    };
    js_sys::Reflect::set(el, &"onclick".into(), &handler).unwrap();
}

/// A custom checkbox (Shoelace, Bootstrap's `btn-check`): the real input
/// sits invisible under `pointer-events:none` and its label takes the
/// clicks. The input keeps the ref (role, name, state), the label gets
/// none, and the input is acted on through its label's box.
#[wasm_bindgen_test]
fn custom_checkboxes_keep_their_ref_and_are_clicked_through_the_label() {
    set_body(
        r#"<input type="checkbox" id="sl27-news" style="position:absolute; opacity:0; pointer-events:none" checked>
        <label for="sl27-news" style="cursor:pointer; display:inline-block; padding:10px">Send me the newsletter</label>"#,
    );
    let s = snap("full");
    let t = text(&s);
    assert!(t.contains("checkbox \"Send me the newsletter\" [checked] [ref="), "{t}");
    assert!(!t.contains("generic [ref="), "{t}");
    let r = ref_of(&s, "Send me the newsletter");
    let info: Value = serde_json::from_str(&adapter::action_target(&format!("{{\"target\":\"{r}\"}}"))).unwrap();
    assert_eq!(info["receives_events"], true, "{info}");
    assert!(
        info["rect"]["width"].as_f64().unwrap() > 100.0,
        "the label's box: {info}"
    );
}
