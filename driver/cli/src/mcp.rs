//! `sightline mcp`: the MCP server, over stdio (default) or streamable HTTP.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use sightline::mcp::{read_secrets, serve_stdio, HttpOptions, HttpServer, McpOptions};
use sightline::{AllowedDomains, OriginPolicy, Registry, Result};

use crate::args::{file_access, LlmArgs, PageArgs};
use crate::extension::ExtensionArgs;
use crate::signals::shutdown_signal;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve streamable HTTP on this port (at /mcp) instead of stdio; 0 picks a free port.
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// The address to bind for HTTP.
    #[arg(long, value_name = "HOST", default_value = "127.0.0.1")]
    pub host: String,
    /// HTTP requests must carry `Authorization: Bearer TOKEN`.
    #[arg(long, value_name = "TOKEN", env = "SIGHTLINE_MCP_TOKEN", hide_env_values = true)]
    pub auth_token: Option<String>,
    /// A Host header name accepted besides loopback names (repeatable).
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,
    /// All HTTP sessions share one browser context (cookies) instead of one each.
    #[arg(long)]
    pub shared_context: bool,
    /// Most HTTP sessions open at once; a new one beyond is refused (HTTP 503).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub max_sessions: usize,
    /// An HTTP session without a request for this long is closed, its
    /// browser context with it; 0: never.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub session_idle: u64,
    /// A persistent browser profile: logins stay for the next run.
    #[arg(long, value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// Load cookies and local storage from this file (Playwright's storage-state format).
    #[arg(long, value_name = "FILE")]
    pub storage_state: Option<PathBuf>,
    /// Attach to a running browser (`ws://…` or `http://host:port`) instead of launching one
    /// (the same as --cdp-url).
    #[arg(long, value_name = "URL")]
    pub cdp_endpoint: Option<String>,
    /// Downloads and files written by tools go here, and nowhere else
    /// (default: a temporary folder, removed when the server ends). In a
    /// browser reached with --cdp-endpoint, the downloads of its own
    /// profile go where it saves them.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Origins pages may load documents from (`example.com`, `127.0.0.1:8080`;
    /// separated by `;` or `,`, repeatable). Default: anywhere.
    #[arg(long = "allowed-origins", value_name = "LIST")]
    pub allowed_origins: Vec<String>,
    /// Origins pages may never load documents from.
    #[arg(long = "blocked-origins", value_name = "LIST")]
    pub blocked_origins: Vec<String>,
    /// A dotenv file of secrets (`NAME=value`): write `%NAME%` to type one;
    /// values are redacted from every response.
    #[arg(long, value_name = "FILE")]
    pub secrets: Option<PathBuf>,
    /// Opt-in tool capabilities: `evaluate` (browser_evaluate), `vision`
    /// (browser_mouse_click_xy and the other coordinate tools). Comma-separated.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub caps: Vec<String>,
    /// Longest a tool call may take.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub tool_timeout: u64,
    /// Local files pages may load (`file:`) and upload, besides the working
    /// directory, the output directory and the client's roots (not their
    /// hidden entries): directories or files (repeat the flag), or `all`
    /// for any.
    #[arg(long = "allow-file-access", value_name = "PATH|all", action = clap::ArgAction::Append)]
    pub allow_file_access: Vec<PathBuf>,
    #[command(flatten)]
    pub page: PageArgs,
    /// Drive the tabs shared in the Sightline extension of your own browser.
    #[command(flatten)]
    pub extension: ExtensionArgs,
    /// A model enables browser_act, browser_observe and browser_extract.
    #[command(flatten)]
    pub llm: LlmArgs,
}

fn origin_list(values: &[String]) -> AllowedDomains {
    let entries: Vec<String> = values
        .iter()
        .flat_map(|v| v.split([';', ',']))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    AllowedDomains::new(&entries)
}

pub async fn mcp(args: McpArgs) -> Result<()> {
    // Everything that can fail without a browser fails now, before serving.
    let mut launch = args.page.launch_options()?;
    launch.user_data_dir = args.user_data_dir.clone();
    launch.origins = OriginPolicy {
        allowed: origin_list(&args.allowed_origins),
        blocked: origin_list(&args.blocked_origins),
        ..OriginPolicy::default()
    };
    let secrets = match &args.secrets {
        Some(path) => read_secrets(path)?,
        None => Default::default(),
    };
    if let Some(path) = &args.storage_state {
        sightline::StorageState::load(path)?;
    }
    for cap in &args.caps {
        if cap != "evaluate" && cap != sightline::tools::VISION {
            return Err(sightline::Error::Config(format!(
                "unknown capability {cap:?} (known: evaluate, vision)"
            )));
        }
    }
    if args.extension.extension && (args.cdp_endpoint.is_some() || args.page.cdp_url.is_some()) {
        return Err(sightline::Error::Config(
            "--extension and --cdp-endpoint exclude each other".into(),
        ));
    }
    let extension = args
        .extension
        .extension
        .then(|| args.extension.bridge_options("sightline mcp"));
    if let Some(b) = &extension {
        eprintln!(
            "sightline mcp: drives the tabs shared in the Sightline extension (port {}){}",
            b.port,
            if b.token.is_some() {
                ""
            } else {
                "; the first call waits for you to press Allow in its panel"
            }
        );
    }
    let file_access = file_access(&args.allow_file_access)?;
    let options = McpOptions {
        launch,
        extension,
        cdp_endpoint: args.cdp_endpoint.clone().or(args.page.cdp_url.clone()),
        llm: args.llm.build_if_named()?,
        registry: Registry::standard(),
        capabilities: args.caps.clone(),
        secrets,
        storage_state: args.storage_state.clone(),
        output_dir: args.output_dir.clone(),
        shared_context: args.shared_context,
        tool_timeout: Duration::from_secs(args.tool_timeout.max(1)),
        file_access,
        ..McpOptions::default()
    };
    match args.port {
        None => serve_stdio(options, shutdown_signal()).await,
        Some(port) => {
            let http = HttpOptions {
                host: args.host.clone(),
                port,
                auth_token: args.auth_token.clone().filter(|t| !t.is_empty()),
                allowed_hosts: args.allowed_hosts.clone(),
                max_sessions: args.max_sessions.max(1),
                session_idle: Duration::from_secs(args.session_idle),
            };
            let server = HttpServer::bind(options, http).await?;
            // The one line a supervisor (or a test) reads to find the server.
            eprintln!("sightline mcp: listening on http://{}/mcp", server.local_addr());
            server.serve(shutdown_signal()).await
        }
    }
}
