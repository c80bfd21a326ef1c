//! Hidden rules: which nodes are excluded from the accessibility tree.
use crate::dom::DomTree;

/// One flag per node: true when the node is hidden from users and assistive tech.
pub fn compute_hidden(tree: &DomTree) -> Vec<bool> {
    // Placeholder; replaced by the full rule set.
    let mut hidden = vec![false; tree.len()];
    for id in tree.descendants(DomTree::ROOT) {
        let parent_hidden = tree.parent(id).map(|p| hidden[p]).unwrap_or(false);
        let own = tree
            .element(id)
            .map(|e| e.style.as_ref().map(|s| s.display == crate::dom::Display::None).unwrap_or(true))
            .unwrap_or(false);
        hidden[id] = parent_hidden || own;
    }
    hidden
}
