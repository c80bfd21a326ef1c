//! The engine in each frame: its isolated world ([`WORLD_NAME`]), loading
//! it where a document predates the injection, checking its protocol
//! version, and evaluating engine calls.

use std::collections::HashMap;

use chromiumoxide::cdp::browser_protocol::dom::{GetFrameOwnerParams, ResolveNodeParams};
use chromiumoxide::cdp::browser_protocol::page::{CreateIsolatedWorldParams, FrameId};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallFunctionOnParams, EvaluateParams, ExceptionDetails, ExecutionContextId, ReleaseObjectParams, RemoteObject,
    RemoteObjectId,
};
use serde_json::Value;
use sightline_engine::protocol::{FrameSnapshot, FrameSnapshotRequest, PROTOCOL_VERSION, WORLD_NAME};

use super::bundle::ISOLATED_ENGINE;
use super::handle::Page;
use super::state::{FrameRefs, RefFacts};
use crate::error::{one_line, Error, Result};

/// Text of a JS exception, on one line.
pub(crate) fn exception_text(ex: &ExceptionDetails) -> String {
    let described = ex
        .exception
        .as_ref()
        .and_then(|e| e.description.as_deref().or(e.value.as_ref().and_then(Value::as_str)))
        .and_then(|d| d.lines().next())
        .map(str::to_string);
    one_line(&described.unwrap_or_else(|| ex.text.clone()))
}

/// `Err(Error::Engine)` naming `frame` when the script threw.
pub(crate) fn threw(details: &Option<ExceptionDetails>, frame: impl FnOnce() -> String) -> Result<()> {
    match details {
        Some(ex) => Err(Error::Engine {
            frame: frame(),
            message: exception_text(ex),
        }),
        None => Ok(()),
    }
}

impl Page {
    /// Execution context of the engine's isolated world in `frame` (cached,
    /// but for a frame another process runs: no event of its session says
    /// when its document goes, and a new process numbers its contexts
    /// afresh, so a kept number could name another world. Asking again is
    /// one round trip; the browser gives the world it made before.)
    pub(crate) async fn world_context(&self, frame: &FrameId) -> Result<ExecutionContextId> {
        let hosted = self.host_of(frame).is_some();
        if let Some(ctx) = self.state().contexts.get(frame.inner()).filter(|_| !hosted) {
            return Ok(*ctx);
        }
        let mut p = CreateIsolatedWorldParams::new(frame.clone());
        p.world_name = Some(WORLD_NAME.to_string());
        let ctx = self.send_for(frame, p).await?.execution_context_id;
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
        let resp = self.send_for(frame, p).await?;
        threw(&resp.exception_details, || frame_label(frame))?;
        Ok(resp.result.value.unwrap_or(Value::Null))
    }

    /// Runs `Runtime.evaluate` and returns its result as the page gave it
    /// (copied or held, as `p` asks), or what it threw.
    pub(crate) async fn evaluate_object(
        &self,
        p: EvaluateParams,
        frame: impl FnOnce() -> String,
    ) -> Result<RemoteObject> {
        let resp = self.send(p).await?;
        threw(&resp.result.exception_details, frame)?;
        Ok(resp.result.result.clone())
    }

