//! A ref whose element the page replaced with an equal one (a re-render:
//! an htmx or Turbo swap, a form rendered again after validation, a widget
//! that redraws itself every second) is acted on through its replacement,
//! when that cannot be a different element.
//!
//! The rule is narrow on purpose: the ref's snapshot selector must name the
//! element by its own identity (a unique id, test id or form field name),
//! not by its position among siblings, which a re-render may have shifted
//! onto another row's "Delete". It must now find exactly one element, in
//! the same document, rendered, with the ref's role and name.

use chromiumoxide::cdp::browser_protocol::page::FrameId;
use serde_json::json;

use super::handle::Page;
use crate::error::Result;

/// What a stale ref is acted on instead.
pub(crate) struct Replacement {
    /// The ref's selector, in the ref's frame.
    pub selector: String,
    /// How the action names it: the snapshot's label, and why it is not the
    /// ref's own element.
    pub description: String,
}

/// Finds the selector's one element and compares it with the ref's (role
/// `generic` stands for elements without one, as in the snapshot).
const SAME_ELEMENT_JS: &str = r#"((o) => {
  if (performance.timeOrigin !== o.doc) return false;
  const found = JSON.parse(globalThis.__sightline.describeAll(o.selector));
  if (found.length !== 1 || !found[0].found || found[0].hidden) return false;
  const role = found[0].role === null || found[0].role === "none" || found[0].role === "presentation" ? "generic" : found[0].role;
  return role === o.role && found[0].name === o.name;
})"#;

impl Page {
    /// The replacement of the element of stale ref `shown_as` (`e5`, or
    /// `f1e5` for `local_ref` `e5` of `frame`) in `document`, when the rule
    /// above holds (`None` otherwise: the ref stays stale).
    pub(crate) async fn replacement(
        &self,
        frame: &FrameId,
        local_ref: &str,
        document: Option<f64>,
        shown_as: &str,
    ) -> Result<Option<Replacement>> {
        let facts = {
            let state = self.state();
            let refs = state
                .frame_refs
                .get(frame.inner())
                .filter(|refs| document == Some(refs.document));
            refs.and_then(|refs| refs.refs.get(local_ref)).cloned()
        };
        let Some(facts) = facts.filter(|f| names_its_own_identity(&f.selector)) else {
            return Ok(None);
        };
        let args = json!({
            "doc": document,
            "selector": facts.selector,
            "role": facts.role,
            "name": facts.name,
        });
        let same = self
            .engine_eval(frame, &format!("({SAME_ELEMENT_JS})({args})"), false)
            .await?;
        if same.as_bool() != Some(true) {
            return Ok(None);
        }
        Ok(Some(Replacement {
            description: format!(
                "{} (the page re-rendered {shown_as}: acted on its replacement, {})",
                facts.label, facts.selector
            ),
            selector: facts.selector,
        }))
    }
}

/// Whether an engine selector is the element's own unique id, test id or
/// form name (`#save`, `[data-testid="save"]`, `input[name="email"]`): one
/// step, no position, no shadow hop (the comparison reads the document).
/// Any other finds a position, which a re-render may give another element.
pub fn names_its_own_identity(s: &str) -> bool {
    (s.starts_with('#') || s.starts_with('[') || s.contains("[name="))
        && !s.contains(" > ")
        && !s.contains(" >>> ")
        && !s.contains(":nth-of-type(")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_selector_of_the_elements_own_identity_finds_its_replacement() {
        for own in ["#save", "[data-testid=\"save\"]", "input[name=\"email\"]", "#a\\ \\>b"] {
            assert!(names_its_own_identity(own), "{own}");
        }
        // A position a re-render may shift onto another row's button, an
        // anchor that is an ancestor's, a shadow hop, a bare tag.
        for positional in [
            "#list > li:nth-of-type(3) > button",
            "#row-1 > button",
            "x-card >>> #save",
            "main > button",
            "button",
        ] {
            assert!(!names_its_own_identity(positional), "{positional}");
        }
    }
}
