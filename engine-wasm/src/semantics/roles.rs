//! Roles per HTML-AAM and WAI-ARIA 1.2.
//!
//! Output names are ARIA 1.2 role names (plus `mark`, `comment`,
//! `suggestion`, `sectionheader`, `sectionfooter` from ARIA 1.3, DPUB `doc-*`
//! and `graphics-*`). Where Chromium's `Accessibility.getFullAXTree` uses an
//! internal name for the same concept (`DescriptionList`, `DisclosureTriangle`,
//! `LabelText`, `Section`…) the comparison layer maps it; this module never
//! emits Chromium-internal names.
//!
//! # Explicit roles
//! The `role` attribute is a space-separated list; the first token that is a
//! known, non-abstract role wins (case-insensitive). Synonyms: `directory` →
//! `list`, `image` → `img`, `presentation` → `none`. Abstract roles (`widget`,
//! `landmark`, `section`…) and unknown tokens are skipped.
//!
//! `none` (and `presentation`) is dropped in favour of the implicit role when
//! the element is focusable (has `tabindex`, is a link with `href`, an enabled
//! native control, an `iframe`, a `<summary>`, an editing host or media with
//! `controls`) or carries a global ARIA attribute (`aria-label`,
//! `aria-labelledby`, `aria-describedby`, `aria-description`, `aria-details`,
//! `aria-controls`, `aria-owns`, `aria-live`, `aria-atomic`, `aria-busy`,
//! `aria-current`, `aria-flowto`, `aria-keyshortcuts`, `aria-relevant`,
//! `aria-roledescription`, `aria-dropeffect`, `aria-grabbed`, `aria-hidden`).
//!
//! # Implicit roles (no usable `role` attribute)
//! | element | role |
//! |---|---|
//! | `a[href]`, `area[href]` | `link` (without `href`: `generic`) |
//! | `article` | `article` |
//! | `aside` | `complementary`; `generic` when inside `article`/`aside`/`nav`/`section` (or roles `article`/`complementary`/`navigation`/`region`) and unnamed |
//! | `blockquote` | `blockquote` |
//! | `button` | `button` |
//! | `caption` | `caption` |
//! | `code` | `code` |
//! | `datalist` | `listbox` |
//! | `dd` / `dt` / `dfn` | `definition` / `term` / `term` |
//! | `del`, `s` / `ins` | `deletion` / `insertion` |
//! | `details` | `group` |
//! | `dialog` | `dialog` |
//! | `dl`, `menu`, `ol`, `ul` | `list` |
//! | `em` / `strong` | `emphasis` / `strong` |
//! | `fieldset`, `optgroup`, `hgroup` | `group` |
//! | `figure` | `figure` |
//! | `footer` / `header` | `contentinfo` / `banner` unless inside `article`/`aside`/`main`/`nav`/`section` (or roles `article`/`complementary`/`main`/`navigation`/`region`), then `generic` |
//! | `form` | `form` when named (aria-label, aria-labelledby, title), else `generic` |
//! | `h1`–`h6` | `heading` |
//! | `hr` | `separator` |
//! | `iframe`, `frame` | `iframe` |
//! | `img` | `none` when `alt=""` and no `title`, global ARIA attribute or `tabindex`; else `img` |
//! | `input` | by type: `text`/`email`/`tel`/`url`/`password`/missing/unknown/date-like → `textbox`; `search` → `searchbox`; text-like with `list` → `combobox`; `checkbox`, `radio`; `range` → `slider`; `number` → `spinbutton`; `button`/`submit`/`reset`/`image`/`file`/`color` → `button`; `hidden` → no role |
//! | `li` | `listitem` when its parent's role is `list`; `none` when the parent is a presentational `ul`/`ol`/`menu`; else `generic` |
//! | `main` / `nav` / `search` | `main` / `navigation` / `search` |
//! | `mark` / `math` / `meter` | `mark` / `math` / `meter` |
//! | `option` | `option` |
//! | `output` | `status` |
//! | `p` | `paragraph` |
//! | `progress` | `progressbar` |
//! | `section` | `region` when named, else `generic` |
//! | `select` | `combobox`; `listbox` with `multiple` or `size` > 1 |
//! | `sub` / `sup` | `subscript` / `superscript` |
//! | `summary` | `button` when it is the first `<summary>` child of a `<details>` (Chromium: `DisclosureTriangle`), else `generic` |
//! | `svg` | `img` when named (aria-label, aria-labelledby, title attribute or `<title>` child), else `none` |
//! | `table` | `table` |
//! | `thead`, `tbody`, `tfoot` | `rowgroup` |
//! | `tr` | `row` |
//! | `td` | `cell`; `gridcell` in a `grid`/`treegrid` table |
//! | `th` | `columnheader` / `rowheader`: `scope` first; otherwise `columnheader` in `thead`, in the table's first row, or in a row made only of `th`; else `rowheader` |
//! | `textarea` | `textbox` |
//! | `time` | `time` |
//! | table parts (`caption`, `thead`…`td`) of a presentational table | `none` |
//! | table parts outside any `<table>` | `generic` |
//! | `html`, `body`, `head`, `script`, `style`, `template`, `noscript`, `meta`, `link`, `base`, `title`, `slot`, `br`, `wbr`, `col`, `colgroup`, `source`, `track`, `param` | no role (`None`) |
//! | everything else (`div`, `span`, `b`, `i`, `address`, `label`, `legend`, `figcaption`, custom elements…) | `generic` |
//!
//! An editing host (`contenteditable` whose parent is not editable) whose role
//! would be `generic` or `paragraph` becomes `textbox`.
use super::{Role, Semantics};
use crate::dom::{among, DomTree, ElementData, NodeId, NodeKind};

