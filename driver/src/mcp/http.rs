//! The streamable HTTP transport on `/mcp`: one MCP session per client
//! (bounded in number and closed when idle, see `sessions.rs`), behind a
//! guard that refuses a foreign Host or Origin (DNS rebinding) and, with a
//! token, any request without `Authorization: Bearer <token>`.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::handler::{Handler, Shared};
use super::options::{HttpOptions, McpOptions};
use super::rpc_errors::json_rpc_errors;
use super::sessions::Sessions;
use crate::error::{Error, Result};

/// Who may call.
struct Guard {
    /// Host header names accepted (without port).
    hosts: Vec<String>,
    token: Option<String>,
}

/// The host name of a `Host` header or an origin (`http://a:1` → `a`).
fn host_name(value: &str) -> String {
    let v = value.split("://").last().unwrap_or(value);
    let v = v.split('/').next().unwrap_or(v);
    let name = match v.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(rest),
        None => v.rsplit_once(':').map_or(v, |(h, _)| h),
    };
    name.to_ascii_lowercase()
}

/// Compares without stopping at the first differing byte.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn guard(State(g): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let h = req.headers();
    let host_ok = h
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| g.hosts.contains(&host_name(v)));
    if !host_ok {
        return (StatusCode::FORBIDDEN, "forbidden: unexpected Host header").into_response();
    }
    if let Some(origin) = h.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        if !g.hosts.contains(&host_name(origin)) {
            return (StatusCode::FORBIDDEN, "forbidden: cross-origin request").into_response();
        }
    }
    if let Some(token) = &g.token {
        let given = h
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !same_secret(given.trim(), token) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "unauthorized",
            )
                .into_response();
        }
    }
    next.run(req).await
}

/// A bound HTTP MCP server.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    options: McpOptions,
    http: HttpOptions,
}

impl HttpServer {
    /// Binds the address (port 0 picks a free one).
    pub async fn bind(options: McpOptions, http: HttpOptions) -> Result<HttpServer> {
        let addr = format!("{}:{}", http.host, http.port);
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .map_err(|e| Error::Config(format!("cannot listen on {addr}: {e}")))?;
        Ok(HttpServer {
            listener,
            options,
            http,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().expect("a bound listener has an address")
    }

    /// Serves until `shutdown` resolves, then ends every session and closes the browser.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        let shared_context = self.options.shared_context;
        let shared = Shared::new(self.options)?;
        shared.listen_for_extension().await?;
        let ct = CancellationToken::new();
        let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
        hosts.push(host_name(&self.http.host));
        hosts.extend(self.http.allowed_hosts.iter().map(|h| host_name(h)));
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(ct.child_token())
            .with_allowed_hosts(hosts.clone());
        let factory_shared = shared.clone();
        let sessions = Arc::new(Sessions::new(self.http.max_sessions, self.http.session_idle));
        let service = StreamableHttpService::new(
            move || Ok(Handler::new(factory_shared.clone(), !shared_context)),
            sessions.clone(),
            config,
        );
        let tidier = {
            let sessions = sessions.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(sessions.tidy_every()).await;
                    sessions.tidy().await;
                }
            })
        };
        let guard_state = Arc::new(Guard {
            hosts,
            token: self.http.auth_token.clone(),
        });
        // Layers run outside in: the guard first, then JSON-RPC's errors.
        let app = axum::Router::new()
            .route_service("/mcp", service)
            .layer(middleware::from_fn_with_state(sessions.clone(), json_rpc_errors))
            .layer(middleware::from_fn_with_state(guard_state, guard));
        let stop = ct.clone();
        axum::serve(self.listener, app)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stop.cancel();
            })
            .await
            .map_err(|e| Error::Io(format!("the MCP HTTP server failed: {e}")))?;
        tidier.abort();
        shared.shutdown().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_name("127.0.0.1:8931"), "127.0.0.1");
        assert_eq!(host_name("LocalHost"), "localhost");
        assert_eq!(host_name("http://evil.example:80"), "evil.example");
        assert_eq!(host_name("[::1]:8931"), "::1");
        assert!(same_secret("abc", "abc") && !same_secret("abc", "abd") && !same_secret("abc", "ab"));
    }
}
