//! What Sightline's tests and benchmarks share: a static file server on
//! 127.0.0.1, a scripted LLM server that speaks the OpenAI (Chat
//! Completions and Responses), Anthropic and Gemini wire formats, computer
//! use included, a Selenium Grid 4 standalone, and the Chromium switches
//! that keep a browser off the internet. Nothing here depends on Sightline
//! itself.

mod file_server;
pub mod grid;
pub mod llm_server;
pub mod mcp_client;
pub mod stagehand;

use std::path::{Path, PathBuf};

pub use file_server::{FixtureServer, RecordingSite};
pub use grid::{free_port, GridError, LocalGrid};
pub use llm_server::{judge, LlmServer, Png, Recorded, Reply, Wire, BAD_KEY, UNKNOWN_MODEL};

/// `tests/fixtures/` of this repository.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .canonicalize()
        .expect("tests/fixtures exists")
}

/// Chromium switches that make every request to anything but 127.0.0.1
/// fail at once: no host name resolves, and whatever needs no resolution
/// (an IP literal) goes to a proxy on a closed loopback port.
pub fn offline_switches() -> Vec<String> {
    vec![
        "host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1".to_string(),
        "proxy-server=http://127.0.0.1:9".to_string(),
        "proxy-bypass-list=127.0.0.1".to_string(),
    ]
}
