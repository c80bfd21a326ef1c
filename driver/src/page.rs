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
    GetFrameTreeParams, NavigateParams, SetBypassCspParams, StopLoadingParams,
};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, EvaluateParams, ExceptionDetails, ExecutionContextId, ReleaseObjectParams,
};
use chromiumoxide::error::CdpError;
use futures::StreamExt;
use serde_json::Value;
use sightline_engine::protocol::{FrameSnapshot, FrameSnapshotRequest, PROTOCOL_VERSION, WORLD_NAME};

use crate::error::{one_line, Error, NavigationErrorKind, Result};

/// The engine bundle (wasm-bindgen glue, the module bytes and the JS API), built by build.rs.
pub const ENGINE_BUNDLE: &str = include_str!(concat!(env!("OUT_DIR"), "/sightline-engine.bundle.js"));

/// The main-world hook (closed shadow roots, click listeners); runs before page scripts.
pub const MAIN_WORLD_HOOK: &str = include_str!("../../js-glue/main-world-hook.js");

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
struct PageState {
    /// Execution context of the engine's isolated world, per frame id.
    contexts: HashMap<String, ExecutionContextId>,
    /// Stable frame numbers (the `N` of ref prefix `fN`), per frame id.
    frame_numbers: HashMap<String, u32>,
}

/// A browser tab driven by Sightline.
pub struct Page {
    inner: chromiumoxide::Page,
    state: Mutex<PageState>,
    navigation_timeout: Duration,
    /// Set when the tab's renderer crashes (`Inspector.targetCrashed`).
    crashed: Arc<tokio::sync::watch::Sender<bool>>,
    crash_watch: tokio::task::JoinHandle<()>,
}

impl Drop for Page {
    fn drop(&mut self) {
        self.crash_watch.abort();
    }
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page").field("target", self.inner.target_id()).finish()
    }
}

impl Page {
    /// Prepares a fresh tab: CSP bypass, and the main-world hook and the
    /// engine installed for every future document.
    pub(crate) async fn attach(inner: chromiumoxide::Page, navigation_timeout: Duration) -> Result<Page> {
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

        let mut engine = AddScriptToEvaluateOnNewDocumentParams::new(ENGINE_BUNDLE);
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

        Ok(Page {
            inner,
            state: Mutex::new(PageState::default()),
            navigation_timeout,
            crashed,
            crash_watch,
        })
    }

    /// The chromiumoxide page underneath, for raw CDP commands.
    pub fn cdp(&self) -> &chromiumoxide::Page {
        &self.inner
    }

    /// Loads a URL or a local file and waits for the load event plus a light settle.
    ///
    /// Returns the URL that was requested (after resolving local paths).
    pub async fn goto(&self, target: &str) -> Result<String> {
        let url = resolve_target(target)?;
        self.forget_contexts();
        // Navigating a crashed tab gives it a new renderer.
        self.crashed.send_replace(false);
        let nav_err = |kind| Error::Navigation { url: url.clone(), kind };
        let navigate = tokio::time::timeout(
            self.navigation_timeout,
            self.inner.execute(NavigateParams::new(url.clone())),
        );
        let navigated = match self.unless_crashed(navigate).await {
            Ok(n) => n,
            Err(_) => return Err(nav_err(NavigationErrorKind::Crashed)),
        };
        match navigated {
            Err(_) | Ok(Err(CdpError::Timeout)) => {
                self.abandon_navigation().await;
                return Err(nav_err(NavigationErrorKind::Timeout));
            }
            Ok(Err(e)) => return Err(Error::cdp("Page.navigate", e)),
            Ok(Ok(resp)) => {
                if let Some(text) = resp.result.error_text.as_deref().filter(|t| !t.is_empty()) {
                    return Err(nav_err(NavigationErrorKind::from_error_text(text)));
                }
            }
        }
        self.settle().await;
        Ok(url)
    }

    /// Runs `fut` unless the renderer crashes first.
    pub(crate) async fn unless_crashed<T>(&self, fut: impl Future<Output = T>) -> Result<T> {
        let mut crashed = self.crashed.subscribe();
        tokio::select! {
            v = fut => Ok(v),
            _ = crashed.wait_for(|c| *c) => Err(Error::PageCrashed),
        }
    }

    /// Gives up on a navigation that timed out. chromiumoxide keeps watching
    /// it (and queues later navigations behind it) until its own 30 s
    /// deadline; committing a blank document ends that watch at once.
    async fn abandon_navigation(&self) {
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

    /// Waits for two animation frames in the main frame (best effort).
    pub(crate) async fn settle(&self) {
        let result = async {
            let main = self.main_frame_id().await?;
            let ctx = self.world_context(&main).await?;
            self.evaluate_in(&main, ctx, NEXT_FRAMES_JS, true).await
        };
        match tokio::time::timeout(Duration::from_secs(2), result).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::debug!("settle: {e}"),
            Err(_) => tracing::debug!("settle: timed out"),
        }
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

    pub(crate) async fn main_frame_id(&self) -> Result<FrameId> {
        Ok(self.frame_tree().await?.frame.id)
    }

    fn forget_contexts(&self) {
        self.state.lock().unwrap().contexts.clear();
    }

    fn forget_context(&self, frame: &FrameId) {
        self.state.lock().unwrap().contexts.remove(frame.inner());
    }

    /// The `fN` ref prefix of a child frame: a number per frame id, assigned on
    /// first sight and stable for the life of the page.
    pub(crate) fn frame_prefix(&self, frame: &FrameId) -> String {
        let mut state = self.state.lock().unwrap();
        let next = state.frame_numbers.len() as u32 + 1;
        let n = *state.frame_numbers.entry(frame.inner().clone()).or_insert(next);
        format!("f{n}")
    }

    /// Execution context of the engine's isolated world in `frame` (cached).
    pub(crate) async fn world_context(&self, frame: &FrameId) -> Result<ExecutionContextId> {
        if let Some(ctx) = self.state.lock().unwrap().contexts.get(frame.inner()) {
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
        self.state.lock().unwrap().contexts.insert(frame.inner().clone(), ctx);
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
        let mut attempt = 0;
        loop {
            let ctx = self.world_context(frame).await?;
            match self.check_engine(frame, ctx).await {
                Ok(()) => return Ok(ctx),
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
            let script = format!("{ENGINE_BUNDLE}\n;0");
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

    /// Runs the engine's `snapshot` in one frame.
    pub(crate) async fn frame_snapshot(
        &self,
        frame: &FrameId,
        request: &FrameSnapshotRequest,
    ) -> Result<FrameSnapshot> {
        let request_json = serde_json::to_string(request).expect("request serialises");
        // The request travels as a JS string literal; serde_json quoting is valid JS.
        let literal = serde_json::to_string(&request_json).expect("string serialises");
        let expression = format!("globalThis.__sightline.snapshot({literal})");
        let mut attempt = 0;
        let value = loop {
            let ctx = self.ensure_engine(frame).await?;
            match self.evaluate_in(frame, ctx, &expression, false).await {
                Ok(v) => break v,
                Err(e) if e.is_stale_context() && attempt == 0 => {
                    self.forget_context(frame);
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        };
        let Value::String(json) = value else {
            return Err(Error::Engine {
                frame: frame_label(frame),
                message: format!("snapshot returned {} instead of a JSON string", json_type(&value)),
            });
        };
        serde_json::from_str(&json).map_err(|e| Error::Engine {
            frame: frame_label(frame),
            message: format!("unreadable snapshot: {e}"),
        })
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
    pub(crate) async fn scroll_to(&self, y: f64) -> Result<()> {
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
