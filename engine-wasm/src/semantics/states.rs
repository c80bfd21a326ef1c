//! ARIA states and properties shown in the snapshot.
//!
//! - checked: native checkbox/radio (`form.checked`, else the `checked`
//!   attribute; `form.indeterminate` on a checkbox → mixed) whatever
//!   checkable role they carry; otherwise `aria-checked` on checkbox, radio,
//!   switch, menuitemcheckbox, menuitemradio (default false; `mixed` only
//!   for checkbox and menuitemcheckbox) and, when present, option/treeitem.
//! - pressed: `aria-pressed` (true/false/mixed) on buttons.
//! - disabled: see [`compute_disabled`].
//! - expanded: the first `<summary>` of a `<details>` follows `open`; a
//!   native `<select>` reports nothing; otherwise `aria-expanded`.
//! - selected: native `<option>` from `form.selected` (else the attribute);
//!   `aria-selected="true"` on option, tab, gridcell, row, treeitem,
//!   columnheader, rowheader.
//! - level: headings (`aria-level`, else h1–h6, else 2); `aria-level` on
//!   treeitem, listitem, row, comment.
//! - required / readonly: native attribute on the controls that support it,
//!   or `aria-required` / `aria-readonly` = true.
//! - invalid: `aria-invalid` present and neither empty nor "false".
//! - value: text fields and comboboxes (`form.value`, else the `value`
//!   attribute; a native select falls back to its chosen option), range
//!   widgets (`aria-valuetext`, native value, `aria-valuenow`), players
//!   (`playing`, `paused at 0:12 of 3:05`) and file inputs (the chosen
//!   files' names), both read by the walk. Never for
//!   `input[type=password]`, never for contenteditable or ARIA text fields
//!   (their text is already in the tree). Empty values are `None`.
use super::roles::{input_type, is_details_summary};
use super::Semantics;
use crate::dom::{DomTree, ElementData, NodeId, NodeKind};

/// Tri-state for checked / pressed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tri {
    False,
    True,
    Mixed,
}

#[derive(Clone, PartialEq, Debug, Default)]
pub struct States {
    pub checked: Option<Tri>,
    pub pressed: Option<Tri>,
    pub disabled: bool,
    pub expanded: Option<bool>,
    pub selected: bool,
    pub level: Option<u32>,
    pub required: bool,
    pub readonly: bool,
    pub invalid: bool,
    /// Current value of a form field or range widget; never a password.
    pub value: Option<String>,
}

fn attr_is_true(e: &ElementData, name: &str) -> bool {
    e.attr(name)
        .map(|v| v.trim().eq_ignore_ascii_case("true"))
        .unwrap_or(false)
}

fn tri_attr(e: &ElementData, name: &str) -> Option<Tri> {
    let v = e.attr(name)?.trim().to_ascii_lowercase();
    match v.as_str() {
        "true" => Some(Tri::True),
        "false" => Some(Tri::False),
        "mixed" => Some(Tri::Mixed),
        _ => None,
    }
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.filter(|v| !v.trim().is_empty())
}

/// Input types whose value is typed text (readonly applies, value is shown).
fn is_text_input_type(ty: &str) -> bool {
    !matches!(
        ty,
        "button" | "submit" | "reset" | "image" | "checkbox" | "radio" | "range" | "color" | "file" | "hidden"
    )
}

