//! CSS generated content (`::before`/`::after { content: "…" }`) for names.
//!
//! Reading it costs two `getComputedStyle(el, pseudo)` calls per
//! name-from-content element (about 1.8 µs each, the dearest reads of the
//! walk). Most pages generate no text at all, or only on a few elements, so
//! the walk only lists the elements that would need it, and this module reads
//! them afterwards, and only where some stylesheet of the element's tree
//! scope could generate text:
//!
//! - a sheet "may generate text" when one of its style rules has a selector
//!   mentioning `:before`/`:after` and declares a `content` other than `none`,
//!   `normal` or an empty string (clearfix `content: ""` is the common case);
//! - a sheet whose rules can't be read (cross-origin) may generate text;
//! - a scope may generate text when its own sheets (`styleSheets` and
//!   `adoptedStyleSheets`) or those of any enclosing scope may (`::part()`,
//!   `:host::before` and `::slotted()::before` reach across the boundary).
//!
//! Each sheet's verdict is cached in a `WeakMap` keyed by the sheet object
//! with its top-level rule count, so later snapshots re-scan only sheets
//! that were added or grew (CSS-in-JS libraries `insertRule` at the top
//! level). In-place edits of a rule's `content`, or rules inserted inside an
//! `@media` block, are not noticed until the sheet's rule count changes.
use super::js::{style_view, Keywords, RegExpView};
use super::state::EngineState;
use crate::css_content::declared_content_may_add_text;
use crate::dom::{DomTree, NodeId, NodeKind, ScopeId};
use js_sys::{JsString, WeakMap};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, ShadowRoot};

/// Rules scanned per sheet before giving up (and assuming it may generate).
const MAX_RULES_PER_SHEET: u32 = 20_000;
/// Cached verdict of a sheet whose rules can't be read.
const UNREADABLE: f64 = -1.0;

#[wasm_bindgen]
extern "C" {
    /// A `Document` or `ShadowRoot`: both carry style sheets.
    type SheetOwnerView;
    #[wasm_bindgen(method, getter, js_name = styleSheets)]
    fn style_sheets(this: &SheetOwnerView) -> ListView;
    #[wasm_bindgen(method, getter, js_name = adoptedStyleSheets)]
    fn adopted_style_sheets(this: &SheetOwnerView) -> JsValue;

    /// `StyleSheetList` or `CSSRuleList`.
    type ListView;
    #[wasm_bindgen(method, getter)]
    fn length(this: &ListView) -> u32;
    #[wasm_bindgen(method)]
    fn item(this: &ListView, i: u32) -> JsValue;

    type SheetView;
    #[wasm_bindgen(method, getter, catch, js_name = cssRules)]
    fn css_rules(this: &SheetView) -> Result<ListView, JsValue>;

    type RuleView;
    #[wasm_bindgen(method, getter, js_name = selectorText)]
    fn selector_text(this: &RuleView) -> JsValue;
    /// Child rules of grouping rules (`@media`, `@supports`, `@layer`…) and of
    /// nesting style rules; `undefined` elsewhere.
    #[wasm_bindgen(method, getter, js_name = cssRules)]
    fn child_rules(this: &RuleView) -> JsValue;
    /// The imported sheet of an `@import` rule; `undefined` elsewhere.
    #[wasm_bindgen(method, getter, js_name = styleSheet)]
    fn imported_sheet(this: &RuleView) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn style(this: &RuleView) -> JsValue;
}

