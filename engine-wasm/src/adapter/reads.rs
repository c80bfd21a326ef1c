//! The walk's per-element DOM reads, batched in JS (`dom_reads.js`).
//!
//! Through web-sys, an element's box costs six calls across the boundary
//! (`getBoundingClientRect` and four getters, plus the `DOMRect` handle) and
//! its style keywords about ten (`getComputedStyle`, each getter, each
//! `===` against an interned keyword). `dom_reads.js` does both on the JS
//! side, in one call each: the box is written to a scratch buffer in this
//! module's memory, the keywords come back as bits. Likewise the kept
//! attributes (one string, one conversion) and text data (`null` when
//! blank). Only reading and encoding happen there; what to read and what
//! it means is decided here.
use super::js::{Keywords, RegExpView, StyleView};
use crate::dom::{Display, Position};
use crate::protocol::Rect;
use std::cell::UnsafeCell;
use wasm_bindgen::prelude::*;
use web_sys::Element;

#[wasm_bindgen(js_namespace = __sl_reads)]
extern "C" {
    #[wasm_bindgen(js_name = bind)]
    fn js_bind(memory: &JsValue, ptr: u32, relevant_attr: &RegExpView, class_or_data_attr: &RegExpView);
    /// Records an element the main-world hook announced as clickable.
    #[wasm_bindgen(js_name = addClickable)]
    pub fn add_clickable(el: &JsValue);
    #[wasm_bindgen(js_name = kids)]
    fn js_kids(parent: &web_sys::Node, ptr: u32, cap: u32) -> u32;
    #[wasm_bindgen(js_name = kid)]
    fn js_kid(i: u32) -> Element;
    #[wasm_bindgen(js_name = kidText)]
    fn js_kid_text(i: u32) -> String;
    #[wasm_bindgen(js_name = element)]
    fn js_element(el: &Element) -> u32;
    #[wasm_bindgen(js_name = tagName)]
    fn js_tag_name(id: u32) -> String;
    #[wasm_bindgen(js_name = rect)]
    fn js_rect(el: &Element);
    #[wasm_bindgen(js_name = aim)]
    fn js_aim(el: &Element);
    #[wasm_bindgen(js_name = style)]
    fn js_style(el: &Element, want: u32) -> u32;
    #[wasm_bindgen(js_name = last)]
    fn js_last() -> StyleView;
    #[wasm_bindgen(js_name = clickStandIn)]
    fn js_click_stand_in(el: &Element) -> Option<Element>;
    #[wasm_bindgen(js_name = pseudo)]
    fn js_pseudo(el: &Element, which: &js_sys::JsString) -> Option<String>;
    #[wasm_bindgen(js_name = lastPosition)]
    fn js_last_position() -> u32;
    #[wasm_bindgen(js_name = lastScrolls)]
    fn js_last_scrolls() -> bool;
    /// A text node's data; `None` when it is whitespace only (not converted).
    #[wasm_bindgen(js_name = text)]
    pub fn text(node: &web_sys::Node) -> Option<String>;
    #[wasm_bindgen(js_name = attrs)]
    fn js_attrs(el: &Element, with_classes: bool) -> Option<String>;
    /// The ref registry (see `EngineState::ref_number`).
    #[wasm_bindgen(js_name = refNumber)]
    pub fn ref_number(el: &Element) -> u32;
    #[wasm_bindgen(js_name = existingRef)]
    fn js_existing_ref(el: &Element) -> u32;
    #[wasm_bindgen(js_name = refElement)]
    pub fn ref_element(n: u32) -> Option<Element>;
    #[wasm_bindgen(js_name = pruneRefs)]
    pub fn prune_refs(live_refs: u32);
    /// An element's shadow root, closed ones too (see `dom_reads.js`):
    /// `Element::shadow_root` reads the per-element `shadowRoot` the
    /// main-world hook gives page scripts when the engine runs in the
    /// page's own world.
    #[wasm_bindgen(js_name = shadowRoot)]
    pub fn shadow_root(el: &Element) -> Option<web_sys::ShadowRoot>;
    /// Painted fully transparent and not fading (see `dom_reads.js`).
    pub fn transparent(el: &Element) -> bool;
    /// Clipped out of sight at a point by an ancestor (see `dom_reads.js`).
    pub fn clipped(el: &Element, x: f64, y: f64) -> bool;
    /// An `<img>` still loading (see `dom_reads.js`).
    pub fn loading(img: &Element) -> bool;
    /// A media player's state in words (see `dom_reads.js`).
    pub fn media(el: &Element) -> String;
    /// A file input's chosen files' names, comma-separated.
    pub fn files(el: &Element) -> String;
}

/// The element's ref number, if it was given one.
pub fn existing_ref_number(el: &Element) -> Option<u32> {
    Some(js_existing_ref(el)).filter(|&n| n != 0)
}

/// Where `dom_reads.js` writes a box: x, y, width, height.
struct Scratch(UnsafeCell<[f64; 4]>);
// The engine is single-threaded (one JS world per instance).
unsafe impl Sync for Scratch {}
static RECT: Scratch = Scratch(UnsafeCell::new([0.0; 4]));

