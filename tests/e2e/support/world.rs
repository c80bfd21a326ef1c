//! Helpers for tests that talk to the engine and Chromium directly: raw CDP
//! commands (untyped JSON in and out, so new enum values in Chromium's
//! answers never break deserialisation), and evaluation inside the engine's
//! isolated world of the main frame.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use chromiumoxide::cdp::browser_protocol::page::{CreateIsolatedWorldParams, FrameId, GetFrameTreeParams};
use chromiumoxide::cdp::js_protocol::runtime::{EvaluateParams, ExecutionContextId};
use chromiumoxide::types::{Command, Method, MethodId};
use serde_json::Value;
use sightline::protocol::WORLD_NAME;
use sightline::{Page, ENGINE_BUNDLE};

/// `../shared/corpus/<name>` next to this repository.
pub fn shared_corpus(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name);
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("corpus {} is missing: {e}", dir.display()))
}

/// Chromium switches that make every request to anything but 127.0.0.1 fail
/// fast (the benchmarks use the same).
pub fn offline_args() -> Vec<String> {
    sightline_testkit::offline_switches()
}

/// A CDP command given by name with JSON parameters; answers raw JSON.
#[derive(Debug, Clone)]
pub struct RawCommand {
    pub method: &'static str,
    pub params: Value,
}

impl serde::Serialize for RawCommand {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.params.serialize(s)
    }
}

impl Method for RawCommand {
    fn identifier(&self) -> MethodId {
        Cow::Borrowed(self.method)
    }
}

impl Command for RawCommand {
    type Response = Value;
}

/// Runs a raw CDP command on the page's session.
pub async fn cdp(page: &Page, method: &'static str, params: Value) -> Result<Value, String> {
    page.cdp()
        .execute(RawCommand { method, params })
        .await
        .map(|r| r.result)
        .map_err(|e| format!("{method}: {e}"))
}

/// Id of the page's main frame.
pub async fn main_frame(page: &Page) -> FrameId {
    let tree = page
        .cdp()
        .execute(GetFrameTreeParams::default())
        .await
        .expect("Page.getFrameTree");
    tree.result.frame_tree.frame.id.clone()
}

/// The engine's isolated world in the main frame, with the engine loaded.
pub async fn engine_world(page: &Page) -> ExecutionContextId {
    let frame = main_frame(page).await;
    let mut p = CreateIsolatedWorldParams::new(frame);
    p.world_name = Some(WORLD_NAME.to_string());
    let ctx = page
        .cdp()
        .execute(p)
        .await
        .expect("Page.createIsolatedWorld")
        .result
        .execution_context_id;
    let loaded = eval(page, ctx, "typeof globalThis.__sightline !== 'undefined'")
        .await
        .expect("probe the engine");
    if loaded != Value::Bool(true) {
        eval(page, ctx, &format!("{ENGINE_BUNDLE}\n;0"))
            .await
            .expect("load the engine bundle");
    }
    ctx
}

/// Evaluates `expression` in context `ctx`; its JSON value (promises awaited).
pub async fn eval(page: &Page, ctx: ExecutionContextId, expression: &str) -> Result<Value, String> {
    let mut p = EvaluateParams::new(expression);
    p.context_id = Some(ctx);
    p.return_by_value = Some(true);
    p.await_promise = Some(true);
    let resp = page
        .cdp()
        .execute(p)
        .await
        .map_err(|e| format!("Runtime.evaluate: {e}"))?;
    if let Some(ex) = &resp.result.exception_details {
        let text = ex
            .exception
            .as_ref()
            .and_then(|e| e.description.clone())
            .unwrap_or_else(|| ex.text.clone());
        return Err(format!("exception: {}", text.lines().next().unwrap_or("")));
    }
    Ok(resp.result.result.value.clone().unwrap_or(Value::Null))
}

/// Evaluates `expression` in context `ctx` and keeps the result in the page:
/// its remote object id (None for primitives).
pub async fn eval_remote(page: &Page, ctx: ExecutionContextId, expression: &str) -> Result<Option<String>, String> {
    let params = serde_json::json!({
        "expression": expression,
        "contextId": ctx.inner(),
        "returnByValue": false,
        "silent": true,
    });
    let resp = cdp(page, "Runtime.evaluate", params).await?;
    if let Some(ex) = resp.get("exceptionDetails") {
        return Err(format!("exception: {ex}"));
    }
    Ok(resp["result"]["objectId"].as_str().map(str::to_string))
}

/// Collapses runs of whitespace (as `is_ws` defines it) to one space and trims.
pub fn collapse_ws(s: &str, is_ws: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split(is_ws).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// HTML's ASCII whitespace (what WPT's accname tests normalise): tab, LF, FF, CR, space.
pub fn is_ascii_ws(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ')
}

/// Shortens `s` to `n` characters for messages.
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        format!("{}…", s.chars().take(n).collect::<String>())
    } else {
        s.to_string()
    }
}
