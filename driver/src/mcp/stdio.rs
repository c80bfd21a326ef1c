//! The stdio transport: one session on the process's stdin and stdout.
//! A line that is not JSON gets JSON-RPC's parse error (the SDK would drop
//! it without a word); every other line reaches the SDK as it came.

use std::future::Future;

use rmcp::ServiceExt;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::handler::{Handler, Shared};
use super::options::McpOptions;
use crate::error::{Error, Result};

/// Serves one client on stdin/stdout until it disconnects or `shutdown`
/// resolves; then closes the browser.
pub async fn serve_stdio(options: McpOptions, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
    let shared = Shared::new(options)?;
    shared.listen_for_extension().await?;
    // One client: the default browser context (a persistent profile's logins stay usable).
    let handler = Handler::new(shared.clone(), false);
    let session = handler.session();
    let ct = CancellationToken::new();
    let stop = ct.clone();
    tokio::spawn(async move {
        shutdown.await;
        stop.cancel();
    });
    let (sdk_io, writer) = checked_stdio();
    let outcome = async {
        let running = handler
            .serve_with_ct(sdk_io, ct)
            .await
            .map_err(|e| Error::Io(format!("MCP over stdio: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Io(format!("MCP over stdio: {e}")))?;
        Ok(())
    }
    .await;
    // What the SDK wrote last is out before the process goes.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    session.end().await;
    shared.shutdown().await;
    outcome
}

/// The longest line read from stdin (the HTTP transport's body limit).
const MAX_LINE: usize = 4 * 1024 * 1024;

/// The SDK's side of stdin and stdout, with the process's own behind two
/// pumps: stdin's lines go to the SDK unless they are not JSON (answered
/// with a parse error instead), and stdout gets whole lines from the SDK
/// and those errors, never a mix. The handle ends with the SDK's output.
fn checked_stdio() -> ((DuplexStream, DuplexStream), JoinHandle<()>) {
    let (sdk_in, mut to_sdk) = tokio::io::duplex(64 * 1024);
    let (from_sdk, sdk_out) = tokio::io::duplex(64 * 1024);
    let (errors_tx, mut errors) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut stdin).take(MAX_LINE as u64).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
                let error = json!({"jsonrpc": "2.0", "id": null, "error": {
                    "code": -32700, "message": format!("Parse error: the line is not JSON ({e})")}});
                let _ = errors_tx.send(error.to_string());
                continue;
            }
            if to_sdk.write_all(&line).await.is_err() {
                break;
            }
        }
        // End of input: the SDK sees it and ends the session.
        let _ = to_sdk.shutdown().await;
    });
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut sdk = BufReader::new(from_sdk);
        let mut line = Vec::new();
        let mut errors_open = true;
        loop {
            tokio::select! {
                // The SDK is done (input ended, or the server stops): so is its output.
                read = sdk.read_until(b'\n', &mut line) => match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let _ = stdout.write_all(&line).await;
                        let _ = stdout.flush().await;
                        line.clear();
                    }
                },
                error = errors.recv(), if errors_open => match error {
                    Some(e) => {
                        let _ = stdout.write_all(format!("{e}\n").as_bytes()).await;
                        let _ = stdout.flush().await;
                    }
                    None => errors_open = false,
                },
            }
        }
    });
    ((sdk_in, sdk_out), writer)
}
