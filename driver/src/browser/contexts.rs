//! Browser contexts: isolated sets of tabs with their own cookies and
//! storage (one per MCP session over HTTP), and their storage state as
//! Playwright writes it (`{"cookies": […], "origins": [{"origin",
//! "localStorage": [{"name","value"}]}]}`), so files move between the two.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::handle::Browser;
use super::records::BrowserContext;
use crate::domains::{OriginPolicy, RefusalLog};
use crate::error::{Error, Result};
use crate::page::{raw_cdp, StorageItem};

/// Cookies and local storage, in Playwright's storage-state shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageState {
    #[serde(default)]
    pub cookies: Vec<Value>,
    #[serde(default)]
    pub origins: Vec<OriginStorage>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginStorage {
    pub origin: String,
    #[serde(default, rename = "localStorage")]
    pub local_storage: Vec<StorageItem>,
}

impl StorageState {
    pub fn load(path: &Path) -> Result<StorageState> {
        let text = std::fs::read_to_string(path).map_err(|_| Error::NoSuchFile {
            path: path.to_path_buf(),
            hint: None,
        })?;
        serde_json::from_str(&text)
            .map_err(|e| Error::Config(format!("{}: not a storage state file: {e}", path.display())))
    }

    /// The file's text (pretty JSON, ending in a newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a storage state serialises") + "\n"
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_json()).map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))
    }
}

/// A DevTools cookie in Playwright's shape.
fn playwright_cookie(c: &Value) -> Value {
    json!({
        "name": c["name"], "value": c["value"], "domain": c["domain"], "path": c["path"],
        "expires": c["expires"], "httpOnly": c["httpOnly"], "secure": c["secure"],
        "sameSite": c.get("sameSite").cloned().unwrap_or(json!("Lax")),
    })
}

/// A Playwright cookie as DevTools `CookieParam`.
fn cookie_param(c: &Value) -> Value {
    let mut p = json!({"name": c["name"], "value": c["value"]});
    for key in ["domain", "path", "secure", "httpOnly", "sameSite", "url"] {
        if let Some(v) = c.get(key).filter(|v| !v.is_null()) {
            p[key] = v.clone();
        }
    }
    // Playwright writes -1 for session cookies.
    if let Some(e) = c.get("expires").and_then(Value::as_f64).filter(|e| *e > 0.0) {
        p["expires"] = json!(e);
    }
    p
}

impl Browser {
    /// A new isolated context.
    pub async fn new_context(&self) -> Result<BrowserContext> {
        let v = raw_cdp::on_browser(self.cdp_browser()?, "Target.createBrowserContext", json!({})).await?;
        let id = v["browserContextId"]
            .as_str()
            .ok_or_else(|| Error::Cdp {
                method: "Target.createBrowserContext",
                message: "no browserContextId in the answer".into(),
            })?
            .to_string();
        Ok(BrowserContext { id })
    }

    /// Gives `context`'s tabs (those opened from now on, popups included)
    /// their own origin policy instead of the launch options' (an MCP
    /// session's file access follows its client's roots).
    pub async fn set_context_origins(&self, context: &BrowserContext, origins: OriginPolicy) {
        self.context_origins
            .lock()
            .unwrap()
            .insert(context.id.clone(), origins.clone());
        self.guard_origins(&origins).await;
    }

    /// The origin policy of tabs in `context` (the default one when `None`).
    pub(super) fn origins_for(&self, context: Option<&str>) -> OriginPolicy {
        context
            .and_then(|c| self.context_origins.lock().unwrap().get(c).cloned())
            .unwrap_or_else(|| self.options().origins.clone())
    }

    /// The refusal log's handle for tabs in `context`: their context's
    /// when it has a policy of its own, else the launch options'.
    pub(super) fn refusals_of(&self, context: Option<&str>) -> RefusalLog {
        let own = context.filter(|c| self.context_origins.lock().unwrap().contains_key(*c));
        self.refusals.in_context(own.map(str::to_string))
    }

    /// Closes a context and every tab in it.
    pub async fn close_context(&self, context: &BrowserContext) -> Result<()> {
        self.context_origins.lock().unwrap().remove(&context.id);
        raw_cdp::on_browser(
            self.cdp_browser()?,
            "Target.disposeBrowserContext",
            json!({"browserContextId": context.id}),
        )
        .await
        .map(|_| ())
    }

    /// The cookies and the local storage of the open tabs' origins, of
    /// `context` (the default context when `None`).
    pub async fn storage_state(&self, context: Option<&BrowserContext>) -> Result<StorageState> {
        let mut params = json!({});
        if let Some(c) = context {
            params["browserContextId"] = json!(c.id);
        }
        let v = raw_cdp::on_browser(self.cdp_browser()?, "Storage.getCookies", params).await?;
        let cookies = v["cookies"]
            .as_array()
            .map(|a| a.iter().map(playwright_cookie).collect());
        let mut origins: Vec<OriginStorage> = Vec::new();
        for page in self.pages_in(context).await? {
            let Ok(found) = page.local_storage().await else {
                continue;
            };
            if let Some((origin, items)) = found {
                if !items.is_empty() && !origins.iter().any(|o| o.origin == origin) {
                    origins.push(OriginStorage {
                        origin,
                        local_storage: items,
                    });
                }
            }
        }
        Ok(StorageState {
            cookies: cookies.unwrap_or_default(),
            origins,
        })
    }

    /// Sets cookies and seeds local storage in `context` (the default context when `None`).
    pub async fn load_storage_state(&self, context: Option<&BrowserContext>, state: &StorageState) -> Result<()> {
        if !state.cookies.is_empty() {
            let mut params = json!({"cookies": state.cookies.iter().map(cookie_param).collect::<Vec<_>>()});
            if let Some(c) = context {
                params["browserContextId"] = json!(c.id);
            }
            raw_cdp::on_browser(self.cdp_browser()?, "Storage.setCookies", params).await?;
        }
        if state.origins.iter().any(|o| !o.local_storage.is_empty()) {
            let page = self.new_page_in(context).await?;
            let seeded = async {
                for o in &state.origins {
                    page.seed_local_storage(&o.origin, &o.local_storage).await?;
                }
                Ok::<_, Error>(())
            }
            .await;
            let _ = page.close().await;
            seeded?;
        }
        Ok(())
    }
}