/// Scans one rule list tree (a sheet's rules, nested and imported ones).
/// `Err` when some part can't be read.
fn rules_may_generate(kw: &Keywords, rules: ListView, pseudo_selector: &RegExpView) -> Result<bool, ()> {
    let mut stack = vec![rules];
    let mut seen = 0u32;
    while let Some(list) = stack.pop() {
        for i in 0..list.length() {
            seen += 1;
            if seen > MAX_RULES_PER_SHEET {
                return Err(());
            }
            let rule: RuleView = list.item(i).unchecked_into();
            let children = rule.child_rules();
            if !children.is_undefined() && !children.is_null() {
                stack.push(children.unchecked_into());
            }
            let imported = rule.imported_sheet();
            if !imported.is_undefined() && !imported.is_null() {
                let sheet: &SheetView = imported.unchecked_ref();
                stack.push(sheet.css_rules().map_err(|_| ())?);
            }
            let selector = rule.selector_text();
            // `test` coerces: `undefined` (not a style rule) never matches.
            if !pseudo_selector.test_js(selector.unchecked_ref()) {
                continue;
            }
            let style = rule.style();
            if style.is_undefined() || style.is_null() {
                continue;
            }
            let content: JsString = style_view(style.unchecked_ref()).content();
            if content.length() == 0 || content == kw.none || content == kw.normal {
                continue;
            }
            if declared_content_may_add_text(&String::from(&content)) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Verdicts per sheet, cached across snapshots (see the module comment).
pub struct SheetVerdicts {
    /// sheet → `rule_count * 2 + verdict`, or `UNREADABLE`.
    cache: WeakMap,
    /// `/:(?:before|after)\b/i`, tested on selector text without converting it.
    pseudo_selector: RegExpView,
}

impl SheetVerdicts {
    pub fn new() -> Self {
        SheetVerdicts {
            cache: WeakMap::new(),
            pseudo_selector: js_sys::RegExp::new(":(?:before|after)\\b", "i").unchecked_into(),
        }
    }

    fn sheet_may_generate(&self, kw: &Keywords, sheet: &JsValue) -> bool {
        let Some(obj) = sheet.dyn_ref::<js_sys::Object>() else {
            return true;
        };
        let cached = self.cache.get(obj).as_f64();
        if cached == Some(UNREADABLE) {
            return true;
        }
        let rules = match sheet.unchecked_ref::<SheetView>().css_rules() {
            Ok(r) => r,
            Err(_) => {
                self.cache.set(obj, &JsValue::from(UNREADABLE));
                return true;
            }
        };
        let count = rules.length() as f64;
        if let Some(c) = cached {
            if (c / 2.0).floor() == count {
                return c % 2.0 == 1.0;
            }
        }
        let verdict = rules_may_generate(kw, rules, &self.pseudo_selector).unwrap_or(true);
        self.cache
            .set(obj, &JsValue::from(count * 2.0 + if verdict { 1.0 } else { 0.0 }));
        verdict
    }

    /// Whether any sheet of a document or shadow root may generate text.
    fn owner_may_generate(&self, kw: &Keywords, owner: &JsValue) -> bool {
        let owner: &SheetOwnerView = owner.unchecked_ref();
        let sheets = owner.style_sheets();
        if (0..sheets.length()).any(|i| self.sheet_may_generate(kw, &sheets.item(i))) {
            return true;
        }
        let adopted = owner.adopted_style_sheets();
        match adopted.dyn_ref::<js_sys::Array>() {
            Some(list) => list.iter().any(|s| self.sheet_may_generate(kw, &s)),
            // No such property (an older browser): no adopted sheets.
            None if adopted.is_undefined() || adopted.is_null() => false,
            // Something unexpected: assume the worst.
            None => true,
        }
    }
}

impl Default for SheetVerdicts {
    fn default() -> Self {
        SheetVerdicts::new()
    }
}

/// The shadow root of each tree scope met by a walk (index = `ScopeId`;
/// scope 0 is the document).
pub struct Scopes {
    pub roots: Vec<Option<ShadowRoot>>,
    /// Each scope's host element (its own scope encloses this one).
    pub hosts: Vec<Option<NodeId>>,
}

impl Scopes {
    /// The scope enclosing `scope` (the document encloses itself).
    fn parent(&self, tree: &DomTree, scope: usize) -> usize {
        self.hosts[scope].map_or(0, |h| tree.node(h).scope as usize)
    }
}

/// Per-scope verdicts of one snapshot: a scope may generate text when its
/// own sheets or those of an enclosing scope may.
struct ScopeVerdicts<'a> {
    known: Vec<Option<bool>>,
    scopes: &'a Scopes,
    state: &'a EngineState,
    doc: &'a web_sys::Document,
}

impl ScopeVerdicts<'_> {
    fn may_generate(&mut self, tree: &DomTree, scope: ScopeId) -> bool {
        // The chain of scopes out to the nearest known one (a loop, not
        // recursion: shadow roots can nest deeply).
        let mut chain = Vec::new();
        let mut s = scope as usize;
        while self.known.get(s).is_some_and(|k| k.is_none()) {
            chain.push(s);
            if s == 0 {
                break;
            }
            s = self.scopes.parent(tree, s);
        }
        for &k in chain.iter().rev() {
            let outer = k != 0 && self.known[self.scopes.parent(tree, k)].unwrap_or(true);
            let owner: &JsValue = match &self.scopes.roots[k] {
                Some(root) => root.as_ref(),
                None => self.doc.as_ref(),
            };
            let verdict = outer || self.state.sheets.owner_may_generate(&self.state.kw, owner);
            self.known[k] = Some(verdict);
        }
        self.known.get(scope as usize).copied().flatten().unwrap_or(true)
    }
}

/// Reads generated content for the listed elements, where their scopes may
/// generate any, and records it in their style.
pub fn fill(
    state: &EngineState,
    doc: &web_sys::Document,
    tree: &mut DomTree,
    elements: &[Option<Element>],
    wanted: &[NodeId],
    scopes: &Scopes,
) {
    if wanted.is_empty() {
        return;
    }
    let kw = &state.kw;
    let mut verdicts = ScopeVerdicts {
        known: vec![None; scopes.roots.len()],
        scopes,
        state,
        doc,
    };
    for &id in wanted {
        let node = tree.node(id);
        let scope = node.scope;
        let Some(e) = node.element() else { continue };
        // A host's own `::before` may come from its shadow root (`:host`), a
        // slotted element's from the slot's scope (`::slotted()`).
        let host_scope = node
            .children
            .iter()
            .find(|&&c| e.shadow_host && matches!(tree.node(c).kind, NodeKind::ShadowRoot))
            .map(|&c| tree.node(c).scope);
        let slot_scope = e.light_parent.and_then(|_| tree.parent(id)).map(|p| tree.node(p).scope);
        let may = verdicts.may_generate(tree, scope)
            || host_scope.is_some_and(|s| verdicts.may_generate(tree, s))
            || slot_scope.is_some_and(|s| verdicts.may_generate(tree, s));
        if !may {
            continue;
        }
        let Some(el) = &elements[id] else { continue };
        let before = super::reads::pseudo_text(el, &kw.before, true);
        let after = super::reads::pseudo_text(el, &kw.after, false);
        if let Some(NodeKind::Element(data)) = tree.nodes.get_mut(id).map(|n| &mut n.kind) {
            if let Some(style) = data.style.as_mut() {
                style.before_content = before;
                style.after_content = after;
            }
        }
    }
}