pub fn compute_states(s: &Semantics, id: NodeId) -> States {
    let mut st = States::default();
    let Some(e) = s.tree.element(id) else {
        return st;
    };
    let role = s.role(id).unwrap_or("");
    let tag = e.tag.as_str();
    let ty = if tag == "input" { input_type(e) } else { String::new() };

    st.disabled = s.disabled.get(id).copied().unwrap_or(false);

    let native_checkable = tag == "input" && (ty == "checkbox" || ty == "radio");
    st.checked = match role {
        "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio" => {
            if native_checkable {
                if ty == "checkbox" && e.form.indeterminate {
                    Some(Tri::Mixed)
                } else if e.form.checked.unwrap_or_else(|| e.has_attr("checked")) {
                    Some(Tri::True)
                } else {
                    Some(Tri::False)
                }
            } else {
                match tri_attr(e, "aria-checked") {
                    Some(Tri::True) => Some(Tri::True),
                    Some(Tri::Mixed) if role == "checkbox" || role == "menuitemcheckbox" => Some(Tri::Mixed),
                    _ => Some(Tri::False),
                }
            }
        }
        "option" | "treeitem" => tri_attr(e, "aria-checked"),
        _ => None,
    };

    if role == "button" {
        st.pressed = tri_attr(e, "aria-pressed");
    }

    st.expanded = if tag == "summary" && is_details_summary(s.tree, id) {
        let details = s.tree.parent(id).and_then(|p| s.tree.element(p));
        Some(details.map(|d| d.has_attr("open")).unwrap_or(false))
    } else if tag == "select" {
        None
    } else {
        match tri_attr(e, "aria-expanded") {
            Some(Tri::True) => Some(true),
            Some(Tri::False) => Some(false),
            _ => None,
        }
    };

    st.selected = match role {
        "option" if tag == "option" => e.form.selected.unwrap_or_else(|| e.has_attr("selected")),
        "option" | "tab" | "gridcell" | "row" | "treeitem" | "columnheader" | "rowheader" => {
            attr_is_true(e, "aria-selected")
        }
        _ => false,
    };

    let aria_level = e
        .attr("aria-level")
        .and_then(crate::number::parse_int)
        .and_then(|l| u32::try_from(l).ok())
        .filter(|&l| l >= 1);
    st.level = match role {
        "heading" => Some(aria_level.unwrap_or(match tag {
            "h1" => 1,
            "h3" => 3,
            "h4" => 4,
            "h5" => 5,
            "h6" => 6,
            // h2 and ARIA headings without a level (ARIA's default is 2).
            _ => 2,
        })),
        "treeitem" | "listitem" | "row" | "comment" => aria_level,
        _ => None,
    };

    let native_field = matches!(tag, "select" | "textarea") || (tag == "input" && ty != "hidden");
    st.required = (native_field && e.has_attr("required")) || attr_is_true(e, "aria-required");
    let readonly_capable = tag == "textarea" || (tag == "input" && is_text_input_type(&ty));
    st.readonly = (readonly_capable && e.has_attr("readonly")) || attr_is_true(e, "aria-readonly");

    st.invalid = e
        .attr("aria-invalid")
        .map(|v| {
            let v = v.trim();
            !v.is_empty() && !v.eq_ignore_ascii_case("false")
        })
        .unwrap_or(false);

    st.value = value_of(s, id, e, role, tag, &ty);
    st
}

fn value_of(s: &Semantics, id: NodeId, e: &ElementData, role: &str, tag: &str, ty: &str) -> Option<String> {
    if tag == "input" && ty == "password" {
        return None;
    }
    let native = || e.form.value.clone().or_else(|| e.attr("value").map(str::to_string));
    match role {
        "textbox" | "searchbox" | "combobox" => match tag {
            "input" if is_text_input_type(ty) => non_empty(native()),
            // (Its lines kept apart as `\n`: the tree's one line would run
            // them together.)
            "textarea" => non_empty(e.form.value.clone().or_else(|| Some(text_content(s.tree, id)))).map(|v| {
                let mut lines = String::with_capacity(v.len());
                for c in v.chars() {
                    match c {
                        '\n' => lines.push_str("\\n"),
                        '\r' => {}
                        c => lines.push(c),
                    }
                }
                lines
            }),
            "select" => non_empty(e.form.value.clone().or_else(|| selected_option_label(s.tree, id))),
            _ => None,
        },
        // (A player's state, a file input's chosen files: read by the walk.)
        "audio" | "video" => e.form.value.clone(),
        "button" if ty == "file" => e.form.value.clone(),
        "button" if ty == "color" => non_empty(native()),
        "slider" | "spinbutton" | "scrollbar" | "progressbar" | "meter" => {
            if let Some(t) = e.attr("aria-valuetext").filter(|t| !t.trim().is_empty()) {
                return Some(t.to_string());
            }
            if matches!(tag, "input" | "progress" | "meter") {
                if let Some(v) = non_empty(native()) {
                    return Some(v);
                }
            }
            e.attr("aria-valuenow")
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map(super::names::number_text)
        }
        _ => None,
    }
}

fn text_content(tree: &DomTree, id: NodeId) -> String {
    tree.descendants(id).filter_map(|d| tree.node(d).text()).collect()
}