/// Tells the JS side where to write boxes and which attributes to keep.
/// Once per world, before any read.
pub fn bind(kw: &Keywords) {
    js_bind(
        &wasm_bindgen::memory(),
        RECT.0.get() as u32,
        &kw.relevant_attr,
        &kw.class_or_data_attr,
    );
}

/// What the walk knows about an element before reading it (one word from
/// `dom_reads.js`: bit 0 element, 4 shadow root, 8 click handler property
/// or listener, 16 child nodes, tag id from bit 8).
#[derive(Debug, Clone, Copy)]
pub struct ElementFacts {
    pub tag_id: u32,
    pub shadow_root: bool,
    pub click_handler: bool,
    pub has_children: bool,
}

impl ElementFacts {
    fn decode(word: u32) -> Self {
        ElementFacts {
            tag_id: word >> 8,
            shadow_root: word & 4 != 0,
            click_handler: word & 8 != 0,
            has_children: word & 16 != 0,
        }
    }
}

/// An element or text child, as `children` enumerates them.
pub enum Child {
    /// With its 1-based index among same-name siblings.
    Element(Element, ElementFacts, u32),
    /// The text's data; `None` when it is whitespace only (not converted).
    Text(Option<String>),
}

/// The element and text children of `parent`, in order (inside `<svg>`
/// only titles, text, links and what carries ARIA: see `svgKid` in
/// `dom_reads.js`). The node list and the facts come
/// from one enumeration in JS; only elements cross as handles, and only
/// non-blank text as strings.
pub fn children(parent: &web_sys::Node) -> Vec<Child> {
    KIDS_INFO.with(|buf| {
        let mut info = buf.borrow_mut();
        let mut n = js_kids(parent, info.as_mut_ptr() as u32, info.len() as u32) as usize;
        if 2 * n > info.len() {
            // More children than ever before: again, with room for them.
            info.resize(2 * n, 0);
            n = js_kids(parent, info.as_mut_ptr() as u32, info.len() as u32) as usize;
        }
        // The JS side wrote through the pointer, outside Rust's view.
        let info: &[u32] = std::hint::black_box(&info[..2 * n]);
        decode_children(info)
    })
}

thread_local! {
    /// Where `kids` writes its facts (two words a child); grown as needed.
    static KIDS_INFO: std::cell::RefCell<Vec<u32>> = std::cell::RefCell::new(vec![0; 512]);
}

fn decode_children(info: &[u32]) -> Vec<Child> {
    let mut out = Vec::with_capacity(info.len() / 2);
    for (i, pair) in info.chunks_exact(2).enumerate() {
        out.push(match pair[0] & 3 {
            1 => Child::Element(js_kid(i as u32), ElementFacts::decode(pair[0]), pair[1]),
            2 => Child::Text(Some(js_kid_text(i as u32))),
            _ => Child::Text(None),
        });
    }
    out
}

/// The label that takes clicks for a control the pointer can't reach
/// (see `clickStandIn` in `dom_reads.js`), or the element itself.
pub fn click_box(el: &Element) -> Element {
    js_click_stand_in(el).unwrap_or_else(|| el.clone())
}

/// The text of `el`'s `which` pseudo-element (`::before`, `::after`):
/// `None` without one, padded with a space on the side that meets the
/// element's own content when the pseudo-element is a box of its own.
pub fn pseudo_text(el: &Element, which: &js_sys::JsString, before: bool) -> Option<String> {
    let raw = js_pseudo(el, which)?;
    let (separate, content) = raw.split_at(1);
    let text = crate::css_content::parse_css_content(content)?;
    Some(match (separate == "1", before) {
        (false, _) => text,
        (true, true) => text + " ",
        (true, false) => " ".to_string() + &text,
    })
}

/// The facts `children` gives, for one element found another way.
pub fn element_facts(el: &Element) -> ElementFacts {
    ElementFacts::decode(js_element(el))
}

/// The local name behind a tag id.
pub fn tag_name(id: u32) -> String {
    js_tag_name(id)
}

/// `el.getBoundingClientRect()`.
pub fn rect(el: &Element) -> Rect {
    js_rect(el);
    // Volatile: the write happened outside Rust's view.
    let [x, y, w, h] = unsafe { std::ptr::read_volatile(RECT.0.get()) };
    Rect::new(x, y, w, h)
}

/// The box a pointer aims at: an inline box broken over lines aims at its
/// first line box in view, not the middle of their union (see `aim` in
/// `dom_reads.js`).
pub fn aim_rect(el: &Element) -> Rect {
    js_aim(el);
    let [x, y, w, h] = unsafe { std::ptr::read_volatile(RECT.0.get()) };
    Rect::new(x, y, w, h)
}

