//! The extension bridge: `sightline agent --extension` (and `sightline mcp
//! --extension`) drive the tabs a user shares in their own running browser
//! through the Sightline extension, instead of launching a browser.
//!
//! The bridge listens on 127.0.0.1. The extension connects to it (while a
//! tab is shared), and the user approves the connection in the extension's
//! panel, or it presents the extension's token and needs no asking. Then
//! the bridge is a DevTools endpoint whose only pages are the shared tabs:
//! `Browser::connect(&bridge.cdp_url(), …)` works unchanged, and every
//! command on a tab runs through chrome.debugger in the extension. JSON
//! only here: the bridge knows no chromiumoxide types.

mod cdp_client;
mod extension;
mod handle;
mod link;
mod options;
mod proof;
mod server;
mod socket;
mod targets;

pub use handle::{Approval, ExtensionBridge};
pub use options::{BridgeOptions, DEFAULT_BRIDGE_PORT};
pub use targets::SharedTab;
