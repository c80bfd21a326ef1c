//! One connection from the extension (path `/extension`): the hello and the
//! extension's verdict, then its answers to our requests and the DevTools
//! events of the shared tabs, passed on to the CDP client as a browser
//! endpoint would send them. Wire format: js-glue/extension/bridge-client.js.

use std::sync::Arc;

use serde_json::{json, Value};

use super::link::{Link, Outgoing, Status};
use super::proof::{bridge_proof, extension_proof_holds, Exchange};
use super::socket::{next, split, Incoming, Ws};
use super::targets::{target_id, SharedTab};
use crate::text::random_hex;

/// The bridge protocol version (js-glue/extension/bridge-client.js: PROTOCOL_VERSION).
pub const PROTOCOL_VERSION: u32 = 2;

/// Close codes the extension refuses with.
const WRONG_TOKEN: u16 = 4001;
const WRONG_VERSION: u16 = 4002;
const USER_REFUSED: u16 = 4003;

/// How long a connection may take to prove the token before it is let go
/// (it holds the one extension slot meanwhile).
const PROOF_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

pub async fn serve(ws: Ws, link: Arc<Link>, client_name: String, token: Option<String>, port: u16) {
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
    // With a token, only an extension that proved it knows it is heard
    // (its "ready", its tabs, its answers): a process posing as the
    // extension would be handed the agent's commands, and what they type.
    // It has a while to prove it, then the slot is let go.
    let mut proven = token.is_none();
    let proof_due = tokio::time::Instant::now() + PROOF_DEADLINE;
    loop {
        let incoming = if proven {
            next(&mut incoming).await
        } else {
            match tokio::time::timeout_at(proof_due, next(&mut incoming)).await {
                Ok(incoming) => incoming,
                Err(_) => {
                    tracing::info!("bridge: a connection did not prove the token in time; let go");
                    link.disconnect_extension();
                    let _ = tx.send(Outgoing::Close(1008, "no proof of the token".into()));
                    return;
                }
            }
        };
        match incoming {
            Incoming::Text(text) => match serde_json::from_str::<Value>(&text) {
                Ok(message) if message["type"] == "prove" && !proven => {
                    let exchange = Exchange {
                        port,
                        bridge_nonce: &nonce,
                        extension_nonce: message["nonce"].as_str().unwrap_or_default(),
                    };
                    if !on_prove(&link, &tx, token.as_deref(), &exchange, &message) {
                        return;
                    }
                    proven = true;
                }
                Ok(message) if !proven => {
                    tracing::info!(
                        "bridge: {:?} from a connection that has not proven the token; ignored",
                        message["type"]
                    );
                }
                Ok(message) => on_message(&link, message, token.as_deref()),
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
    exchange: &Exchange,
    m: &Value,
) -> bool {
    let Some(token) = token else { return true };
    let proof = m["proof"].as_str().unwrap_or_default();
    if !exchange.extension_nonce.is_empty() && extension_proof_holds(token, exchange, proof) {
        let proven = json!({"type": "proven", "proof": bridge_proof(token, exchange)});
        let _ = tx.send(Outgoing::Text(proven.to_string()));
        return true;
    }
    let reason = "wrong token: the extension holds another token than the one given (--extension-token)";
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

/// A message of an approved (or proven) extension; `known_token`: the one
/// the bridge was given, which a proven extension does not send again.
fn on_message(link: &Link, m: Value, known_token: Option<&str>) {
    match m["type"].as_str().unwrap_or_default() {
        "ready" => {
            link.set_tabs(tabs_of(&m["tabs"]));
            let token = known_token
                .map(str::to_string)
                .unwrap_or_else(|| m["token"].as_str().unwrap_or_default().to_string());
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
