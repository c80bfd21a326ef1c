//! The text around an element (its row, card or label): what tells apart
//! elements of one name at a position among siblings, such as a list's
//! "Add to cart" buttons. A record of an action on one keeps it, and a
//! replay checks it before acting: a list that reordered puts another
//! row's button at the same position, under the same name.

use super::handle::Page;
use super::target::{Located, Target};
use crate::error::Result;

/// The text of the repeated item the element sits in (a row, a card, a
/// field's label: an ancestor with a sibling of its own tag, holding more
/// text than the element), else of the nearest ancestor holding more;
/// whitespace collapsed, cut to 300 characters, empty when there is none
/// below the body. (The element's own text, not a field's value: what a
/// user typed is no part of where the field is.) An ancestor whose text is
/// only its buttons' (a cell of "Cancel Edit" buttons, a card's toolbar)
/// is the same in every row, and is passed over; a link's text is no
/// button's (a row is often named by its link: "Invoice 42").
const CONTEXT_JS: &str = r#"(el) => {
  const norm = (t) => (t || "").replace(/\s+/g, " ").trim();
  const own = norm(el.innerText || el.getAttribute("aria-label"));
  const controlsOnly = (a, text) => {
    let rest = text;
    for (const c of a.querySelectorAll("button, select, [role=button], [role=tab], [role=menuitem]")) {
      const t = norm(c.innerText);
      if (t) rest = rest.replace(t, " ");
    }
    return norm(rest) === "";
  };
  let nearest = "";
  for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
    const text = norm(a.innerText);
    if (text.length <= own.length || controlsOnly(a, text)) continue;
    if (!nearest) nearest = text;
    const p = a.parentElement;
    if (p && [...p.children].some((c) => c !== a && c.tagName === a.tagName)) return text.slice(0, 300);
  }
  return nearest.slice(0, 300);
}"#;

impl Page {
    /// The text around `target`'s element (see the module docs); `None`
    /// when it does not resolve.
    pub async fn context_of(&self, target: impl Into<Target>) -> Result<Option<String>> {
        let loc = match self.locate(&target.into()).await {
            Ok(loc) => loc,
            Err(_) => return Ok(None),
        };
        Ok(self.context_at(&loc).await)
    }

    /// What `target`'s element has around it now, when that is not
    /// `then` (the record's, redacted by `redact` as the live one is): the
    /// page moved another element there. Compared whole: rows that differ
    /// only in a number (time slots, order numbers) are different rows, so
    /// a changed price also refuses (the act cache asks the model again).
    /// `None` when it is the same, or the target does not resolve (the
    /// action's own error says so).
    pub async fn context_changed(
        &self,
        target: impl Into<Target>,
        then: &str,
        redact: &(dyn Fn(&str) -> String + Sync),
    ) -> Result<Option<String>> {
        Ok(self
            .context_of(target)
            .await?
            .map(|now| redact(&now))
            .filter(|now| now != then))
    }

    /// [`Page::context_of`] of a located element (`None` on any failure:
    /// a record without it is checked as before).
    pub(crate) async fn context_at(&self, loc: &Located) -> Option<String> {
        let value = self.on_element(loc, CONTEXT_JS, serde_json::Value::Null).await.ok()?;
        value.as_str().map(str::to_string)
    }
}
