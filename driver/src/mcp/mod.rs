//! `sightline mcp`: every Sightline tool for any MCP client, over stdio or
//! streamable HTTP (rmcp, the official Rust SDK). The tools are the
//! registry's; nothing here is specific to one of them.

mod errors;
mod handler;
mod host;
mod http;
mod in_order;
mod options;
mod response;
mod rpc_errors;
mod session;
mod sessions;
mod stdio;

pub use http::HttpServer;
pub use options::{read_secrets, HttpOptions, McpOptions};
pub use response::{answer_the_dialog, PageFacts, Response, SnapshotKind, SnapshotPart};
pub use session::{PageStatus, Reply, Session};
pub use stdio::serve_stdio;
