//! What a session command and its daemon say to each other on the
//! session's Unix socket: one JSON line each way per connection.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request to the daemon.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    /// Run a registry tool in the session.
    Call { tool: String, args: Value },
    /// What the session is showing (for `sightline sessions`).
    Status,
    /// Close the session: its browser, then the daemon.
    Close,
}

/// The daemon's answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Answer {
    /// The response as a model reads it (the MCP response's text).
    pub text: String,
    pub is_error: bool,
    /// The same as one object.
    #[serde(default)]
    pub json: Value,
    /// A PNG the tool returned, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_png: Option<String>,
}
