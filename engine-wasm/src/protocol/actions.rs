//! Action requests and answers: what the engine reports about a target
//! before the driver sends trusted input (actionability), and the DOM-level
//! operations that have no trusted-input equivalent.
use serde::{Deserialize, Serialize};

use super::snapshot::Rect;

/// `__sightline.actionTarget(json)` request.
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct TargetRequest {
    /// A ref ("e12"), an engine/CSS selector, or `xpath=…`.
    pub target: String,
    /// Scroll the element into view (centred) before measuring.
    #[serde(default)]
    pub scroll: bool,
}

/// What the engine knows about an action target right now.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TargetInfo {
    pub found: bool,
    /// The ref was handed out, but its element has left the document.
    #[serde(default)]
    pub stale: bool,
    #[serde(default)]
    pub error: Option<String>,
    /// `role "name"` of the element, for error messages.
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub selector: String,
    #[serde(default)]
    pub tag: String,
    /// `type` of an `<input>`, lower-case.
    #[serde(default)]
    pub input_type: String,
    pub attached: bool,
    pub visible: bool,
    pub enabled: bool,
    pub editable: bool,
    /// Border box in this frame's viewport coordinates.
    pub rect: Rect,
    /// Where trusted input should land (centre of the visible box).
    pub point: Option<(f64, f64)>,
    /// The hit-test at `point` lands on the element or a descendant.
    pub receives_events: bool,
    /// What covers the point instead: a ref or selector.
    #[serde(default)]
    pub covered_by: Option<String>,
    /// Description of the covering element (`div.cookie-bar "We use cookies…"`).
    #[serde(default)]
    pub covered_by_description: Option<String>,
    /// Missing the hit, the point lies outside an ancestor's overflow clip:
    /// out of sight (a collapsed menu's items), not covered.
    #[serde(default)]
    pub clipped: bool,
    /// For checkboxes and radios: the current state.
    #[serde(default)]
    pub checked: Option<bool>,
    /// Not visible, but a picture inside is still loading and will give it
    /// a box (a card link of one lazy or slow image).
    #[serde(default)]
    pub image_loading: bool,
}

/// DOM-level operations (`__sightline.domAction(json)`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum DomOp {
    /// Focus the element and select its current content (before typing over it).
    FocusAndSelectAll,
    /// Set `value` directly and fire `input` + `change` (date, color, range…,
    /// where typing is not how a user changes the value).
    SetValue,
    /// Choose `values` of a native `<select>` by label, then value; fires
    /// `input` + `change`.
    SelectOption,
    /// Scroll the element into view (centred).
    ScrollIntoView,
    /// Fire `change` (after typing into a field, as blur would).
    DispatchChange,
    /// Read the current value (`value`, `checked`, text of contenteditable).
    ReadValue,
    /// Explicit, logged fallback: the DOM `click()` method.
    JsClick,
}

/// One DOM-level operation. A flat struct rather than a tagged enum: serde's
/// internally tagged enums cost tens of KB of wasm.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct DomAction {
    pub op: DomOp,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub values: Vec<String>,
    #[serde(default)]
    pub percent: f64,
    #[serde(default)]
    pub dx: f64,
    #[serde(default)]
    pub dy: f64,
}

impl DomAction {
    pub fn new(op: DomOp, target: Option<&str>) -> Self {
        DomAction {
            op,
            target: target.map(str::to_string),
            value: None,
            values: Vec::new(),
            percent: 0.0,
            dx: 0.0,
            dy: 0.0,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct DomActionResult {
    pub ok: bool,
    #[serde(default)]
    pub error: Option<String>,
    /// Operation output: a value read, chosen option labels (one per line)…
    #[serde(default)]
    pub value: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dom_action_wire_format() {
        let a: DomAction = serde_json::from_str(r#"{"op":"selectOption","target":"e3","values":["M"]}"#).unwrap();
        assert_eq!(
            a,
            DomAction {
                values: vec!["M".into()],
                ..DomAction::new(DomOp::SelectOption, Some("e3"))
            }
        );
    }
}
