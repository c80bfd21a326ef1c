//! One connection from a DevTools client (path `/cdp/<secret>`), such as
//! chromiumoxide behind `Browser::connect`: the bridge answers as a browser
//! endpoint whose only pages are the shared tabs.
//!
//! Browser-level `Target` commands (discovery, `attachToTarget` with
//! flattened sessions, target info) are answered here from the shared tabs;
//! opening or closing tabs is refused, since the bridge only ever touches
//! what the user shared. Commands on a tab's session go to the extension,
//! which runs them with chrome.debugger; `Target.setAutoAttach` on a tab is
//! answered here and attaches nothing (no workers, no out-of-process frames
//! below the shared tabs).

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::link::{Link, Outgoing};
use super::socket::{next, split, Incoming, Ws};
use super::targets::{tab_of, target_id};

pub async fn serve(ws: Ws, link: Arc<Link>) {
    let (tx, mut incoming) = split(ws);
    if !link.is_approved() {
        let _ = tx.send(Outgoing::Close(
            1008,
            "the extension has not approved this bridge".into(),
        ));
        return;
    }
    // The first client gets the events. Another one (the driver's second
    // connection, which sends navigations) gets answers only: chromiumoxide
    // on the first must not hear of its sessions.
    let primary = link.connect_cdp(tx.clone());
    while let Incoming::Text(text) = next(&mut incoming).await {
        let Ok(command) = serde_json::from_str::<Value>(&text) else {
            tracing::debug!("bridge: unreadable DevTools command");
            continue;
        };
        // A tab's commands go to the extension now, in the order they came
        // (a mouse press before its release); each answer is awaited on a
        // task of its own, so a slow one (a navigation) holds up no other,
        // as in a real browser.
        let id = command["id"].clone();
        let session = command.get("sessionId").cloned().filter(|s| !s.is_null());
        let sent = session
            .as_ref()
            .map(|s| session_command(&link, s.as_str().unwrap_or_default(), &command));
        let link = link.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            let answer = match sent {
                None => browser_command(&link, &command, primary).await,
                Some(answer) => answer.await,
            };
            let mut reply = match answer {
                Ok(result) => json!({"id": id, "result": result}),
                Err(message) => json!({"id": id, "error": {"code": -32000, "message": message}}),
            };
            if let Some(s) = session {
                reply["sessionId"] = s;
            }
            let _ = tx.send(Outgoing::Text(reply.to_string()));
        });
    }
}

fn not_shared(target: &str) -> String {
    format!("{target} is not a tab shared with Sightline")
}

async fn browser_command(link: &Link, c: &Value, primary: bool) -> Result<Value, String> {
    let params = &c["params"];
    match c["method"].as_str().unwrap_or_default() {
        "Browser.getVersion" => Ok(json!({
            "protocolVersion": "1.3",
            "product": "Sightline extension bridge",
            "revision": "",
            "userAgent": "",
            "jsVersion": "",
        })),
        "Target.setDiscoverTargets" => {
            if params["discover"] == true && primary {
                for tab in link.tabs() {
                    let info = tab.target_info(link.is_attached(tab.tab_id));
                    link.to_cdp(json!({"method": "Target.targetCreated", "params": {"targetInfo": info}}));
                }
            }
            Ok(json!({}))
        }
        "Target.getTargets" => Ok(json!({
            "targetInfos": link.tabs().iter().map(|t| t.target_info(link.is_attached(t.tab_id))).collect::<Vec<_>>()
        })),
        "Target.getTargetInfo" => {
            let target = params["targetId"].as_str().unwrap_or_default();
            let tab = tab_of(target)
                .and_then(|t| link.tab(t))
                .ok_or_else(|| not_shared(target))?;
            Ok(json!({"targetInfo": tab.target_info(link.is_attached(tab.tab_id))}))
        }
        "Target.attachToTarget" => attach(link, params["targetId"].as_str().unwrap_or_default(), primary).await,
        "Target.setAutoAttach" | "Target.activateTarget" | "Browser.setDownloadBehavior" => Ok(json!({})),
        "Target.createTarget" | "Target.closeTarget" | "Target.createBrowserContext" => Err(
            "the extension bridge drives only the tabs the user shares: share a tab in the Sightline extension's panel"
                .into(),
        ),
        other => Err(format!("{other} is not available through the extension bridge")),
    }
}

/// Attaches chrome.debugger to a shared tab; its session is `tab-<id>`.
async fn attach(link: &Link, target: &str, primary: bool) -> Result<Value, String> {
    let tab = tab_of(target)
        .and_then(|t| link.tab(t))
        .ok_or_else(|| not_shared(target))?;
    if !link.is_attached(tab.tab_id) {
        link.ask_extension(json!({"type": "attach", "tabId": tab.tab_id}))
            .await?;
        link.set_attached(tab.tab_id, true);
    }
    // The event comes before the answer, as from a browser (to the client
    // that gets events, when it is the one attaching).
    if !primary {
        return Ok(json!({"sessionId": target_id(tab.tab_id)}));
    }
    link.to_cdp(json!({
        "method": "Target.attachedToTarget",
        "params": {"sessionId": tab.target_id(), "targetInfo": tab.target_info(true), "waitingForDebugger": false},
    }));
    Ok(json!({"sessionId": target_id(tab.tab_id)}))
}

/// Sends a command on a tab's session to the extension at once; the
/// future is its answer.
fn session_command(link: &Link, session: &str, c: &Value) -> BoxFuture<'static, Result<Value, String>> {
    let Some(tab) = tab_of(session).filter(|t| link.tab(*t).is_some()) else {
        let err = not_shared(session);
        return Box::pin(async move { Err(err) });
    };
    let method = c["method"].as_str().unwrap_or_default();
    if method == "Target.setAutoAttach" {
        return Box::pin(async { Ok(json!({})) });
    }
    let params = c.get("params").cloned().unwrap_or(json!({}));
    Box::pin(link.send_request(json!({"type": "cdp", "tabId": tab, "method": method, "params": params})))
}
