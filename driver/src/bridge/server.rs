//! The bridge's listener on 127.0.0.1: each WebSocket goes to its role by
//! path. `/extension` takes the extension (only from an extension's origin:
//! a web page in the browser could open this socket too); `/cdp/<secret>`
//! takes the DevTools client (the secret is in the URL `cdp_url` gives, so
//! no other local program can drive the shared tabs). Anything else is
//! turned away.

use std::sync::{Arc, Mutex};

use async_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use async_tungstenite::tungstenite::http::StatusCode;
use tokio::net::{TcpListener, TcpStream};

use super::link::Link;
use super::{cdp_client, extension};

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Extension,
    Cdp,
}

/// What every connection needs to know.
pub struct Config {
    pub link: Arc<Link>,
    pub secret: String,
    pub client_name: String,
    pub token: Option<String>,
    /// The port it listens on: the token proof is bound to it.
    pub port: u16,
}

pub async fn accept_loop(listener: TcpListener, config: Arc<Config>) {
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            continue;
        };
        if !peer.ip().is_loopback() {
            continue;
        }
        let config = config.clone();
        tokio::spawn(async move { serve(stream, config).await });
    }
}

fn refuse((status, why): (StatusCode, &str)) -> ErrorResponse {
    let mut r = ErrorResponse::new(Some(why.to_string()));
    *r.status_mut() = status;
    r
}

/// The role a handshake asks for, or why it is turned away.
fn route(req: &Request, secret: &str, approved: bool) -> Result<Role, (StatusCode, &'static str)> {
    let origin = req.headers().get("origin").and_then(|o| o.to_str().ok()).unwrap_or("");
    match req.uri().path() {
        "/extension" if origin.starts_with("chrome-extension://") => Ok(Role::Extension),
        "/extension" => Err((StatusCode::FORBIDDEN, "only the Sightline extension connects here")),
        path if path.strip_prefix("/cdp/") == Some(secret) && !origin.starts_with("http") => match approved {
            true => Ok(Role::Cdp),
            // Refused in the handshake, so a client's connect fails at once.
            false => Err((StatusCode::FORBIDDEN, "the extension has not approved this bridge")),
        },
        _ => Err((StatusCode::NOT_FOUND, "not found")),
    }
}

async fn serve(stream: TcpStream, config: Arc<Config>) {
    let role = Arc::new(Mutex::new(None));
    let chosen = role.clone();
    let secret = config.secret.clone();
    let approved = config.link.is_approved();
    // (The error type is tungstenite's: an HTTP response.)
    #[allow(clippy::result_large_err)]
    let callback = move |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        *chosen.lock().unwrap() = Some(route(req, &secret, approved).map_err(refuse)?);
        Ok(resp)
    };
    let ws = match async_tungstenite::tokio::accept_hdr_async(stream, callback).await {
        Ok(ws) => ws,
        Err(e) => {
            tracing::debug!("bridge: handshake refused or failed: {e}");
            return;
        }
    };
    let role = role.lock().unwrap().take();
    match role {
        Some(Role::Extension) => {
            extension::serve(
                ws,
                config.link.clone(),
                config.client_name.clone(),
                config.token.clone().or_else(|| config.link.handed_token()),
                config.port,
            )
            .await
        }
        Some(Role::Cdp) => cdp_client::serve(ws, config.link.clone()).await,
        None => {}
    }
}