    /// Makes sure the engine is loaded and speaks our protocol in `frame`;
    /// returns its execution context.
    pub(crate) async fn ensure_engine(&self, frame: &FrameId) -> Result<ExecutionContextId> {
        let hosted = self.host_of(frame).is_some();
        if let Some(ctx) = self.state().engine_ready.get(frame.inner()).filter(|_| !hosted) {
            return Ok(*ctx);
        }
        let mut attempt = 0;
        loop {
            // (Another process's frame is checked on each call: a new
            // process may give its new world the number the old one had.)
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

    /// Evaluates `expression`, which reads the page, in the engine's world
    /// of `frame` (loading the engine first if needed), following a document
    /// replaced under it a few times. A crashed renderer fails it at once:
    /// it would never answer, and the caller would wait out CDP's timeout.
    pub(crate) async fn engine_eval(&self, frame: &FrameId, expression: &str, await_promise: bool) -> Result<Value> {
        self.engine_eval_as(frame, expression, await_promise, Effect::Read)
            .await
    }

    /// [`Page::engine_eval`] of an expression that changes the page (a DOM
    /// action): tried again only when it cannot have run, so a document
    /// replaced while it ran (the action may be why) never gets it twice.
    pub(crate) async fn engine_act(&self, frame: &FrameId, expression: &str, await_promise: bool) -> Result<Value> {
        self.engine_eval_as(frame, expression, await_promise, Effect::Act).await
    }

    async fn engine_eval_as(
        &self,
        frame: &FrameId,
        expression: &str,
        await_promise: bool,
        effect: Effect,
    ) -> Result<Value> {
        if self.is_crashed() {
            return Err(Error::PageCrashed);
        }
        self.unless_crashed(self.engine_eval_following(frame, expression, await_promise, effect))
            .await?
    }

    /// One evaluation, following a replaced document as `effect` allows.
    async fn engine_eval_following(
        &self,
        frame: &FrameId,
        expression: &str,
        await_promise: bool,
        effect: Effect,
    ) -> Result<Value> {
        let mut attempt = 0;
        loop {
            let outcome = match self.ensure_engine(frame).await {
                Ok(ctx) => self.evaluate_in(frame, ctx, expression, await_promise).await,
                Err(e) => Err(e),
            };
            let again = |e: &Error| effect == Effect::Read || e.ran_nowhere();
            match outcome {
                Ok(v) => return Ok(v),
                // A frame that is gone stays gone: one look again, as ever.
                Err(e) if e.is_frame_gone() && attempt > 0 => return Err(e),
                // A document replaced under the call (a navigation, a reload):
                // the next one is read instead, a few times over.
                Err(e) if e.is_stale_context() && again(&e) && attempt < STALE_RETRIES => {
                    self.forget_context(frame);
                    attempt += 1;
                }
                // A page that keeps replacing its document (a fast meta
                // refresh, a redirect loop): said as such, not as CDP's words.
                Err(e) if e.is_stale_context() && effect == Effect::Read => return Err(Error::DocumentKeptChanging),
                Err(e) if effect == Effect::Act => return Err(e.or_navigated_while("the action")),
                Err(e) => return Err(e),
            }
        }
    }
}

/// What an engine evaluation does to the page.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Reads it: safe to run again in the document that replaced it.
    Read,
    /// Changes it: run again only where it cannot have run.
    Act,
}

/// How often an engine call follows a document replaced under it.
const STALE_RETRIES: u32 = 3;

impl Page {
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
        let snapshot: FrameSnapshot = serde_json::from_str(&json).map_err(|e| Error::Engine {
            frame: frame_label(frame),
            message: format!("unreadable snapshot: {e}"),
        })?;
        if let Some(origin) = origin {
            let mut state = self.state();
            let refs = state.frame_refs.entry(frame.inner().clone()).or_default();
            if refs.document != origin {
                *refs = FrameRefs {
                    document: origin,
                    refs: HashMap::new(),
                };
            }
            // Under the frame's own ref (`e1` of `f1e1`): the engine's target
            // an action looks its label up by.
            for (r, info) in &snapshot.refs.0 {
                let local = r.find('e').map_or(r.as_str(), |i| &r[i..]);
                refs.refs.insert(
                    local.to_string(),
                    RefFacts {
                        label: ref_label(info),
                        role: info.role.clone(),
                        name: info.name.clone(),
                        selector: info.selector.clone(),
                    },
                );
            }
        }
        Ok(snapshot)
    }

    /// The iframe element that owns `child`, as an object in the world
    /// `parent_ctx` of its parent (`None`: it has none there). It is in the
    /// parent's document, in the process that runs the parent.
    pub(crate) async fn owner_object(
        &self,
        parent: &FrameId,
        parent_ctx: ExecutionContextId,
        child: &FrameId,
    ) -> Result<Option<RemoteObjectId>> {
        let owner = self.send_for(parent, GetFrameOwnerParams::new(child.clone())).await?;
        let resolve = ResolveNodeParams {
            backend_node_id: Some(owner.backend_node_id),
            execution_context_id: Some(parent_ctx),
            ..Default::default()
        };
        Ok(self.send_for(parent, resolve).await?.object.object_id)
    }

    /// The engine's `FrameSlot.key` of the iframe element that owns `child`,
    /// asked of the engine in the parent frame (context `parent_ctx`).
    pub(crate) async fn frame_key(
        &self,
        parent: &FrameId,
        parent_ctx: ExecutionContextId,
        child: &FrameId,
    ) -> Result<Option<String>> {
        let Some(object_id) = self.owner_object(parent, parent_ctx, child).await? else {
            return Ok(None);
        };
        let mut call = CallFunctionOnParams::new("function () { return globalThis.__sightline.frameKeyOf(this); }");
        call.object_id = Some(object_id.clone());
        call.return_by_value = Some(true);
        call.silent = Some(true);
        let called = self.send_for(parent, call).await;
        // Best effort: the wrapper would otherwise live as long as the document.
        let _ = self.send_for(parent, ReleaseObjectParams::new(object_id)).await;
        let called = called?;
        threw(&called.exception_details, || frame_label(parent))?;
        Ok(called.result.value.as_ref().and_then(Value::as_str).map(str::to_string))
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

/// A ref as its snapshot line shows it: `role "name"` (a long name cut).
fn ref_label(info: &sightline_engine::protocol::RefInfo) -> String {
    if info.name.is_empty() {
        return info.role.clone();
    }
    format!("{} \"{}\"", info.role, crate::text::clip(&info.name, 60))
}
