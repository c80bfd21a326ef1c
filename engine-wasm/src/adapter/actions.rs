//! DOM side of actions: actionability facts about a target, and the few
//! operations that have no trusted-input equivalent (set a picker value,
//! choose `<select>` options, scroll containers). Clicks, keys and hovers are
//! trusted CDP input sent by the driver at the point reported here.
use super::probe::{covering_layer, deep_hit, reaches, short_selector};
use super::resolve::{resolve, ResolveError};
use super::state::EngineState;
use crate::actions::{action_point, choose_options, chosen_labels, editable, is_value_input};
use crate::protocol::{DomAction, DomActionResult, DomOp, Rect, TargetInfo, TargetRequest};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

fn window() -> web_sys::Window {
    web_sys::window().expect("window")
}

fn viewport_rect() -> Rect {
    let w = window();
    let de = w.document().and_then(|d| d.document_element());
    let (vw, vh) = match de {
        Some(e) if e.client_width() > 0 => (e.client_width() as f64, e.client_height() as f64),
        _ => (
            w.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
            w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
        ),
    };
    Rect::new(0.0, 0.0, vw, vh)
}

fn lookup(st: &EngineState, target: &str) -> Result<Element, String> {
    match resolve(st, target) {
        Ok(Some(el)) => Ok(el),
        Ok(None) => Err(format!("no element matches {target}")),
        Err(ResolveError::Stale) => Err(format!("ref {target} is stale: its element is no longer in the page")),
        Err(ResolveError::Invalid(m)) => Err(m),
    }
}

fn scroll_into_view(el: &Element) {
    let opts = web_sys::ScrollIntoViewOptions::new();
    opts.set_block(web_sys::ScrollLogicalPosition::Center);
    opts.set_inline(web_sys::ScrollLogicalPosition::Center);
    opts.set_behavior(web_sys::ScrollBehavior::Instant);
    el.scroll_into_view_with_scroll_into_view_options(&opts);
}

/// `button "Buy now"`-style label from cheap DOM reads (errors and logs).
pub fn describe_element(el: &Element) -> String {
    let label = el
        .get_attribute("aria-label")
        .filter(|s| !s.trim().is_empty())
        .or_else(|| el.dyn_ref::<HtmlElement>().map(|h| h.inner_text()))
        .or_else(|| el.text_content())
        .unwrap_or_default();
    let label: String = crate::words::collapse_whitespace(&label);
    let label: String = if label.chars().count() > 40 {
        label.chars().take(40).collect::<String>() + "…"
    } else {
        label
    };
    let base = short_selector(el);
    if label.is_empty() {
        base
    } else {
        format!("{base} \"{label}\"")
    }
}

/// Some `<img>` inside `el` is still loading (lazy ones not yet asked for
/// included).
fn image_coming(el: &Element) -> bool {
    let Ok(images) = el.query_selector_all("img") else {
        return false;
    };
    (0..images.length())
        .filter_map(|i| images.item(i).and_then(|n| n.dyn_into::<Element>().ok()))
        .any(|img| super::reads::loading(&img))
}

fn is_disabled(el: &Element) -> bool {
    if el.matches(":disabled").unwrap_or(false) {
        return true;
    }
    // aria-disabled applies to the element and its descendants.
    let mut cur = Some(el.clone());
    while let Some(e) = cur {
        if e.get_attribute("aria-disabled")
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
            .unwrap_or(false)
        {
            return true;
        }
        cur = e.parent_element();
    }
    false
}