/// Concrete roles accepted in the `role` attribute.
const ARIA_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "comment",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "mark",
    "marquee",
    "math",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "meter",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "sectionfooter",
    "sectionheader",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "suggestion",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
    "graphics-document",
    "graphics-object",
    "graphics-symbol",
    "doc-abstract",
    "doc-acknowledgments",
    "doc-afterword",
    "doc-appendix",
    "doc-backlink",
    "doc-biblioentry",
    "doc-bibliography",
    "doc-biblioref",
    "doc-chapter",
    "doc-colophon",
    "doc-conclusion",
    "doc-cover",
    "doc-credit",
    "doc-credits",
    "doc-dedication",
    "doc-endnote",
    "doc-endnotes",
    "doc-epigraph",
    "doc-epilogue",
    "doc-errata",
    "doc-example",
    "doc-footnote",
    "doc-foreword",
    "doc-glossary",
    "doc-glossref",
    "doc-index",
    "doc-introduction",
    "doc-noteref",
    "doc-notice",
    "doc-pagebreak",
    "doc-pagefooter",
    "doc-pageheader",
    "doc-pagelist",
    "doc-part",
    "doc-preface",
    "doc-prologue",
    "doc-pullquote",
    "doc-qna",
    "doc-subtitle",
    "doc-tip",
    "doc-toc",
];

/// Global ARIA attributes whose presence makes `role="none"` ignored. The
/// attributes ARIA 1.2 deprecated as global (aria-disabled, aria-errormessage,
/// aria-haspopup, aria-invalid) are left out, as browsers do.
const GLOBAL_ARIA: &[&str] = &[
    "aria-atomic",
    "aria-busy",
    "aria-controls",
    "aria-current",
    "aria-describedby",
    "aria-description",
    "aria-details",
    "aria-dropeffect",
    "aria-flowto",
    "aria-grabbed",
    "aria-hidden",
    "aria-keyshortcuts",
    "aria-label",
    "aria-labelledby",
    "aria-live",
    "aria-owns",
    "aria-relevant",
    "aria-roledescription",
];

/// Elements that never get a role: document structure, metadata and
/// elements without a box of their own.
const NO_ROLE_TAGS: &[&str] = &[
    "html", "body", "head", "script", "style", "template", "noscript", "meta", "link", "base", "title", "slot", "br",
    "wbr", "col", "colgroup", "source", "track", "param",
];

/// Tags that scope `header`/`footer` away from banner/contentinfo.
const LANDMARK_SCOPE_TAGS: &[&str] = &["article", "aside", "main", "nav", "section"];
const LANDMARK_SCOPE_ROLES: &[&str] = &["article", "complementary", "main", "navigation", "region"];
/// Sectioning content that scopes an unnamed `aside` to `generic`.
const SECTIONING_TAGS: &[&str] = &["article", "aside", "nav", "section"];
const SECTIONING_ROLES: &[&str] = &["article", "complementary", "navigation", "region"];

/// What an element inherits from its ancestors for role decisions.
#[derive(Clone, Copy, Default)]
struct Ctx {
    in_landmark_scope: bool,
    in_sectioning: bool,
    /// Nearest `<table>` element ancestor.
    table: Option<NodeId>,
}

/// Parses a `role` attribute: the first known concrete role, synonyms mapped.
pub fn parse_role_attr(value: &str) -> Option<Role> {
    for tok in value.split_ascii_whitespace() {
        let t = tok.to_ascii_lowercase();
        let mapped: &str = match t.as_str() {
            "directory" => "list",
            "image" => "img",
            "presentation" => "none",
            other => other,
        };
        if let Some(r) = ARIA_ROLES.iter().find(|r| **r == mapped) {
            return Some(r);
        }
    }
    None
}

pub fn has_global_aria(e: &ElementData) -> bool {
    e.attrs.iter().any(|(k, _)| among(GLOBAL_ARIA, k))
}

/// The `type` of an `<input>`, lower-cased, "text" when missing or empty.
pub fn input_type(e: &ElementData) -> String {
    match e.attr("type") {
        Some(t) if !t.trim().is_empty() => t.trim().to_ascii_lowercase(),
        _ => "text".to_string(),
    }
}

