//! A small JSON reader for the engine's *incoming* requests.
//!
//! Why not serde_json here: its deserializer, and the float formatting its
//! error messages pull in, cost 60 to 90 KB of wasm (measured: 59,879 bytes
//! for the four small requests, 92,162 with the stitch request's
//! snapshots), and the `.wasm` has a 250 KB budget. Requests are small
//! objects, so the engine reads them with this parser and maps fields by
//! hand; the driver and the other hosts write them with serde or
//! `JSON.stringify` (`wire_tests.rs` checks that wire reads every request
//! type as serde does). Output JSON is still written by serde.
use super::actions::{DomAction, DomOp, TargetRequest};
use super::blockers::{BlockerOp, BlockerRequest};
use super::snapshot::{
    EngineStats, FrameNode, FrameSlot, FrameSnapshot, FrameSnapshotRequest, ModalInfo, ObscuredMode, OffscreenCounts,
    OverlayWarning, Rect, RefInfo, RefMap, SnapshotMode, ViewportInfo,
};

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// Requests are shallow; deeper input is rejected rather than recursed into.
const MAX_DEPTH: usize = 16;

impl Json {
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str_of(&self, key: &str) -> Option<String> {
        match self.get(key) {
            Some(Json::Str(s)) => Some(s.clone()),
            _ => None,
        }
    }
    fn num_of(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Some(Json::Num(n)) => Some(*n),
            _ => None,
        }
    }
    fn bool_of(&self, key: &str) -> Option<bool> {
        match self.get(key) {
            Some(Json::Bool(b)) => Some(*b),
            _ => None,
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        format!("malformed JSON at byte {}: {what}", self.i)
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn lit(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("unexpected token"))
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end")),
            Some(b'n') => self.lit("null", Json::Null),
            Some(b't') => self.lit("true", Json::Bool(true)),
            Some(b'f') => self.lit("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::Str),
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                if self.eat(b']') {
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Ok(Json::Arr(v));
                    }
                    if !self.eat(b',') {
                        return Err(self.err("expected , or ]"));
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut kv = Vec::new();
                if self.eat(b'}') {
                    return Ok(Json::Obj(kv));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return Err(self.err("expected a key"));
                    }
                    let k = self.string()?;
                    if !self.eat(b':') {
                        return Err(self.err("expected :"));
                    }
                    let v = self.value(depth + 1)?;
                    kv.push((k, v));
                    if self.eat(b'}') {
                        return Ok(Json::Obj(kv));
                    }
                    if !self.eat(b',') {
                        return Err(self.err("expected , or }"));
                    }
                }
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("bad number"))?;
                crate::number::parse_decimal(text)
                    .map(Json::Num)
                    .ok_or_else(|| self.err("bad number"))
            }
            Some(_) => Err(self.err("unexpected character")),
        }
    }
    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("short \\u escape"))?;
        let h = std::str::from_utf8(h).map_err(|_| self.err("bad \\u escape"))?;
        self.i += 4;
        u32::from_str_radix(h, 16).map_err(|_| self.err("bad \\u escape"))
    }
    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while self.i < self.s.len() && self.s[self.i] != b'"' && self.s[self.i] != b'\\' {
                self.i += 1;
            }
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("bad UTF-8"))?);
            match self.s.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                _ => {
                    self.i += 1;
                    let c = *self.s.get(self.i).ok_or_else(|| self.err("bad escape"))?;
                    self.i += 1;
                    match c {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                            }
                            out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.err("bad escape")),
                    }
                }
            }
        }
    }
}