pub fn target_info(st: &EngineState, req: &TargetRequest) -> TargetInfo {
    let mut info = TargetInfo::default();
    let el = match resolve(st, &req.target) {
        Ok(Some(el)) => el,
        Ok(None) => {
            info.error = Some(format!("no element matches {}", req.target));
            return info;
        }
        Err(ResolveError::Stale) => {
            info.stale = true;
            info.error = Some(format!(
                "ref {} is stale: its element is no longer in the page",
                req.target
            ));
            return info;
        }
        Err(ResolveError::Invalid(m)) => {
            info.error = Some(m);
            return info;
        }
    };
    info.found = true;
    info.attached = el.is_connected();
    info.tag = el.local_name();
    info.description = describe_element(&el);
    info.selector = short_selector(&el);
    if !info.attached {
        return info;
    }
    if req.scroll {
        scroll_into_view(&el);
    }
    // (A control the pointer can't reach is clicked through its label.)
    let clicked = super::reads::click_box(&el);
    info.rect = super::reads::aim_rect(&clicked);
    let styled_visible = window()
        .get_computed_style(&el)
        .ok()
        .flatten()
        .map(|cs| {
            cs.get_property_value("visibility")
                .map(|v| v == "visible")
                .unwrap_or(true)
        })
        .unwrap_or(true);
    info.visible = !info.rect.is_empty() && styled_visible;
    info.image_loading = !info.visible && styled_visible && image_coming(&el);
    info.enabled = !is_disabled(&el);
    let (input_type, readonly) = match el.dyn_ref::<HtmlInputElement>() {
        Some(i) => (i.type_().to_ascii_lowercase(), i.read_only()),
        None => (
            String::new(),
            el.dyn_ref::<HtmlTextAreaElement>()
                .map(|t| t.read_only())
                .unwrap_or(false),
        ),
    };
    if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
        if input_type == "checkbox" || input_type == "radio" {
            info.checked = Some(i.checked());
        }
    }
    let content_editable = el
        .dyn_ref::<HtmlElement>()
        .map(|h| h.is_content_editable())
        .unwrap_or(false);
    info.editable = info.enabled && editable(&info.tag, &input_type, readonly, content_editable);
    info.input_type = input_type;
    info.point = action_point(&info.rect, &viewport_rect());
    if let (Some((x, y)), Some(doc)) = (info.point, window().document()) {
        match deep_hit(&doc, x, y) {
            Some(hit) if reaches(&clicked, &hit) || reaches(&el, &hit) => info.receives_events = true,
            Some(_) if super::reads::clipped(&clicked, x, y) => info.clipped = true,
            Some(hit) => {
                let layer = covering_layer(&hit, &el);
                info.covered_by = Some(match st.existing_ref_number(&layer) {
                    Some(n) => format!("e{n}"),
                    None => short_selector(&layer),
                });
                info.covered_by_description = Some(describe_element(&layer));
            }
            None => {}
        }
    }
    info
}

fn fire(el: &Element, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    init.set_composed(true);
    if let Ok(ev) = web_sys::Event::new_with_event_init_dict(kind, &init) {
        let _ = el.dispatch_event(&ev);
    }
}

fn ok(value: Option<String>) -> Result<DomActionResult, String> {
    Ok(DomActionResult {
        ok: true,
        error: None,
        value,
    })
}

pub fn dom_action(st: &EngineState, action: &DomAction) -> DomActionResult {
    run(st, action).unwrap_or_else(|e| DomActionResult {
        ok: false,
        error: Some(e),
        value: None,
    })
}

