//! Which elements a user can act on, and so get a ref.
use crate::dom::{among, DomTree, ElementData, NodeId};
use crate::semantics::Semantics;

/// Roles of form fields: operable by themselves, and what the modal
/// outline counts as "form fields" and readable text leaves out.
pub const FORM_FIELD_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "combobox",
    "checkbox",
    "radio",
    "switch",
    "slider",
    "spinbutton",
    "listbox",
];

/// The other roles whose elements are operable by themselves.
const OPERABLE_ROLES: &[&str] = &[
    "button",
    "link",
    "option",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "scrollbar",
    "gridcell",
];

/// Items of composite widgets (listbox, grid, tree, menu, tablist,
/// radiogroup). The widget usually handles clicks on the container
/// (delegation), so an item is a target whatever listener it carries, and
/// the container that holds items is not a target by its listener alone.
const COMPOSITE_ITEMS: &[&str] = &[
    "option",
    "gridcell",
    "row",
    "treeitem",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "radio",
];

/// Native elements that are operable whatever their role says.
const INTERACTIVE_TAGS: &[&str] = &["button", "select", "textarea", "summary", "input"];

/// A target by its tag alone: a control or a link. Its own cursor decides
/// nothing, and its descendants are not separate targets whatever theirs.
pub fn target_by_tag(e: &ElementData) -> bool {
    among(INTERACTIVE_TAGS, &e.tag) || (e.tag == "a" && e.has_attr("href")) || media_player(e)
}

/// An `<audio>` or `<video>` that shows the browser's own controls (play,
/// time, volume: a click plays or pauses it).
pub fn media_player(e: &ElementData) -> bool {
    matches!(e.tag.as_str(), "audio" | "video") && e.has_attr("controls")
}

/// Some shown descendant of `id` has a box.
fn boxed_inside(sem: &Semantics, id: NodeId) -> bool {
    let tree = sem.tree;
    tree.descendants(id)
        .skip(1)
        .any(|d| tree.element(d).is_some_and(|e| !e.rect.is_empty()) && !sem.is_hidden(d))
}

/// Some shown descendant of `id` is an image still loading: it will give
/// `id` its box (a card link of one lazy or slow picture).
fn image_coming_inside(sem: &Semantics, id: NodeId) -> bool {
    let tree = sem.tree;
    tree.descendants(id)
        .skip(1)
        .any(|d| tree.element(d).is_some_and(|e| e.loading_image) && !sem.is_hidden(d))
}

/// Decides, per node, whether it gets a ref.
pub fn compute_interactive(sem: &Semantics) -> Vec<bool> {
    let tree = sem.tree;
    let holds = holds_composite_items(sem);
    let mut out = vec![false; tree.len()];
    for (id, flag) in out.iter_mut().enumerate() {
        *flag = is_interactive(sem, id, holds[id]);
    }
    out
}

/// Per node: some descendant is a composite-widget item (see
/// `COMPOSITE_ITEMS`). Children come after their parent in id order (the
/// walk's pre-order), so one backward pass hands the bit up.
fn holds_composite_items(sem: &Semantics) -> Vec<bool> {
    let tree = sem.tree;
    let mut holds = vec![false; tree.len()];
    for id in (1..tree.len()).rev() {
        let item = holds[id] || sem.role(id).is_some_and(|r| among(COMPOSITE_ITEMS, r));
        if let (true, Some(p)) = (item, tree.parent(id)) {
            holds[p] = true;
        }
    }
    holds
}

/// A row is an item of a tree grid (it expands and is selected); in a grid
/// or a table the cells are the items.
fn row_of_treegrid(sem: &Semantics, id: NodeId) -> bool {
    sem.tree
        .ancestors(id)
        .find_map(|a| sem.role(a).filter(|r| among(&["treegrid", "grid", "table"], r)))
        == Some("treegrid")
}

/// A `<label>` whose control (by `for`, else the first labelable element
/// inside) is a shown target by its tag.
fn labels_a_control(sem: &Semantics, id: NodeId, e: &ElementData) -> bool {
    if e.tag != "label" {
        return false;
    }
    let control = match e.attr("for") {
        Some(f) => sem.ids.first(sem.tree.node(id).scope, f),
        None => crate::semantics::names::first_labelable(sem, id),
    };
    control.is_some_and(|c| !sem.is_hidden(c) && sem.tree.element(c).is_some_and(target_by_tag))
}

/// `tabindex` with an integer value, negative ones included: the element
/// is focusable (a `<th tabindex=-1>` column header, a `<tr tabindex=-1>`
/// tree-grid row), so a script means it to be acted on.
fn focusable_by_tabindex(e: &ElementData) -> bool {
    e.attr("tabindex")
        .and_then(crate::number::parse_int)
        .is_some_and(|t| i32::try_from(t).is_ok())
}

