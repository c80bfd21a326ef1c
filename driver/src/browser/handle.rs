//! Launching and shutting down Chromium.
//!
//! One [`Browser`] owns one Chromium process with a fresh temporary profile,
//! and the chromiumoxide handler task that pumps its DevTools connection.
//! [`Browser::close`] closes it politely and waits for the process; dropping a
//! `Browser` that was not closed kills the process instead, so no Chromium is
//! ever left behind.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::{
    CreateTargetParams, EventTargetCreated, EventTargetDestroyed, GetTargetsParams, TargetId, TargetInfo,
};
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::BrowserConfig;
use futures::StreamExt;
use tokio::task::JoinHandle;

use super::options::LaunchOptions;
use super::process::{
    launch_reason, locate_executable, remove_profile, running_as_root, CHROME_SWITCHES, DISABLED_FEATURES,
};
use super::records::{BrowserContext, Download, GuardState};
use super::tab_screen::TabScreen;
use crate::domains::{OriginPolicy, RefusalLog};
use crate::error::{one_line, Error, Result};
use crate::lifetime::{self, Cleanup, Reaper};
use crate::page::{Page, SideChannel, TabOrigin, ViewportSize};

/// Longest wait for a closed tab to leave the browser's list.
const CLOSED_TAB_GRACE: Duration = Duration::from_secs(2);

/// A page target the browser reported, in order of creation.
#[derive(Debug, Clone)]
struct TargetEntry {
    id: String,
    opener: Option<String>,
    /// The browser context it belongs to.
    context: Option<String>,
    /// Handed out by [`Browser::wait_for_popup`] already.
    claimed: bool,
    gone: bool,
    /// Open when Sightline connected to the browser (the user's own): it
    /// holds the user's work.
    before_us: bool,
}

/// Page targets as the browser announces them (`Target.targetCreated`).
#[derive(Default)]
struct TargetBook {
    entries: Vec<TargetEntry>,
    /// The tabs open when Sightline connected were listed (and marked
    /// `before_us`): only then can a later pop-up be told from them.
    listed_at_connect: bool,
}

impl TargetEntry {
    /// A tab as the browser announced it, not handed out yet.
    fn new(id: String, opener: Option<String>, context: Option<String>) -> TargetEntry {
        TargetEntry {
            id,
            opener,
            context,
            claimed: false,
            gone: false,
            before_us: false,
        }
    }
}

/// Whether the tab `id` is one of `created`, or was opened by one of
/// them: up the chain of `opener_of`.
fn opened_by(created: &[String], id: &str, opener_of: impl Fn(&str) -> Option<String>) -> bool {
    let mut id = id.to_string();
    // (Bounded: a chain never loops, but a list might.)
    for _ in 0..32 {
        if created.contains(&id) {
            return true;
        }
        match opener_of(&id) {
            Some(opener) => id = opener,
            None => return false,
        }
    }
    false
}

/// A running Chromium: launched by us, or reached with [`Browser::connect`].
pub struct Browser {
    inner: Option<chromiumoxide::Browser>,
    handler: Option<JoinHandle<()>>,
    /// Fresh profile; removed after the process has exited.
    profile: Option<tempfile::TempDir>,
    /// Kills the browser (and removes a fresh profile) should this process
    /// die without closing it; told it is done once we did (dropped last).
    reaper: Option<Reaper>,
    options: LaunchOptions,
    /// The `--cdp-url` of a browser we connected to (which we must not close).
    remote: Option<String>,
    /// Pages handed out so far (one [`Page`] per tab, shared by clones).
    pages: Mutex<Vec<Page>>,
    /// Tabs we opened (closed on [`Browser::close`] of a connected browser).
    created: Mutex<Vec<String>>,
    /// Tabs a session acts in (see [`Browser::drive`]).
    driven: Mutex<Vec<String>>,
    book: Arc<Mutex<TargetBook>>,
    book_changed: Arc<tokio::sync::Notify>,
    book_watch: Option<JoinHandle<()>>,
    /// The second DevTools connection navigations go through.
    side_channel: Option<Arc<SideChannel>>,
    /// Between chromiumoxide and a browser Sightline connected to: it
    /// hears only of the session's tabs (see `tab_screen.rs`).
    pub(super) screen: Option<TabScreen>,
    /// Origin policies of contexts that have their own (see
    /// [`Browser::set_context_origins`]); others follow the launch options'.
    pub(super) context_origins: Arc<Mutex<HashMap<String, OriginPolicy>>>,
    /// Keeps the origin policies at the browser's level (see `origin_guard.rs`).
    pub(super) origin_guard: Mutex<GuardState>,
    /// What that guard refused.
    pub(super) refusals: RefusalLog,
    /// Downloads seen since [`Browser::save_downloads_to`].
    pub(super) downloads: Arc<Mutex<Vec<Download>>>,
    /// The folders downloads are saved in (one per context that has its own).
    pub(super) download_dirs: Arc<Mutex<Vec<PathBuf>>>,
    pub(super) download_watch: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("running", &self.inner.is_some())
            .field("profile", &self.profile.as_ref().map(|p| p.path().to_path_buf()))
            .field("options", &self.options)
            .field("remote", &self.remote)
            .finish()
    }
}

