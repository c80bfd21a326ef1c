//! One browser tab: navigation, and the engine in each of its frames.
//!
//! The engine lives in an isolated world named [`WORLD_NAME`] in every frame.
//! `Page.addScriptToEvaluateOnNewDocument` puts it there before any page
//! script runs; `Page.createIsolatedWorld` with the same name hands back that
//! very world's execution context, which we cache per frame. Documents that
//! loaded before the injection get the bundle evaluated on first use.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::cdp::browser_protocol::dom::{GetFrameOwnerParams, ResolveNodeParams};
use chromiumoxide::cdp::browser_protocol::inspector::{EnableParams as InspectorEnableParams, EventTargetCrashed};
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, CreateIsolatedWorldParams, EnableParams, FrameId, FrameTree,
    GetFrameTreeParams, SetBypassCspParams, StopLoadingParams,
};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, EvaluateParams, ExceptionDetails, ExecutionContextId, ReleaseObjectParams,
};
use futures::StreamExt;
use serde_json::Value;
use sightline_engine::protocol::{FrameSnapshot, FrameSnapshotRequest, PROTOCOL_VERSION, WORLD_NAME};

use crate::error::{one_line, Error, Result};
use crate::settle::Tracker;

/// The engine bundle's text (wasm-bindgen glue, the module bytes and the JS API), built by build.rs.
macro_rules! engine_bundle {
    () => {
        include_str!(concat!(env!("OUT_DIR"), "/sightline-engine.bundle.js"))
    };
}

/// The engine bundle as built, with no world marked (the test harness and
/// main-world injections use it).
pub const ENGINE_BUNDLE: &str = engine_bundle!();

/// The bundle as the driver injects it, into its isolated world, which it
/// first marks as one: there the engine reads no `onclick` handler
/// properties (a handler property belongs to the world that set it, so all
/// it could read is null; the main-world hook announces the page's). Page
/// scripts can't reach the isolated world's globals.
const ISOLATED_ENGINE: &str = concat!("globalThis.__sightlineIsolated = true;\n", engine_bundle!());

/// The main-world hook (closed shadow roots, click listeners); runs before page scripts.
pub const MAIN_WORLD_HOOK: &str = include_str!("../../js-glue/main-world-hook.js");

/// Name of the isolated world of [`Page::evaluate_isolated`]: neither the
/// page's world nor the engine's.
pub const USER_WORLD_NAME: &str = "__sightline_user__";

/// Resolves when two animation frames have passed (or after 250 ms when the
/// page does not render, e.g. in a background tab).
const NEXT_FRAMES_JS: &str = "new Promise((resolve) => {\
    let done = false;\
    const finish = () => { if (!done) { done = true; resolve(true); } };\
    requestAnimationFrame(() => requestAnimationFrame(finish));\
    setTimeout(finish, 250);\
})";

/// Schemes [`resolve_target`] accepts as URLs.
const URL_SCHEMES: &[&str] = &["http", "https", "file", "about", "data"];

/// Turns what a user typed (a URL, or a path to a local file) into the URL to load.
///
/// Paths, relative or absolute, must name an existing file and become `file://` URLs.
pub fn resolve_target(input: &str) -> Result<String> {
    let trimmed = input.trim();
    let invalid = |reason: String| Error::InvalidUrl {
        input: input.to_string(),
        reason,
    };
    if trimmed.is_empty() {
        return Err(invalid("empty URL".into()));
    }
    match url::Url::parse(trimmed) {
        Ok(u) => match u.scheme() {
            "http" | "https" => {
                if u.host_str().is_none_or(str::is_empty) {
                    return Err(invalid("missing host".into()));
                }
                Ok(u.to_string())
            }
            "file" => {
                let path = u.to_file_path().map_err(|_| invalid("not a local file URL".into()))?;
                if !path.exists() {
                    return Err(Error::NoSuchFile { path, hint: None });
                }
                Ok(u.to_string())
            }
            // Kept verbatim: re-serialising could re-encode a data: payload.
            "about" | "data" => Ok(trimmed.to_string()),
            other => {
                if Path::new(trimmed).exists() {
                    return file_url(Path::new(trimmed), input);
                }
                let mut reason = format!("unsupported URL scheme \"{other}:\" (use {})", URL_SCHEMES.join(", "));
                if !trimmed.contains("://") {
                    reason.push_str(&format!("; for a web page, write http://{trimmed}"));
                }
                Err(invalid(reason))
            }
        },
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let path = Path::new(trimmed);
            if path.exists() {
                return file_url(path, input);
            }
            let looks_like_host = !trimmed.contains(['/', '\\', ' '])
                && trimmed.contains('.')
                && !trimmed.rsplit('.').next().is_some_and(|ext| {
                    ["html", "htm", "xhtml", "svg", "xml", "txt"].contains(&ext.to_ascii_lowercase().as_str())
                });
            let hint = looks_like_host.then(|| format!(" (for a web page, include the scheme: https://{trimmed})"));
            Err(Error::NoSuchFile {
                path: PathBuf::from(trimmed),
                hint,
            })
        }
        Err(e) => Err(invalid(e.to_string())),
    }
}