pub fn parse(s: &str) -> Result<Json, String> {
    let mut p = Parser { s: s.as_bytes(), i: 0 };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

fn object(s: &str) -> Result<Json, String> {
    match parse(s)? {
        v @ Json::Obj(_) => Ok(v),
        _ => Err("expected a JSON object".into()),
    }
}

pub fn frame_snapshot_request(s: &str) -> Result<FrameSnapshotRequest, String> {
    let j = object(s)?;
    let mut r = FrameSnapshotRequest::default();
    match j.str_of("mode").as_deref() {
        None | Some("full") => {}
        Some("viewport") => r.mode = SnapshotMode::Viewport,
        Some(m) => return Err(format!("unknown mode \"{m}\"")),
    }
    r.ref_prefix = j.str_of("ref_prefix").unwrap_or_default();
    r.visible_clip = obj(&j, "visible_clip").map(rect);
    r.root_selector = j.str_of("root_selector");
    match j.str_of("obscured_mode").as_deref() {
        None | Some("outline") => {}
        Some("mark") => r.obscured_mode = ObscuredMode::Mark,
        Some("drop") => r.obscured_mode = ObscuredMode::Drop,
        Some(m) => return Err(format!("unknown obscured_mode \"{m}\"")),
    }
    r.obscure_all = j.bool_of("obscure_all").unwrap_or(false);
    r.obscure_except_frame = j.str_of("obscure_except_frame");
    r.hit_test = j.bool_of("hit_test").unwrap_or(true);
    Ok(r)
}

/// `__sightline.blockers(json)`: `{"op": "scan"}`, `{"op": "state", "target"}`,
/// `{"op": "remove", "target"}` or `{"op": "remove_layer", "target"}`.
pub fn blocker_request(s: &str) -> Result<BlockerRequest, String> {
    let j = object(s)?;
    let op = match j.str_of("op").as_deref() {
        Some("scan") => BlockerOp::Scan,
        Some("state") => BlockerOp::State,
        Some("remove") => BlockerOp::Remove,
        Some("remove_layer") => BlockerOp::RemoveLayer,
        Some("scan_document") => BlockerOp::ScanDocument,
        Some(o) => return Err(format!("unknown op \"{o}\"")),
        None => return Err("an op is required".into()),
    };
    Ok(BlockerRequest {
        op,
        target: j.str_of("target"),
    })
}

pub fn target_request(s: &str) -> Result<TargetRequest, String> {
    let j = object(s)?;
    Ok(TargetRequest {
        target: j.str_of("target").ok_or("a target is required")?,
        scroll: j.bool_of("scroll").unwrap_or(false),
    })
}

pub fn dom_action(s: &str) -> Result<DomAction, String> {
    let j = object(s)?;
    let op = match j.str_of("op").as_deref() {
        Some("focusAndSelectAll") => DomOp::FocusAndSelectAll,
        Some("setValue") => DomOp::SetValue,
        Some("selectOption") => DomOp::SelectOption,
        Some("scrollIntoView") => DomOp::ScrollIntoView,
        Some("dispatchChange") => DomOp::DispatchChange,
        Some("readValue") => DomOp::ReadValue,
        Some("jsClick") => DomOp::JsClick,
        Some(o) => return Err(format!("unknown op \"{o}\"")),
        None => return Err("an op is required".into()),
    };
    Ok(DomAction {
        op,
        target: j.str_of("target"),
        value: j.str_of("value"),
        values: strings(&j, "values"),
        percent: j.num_of("percent").unwrap_or(0.0),
        dx: j.num_of("dx").unwrap_or(0.0),
        dy: j.num_of("dy").unwrap_or(0.0),
    })
}

fn text(j: &Json, key: &str) -> String {
    j.str_of(key).unwrap_or_default()
}

fn num(j: &Json, key: &str) -> f64 {
    j.num_of(key).unwrap_or(0.0)
}

fn flag(j: &Json, key: &str) -> bool {
    j.bool_of(key).unwrap_or(false)
}

fn items<'a>(j: &'a Json, key: &str) -> &'a [Json] {
    match j.get(key) {
        Some(Json::Arr(a)) => a,
        _ => &[],
    }
}

/// The object at `key`, when it is one (absent and `null` are `None`).
fn obj<'a>(j: &'a Json, key: &str) -> Option<&'a Json> {
    j.get(key).filter(|v| matches!(v, Json::Obj(_)))
}

