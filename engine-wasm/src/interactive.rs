//! Which elements a user can act on, and so get a ref.
use crate::dom::{among, DomTree, ElementData, NodeId};
use crate::semantics::Semantics;

/// Roles whose elements are operable by themselves.
const INTERACTIVE_ROLES: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "combobox",
    "checkbox",
    "radio",
    "switch",
    "slider",
    "spinbutton",
    "listbox",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "scrollbar",
    "gridcell",
];

/// Native elements that are operable whatever their role says.
const INTERACTIVE_TAGS: &[&str] = &["button", "select", "textarea", "summary", "input"];

/// A target by its tag alone: a control or a link. Its own cursor decides
/// nothing, and its descendants are not separate targets whatever theirs.
pub fn target_by_tag(e: &ElementData) -> bool {
    among(INTERACTIVE_TAGS, &e.tag) || (e.tag == "a" && e.has_attr("href"))
}

/// Decides, per node, whether it gets a ref.
pub fn compute_interactive(sem: &Semantics) -> Vec<bool> {
    let tree = sem.tree;
    let mut out = vec![false; tree.len()];
    for (id, flag) in out.iter_mut().enumerate() {
        *flag = is_interactive(sem, id);
    }
    out
}

fn is_interactive(sem: &Semantics, id: NodeId) -> bool {
    let tree: &DomTree = sem.tree;
    let Some(e) = tree.element(id) else {
        return false;
    };
    if sem.is_hidden(id) {
        return false;
    }
    let Some(style) = e.style.as_ref() else {
        return false;
    };
    if style.pointer_events_none && !style.scrollable {
        return false;
    }
    // Zero-size boxes can't be hit; display:contents has no box but no
    // behaviour either.
    if e.rect.is_empty() {
        return false;
    }
    if e.tag == "input"
        && e.attr("type")
            .map(|t| t.eq_ignore_ascii_case("hidden"))
            .unwrap_or(false)
    {
        return false;
    }
    if target_by_tag(e) || (e.tag == "area" && e.has_attr("href")) {
        return true;
    }
    if let Some(role) = sem.role(id) {
        if among(INTERACTIVE_ROLES, role) {
            // A gridcell is only a target when it is focusable or clickable.
            return role != "gridcell" || e.has_attr("tabindex") || e.has_click_handler;
        }
    }
    if e.form.content_editable && !parent_is_editable(tree, id) {
        return true;
    }
    if e.has_click_handler || style.scrollable {
        return true;
    }
    if let Some(t) = e.attr("tabindex") {
        if t.trim().parse::<i32>().map(|v| v >= 0).unwrap_or(false) {
            return true;
        }
    }
    // cursor:pointer is inherited; only the element where it starts is the target.
    if style.cursor_pointer {
        let parent_pointer = tree
            .parent_element(id)
            .and_then(|p| tree.element(p))
            .and_then(|p| p.style.as_ref())
            .map(|s| s.cursor_pointer)
            .unwrap_or(false);
        if !parent_pointer && !inside_interactive_ancestor(sem, id) {
            return true;
        }
    }
    false
}

fn parent_is_editable(tree: &DomTree, id: NodeId) -> bool {
    tree.parent_element(id)
        .and_then(|p| tree.element(p))
        .map(|p| p.form.content_editable)
        .unwrap_or(false)
}

/// Children of links and buttons often restate `cursor:pointer`; they are not
/// separate targets.
fn inside_interactive_ancestor(sem: &Semantics, id: NodeId) -> bool {
    sem.tree
        .ancestors(id)
        .take(3)
        .any(|a| sem.tree.element(a).map(target_by_tag).unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{Style, TreeBuilder};
    use crate::protocol::Rect;

    #[test]
    fn controls_links_handlers_and_pointer_cursor() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let btn = b.el("button", &[]);
        let link = b.el("a", &[("href", "/x")]);
        let anchor = b.el("a", &[]);
        let div = b.el("div", &[]);
        let clicky = b.el("div", &[]);
        b.data(clicky).has_click_handler = true;
        let pointer = b.open_el("div", &[]);
        b.data(pointer).style = Some(Style {
            cursor_pointer: true,
            ..Default::default()
        });
        let inner = b.el("span", &[]);
        b.data(inner).style = Some(Style {
            cursor_pointer: true,
            ..Default::default()
        });
        b.close();
        let zero = b.el("button", &[]);
        b.data(zero).rect = Rect::default();
        let hidden_input = b.el("input", &[("type", "hidden")]);
        let tab = b.el("div", &[("tabindex", "0")]);
        let neg_tab = b.el("div", &[("tabindex", "-1")]);
        let t = b.finish();
        let sem = Semantics::compute(&t);
        let i = compute_interactive(&sem);
        assert!(i[btn] && i[link] && i[clicky] && i[pointer] && i[tab]);
        assert!(!i[anchor] && !i[div] && !i[inner] && !i[zero] && !i[hidden_input] && !i[neg_tab]);
    }
}
