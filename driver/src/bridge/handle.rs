//! [`ExtensionBridge`]: the library's way to drive the user's own browser
//! through the Sightline extension. It listens on 127.0.0.1, waits for the
//! extension to connect and accept, and gives a DevTools URL that
//! [`crate::Browser::connect`] takes as it would a browser's.
//!
//! ```no_run
//! # async fn demo() -> sightline::Result<()> {
//! use sightline::{BridgeOptions, ExtensionBridge, LaunchOptions};
//! let (_cdp_url, bridge) = ExtensionBridge::start(BridgeOptions::default()).await?;
//! // Browser::connect(&cdp_url, …) works as for any browser; `connect` also
//! // waits until the shared tabs are pages.
//! let (browser, pages) = bridge.connect(LaunchOptions::default()).await?;
//! pages[0].snapshot(&Default::default()).await?;
//! browser.close().await?;
//! bridge.close();
//! # Ok(()) }
//! ```

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::link::{Link, Status};
use super::options::BridgeOptions;
use super::server::{accept_loop, Config};
use super::targets::SharedTab;
use crate::browser::{Browser, LaunchOptions};
use crate::error::{Error, Result};
use crate::page::Page;

/// The extension accepted the bridge.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    /// The extension's token: give it as [`BridgeOptions::token`] next time
    /// and the extension connects without asking the user.
    pub token: String,
    /// The tabs the user shares (the pages a connected `Browser` sees).
    pub tabs: Vec<SharedTab>,
}

/// A running bridge. Dropping it (or [`ExtensionBridge::close`]) stops
/// listening; connections already made end with it.
pub struct ExtensionBridge {
    link: Arc<Link>,
    port: u16,
    secret: String,
    options: BridgeOptions,
    accept: JoinHandle<()>,
}

impl ExtensionBridge {
    /// Listens on 127.0.0.1:`options.port` for the extension (and, once it
    /// accepted, for one DevTools client at [`ExtensionBridge::cdp_url`]).
    pub async fn listen(options: BridgeOptions) -> Result<ExtensionBridge> {
        let listener = TcpListener::bind(("127.0.0.1", options.port)).await.map_err(|e| {
            let taken = if e.kind() == std::io::ErrorKind::AddrInUse {
                " (another Sightline agent or session may be waiting for the extension there: close it, or \
share with another --extension-port)"
            } else {
                ""
            };
            Error::Extension(format!("cannot listen on 127.0.0.1:{}: {e}{taken}", options.port))
        })?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Extension(e.to_string()))?
            .port();
        let link = Arc::new(Link::new());
        let secret = crate::text::random_hex(16);
        let config = Arc::new(Config {
            link: link.clone(),
            secret: secret.clone(),
            client_name: options.client_name.clone(),
            token: options.token.clone(),
            port,
        });
        let accept = tokio::spawn(accept_loop(listener, config));
        tracing::info!("bridge: listening on 127.0.0.1:{port} for the Sightline extension");
        Ok(ExtensionBridge {
            link,
            port,
            secret,
            options,
            accept,
        })
    }

    /// Listens, waits for the extension's approval, and returns the
    /// DevTools URL to connect to with the bridge.
    pub async fn start(options: BridgeOptions) -> Result<(String, ExtensionBridge)> {
        let bridge = ExtensionBridge::listen(options).await?;
        bridge.wait_for_extension().await?;
        Ok((bridge.cdp_url(), bridge))
    }

    /// The port it listens on (useful with `port: 0`).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `ws://127.0.0.1:<port>/cdp/<secret>`: a DevTools endpoint whose pages
    /// are the shared tabs, for [`crate::Browser::connect`].
    pub fn cdp_url(&self) -> String {
        format!("ws://127.0.0.1:{}/cdp/{}", self.port, self.secret)
    }

    /// The tabs the user shares now.
    pub fn shared_tabs(&self) -> Vec<SharedTab> {
        self.link.tabs()
    }

    /// The number of the extension's current approval: it grows each time
    /// the extension connects and is approved anew (its browser restarted,
    /// the tab shared again).
    pub fn approval(&self) -> u64 {
        self.link.approval()
    }

    /// Whether the extension is still there under approval `approval`
    /// (see [`ExtensionBridge::approval`]): a DevTools connection made
    /// under an earlier one is stale, though it may not know it yet.
    pub fn still_approved(&self, approval: u64) -> bool {
        self.link.is_approved() && self.link.approval() == approval
    }

    /// Waits until the extension connects and accepts (at once with the
    /// right token; else when the user presses Allow). Fails when it
    /// refuses (a wrong token, the user's Deny) or after
    /// `options.approval_timeout`.
    pub async fn wait_for_extension(&self) -> Result<Approval> {
        let mut status = self.link.status();
        let wait = async {
            loop {
                let now = status.borrow_and_update().clone();
                match now {
                    Status::Approved { token } => {
                        return Ok(Approval {
                            token,
                            tabs: self.link.tabs(),
                        })
                    }
                    Status::Refused(why) => return Err(Error::Extension(format!("the extension refused: {why}"))),
                    Status::Closed(why) => return Err(Error::Extension(why)),
                    Status::Waiting => {}
                }
                if status.changed().await.is_err() {
                    return Err(Error::Extension("the bridge stopped".into()));
                }
            }
        };
        match self.options.approval_timeout {
            None => wait.await,
            Some(limit) => tokio::time::timeout(limit, wait).await.unwrap_or_else(|_| {
                Err(Error::Extension(format!(
                    "the extension did not connect and accept within {}s (share a tab in its panel, port {})",
                    limit.as_secs(),
                    self.port
                )))
            }),
        }
    }

    /// Connects a [`Browser`] through the bridge and returns it with the
    /// shared tabs as pages. (Right after a connect the DevTools client is
    /// still attaching to the targets it was told of; this waits, up to
    /// `launch.launch_timeout`, until every shared tab is a page.)
    pub async fn connect(&self, launch: LaunchOptions) -> Result<(Browser, Vec<Page>)> {
        let limit = launch.launch_timeout;
        let browser = Browser::connect(&self.cdp_url(), launch).await?;
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let pages = browser.pages().await?;
            let shared = self.shared_tabs();
            let all = shared
                .iter()
                .all(|t| pages.iter().any(|p| p.target_id() == t.target_id()));
            if !shared.is_empty() && all {
                return Ok((browser, pages));
            }
            if tokio::time::Instant::now() >= deadline {
                let _ = browser.close().await;
                return Err(Error::Extension(if shared.is_empty() {
                    "no tab is shared in the extension".into()
                } else {
                    format!("the shared tabs did not become pages within {}s", limit.as_secs())
                }));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }

    /// Stops listening and ends the connections.
    pub fn close(self) {}
}

impl Drop for ExtensionBridge {
    fn drop(&mut self) {
        self.accept.abort();
        self.link.close_cdp("the bridge stopped");
        self.link
            .tell_extension(super::link::Outgoing::Close(1000, "the bridge stopped".into()));
        if matches!(self.link.current_status(), Status::Waiting | Status::Approved { .. }) {
            self.link.set_status(Status::Closed("the bridge stopped".into()));
        }
    }
}
