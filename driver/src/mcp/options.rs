//! How `sightline mcp` is set up: the browser, the model, the tools, the
//! limits (origins, secrets) and, over HTTP, who may connect.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::ai::Variables;
use crate::bridge::BridgeOptions;
use crate::browser::LaunchOptions;
use crate::error::{Error, Result};
use crate::files::FileAccess;
use crate::llm::Llm;
use crate::tools::Registry;

/// Options of an MCP server (stdio or HTTP).
#[derive(Clone)]
pub struct McpOptions {
    /// The browser to launch (viewport, timeouts, profile, origin policy,
    /// removeBlocker policy).
    pub launch: LaunchOptions,
    /// Attach to this running browser instead of launching one.
    pub cdp_endpoint: Option<String>,
    /// Drive the tabs the user shares in the Sightline extension of their own
    /// browser (through this bridge) instead of launching one.
    pub extension: Option<BridgeOptions>,
    /// A model for act, observe and extract (those tools are listed only with one).
    pub llm: Option<Llm>,
    /// The tools; MCP lists those offered to it.
    pub registry: Registry,
    /// Opt-in tool capabilities granted (`evaluate`).
    pub capabilities: Vec<String>,
    /// `%name%` values typed only when acting, redacted from every response.
    pub secrets: Variables,
    /// Cookies and local storage to load into every new session.
    pub storage_state: Option<PathBuf>,
    /// Downloads and files written by tools go here (and nowhere else; in a
    /// browser reached with `--cdp-url`, those of its own profile go where
    /// it saves them); `None`: a temporary folder the server makes,
    /// removed when it ends.
    pub output_dir: Option<PathBuf>,
    /// HTTP sessions share one browser context (cookies) instead of one each.
    pub shared_context: bool,
    /// Token budget (chars/4) of `browser_snapshot` and `browser_page_text`
    /// (a call may ask for more with `budget`). The default stays under the
    /// 25,000 tokens Claude Code takes from one MCP call.
    pub snapshot_budget: usize,
    /// Token budget of the viewport tree shown after an action.
    pub response_budget: usize,
    /// Screenshots go to files, not to a model (the session commands'
    /// daemon): see [`crate::tools::ToolSettings::images_to_files`].
    pub images_to_files: bool,
    /// Longest a tool call may take.
    pub tool_timeout: Duration,
    /// Local files pages may load (`file:`) and upload besides those in the
    /// working directory, the output directory and each client's roots;
    /// `FileAccess::anywhere()` lifts the limit.
    pub file_access: FileAccess,
    /// The local files act's own choices may upload, when they must be
    /// fewer than the pages' (a session whose caller may use any file);
    /// `None`: the pages'.
    pub model_file_access: Option<FileAccess>,
}

impl Default for McpOptions {
    fn default() -> Self {
        McpOptions {
            launch: LaunchOptions::default(),
            cdp_endpoint: None,
            extension: None,
            llm: None,
            registry: Registry::standard(),
            capabilities: Vec::new(),
            secrets: Variables::default(),
            storage_state: None,
            output_dir: None,
            shared_context: false,
            snapshot_budget: 20_000,
            response_budget: 20_000,
            images_to_files: false,
            tool_timeout: Duration::from_secs(60),
            file_access: FileAccess::within([]),
            model_file_access: None,
        }
    }
}

impl McpOptions {
    /// The output directory of a running server (its own temporary one
    /// when none was given: `Shared::new` fills it in).
    pub(super) fn output(&self) -> &Path {
        self.output_dir
            .as_deref()
            .expect("the server sets its output directory")
    }
}

/// Who may reach the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to bind (default 127.0.0.1).
    pub host: String,
    /// 0 picks a free port.
    pub port: u16,
    /// Requests must carry `Authorization: Bearer <token>`.
    pub auth_token: Option<String>,
    /// Host header names accepted besides the loopback ones and `host`
    /// (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Most MCP sessions open at once; a new one beyond is refused.
    pub max_sessions: usize,
    /// A session without a request for this long is closed (its browser
    /// context with it); zero: never.
    pub session_idle: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            host: "127.0.0.1".into(),
            port: 8931,
            auth_token: None,
            allowed_hosts: Vec::new(),
            max_sessions: 16,
            session_idle: Duration::from_secs(300),
        }
    }
}

/// Reads a dotenv-style secrets file: `NAME=value` per line, `#` comments,
/// optional quotes around the value, an optional `export ` prefix.
pub fn read_secrets(path: &Path) -> Result<Variables> {
    let text = std::fs::read_to_string(path).map_err(|_| Error::NoSuchFile {
        path: path.to_path_buf(),
        hint: None,
    })?;
    let mut map = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((name, value)) = line.split_once('=') else {
            return Err(Error::Config(format!(
                "{} line {}: expected NAME=value",
                path.display(),
                i + 1
            )));
        };
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        map.insert(name.trim().to_string(), value.to_string());
    }
    Variables::new(map).map_err(|e| Error::Config(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    #[test]
    fn secrets_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".env");
        std::fs::write(&p, "# logins\nPASSWORD=\"hunter2 x\"\nexport TOKEN='abc'\n\nUSER=ada\n").unwrap();
        let v = super::read_secrets(&p).unwrap();
        assert_eq!(v.names(), ["PASSWORD", "TOKEN", "USER"]);
        assert_eq!(v.substitute("%PASSWORD%/%TOKEN%", "").unwrap(), "hunter2 x/abc");
        std::fs::write(&p, "oops\n").unwrap();
        assert!(super::read_secrets(&p).unwrap_err().to_string().contains("line 1"));
    }
}
