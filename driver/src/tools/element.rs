//! What the element tools share: `{element, target, frame}` arguments, one
//! way to act (the page's [`Action`] executor, which gives a covered target
//! one removeBlocker run and a retry), one way to report, and how a ref
//! becomes a selector in the replay record.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{RecordedCall, ToolOutput};
use crate::error::Result;
use crate::page::{is_ref, Action, ActionResult};

/// The element an element tool acts on.
#[derive(Debug, Clone, Deserialize)]
pub struct ElementArgs {
    /// The element in words (informational).
    #[serde(default)]
    pub element: Option<String>,
    /// A ref (`e12`, `f1e3`) or a selector.
    pub target: String,
    /// For a selector inside a child frame: its prefix or iframe selector.
    #[serde(default)]
    pub frame: Option<String>,
}

impl ElementArgs {
    /// The page action `method` on this element.
    pub fn action(&self, method: &str, arguments: Vec<String>) -> Action {
        let target = self.target.trim();
        let (ref_, selector) = if is_ref(target) {
            (Some(target.to_string()), None)
        } else {
            (None, Some(target.to_string()))
        };
        Action {
            method: method.to_string(),
            selector,
            ref_,
            frame: self.frame.clone().filter(|f| !f.trim().is_empty()),
            arguments,
            description: self.element.clone(),
        }
    }
}

/// Runs `action` on the current tab.
pub async fn perform(ctx: &ToolContext<'_>, action: &Action) -> Result<ActionResult> {
    ctx.page().perform(action, ctx.settings.base_dir.as_deref()).await
}

/// `Clicked button "Buy" (button#buy) = value (note; note)`.
pub fn report(verb: &str, r: &ActionResult) -> String {
    let mut s = verb.to_string();
    if let Some(e) = &r.element {
        s.push(' ');
        s.push_str(e);
    }
    if let Some(v) = &r.value {
        // (Several options chosen come one per line.)
        s.push_str(&format!(" → {}", v.replace('\n', ", ")));
    }
    if !r.notes.is_empty() {
        s.push_str(&format!(" ({})", r.notes.join("; ")));
    }
    s
}

/// The outcome of an element action, recorded for replay with the ref
/// replaced by the element's selector (refs die with the page).
pub fn outcome(tool: &str, verb: &str, args: &Value, r: ActionResult) -> ToolOutput {
    let mut out = ToolOutput::ok(report(verb, &r));
    out.rect = r.rect;
    let mut recorded = args.clone();
    let mut context = None;
    for key in ["target", "startTarget", "endTarget"] {
        let Some(t) = recorded.get(key).and_then(Value::as_str).map(str::to_string) else {
            continue;
        };
        if is_ref(&t) && key != "endTarget" {
            if let Some(sel) = &r.selector {
                recorded[key] = json!(sel);
                context = r.context.clone();
                if let Some(prefix) = t.split_once('e').map(|(f, _)| f).filter(|f| !f.is_empty()) {
                    recorded["frame"] = json!(prefix);
                }
            }
        }
    }
    out.replay.push(RecordedCall {
        tool: tool.to_string(),
        args: recorded,
        actions: Vec::new(),
        context,
    });
    out
}