impl Browser {
    /// Starts Chromium with a fresh temporary profile.
    pub async fn launch(options: LaunchOptions) -> Result<Browser> {
        let requested = options.resolved_executable();
        let launch_err = |reason: String| Error::BrowserLaunch {
            executable: requested.clone(),
            reason,
        };
        let executable = locate_executable(&requested).ok_or_else(|| launch_err("no such executable".into()))?;
        // Profiles a crashed run left behind go first (only those whose run is over).
        lifetime::sweep_stale_once();

        // A fresh temporary profile, unless the caller keeps one (logins survive).
        let profile = match &options.user_data_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| launch_err(format!("cannot create the profile directory {}: {e}", dir.display())))?;
                None
            }
            None => Some(
                lifetime::owned_temp_dir(lifetime::PROFILE_PREFIX)
                    .map_err(|e| launch_err(format!("cannot create a profile directory: {e}")))?,
            ),
        };
        let profile_dir = match (&profile, &options.user_data_dir) {
            (Some(p), _) => p.path().to_path_buf(),
            (None, Some(dir)) => dir.clone(),
            (None, None) => unreachable!("one of the two is set"),
        };
        // Armed before Chromium starts: however this process ends from here
        // on, the browser dies with it, and a temporary profile goes too.
        let reaper = Reaper::try_watch(
            &profile_dir,
            Cleanup {
                kill_browsers: true,
                remove: profile.is_some(),
            },
        );

        let ViewportSize { width, height } = options.viewport;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(&executable)
            .user_data_dir(&profile_dir)
            .viewport(Viewport {
                width,
                height,
                ..Viewport::default()
            })
            .window_size(width, height)
            .launch_timeout(options.launch_timeout)
            .request_timeout(options.request_timeout)
            .args(CHROME_SWITCHES.iter().copied())
            // No first tab: Chromium would load its new-tab page (WebUI
            // renderers that slow the start); tabs are ours to open.
            .arg("no-startup-window")
            .arg(("disable-features", DISABLED_FEATURES));
        for a in &options.extra_args {
            builder = builder.arg(a.trim_start_matches('-').to_string());
        }
        builder = if options.headed {
            builder.with_head()
        } else {
            builder.new_headless_mode()
        };
        if !options.sandbox.unwrap_or(!running_as_root()) {
            builder = builder.no_sandbox();
        }
        let config = builder.build().map_err(launch_err)?;

        tracing::debug!(executable = %executable.display(), profile = %profile_dir.display(), "launching chromium");
        let (browser, handler) = match chromiumoxide::Browser::launch(config).await {
            Ok(v) => v,
            Err(e) => {
                if let Some(profile) = profile {
                    remove_profile(profile);
                }
                drop(reaper);
                let mut reason = launch_reason(e);
                if options.user_data_dir.is_some() {
                    reason.push_str(" (is another browser using this profile directory?)");
                }
                return Err(launch_err(reason));
            }
        };

        let task = pump(handler);
        let mut b = Browser::assemble(browser, task, profile, options, None);
        b.reaper = reaper;
        if let Err(e) = b.watch_targets().await {
            b.shutdown().await;
            return Err(e);
        }
        b.guard_origins(&b.options.origins.clone()).await;
        Ok(b)
    }

    /// Connects to a running browser: `ws://…` (its DevTools WebSocket) or
    /// `http://host:port` (its DevTools HTTP endpoint). Pages opened through
    /// it get `options`' viewport and timeouts; [`Browser::close`] closes
    /// those pages and disconnects, leaving the browser running. At
    /// Chromium's own endpoint (`/devtools/browser/…`) the tabs it had are
    /// not attached to: [`Browser::pages`] holds only those Sightline opens
    /// (and their pop-ups); [`Browser::tab_list`] lists the others, and
    /// [`Browser::choose_tab`] takes one in. A relay's tabs (the extension's
    /// bridge, a grid's session) are all taken as they are.
    pub async fn connect(cdp_url: &str, options: LaunchOptions) -> Result<Browser> {
        let ws = super::cdp_url::websocket_url(cdp_url, options.launch_timeout).await?;
        let refused = |reason: String| Error::Connect {
            url: cdp_url.to_string(),
            reason: one_line(&reason),
        };
        let no_handshake = || format!("no DevTools handshake within {}s", options.launch_timeout.as_secs());
        // Chromium's own endpoint: a browser with tabs of its own, kept from
        // chromiumoxide. Others are taken as they are: the extension's
        // bridge (its every tab is one the user shared), a grid's session.
        let screened = super::cdp_url::is_browser_endpoint(&ws);
        let screen = match screened {
            true => Some(
                tokio::time::timeout(options.launch_timeout, TabScreen::start(&ws))
                    .await
                    .unwrap_or_else(|_| Err(no_handshake()))
                    .map_err(refused)?,
            ),
            false => None,
        };
        let handler_url = screen.as_ref().map_or(ws.clone(), |s| s.url.clone());
        // The handler applies its settings to every tab it attaches to, a
        // tab of the user's a session chose (or any, behind a relay)
        // included: no certificate bypass (their tabs would take any
        // certificate while a session is attached) and no emulation (they
        // would lay out at our size, as touch screens). Tabs Sightline
        // opens get the viewport when they are opened.
        let config = HandlerConfig {
            viewport: None,
            ignore_https_errors: false,
            request_timeout: options.request_timeout,
            ..HandlerConfig::default()
        };
        let connected = tokio::time::timeout(
            options.launch_timeout,
            chromiumoxide::Browser::connect_with_config(handler_url, config),
        )
        .await;
        let (browser, handler) = match connected {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => return Err(refused(e.to_string())),
            Err(_) => return Err(refused(no_handshake())),
        };
        let task = pump(handler);
        let mut b = Browser::assemble(browser, task, None, options, Some(cdp_url.to_string()));
        // Navigations go to the browser itself, not through the screen.
        b.side_channel = Some(SideChannel::new(ws));
        b.screen = screen;
        if let Err(e) = b.watch_targets().await {
            b.shutdown().await;
            return Err(e);
        }
        b.mark_tabs_before_us().await;
        b.guard_origins(&b.options.origins.clone()).await;
        Ok(b)
    }

    fn assemble(
        browser: chromiumoxide::Browser,
        handler: JoinHandle<()>,
        profile: Option<tempfile::TempDir>,
        options: LaunchOptions,
        remote: Option<String>,
    ) -> Browser {
        let side_channel = Some(SideChannel::new(browser.websocket_address().clone()));
        Browser {
            side_channel,
            screen: None,
            inner: Some(browser),
            handler: Some(handler),
            profile,
            reaper: None,
            options,
            remote,
            pages: Mutex::new(Vec::new()),
            created: Mutex::new(Vec::new()),
            driven: Mutex::new(Vec::new()),
            book: Arc::new(Mutex::new(TargetBook::default())),
            book_changed: Arc::new(tokio::sync::Notify::new()),
            book_watch: None,
            context_origins: Arc::new(Mutex::new(HashMap::new())),
            origin_guard: Mutex::new(GuardState::default()),
            refusals: RefusalLog::default(),
            downloads: Arc::new(Mutex::new(Vec::new())),
            download_dirs: Arc::new(Mutex::new(Vec::new())),
            download_watch: Mutex::new(None),
        }
    }

    /// The chromiumoxide browser, while connected.
    pub(super) fn cdp_browser(&self) -> Result<&chromiumoxide::Browser> {
        self.inner.as_ref().ok_or(Error::BrowserClosed)
    }

    /// Whether the DevTools connection is still up (false once the browser
    /// crashed, was killed or closed).
    pub fn is_connected(&self) -> bool {
        self.inner.is_some() && self.handler.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Follows page targets as the browser creates and destroys them (popups, new tabs).
    async fn watch_targets(&mut self) -> Result<()> {
        let browser = self.inner.as_ref().ok_or(Error::BrowserClosed)?;
        let mut created = browser
            .event_listener::<EventTargetCreated>()
            .await
            .map_err(|e| Error::cdp("Target.targetCreated", e))?;
        let mut destroyed = browser
            .event_listener::<EventTargetDestroyed>()
            .await
            .map_err(|e| Error::cdp("Target.targetDestroyed", e))?;
        let book = self.book.clone();
        let changed = self.book_changed.clone();
        let screen = self.screen.as_ref().map(TabScreen::screen);
        self.book_watch = Some(tokio::spawn(async move {
            loop {
                tokio::select! {
                    ev = created.next() => match ev {
                        Some(ev) => {
                            let info = &ev.target_info;
                            if info.r#type == "page" {
                                let mut b = book.lock().unwrap();
                                if !b.entries.iter().any(|e| &e.id == info.target_id.inner()) {
                                    b.entries.push(TargetEntry::new(
                                        info.target_id.inner().clone(),
                                        info.opener_id.as_ref().map(|o| o.inner().clone()),
                                        info.browser_context_id.as_ref().map(|c| c.inner().clone()),
                                    ));
                                }
                            }
                        }
                        None => break,
                    },
                    ev = destroyed.next() => match ev {
                        // (A chosen tab of the user's given back is still open.)
                        Some(ev) if screen.as_ref().is_some_and(|s| s.lock().unwrap().hides(ev.target_id.inner())) => {}
                        Some(ev) => {
                            let mut b = book.lock().unwrap();
                            for e in b.entries.iter_mut().filter(|e| &e.id == ev.target_id.inner()) {
                                e.gone = true;
                            }
                        }
                        None => break,
                    },
                }
                changed.notify_waiters();
            }
        }));
        Ok(())
    }

    /// Whether this browser was reached with [`Browser::connect`].
    pub fn is_connected_remote(&self) -> bool {
        self.remote.is_some()
    }

    /// Whether the browser said the tab `target_id` is gone
    /// (`Target.targetDestroyed`; no round trip: read from the book).
    pub fn tab_is_gone(&self, target_id: &str) -> bool {
        let book = self.book.lock().unwrap();
        book.entries.iter().any(|e| e.gone && e.id == target_id)
    }

    /// The tabs that opened `target_id`, nearest first, up its chain of openers.
    pub fn openers_of(&self, target_id: &str) -> Vec<String> {
        let book = self.book.lock().unwrap();
        let opener_of = |id: &str| book.entries.iter().find(|e| e.id == id).and_then(|e| e.opener.clone());
        let mut chain: Vec<String> = Vec::new();
        let mut id = target_id.to_string();
        // (Bounded: a chain never loops, but a list might.)
        while let Some(opener) = opener_of(&id).filter(|_| chain.len() < 32) {
            chain.push(opener.clone());
            id = opener;
        }
        chain
    }

    /// The nearest tab up `target_id`'s chain of openers that is still open
    /// (where a session goes back to when its tab closed).
    pub fn nearest_open_opener(&self, target_id: &str) -> Option<Page> {
        self.openers_of(target_id).iter().find_map(|id| self.open_page(id))
    }

    /// The tabs the browser announced and did not end, in that order.
    pub(super) fn announced_order(&self) -> Vec<String> {
        let book = self.book.lock().unwrap();
        book.entries.iter().filter(|e| !e.gone).map(|e| e.id.clone()).collect()
    }

    /// The `Page` handed out for the tab `target_id`, while it is open.
    fn open_page(&self, target_id: &str) -> Option<Page> {
        let page = self
            .pages
            .lock()
            .unwrap()
            .iter()
            .find(|p| p.target_id() == target_id)
            .cloned()?;
        (!page.is_closed() && !self.tab_is_gone(target_id)).then_some(page)
    }

    /// The browser's tabs as it lists them now (`Target.getTargets`, pages only).
    pub(super) async fn listed_tabs(&self) -> Result<Vec<TargetInfo>> {
        let listed = self
            .cdp_browser()?
            .execute(GetTargetsParams::default())
            .await
            .map_err(|e| Error::cdp("Target.getTargets", e))?;
        Ok(listed
            .result
            .target_infos
            .into_iter()
            .filter(|i| i.r#type == "page")
            .collect())
    }

    /// Marks the tabs open in a browser Sightline connected to: they hold
    /// the user's work (see [`Browser::opened_here`]).
    async fn mark_tabs_before_us(&self) {
        let Ok(listed) = self.listed_tabs().await else {
            return;
        };
        let mut book = self.book.lock().unwrap();
        for info in &listed {
            match book.entries.iter_mut().find(|e| &e.id == info.target_id.inner()) {
                Some(e) => e.before_us = true,
                None => book.entries.push(TargetEntry {
                    before_us: true,
                    ..TargetEntry::new(
                        info.target_id.inner().clone(),
                        info.opener_id.as_ref().map(|o| o.inner().clone()),
                        info.browser_context_id.as_ref().map(|c| c.inner().clone()),
                    )
                }),
            }
        }
        book.listed_at_connect = true;
    }

    /// Marks `page` as a tab a session acts in (made its current one): in a
    /// browser Sightline connected to (the user's own, or the tabs they
    /// shared), the pop-ups it opens from now on are the session's to close.
    pub fn drive(&self, page: &Page) {
        let mut driven = self.driven.lock().unwrap();
        if !driven.iter().any(|id| id == page.target_id()) {
            driven.push(page.target_id().to_string());
        }
    }

    /// Whether the tab `target_id` is Sightline's to close: any tab of a
    /// browser it launched; in a browser it connected to (the user's own),
    /// only the tabs it opened, the tabs of contexts it made, the popups
    /// those opened, and the popups the tabs a session acts in (see
    /// [`Browser::drive`]: the tab the user shared) opened since it
    /// connected, as the agent's clicks do. The user's own tabs hold their work.
    pub fn opened_here(&self, target_id: &str, context: Option<&BrowserContext>) -> bool {
        if self.remote.is_none() || context.is_some() {
            return true;
        }
        let driven: Vec<String> = self
            .driven
            .lock()
            .unwrap()
            .iter()
            .filter(|id| *id != target_id)
            .cloned()
            .collect();
        let created = self.created.lock().unwrap();
        let book = self.book.lock().unwrap();
        let opener_of = |id: &str| book.entries.iter().find(|e| e.id == id).and_then(|e| e.opener.clone());
        // (Unless the tabs open at connect were listed, none is told apart.)
        let popup_since = book.listed_at_connect
            && book
                .entries
                .iter()
                .any(|e| e.id == target_id && !e.before_us && e.opener.is_some());
        opened_by(&created, target_id, opener_of) || (popup_since && opened_by(&driven, target_id, opener_of))
    }

    /// The options this browser was launched with.
    pub fn options(&self) -> &LaunchOptions {
        &self.options
    }

    /// The temporary profile directory (removed when the browser is closed or dropped).
    pub fn profile_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(|p| p.path())
    }

    /// Process id of the Chromium main process, while it runs.
    pub fn pid(&mut self) -> Option<u32> {
        self.inner.as_mut()?.get_mut_child().and_then(|c| c.inner.id())
    }

    /// Whether the browser answers a DevTools command within `within`: false
    /// when it crashed, hangs, or its connection is gone (a batch then
    /// replaces it instead of giving it the next task).
    pub async fn is_responsive(&self, within: Duration) -> bool {
        let Some(browser) = self.inner.as_ref() else {
            return false;
        };
        matches!(tokio::time::timeout(within, browser.version()).await, Ok(Ok(_)))
    }

    /// Opens a new tab (on `about:blank`) with the engine installed in every frame.
    pub async fn new_page(&self) -> Result<Page> {
        self.new_page_in(None).await
    }

    /// Opens a new tab in `context` (the default context when `None`).
    pub async fn new_page_in(&self, context: Option<&BrowserContext>) -> Result<Page> {
        let browser = self.inner.as_ref().ok_or(Error::BrowserClosed)?;
        let mut params = CreateTargetParams::new("about:blank");
        params.browser_context_id = context.map(|c| BrowserContextId::new(c.id.clone()));
        let page = browser
            .new_page(params)
            .await
            .map_err(|e| Error::cdp("Target.createTarget", e))?;
        let id = page.target_id().inner().clone();
        {
            // Opened by us: not a popup for anyone to wait for.
            let mut book = self.book.lock().unwrap();
            match book.entries.iter_mut().find(|e| e.id == id) {
                Some(e) => e.claimed = true,
                None => book.entries.push(TargetEntry {
                    claimed: true,
                    ..TargetEntry::new(id.clone(), None, context.map(|c| c.id.clone()))
                }),
            }
        }
        self.created.lock().unwrap().push(id);
        let page = Page::attach(
            page,
            self.options.page_config(),
            self.options.remove_blocker.clone(),
            self.origins_for(context.map(|c| c.id.as_str())),
            self.refusals_of(context.map(|c| c.id.as_str())),
            self.side_channel.clone(),
            TabOrigin::Fresh,
        )
        .await?;
        if self.remote.is_some() {
            // (A launched browser's handler sets it on every tab; see `connect`.)
            page.set_viewport(self.options.viewport).await?;
        }
        self.pages.lock().unwrap().push(page.clone());
        Ok(page)
    }

    /// The `Page` for a target: the one handed out before, or a new one
    /// (the engine is installed; documents already loaded get it on first use).
    pub(super) async fn adopt(&self, id: &str, deadline: Instant) -> Result<Page> {
        if let Some(p) = self.pages.lock().unwrap().iter().find(|p| p.target_id() == id) {
            return Ok(p.clone());
        }
        let browser = self.inner.as_ref().ok_or(Error::BrowserClosed)?;
        // The handler attaches to new targets on its own; wait until it has.
        let page = loop {
            match browser.get_page(TargetId::new(id.to_string())).await {
                Ok(p) => break p,
                Err(CdpError::NotFound) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(CdpError::NotFound) => {
                    return Err(Error::Timeout {
                        what: format!("the new tab {id} to be ready"),
                        after: self.options.request_timeout.min(Duration::from_secs(30)),
                    })
                }
                Err(e) => return Err(Error::cdp("Target.attachToTarget", e)),
            }
        };
        let (context, opener) = self
            .book
            .lock()
            .unwrap()
            .entries
            .iter()
            .find(|e| e.id == id)
            .map(|e| (e.context.clone(), e.opener.clone()))
            .unwrap_or_default();
        let page = Page::attach(
            page,
            self.options.page_config(),
            self.options.remove_blocker.clone(),
            self.origins_for(context.as_deref()),
            self.refusals_of(context.as_deref()),
            self.side_channel.clone(),
            TabOrigin::Adopted,
        )
        .await?;
        // A connected browser's handler sets no viewport (see `connect`):
        // the session's own pop-ups get it here; the user's tabs never do.
        if self.remote.is_some() && opener.is_some() && self.opened_here(id, None) {
            if let Err(e) = page.set_viewport(self.options.viewport).await {
                tracing::debug!("the pop-up {id} keeps its window's size: {e}");
            }
        }
        let mut pages = self.pages.lock().unwrap();
        // Another call may have adopted it meanwhile: keep the first.
        if let Some(p) = pages.iter().find(|p| p.target_id() == id) {
            return Ok(p.clone());
        }
        // A tab opened by one whose dialogs wait for an answer holds its own
        // too: answered by no one, a pop-up's endless alerts would spin.
        if let Some(opener) = opener.and_then(|o| pages.iter().find(|p| p.target_id() == o)) {
            page.set_dialog_policy(opener.dialog_policy());
        }
        pages.push(page.clone());
        Ok(page)
    }

    /// Every open tab, in the order they were opened, including popups and
    /// tabs opened by the page (`target=_blank`, `window.open`). In a
    /// browser Sightline connected to, only the tabs it may act in (see
    /// [`Browser::connect`]).
    pub async fn pages(&self) -> Result<Vec<Page>> {
        self.pages_in(None).await
    }

    /// The open tabs of `context` (of every context when `None`), in the
    /// order they were opened.
    pub async fn pages_in(&self, context: Option<&BrowserContext>) -> Result<Vec<Page>> {
        let browser = self.inner.as_ref().ok_or(Error::BrowserClosed)?;
        let open: Vec<String> = browser
            .pages()
            .await
            .map_err(|e| Error::cdp("Target.getTargets", e))?
            .iter()
            .map(|p| p.target_id().inner().clone())
            .collect();
        self.pages
            .lock()
            .unwrap()
            .retain(|p| open.iter().any(|id| id == p.target_id()));
        // Known order first (creation), then anything the book has not seen.
        let mut order: Vec<String> = self
            .book
            .lock()
            .unwrap()
            .entries
            .iter()
            .filter(|e| !e.gone && open.contains(&e.id))
            .filter(|e| context.is_none_or(|c| e.context.as_deref() == Some(c.id.as_str())))
            .map(|e| e.id.clone())
            .collect();
        if context.is_none() {
            let book = self.book.lock().unwrap();
            let gone = |id: &String| book.entries.iter().any(|e| e.gone && &e.id == id);
            for id in &open {
                if !order.contains(id) && !gone(id) {
                    order.push(id.clone());
                }
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut out = Vec::with_capacity(order.len());
        for id in order {
            match self.adopt(&id, deadline).await {
                Ok(p) => out.push(p),
                // Closed between the listing and now.
                Err(Error::Timeout { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// Leaves the tab `target_id` out of tab lists from now on: it is being
    /// closed (a hung tab whose target lingers after its renderer was killed).
    pub fn forget_tab(&self, target_id: &str) {
        let mut book = self.book.lock().unwrap();
        for e in book.entries.iter_mut().filter(|e| e.id == target_id) {
            e.gone = true;
        }
    }

    /// Closes `page`'s tab and waits until the browser no longer lists it
    /// (its `Page.close` answers before the target is gone), a moment at
    /// most: tab lists taken after it leave the tab out.
    pub async fn close_page(&self, page: Page) -> Result<()> {
        let browser = self.inner.as_ref().ok_or(Error::BrowserClosed)?;
        let id = page.target_id().to_string();
        // (A page in a loop of dialogs would spin on once closed.)
        if page.dialog().is_some() {
            page.stop_scripts().await;
        }
        page.close().await?;
        let deadline = Instant::now() + CLOSED_TAB_GRACE;
        loop {
            // chromiumoxide forgets the target before it passes the event on.
            let notified = self.book_changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let listed = browser
                .pages()
                .await
                .map_err(|e| Error::cdp("Target.getTargets", e))?
                .iter()
                .any(|p| p.target_id().inner() == &id);
            if !listed || Instant::now() >= deadline {
                return Ok(());
            }
            let _ = tokio::time::timeout_at(deadline.into(), notified).await;
        }
    }

    /// The newest open tab.
    pub async fn newest_page(&self) -> Result<Option<Page>> {
        Ok(self.pages().await?.pop())
    }

    /// The next tab opened by `opener` (a popup, a `target=_blank` link, a
    /// `window.open`) that was not handed out yet, waiting up to `timeout`
    /// for one to appear.
    pub async fn wait_for_popup(&self, opener: &Page, timeout: Duration) -> Result<Page> {
        let deadline = Instant::now() + timeout;
        loop {
            let notified = self.book_changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(id) = self.claim_popup(opener.target_id()) {
                return self
                    .adopt(&id, deadline.max(Instant::now() + Duration::from_secs(10)))
                    .await;
            }
            if Instant::now() >= deadline {
                return Err(Error::Timeout {
                    what: "a popup or new tab opened by the page".into(),
                    after: timeout,
                });
            }
            let _ = tokio::time::timeout_at(deadline.into(), notified).await;
        }
    }

    /// A tab opened by `opener` that was not handed out yet, if there is one now.
    /// A tab on a site its origin policy refuses (a task kept to its
    /// domains, whose page opened another site) is closed, not followed:
    /// its later navigations would be refused, but its first document
    /// loaded before it was taken over.
    pub async fn take_popup(&self, opener: &Page) -> Result<Option<Page>> {
        let Some(id) = self.claim_popup(opener.target_id()) else {
            return Ok(None);
        };
        let page = self.adopt(&id, Instant::now() + Duration::from_secs(10)).await?;
        let (url, _) = page.listed().await;
        match page.origins().refusal(&url) {
            None => Ok(Some(page)),
            Some(why) => {
                let _ = self.close_page(page).await;
                Err(Error::InvalidAction(format!(
                    "the page opened a new tab: {why}; closed it"
                )))
            }
        }
    }

    fn claim_popup(&self, opener: &str) -> Option<String> {
        let mut book = self.book.lock().unwrap();
        let e = book
            .entries
            .iter_mut()
            .find(|e| !e.claimed && !e.gone && e.opener.as_deref() == Some(opener))?;
        e.claimed = true;
        Some(e.id.clone())
    }

    /// Closes the browser and waits for its process to exit.
    pub async fn close(mut self) -> Result<()> {
        self.shutdown().await;
        Ok(())
    }

    async fn shutdown(&mut self) {
        self.pages.lock().unwrap().clear();
        // (Dropping the guard's state stops its task.)
        *self.origin_guard.lock().unwrap() = GuardState::default();
        if self.remote.is_some() {
            // Not ours to close: close the tabs we opened, then disconnect.
            // Ours: the tabs we opened and the pop-ups ours opened (see
            // `opened_here`); the user's own tabs and theirs stay.
            let listed: Vec<String> = {
                let book = self.book.lock().unwrap();
                book.entries.iter().filter(|e| !e.gone).map(|e| e.id.clone()).collect()
            };
            let popups: Vec<String> = listed.into_iter().filter(|id| self.opened_here(id, None)).collect();
            // A browser whose last tab closes quits (a headed one): when
            // only our tabs are open, the last of them stays. The browser's
            // own list says which are open (the news of a tab the user just
            // closed may still be on its way); asked while the connection
            // is still ours to ask through.
            let listed = tokio::time::timeout(Duration::from_secs(2), self.listed_tabs())
                .await
                .ok()
                .and_then(|r| r.ok())
                .map(|tabs| {
                    tabs.into_iter()
                        .map(|i| i.target_id.inner().clone())
                        .collect::<Vec<String>>()
                });
            if let Some(browser) = self.inner.take() {
                let mut created: Vec<String> = std::mem::take(&mut *self.created.lock().unwrap());
                for id in popups {
                    if !created.contains(&id) {
                        created.push(id);
                    }
                }
                {
                    let book = self.book.lock().unwrap();
                    let open_ids: Vec<String> = listed
                        .unwrap_or_else(|| book.entries.iter().filter(|e| !e.gone).map(|e| e.id.clone()).collect());
                    created.retain(|id| open_ids.contains(id));
                    if !open_ids.iter().any(|id| !created.contains(id)) {
                        created.pop();
                    }
                }
                for id in &created {
                    let close =
                        chromiumoxide::cdp::browser_protocol::target::CloseTargetParams::new(TargetId::new(id.clone()));
                    let _ = tokio::time::timeout(Duration::from_secs(5), browser.execute(close)).await;
                }
                // Closing is asynchronous: wait (briefly) until the browser says they are gone.
                let deadline = Instant::now() + Duration::from_secs(3);
                loop {
                    let notified = self.book_changed.notified();
                    tokio::pin!(notified);
                    notified.as_mut().enable();
                    let open = self
                        .book
                        .lock()
                        .unwrap()
                        .entries
                        .iter()
                        .any(|e| !e.gone && created.contains(&e.id));
                    if !open || Instant::now() >= deadline {
                        break;
                    }
                    let _ = tokio::time::timeout_at(deadline.into(), notified).await;
                }
                drop(browser);
            }
            if let Some(task) = self.book_watch.take() {
                task.abort();
            }
            if let Some(task) = self.handler.take() {
                task.abort();
                let _ = task.await;
            }
            return;
        }
        if let Some(task) = self.book_watch.take() {
            task.abort();
        }
        if let Some(mut browser) = self.inner.take() {
            // Ask politely first; Chromium then takes its helpers down with it.
            match tokio::time::timeout(Duration::from_secs(5), browser.close()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::debug!("Browser.close failed: {e}"),
                Err(_) => tracing::debug!("Browser.close timed out"),
            }
            match tokio::time::timeout(Duration::from_secs(10), browser.wait()).await {
                Ok(_) => {}
                Err(_) => {
                    tracing::debug!("chromium did not exit in time; killing it");
                    if let Some(Err(e)) = browser.kill().await {
                        tracing::debug!("killing chromium failed: {e}");
                    }
                }
            }
        }
        if let Some(task) = self.handler.take() {
            task.abort();
            let _ = task.await;
        }
        // The process is gone: its profile can go too, and the reaper is done.
        let profile = self.profile.take();
        let reaper = self.reaper.take();
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(profile) = profile {
                remove_profile(profile);
            }
            drop(reaper);
        })
        .await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(task) = self.book_watch.take() {
            task.abort();
        }
        if let Some(task) = self.download_watch.lock().unwrap().take() {
            task.abort();
        }
        if let Some(mut browser) = self.inner.take() {
            if let Some(child) = browser.get_mut_child() {
                if let Ok(None) = child.inner.try_wait() {
                    let _ = child.inner.start_kill();
                    // Reap it now (briefly) rather than leaving a zombie to the runtime.
                    for _ in 0..50 {
                        match child.inner.try_wait() {
                            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                            _ => break,
                        }
                    }
                }
            }
        }
        if let Some(task) = self.handler.take() {
            task.abort();
        }
        if let Some(profile) = self.profile.take() {
            remove_profile(profile);
        }
        drop(self.reaper.take());
    }
}

/// Pumps the DevTools connection until it closes or breaks.
fn pump(mut handler: chromiumoxide::Handler) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(event) = handler.next().await {
            if let Err(e) = event {
                match e {
                    CdpError::Ws(_) | CdpError::Io(_) => {
                        tracing::debug!("devtools connection closed: {e}");
                        break;
                    }
                    other => tracing::debug!("devtools handler: {other}"),
                }
            }
        }
    })
}
