//! `wire` against serde, for every request type `wire` reads:
//! `FrameSnapshotRequest`, `TargetRequest`, `DomAction`, `BlockerRequest`
//! and `StitchRequest` (whose frames are `FrameSnapshot`s).
//!
//! The driver writes requests with serde (`actionTarget`'s with
//! `JSON.stringify`), the other hosts stitch requests with `JSON.stringify`
//! around snapshots serde wrote; the engine reads them with `wire` (a stitch
//! request straight into a frame tree, compared here in its flat form). These tests check
//! that wherever serde's derive reads a JSON object, `wire` reads the same
//! value, and that where serde rejects one, `wire` does too: over
//! hand-written requests (missing optional fields, nulls, unknown fields,
//! escapes, numbers, whitespace, malformed JSON) and over values serde
//! writes, as the driver sends them. Values are compared as serde writes
//! them back, so `-0.0` and `0.0` differ.
//!
//! The few places where the two part are pinned, so a change on either
//! side shows: `known_differences` (wire is lenient where no driver goes,
//! reads objects only and refuses deep nesting) and the numbers (alike from
//! 2^-10 to 2^24, within 5 ulps beyond). `every_field_is_covered` fails when
//! a request type gains a field or a variant the tests do not know.
use super::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A request type `wire` reads.
trait Request: DeserializeOwned + Serialize {
    const NAME: &'static str;
    /// The fields of a minimal valid request (no braces).
    fn body() -> String;
    /// A request with `{}` wherever a JSON string goes.
    fn with_string() -> String;
    fn wire(json: &str) -> Result<Self, String>;
    /// What the request means, for comparing (most requests: themselves).
    fn normal(self) -> Self {
        self
    }
}

impl Request for FrameSnapshotRequest {
    const NAME: &'static str = "FrameSnapshotRequest";
    fn body() -> String {
        r#""mode":"viewport""#.into()
    }
    fn with_string() -> String {
        r#"{"ref_prefix":{},"root_selector":{},"obscure_except_frame":{}}"#.into()
    }
    fn wire(json: &str) -> Result<Self, String> {
        wire::frame_snapshot_request(json)
    }
}

impl Request for TargetRequest {
    const NAME: &'static str = "TargetRequest";
    fn body() -> String {
        r#""target":"e1""#.into()
    }
    fn with_string() -> String {
        r#"{"target":{},"scroll":true}"#.into()
    }
    fn wire(json: &str) -> Result<Self, String> {
        wire::target_request(json)
    }
}

impl Request for DomAction {
    const NAME: &'static str = "DomAction";
    fn body() -> String {
        r#""op":"jsClick""#.into()
    }
    fn with_string() -> String {
        r#"{"op":"selectOption","target":{},"value":{},"values":[{},"M",{}]}"#.into()
    }
    fn wire(json: &str) -> Result<Self, String> {
        wire::dom_action(json)
    }
}

/// A `FrameSnapshot` as serde writes it, every field set, with `{}` for
/// every string (a JSON string literal goes there).
const SNAPSHOT_WITH_STRINGS: &str = r#"{"protocol":1,"url":{},"title":{},"lines":[{},"- button \"Go\" [ref=e2]"],"frame_slots":[{"line":1,"depth":2,"key":{},"content_rect":{"x":10.0,"y":20.5,"width":300.0,"height":150.0},"obscured":true,"offscreen":{}}],"viewport":{"scroll_x":0.0,"scroll_y":120.0,"viewport_width":1280.0,"viewport_height":720.0,"doc_width":1280.0,"doc_height":3000.0,"pages_above":0,"pages_below":3,"at_top":false,"at_bottom":true},"refs":{"e2":{"role":{},"name":{},"selector":{},"url":{},"frame":{},"in_viewport":true,"obscured":true,"covered_by":{}},"e10":{"role":"link","name":"","selector":"a","in_viewport":false,"obscured":false,"covered_by":null}},"offscreen":{"above":1,"below":4},"modal":{"kind":{},"selector":{},"name":{},"ref":{}},"overlay_warning":{"description":{},"ref":{},"selector":{}},"notes":[{}],"stats":{"elements":12,"refs":1,"engine_ms":2.5,"occlusion_ms":0.25,"walk_ms":1.0,"serialize_ms":0.5}}"#;

