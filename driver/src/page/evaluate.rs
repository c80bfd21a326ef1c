//! Evaluating script: in the page's own world, or in an isolated world of
//! the user's (neither the page's nor the engine's).

use chromiumoxide::cdp::browser_protocol::dom::ResolveNodeParams;
use chromiumoxide::cdp::browser_protocol::page::{CreateIsolatedWorldParams, FrameId};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallArgument, CallFunctionOnParams, EvaluateParams, ExecutionContextId, ReleaseObjectParams, RemoteObject,
    RemoteObjectId,
};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::bundle::USER_WORLD_NAME;
use super::engine::threw;
use super::handle::Page;
use super::script_value::ScriptValue;
use super::target::{Needs, Target};
use crate::error::{Error, Result};

/// How long a caller's script runs before the page is asked whether it
/// still answers (see [`Page::evaluate`]).
const SCRIPT_WATCH: Duration = Duration::from_secs(8);

/// Where a caller's script runs, as an error names it.
const MAIN_WORLD: &str = "the main world";

impl Page {
    /// Evaluates an expression in the page's own (main) world of the main
    /// frame and returns its JSON value; promises are awaited.
    pub async fn evaluate(&self, expression: &str) -> Result<Value> {
        let asked = Instant::now();
        let value = self
            .unless_stuck(self.evaluate_main_world(expression, false), asked)
            .await;
        Ok(self.said_of_a_script(value, asked).await?.json)
    }

    /// [`Page::evaluate`], with the value also in JavaScript's words where
    /// JSON has none (`undefined`, `NaN`, an element): for a person or a
    /// model to read.
    pub async fn evaluate_script(&self, expression: &str) -> Result<ScriptValue> {
        let asked = Instant::now();
        let value = self
            .unless_stuck(self.evaluate_main_world(expression, true), asked)
            .await;
        self.said_of_a_script(value, asked).await
    }

    /// `script`, unless the page stops answering while it runs: a script in
    /// an endless loop holds the page's one thread, so the page answers
    /// nothing else either. Checked every [`SCRIPT_WATCH`] ([`Page::is_hung`]:
    /// a script busy for some seconds more, or one that waits on a promise
    /// or a timer, runs on).
    async fn unless_stuck<T>(&self, script: impl std::future::Future<Output = Result<T>>, asked: Instant) -> Result<T> {
        tokio::pin!(script);
        loop {
            tokio::select! {
                done = &mut script => return done,
                _ = tokio::time::sleep(SCRIPT_WATCH) => {
                    if self.is_hung().await {
                        return Err(Error::PageNotResponding { after: asked.elapsed() });
                    }
                }
            }
        }
    }

    /// A caller's script that got no answer in time: a page that stopped
    /// answering (an endless loop) is said as such, else the script did not
    /// finish (a promise that never settles), not "the browser did not reply".
    async fn said_of_a_script<T>(&self, value: Result<T>, asked: Instant) -> Result<T> {
        match value {
            Err(e) if e.is_reply_timeout() => {
                let after = asked.elapsed();
                Err(if !self.is_hung().await {
                    Error::Timeout {
                        what: "the script to finish (a promise that never settles?)".into(),
                        after,
                    }
                } else {
                    Error::PageNotResponding { after }
                })
            }
            // What the caller's own code threw is its error, not the engine's.
            Err(Error::Engine { frame, message }) if frame == MAIN_WORLD => Err(Error::ScriptThrew(message)),
            other => other,
        }
    }

    /// `held`: the value is held by the page and read by [`Page::script_value`]
    /// (a by-value copy says `null` for undefined, NaN, 10n), else copied.
    async fn evaluate_main_world(&self, expression: &str, held: bool) -> Result<ScriptValue> {
        let mut attempt = 0;
        loop {
            let mut p = EvaluateParams::new(expression);
            p.await_promise = Some(true);
            p.return_by_value = Some(!held);
            let value = match self.evaluate_object(p, || MAIN_WORLD.into()).await {
                Ok(object) if held => self.script_value(object).await,
                Ok(object) => Ok(ScriptValue {
                    json: object.value.unwrap_or(Value::Null),
                    shown: None,
                }),
                Err(e) => Err(e),
            };
            match value {
                Ok(v) => return Ok(v),
                // (No document to run in yet, mid-navigation: again, as it never ran.)
                Err(e) if e.ran_nowhere() && attempt == 0 => {
                    attempt += 1;
                    self.wait(Duration::from_millis(100)).await?;
                }
                Err(e) => return Err(e.or_navigated_while("the script")),
            }
        }
    }

    /// Evaluates `expression` in the main frame, in an isolated world of its
    /// own (not the page's, not the engine's): page scripts can't see or
    /// tamper with it, and it sees the page's DOM but not its JS globals.
    /// Promises are awaited; the JSON value is returned.
    pub async fn evaluate_isolated(&self, expression: &str) -> Result<Value> {
        let asked = Instant::now();
        self.unless_stuck(self.evaluate_in_user_world(expression), asked).await
    }

    async fn evaluate_in_user_world(&self, expression: &str) -> Result<Value> {
        let main = self.main_frame_id().await?;
        let mut attempt = 0;
        loop {
            let ctx = self.user_context(&main).await?;
            match self.evaluate_in(&main, ctx, expression, true).await {
                Ok(v) => return Ok(v),
                // (A caller's script may change the page: again only where it never ran.)
                Err(e) if e.ran_nowhere() && attempt == 0 => {
                    self.state().user_contexts.remove(main.inner());
                    attempt += 1;
                }
                Err(e) => return Err(e.or_navigated_while("the script")),
            }
        }
    }