/// Focusable in the sense of ARIA's presentational-role conflict rule.
pub fn is_focusable(tree: &DomTree, id: NodeId, e: &ElementData) -> bool {
    if e.attr("tabindex").and_then(crate::number::parse_int).is_some() {
        return true;
    }
    if e.form.content_editable && !tree.parent_element(id).map(|p| is_editable(tree, p)).unwrap_or(false) {
        return true;
    }
    let disabled = e.has_attr("disabled");
    match e.tag.as_str() {
        "a" | "area" => e.has_attr("href"),
        "button" | "select" | "textarea" => !disabled,
        "input" => !disabled && input_type(e) != "hidden",
        "iframe" | "frame" => true,
        "summary" => is_details_summary(tree, id),
        "audio" | "video" => e.has_attr("controls"),
        _ => false,
    }
}

fn is_editable(tree: &DomTree, id: NodeId) -> bool {
    tree.element(id).map(|e| e.form.content_editable).unwrap_or(false)
}

/// True for the first `<summary>` element child of a `<details>`.
pub fn is_details_summary(tree: &DomTree, id: NodeId) -> bool {
    let Some(p) = tree.parent(id) else {
        return false;
    };
    if tree.tag(p) != Some("details") {
        return false;
    }
    first_child_with_tag(tree, p, "summary") == Some(id)
}

pub fn first_child_with_tag(tree: &DomTree, parent: NodeId, tag: &str) -> Option<NodeId> {
    tree.children(parent)
        .iter()
        .copied()
        .find(|&c| tree.tag(c) == Some(tag))
}

/// True when the element has an author-provided name (aria-label,
/// aria-labelledby pointing at something with text, or title). Roles that
/// depend on being named (region, form, complementary in sections) use this
/// cheap check instead of the full name computation, which itself needs roles.
pub fn has_author_name(s: &Semantics, id: NodeId, e: &ElementData) -> bool {
    if e.attr("aria-label")
        .map(|v| !v.trim_matches(is_ascii_ws).is_empty())
        .unwrap_or(false)
    {
        return true;
    }
    if e.attr("title")
        .map(|v| !v.trim_matches(is_ascii_ws).is_empty())
        .unwrap_or(false)
    {
        return true;
    }
    if let Some(ids) = e.attr("aria-labelledby") {
        let scope = s.tree.node(id).scope;
        for tok in ids.split_ascii_whitespace() {
            if let Some(t) = s.ids.first(scope, tok) {
                if subtree_has_text(s.tree, t) {
                    return true;
                }
            }
        }
    }
    false
}

fn subtree_has_text(tree: &DomTree, id: NodeId) -> bool {
    tree.descendants(id).any(|d| match &tree.node(d).kind {
        NodeKind::Text(t) => !t.trim_matches(is_ascii_ws).is_empty(),
        NodeKind::Element(e) => {
            e.attr("aria-label")
                .map(|v| !v.trim_matches(is_ascii_ws).is_empty())
                .unwrap_or(false)
                || (e.tag == "img" && e.attr("alt").map(|v| !v.trim().is_empty()).unwrap_or(false))
        }
        _ => false,
    })
}

fn is_ascii_ws(c: char) -> bool {
    c.is_ascii_whitespace()
}

/// Computes every node's role in one pre-order pass (ancestors first, so
/// context-dependent roles can look at their ancestors' final roles).
pub fn compute_roles(s: &Semantics) -> Vec<Option<Role>> {
    let tree = s.tree;
    let n = tree.len();
    let mut roles: Vec<Option<Role>> = vec![None; n];
    let mut ctx: Vec<Ctx> = vec![Ctx::default(); n];
    for id in tree.descendants(DomTree::ROOT) {
        let node = tree.node(id);
        let inherited = node.parent.map(|p| ctx[p]).unwrap_or_default();
        let NodeKind::Element(e) = &node.kind else {
            ctx[id] = inherited;
            continue;
        };
        let role = element_role(s, id, e, &inherited, &roles);
        roles[id] = role;
        let r = role.unwrap_or("");
        let tag = e.tag.as_str();
        ctx[id] = Ctx {
            in_landmark_scope: inherited.in_landmark_scope
                || among(LANDMARK_SCOPE_TAGS, tag)
                || among(LANDMARK_SCOPE_ROLES, r),
            in_sectioning: inherited.in_sectioning || among(SECTIONING_TAGS, tag) || among(SECTIONING_ROLES, r),
            table: if tag == "table" { Some(id) } else { inherited.table },
        };
    }
    roles
}

fn element_role(s: &Semantics, id: NodeId, e: &ElementData, ctx: &Ctx, roles: &[Option<Role>]) -> Option<Role> {
    let explicit = e.attr("role").and_then(parse_role_attr);
    match explicit {
        Some("none") if is_focusable(s.tree, id, e) || has_global_aria(e) => {}
        Some(r) => return Some(r),
        None => {}
    }
    let implicit = implicit_role(s, id, e, ctx, roles);
    // An editing host is a text field whatever generic element carries it.
    if e.form.content_editable
        && explicit.is_none()
        && matches!(implicit, Some("generic") | Some("paragraph"))
        && !s
            .tree
            .parent_element(id)
            .map(|p| is_editable(s.tree, p))
            .unwrap_or(false)
    {
        return Some("textbox");
    }
    implicit
}

