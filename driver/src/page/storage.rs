//! A tab's local storage: read for storage-state files, and seeded from
//! them (by origin, with no need to load that origin's page).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::handle::Page;
use chromiumoxide::cdp::browser_protocol::fetch::EventRequestPaused;
use futures::StreamExt;

use super::raw_cdp;
use crate::error::{Error, Result};

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

    /// Writes `items` into `origin`'s local storage in this tab's context:
    /// the tab opens the origin with an empty document served by the driver
    /// itself (the site is not asked), and sets the items there.
    pub async fn seed_local_storage(&self, origin: &str, items: &[StorageItem]) -> Result<()> {
        let mut paused = self
            .cdp()
            .event_listener::<EventRequestPaused>()
            .await
            .map_err(|e| Error::cdp("Fetch.requestPaused", e))?;
        raw_cdp::on_page(
            self.cdp(),
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}]}),
        )
        .await?;
        let page = self.cdp().clone();
        let serve = tokio::spawn(async move {
            // An empty page for every document request while seeding.
            while let Some(ev) = paused.next().await {
                let body = crate::base64::encode(b"<!DOCTYPE html><title></title>");
                let _ = raw_cdp::on_page(
                    &page,
                    "Fetch.fulfillRequest",
                    json!({"requestId": ev.request_id, "responseCode": 200, "body": body,
                        "responseHeaders": [{"name": "Content-Type", "value": "text/html"}]}),
                )
                .await;
            }
        });
        let seeded = async {
            self.goto(&format!("{}/", origin.trim_end_matches('/'))).await?;
            let pairs: Vec<(&str, &str)> = items.iter().map(|i| (i.name.as_str(), i.value.as_str())).collect();
            let script = format!(
                "(() => {{ for (const [k, v] of {}) localStorage.setItem(k, v); return true; }})()",
                serde_json::to_string(&pairs).expect("strings serialise")
            );
            self.evaluate_isolated(&script).await.map(|_| ())
        }
        .await;
        serve.abort();
        let _ = raw_cdp::on_page(self.cdp(), "Fetch.disable", json!({})).await;
        seeded
    }
}