    async fn user_context(&self, frame: &FrameId) -> Result<ExecutionContextId> {
        if let Some(ctx) = self.state().user_contexts.get(frame.inner()) {
            return Ok(*ctx);
        }
        let mut p = CreateIsolatedWorldParams::new(frame.clone());
        p.world_name = Some(USER_WORLD_NAME.to_string());
        let resp = self.send(p).await?;
        let ctx = resp.result.execution_context_id;
        self.state().user_contexts.insert(frame.inner().clone(), ctx);
        Ok(ctx)
    }

    /// Evaluates `expression` in the engine's isolated world of every frame
    /// (the main frame first, then the frame tree depth first, then the
    /// frames other processes run) and returns the JSON values. The main
    /// frame must answer; a child frame that cannot host the engine, or
    /// navigated away meanwhile, answers `None`.
    pub async fn evaluate_in_frames(&self, expression: &str) -> Result<Vec<Option<Value>>> {
        let tree = self.frame_tree().await?;
        let mut frames = super::frames::frame_ids(&tree);
        let hosted = self.hosted_frames_now(&tree).await;
        frames.extend(hosted.read);
        // (A frame whose process did not answer may show anything.)
        let mut out = Vec::new();
        for frame in &frames {
            let main = out.is_empty();
            let value = async {
                let ctx = self.ensure_engine(frame).await?;
                self.evaluate_in(frame, ctx, expression, false).await
            }
            .await;
            match value {
                Ok(v) => out.push(Some(v)),
                Err(e) if main => return Err(e),
                Err(_) => out.push(None),
            }
        }
        out.extend(hosted.unread.iter().map(|_| None));
        Ok(out)
    }

    /// Calls `function` (`"(element) => …"`) in the page's own world with
    /// the target's element as its argument; returns its JSON value.
    pub async fn evaluate_on(&self, target: impl Into<Target>, function: &str) -> Result<Value> {
        Ok(self.evaluate_script_on(target, function).await?.json)
    }

    /// [`Page::evaluate_on`], with the value also in JavaScript's words
    /// (see [`ScriptValue`]).
    pub async fn evaluate_script_on(&self, target: impl Into<Target>, function: &str) -> Result<ScriptValue> {
        let target = target.into();
        let ready = self.actionable("evaluate", &target, Needs::ATTACHED).await?;
        if self.host_of(&ready.loc.frame).is_some() {
            return Err(Error::InvalidAction(format!(
                "{} is in a frame of another site, which runs in a process of its own: a function cannot be run \
on its element (nor can the page's own scripts reach into that frame); read it from a snapshot instead",
                target.label()
            )));
        }
        let engine_object = self
            .engine_object(&ready.loc.frame, &ready.loc.engine_target)
            .await?
            .ok_or_else(|| Error::InvalidAction(format!("{} no longer resolves", target.label())))?;
        // The engine's world holds the element; the page's world needs its own handle to it.
        let backend = self
            .describe_and_release(&ready.loc.frame, engine_object)
            .await?
            .backend_node_id;
        let resolved = self
            .send(ResolveNodeParams {
                backend_node_id: Some(backend),
                ..Default::default()
            })
            .await?;
        let object = resolved.result.object.object_id.clone().ok_or_else(|| Error::Engine {
            frame: MAIN_WORLD.into(),
            message: "the element has no handle in the page's world".into(),
        })?;
        let element = CallArgument {
            object_id: Some(object.clone()),
            ..Default::default()
        };
        let asked = Instant::now();
        let value = async {
            let held = self
                .call_on_and_release(object, function, vec![element], false, || MAIN_WORLD.into())
                .await?;
            self.script_value(held).await
        }
        .await
        .map_err(|e| e.or_navigated_while("the function"));
        self.said_of_a_script(value, asked).await
    }

    /// Calls `function` with `this` = `object` (resolved for this call, and
    /// released after it), promises awaited: its JSON value, `None` for
    /// undefined. `world` names where it ran, for a thrown error.
    pub(crate) async fn call_and_release(
        &self,
        object: RemoteObjectId,
        function: &str,
        arguments: Vec<CallArgument>,
        world: impl FnOnce() -> String,
    ) -> Result<Option<Value>> {
        Ok(self
            .call_on_and_release(object, function, arguments, true, world)
            .await?
            .value)
    }

    /// [`Page::call_and_release`]'s call: the result copied (`by_value`), or
    /// held by the page for the caller to read and release.
    async fn call_on_and_release(
        &self,
        object: RemoteObjectId,
        function: &str,
        arguments: Vec<CallArgument>,
        by_value: bool,
        world: impl FnOnce() -> String,
    ) -> Result<RemoteObject> {
        let mut call = CallFunctionOnParams::new(function);
        call.object_id = Some(object.clone());
        call.arguments = Some(arguments);
        call.return_by_value = Some(by_value);
        call.await_promise = Some(true);
        call.silent = Some(true);
        let called = self.send(call).await;
        let _ = self.send(ReleaseObjectParams::new(object)).await;
        let called = called?;
        threw(&called.result.exception_details, world)?;
        Ok(called.result.result.clone())
    }
}