fn is_interactive(sem: &Semantics, id: NodeId, holds_items: bool) -> bool {
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
    // `pointer-events:none` makes no click target, but a native control or
    // a tabindex element stays focusable and operable: custom checkboxes
    // and selects (Shoelace, Bootstrap's `btn-check`, Choices.js) keep the
    // real input there, invisible, and a click on its label reaches it.
    let focusable = target_by_tag(e) || focusable_by_tabindex(e);
    if style.pointer_events_none && !style.scrollable && !focusable {
        return false;
    }
    // Zero-size boxes can't be hit, unless a link or a control shows its
    // content out of its own box: a card link around a floated or
    // absolutely placed image has none of its own, nor has one with
    // `display:contents`, and a click on that content is a click on it.
    // One whose picture is still loading has no box yet but will: its ref
    // is there from the first snapshot (an action waits for the box).
    let contents = style.display == crate::dom::Display::Contents && !tree.children(id).is_empty();
    let content_boxed = || contents || boxed_inside(sem, id) || image_coming_inside(sem, id);
    if e.rect.is_empty() && !(target_by_tag(e) && content_boxed()) {
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
        if among(FORM_FIELD_ROLES, role) || among(OPERABLE_ROLES, role) || (role == "row" && row_of_treegrid(sem, id)) {
            return true;
        }
    }
    if e.form.content_editable && !parent_is_editable(tree, id) {
        return true;
    }
    // Something to drag (a card, a list item to reorder) is a drag's target.
    if e.attr("draggable") == Some("true") {
        return true;
    }
    // The page itself (`<html>`, `<body>`) is a target only as a scroll
    // container: a listener ("click outside to close" menus), a pointer
    // cursor or a tabindex there would make a ref that wraps everything.
    let page = matches!(e.tag.as_str(), "html" | "body");
    if style.scrollable || (focusable_by_tabindex(e) && !page) {
        return true;
    }
    // Nor does a listener or a pointer cursor on a composite widget that
    // delegates to its items, or a label's pointer cursor when its control
    // is a target: the control has the ref, and a click on the label is a
    // click on it.
    let wrapper = holds_items || page || labels_a_control(sem, id, e);
    if e.has_click_handler && !wrapper {
        return true;
    }
    // cursor:pointer is inherited; only the element where it starts is the target.
    if style.cursor_pointer && !wrapper {
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
        let bad_tab = b.el("div", &[("tabindex", "x")]);
        let card = b.el("li", &[("draggable", "true")]);
        let not_card = b.el("li", &[("draggable", "false")]);
        let t = b.finish();
        let sem = Semantics::compute(&t);
        let i = compute_interactive(&sem);
        assert!(i[btn] && i[link] && i[clicky] && i[pointer] && i[tab] && i[neg_tab] && i[card]);
        assert!(!i[anchor] && !i[div] && !i[inner] && !i[zero] && !i[hidden_input] && !i[bad_tab] && !i[not_card]);
    }

    #[test]
    fn a_link_of_a_picture_still_loading_has_its_ref_already() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let mut link_around = |loading: bool| {
            let link = b.open_el("a", &[("href", "/x")]);
            b.data(link).rect = Rect::default();
            let img = b.el("img", &[("alt", "Shoes")]);
            b.data(img).rect = Rect::default();
            b.data(img).loading_image = loading;
            b.close();
            link
        };
        let coming = link_around(true);
        let broken_empty = link_around(false);
        let t = b.finish();
        let i = compute_interactive(&Semantics::compute(&t));
        assert!(i[coming], "its image will size it");
        assert!(!i[broken_empty], "nothing will: no box to hit");
    }

    #[test]
    fn a_player_with_its_controls_is_a_target_that_says_whether_it_plays() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let audio = b.el("audio", &[("controls", ""), ("aria-label", "Anthem")]);
        b.data(audio).form.value = Some("playing".into());
        let video = b.el("video", &[("controls", "")]);
        let bare = b.el("video", &[]);
        let t = b.finish();
        let sem = Semantics::compute(&t);
        let i = compute_interactive(&sem);
        assert!(i[audio] && i[video] && !i[bare], "no controls, nothing to press");
        assert_eq!((sem.role(audio), sem.role(video)), (Some("audio"), Some("video")));
        assert_eq!(sem.states(audio).value.as_deref(), Some("playing"));
    }

    #[test]
    fn page_wide_and_delegating_listeners_make_no_wrapper_targets() {
        let mut b = TreeBuilder::new();
        let html = b.open_el("html", &[]);
        b.data(html).has_click_handler = true;
        let body = b.open_el("body", &[("tabindex", "-1")]);
        b.data(body).has_click_handler = true;
        b.data(body).style = Some(Style {
            cursor_pointer: true,
            ..Default::default()
        });
        // A grid-style combobox popup: the listener is on the grid.
        let grid = b.open_el("div", &[("role", "grid")]);
        b.data(grid).has_click_handler = true;
        b.open_el("div", &[("role", "row")]);
        let cell = b.el("div", &[("role", "gridcell")]);
        b.close();
        b.close();
        // An svg rating: the listener on the svg, the stars are radios.
        let svg = b.open_el("svg", &[("role", "none")]);
        b.data(svg).has_click_handler = true;
        let star = b.el("g", &[("role", "radio"), ("aria-label", "two stars")]);
        b.close();
        // A tree grid's rows are its items; a table's are not.
        b.open_el("table", &[("role", "treegrid")]);
        let tg_row = b.open_el("tr", &[]);
        b.close();
        b.close();
        b.open_el("table", &[]);
        let plain_row = b.open_el("tr", &[]);
        b.close();
        b.close();
        let th = b.el("th", &[("tabindex", "-1")]);
        // A custom checkbox: the real input invisible to the pointer, its
        // label the pointer's target; the ref goes to the input.
        let label = b.open_el("label", &[]);
        b.data(label).style = Some(Style {
            cursor_pointer: true,
            ..Default::default()
        });
        let hidden_box = b.el("input", &[("type", "checkbox")]);
        b.data(hidden_box).style = Some(Style {
            pointer_events_none: true,
            ..Default::default()
        });
        b.close();
        let card = b.el("div", &[]);
        b.data(card).has_click_handler = true;
        let t = b.finish();
        let sem = Semantics::compute(&t);
        let i = compute_interactive(&sem);
        assert!(!i[html] && !i[body] && !i[grid] && !i[svg], "wrappers");
        assert!(
            i[cell] && i[star] && i[tg_row] && i[th] && i[card],
            "items and focusables"
        );
        assert!(!i[plain_row]);
        assert!(i[hidden_box] && !i[label], "the control, not its label");
    }
}
