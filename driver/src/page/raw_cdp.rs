//! DevTools commands given by name with JSON parameters and answered as raw
//! JSON, for commands whose typed answers carry enums that newer Chromium
//! versions extend (a new value would fail typed deserialisation).

use std::borrow::Cow;

use chromiumoxide::types::{Command, Method, MethodId};
use serde_json::Value;

use crate::error::{Error, Result};

/// A command by name (`"Storage.getCookies"`) with its parameters.
#[derive(Debug, Clone)]
pub(crate) struct RawCommand {
    pub method: &'static str,
    pub params: Value,
}

impl serde::Serialize for RawCommand {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.params.serialize(s)
    }
}

impl Method for RawCommand {
    fn identifier(&self) -> MethodId {
        Cow::Borrowed(self.method)
    }
}

impl Command for RawCommand {
    type Response = Value;
}

/// Runs `method` on the browser's own session.
pub(crate) async fn on_browser(browser: &chromiumoxide::Browser, method: &'static str, params: Value) -> Result<Value> {
    browser
        .execute(RawCommand { method, params })
        .await
        .map(|r| r.result)
        .map_err(|e| Error::cdp(method, e))
}

/// Runs `method` on a tab's session.
pub(crate) async fn on_page(page: &chromiumoxide::Page, method: &'static str, params: Value) -> Result<Value> {
    page.execute(RawCommand { method, params })
        .await
        .map(|r| r.result)
        .map_err(|e| Error::cdp(method, e))
}
