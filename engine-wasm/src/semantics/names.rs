//! Accessible name computation per accname 1.2.
use super::Semantics;
use crate::dom::NodeId;

pub fn accessible_name(s: &Semantics, id: NodeId) -> String {
    // Placeholder; replaced by the full algorithm.
    if let Some(l) = s.tree.attr(id, "aria-label") {
        return l.trim().to_string();
    }
    let mut out = String::new();
    for d in s.tree.descendants(id) {
        if let Some(t) = s.tree.node(d).text() {
            out.push_str(t);
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