/// `SNAPSHOT_WITH_STRINGS` with "x" for every string.
fn full_snapshot() -> FrameSnapshot {
    serde_json::from_str(&SNAPSHOT_WITH_STRINGS.replace("{}", r#""x""#)).unwrap()
}

/// `FrameSnapshot::default()` as serde writes it.
fn empty_snapshot() -> String {
    written(&FrameSnapshot::default())
}

impl Request for StitchRequest {
    const NAME: &'static str = "StitchRequest";
    fn body() -> String {
        format!(r#""frames":[{{"snapshot":{}}}]"#, empty_snapshot())
    }
    fn with_string() -> String {
        format!(
            r#"{{"mode":"viewport","frames":[{{"key":{{}},"prefix":{{}},"snapshot":{SNAPSHOT_WITH_STRINGS}}},{{"parent":0,"key":{{}},"prefix":"f1","snapshot":{SNAPSHOT_WITH_STRINGS}}}]}}"#
        )
    }
    fn wire(json: &str) -> Result<Self, String> {
        wire::stitch_request(json).map(|(root, mode)| flattened(root, mode))
    }
    /// The frames in tree pre-order, the main frame's parent and key (which
    /// mean nothing) cleared: how `flattened` lists wire's tree.
    fn normal(self) -> Self {
        fn visit(frames: &[StitchFrame], i: usize, parent: Option<usize>, out: &mut Vec<StitchFrame>) {
            let me = out.len();
            out.push(StitchFrame {
                parent,
                ..frames[i].clone()
            });
            for j in i + 1..frames.len() {
                if frames[j].parent == Some(i) {
                    visit(frames, j, Some(me), out);
                }
            }
        }
        let mut frames = Vec::new();
        if !self.frames.is_empty() {
            visit(&self.frames, 0, None, &mut frames);
            frames[0].key.clear();
        }
        StitchRequest { frames, ..self }
    }
}

/// A frame tree as a stitch request, frames in pre-order.
fn flattened(root: FrameNode, mode: SnapshotMode) -> StitchRequest {
    fn visit(node: FrameNode, key: String, parent: Option<usize>, out: &mut Vec<StitchFrame>) {
        let me = out.len();
        out.push(StitchFrame {
            parent,
            key,
            prefix: node.frame_prefix,
            snapshot: node.snapshot,
        });
        for (key, child) in node.children {
            visit(child, key, Some(me), out);
        }
    }
    let mut frames = Vec::new();
    visit(root, String::new(), None, &mut frames);
    StitchRequest { mode, frames }
}

impl Request for BlockerRequest {
    const NAME: &'static str = "BlockerRequest";
    fn body() -> String {
        r#""op":"scan""#.into()
    }
    fn with_string() -> String {
        r#"{"op":"remove_layer","target":{}}"#.into()
    }
    fn wire(json: &str) -> Result<Self, String> {
        wire::blocker_request(json)
    }
}

fn written<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

/// Wire and serde read `json` alike: the same value, or both an error.
fn agree<T: Request>(json: &str) {
    match (T::wire(json), serde_json::from_str::<T>(json)) {
        (Ok(ours), Ok(theirs)) => assert_eq!(
            written(&ours.normal()),
            written(&theirs.normal()),
            "{}: {json}",
            T::NAME
        ),
        (Err(_), Err(_)) => {}
        (Ok(ours), Err(e)) => panic!(
            "{}: wire reads what serde rejects ({e}): {json} → {}",
            T::NAME,
            written(&ours)
        ),
        (Err(e), Ok(theirs)) => panic!(
            "{}: wire rejects ({e}) what serde reads: {json} → {}",
            T::NAME,
            written(&theirs)
        ),
    }
}

/// Both read `json`, alike.
fn read<T: Request>(json: &str) {
    assert!(
        serde_json::from_str::<T>(json).is_ok(),
        "{}: serde rejects {json}",
        T::NAME
    );
    agree::<T>(json);
}

/// Both reject `json`.
fn rejected<T: Request>(json: &str) {
    assert!(
        serde_json::from_str::<T>(json).is_err(),
        "{}: serde reads {json}",
        T::NAME
    );
    assert!(T::wire(json).is_err(), "{}: wire reads {json}", T::NAME);
}

/// Serde rejects `json`; wire reads it as serde reads `as_if`.
fn wire_only<T: Request>(json: &str, as_if: &str) {
    assert!(
        serde_json::from_str::<T>(json).is_err(),
        "{}: serde reads {json}",
        T::NAME
    );
    let ours = T::wire(json).unwrap_or_else(|e| panic!("{}: wire rejects {json}: {e}", T::NAME));
    let theirs: T = serde_json::from_str(as_if).unwrap();
    assert_eq!(
        written(&ours.normal()),
        written(&theirs.normal()),
        "{}: {json}",
        T::NAME
    );
}

/// Serde reads `json`; wire refuses it with `error` (a request the types
/// cannot refuse, such as a stitch request without frames).
fn unstitchable(json: &str, error: &str) {
    assert!(
        serde_json::from_str::<StitchRequest>(json).is_ok(),
        "serde rejects {json}"
    );
    assert_eq!(StitchRequest::wire(json).unwrap_err(), error, "{json}");
}

/// Serde reads `json`; wire rejects it.
fn serde_only<T: Request>(json: &str) {
    assert!(
        serde_json::from_str::<T>(json).is_ok(),
        "{}: serde rejects {json}",
        T::NAME
    );
    assert!(T::wire(json).is_err(), "{}: wire reads {json}", T::NAME);
}

/// Both read `json`, to different values: wire as serde reads `as_if`.
fn read_differently<T: Request>(json: &str, as_if: &str) {
    let theirs: T = serde_json::from_str(json).unwrap();
    let ours = T::wire(json).unwrap_or_else(|e| panic!("{}: wire rejects {json}: {e}", T::NAME));
    let wanted: T = serde_json::from_str(as_if).unwrap();
    let (ours, wanted, theirs) = (
        written(&ours.normal()),
        written(&wanted.normal()),
        written(&theirs.normal()),
    );
    assert_eq!(ours, wanted, "{}: {json}", T::NAME);
    assert_ne!(ours, theirs, "{}: {json}", T::NAME);
}

/// The fields of `v` as serde writes them, sorted.
fn keys<T: Serialize>(v: &T) -> Vec<String> {
    let mut keys: Vec<String> = match serde_json::to_value(v).unwrap() {
        serde_json::Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("not an object: {other}"),
    };
    keys.sort();
    keys
}

/// The tests below know every field of every request type: a new field
/// fails here until wire reads it and the tests cover it.
#[test]
fn every_field_is_covered() {
    let f = keys(&FrameSnapshotRequest {
        visible_clip: Some(Rect::default()),
        root_selector: Some(String::new()),
        obscure_except_frame: Some(String::new()),
        ..Default::default()
    });
    assert_eq!(
        f,
        [
            "hit_test",
            "mode",
            "obscure_all",
            "obscure_except_frame",
            "obscured_mode",
            "ref_prefix",
            "root_selector",
            "visible_clip"
        ]
    );
    assert_eq!(keys(&Rect::default()), ["height", "width", "x", "y"]);
    assert_eq!(keys(&TargetRequest::default()), ["scroll", "target"]);
    let d = keys(&DomAction::new(DomOp::JsClick, None));
    assert_eq!(d, ["dx", "dy", "op", "percent", "target", "value", "values"]);
    let b = BlockerRequest {
        op: BlockerOp::Scan,
        target: Some(String::new()),
    };
    assert_eq!(keys(&b), ["op", "target"]);
    assert_eq!(keys(&StitchRequest::default()), ["frames", "mode"]);
    assert_eq!(keys(&StitchFrame::default()), ["key", "parent", "prefix", "snapshot"]);
    // A stitch request carries whole snapshots: `SNAPSHOT_WITH_STRINGS` sets
    // every field of them, which wire reads one by one.
    let snap = full_snapshot();
    assert_eq!(
        keys(&snap),
        [
            "frame_slots",
            "lines",
            "modal",
            "notes",
            "offscreen",
            "overlay_warning",
            "protocol",
            "refs",
            "stats",
            "title",
            "url",
            "viewport"
        ]
    );
    assert_eq!(
        keys(&snap.frame_slots[0]),
        ["content_rect", "depth", "key", "line", "obscured", "offscreen"]
    );
    assert_eq!(
        keys(&snap.viewport),
        [
            "at_bottom",
            "at_top",
            "doc_height",
            "doc_width",
            "pages_above",
            "pages_below",
            "scroll_x",
            "scroll_y",
            "viewport_height",
            "viewport_width"
        ]
    );
    assert_eq!(
        keys(snap.refs.get("e2").unwrap()),
        [
            "covered_by",
            "frame",
            "in_viewport",
            "name",
            "obscured",
            "role",
            "selector",
            "url"
        ]
    );
    assert_eq!(keys(&snap.offscreen), ["above", "below"]);
    assert_eq!(keys(snap.modal.as_ref().unwrap()), ["kind", "name", "ref", "selector"]);
    assert_eq!(
        keys(snap.overlay_warning.as_ref().unwrap()),
        ["description", "ref", "selector"]
    );
    assert_eq!(
        keys(&snap.stats),
        [
            "elements",
            "engine_ms",
            "occlusion_ms",
            "refs",
            "serialize_ms",
            "walk_ms"
        ]
    );
}

/// Every variant of the enums in requests; the tests read each.
const MODES: [SnapshotMode; 2] = [SnapshotMode::Full, SnapshotMode::Viewport];
const OBSCURED_MODES: [ObscuredMode; 3] = [ObscuredMode::Outline, ObscuredMode::Mark, ObscuredMode::Drop];
const DOM_OPS: [DomOp; 7] = [
    DomOp::FocusAndSelectAll,
    DomOp::SetValue,
    DomOp::SelectOption,
    DomOp::ScrollIntoView,
    DomOp::DispatchChange,
    DomOp::ReadValue,
    DomOp::JsClick,
];
const BLOCKER_OPS: [BlockerOp; 5] = [
    BlockerOp::Scan,
    BlockerOp::State,
    BlockerOp::Remove,
    BlockerOp::RemoveLayer,
    BlockerOp::ScanDocument,
];

/// A new variant fails to compile here until it is listed above.
#[allow(dead_code)]
fn listed(m: SnapshotMode, o: ObscuredMode, d: DomOp, b: BlockerOp) {
    match m {
        SnapshotMode::Full | SnapshotMode::Viewport => {}
    }
    match o {
        ObscuredMode::Outline | ObscuredMode::Mark | ObscuredMode::Drop => {}
    }
    match d {
        DomOp::FocusAndSelectAll
        | DomOp::SetValue
        | DomOp::SelectOption
        | DomOp::ScrollIntoView
        | DomOp::DispatchChange
        | DomOp::ReadValue
        | DomOp::JsClick => {}
    }
    match b {
        BlockerOp::Scan | BlockerOp::State | BlockerOp::Remove | BlockerOp::RemoveLayer | BlockerOp::ScanDocument => {}
    }
}

/// The name serde writes for a unit variant.
fn name<T: Serialize>(v: T) -> String {
    serde_json::to_value(v).unwrap().as_str().unwrap().to_string()
}

/// JSON string literals (with their quotes) both read alike.
const STRINGS: &[&str] = &[
    r#""""#,
    r#""plain""#,
    r#""\"quoted\"""#,
    r#""back\\slash""#,
    r#""ends with \\""#,
    r#""\\u0041 is no escape""#,
    r#""sl\/ash""#,
    r#""\b\f\n\r\t""#,
    r#""\u0000\u001f\u001F\u007f""#,
    r#""\u00e9\u00C9\u20ac\uFFFD""#,
    r#""\ud83d\ude00 \uD83D\uDE00""#,
    "\"é€😀 中文 \u{7f}\"",
    r#""\u2028\u2029""#,
    r##""#app >>> form[name=\"q\"]""##,
    r#""xpath=//a[@title='x' and text()=\"y\"]""#,
];

/// JSON string literals both reject.
const BAD_STRINGS: &[&str] = &[
    r#""\x41""#,
    r#""\'""#,
    r#""\u00""#,
    r#""\u00e""#,
    r#""\u12G4""#,
    r#""\"#,
    r#""open"#,
];

/// Requests both read, built around `T::BODY`.
fn around_body<T: Request>() -> Vec<String> {
    let b = &T::body();
    let deep = |k: usize| format!("{{{b},\"x\":{}{}}}", "[".repeat(k), "]".repeat(k));
    vec![
        format!("{{{b}}}"),
        format!(" \t\r\n{{ \n{b} \t}} \r\n"),
        format!("{{{}}}", b.replace(':', " : ")),
        // Unknown fields of every kind, before and after.
        format!("{{{b},\"unknown\":1}}"),
        format!("{{\"unknown\":{{\"a\":[1,-2.5e-3,\"x\\\"y\",null,true,false,{{}}],\"b\":[]}},{b}}}"),
        format!("{{{b},\"zz\":null,\"\":\"\",\"op2\":\"weird\"}}"),
        format!("{{{b},\"unknown\":\"\\ud83d\\ude00\\u00e9\\\\\\\"\\/\"}}"),
        format!("{{{b},\"unknown\":123456789012345678901234567890}}"),
        format!("{{{b},\"unknown\":1e400,\"u2\":-0,\"u3\":5E-324}}"),
        format!("{{{b},\"REF_PREFIX\":\"f9\",\"Target\":\"e9\",\"OP\":\"x\"}}"),
        // Nesting up to wire's limit.
        deep(16),
    ]
}

/// Malformed JSON around `T::BODY` (for `@`): both reject.
fn broken_around_body<T: Request>() -> Vec<String> {
    let b = &T::body();
    let mut v: Vec<String> = [
        "",
        " ",
        "{",
        "}",
        "null",
        "true",
        "1",
        "\"x\"",
        "{@",
        "{@,}",
        "{,@}",
        "{@} x",
        "{@}{}",
        "{@};",
        "{@;\"x\":1}",
        "{@,\"x\"}",
        "{@,\"x\":}",
        "{@,\"x\" 1}",
        "{@,x:1}",
        "{@,'x':1}",
        "{@,\"x\":tru}",
        "{@,\"x\":nul}",
        "{@,\"x\":True}",
        "{@,\"x\":[1,]}",
        "{@,\"x\":[1 2]}",
        "{@,\"x\":{\"a\"}}",
        "{@,\"x\":+1}",
        "{@,\"x\":.5}",
        "{@,\"x\":NaN}",
        "{@,\"x\":Infinity}",
        "{@,\"x\":-}",
        "{@,\"x\":1e}",
        "{@,\"x\":1e+}",
        "{@,\"x\":--1}",
        "{@,\"x\":0x10}",
        "{@} // note",
        "/* note */{@}",
        "{@,\u{a0}\"x\":1}",
    ]
    .iter()
    .map(|t| t.replace('@', b))
    .collect();
    v.extend(BAD_STRINGS.iter().map(|s| format!("{{{b},\"x\":{s}}}")));
    v
}

fn generic_cases<T: Request>() {
    for json in around_body::<T>() {
        read::<T>(&json);
    }
    for json in broken_around_body::<T>() {
        rejected::<T>(&json);
    }
    for s in STRINGS {
        read::<T>(&T::with_string().replace("{}", s));
    }
    for s in BAD_STRINGS {
        rejected::<T>(&T::with_string().replace("{}", s));
    }
}

#[test]
fn every_request_type_around_a_valid_body() {
    generic_cases::<FrameSnapshotRequest>();
    generic_cases::<TargetRequest>();
    generic_cases::<DomAction>();
    generic_cases::<BlockerRequest>();
    generic_cases::<StitchRequest>();
}

#[test]
fn frame_snapshot_requests() {
    type R = FrameSnapshotRequest;
    for json in [
        "{}",
        r#"{"mode":"full"}"#,
        r#"{"mode":"viewport"}"#,
        r#"{"ref_prefix":"f12"}"#,
        r#"{"visible_clip":{"x":1.5,"y":-2,"width":300,"height":200.25}}"#,
        r#"{"visible_clip":{"height":4,"width":3,"y":2,"x":1,"extra":[5]}}"#,
        r#"{"visible_clip":null}"#,
        r##"{"root_selector":"#app >>> form"}"##,
        r#"{"root_selector":null}"#,
        r#"{"obscured_mode":"outline"}"#,
        r#"{"obscured_mode":"mark"}"#,
        r#"{"obscured_mode":"drop"}"#,
        r#"{"obscure_all":true}"#,
        r#"{"obscure_all":false}"#,
        r#"{"obscure_except_frame":"k3"}"#,
        r#"{"obscure_except_frame":null}"#,
        r#"{"hit_test":false}"#,
        r#"{"hit_test":true}"#,
        r#"{"hit_test":false,"obscure_except_frame":"7","obscure_all":true,"obscured_mode":"drop","root_selector":"main","visible_clip":{"x":0,"y":0,"width":0,"height":0},"ref_prefix":"f2","mode":"viewport"}"#,
        r#"{"\u006dode":"view\u0070ort","ref_prefi\u0078":"f\u0031"}"#,
    ] {
        read::<R>(json);
    }
    for json in [
        r#"{"mode":"weird"}"#,
        r#"{"mode":"Full"}"#,
        r#"{"mode":"VIEWPORT"}"#,
        r#"{"mode":""}"#,
        r#"{"obscured_mode":"hide"}"#,
        r#"{"obscured_mode":"Mark"}"#,
    ] {
        rejected::<R>(json);
    }
    // Every value the driver can send, as serde writes it.
    let strings = ["", "f1", "#a \"b\" \\ é😀\n\u{1}"];
    for mode in MODES {
        read::<R>(&format!(r#"{{"mode":"{}"}}"#, name(mode)));
        for obscured_mode in OBSCURED_MODES {
            read::<R>(&format!(r#"{{"obscured_mode":"{}"}}"#, name(obscured_mode)));
            for (i, s) in strings.iter().enumerate() {
                for flags in 0..4 {
                    let req = R {
                        mode,
                        ref_prefix: s.to_string(),
                        visible_clip: (flags & 1 == 1).then(|| Rect::new(0.5, -3.0, 1280.0, 719.984375 + i as f64)),
                        root_selector: (i > 0).then(|| s.to_string()),
                        obscured_mode,
                        obscure_all: flags & 2 == 2,
                        obscure_except_frame: (flags == 3).then(|| s.to_string()),
                        hit_test: flags & 1 == 0,
                    };
                    read::<R>(&written(&req));
                }
            }
        }
    }
    read::<R>(&written(&R::default()));
    // serde's field defaults are the `Default` impl, which wire starts from.
    assert_eq!(written(&R::wire("{}").unwrap()), written(&R::default()));
}

#[test]
fn target_requests() {
    type R = TargetRequest;
    for json in [
        r#"{"target":"e1"}"#,
        r#"{"target":""}"#,
        r#"{"target":"e1","scroll":true}"#,
        r#"{"target":"e1","scroll":false}"#,
        r#"{"scroll":true,"target":"f2e10"}"#,
        r#"{"t\u0061rget":"e\u0031"}"#,
        // As the driver's `JSON.stringify({ target, scroll })` writes it.
        r#"{"target":"xpath=//button[1]","scroll":true}"#,
    ] {
        read::<R>(json);
    }
    for json in [
        "{}",
        r#"{"scroll":true}"#,
        r#"{"target":null}"#,
        r#"{"target":1}"#,
        r#"{"Target":"e1"}"#,
    ] {
        rejected::<R>(json);
    }
    for target in ["e1", "", "#a >>> b", "xpath=//a[@x=\"1\"]", "é😀\t\\"] {
        for scroll in [false, true] {
            read::<R>(&written(&R {
                target: target.into(),
                scroll,
            }));
        }
    }
}

#[test]
fn dom_actions() {
    type R = DomAction;
    for op in DOM_OPS {
        let name = name(op);
        read::<R>(&format!(r#"{{"op":"{name}"}}"#));
        read::<R>(&format!(r#"{{"op":"{name}","target":"e4"}}"#));
        // As the driver's `json!` writes them (keys sorted).
        read::<R>(&format!(r#"{{"op":"{name}","target":"e4","value":"2026-01-31"}}"#));
        read::<R>(&format!(r#"{{"op":"{name}","target":"f1e2","values":["M","L"]}}"#));
        let full = R {
            value: Some("v\"\\é".into()),
            values: vec!["".into(), "Medium ".into(), "😀".into()],
            percent: 37.5,
            dx: -120.0,
            dy: 0.25,
            ..R::new(op, Some("e4"))
        };
        read::<R>(&written(&full));
        read::<R>(&written(&R::new(op, None)));
    }
    for json in [
        r#"{"op":"jsClick","target":null,"value":null}"#,
        r#"{"op":"selectOption","values":[]}"#,
        r#"{"op":"selectOption","values":["a","b\"c",""]}"#,
        r#"{"op":"jsClick","percent":0,"dx":-0.5,"dy":1e2}"#,
        r#"{"dy":3,"dx":2,"percent":1,"values":["x"],"value":"y","target":"z","op":"setValue"}"#,
    ] {
        read::<R>(json);
    }
    for json in [
        "{}",
        r#"{"target":"e1"}"#,
        r#"{"op":null}"#,
        r#"{"op":"click"}"#,
        r#"{"op":"JsClick"}"#,
        r#"{"op":"js_click"}"#,
        r#"{"op":""}"#,
        r#"{"op":7}"#,
    ] {
        rejected::<R>(json);
    }
}

#[test]
fn blocker_requests() {
    type R = BlockerRequest;
    for op in BLOCKER_OPS {
        let name = name(op);
        read::<R>(&format!(r#"{{"op":"{name}"}}"#));
        read::<R>(&format!(r#"{{"op":"{name}","target":"e7"}}"#));
        read::<R>(&format!(r#"{{"target":null,"op":"{name}"}}"#));
        for target in [None, Some("e7"), Some("div.modal >>> button")] {
            read::<R>(&written(&R {
                op,
                target: target.map(str::to_string),
            }));
        }
    }
    for json in [
        "{}",
        r#"{"target":"e1"}"#,
        r#"{"op":null}"#,
        r#"{"op":"Scan"}"#,
        r#"{"op":"remove-layer"}"#,
        r#"{"op":"removeLayer"}"#,
        r#"{"op":"click","target":"e1"}"#,
    ] {
        rejected::<R>(json);
    }
}

#[test]
fn stitch_requests() {
    type R = StitchRequest;
    let empty = empty_snapshot();
    let full = SNAPSHOT_WITH_STRINGS.replace("{}", r#""x""#);
    // Optional fields left out, the others in another order.
    let minimal = r#"{"stats":{"refs":0,"elements":3,"engine_ms":1},"offscreen":{"below":0,"above":0},"refs":{"e1":{"selector":"b","name":"","role":"button","in_viewport":false}},"viewport":{"at_bottom":true,"at_top":true,"pages_below":0,"pages_above":0,"doc_height":10,"doc_width":10,"viewport_height":10,"viewport_width":10,"scroll_y":0,"scroll_x":0},"frame_slots":[{"content_rect":{"height":1,"width":1,"y":0,"x":0},"key":"k","depth":0,"line":0}],"lines":[],"title":"","url":"","protocol":1}"#;
    for json in [
        format!(r#"{{"frames":[{{"snapshot":{empty}}}]}}"#),
        format!(r#"{{"frames":[{{"snapshot":{minimal}}}]}}"#),
        format!(r#"{{"frames":[{{"parent":null,"key":"","prefix":"","snapshot":{full}}}]}}"#),
        // The main frame's parent and key mean nothing.
        format!(r#"{{"frames":[{{"parent":4,"key":"main","snapshot":{empty}}}]}}"#),
        format!(
            r#"{{"mode":"full","frames":[{{"snapshot":{full}}},{{"parent":0,"key":"k1","prefix":"f1","snapshot":{minimal}}},{{"snapshot":{empty},"prefix":"f2","key":"k2","parent":1}}]}}"#
        ),
        // Siblings and their children interleaved: children stay in order.
        format!(
            r#"{{"mode":"viewport","frames":[{{"snapshot":{empty}}},{{"parent":0,"key":"a","prefix":"f1","snapshot":{empty}}},{{"parent":0,"key":"b","prefix":"f2","snapshot":{full}}},{{"parent":1,"key":"a1","prefix":"f3","snapshot":{minimal}}},{{"parent":0,"key":"c","prefix":"f4","snapshot":{empty}}},{{"parent":1,"key":"a2","prefix":"f5","snapshot":{empty}}}]}}"#
        ),
    ] {
        read::<R>(&json);
    }
    for json in [
        "{}".to_string(),
        r#"{"mode":"viewport"}"#.into(),
        format!(r#"{{"mode":"odd","frames":[{{"snapshot":{empty}}}]}}"#),
        format!(r#"{{"mode":"Full","frames":[{{"snapshot":{empty}}}]}}"#),
        format!(r#"{{"frames":[{{"snapshot":{empty}}},{{"parent":0}}]}}"#),
        r#"{"frames":[{"snapshot":null}]}"#.into(),
        format!(r#"{{"frames":{{"snapshot":{empty}}}}}"#),
    ] {
        rejected::<R>(&json);
    }
    // What the types cannot say: at least one frame, parents come first.
    unstitchable(r#"{"frames":[]}"#, "no frames");
    let orphan = |parent: &str| {
        format!(
            r#"{{"frames":[{{"snapshot":{empty}}},{{"parent":{parent},"key":"k","prefix":"f1","snapshot":{empty}}}]}}"#
        )
    };
    for parent in ["null", "1", "3"] {
        unstitchable(&orphan(parent), "frame 1 must name an earlier frame as its parent");
    }
    // As the hosts send them: snapshots serde wrote.
    let snap = full_snapshot();
    for mode in MODES {
        for n in 1..5_usize {
            let request = R {
                mode,
                frames: (0..n)
                    .map(|i| StitchFrame {
                        parent: i.checked_sub(1).map(|p| p / 2),
                        key: if i == 0 { String::new() } else { format!("k{i}") },
                        prefix: if i == 0 { String::new() } else { format!("f{i}") },
                        snapshot: if i % 2 == 0 {
                            snap.clone()
                        } else {
                            FrameSnapshot::default()
                        },
                    })
                    .collect(),
            };
            read::<R>(&written(&request));
        }
    }
    // What wire reads is what serde wrote, field by field.
    let (root, mode) = wire::stitch_request(&written(&R {
        mode: SnapshotMode::Viewport,
        frames: vec![StitchFrame {
            snapshot: snap.clone(),
            ..Default::default()
        }],
    }))
    .unwrap();
    assert_eq!((root.snapshot, mode), (snap, SnapshotMode::Viewport));
}

/// Plain decimals (what layout and percentages give) read to the same f64.
#[test]
fn numbers_read_alike() {
    let numbers = "0 -0 0.0 -0.0 1 -1 0.5 0.1 0.25 37.5 -2.5e1 1E2 1e-2 2.5E+3 1e0 100.00000 1280 -120 719.984375 123456789 9007199254740993 1e22 1e-22";
    for n in numbers.split(' ') {
        read::<DomAction>(&format!(r#"{{"op":"jsClick","percent":{n},"dx":{n},"dy":{n}}}"#));
        read::<FrameSnapshotRequest>(&format!(
            r#"{{"visible_clip":{{"x":{n},"y":{n},"width":{n},"height":{n}}}}}"#
        ));
    }
    // What the driver writes for pixel positions and percentages.
    for i in -4000..=4000 {
        for v in [f64::from(i) / 64.0, f64::from(i) / 10.0, f64::from(i) * 1.5] {
            read::<DomAction>(&written(&DomAction {
                percent: v,
                dx: v,
                dy: -v,
                ..DomAction::new(DomOp::JsClick, None)
            }));
        }
    }
}

/// `count` f64 values from a fixed xorshift sequence, `shape` applied to
/// the raw bits; non-finite and (nearly) subnormal values skipped.
fn sample_f64s(count: usize, shape: impl Fn(u64) -> u64) -> Vec<f64> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = f64::from_bits(shape(state));
        if v.is_finite() && (v == 0.0 || v.abs() > 1e-300) {
            out.push(v);
        }
    }
    out
}

/// How many ulps apart wire's and serde's readings of `v` as serde writes it are.
fn ulps_apart(v: f64) -> u64 {
    let json = written(&DomAction {
        percent: v,
        ..DomAction::new(DomOp::JsClick, None)
    });
    let ours = wire::dom_action(&json).unwrap().percent;
    let theirs = serde_json::from_str::<DomAction>(&json).unwrap().percent;
    (ours.to_bits() as i64 - theirs.to_bits() as i64).unsigned_abs()
}

/// Any f64 from 2^-10 to 2^24 (pixels and percentages, with all 17
/// significant digits serde may write) reads to the same f64.
#[test]
fn numbers_of_page_magnitude_read_alike() {
    // Exponents 2^-10 ..= 2^23, random sign and mantissa.
    let values = sample_f64s(20_000, |bits| {
        (bits & 0x800f_ffff_ffff_ffff) | ((1013 + (bits >> 52) % 34) << 52)
    });
    for v in values {
        assert_eq!(ulps_apart(v), 0, "{v:e}");
    }
}

/// Beyond that, wire reads within a few ulps of serde (`number.rs` trades
/// exact rounding for .wasm bytes; serde's default parsing is itself up to
/// 2 ulps off). Pinned here so a change shows.
#[test]
fn numbers_of_any_magnitude_within_five_ulps() {
    let values = sample_f64s(20_000, |bits| bits);
    let worst = values.iter().map(|&v| ulps_apart(v)).max().unwrap_or(0);
    assert!(worst <= 5, "{worst} ulps apart");
}

/// Where the two part. None of these is a request the driver writes.
#[test]
fn known_differences() {
    type F = FrameSnapshotRequest;
    type T = TargetRequest;
    type D = DomAction;
    type B = BlockerRequest;
    type S = StitchRequest;

    // A field of the wrong type (null included) reads as absent.
    wire_only::<F>(r#"{"mode":null}"#, "{}");
    wire_only::<F>(r#"{"mode":1}"#, "{}");
    wire_only::<F>(r#"{"obscured_mode":null}"#, "{}");
    wire_only::<F>(r#"{"ref_prefix":null}"#, "{}");
    wire_only::<F>(r#"{"root_selector":5}"#, "{}");
    wire_only::<F>(r#"{"obscure_all":0}"#, "{}");
    wire_only::<F>(r#"{"hit_test":"no"}"#, "{}");
    wire_only::<F>(r#"{"hit_test":null}"#, "{}");
    wire_only::<F>(r#"{"visible_clip":5}"#, "{}");
    wire_only::<F>(
        r#"{"visible_clip":{"x":1}}"#,
        r#"{"visible_clip":{"x":1,"y":0,"width":0,"height":0}}"#,
    );
    wire_only::<F>(
        r#"{"visible_clip":{"x":"1","y":2,"width":3,"height":null}}"#,
        r#"{"visible_clip":{"x":0,"y":2,"width":3,"height":0}}"#,
    );
    wire_only::<T>(r#"{"target":"e1","scroll":"yes"}"#, r#"{"target":"e1"}"#);
    wire_only::<T>(r#"{"target":"e1","scroll":null}"#, r#"{"target":"e1"}"#);
    wire_only::<D>(r#"{"op":"jsClick","target":5}"#, r#"{"op":"jsClick"}"#);
    wire_only::<D>(r#"{"op":"jsClick","values":null}"#, r#"{"op":"jsClick"}"#);
    wire_only::<D>(r#"{"op":"jsClick","values":"a"}"#, r#"{"op":"jsClick"}"#);
    wire_only::<D>(
        r#"{"op":"jsClick","values":["a",1,null,"b"]}"#,
        r#"{"op":"jsClick","values":["a","b"]}"#,
    );
    wire_only::<D>(r#"{"op":"jsClick","percent":null}"#, r#"{"op":"jsClick"}"#);
    wire_only::<D>(r#"{"op":"jsClick","dx":"5"}"#, r#"{"op":"jsClick"}"#);
    wire_only::<B>(r#"{"op":"remove","target":7}"#, r#"{"op":"remove"}"#);

    // A repeated field: the first one counts (serde refuses).
    wire_only::<F>(r#"{"mode":"viewport","mode":"full"}"#, r#"{"mode":"viewport"}"#);
    wire_only::<T>(r#"{"target":"a","target":"b"}"#, r#"{"target":"a"}"#);
    wire_only::<D>(r#"{"op":"setValue","op":"jsClick"}"#, r#"{"op":"setValue"}"#);
    wire_only::<B>(r#"{"op":"scan","op":"nonsense"}"#, r#"{"op":"scan"}"#);

    // Number forms JSON forbids.
    wire_only::<D>(r#"{"op":"jsClick","percent":01}"#, r#"{"op":"jsClick","percent":1}"#);
    wire_only::<D>(r#"{"op":"jsClick","percent":1.}"#, r#"{"op":"jsClick","percent":1}"#);
    wire_only::<D>(
        r#"{"op":"jsClick","percent":-.5}"#,
        r#"{"op":"jsClick","percent":-0.5}"#,
    );
    wire_only::<T>(r#"{"target":"e1","x":01}"#, r#"{"target":"e1"}"#);
    // Out of f64's range: infinity (serde refuses).
    assert!(serde_json::from_str::<D>(r#"{"op":"jsClick","percent":1e400}"#).is_err());
    assert_eq!(
        wire::dom_action(r#"{"op":"jsClick","percent":1e400}"#).unwrap().percent,
        f64::INFINITY
    );

    // Raw control characters inside strings.
    wire_only::<T>("{\"target\":\"a\nb\tc\u{1}\"}", r#"{"target":"a\nb\tc\u0001"}"#);
    // Unpaired surrogates: U+FFFD. A high surrogate followed by any other
    // `\u` escape is combined with it regardless.
    wire_only::<T>(r#"{"target":"\ud800"}"#, r#"{"target":"\ufffd"}"#);
    wire_only::<T>(r#"{"target":"\udc00x"}"#, r#"{"target":"\ufffdx"}"#);
    wire_only::<T>(r#"{"target":"\ud83d\u0041"}"#, r#"{"target":"\ud83d\udc41"}"#);

    // In a stitch request: a snapshot missing fields (serde requires them),
    // numbers that are no integer of their type, a map that is no map.
    let empty = empty_snapshot();
    let frames = |snap: &str| format!(r#"{{"frames":[{{"snapshot":{snap}}}]}}"#);
    let changed = |from: &str, to: &str| {
        assert!(empty.contains(from), "{from}");
        frames(&empty.replacen(from, to, 1))
    };
    wire_only::<S>(
        &format!(r#"{{"mode":null,"frames":[{{"snapshot":{empty}}}]}}"#),
        &frames(&empty),
    );
    wire_only::<S>(&frames("{}"), &frames(&empty));
    wire_only::<S>(&changed(r#""refs":{}"#, r#""refs":[]"#), &frames(&empty));
    wire_only::<S>(&changed(r#""modal":null"#, r#""modal":5"#), &frames(&empty));
    wire_only::<S>(&changed(r#""pages_above":0"#, r#""pages_above":-3"#), &frames(&empty));
    wire_only::<S>(
        &changed(r#""elements":0"#, r#""elements":1.5"#),
        &changed(r#""elements":0"#, r#""elements":1"#),
    );
    let three = |parent: &str| {
        format!(
            r#"{{"frames":[{{"parent":"main","snapshot":{empty}}},{{"parent":0,"snapshot":{empty}}},{{"parent":{parent},"snapshot":{empty}}}]}}"#
        )
    };
    let three_ok = |parent: &str| three(parent).replacen(r#""parent":"main","#, "", 1);
    wire_only::<S>(&three("0"), &three_ok("0"));
    wire_only::<S>(&three_ok("-1"), &three_ok("0"));
    wire_only::<S>(&three_ok("1.5"), &three_ok("1"));

    // Objects only: serde's derive also reads a struct from an array, and a
    // unit variant from `{"variant": null}`.
    serde_only::<F>("[]");
    serde_only::<T>(r#"["e1",true]"#);
    serde_only::<B>(r#"["scan"]"#);
    serde_only::<D>(r#"["jsClick","e1",null,[],0,0,0]"#);
    serde_only::<S>(&format!(r#"["viewport",[[null,"","",{empty}]]]"#));
    read_differently::<F>(r#"{"visible_clip":[1,2,3,4]}"#, "{}");
    read_differently::<F>(r#"{"mode":{"viewport":null}}"#, "{}");

    // Nesting deeper than 16, even in an unknown field (requests are flat).
    let deep = |body: String| format!("{{{body},\"x\":{}{}}}", "[".repeat(17), "]".repeat(17));
    serde_only::<F>(&deep(F::body()));
    serde_only::<T>(&deep(T::body()));
    serde_only::<D>(&deep(D::body()));
    serde_only::<B>(&deep(B::body()));
    serde_only::<S>(&deep(S::body()));
}
