//! Raw bindings that keep DOM strings as `JsString`.
//!
//! web-sys converts every string it returns to UTF-8 (about 0.5 µs each).
//! The rarer style reads (z-index, content-visibility, generated content;
//! position and overflow are decoded in `dom_reads.js`) only need to know whether a value equals a handful of
//! keywords, so these bindings return `JsString` and the caller compares
//! against interned constants with `===`. (The per-element reads are
//! batched in `dom_reads.js`, see `reads`.)
//! Strings going the other way (attribute names, pseudo-element selectors)
//! are passed as interned `JsString`s too: a `&str` argument is decoded from
//! UTF-8 on every call. Style properties are read through their named
//! getters (`cs.display`), which skip `getPropertyValue`'s name lookup
//! (about 10% cheaper in Chromium).
use js_sys::JsString;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

// Structural views of existing DOM objects (cast with `unchecked_ref`):
// web-sys's own types can't get extra methods from this crate.
#[wasm_bindgen]
extern "C" {
    pub type StyleView;
    #[wasm_bindgen(method, getter, js_name = zIndex)]
    pub fn z_index(this: &StyleView) -> JsString;
    #[wasm_bindgen(method, getter, js_name = contentVisibility)]
    pub fn content_visibility(this: &StyleView) -> JsString;
    #[wasm_bindgen(method, getter)]
    pub fn content(this: &StyleView) -> JsString;

    pub type RegExpView;
    #[wasm_bindgen(method, js_name = test)]
    pub fn test_js(this: &RegExpView, s: &JsString) -> bool;

    pub type ElementView;
    #[wasm_bindgen(method, getter, js_name = localName)]
    pub fn local_name_js(this: &ElementView) -> JsString;
}

pub fn style_view(cs: &web_sys::CssStyleDeclaration) -> &StyleView {
    cs.unchecked_ref()
}
pub fn element_view(e: &web_sys::Element) -> &ElementView {
    e.unchecked_ref()
}

/// Interned keyword strings, created once per world.
pub struct Keywords {
    pub before: JsString,
    pub after: JsString,
    pub none: JsString,
    pub hidden: JsString,
    pub auto: JsString,
    pub normal: JsString,
    /// Attribute names the walk keeps (see `walk::relevant_attr_pattern`).
    pub relevant_attr: RegExpView,
    /// `class` and `data-*` (kept for the blocker scan only).
    pub class_or_data_attr: RegExpView,
}

impl Keywords {
    pub fn new() -> Self {
        let s = |v: &str| JsString::from(v);
        Keywords {
            before: s("::before"),
            after: s("::after"),
            none: s("none"),
            hidden: s("hidden"),
            auto: s("auto"),
            normal: s("normal"),
            relevant_attr: js_sys::RegExp::new(&super::walk::relevant_attr_pattern(), "").unchecked_into(),
            class_or_data_attr: js_sys::RegExp::new("^(?:class$|data-)", "").unchecked_into(),
        }
    }
}

impl Default for Keywords {
    fn default() -> Self {
        Keywords::new()
    }
}
