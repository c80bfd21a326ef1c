//! Roles per HTML-AAM and WAI-ARIA 1.2.
use super::{Role, Semantics};

pub fn compute_roles(s: &Semantics) -> Vec<Option<Role>> {
    // Placeholder; replaced by the full mapping.
    (0..s.tree.len())
        .map(|i| {
            s.tree.element(i).map(|e| match e.tag.as_str() {
                "button" => "button",
                "a" if e.has_attr("href") => "link",
                "input" => "textbox",
                _ => "generic",
            })
        })
        .collect()
}