fn file_url(path: &Path, input: &str) -> Result<String> {
    let abs = std::fs::canonicalize(path).map_err(|_| Error::NoSuchFile {
        path: path.to_path_buf(),
        hint: None,
    })?;
    url::Url::from_file_path(&abs)
        .map(|u| u.to_string())
        .map_err(|_| Error::InvalidUrl {
            input: input.to_string(),
            reason: "cannot make a file URL of it".into(),
        })
}

/// Text of a JS exception, on one line.
fn exception_text(ex: &ExceptionDetails) -> String {
    let described = ex
        .exception
        .as_ref()
        .and_then(|e| e.description.as_deref().or(e.value.as_ref().and_then(Value::as_str)))
        .and_then(|d| d.lines().next())
        .map(str::to_string);
    one_line(&described.unwrap_or_else(|| ex.text.clone()))
}

#[derive(Default)]
pub(crate) struct PageState {
    /// Execution context of the engine's isolated world, per frame id.
    contexts: HashMap<String, ExecutionContextId>,
    /// Contexts where the engine is known to be loaded (checked once per document).
    engine_ready: HashMap<String, ExecutionContextId>,
    /// Contexts of the user's isolated world ([`USER_WORLD_NAME`]), per frame id.
    pub(crate) user_contexts: HashMap<String, ExecutionContextId>,
    /// Stable frame numbers (the `N` of ref prefix `fN`), per frame id.
    frame_numbers: HashMap<String, u32>,
    /// Per frame id: the document (its `performance.timeOrigin`) whose engine
    /// handed out the refs of the latest snapshot, so a ref is never resolved
    /// against a newer document that happens to reuse its number.
    pub(crate) ref_documents: HashMap<String, f64>,
    main_frame: Option<FrameId>,
}

impl PageState {
    /// Forgets the cached contexts of a frame that got a new document (or went away).
    pub(crate) fn forget_frame_contexts(&mut self, frame: &str) {
        self.contexts.remove(frame);
        self.engine_ready.remove(frame);
        self.user_contexts.remove(frame);
    }

    fn forget_all_contexts(&mut self) {
        self.contexts.clear();
        self.engine_ready.clear();
        self.user_contexts.clear();
    }
}

/// Tunables of one page, changeable at any time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageConfig {
    pub navigation_timeout: Duration,
    pub settle_timeout: Duration,
    pub action_timeout: Duration,
}

/// Everything a [`Page`] handle shares with its clones.
struct Shared {
    state: Arc<Mutex<PageState>>,
    config: Mutex<PageConfig>,
    /// removeBlocker's policy on this tab.
    blockers: Mutex<crate::config::RemoveBlockerConfig>,
    /// Set when the tab's renderer crashes (`Inspector.targetCrashed`).
    crashed: Arc<tokio::sync::watch::Sender<bool>>,
    crash_watch: tokio::task::JoinHandle<()>,
    tracker: Tracker,
    /// Where the mouse is (top-level viewport CSS pixels).
    mouse: Mutex<(f64, f64)>,
    /// One action at a time per page: trusted input must not interleave.
    action_lock: tokio::sync::Mutex<()>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.crash_watch.abort();
    }
}

