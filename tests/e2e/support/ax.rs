//! Chromium's accessibility tree as an oracle: its role names mapped to
//! ours, and Sightline's refs resolved to the DOM nodes Chromium's AX nodes
//! belong to (`backendDOMNodeId`). Shared by `ax_oracle.rs` and
//! `widget_conformance.rs` (`use crate::support::ax::*;`).

use std::collections::HashMap;

use futures::StreamExt;
use serde_json::{json, Value};
use sightline::Page;

use super::world::{cdp, collapse_ws, engine_world};

/// Chromium's role names (CDP `AXNode.role.value`) that differ from the
/// ARIA / HTML-AAM role names our engine uses, mapped to ours. Names not in
/// the table are compared as they are (Chromium already reports the ARIA
/// name whenever one exists: "button", "link", "textbox", "generic", …).
///
/// - `image`: ARIA 1.3's synonym of `img`, which Chromium now reports.
/// - `DisclosureTriangle`: a `<summary>`; HTML-AAM maps it to a button-like
///   disclosure control and we call it `button`.
/// - `StaticText`, `InlineTextBox`, `LineBreak`: text leaves (ARIA has no
///   role; never a ref of ours, listed for the histogram).
/// - `LabelText`: `<label>` (no ARIA role; HTML-AAM says generic).
/// - `ListMarker`: the `::marker` of a list item.
/// - `RootWebArea`: the document.
/// - `Iframe`, `IframePresentational`: an iframe element.
/// - `MenuListPopup`, `MenuListOption`, `ListBoxOption`: the parts of a
///   `<select>`; `ComboBoxSelect` / `PopUpButton`: a single-select `<select>`.
/// - `DescriptionList*`: `<dl>`, `<dt>`, `<dd>` (ARIA 1.2: list / term / definition).
/// - `Section`: an unnamed `<section>` (HTML-AAM: generic).
/// - `SvgRoot`, `Canvas`: graphics without an ARIA role; `img` is the closest.
/// - `Abbr`, `Pre`, `Ruby`, `Figcaption`, `Legend`, `Details`: no ARIA role
///   (HTML-AAM: generic, group for details, caption-like for figcaption).
/// - `Video`, `Audio`: media elements (no ARIA role).
/// - `Unknown`: Chromium could not tell.
pub const ROLE_MAP: &[(&str, &str)] = &[
    ("image", "img"),
    ("DisclosureTriangle", "button"),
    ("StaticText", "text"),
    ("InlineTextBox", "text"),
    ("LineBreak", "text"),
    ("LabelText", "generic"),
    ("ListMarker", "listmarker"),
    ("RootWebArea", "document"),
    ("Iframe", "iframe"),
    ("IframePresentational", "iframe"),
    ("MenuListPopup", "listbox"),
    ("MenuListOption", "option"),
    ("ListBoxOption", "option"),
    ("ComboBoxSelect", "combobox"),
    ("PopUpButton", "combobox"),
    ("DescriptionList", "list"),
    ("DescriptionListTerm", "term"),
    ("DescriptionListDetail", "definition"),
    ("Section", "generic"),
    ("SvgRoot", "img"),
    ("Canvas", "img"),
    ("Abbr", "generic"),
    ("Pre", "generic"),
    ("Ruby", "generic"),
    ("Figcaption", "caption"),
    ("Legend", "generic"),
    ("Details", "group"),
    ("Video", "video"),
    ("Audio", "audio"),
    ("Unknown", "unknown"),
];

pub fn map_role(chromium: &str) -> &str {
    ROLE_MAP
        .iter()
        .find(|(c, _)| *c == chromium)
        .map(|(_, ours)| *ours)
        .unwrap_or(chromium)
}

pub fn norm(s: &str) -> String {
    collapse_ws(s, char::is_whitespace)
}

/// `backendNodeId` of every element the engine resolves the refs to (None
/// when it resolves to nothing).
pub async fn backend_ids(page: &Page, refs: &[String]) -> Result<Vec<Option<i64>>, String> {
    let ctx = engine_world(page).await;
    let js = format!(
        "({}).map(r => globalThis.__sightline.resolve(r) || null)",
        serde_json::to_string(refs).unwrap()
    );
    let params = json!({
        "expression": js,
        "contextId": ctx.inner(),
        "returnByValue": false,
        "objectGroup": "ax-oracle",
        "silent": true,
    });
    let resp = cdp(page, "Runtime.evaluate", params).await?;
    if let Some(ex) = resp.get("exceptionDetails") {
        return Err(format!("resolve: {ex}"));
    }
    let array = resp["result"]["objectId"]
        .as_str()
        .ok_or("resolve returned no object")?
        .to_string();
    let props = cdp(
        page,
        "Runtime.getProperties",
        json!({ "objectId": array, "ownProperties": true }),
    )
    .await?;
    let mut object_ids: Vec<Option<String>> = vec![None; refs.len()];
    for p in props["result"].as_array().cloned().unwrap_or_default() {
        let Some(i) = p["name"].as_str().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        if i < object_ids.len() {
            object_ids[i] = p["value"]["objectId"].as_str().map(str::to_string);
        }
    }
    // Pipelined over the one DevTools connection.
    let ids: Vec<Option<i64>> = futures::stream::iter(object_ids)
        .map(|oid| async move {
            let oid = oid?;
            let node = cdp(page, "DOM.describeNode", json!({ "objectId": oid })).await.ok()?;
            node["node"]["backendNodeId"].as_i64()
        })
        .buffered(32)
        .collect()
        .await;
    let _ = cdp(
        page,
        "Runtime.releaseObjectGroup",
        json!({ "objectGroup": "ax-oracle" }),
    )
    .await;
    Ok(ids)
}

/// Chromium's AX nodes by backend DOM node id (a non-ignored node wins over
/// an ignored one for the same element).
pub async fn ax_nodes(page: &Page) -> Result<HashMap<i64, Value>, String> {
    let tree = cdp(page, "Accessibility.getFullAXTree", json!({})).await?;
    let mut by_backend: HashMap<i64, Value> = HashMap::new();
    for node in tree["nodes"].as_array().cloned().unwrap_or_default() {
        let Some(b) = node["backendDOMNodeId"].as_i64() else {
            continue;
        };
        let ignored = node["ignored"].as_bool().unwrap_or(false);
        match by_backend.get(&b) {
            Some(prev) if !prev["ignored"].as_bool().unwrap_or(false) || ignored => {}
            _ => {
                by_backend.insert(b, node);
            }
        }
    }
    Ok(by_backend)
}

/// `a` out of `b` as a percentage (100 when there is nothing to count).
pub fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}