fn implicit_role(s: &Semantics, id: NodeId, e: &ElementData, ctx: &Ctx, roles: &[Option<Role>]) -> Option<Role> {
    let tree = s.tree;
    let tag = e.tag.as_str();
    if among(NO_ROLE_TAGS, tag) {
        return None;
    }
    // Table parts take the table's semantics: none when it is presentational.
    let table_role = ctx.table.and_then(|t| roles[t]);
    let table_part = matches!(tag, "caption" | "thead" | "tbody" | "tfoot" | "tr" | "td" | "th");
    if table_part {
        match (ctx.table, table_role) {
            (None, _) => return Some("generic"),
            (Some(_), Some("none")) => return Some("none"),
            _ => {}
        }
    }
    let r = match tag {
        "a" | "area" if e.has_attr("href") => "link",
        "a" | "area" => "generic",
        "article" => "article",
        "aside" if ctx.in_sectioning && !has_author_name(s, id, e) => "generic",
        "aside" => "complementary",
        "blockquote" => "blockquote",
        "button" => "button",
        "caption" => "caption",
        "code" => "code",
        "datalist" => "listbox",
        "dd" => "definition",
        "dt" | "dfn" => "term",
        "del" | "s" => "deletion",
        "ins" => "insertion",
        "details" => "group",
        "dialog" => "dialog",
        "dl" | "menu" | "ol" | "ul" => "list",
        "em" => "emphasis",
        "strong" => "strong",
        "fieldset" | "optgroup" | "hgroup" => "group",
        "figure" => "figure",
        "footer" if ctx.in_landmark_scope => "generic",
        "footer" => "contentinfo",
        "header" if ctx.in_landmark_scope => "generic",
        "header" => "banner",
        "form" if has_author_name(s, id, e) => "form",
        "form" => "generic",
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => "heading",
        "hr" => "separator",
        "iframe" | "frame" => "iframe",
        // (Chromium's own roles: ARIA has none for a player.)
        "audio" if e.has_attr("controls") => "audio",
        "video" if e.has_attr("controls") => "video",
        "img" => {
            if e.attr("alt") == Some("")
                && e.attr("title").map(|t| t.is_empty()).unwrap_or(true)
                && !has_global_aria(e)
                && !e.has_attr("tabindex")
            {
                "none"
            } else {
                "img"
            }
        }
        "input" => return input_role(e),
        "li" => {
            let parent = list_parent(tree, id);
            match parent.map(|p| (tree.tag(p).unwrap_or(""), roles[p])) {
                Some((_, Some("list"))) => "listitem",
                Some(("ul" | "ol" | "menu", Some("none"))) => "none",
                _ => "generic",
            }
        }
        "main" => "main",
        "mark" => "mark",
        "math" => "math",
        "meter" => "meter",
        "nav" => "navigation",
        "option" => "option",
        "output" => "status",
        "p" => "paragraph",
        "progress" => "progressbar",
        "search" => "search",
        "section" if has_author_name(s, id, e) => "region",
        "section" => "generic",
        "select" => {
            let size = e.attr("size").and_then(crate::number::parse_int).unwrap_or(0);
            if e.has_attr("multiple") || size > 1 {
                "listbox"
            } else {
                "combobox"
            }
        }
        "sub" => "subscript",
        "sup" => "superscript",
        "summary" if is_details_summary(tree, id) => "button",
        "summary" => "generic",
        "svg" if has_author_name(s, id, e) || svg_title_child(tree, id).is_some() => "img",
        "svg" => "none",
        "table" => "table",
        "thead" | "tbody" | "tfoot" => "rowgroup",
        "tr" => "row",
        "td" if matches!(table_role, Some("grid") | Some("treegrid")) => "gridcell",
        "td" => "cell",
        "th" => th_role(tree, id, e, ctx.table),
        "textarea" => "textbox",
        "time" => "time",
        _ => "generic",
    };
    Some(r)
}

fn input_role(e: &ElementData) -> Option<Role> {
    let ty = input_type(e);
    let has_list = e.has_attr("list");
    let r = match ty.as_str() {
        "hidden" => return None,
        "checkbox" => "checkbox",
        "radio" => "radio",
        "range" => "slider",
        "number" => "spinbutton",
        "button" | "submit" | "reset" | "image" | "file" | "color" => "button",
        "search" if has_list => "combobox",
        "search" => "searchbox",
        "text" | "email" | "tel" | "url" if has_list => "combobox",
        "text" | "email" | "tel" | "url" => "textbox",
        // password, date/time pickers and unknown types are text fields.
        _ => "textbox",
    };
    Some(r)
}

/// The list an `li` belongs to: its parent element, looking through `<slot>`
/// (which has no box and so no say in the structure).
fn list_parent(tree: &DomTree, id: NodeId) -> Option<NodeId> {
    let mut cur = tree.parent_element(id);
    while let Some(p) = cur {
        if tree.tag(p) != Some("slot") {
            return Some(p);
        }
        cur = tree.parent_element(p);
    }
    None
}

/// First `<title>` element child, which names an SVG element.
pub fn svg_title_child(tree: &DomTree, id: NodeId) -> Option<NodeId> {
    first_child_with_tag(tree, id, "title")
}

