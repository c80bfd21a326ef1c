//! Accessibility semantics over a `DomTree`: what is hidden, each element's
//! role, accessible name and states. Pure functions; no DOM access.
//!
//! Entry point: [`Semantics::compute`], which the snapshot pipeline calls once
//! per frame. Names are computed lazily (only for nodes that are rendered).

pub mod hidden;
pub mod names;
pub mod roles;
pub mod states;
#[cfg(test)]
mod test_html;
#[cfg(test)]
mod wpt_tests;

use crate::dom::{AttrIndex, DomTree, NodeId};

/// A WAI-ARIA role name ("button", "generic", "none"…).
pub type Role = &'static str;

/// Per-frame semantic facts, indexed by `NodeId`.
pub struct Semantics<'t> {
    pub tree: &'t DomTree,
    /// Excluded from the accessibility tree (display:none, aria-hidden, inert…).
    pub hidden: Vec<bool>,
    /// Computed role of each element (None for text, document, shadow roots,
    /// and elements with no role such as `<script>`).
    pub roles: Vec<Option<Role>>,
    /// (scope, id) → element, for aria-labelledby / aria-describedby / label[for].
    pub ids: AttrIndex<'t>,
    /// (scope, control id) → labels pointing at it with `for`.
    pub labels_for: AttrIndex<'t>,
    /// Disabled per node, computed up front because it is inherited
    /// (fieldset, aria-disabled) and asking ancestors per node would be
    /// quadratic on deep pages.
    pub disabled: Vec<bool>,
}

impl<'t> Semantics<'t> {
    pub fn compute(tree: &'t DomTree) -> Semantics<'t> {
        let hidden = hidden::compute_hidden(tree);
        let ids = AttrIndex::new(tree, "id", |_| true);
        let labels_for = AttrIndex::new(tree, "for", |e| e.tag == "label");
        let mut s = Semantics {
            tree,
            hidden,
            roles: Vec::new(),
            ids,
            labels_for,
            disabled: states::compute_disabled(tree),
        };
        s.roles = roles::compute_roles(&s);
        s
    }

    pub fn role(&self, id: NodeId) -> Option<Role> {
        self.roles[id]
    }
    pub fn is_hidden(&self, id: NodeId) -> bool {
        self.hidden[id]
    }
    /// Accessible name per accname 1.2.
    pub fn name(&self, id: NodeId) -> String {
        names::accessible_name(self, id)
    }
    /// Accessible description (aria-describedby, aria-description, title).
    pub fn description(&self, id: NodeId) -> String {
        names::accessible_description(self, id)
    }
    pub fn states(&self, id: NodeId) -> states::States {
        states::compute_states(self, id)
    }
}
