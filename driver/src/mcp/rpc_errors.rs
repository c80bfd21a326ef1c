//! JSON-RPC's own errors on the HTTP transport, where the SDK answers with
//! bare HTTP statuses: a body that is not JSON is a parse error (HTTP 400,
//! code -32700), and JSON that is no JSON-RPC message an invalid request
//! (HTTP 400, -32600), each as a JSON-RPC error response a client can read.
//! So is a new session the server has no room for (HTTP 503, -32000).

use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::sessions::Sessions;

/// The largest request body read (the SDK's own limit).
const MAX_BODY: usize = 4 * 1024 * 1024;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's range for errors of the server's own.
const SERVER_FULL: i64 = -32000;

/// A JSON-RPC error response with HTTP status 400.
fn rpc_error(id: Value, code: i64, message: String) -> Response {
    rpc_error_with(StatusCode::BAD_REQUEST, id, code, message)
}

fn rpc_error_with(status: StatusCode, id: Value, code: i64, message: String) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// Reads a POST's body first: not JSON, a parse error; an `initialize`
/// that would open a session beyond the cap, refused; otherwise the SDK
/// handles it, and its "unsupported media type" for JSON it cannot read as
/// a message (with a JSON content type) becomes an invalid request.
pub(super) async fn json_rpc_errors(State(sessions): State<Arc<Sessions>>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("request body over {MAX_BODY} bytes"),
            )
                .into_response()
        }
    };
    let parsed: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return rpc_error(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: the body is not JSON ({e})"),
            )
        }
    };
    let id = parsed.get("id").cloned().unwrap_or(Value::Null);
    let opens_session = parsed.get("method").and_then(Value::as_str) == Some("initialize")
        && !parts.headers.contains_key("mcp-session-id");
    if opens_session {
        if let Some(why) = sessions.refusal() {
            return rpc_error_with(StatusCode::SERVICE_UNAVAILABLE, id, SERVER_FULL, why);
        }
    }
    let json_typed = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("application/json")
        });
    let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    if json_typed && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return rpc_error(
            id,
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc, method, id, params)".into(),
        );
    }
    response
}
