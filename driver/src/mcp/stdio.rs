//! The stdio transport: one session on the process's stdin and stdout.

use std::future::Future;

use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::stdio_pipes;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use super::handler::{Handler, Shared};
use super::in_order::Numbered;
use super::options::McpOptions;
use crate::error::{Error, Result};

/// Serves one client on stdin/stdout until it disconnects or `shutdown`
/// resolves; then closes the browser.
pub async fn serve_stdio(options: McpOptions, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
    let shared = Shared::new(options)?;
    shared.listen_for_extension().await?;
    // One client: the default browser context (a persistent profile's logins stay usable).
    let handler = Handler::only_client(shared.clone());
    let session = handler.session();
    let ct = CancellationToken::new();
    let stop = ct.clone();
    tokio::spawn(async move {
        shutdown.await;
        stop.cancel();
    });
    let outcome = async {
        let (read, write) = stdio_pipes();
        // (Calls numbered as read: they run in the order the client sent them.)
        let transport = Numbered::new(AsyncRwTransport::new(read, write), handler.turns());
        let running = handler
            .serve_with_ct(transport, ct)
            .await
            .map_err(|e| Error::Io(format!("MCP over stdio: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Io(format!("MCP over stdio: {e}")))?;
        Ok(())
    }
    .await;
    session.end().await;
    shared.shutdown().await;
    outcome
}
