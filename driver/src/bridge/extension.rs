//! One connection from the extension (path `/extension`): the hello and the
//! extension's verdict, then its answers to our requests and the DevTools
//! events of the shared tabs, passed on to the CDP client as a browser
//! endpoint would send them. Wire format: js-glue/extension/bridge-client.js.

use std::sync::Arc;

use serde_json::{json, Value};

use super::link::{Link, Outgoing, Status};
use super::proof::{bridge_proof, extension_proof_holds, random_hex};
use super::socket::{next, split, Incoming, Ws};
use super::targets::{target_id, SharedTab};

/// The bridge protocol version (js-glue/extension/bridge-client.js: PROTOCOL_VERSION).
pub const PROTOCOL_VERSION: u32 = 2;

/// Close codes the extension refuses with.
const WRONG_TOKEN: u16 = 4001;
const WRONG_VERSION: u16 = 4002;
const USER_REFUSED: u16 = 4003;

pub async fn serve(ws: Ws, link: Arc<Link>, client_name: String, token: Option<String>) {
    let (tx, mut incoming) = split(ws);
    if link.is_approved() || !link.connect_extension(tx.clone()) {
        let _ = tx.send(Outgoing::Close(1008, "another extension connection is active".into()));
        return;
    }
    // The token is proven, never sent (see proof.rs).
    let nonce = random_hex(16);
    let hello = json!({
        "type": "hello", "client": client_name, "token": token.is_some(), "nonce": nonce, "version": PROTOCOL_VERSION,
    });
    let _ = tx.send(Outgoing::Text(hello.to_string()));
    // With a token, only an extension that proved it knows it is taken at
    // its word ("ready"): a process posing as the extension would be
    // handed the agent's commands, and what they type.
    let mut proven = token.is_none();
    loop {
        match next(&mut incoming).await {
            Incoming::Text(text) => match serde_json::from_str::<Value>(&text) {
                Ok(message) if message["type"] == "prove" => {
                    if !on_prove(&link, &tx, token.as_deref(), &nonce, &message) {
                        return;
                    }
                    proven = true;
                }
                Ok(message) if message["type"] == "ready" && !proven => {
                    tracing::info!("bridge: a connection said ready without proving the token; ignored");
                }
                Ok(message) => on_message(&link, message),
                Err(e) => tracing::debug!("bridge: unreadable message from the extension: {e}"),
            },
            Incoming::Closed(code, reason) => {
                on_closed(&link, code, reason);
                return;
            }
        }
    }
}

fn on_closed(link: &Link, code: u16, reason: String) {
    link.disconnect_extension();
    if link.is_approved() {
        let why = if reason.trim().is_empty() || code == 1006 {
            "its browser closed, or the extension was reloaded or removed".to_string()
        } else {
            reason
        };
        link.set_status(Status::Closed(format!(
            "the extension disconnected ({why}): share a tab in the Sightline panel to go on"
        )));
        link.close_cdp("the extension disconnected");
    } else if matches!(code, WRONG_TOKEN | WRONG_VERSION | USER_REFUSED) {
        tracing::info!("bridge: the extension refused the connection ({code}): {reason}");
        link.set_status(Status::Refused(reason));
    }
    // Otherwise (a reload, a crash) the extension may come back: keep waiting.
}

/// The extension's proof that it knows the token: answered with the
/// bridge's own, or refused (false: the connection ends). A bridge without
/// a token has nothing to prove (the user approves it in the panel).
fn on_prove(
    link: &Link,
    tx: &tokio::sync::mpsc::UnboundedSender<Outgoing>,
    token: Option<&str>,
    bridge_nonce: &str,
    m: &Value,
) -> bool {
    let Some(token) = token else { return true };
    let nonce = m["nonce"].as_str().unwrap_or_default();
    let proof = m["proof"].as_str().unwrap_or_default();
    if !nonce.is_empty() && extension_proof_holds(token, bridge_nonce, nonce, proof) {
        let proven = json!({"type": "proven", "proof": bridge_proof(token, bridge_nonce, nonce)});
        let _ = tx.send(Outgoing::Text(proven.to_string()));
        return true;
    }
    let reason = "wrong token: the extension refused the connection";
    tracing::info!("bridge: {reason}");
    link.disconnect_extension();
    link.set_status(Status::Refused(reason.into()));
    // Said in words as well: a browser may not see the close code.
    let _ = tx.send(Outgoing::Text(json!({"type": "refused", "reason": reason}).to_string()));
    let _ = tx.send(Outgoing::Close(WRONG_TOKEN, reason.into()));
    false
}

fn tabs_of(v: &Value) -> Vec<SharedTab> {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

fn on_message(link: &Link, m: Value) {
    match m["type"].as_str().unwrap_or_default() {
        "ready" => {
            link.set_tabs(tabs_of(&m["tabs"]));
            let token = m["token"].as_str().unwrap_or_default().to_string();
            tracing::info!("bridge: the extension accepted; {} tab(s) shared", link.tabs().len());
            link.set_status(Status::Approved { token });
        }
        "result" => {
            let Some(id) = m["id"].as_u64() else { return };
            let answer = match m.get("error").and_then(Value::as_str) {
                Some(e) => Err(e.to_string()),
                None => Ok(m.get("result").cloned().unwrap_or(json!({}))),
            };
            link.answer(id, answer);
        }
        "event" => on_event(link, &m),
        "detached" => {
            let Some(tab) = m["tabId"].as_i64() else { return };
            link.set_attached(tab, false);
            link.to_cdp(json!({
                "method": "Target.detachedFromTarget",
                "params": {"sessionId": target_id(tab), "targetId": target_id(tab)},
            }));
        }
        "tabs" => {
            let (added, removed) = link.set_tabs(tabs_of(&m["tabs"]));
            for tab in removed {
                link.set_attached(tab.tab_id, false);
                link.to_cdp(json!({"method": "Target.targetDestroyed", "params": {"targetId": tab.target_id()}}));
            }
            for tab in added {
                link.to_cdp(
                    json!({"method": "Target.targetCreated", "params": {"targetInfo": tab.target_info(false)}}),
                );
            }
        }
        other => tracing::debug!("bridge: unknown message {other:?} from the extension"),
    }
}

/// A DevTools event of a shared tab, as its session's event. (Events of
/// child sessions cannot occur: the bridge answers `Target.setAutoAttach`
/// itself and attaches nothing below the tabs.)
fn on_event(link: &Link, m: &Value) {
    let Some(tab) = m["tabId"].as_i64() else { return };
    if m.get("sessionId").is_some_and(|s| !s.is_null()) || link.tab(tab).is_none() {
        return;
    }
    link.to_cdp(json!({
        "method": m["method"],
        "params": m.get("params").cloned().unwrap_or(json!({})),
        "sessionId": target_id(tab),
    }));
}
