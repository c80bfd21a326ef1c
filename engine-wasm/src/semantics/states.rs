//! ARIA states and properties shown in the snapshot.
use super::Semantics;
use crate::dom::NodeId;

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

pub fn compute_states(s: &Semantics, id: NodeId) -> States {
    // Placeholder; replaced by the full rules.
    let mut st = States::default();
    if let Some(e) = s.tree.element(id) {
        st.disabled = e.has_attr("disabled");
        st.value = e.form.value.clone();
    }
    st
}