fn run(st: &EngineState, action: &DomAction) -> Result<DomActionResult, String> {
    let target = || {
        action
            .target
            .as_deref()
            .ok_or_else(|| "this operation needs a target".to_string())
    };
    match action.op {
        DomOp::FocusAndSelectAll => {
            let el = lookup(st, target()?)?;
            if let Some(h) = el.dyn_ref::<HtmlElement>() {
                let _ = h.focus();
            }
            if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                i.select();
            } else if let Some(t) = el.dyn_ref::<HtmlTextAreaElement>() {
                t.select();
            } else if let Some(sel) = window().get_selection().ok().flatten() {
                let _ = sel.select_all_children(&el);
            }
            ok(None)
        }
        DomOp::SetValue => {
            let el = lookup(st, target()?)?;
            let value = action.value.as_deref().unwrap_or("");
            let Some(i) = el.dyn_ref::<HtmlInputElement>() else {
                return Err(format!("{} is not an input", describe_element(&el)));
            };
            let ty = i.type_().to_ascii_lowercase();
            if !is_value_input(&ty) {
                return Err(format!("setValue is for picker inputs, not type={ty}"));
            }
            // The browser sanitises a bad value to "": put the old one back.
            let old = i.value();
            i.set_value(value);
            if !i.value().eq_ignore_ascii_case(value) {
                i.set_value(&old);
                // (What the browser takes, whatever the page shows.)
                let form = match ty.as_str() {
                    "date" => " (YYYY-MM-DD)",
                    "time" => " (HH:MM)",
                    "datetime-local" => " (YYYY-MM-DDTHH:MM)",
                    "month" => " (YYYY-MM)",
                    "week" => " (YYYY-Www)",
                    "color" => " (#rrggbb)",
                    _ => "",
                };
                return Err(format!("\"{value}\" is not a valid value for a {ty} input{form}"));
            }
            fire(&el, "input");
            fire(&el, "change");
            ok(Some(i.value()))
        }
        DomOp::SelectOption => {
            let el = lookup(st, target()?)?;
            let Some(sel) = el.dyn_ref::<HtmlSelectElement>() else {
                return Err(format!("{} is not a native <select>", describe_element(&el)));
            };
            if sel.disabled() {
                return Err(format!("{} is disabled", describe_element(&el)));
            }
            let opts = sel.options();
            let mut list = Vec::new();
            for i in 0..opts.length() {
                if let Some(o) = opts
                    .item(i)
                    .and_then(|o| o.dyn_into::<web_sys::HtmlOptionElement>().ok())
                {
                    list.push((o.label(), o.value()));
                }
            }
            if action.values.len() > 1 && !sel.multiple() {
                return Err("this <select> takes one option".into());
            }
            let chosen = choose_options(&list, &action.values)?;
            // A user can't choose a disabled option (or one in a disabled group).
            if chosen
                .iter()
                .any(|&i| opts.item(i as u32).is_some_and(|o| is_disabled(&o)))
            {
                return Err("the option is disabled".into());
            }
            for i in 0..opts.length() {
                if let Some(o) = opts
                    .item(i)
                    .and_then(|o| o.dyn_into::<web_sys::HtmlOptionElement>().ok())
                {
                    o.set_selected(chosen.contains(&(i as usize)));
                }
            }
            fire(&el, "input");
            fire(&el, "change");
            ok(Some(chosen_labels(&list, &chosen)))
        }
        DomOp::ScrollIntoView => {
            scroll_into_view(&lookup(st, target()?)?);
            ok(None)
        }
        DomOp::DispatchChange => {
            fire(&lookup(st, target()?)?, "change");
            ok(None)
        }
        DomOp::ReadValue => {
            let el = lookup(st, target()?)?;
            let v = if let Some(i) = el.dyn_ref::<HtmlInputElement>() {
                let ty = i.type_().to_ascii_lowercase();
                if ty == "checkbox" || ty == "radio" {
                    i.checked().to_string()
                } else if ty == "password" {
                    return Err("password values are never read".into());
                } else {
                    i.value()
                }
            } else if let Some(t) = el.dyn_ref::<HtmlTextAreaElement>() {
                t.value()
            } else if let Some(s) = el.dyn_ref::<HtmlSelectElement>() {
                s.value()
            } else {
                el.text_content().unwrap_or_default()
            };
            ok(Some(v))
        }
        DomOp::JsClick => {
            let el = lookup(st, target()?)?;
            match el.dyn_ref::<HtmlElement>() {
                Some(h) => {
                    h.click();
                    ok(None)
                }
                None => Err(format!("{} can't be clicked from script", describe_element(&el))),
            }
        }
    }
}
