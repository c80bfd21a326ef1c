//! The browser behind an MCP server: launched (or attached) on the first
//! tool call, shared by the sessions, and started again on the next call
//! after it crashed or was killed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::Mutex;

use super::options::McpOptions;
use crate::bridge::ExtensionBridge;
use crate::browser::Browser;
use crate::error::Result;

/// A browser and its generation (a new one after every relaunch).
pub(super) struct Hosted {
    pub generation: u64,
    pub browser: Arc<Browser>,
    /// Through the extension: the approval it was connected under.
    approval: u64,
}

pub(super) struct BrowserHost {
    options: Arc<McpOptions>,
    current: Mutex<Option<Hosted>>,
    generations: AtomicU64,
    /// The extension's bridge, listening from the first call on.
    bridge: Mutex<Option<ExtensionBridge>>,
    /// Starts ended so far, and why the last one failed: a caller that
    /// waited while another tried is given that answer, not a second wait
    /// (the extension's approval timeout would run twice).
    starts: AtomicU64,
    last_failure: std::sync::Mutex<Option<String>>,
}

impl BrowserHost {
    pub fn new(options: Arc<McpOptions>) -> BrowserHost {
        BrowserHost {
            options,
            current: Mutex::new(None),
            generations: AtomicU64::new(0),
            bridge: Mutex::new(None),
            starts: AtomicU64::new(0),
            last_failure: std::sync::Mutex::new(None),
        }
    }

    /// Whether the browser is the user's own, reached through the extension:
    /// only the tabs they share exist for us (no new tabs, no contexts).
    pub fn is_extension(&self) -> bool {
        self.options.extension.is_some()
    }

    /// Whether the browser is one running on its own (`--cdp-endpoint`, the
    /// user's own or a fleet's), which the session connects to.
    pub fn is_connected(&self) -> bool {
        self.options.extension.is_none() && self.options.cdp_endpoint.is_some()
    }

    /// Binds the extension bridge now (the extension can connect before the
    /// first call); its port.
    pub async fn listen_for_extension(&self) -> Result<Option<u16>> {
        let Some(opts) = &self.options.extension else {
            return Ok(None);
        };
        let mut bridge = self.bridge.lock().await;
        if bridge.is_none() {
            *bridge = Some(ExtensionBridge::listen(opts.clone()).await?);
        }
        Ok(bridge.as_ref().map(ExtensionBridge::port))
    }

    /// The user's browser through the extension, once they allowed it, and
    /// the approval it is connected under.
    async fn through_extension(&self) -> Result<(Browser, u64)> {
        self.listen_for_extension().await?;
        let bridge = self.bridge.lock().await;
        let bridge = bridge.as_ref().expect("listening");
        bridge.wait_for_extension().await?;
        let approval = bridge.approval();
        let (browser, _tabs) = bridge.connect(self.options.launch.clone()).await?;
        Ok((browser, approval))
    }

    /// Whether `hosted` is still there: connected, and through the
    /// extension, under the extension's current approval (its browser may
    /// be gone, or restarted and shared anew, before the DevTools
    /// connection says so).
    async fn is_alive(&self, hosted: &Hosted) -> bool {
        hosted.browser.is_connected()
            && match self.bridge.lock().await.as_ref() {
                Some(bridge) if self.is_extension() => bridge.still_approved(hosted.approval),
                _ => true,
            }
    }

    /// Whether `browser`, the host's current one, is still there (see
    /// [`BrowserHost::is_alive`]).
    pub async fn alive(&self, browser: &Arc<Browser>) -> bool {
        // (Not waiting on a start under way, an extension's approval: the
        // connection's own word does meanwhile.)
        let Ok(current) = self.current.try_lock() else {
            return browser.is_connected();
        };
        match current.as_ref().filter(|h| Arc::ptr_eq(&h.browser, browser)) {
            Some(h) => self.is_alive(h).await,
            None => browser.is_connected(),
        }
    }

    /// The running browser, launched (or attached) now if there is none or
    /// the last one died.
    pub async fn get(&self) -> Result<(u64, Arc<Browser>)> {
        let starts_before = self.starts.load(Ordering::SeqCst);
        let mut current = self.current.lock().await;
        if let Some(h) = current.as_ref() {
            if self.is_alive(h).await {
                return Ok((h.generation, h.browser.clone()));
            }
        }
        if current.take().is_some() {
            tracing::warn!("the browser died; starting a new one");
        }
        let o = &self.options;
        if o.extension.is_some() && self.starts.load(Ordering::SeqCst) != starts_before {
            if let Some(why) = self.last_failure.lock().unwrap().clone() {
                return Err(crate::error::Error::Extension(why));
            }
        }
        let started = match (&o.extension, &o.cdp_endpoint) {
            (Some(_), _) => self.through_extension().await,
            (None, Some(url)) => Browser::connect(url, o.launch.clone()).await.map(|b| (b, 0)),
            (None, None) => Browser::launch(o.launch.clone()).await.map(|b| (b, 0)),
        };
        *self.last_failure.lock().unwrap() = started.as_ref().err().map(|e| match e {
            crate::error::Error::Extension(why) => why.clone(),
            other => other.to_string(),
        });
        // (Counted once ended: a caller that came meanwhile sees it.)
        self.starts.fetch_add(1, Ordering::SeqCst);
        let (browser, approval) = started?;
        // Downloads of the default context; isolated sessions set their own.
        // (Through the extension the user's browser keeps its settings;
        // over --cdp-url it saves them where it saves downloads.)
        if o.extension.is_none() {
            browser.save_downloads_to(o.output(), None).await?;
        }
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let browser = Arc::new(browser);
        *current = Some(Hosted {
            generation,
            browser: browser.clone(),
            approval,
        });
        Ok((generation, browser))
    }

    /// Closes the browser politely (so a persistent profile is written out),
    /// once the sessions have let go of it; killed if one still holds it
    /// after a few seconds.
    pub async fn shutdown(&self) {
        let Some(h) = self.current.lock().await.take() else {
            return;
        };
        let mut browser = h.browser;
        for _ in 0..60 {
            match Arc::try_unwrap(browser) {
                Ok(b) => {
                    let _ = b.close().await;
                    return;
                }
                Err(shared) => browser = shared,
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        tracing::warn!("a session still holds the browser at shutdown; it is killed");
    }
}
