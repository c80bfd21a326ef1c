//! What act did, as data: replayable with no model (the act cache and saved
//! agent runs keep these).

use serde::{Deserialize, Serialize};

use super::variables::Variables;
use crate::page::{Action, Page};

/// One executed action, replayable without the model: `{description,
/// method, arguments, selector, frame?}` (arguments keep `%name%`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActRecord {
    pub description: String,
    pub method: String,
    pub arguments: Vec<String>,
    pub selector: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<String>,
    /// The element as the snapshot named it (`button "Save"`): a replay
    /// checks the selector still finds that element, not a neighbour that
    /// took its place (`nth-of-type` selectors follow positions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// For a selector that is a position among siblings: the text around
    /// the element then (its row, card or label, `Green hat $20 Add to
    /// cart`). Rows reorder, and the same position with the same name is
    /// then another row's button: a replay checks this first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Where the element was when acted on (viewport CSS pixels); for trace
    /// reports only, never cached.
    #[serde(skip)]
    pub rect: Option<sightline_engine::protocol::Rect>,
}

/// `button "Save"`: how a record names its element.
pub fn element_label(role: &str, name: &str) -> Option<String> {
    (!role.is_empty()).then(|| format!("{role} {name:?}"))
}

impl ActRecord {
    /// [`ActRecord::to_action`] on `page`: its variables filled in as the
    /// document the action's text reaches allows.
    pub async fn to_action_on(&self, variables: &Variables, page: &Page) -> Action {
        let mut action = self.to_action(&Variables::default(), "");
        let url = variables.url_of(page, action.target().as_ref()).await;
        action.arguments = self.arguments.iter().map(|a| variables.fill_in(a, &url)).collect();
        action
    }

    /// The action to run it again on a page at `url` (variables
    /// substituted; one bound to other sites stays a placeholder).
    pub fn to_action(&self, variables: &Variables, url: &str) -> Action {
        Action {
            method: self.method.clone(),
            selector: Some(self.selector.clone()).filter(|s| !s.is_empty()),
            ref_: None,
            frame: self.frame.clone(),
            arguments: self.arguments.iter().map(|a| variables.fill_in(a, url)).collect(),
            description: Some(self.description.clone()),
        }
    }
}