fn strings(j: &Json, key: &str) -> Vec<String> {
    items(j, key)
        .iter()
        .filter_map(|v| match v {
            Json::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn rect(j: &Json) -> Rect {
    Rect::new(num(j, "x"), num(j, "y"), num(j, "width"), num(j, "height"))
}

fn viewport(j: &Json) -> ViewportInfo {
    ViewportInfo {
        scroll_x: num(j, "scroll_x"),
        scroll_y: num(j, "scroll_y"),
        viewport_width: num(j, "viewport_width"),
        viewport_height: num(j, "viewport_height"),
        doc_width: num(j, "doc_width"),
        doc_height: num(j, "doc_height"),
        pages_above: num(j, "pages_above") as u32,
        pages_below: num(j, "pages_below") as u32,
        at_top: flag(j, "at_top"),
        at_bottom: flag(j, "at_bottom"),
    }
}

fn ref_info(j: &Json) -> RefInfo {
    RefInfo {
        role: text(j, "role"),
        name: text(j, "name"),
        selector: text(j, "selector"),
        url: j.str_of("url"),
        frame: j.str_of("frame"),
        in_viewport: flag(j, "in_viewport"),
        obscured: flag(j, "obscured"),
        covered_by: j.str_of("covered_by"),
    }
}

fn frame_slot(j: &Json) -> FrameSlot {
    FrameSlot {
        line: num(j, "line") as usize,
        depth: num(j, "depth") as usize,
        key: text(j, "key"),
        content_rect: obj(j, "content_rect").map(rect).unwrap_or_default(),
        obscured: flag(j, "obscured"),
        offscreen: j.str_of("offscreen"),
    }
}

/// A `FrameSnapshot` as the engine serialises it. (Not inlined into its one
/// caller: that costs ~150 bytes of .wasm.)
#[inline(never)]
fn frame_snapshot(j: &Json) -> FrameSnapshot {
    let refs = match j.get("refs") {
        Some(Json::Obj(kv)) => kv.iter().map(|(k, v)| (k.clone(), ref_info(v))).collect(),
        _ => Vec::new(),
    };
    let offscreen = obj(j, "offscreen");
    let stats = obj(j, "stats");
    FrameSnapshot {
        protocol: num(j, "protocol") as u32,
        url: text(j, "url"),
        title: text(j, "title"),
        lines: strings(j, "lines"),
        frame_slots: items(j, "frame_slots").iter().map(frame_slot).collect(),
        viewport: obj(j, "viewport").map(viewport).unwrap_or_default(),
        refs: RefMap(refs),
        offscreen: OffscreenCounts {
            above: offscreen.map(|o| num(o, "above") as u32).unwrap_or(0),
            below: offscreen.map(|o| num(o, "below") as u32).unwrap_or(0),
        },
        modal: obj(j, "modal").map(|m| ModalInfo {
            kind: text(m, "kind"),
            selector: text(m, "selector"),
            name: text(m, "name"),
            ref_id: m.str_of("ref"),
        }),
        overlay_warning: obj(j, "overlay_warning").map(|o| OverlayWarning {
            description: text(o, "description"),
            ref_id: o.str_of("ref"),
            selector: text(o, "selector"),
        }),
        notes: strings(j, "notes"),
        stats: stats
            .map(|s| EngineStats {
                elements: num(s, "elements") as u32,
                refs: num(s, "refs") as u32,
                engine_ms: num(s, "engine_ms"),
                occlusion_ms: num(s, "occlusion_ms"),
                walk_ms: num(s, "walk_ms"),
                serialize_ms: num(s, "serialize_ms"),
            })
            .unwrap_or_default(),
    }
}

/// `__sightline.stitch(json)`: a [`StitchRequest`], read straight into the
/// frame tree and mode `stitch` takes.
pub fn stitch_request(s: &str) -> Result<(FrameNode, SnapshotMode), String> {
    let j = object(s)?;
    let mode = match j.str_of("mode").as_deref() {
        None | Some("full") => SnapshotMode::Full,
        Some("viewport") => SnapshotMode::Viewport,
        Some(m) => return Err(format!("unknown mode \"{m}\"")),
    };
    // (parent index, key, node) in request order.
    let mut frames: Vec<(Option<usize>, String, FrameNode)> = Vec::new();
    for (i, f) in items(&j, "frames").iter().enumerate() {
        let parent = f.num_of("parent").map(|p| p as usize);
        if i > 0 && parent.is_none_or(|p| p >= i) {
            return Err(format!("frame {i} must name an earlier frame as its parent"));
        }
        let snapshot = obj(f, "snapshot").ok_or_else(|| format!("frame {i} has no snapshot"))?;
        frames.push((
            parent,
            text(f, "key"),
            FrameNode {
                snapshot: frame_snapshot(snapshot),
                frame_prefix: text(f, "prefix"),
                children: Vec::new(),
                loading: false,
            },
        ));
    }
    // Children are handed to their parents from the last frame back, so
    // each parent receives them in request order.
    while frames.len() > 1 {
        let (parent, key, node) = frames.pop().expect("more than one frame");
        let parent = parent.expect("checked above");
        frames[parent].2.children.insert(0, (key, node));
    }
    let (_, _, root) = frames.pop().ok_or("no frames")?;
    Ok((root, mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_escapes() {
        let v = parse(r#" {"a": [1, -2.5e1, true, null, "x\"y\u00e9\ud83d\ude00"], "b": {}} "#).unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Json::Arr(vec![
                Json::Num(1.0),
                Json::Num(-25.0),
                Json::Bool(true),
                Json::Null,
                Json::Str("x\"yé😀".into())
            ]))
        );
        for bad in ["", "{", "{\"a\"}", "[1,]", "{\"a\":1} x", "\"abc", "{'a':1}"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(parse(&deep).is_err());
    }
}