fn selected_option_label(tree: &DomTree, select: NodeId) -> Option<String> {
    let options: Vec<NodeId> = tree
        .descendants(select)
        .filter(|&o| tree.tag(o) == Some("option"))
        .collect();
    let chosen = options.iter().copied().find(|&o| {
        let oe = tree.element(o).unwrap();
        oe.form.selected.unwrap_or_else(|| oe.has_attr("selected"))
    });
    let multiple = tree.element(select).map(|e| e.has_attr("multiple")).unwrap_or(false);
    let chosen = chosen.or_else(|| if multiple { None } else { options.first().copied() })?;
    let oe = tree.element(chosen).unwrap();
    let label = oe
        .attr("label")
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| text_content(tree, chosen));
    Some(crate::words::join(&mut label.split_ascii_whitespace(), " "))
}

/// Disabled flags for every node, in one iterative pass:
/// - native `disabled` on button, input, select, textarea, fieldset,
///   optgroup, option;
/// - form controls (and fieldsets) inside a disabled `<fieldset>`, except
///   inside that fieldset's first `<legend>` child;
/// - options and optgroups inside a disabled `<select>` or `<optgroup>`;
/// - `aria-disabled="true"` on the element or any ancestor (ARIA 1.2: it
///   applies to all descendants and cannot be undone below).
pub fn compute_disabled(tree: &DomTree) -> Vec<bool> {
    let mut out = vec![false; tree.len()];
    // (node, aria-disabled above, in a disabled fieldset, in a disabled select/optgroup)
    let mut stack: Vec<(NodeId, bool, bool, bool)> = vec![(DomTree::ROOT, false, false, false)];
    while let Some((id, aria_in, fieldset_in, options_in)) = stack.pop() {
        let node = tree.node(id);
        let NodeKind::Element(e) = &node.kind else {
            for &c in node.children.iter().rev() {
                stack.push((c, aria_in, fieldset_in, options_in));
            }
            continue;
        };
        let own = e.has_attr("disabled");
        let aria = aria_in || attr_is_true(e, "aria-disabled");
        let tag = e.tag.as_str();
        let native = match tag {
            "button" | "input" | "select" | "textarea" | "fieldset" => own || fieldset_in,
            "optgroup" | "option" => own || options_in,
            _ => false,
        };
        out[id] = aria || native;
        let disabled_fieldset = tag == "fieldset" && native;
        let legend = if disabled_fieldset {
            super::roles::first_child_with_tag(tree, id, "legend")
        } else {
            None
        };
        let options_below = options_in || (matches!(tag, "select" | "optgroup") && native);
        for &c in node.children.iter().rev() {
            let fs = if disabled_fieldset {
                Some(c) != legend || fieldset_in
            } else {
                fieldset_in
            };
            stack.push((c, aria, fs, options_below));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::TreeBuilder;

    fn states_of(t: &DomTree, id: NodeId) -> States {
        Semantics::compute(t).states(id)
    }

    fn one(tag: &str, attrs: &[(&str, &str)]) -> (DomTree, NodeId) {
        let mut b = TreeBuilder::new();
        let id = b.el(tag, attrs);
        (b.finish(), id)
    }

    fn st(tag: &str, attrs: &[(&str, &str)]) -> States {
        let (t, id) = one(tag, attrs);
        states_of(&t, id)
    }

    #[test]
    fn native_checkbox_and_radio() {
        let mut b = TreeBuilder::new();
        let c1 = b.el("input", &[("type", "checkbox")]);
        let c2 = b.el("input", &[("type", "checkbox"), ("checked", "")]);
        let c3 = b.el("input", &[("type", "checkbox"), ("checked", "")]);
        let c4 = b.el("input", &[("type", "checkbox")]);
        let r1 = b.el("input", &[("type", "radio")]);
        let sw = b.el(
            "input",
            &[("type", "checkbox"), ("role", "switch"), ("aria-checked", "false")],
        );
        b.data(c3).form.checked = Some(false);
        b.data(c4).form.indeterminate = true;
        b.data(r1).form.checked = Some(true);
        b.data(r1).form.indeterminate = true;
        b.data(sw).form.checked = Some(true);
        let t = b.finish();
        assert_eq!(states_of(&t, c1).checked, Some(Tri::False));
        assert_eq!(states_of(&t, c2).checked, Some(Tri::True));
        assert_eq!(states_of(&t, c3).checked, Some(Tri::False));
        assert_eq!(states_of(&t, c4).checked, Some(Tri::Mixed));
        assert_eq!(states_of(&t, r1).checked, Some(Tri::True));
        assert_eq!(states_of(&t, sw).checked, Some(Tri::True));
    }

    #[test]
    fn aria_checked() {
        assert_eq!(
            st("div", &[("role", "checkbox"), ("aria-checked", "true")]).checked,
            Some(Tri::True)
        );
        assert_eq!(
            st("div", &[("role", "checkbox"), ("aria-checked", "MIXED")]).checked,
            Some(Tri::Mixed)
        );
        assert_eq!(st("div", &[("role", "checkbox")]).checked, Some(Tri::False));
        assert_eq!(
            st("div", &[("role", "switch"), ("aria-checked", "mixed")]).checked,
            Some(Tri::False)
        );
        assert_eq!(
            st("div", &[("role", "radio"), ("aria-checked", "true")]).checked,
            Some(Tri::True)
        );
        assert_eq!(
            st("div", &[("role", "menuitemcheckbox"), ("aria-checked", "mixed")]).checked,
            Some(Tri::Mixed)
        );
        assert_eq!(st("div", &[("role", "menuitemradio")]).checked, Some(Tri::False));
        assert_eq!(
            st("div", &[("role", "treeitem"), ("aria-checked", "true")]).checked,
            Some(Tri::True)
        );
        assert_eq!(st("div", &[("role", "treeitem")]).checked, None);
        assert_eq!(
            st("div", &[("role", "option"), ("aria-checked", "false")]).checked,
            Some(Tri::False)
        );
        assert_eq!(st("div", &[("role", "button"), ("aria-checked", "true")]).checked, None);
        assert_eq!(st("div", &[("aria-checked", "true")]).checked, None);
        // A native checkbox turned into a button has no checked state.
        assert_eq!(st("input", &[("type", "checkbox"), ("role", "button")]).checked, None);
    }

    #[test]
    fn pressed() {
        assert_eq!(st("button", &[("aria-pressed", "true")]).pressed, Some(Tri::True));
        assert_eq!(st("button", &[("aria-pressed", "false")]).pressed, Some(Tri::False));
        assert_eq!(
            st("div", &[("role", "button"), ("aria-pressed", "mixed")]).pressed,
            Some(Tri::Mixed)
        );
        assert_eq!(st("button", &[("aria-pressed", "undefined")]).pressed, None);
        assert_eq!(st("button", &[]).pressed, None);
        assert_eq!(st("a", &[("href", "#"), ("aria-pressed", "true")]).pressed, None);
    }

    #[test]
    fn native_disabled_and_fieldsets() {
        let mut b = TreeBuilder::new();
        let btn = b.el("button", &[("disabled", "")]);
        let div = b.el("div", &[("disabled", "")]);
        let fs = b.open_el("fieldset", &[("disabled", "")]);
        let legend = b.open_el("legend", &[]);
        let in_legend = b.el("input", &[]);
        b.close();
        let in_fs = b.el("input", &[]);
        let span_in_fs = b.el("span", &[]);
        let inner_fs = b.open_el("fieldset", &[]);
        let inner_legend = b.open_el("legend", &[]);
        let in_inner_legend = b.el("button", &[]);
        b.close();
        b.close();
        let second_legend = b.open_el("legend", &[]);
        let in_second_legend = b.el("textarea", &[]);
        b.close();
        b.close();
        let sel = b.open_el("select", &[("disabled", "")]);
        let opt = b.el("option", &[]);
        b.close();
        let sel2 = b.open_el("select", &[]);
        let og = b.open_el("optgroup", &[("disabled", "")]);
        let opt2 = b.el("option", &[]);
        b.close();
        let opt3 = b.el("option", &[("disabled", "")]);
        let opt4 = b.el("option", &[]);
        b.close();
        let t = b.finish();
        let d = |id| states_of(&t, id).disabled;
        assert!(d(btn) && d(fs) && d(in_fs) && d(inner_fs) && d(in_inner_legend) && d(in_second_legend));
        assert!(!d(div) && !d(legend) && !d(in_legend) && !d(span_in_fs) && !d(inner_legend) && !d(second_legend));
        assert!(d(sel) && d(opt) && d(og) && d(opt2) && d(opt3));
        assert!(!d(sel2) && !d(opt4));
    }

    #[test]
    fn aria_disabled_is_inherited() {
        let mut b = TreeBuilder::new();
        let tb = b.open_el("div", &[("role", "toolbar"), ("aria-disabled", "true")]);
        let child = b.el("button", &[("aria-disabled", "false")]);
        b.open_el("x-host", &[]);
        b.open_shadow();
        let deep = b.el("button", &[]);
        b.close();
        b.close();
        b.close();
        let other = b.el("button", &[("aria-disabled", "false")]);
        let t = b.finish();
        assert!(states_of(&t, tb).disabled);
        assert!(states_of(&t, child).disabled);
        assert!(states_of(&t, deep).disabled);
        assert!(!states_of(&t, other).disabled);
    }

    #[test]
    fn expanded() {
        let mut b = TreeBuilder::new();
        b.open_el("details", &[]);
        let s1 = b.el("summary", &[]);
        b.close();
        b.open_el("details", &[("open", "")]);
        let s2 = b.el("summary", &[("aria-expanded", "false")]);
        let s3 = b.el("summary", &[]);
        b.close();
        let sel = b.el("select", &[("aria-expanded", "true")]);
        let btn = b.el("button", &[("aria-expanded", "true")]);
        let cb = b.el("div", &[("role", "combobox"), ("aria-expanded", "false")]);
        let bad = b.el("button", &[("aria-expanded", "maybe")]);
        let t = b.finish();
        assert_eq!(states_of(&t, s1).expanded, Some(false));
        assert_eq!(states_of(&t, s2).expanded, Some(true));
        assert_eq!(states_of(&t, s3).expanded, None);
        assert_eq!(states_of(&t, sel).expanded, None);
        assert_eq!(states_of(&t, btn).expanded, Some(true));
        assert_eq!(states_of(&t, cb).expanded, Some(false));
        assert_eq!(states_of(&t, bad).expanded, None);
    }

    #[test]
    fn selected() {
        let mut b = TreeBuilder::new();
        b.open_el("select", &[]);
        let o1 = b.el("option", &[("selected", "")]);
        let o2 = b.el("option", &[]);
        let o3 = b.el("option", &[("selected", "")]);
        b.close();
        let tab = b.el("div", &[("role", "tab"), ("aria-selected", "true")]);
        let tab2 = b.el("div", &[("role", "tab"), ("aria-selected", "false")]);
        let aopt = b.el("li", &[("role", "option"), ("aria-selected", "true")]);
        let row = b.el("div", &[("role", "row"), ("aria-selected", "true")]);
        let btn = b.el("button", &[("aria-selected", "true")]);
        b.data(o2).form.selected = Some(true);
        b.data(o3).form.selected = Some(false);
        let t = b.finish();
        let sel = |id| states_of(&t, id).selected;
        assert!(sel(o1) && sel(o2) && !sel(o3));
        assert!(sel(tab) && !sel(tab2) && sel(aopt) && sel(row) && !sel(btn));
    }

    #[test]
    fn levels() {
        assert_eq!(st("h1", &[]).level, Some(1));
        assert_eq!(st("h4", &[]).level, Some(4));
        assert_eq!(st("h6", &[]).level, Some(6));
        assert_eq!(st("h2", &[("aria-level", "5")]).level, Some(5));
        assert_eq!(st("h2", &[("aria-level", "0")]).level, Some(2));
        assert_eq!(st("div", &[("role", "heading")]).level, Some(2));
        assert_eq!(st("div", &[("role", "heading"), ("aria-level", "3")]).level, Some(3));
        assert_eq!(st("h3", &[("role", "button")]).level, None);
        assert_eq!(st("div", &[("role", "treeitem"), ("aria-level", "2")]).level, Some(2));
        assert_eq!(st("div", &[("role", "treeitem")]).level, None);
        assert_eq!(st("div", &[("aria-level", "2")]).level, None);
    }

    #[test]
    fn required_readonly_invalid() {
        assert!(st("input", &[("required", "")]).required);
        assert!(st("select", &[("required", "")]).required);
        assert!(st("textarea", &[("required", "")]).required);
        assert!(st("div", &[("role", "textbox"), ("aria-required", "true")]).required);
        assert!(!st("div", &[("required", "")]).required);
        assert!(!st("input", &[("aria-required", "false")]).required);
        assert!(st("input", &[("readonly", "")]).readonly);
        assert!(st("textarea", &[("readonly", "")]).readonly);
        assert!(!st("input", &[("type", "checkbox"), ("readonly", "")]).readonly);
        assert!(st("div", &[("role", "grid"), ("aria-readonly", "true")]).readonly);
        assert!(st("input", &[("aria-invalid", "true")]).invalid);
        assert!(st("input", &[("aria-invalid", "spelling")]).invalid);
        assert!(!st("input", &[("aria-invalid", "false")]).invalid);
        assert!(!st("input", &[("aria-invalid", "")]).invalid);
        assert!(!st("input", &[]).invalid);
    }

    #[test]
    fn values() {
        let mut b = TreeBuilder::new();
        let text = b.el("input", &[("value", "attr")]);
        let text2 = b.el("input", &[("value", "attr")]);
        let pw = b.el("input", &[("type", "password"), ("value", "hunter2")]);
        let pw_role = b.el("input", &[("type", "password"), ("role", "combobox")]);
        let ta = b.open_el("textarea", &[]);
        b.text("typed");
        b.close();
        let empty = b.el("input", &[]);
        let range = b.el("input", &[("type", "range")]);
        let aria_slider = b.el("div", &[("role", "slider"), ("aria-valuenow", "3.0")]);
        let aria_text = b.el(
            "div",
            &[("role", "slider"), ("aria-valuenow", "3"), ("aria-valuetext", "three")],
        );
        let ce = b.open_el("div", &[("contenteditable", "")]);
        b.text("rich");
        b.close();
        let sel = b.open_el("select", &[]);
        b.el("option", &[]);
        let o = b.open_el("option", &[("selected", "")]);
        b.text(" Two ");
        b.close();
        b.close();
        let sel_form = b.el("select", &[]);
        let cbx = b.el("input", &[("type", "checkbox"), ("value", "on")]);
        let btn = b.el("input", &[("type", "submit"), ("value", "Go")]);
        let progress = b.el("progress", &[("value", "40")]);
        b.data(text2).form.value = Some("live".into());
        b.data(pw).form.value = Some("hunter2".into());
        b.data(pw_role).form.value = Some("secret".into());
        b.data(range).form.value = Some("50".into());
        b.data(ce).form.content_editable = true;
        b.data(sel_form).form.value = Some("Chosen".into());
        let file = b.el("input", &[("type", "file")]);
        b.data(file).form.value = Some("cv.pdf".into());
        let colour = b.el("input", &[("type", "color")]);
        b.data(colour).form.value = Some("#ff8800".into());
        let _ = o;
        let t = b.finish();
        let v = |id| states_of(&t, id).value;
        assert_eq!(v(text).as_deref(), Some("attr"));
        assert_eq!(v(text2).as_deref(), Some("live"));
        assert_eq!(v(pw), None);
        assert_eq!(v(pw_role), None);
        assert_eq!(v(ta).as_deref(), Some("typed"));
        assert_eq!(v(empty), None);
        assert_eq!(v(range).as_deref(), Some("50"));
        assert_eq!(v(file).as_deref(), Some("cv.pdf"), "the files chosen");
        assert_eq!(v(colour).as_deref(), Some("#ff8800"));
        assert_eq!(v(aria_slider).as_deref(), Some("3"));
        assert_eq!(v(aria_text).as_deref(), Some("three"));
        assert_eq!(v(ce), None);
        assert_eq!(v(sel).as_deref(), Some("Two"));
        assert_eq!(v(sel_form).as_deref(), Some("Chosen"));
        assert_eq!(v(cbx), None);
        assert_eq!(v(btn), None);
        assert_eq!(v(progress).as_deref(), Some("40"));
    }

    #[test]
    fn non_elements_have_default_states() {
        let mut b = TreeBuilder::new();
        let tx = b.text("x");
        let t = b.finish();
        assert_eq!(states_of(&t, tx), States::default());
        assert_eq!(states_of(&t, 0), States::default());
    }

    #[test]
    fn disabled_deep_tree() {
        let mut b = TreeBuilder::new();
        b.open_el("fieldset", &[("disabled", "")]);
        for _ in 0..5000 {
            b.open_el("div", &[]);
        }
        let input = b.el("input", &[]);
        let t = b.finish();
        assert!(compute_disabled(&t)[input]);
    }
}