/// The computed style keywords every styled element needs.
#[derive(Debug, Clone, Copy)]
pub struct StyleKeys {
    pub display: Display,
    pub cursor_pointer: bool,
    pub visibility_hidden: bool,
    /// Read only when asked for, or when the cursor is a pointer.
    pub pointer_events_none: bool,
    /// Read only for a plain container (see [`style_keys`]) and a block-level
    /// box in an offscreen boundary (see [`style_keys_offscreen`]).
    pub position: Option<Position>,
    /// `overflow` is `auto` or `scroll` on either axis (plain containers and
    /// block-level boxes in an offscreen boundary only).
    pub overflow_scrolls: bool,
    /// `overflow` is not `visible`: the box clips its content (block-level
    /// boxes in an offscreen boundary only; set with `overflow_scrolls` too).
    pub overflow_clips: bool,
    /// `font-size: 0` (possible targets in an offscreen boundary only).
    pub font_size_zero: bool,
}

/// How an element's `cursor` is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cursor {
    /// Read it.
    Read,
    /// Not needed: the element is a target by its tag, and its descendants
    /// are not separate targets whatever their cursor (see
    /// `interactive::inside_interactive_ancestor`).
    Irrelevant,
    /// Taken as `pointer` without reading: the parent's is, and `cursor` is
    /// inherited (a descendant resetting it to `default` and its own
    /// descendant setting `pointer` again goes unnoticed).
    Inherited,
}

/// Reads display, visibility, the cursor when `cursor` says so, and
/// pointer-events when `pointer_events` or when the cursor is a pointer.
/// For a `plain_container` also position and overflow, which decide whether
/// its box is needed at all (not read when it is laid out inline or has a
/// pointer cursor). The rest of the element's computed style is at hand
/// through [`last_style`] until the next call.
pub fn style_keys(el: &Element, pointer_events: bool, cursor: Cursor, plain_container: bool) -> StyleKeys {
    read_keys(el, pointer_events, cursor, if plain_container { 4 } else { 0 })
}

/// [`style_keys`] for an element inside an offscreen boundary: also the
/// position of a block-level box (inline-level boxes can't be absolute or
/// fixed: those are blockified; `None` then) and, when it has children,
/// whether the overflow of a block or inline-block box scrolls or clips,
/// and for a possible target (`pointer_events`) whether its font size is 0.
pub fn style_keys_offscreen(el: &Element, pointer_events: bool, cursor: Cursor, has_children: bool) -> StyleKeys {
    read_keys(el, pointer_events, cursor, if has_children { 8 | 16 } else { 8 })
}

/// One `style` call; `extra`: its want bits 4, 8 and 16 (see `dom_reads.js`).
fn read_keys(el: &Element, pointer_events: bool, cursor: Cursor, extra: u32) -> StyleKeys {
    let inherited = cursor == Cursor::Inherited;
    let want = u32::from(pointer_events || inherited) | if cursor == Cursor::Read { 2 } else { 0 } | extra;
    let mut keys = decode(js_style(el, want));
    keys.cursor_pointer |= inherited && keys.display != Display::None;
    keys
}

/// The `CSSStyleDeclaration` the last [`style_keys`] call read.
pub fn last_style() -> StyleView {
    js_last()
}

/// The position of the element the last [`style_keys`] call read.
pub fn last_position() -> Position {
    position_from_code(js_last_position()).unwrap_or_default()
}

/// Whether its `overflow` is `auto` or `scroll` on either axis.
pub fn last_overflow_scrolls() -> bool {
    js_last_scrolls()
}

/// `dom_reads.js`'s position numbers (0: not read).
fn position_from_code(code: u32) -> Option<Position> {
    match code {
        1 => Some(Position::Static),
        2 => Some(Position::Relative),
        3 => Some(Position::Absolute),
        4 => Some(Position::Fixed),
        5 => Some(Position::Sticky),
        _ => None,
    }
}

/// Bits 0–2: display (1 none, 2 block, 3 inline, 4 contents, 5 inline-block,
/// 6 other); 8: cursor pointer; 16: visibility not visible; 32:
/// pointer-events none; bits 6–8: position when read (1 static, 2 relative,
/// 3 absolute, 4 fixed, 5 sticky); 512: overflow scrolls; 1024: overflow
/// clips but doesn't scroll; 2048: font-size 0.
fn decode(bits: u32) -> StyleKeys {
    let display = match bits & 7 {
        1 => Display::None,
        2 => Display::Block,
        3 => Display::Inline,
        4 => Display::Contents,
        5 => Display::InlineBlock,
        _ => Display::Other,
    };
    StyleKeys {
        display,
        cursor_pointer: bits & 8 != 0,
        visibility_hidden: bits & 16 != 0,
        pointer_events_none: bits & 32 != 0,
        position: position_from_code((bits >> 6) & 7),
        overflow_scrolls: bits & 512 != 0,
        overflow_clips: bits & (512 | 1024) != 0,
        font_size_zero: bits & 2048 != 0,
    }
}

/// The attributes the pure core reads (`walk::RELEVANT_ATTRS` and
/// prefixes; with `with_classes` also `class` and `data-*`), as
/// (name, value) pairs, in one call and one string conversion.
pub fn attributes(el: &Element, with_classes: bool) -> Vec<(String, String)> {
    let Some(joined) = js_attrs(el, with_classes) else {
        return Vec::new();
    };
    let mut parts = joined.split('\0');
    let mut out = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        out.push((name.to_string(), value.to_string()));
    }
    out
}
