//! `--extension`: drive a tab of the user's own running browser through the
//! Sightline extension (the library's `ExtensionBridge`) instead of
//! launching Chromium. A flag group any command that opens a browser can
//! flatten (`agent` does; `mcp` can).

use std::time::Duration;

use clap::Args;
use sightline::bridge::{BridgeOptions, DEFAULT_BRIDGE_PORT};
use sightline::{Browser, ExtensionBridge, LaunchOptions, Page, Result};

/// Environment variable with the extension's token (instead of `--extension-token`).
pub const TOKEN_ENV: &str = "SIGHTLINE_EXTENSION_TOKEN";

#[derive(Debug, Args, Clone)]
pub struct ExtensionArgs {
    /// Drive the tab shared in the Sightline extension of your running browser
    /// instead of launching one (the extension's panel: "Share this tab").
    #[arg(long)]
    pub extension: bool,
    /// Port on 127.0.0.1 the extension connects to (its panel's "Port").
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_BRIDGE_PORT)]
    pub extension_port: u16,
    /// The extension's token (shown in its panel; default $SIGHTLINE_EXTENSION_TOKEN):
    /// the extension then accepts without asking.
    #[arg(long, value_name = "TOKEN")]
    pub extension_token: Option<String>,
    /// How long to wait for the extension to connect and the user to allow it (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub extension_timeout: u64,
}

/// A browser reached through the extension, its first shared tab, and the
/// bridge that must outlive them.
pub struct ExtensionSession {
    pub browser: Browser,
    pub page: Page,
    pub bridge: ExtensionBridge,
}

impl ExtensionArgs {
    /// The bridge these flags ask for (the token from the flag or the environment).
    pub fn bridge_options(&self, client_name: &str) -> BridgeOptions {
        BridgeOptions {
            port: self.extension_port,
            token: self
                .extension_token
                .clone()
                .or_else(|| std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty())),
            client_name: client_name.to_string(),
            approval_timeout: (self.extension_timeout > 0).then(|| Duration::from_secs(self.extension_timeout)),
        }
    }

    /// Starts the bridge, waits for the extension's approval (saying so on
    /// stderr) and connects to the shared tab.
    pub async fn open(&self, client_name: &str, launch: LaunchOptions) -> Result<ExtensionSession> {
        let options = self.bridge_options(client_name);
        let asked = options.token.is_none();
        let bridge = ExtensionBridge::listen(options).await?;
        eprintln!(
            "Waiting for the Sightline extension on 127.0.0.1:{}: share a tab in its panel{}.",
            bridge.port(),
            if asked { " and press Allow" } else { "" }
        );
        let approval = bridge.wait_for_extension().await?;
        if asked {
            eprintln!(
                "Connected. Next time pass --extension-token {} (or set {TOKEN_ENV}) to connect without asking.",
                approval.token
            );
        }
        let (browser, pages) = bridge.connect(launch).await?;
        let page = pages.into_iter().next().expect("connect returns the shared tabs");
        Ok(ExtensionSession { browser, page, bridge })
    }
}
