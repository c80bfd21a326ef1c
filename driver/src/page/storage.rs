//! A tab's local storage: read for storage-state files, and seeded from
//! them (by origin, with no need to load that origin's page).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::handle::Page;
use super::raw_cdp;
use crate::error::Result;

/// One local-storage entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageItem {
    pub name: String,
    pub value: String,
}

/// `[origin, [[key, value]…]]` of the main frame's document.
const READ_JS: &str = "(() => { try { const o = location.origin; if (!o || o === 'null') return null; \
    return [o, Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)])]; } catch (e) { return null; } })()";

impl Page {
    /// The main frame's origin and its local storage (`None` for pages
    /// without a storage origin: `about:blank`, `data:`, opaque origins).
    pub async fn local_storage(&self) -> Result<Option<(String, Vec<StorageItem>)>> {
        let v = self.evaluate_isolated(READ_JS).await?;
        let Some(origin) = v.get(0).and_then(Value::as_str) else {
            return Ok(None);
        };
        let items = v[1]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|kv| StorageItem {
                        name: kv[0].as_str().unwrap_or_default().to_string(),
                        value: kv[1].as_str().unwrap_or_default().to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Some((origin.to_string(), items)))
    }

    /// Writes `items` into `origin`'s local storage in this tab's context.
    pub async fn seed_local_storage(&self, origin: &str, items: &[StorageItem]) -> Result<()> {
        raw_cdp::on_page(self.cdp(), "DOMStorage.enable", json!({})).await?;
        for item in items {
            raw_cdp::on_page(
                self.cdp(),
                "DOMStorage.setDOMStorageItem",
                json!({
                    "storageId": {"securityOrigin": origin, "isLocalStorage": true},
                    "key": item.name,
                    "value": item.value,
                }),
            )
            .await?;
        }
        Ok(())
    }
}
