//! Per-world engine state: the ref registry (its maps are kept in
//! `dom_reads.js`), frame keys, and what the
//! main-world hook announced. Lives as long as the document's JS world.
use super::js::Keywords;
use super::walk::TagClass;
use js_sys::{WeakMap, WeakSet};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

pub struct EngineState {
    pub kw: Keywords,
    /// Element local names, converted to Rust once per distinct name.
    pub tags: TagNames,
    /// Which style sheets may generate text (cached across snapshots).
    pub sheets: super::generated_content::SheetVerdicts,
    frame_key_of: WeakMap,
    next_frame_key: Cell<u32>,
    listened_roots: WeakSet,
    listener: Closure<dyn FnMut(web_sys::Event)>,
}

/// Element names by the tag ids `dom_reads.js` gives: a page has a few
/// dozen distinct names but thousands of elements, and converting a JS
/// string to UTF-8 costs far more than reusing the text.
/// Each name's `TagClass` is worked out once too.
#[derive(Default)]
pub struct TagNames {
    names: RefCell<Vec<(String, TagClass)>>,
}

impl TagNames {
    /// The local name behind `id`.
    pub fn name(&self, id: u32) -> String {
        self.with(id, |(name, _)| name.clone())
    }

    /// What the walk needs to know about the name behind `id`.
    pub fn class(&self, id: u32) -> TagClass {
        self.with(id, |(_, class)| *class)
    }

    fn with<T>(&self, id: u32, f: impl FnOnce(&(String, TagClass)) -> T) -> T {
        let mut names = self.names.borrow_mut();
        while names.len() <= id as usize {
            let name = super::reads::tag_name(names.len() as u32);
            let class = TagClass::of(&name);
            names.push((name, class));
        }
        f(&names[id as usize])
    }
}

thread_local! {
    static STATE: RefCell<Option<&'static EngineState>> = const { RefCell::new(None) };
}

/// The state of this world, created on first use and never dropped (it lives
/// exactly as long as the document's JS world).
pub fn state() -> &'static EngineState {
    STATE.with(|s| {
        if let Some(st) = *s.borrow() {
            return st;
        }
        let st: &'static EngineState = Box::leak(Box::new(EngineState::new()));
        *s.borrow_mut() = Some(st);
        st
    })
}

impl EngineState {
    fn new() -> Self {
        // Elements with click-type listeners or handler properties, announced
        // by the main-world hook, are kept by `dom_reads.js`, which reads them.
        let listener = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            if let Some(t) = e.target() {
                super::reads::add_clickable(&t);
            }
        });
        let kw = Keywords::new();
        super::reads::bind(&kw);
        let st = EngineState {
            kw,
            sheets: Default::default(),
            tags: TagNames::default(),
            frame_key_of: WeakMap::new(),
            next_frame_key: Cell::new(0),
            listened_roots: WeakSet::new(),
            listener,
        };
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            let _ = doc.add_event_listener_with_callback_and_bool(
                "__sightline_clickable",
                st.listener.as_ref().unchecked_ref(),
                true,
            );
        }
        st
    }

    /// Asks the main-world hook to announce new click listeners (synchronous).
    pub fn collect_clickables(&self, doc: &web_sys::Document) {
        if let Ok(ev) = web_sys::Event::new("__sightline_collect") {
            let _ = doc.dispatch_event(&ev);
        }
    }

    /// Events from elements inside a shadow root stay inside it; listen there too.
    pub fn listen_in_shadow_root(&self, root: &web_sys::ShadowRoot) {
        if self.listened_roots.has(root.as_ref()) {
            return;
        }
        self.listened_roots.add(root.as_ref());
        let _ = root.add_event_listener_with_callback_and_bool(
            "__sightline_clickable",
            self.listener.as_ref().unchecked_ref(),
            true,
        );
    }

    /// Stable ref number of an element (allocated on first sight). The
    /// registry lives on the JS side (`dom_reads.js`): one call per ref.
    pub fn ref_number(&self, el: &Element) -> u32 {
        super::reads::ref_number(el)
    }

    /// The ref number of an element, without allocating one.
    pub fn existing_ref_number(&self, el: &Element) -> Option<u32> {
        super::reads::existing_ref_number(el)
    }

    /// The element a ref number was given to, if it is still registered.
    pub fn element_for_ref(&self, n: u32) -> Option<Element> {
        super::reads::ref_element(n)
    }

    /// Drops registry entries of elements that left the document, once the
    /// map has grown well past the live ref count.
    pub fn prune(&self, live_refs: usize) {
        super::reads::prune_refs(live_refs.min(u32::MAX as usize) as u32);
    }

    pub fn frame_key_for(&self, el: &Element) -> String {
        let v = self.frame_key_of.get(el.as_ref());
        if let Some(n) = v.as_f64() {
            return format!("k{}", n as u32);
        }
        let n = self.next_frame_key.get() + 1;
        self.next_frame_key.set(n);
        self.frame_key_of.set(el.as_ref(), &JsValue::from(n));
        format!("k{n}")
    }

    pub fn existing_frame_key(&self, el: &Element) -> Option<String> {
        self.frame_key_of
            .get(el.as_ref())
            .as_f64()
            .map(|n| format!("k{}", n as u32))
    }
}