/// A browser tab driven by Sightline. Cheap to clone: clones are handles to
/// the same tab.
#[derive(Clone)]
pub struct Page {
    inner: chromiumoxide::Page,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page").field("target", self.inner.target_id()).finish()
    }
}

impl PartialEq for Page {
    fn eq(&self, other: &Self) -> bool {
        self.inner.target_id() == other.inner.target_id()
    }
}

impl Page {
    /// Prepares a tab: CSP bypass, and the main-world hook and the engine
    /// installed for every future document.
    pub(crate) async fn attach(
        inner: chromiumoxide::Page,
        config: PageConfig,
        blockers: crate::config::RemoveBlockerConfig,
    ) -> Result<Page> {
        inner
            .execute(EnableParams::default())
            .await
            .map_err(|e| Error::cdp("Page.enable", e))?;
        inner
            .execute(SetBypassCspParams::new(true))
            .await
            .map_err(|e| Error::cdp("Page.setBypassCSP", e))?;

        let mut hook = AddScriptToEvaluateOnNewDocumentParams::new(MAIN_WORLD_HOOK);
        hook.run_immediately = Some(true);
        inner
            .execute(hook)
            .await
            .map_err(|e| Error::cdp("Page.addScriptToEvaluateOnNewDocument", e))?;

        let mut engine = AddScriptToEvaluateOnNewDocumentParams::new(ISOLATED_ENGINE);
        engine.world_name = Some(WORLD_NAME.to_string());
        engine.run_immediately = Some(true);
        inner
            .execute(engine)
            .await
            .map_err(|e| Error::cdp("Page.addScriptToEvaluateOnNewDocument", e))?;

        // A crashed renderer answers nothing: notice it instead of waiting for timeouts.
        let mut crashes = inner
            .event_listener::<EventTargetCrashed>()
            .await
            .map_err(|e| Error::cdp("Inspector.targetCrashed", e))?;
        inner
            .execute(InspectorEnableParams::default())
            .await
            .map_err(|e| Error::cdp("Inspector.enable", e))?;
        let crashed = Arc::new(tokio::sync::watch::channel(false).0);
        let flag = crashed.clone();
        let crash_watch = tokio::spawn(async move {
            while crashes.next().await.is_some() {
                tracing::debug!("the page's renderer crashed");
                flag.send_replace(true);
            }
        });

        let state = Arc::new(Mutex::new(PageState::default()));
        let tracker = match Tracker::start(&inner, state.clone()).await {
            Ok(t) => t,
            Err(e) => {
                crash_watch.abort();
                return Err(e);
            }
        };
        Ok(Page {
            inner,
            shared: Arc::new(Shared {
                state,
                config: Mutex::new(config),
                blockers: Mutex::new(blockers),
                crashed,
                crash_watch,
                tracker,
                mouse: Mutex::new((0.0, 0.0)),
                action_lock: tokio::sync::Mutex::new(()),
            }),
        })
    }

    /// The chromiumoxide page underneath, for raw CDP commands.
    pub fn cdp(&self) -> &chromiumoxide::Page {
        &self.inner
    }

    /// The DevTools target id of this tab.
    pub fn target_id(&self) -> &str {
        self.inner.target_id().inner()
    }

    /// The target id of the tab that opened this one (popups, `target=_blank` links).
    pub fn opener_id(&self) -> Option<&str> {
        self.inner.opener_id().as_ref().map(|t| t.inner().as_str())
    }

