//! How an [`super::ExtensionBridge`] listens and introduces itself.

use std::time::Duration;

/// The port the extension looks for a bridge on unless its panel says otherwise.
pub const DEFAULT_BRIDGE_PORT: u16 = 9224;

/// Options of [`super::ExtensionBridge::listen`].
#[derive(Debug, Clone)]
pub struct BridgeOptions {
    /// Port on 127.0.0.1 (0: any free port; the extension must then be told it).
    pub port: u16,
    /// The extension's token, from an earlier approval: the extension then
    /// connects without asking the user. Without it the user must press
    /// Allow in the extension's panel; a wrong one is refused at once.
    pub token: Option<String>,
    /// Who asks, as the extension shows it to the user ("sightline agent").
    pub client_name: String,
    /// How long [`super::ExtensionBridge::wait_for_extension`] waits for the
    /// extension to connect and the user to answer (`None`: as long as it takes).
    pub approval_timeout: Option<Duration>,
}

impl Default for BridgeOptions {
    fn default() -> Self {
        BridgeOptions {
            port: DEFAULT_BRIDGE_PORT,
            token: None,
            client_name: "sightline".into(),
            approval_timeout: None,
        }
    }
}