fn th_role(tree: &DomTree, id: NodeId, e: &ElementData, table: Option<NodeId>) -> Role {
    if let Some(scope) = e.attr("scope") {
        match scope.trim().to_ascii_lowercase().as_str() {
            "col" | "colgroup" => return "columnheader",
            "row" | "rowgroup" => return "rowheader",
            _ => {}
        }
    }
    let Some(row) = tree.parent_element(id) else {
        return "columnheader";
    };
    if tree.parent_element(row).and_then(|g| tree.tag(g)) == Some("thead") {
        return "columnheader";
    }
    if table.and_then(|t| first_row(tree, t)) == Some(row) {
        return "columnheader";
    }
    let all_th = tree
        .children(row)
        .iter()
        .filter_map(|&c| tree.tag(c))
        .filter(|t| *t == "td" || *t == "th")
        .all(|t| t == "th");
    if all_th {
        "columnheader"
    } else {
        "rowheader"
    }
}

/// The table's first row: `thead` rows first, then rows in source order.
fn first_row(tree: &DomTree, table: NodeId) -> Option<NodeId> {
    let children = tree.children(table);
    let rows_of = |c: NodeId| -> Option<NodeId> {
        match tree.tag(c) {
            Some("tr") => Some(c),
            Some("thead" | "tbody" | "tfoot") => first_child_with_tag(tree, c, "tr"),
            _ => None,
        }
    };
    if let Some(r) = children
        .iter()
        .copied()
        .filter(|&c| tree.tag(c) == Some("thead"))
        .find_map(rows_of)
    {
        return Some(r);
    }
    children
        .iter()
        .copied()
        .filter(|&c| tree.tag(c) != Some("tfoot"))
        .find_map(rows_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::TreeBuilder;

    fn roles_of(t: &DomTree) -> Vec<Option<Role>> {
        Semantics::compute(t).roles
    }

    /// Builds `<tag attrs>` alone in a body and returns its role.
    fn role1(tag: &str, attrs: &[(&str, &str)]) -> Option<Role> {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let id = b.el(tag, attrs);
        let t = b.finish();
        roles_of(&t)[id]
    }

    #[test]
    fn explicit_roles_first_valid_token_and_synonyms() {
        assert_eq!(role1("div", &[("role", "button")]), Some("button"));
        assert_eq!(role1("div", &[("role", "BUTTON")]), Some("button"));
        assert_eq!(role1("div", &[("role", "foo  switch checkbox")]), Some("switch"));
        assert_eq!(role1("div", &[("role", "widget landmark link")]), Some("link"));
        assert_eq!(role1("div", &[("role", "directory")]), Some("list"));
        assert_eq!(role1("span", &[("role", "image")]), Some("img"));
        assert_eq!(role1("div", &[("role", "presentation")]), Some("none"));
        assert_eq!(role1("div", &[("role", "none")]), Some("none"));
        assert_eq!(role1("div", &[("role", "doc-chapter")]), Some("doc-chapter"));
        // Only abstract/unknown tokens: implicit role.
        assert_eq!(role1("button", &[("role", "widget bogus")]), Some("button"));
        assert_eq!(role1("nav", &[("role", "")]), Some("navigation"));
    }

    #[test]
    fn presentational_role_conflict_resolution() {
        assert_eq!(role1("h2", &[("role", "none")]), Some("none"));
        assert_eq!(role1("h2", &[("role", "none"), ("tabindex", "-1")]), Some("heading"));
        assert_eq!(
            role1("h2", &[("role", "presentation"), ("aria-label", "x")]),
            Some("heading")
        );
        assert_eq!(
            role1("span", &[("role", "presentation"), ("aria-describedby", "d")]),
            Some("generic")
        );
        assert_eq!(role1("button", &[("role", "none")]), Some("button"));
        assert_eq!(role1("button", &[("role", "none"), ("disabled", "")]), Some("none"));
        assert_eq!(role1("a", &[("role", "none"), ("href", "/")]), Some("link"));
        assert_eq!(role1("a", &[("role", "none")]), Some("none"));
        assert_eq!(role1("input", &[("role", "presentation")]), Some("textbox"));
        assert_eq!(
            role1("img", &[("role", "presentation"), ("alt", ""), ("title", "t")]),
            Some("none")
        );
        // aria-disabled is no longer global in ARIA 1.2.
        assert_eq!(
            role1("ul", &[("role", "none"), ("aria-disabled", "true")]),
            Some("none")
        );
    }

    #[test]
    fn links_and_images() {
        assert_eq!(role1("a", &[("href", "#")]), Some("link"));
        assert_eq!(role1("a", &[]), Some("generic"));
        assert_eq!(role1("area", &[("href", "#")]), Some("link"));
        assert_eq!(role1("img", &[("alt", "x")]), Some("img"));
        assert_eq!(role1("img", &[]), Some("img"));
        assert_eq!(role1("img", &[("alt", "")]), Some("none"));
        assert_eq!(role1("img", &[("alt", ""), ("title", "t")]), Some("img"));
        assert_eq!(role1("img", &[("alt", ""), ("aria-label", "t")]), Some("img"));
        assert_eq!(role1("img", &[("alt", ""), ("tabindex", "0")]), Some("img"));
        assert_eq!(role1("svg", &[]), Some("none"));
        assert_eq!(role1("svg", &[("aria-label", "Logo")]), Some("img"));
        let mut b = TreeBuilder::new();
        let svg = b.open_el("svg", &[]);
        b.open_el("title", &[]);
        b.text("Logo");
        let t = b.finish();
        assert_eq!(roles_of(&t)[svg], Some("img"));
    }

    #[test]
    fn input_types() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Option<Role>);
        let cases: &[Case] = &[
            (&[], Some("textbox")),
            (&[("type", "")], Some("textbox")),
            (&[("type", "TEXT")], Some("textbox")),
            (&[("type", "email")], Some("textbox")),
            (&[("type", "tel")], Some("textbox")),
            (&[("type", "url")], Some("textbox")),
            (&[("type", "password")], Some("textbox")),
            (&[("type", "date")], Some("textbox")),
            (&[("type", "bogus")], Some("textbox")),
            (&[("type", "search")], Some("searchbox")),
            (&[("type", "search"), ("list", "l")], Some("combobox")),
            (&[("list", "l")], Some("combobox")),
            (&[("type", "email"), ("list", "l")], Some("combobox")),
            (&[("type", "checkbox")], Some("checkbox")),
            (&[("type", "radio")], Some("radio")),
            (&[("type", "range")], Some("slider")),
            (&[("type", "number")], Some("spinbutton")),
            (&[("type", "button")], Some("button")),
            (&[("type", "submit")], Some("button")),
            (&[("type", "reset")], Some("button")),
            (&[("type", "image")], Some("button")),
            (&[("type", "file")], Some("button")),
            (&[("type", "color")], Some("button")),
            (&[("type", "hidden")], None),
        ];
        for (attrs, want) in cases {
            assert_eq!(role1("input", attrs), *want, "{attrs:?}");
        }
        assert_eq!(
            role1("input", &[("type", "checkbox"), ("role", "switch")]),
            Some("switch")
        );
    }

    #[test]
    fn form_controls_and_misc_elements() {
        assert_eq!(role1("select", &[]), Some("combobox"));
        assert_eq!(role1("select", &[("size", "1")]), Some("combobox"));
        assert_eq!(role1("select", &[("size", "4")]), Some("listbox"));
        assert_eq!(role1("select", &[("multiple", "")]), Some("listbox"));
        assert_eq!(role1("textarea", &[]), Some("textbox"));
        assert_eq!(role1("option", &[]), Some("option"));
        assert_eq!(role1("optgroup", &[]), Some("group"));
        assert_eq!(role1("datalist", &[]), Some("listbox"));
        assert_eq!(role1("button", &[]), Some("button"));
        assert_eq!(role1("progress", &[]), Some("progressbar"));
        assert_eq!(role1("meter", &[]), Some("meter"));
        assert_eq!(role1("output", &[]), Some("status"));
        assert_eq!(role1("fieldset", &[]), Some("group"));
        assert_eq!(role1("legend", &[]), Some("generic"));
        let pairs = [
            ("h1", "heading"),
            ("h6", "heading"),
            ("nav", "navigation"),
            ("main", "main"),
            ("article", "article"),
            ("dialog", "dialog"),
            ("details", "group"),
            ("figure", "figure"),
            ("figcaption", "generic"),
            ("hr", "separator"),
            ("p", "paragraph"),
            ("blockquote", "blockquote"),
            ("code", "code"),
            ("em", "emphasis"),
            ("strong", "strong"),
            ("del", "deletion"),
            ("s", "deletion"),
            ("ins", "insertion"),
            ("sub", "subscript"),
            ("sup", "superscript"),
            ("time", "time"),
            ("mark", "mark"),
            ("dl", "list"),
            ("dt", "term"),
            ("dd", "definition"),
            ("dfn", "term"),
            ("menu", "list"),
            ("ul", "list"),
            ("ol", "list"),
            ("search", "search"),
            ("address", "generic"),
            ("b", "generic"),
            ("i", "generic"),
            ("span", "generic"),
            ("div", "generic"),
            ("label", "generic"),
            ("iframe", "iframe"),
            ("math", "math"),
            ("hgroup", "group"),
            ("my-widget", "generic"),
            ("summary", "generic"),
            ("table", "table"),
        ];
        for (tag, want) in pairs {
            assert_eq!(role1(tag, &[]), Some(want), "{tag}");
        }
        for tag in ["script", "style", "template", "head", "br", "slot", "title"] {
            assert_eq!(role1(tag, &[]), None, "{tag}");
        }
        let mut b = TreeBuilder::new();
        let html = b.open_el("html", &[]);
        let body = b.open_el("body", &[]);
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!((r[html], r[body], r[0]), (None, None, None));
    }

    #[test]
    fn header_footer_scoping() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let h = b.el("header", &[]);
        let f = b.el("footer", &[]);
        b.open_el("article", &[]);
        let h2 = b.el("header", &[]);
        let f2 = b.el("footer", &[]);
        b.close();
        b.open_el("div", &[("role", "main")]);
        b.open_el("div", &[]);
        let h3 = b.el("header", &[]);
        b.close();
        b.close();
        b.open_el("section", &[]);
        let f3 = b.el("footer", &[]);
        b.close();
        b.open_el("div", &[]);
        let f4 = b.el("footer", &[]);
        b.close();
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!(r[h], Some("banner"));
        assert_eq!(r[f], Some("contentinfo"));
        assert_eq!(r[h2], Some("generic"));
        assert_eq!(r[f2], Some("generic"));
        assert_eq!(r[h3], Some("generic"));
        assert_eq!(r[f3], Some("generic"));
        assert_eq!(r[f4], Some("contentinfo"));
    }

    #[test]
    fn header_scoping_crosses_shadow_boundaries() {
        let mut b = TreeBuilder::new();
        b.open_el("main", &[]);
        b.open_el("x-app", &[]);
        b.open_shadow();
        let h = b.el("header", &[]);
        let t = b.finish();
        assert_eq!(roles_of(&t)[h], Some("generic"));
    }

    #[test]
    fn named_section_form_and_aside() {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let s1 = b.el("section", &[]);
        let s2 = b.el("section", &[("aria-label", "News")]);
        let s3 = b.el("section", &[("aria-labelledby", "h")]);
        let s4 = b.el("section", &[("aria-labelledby", "empty missing")]);
        let s5 = b.el("section", &[("title", "T")]);
        let s6 = b.el("section", &[("aria-label", "   ")]);
        b.open_el("h2", &[("id", "h")]);
        b.text("Head");
        b.close();
        b.el("span", &[("id", "empty")]);
        let f1 = b.el("form", &[]);
        let f2 = b.el("form", &[("aria-label", "Login")]);
        let a1 = b.el("aside", &[]);
        b.open_el("article", &[]);
        let a2 = b.el("aside", &[]);
        let a3 = b.el("aside", &[("aria-label", "Related")]);
        b.close();
        b.open_el("main", &[]);
        let a4 = b.el("aside", &[]);
        b.close();
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!(r[s1], Some("generic"));
        assert_eq!(r[s2], Some("region"));
        assert_eq!(r[s3], Some("region"));
        assert_eq!(r[s4], Some("generic"));
        assert_eq!(r[s5], Some("region"));
        assert_eq!(r[s6], Some("generic"));
        assert_eq!(r[f1], Some("generic"));
        assert_eq!(r[f2], Some("form"));
        assert_eq!(r[a1], Some("complementary"));
        assert_eq!(r[a2], Some("generic"));
        assert_eq!(r[a3], Some("complementary"));
        assert_eq!(r[a4], Some("complementary"));
    }

    #[test]
    fn list_items_depend_on_parent() {
        let mut b = TreeBuilder::new();
        b.open_el("ul", &[]);
        let li1 = b.el("li", &[]);
        b.close();
        b.open_el("ol", &[]);
        let li2 = b.el("li", &[]);
        b.close();
        b.open_el("menu", &[]);
        let li3 = b.el("li", &[]);
        b.close();
        b.open_el("div", &[("role", "list")]);
        let li4 = b.el("li", &[]);
        b.close();
        b.open_el("div", &[("role", "directory")]);
        let li5 = b.el("li", &[]);
        b.close();
        b.open_el("div", &[]);
        let li6 = b.el("li", &[]);
        b.close();
        b.open_el("ul", &[("role", "none")]);
        let li7 = b.el("li", &[]);
        b.close();
        b.open_el("ul", &[("role", "tablist")]);
        let li8 = b.el("li", &[]);
        let li9 = b.el("li", &[("role", "tab")]);
        b.close();
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!(r[li1], Some("listitem"));
        assert_eq!(r[li2], Some("listitem"));
        assert_eq!(r[li3], Some("listitem"));
        assert_eq!(r[li4], Some("listitem"));
        assert_eq!(r[li5], Some("listitem"));
        assert_eq!(r[li6], Some("generic"));
        assert_eq!(r[li7], Some("none"));
        assert_eq!(r[li8], Some("generic"));
        assert_eq!(r[li9], Some("tab"));
    }

    #[test]
    fn list_item_through_slot() {
        let mut b = TreeBuilder::new();
        b.open_el("x-list", &[]);
        b.open_shadow();
        b.open_el("ul", &[]);
        b.open_el("slot", &[]);
        let li = b.el("li", &[]);
        let t = b.finish();
        assert_eq!(roles_of(&t)[li], Some("listitem"));
    }

    /// `<table role?><thead><tr><th>…</th></tr></thead><tbody>rows</tbody></table>`
    fn table(role: Option<&str>, with_thead: bool) -> (DomTree, Vec<NodeId>) {
        let mut b = TreeBuilder::new();
        let mut ids = Vec::new();
        let attrs: Vec<(&str, &str)> = role.map(|r| vec![("role", r)]).unwrap_or_default();
        ids.push(b.open_el("table", &attrs));
        ids.push(b.el("caption", &[]));
        if with_thead {
            ids.push(b.open_el("thead", &[]));
        } else {
            ids.push(b.open_el("tbody", &[]));
        }
        ids.push(b.open_el("tr", &[]));
        ids.push(b.el("th", &[]));
        ids.push(b.el("th", &[]));
        b.close();
        if with_thead {
            b.close();
            b.open_el("tbody", &[]);
        }
        ids.push(b.open_el("tr", &[]));
        ids.push(b.el("th", &[]));
        ids.push(b.el("td", &[]));
        b.close();
        ids.push(b.open_el("tr", &[]));
        ids.push(b.el("th", &[("scope", "col")]));
        ids.push(b.el("th", &[("scope", "ROW")]));
        b.close();
        (b.finish(), ids)
    }

    #[test]
    fn table_roles() {
        let (t, ids) = table(None, true);
        let r = roles_of(&t);
        let got: Vec<_> = ids.iter().map(|&i| r[i].unwrap()).collect();
        assert_eq!(
            got,
            [
                "table",
                "caption",
                "rowgroup",
                "row",
                "columnheader",
                "columnheader",
                "row",
                "rowheader",
                "cell",
                "row",
                "columnheader",
                "rowheader"
            ]
        );
        // No thead: the first row still holds column headers.
        let (t, ids) = table(None, false);
        let r = roles_of(&t);
        assert_eq!(r[ids[4]], Some("columnheader"));
        assert_eq!(r[ids[7]], Some("rowheader"));
    }

    #[test]
    fn grid_and_presentational_tables() {
        let (t, ids) = table(Some("grid"), true);
        let r = roles_of(&t);
        assert_eq!(r[ids[0]], Some("grid"));
        assert_eq!(r[ids[8]], Some("gridcell"));
        assert_eq!(r[ids[4]], Some("columnheader"));
        let (t, ids) = table(Some("treegrid"), true);
        assert_eq!(roles_of(&t)[ids[8]], Some("gridcell"));
        let (t, ids) = table(Some("presentation"), true);
        let r = roles_of(&t);
        for &i in &ids {
            assert_eq!(r[i], Some("none"));
        }
        // A presentational table that is focusable keeps its semantics.
        let (t, ids) = table(Some("none"), true);
        let mut t = t;
        if let NodeKind::Element(e) = &mut t.nodes[ids[0]].kind {
            e.attrs.push(("tabindex".into(), "0".into()));
        }
        assert_eq!(roles_of(&t)[ids[8]], Some("cell"));
    }

    #[test]
    fn th_in_header_only_row_below_first_row() {
        let mut b = TreeBuilder::new();
        b.open_el("table", &[]);
        b.open_el("tr", &[]);
        b.el("td", &[]);
        b.close();
        b.open_el("tr", &[]);
        let th1 = b.el("th", &[]);
        let th2 = b.el("th", &[]);
        b.close();
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!((r[th1], r[th2]), (Some("columnheader"), Some("columnheader")));
    }

    #[test]
    fn table_parts_outside_tables_are_generic() {
        assert_eq!(role1("td", &[]), Some("generic"));
        assert_eq!(role1("tr", &[]), Some("generic"));
    }

    #[test]
    fn summary_only_first_in_details() {
        let mut b = TreeBuilder::new();
        b.open_el("details", &[]);
        let s1 = b.el("summary", &[]);
        let s2 = b.el("summary", &[]);
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!((r[s1], r[s2]), (Some("button"), Some("generic")));
    }

    #[test]
    fn contenteditable_host_is_textbox() {
        let mut b = TreeBuilder::new();
        let host = b.open_el("div", &[("contenteditable", "")]);
        let inner = b.el("p", &[]);
        let span = b.el("span", &[]);
        b.close();
        let other = b.el("div", &[("contenteditable", ""), ("role", "group")]);
        b.data(host).form.content_editable = true;
        b.data(inner).form.content_editable = true;
        b.data(span).form.content_editable = true;
        b.data(other).form.content_editable = true;
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!(r[host], Some("textbox"));
        assert_eq!(r[inner], Some("paragraph"));
        assert_eq!(r[span], Some("generic"));
        assert_eq!(r[other], Some("group"));
    }

    #[test]
    fn text_and_structural_nodes_have_no_role() {
        let mut b = TreeBuilder::new();
        let host = b.open_el("x-a", &[]);
        let sr = b.open_shadow();
        let tx = b.text("hi");
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!(r[host], Some("generic"));
        assert_eq!((r[0], r[sr], r[tx]), (None, None, None));
    }

    #[test]
    fn deep_tree_does_not_overflow() {
        let mut b = TreeBuilder::new();
        b.open_el("main", &[]);
        for i in 0..5000 {
            b.open_el(if i % 2 == 0 { "div" } else { "section" }, &[]);
        }
        let h = b.el("header", &[]);
        let t = b.finish();
        let r = roles_of(&t);
        assert_eq!(r[h], Some("generic"));
        assert_eq!(r[2], Some("generic"));
    }
}