    pub(crate) fn state(&self) -> std::sync::MutexGuard<'_, PageState> {
        self.shared.state.lock().unwrap()
    }

    pub(crate) fn tracker(&self) -> &Tracker {
        &self.shared.tracker
    }

    pub(crate) fn mouse(&self) -> &Mutex<(f64, f64)> {
        &self.shared.mouse
    }

    pub(crate) fn action_lock(&self) -> &tokio::sync::Mutex<()> {
        &self.shared.action_lock
    }

    pub(crate) fn config(&self) -> PageConfig {
        *self.shared.config.lock().unwrap()
    }

    /// Time budget of [`Page::settle`] (default 5 s).
    pub fn settle_timeout(&self) -> Duration {
        self.config().settle_timeout
    }

    /// Sets the time budget of [`Page::settle`], which runs before every
    /// snapshot and after navigations and actions. Zero turns settling off.
    pub fn set_settle_timeout(&self, budget: Duration) {
        self.shared.config.lock().unwrap().settle_timeout = budget;
    }

    /// How long element actions retry transient failures (default 5 s).
    pub fn action_timeout(&self) -> Duration {
        self.config().action_timeout
    }

    /// Sets how long element actions wait for their element to become
    /// actionable (visible, stable, uncovered…).
    pub fn set_action_timeout(&self, timeout: Duration) {
        self.shared.config.lock().unwrap().action_timeout = timeout;
    }

    /// How long navigations wait for the load event (default 30 s).
    pub fn navigation_timeout(&self) -> Duration {
        self.config().navigation_timeout
    }

    /// Sets how long navigations wait for the load event.
    pub fn set_navigation_timeout(&self, timeout: Duration) {
        self.shared.config.lock().unwrap().navigation_timeout = timeout;
    }

    /// removeBlocker's policy on this tab (from `LaunchOptions::remove_blocker`).
    pub fn blocker_config(&self) -> crate::config::RemoveBlockerConfig {
        self.shared.blockers.lock().unwrap().clone()
    }

    /// Changes removeBlocker's policy on this tab.
    pub fn set_blocker_config(&self, config: crate::config::RemoveBlockerConfig) {
        *self.shared.blockers.lock().unwrap() = config;
    }

    /// Marks the renderer as alive again (a navigation gives a crashed tab a new one).
    pub(crate) fn clear_crashed(&self) {
        self.shared.crashed.send_replace(false);
    }

    /// Runs `fut` unless the renderer crashes first.
    pub(crate) async fn unless_crashed<T>(&self, fut: impl Future<Output = T>) -> Result<T> {
        let mut crashed = self.shared.crashed.subscribe();
        tokio::select! {
            v = fut => Ok(v),
            _ = crashed.wait_for(|c| *c) => Err(Error::PageCrashed),
        }
    }

    /// Gives up on a navigation that timed out. chromiumoxide keeps watching
    /// it (and queues later navigations behind it) until its own 30 s
    /// deadline; committing a blank document ends that watch at once.
    pub(crate) async fn abandon_navigation(&self) {
        let _ = self.inner.execute(StopLoadingParams::default()).await;
        let blank = async {
            let main = self.main_frame_id().await?;
            let ctx = self.world_context(&main).await?;
            self.evaluate_in(&main, ctx, "location.replace('about:blank')", false)
                .await
        };
        match tokio::time::timeout(Duration::from_secs(2), blank).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::debug!("abandon navigation: {e}"),
            Err(_) => tracing::debug!("abandon navigation: timed out"),
        }
        self.forget_contexts();
    }

    /// Evaluates an expression in the page's own (main) world of the main
    /// frame and returns its JSON value; promises are awaited.
    pub async fn evaluate(&self, expression: &str) -> Result<Value> {
        let mut p = EvaluateParams::new(expression);
        p.return_by_value = Some(true);
        p.await_promise = Some(true);
        let resp = self
            .inner
            .execute(p)
            .await
            .map_err(|e| Error::cdp("Runtime.evaluate", e))?;
        if let Some(ex) = &resp.result.exception_details {
            return Err(Error::Engine {
                frame: "the main world".into(),
                message: exception_text(ex),
            });
        }
        Ok(resp.result.result.value.clone().unwrap_or(Value::Null))
    }

    /// Closes the tab.
    pub async fn close(self) -> Result<()> {
        self.inner
            .clone()
            .close()
            .await
            .map_err(|e| Error::cdp("Page.close", e))
    }

    /// The current frame tree.
    pub(crate) async fn frame_tree(&self) -> Result<FrameTree> {
        let resp = self
            .inner
            .execute(GetFrameTreeParams::default())
            .await
            .map_err(|e| Error::cdp("Page.getFrameTree", e))?;
        Ok(resp.result.frame_tree.clone())
    }

    /// The main frame's id (it stays the same for the life of the tab).
    pub(crate) async fn main_frame_id(&self) -> Result<FrameId> {
        if let Some(id) = self.state().main_frame.clone() {
            return Ok(id);
        }
        let id = self.frame_tree().await?.frame.id;
        self.state().main_frame = Some(id.clone());
        Ok(id)
    }

    pub(crate) fn forget_contexts(&self) {
        self.state().forget_all_contexts();
    }

    fn forget_context(&self, frame: &FrameId) {
        self.state().forget_frame_contexts(frame.inner());
    }

    /// The frame id behind a ref prefix (`"f2"`), if a snapshot numbered it.
    pub(crate) fn frame_for_prefix(&self, prefix: &str) -> Option<FrameId> {
        let n: u32 = prefix.strip_prefix('f')?.parse().ok()?;
        self.state()
            .frame_numbers
            .iter()
            .find(|(_, v)| **v == n)
            .map(|(k, _)| FrameId::new(k.clone()))
    }

    /// Numbers every child frame of `tree` not yet numbered, depth first in
    /// the frame tree's order. Done before child frames are snapshotted
    /// concurrently, so that numbers do not depend on which answers first.
    pub(crate) fn number_frames(&self, tree: &FrameTree) {
        let mut stack: Vec<&FrameTree> = tree.child_frames.iter().flatten().rev().collect();
        while let Some(t) = stack.pop() {
            self.frame_number(&t.frame.id);
            stack.extend(t.child_frames.iter().flatten().rev());
        }
    }

    /// The `fN` ref prefix of a child frame: a number per frame id, assigned on
    /// first sight and stable for the life of the page.
    pub(crate) fn frame_prefix(&self, frame: &FrameId) -> String {
        format!("f{}", self.frame_number(frame))
    }

    fn frame_number(&self, frame: &FrameId) -> u32 {
        let mut state = self.state();
        let next = state.frame_numbers.len() as u32 + 1;
        *state.frame_numbers.entry(frame.inner().clone()).or_insert(next)
    }

    /// Execution context of the engine's isolated world in `frame` (cached).
    pub(crate) async fn world_context(&self, frame: &FrameId) -> Result<ExecutionContextId> {
        if let Some(ctx) = self.state().contexts.get(frame.inner()) {
            return Ok(*ctx);
        }
        let mut p = CreateIsolatedWorldParams::new(frame.clone());
        p.world_name = Some(WORLD_NAME.to_string());
        let resp = self
            .inner
            .execute(p)
            .await
            .map_err(|e| Error::cdp("Page.createIsolatedWorld", e))?;
        let ctx = resp.result.execution_context_id;
        self.state().contexts.insert(frame.inner().clone(), ctx);
        Ok(ctx)
    }

    /// Evaluates `expression` in a context and returns its JSON value.
    pub(crate) async fn evaluate_in(
        &self,
        frame: &FrameId,
        ctx: ExecutionContextId,
        expression: &str,
        await_promise: bool,
    ) -> Result<Value> {
        let mut p = EvaluateParams::new(expression);
        p.context_id = Some(ctx);
        p.return_by_value = Some(true);
        p.await_promise = Some(await_promise);
        p.silent = Some(true);
        let resp = self
            .inner
            .execute(p)
            .await
            .map_err(|e| Error::cdp("Runtime.evaluate", e))?;
        if let Some(ex) = &resp.result.exception_details {
            return Err(Error::Engine {
                frame: frame_label(frame),
                message: exception_text(ex),
            });
        }
        Ok(resp.result.result.value.clone().unwrap_or(Value::Null))
    }

    /// Makes sure the engine is loaded and speaks our protocol in `frame`;
    /// returns its execution context.
    pub(crate) async fn ensure_engine(&self, frame: &FrameId) -> Result<ExecutionContextId> {
        if let Some(ctx) = self.state().engine_ready.get(frame.inner()) {
            return Ok(*ctx);
        }
        let mut attempt = 0;
        loop {
            let ctx = self.world_context(frame).await?;
            match self.check_engine(frame, ctx).await {
                Ok(()) => {
                    self.state().engine_ready.insert(frame.inner().clone(), ctx);
                    return Ok(ctx);
                }
                Err(e) if e.is_stale_context() && attempt == 0 => {
                    tracing::debug!("frame {}: stale engine context, re-creating it", frame.inner());
                    self.forget_context(frame);
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn check_engine(&self, frame: &FrameId, ctx: ExecutionContextId) -> Result<()> {
        const PROBE: &str = "typeof globalThis.__sightline === 'undefined' ? null : globalThis.__sightline.protocol";
        let mut version = self.evaluate_in(frame, ctx, PROBE, false).await?;
        if version.is_null() {
            // A document that loaded before the injection: load the engine now.
            tracing::debug!("frame {}: evaluating the engine bundle", frame.inner());
            let script = format!("{ISOLATED_ENGINE}\n;0");
            self.evaluate_in(frame, ctx, &script, false).await?;
            version = self.evaluate_in(frame, ctx, PROBE, false).await?;
            if version.is_null() {
                return Err(Error::Engine {
                    frame: frame_label(frame),
                    message: "the engine bundle did not define __sightline".into(),
                });
            }
        }
        if version.as_u64() != Some(u64::from(PROTOCOL_VERSION)) {
            return Err(Error::ProtocolMismatch {
                expected: PROTOCOL_VERSION,
                found: version.to_string(),
            });
        }
        Ok(())
    }

    /// Evaluates `expression` in the engine's world of `frame` (loading the
    /// engine first if needed), retrying once when the document was replaced
    /// under a cached context.
    pub(crate) async fn engine_eval(&self, frame: &FrameId, expression: &str, await_promise: bool) -> Result<Value> {
        let mut attempt = 0;
        loop {
            let ctx = self.ensure_engine(frame).await?;
            match self.evaluate_in(frame, ctx, expression, await_promise).await {
                Ok(v) => return Ok(v),
                Err(e) if e.is_stale_context() && attempt == 0 => {
                    self.forget_context(frame);
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Runs the engine's `snapshot` in one frame.
    pub(crate) async fn frame_snapshot(
        &self,
        frame: &FrameId,
        request: &FrameSnapshotRequest,
    ) -> Result<FrameSnapshot> {
        let request_json = serde_json::to_string(request).expect("request serialises");
        // The request travels as a JS string literal; serde_json quoting is valid JS.
        let literal = serde_json::to_string(&request_json).expect("string serialises");
        // The document's time origin comes along: refs are only valid in the
        // document whose engine handed them out.
        let expression = format!("[globalThis.__sightline.snapshot({literal}), performance.timeOrigin]");
        let value = self.engine_eval(frame, &expression, false).await?;
        let (json, origin) = match value {
            Value::Array(mut a) if a.len() == 2 => (a.swap_remove(0), a.pop().and_then(|o| o.as_f64())),
            other => (other, None),
        };
        let Value::String(json) = json else {
            return Err(Error::Engine {
                frame: frame_label(frame),
                message: format!("snapshot returned {} instead of a JSON string", json_type(&json)),
            });
        };
        let snapshot = serde_json::from_str(&json).map_err(|e| Error::Engine {
            frame: frame_label(frame),
            message: format!("unreadable snapshot: {e}"),
        })?;
        if let Some(origin) = origin {
            self.state().ref_documents.insert(frame.inner().clone(), origin);
        }
        Ok(snapshot)
    }

    /// The engine's `FrameSlot.key` of the iframe element that owns `child`,
    /// asked of the engine in the parent frame (context `parent_ctx`).
    pub(crate) async fn frame_key(
        &self,
        parent: &FrameId,
        parent_ctx: ExecutionContextId,
        child: &FrameId,
    ) -> Result<Option<String>> {
        let owner = self
            .inner
            .execute(GetFrameOwnerParams::new(child.clone()))
            .await
            .map_err(|e| Error::cdp("DOM.getFrameOwner", e))?;
        let resolve = ResolveNodeParams {
            backend_node_id: Some(owner.result.backend_node_id),
            execution_context_id: Some(parent_ctx),
            ..Default::default()
        };
        let node = self
            .inner
            .execute(resolve)
            .await
            .map_err(|e| Error::cdp("DOM.resolveNode", e))?;
        let Some(object_id) = node.result.object.object_id.clone() else {
            return Ok(None);
        };
        let mut call = CallFunctionOnParams::new("function () { return globalThis.__sightline.frameKeyOf(this); }");
        call.object_id = Some(object_id.clone());
        call.return_by_value = Some(true);
        call.silent = Some(true);
        let called = self
            .inner
            .execute(call)
            .await
            .map_err(|e| Error::cdp("Runtime.callFunctionOn", e));
        // Best effort: the wrapper would otherwise live as long as the document.
        let _ = self.inner.execute(ReleaseObjectParams::new(object_id)).await;
        let called = called?;
        if let Some(ex) = &called.result.exception_details {
            return Err(Error::Engine {
                frame: frame_label(parent),
                message: exception_text(ex),
            });
        }
        Ok(called
            .result
            .result
            .value
            .as_ref()
            .and_then(Value::as_str)
            .map(str::to_string))
    }

    /// Scrolls the main frame's window to `y` (instantly, whatever the page's
    /// `scroll-behavior`) and waits for a frame.
    pub(crate) async fn scroll_window_to(&self, y: f64) -> Result<()> {
        let main = self.main_frame_id().await?;
        let ctx = self.ensure_engine(&main).await?;
        let expression = format!(
            "window.scrollTo({{ left: 0, top: {}, behavior: \"instant\" }}); {NEXT_FRAMES_JS}",
            y.max(0.0)
        );
        self.evaluate_in(&main, ctx, &expression, true).await?;
        Ok(())
    }
}

fn frame_label(frame: &FrameId) -> String {
    format!("frame {}", frame.inner())
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pass_through() {
        assert_eq!(
            resolve_target("http://127.0.0.1:8080/a?b=1").unwrap(),
            "http://127.0.0.1:8080/a?b=1"
        );
        assert_eq!(resolve_target("https://example.com").unwrap(), "https://example.com/");
        assert_eq!(resolve_target("about:blank").unwrap(), "about:blank");
        assert_eq!(
            resolve_target("data:text/html,<p>hi</p>").unwrap(),
            "data:text/html,<p>hi</p>"
        );
    }

    #[test]
    fn bad_urls_are_invalid() {
        for bad in [
            "http://exa mple.com/",
            "http://[::1",
            "http://",
            "",
            "ftp://example.com/x",
        ] {
            assert!(matches!(resolve_target(bad), Err(Error::InvalidUrl { .. })), "{bad:?}");
        }
        let e = resolve_target("localhost:8080").unwrap_err();
        assert!(e.to_string().contains("http://localhost:8080"), "{e}");
    }

    #[test]
    fn paths_become_file_urls() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("page one.html");
        std::fs::write(&f, "<p>x</p>").unwrap();
        let url = resolve_target(f.to_str().unwrap()).unwrap();
        assert!(
            url.starts_with("file:///") && url.ends_with("/page%20one.html"),
            "{url}"
        );
        let missing = dir.path().join("missing.html");
        let e = resolve_target(missing.to_str().unwrap()).unwrap_err();
        assert!(matches!(e, Error::NoSuchFile { .. }));
        assert_eq!(e.to_string(), format!("no such file: {}", missing.display()));
        let e = resolve_target("nope/missing.html").unwrap_err();
        assert_eq!(e.to_string(), "no such file: nope/missing.html");
        let e = resolve_target("example.com").unwrap_err();
        assert!(e.to_string().contains("https://example.com"), "{e}");
        let e = resolve_target(&format!("file://{}", missing.display())).unwrap_err();
        assert!(matches!(e, Error::NoSuchFile { .. }));
    }
}
