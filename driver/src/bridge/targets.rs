//! The shared tabs as the DevTools protocol's targets: a tab is target
//! `tab-<id>` and is driven through session `tab-<id>`, so a CDP client
//! (chromiumoxide) sees the shared tabs as a browser's pages and nothing else.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A tab the user shared with Sightline in the extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharedTab {
    #[serde(rename = "tabId")]
    pub tab_id: i64,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// The shared tab that opened it (a popup, a link to a new tab): the
    /// extension shares those with their opener.
    #[serde(rename = "openerTabId", default, skip_serializing_if = "Option::is_none")]
    pub opener_tab_id: Option<i64>,
}

impl SharedTab {
    /// Its target id (and session id): `tab-<id>`.
    pub fn target_id(&self) -> String {
        target_id(self.tab_id)
    }

    /// `Target.TargetInfo` of a page.
    pub fn target_info(&self, attached: bool) -> Value {
        let mut info = json!({
            "targetId": self.target_id(),
            "type": "page",
            "title": self.title,
            "url": self.url,
            "attached": attached,
            "canAccessOpener": false,
        });
        if let Some(opener) = self.opener_tab_id {
            info["openerId"] = target_id(opener).into();
        }
        info
    }
}

pub fn target_id(tab_id: i64) -> String {
    format!("tab-{tab_id}")
}

/// The tab behind a target or session id `tab-<id>`.
pub fn tab_of(id: &str) -> Option<i64> {
    id.strip_prefix("tab-")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        assert_eq!(tab_of(&target_id(42)), Some(42));
        assert_eq!(tab_of("page-1"), None);
        let info = SharedTab {
            tab_id: 7,
            url: "http://127.0.0.1/".into(),
            title: "T".into(),
            opener_tab_id: Some(3),
        }
        .target_info(true);
        assert_eq!(info["targetId"], "tab-7");
        assert_eq!(info["type"], "page");
        assert_eq!(info["openerId"], "tab-3");
    }
}
