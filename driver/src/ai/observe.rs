//! `observe`: one model call over the snapshot returns the elements that fit
//! a request, as ready-to-run actions `{description, method, arguments,
//! selector, frame?}`: `Page::perform` runs them with no further model call.

use serde::Serialize;
use serde_json::Value;
use sightline_engine::protocol::{SnapshotMode, SnapshotResult};

use super::handle::Ai;
use super::prompts;
use super::tree;
use crate::error::{Error, Result};
use crate::llm::{Message, Secrets, Usage};
use crate::page::{Action, Method, Page, SnapshotOptions};

#[derive(Debug, Clone)]
pub struct ObserveOptions {
    /// The whole page (default) or only the viewport.
    pub mode: SnapshotMode,
    /// Values that must not reach the model (a field may show one the
    /// caller typed with `%name%`).
    pub secrets: Secrets,
    /// The most of the page's tree one request shows (characters / 4); a
    /// larger page is read part by part.
    pub token_budget: usize,
}

impl Default for ObserveOptions {
    fn default() -> Self {
        ObserveOptions {
            mode: SnapshotMode::Full,
            secrets: Secrets::default(),
            token_budget: 60_000,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct ObserveResult {
    pub actions: Vec<Action>,
    pub usage: Usage,
    /// Elements the model named that are not on the page, or that the
    /// schema refused (an unknown method): dropped, each by its ref.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
}

/// Turns the model's elements into actions; unknown or obscured refs are
/// returned apart.
fn to_actions(elements: &Value, snapshot: &SnapshotResult) -> (Vec<Action>, Vec<String>) {
    let mut actions = Vec::new();
    let mut bad = Vec::new();
    for e in elements.as_array().map(Vec::as_slice).unwrap_or_default() {
        let id = e["elementId"]
            .as_str()
            .unwrap_or_default()
            .trim()
            .trim_start_matches("ref=");
        let method = e["method"].as_str().unwrap_or("click").to_string();
        let Some(info) = snapshot.refs.get(id).filter(|i| !i.obscured) else {
            bad.push(id.to_string());
            continue;
        };
        let mut arguments: Vec<String> = e["arguments"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        // A drag target given as a ref becomes its selector, so the action
        // stays runnable after the snapshot is gone.
        if Method::parse(&method) == Some(Method::DragAndDrop) {
            if let Some(dest) = arguments.first().and_then(|d| snapshot.refs.get(d)) {
                arguments[0] = dest.selector.clone();
            }
        }
        actions.push(Action {
            method,
            selector: Some(info.selector.clone()),
            ref_: None,
            frame: info.frame.clone(),
            arguments,
            description: Some(e["description"].as_str().unwrap_or_default().to_string()),
        });
    }
    (actions, bad)
}

/// How a dropped element is listed: its ref, or what it says it is.
fn element_named(element: &Value) -> String {
    match element["elementId"].as_str().map(str::trim).filter(|id| !id.is_empty()) {
        Some(id) => id.trim_start_matches("ref=").to_string(),
        None => crate::text::clip(element["description"].as_str().unwrap_or("an element"), 60),
    }
}

impl Ai<'_> {
    /// Finds the elements on `page` that fit `instruction` and how to act on each.
    pub async fn observe(&self, page: &Page, instruction: &str, opts: &ObserveOptions) -> Result<ObserveResult> {
        let instruction = instruction.trim();
        if instruction.is_empty() {
            return Err(Error::InvalidAction("observe needs an instruction".into()));
        }
        let snapshot = page
            .snapshot(&SnapshotOptions {
                mode: opts.mode,
                ..Default::default()
            })
            .await?;
        // A page over the budget is read part by part, and what each part
        // offers is put together (one request of a 3,000-row page was 165 k
        // tokens, past what many models take).
        let parts = tree::parts(&snapshot.tree, opts.token_budget.max(500));
        let mut result = ObserveResult::default();
        for part in &parts {
            let (actions, dropped, usage) = self.observe_part(instruction, &snapshot, part, opts).await?;
            result.usage += usage;
            for a in actions {
                if !result.actions.contains(&a) {
                    result.actions.push(a);
                }
            }
            result.dropped.extend(dropped);
        }
        Ok(result)
    }

    /// The actions one part of the snapshot's tree offers, the refs the
    /// model named that are not on the page, and what that cost.
    async fn observe_part(
        &self,
        instruction: &str,
        snapshot: &SnapshotResult,
        tree_text: &str,
        opts: &ObserveOptions,
    ) -> Result<(Vec<Action>, Vec<String>, Usage)> {
        let llm = self.llm();
        let block = prompts::page_block(snapshot, tree_text);
        let mut messages = vec![Message::user(format!("Request: {instruction}\n{block}"))];
        let system = prompts::observe_system();
        let schema = prompts::observe_schema();
        let secrets = &opts.secrets;
        let mut usage = Usage::default();
        // (An element the schema refuses, an unknown method say, is dropped
        // alone, as an unknown ref is.)
        let (reply, unfit) = llm
            .structured_list(
                &system,
                messages.clone(),
                "observation",
                &schema,
                "observe",
                secrets,
                Some("elements"),
            )
            .await?;
        usage += reply.usage;
        let unfit: Vec<String> = unfit.iter().map(element_named).collect();
        let (mut actions, mut bad) = to_actions(&reply.value["elements"], snapshot);
        if !bad.is_empty() {
            // One feedback round for refs that are not on the page.
            messages.push(Message::assistant(vec![crate::llm::Part::Text(
                reply.value.to_string(),
            )]));
            messages.push(Message::user(format!(
                "These elementIds are not refs in the tree: {}. Answer again using only refs shown as [ref=…].",
                bad.join(", ")
            )));
            let (again, unfit_again) = llm
                .structured_list(
                    &system,
                    messages,
                    "observation",
                    &schema,
                    "observe",
                    secrets,
                    Some("elements"),
                )
                .await?;
            usage += again.usage;
            (actions, bad) = to_actions(&again.value["elements"], snapshot);
            bad.extend(unfit_again.iter().map(element_named));
        } else {
            bad.extend(unfit);
        }
        Ok((actions, bad, usage))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sightline_engine::protocol::{RefInfo, RefMap};

    #[test]
    fn elements_become_runnable_actions() {
        let snapshot = SnapshotResult {
            refs: RefMap(vec![
                (
                    "e1".into(),
                    RefInfo {
                        selector: "#email".into(),
                        ..Default::default()
                    },
                ),
                (
                    "f1e2".into(),
                    RefInfo {
                        selector: "#pay".into(),
                        frame: Some("f1".into()),
                        ..Default::default()
                    },
                ),
            ]),
            ..Default::default()
        };
        let els = json!([
            {"elementId": "e1", "description": "Email", "method": "fill", "arguments": ["a@b.c"]},
            {"elementId": "f1e2", "description": "Pay", "method": "click", "arguments": []},
            {"elementId": "e42", "description": "ghost", "method": "click", "arguments": []}
        ]);
        let (actions, bad) = to_actions(&els, &snapshot);
        assert_eq!(bad, ["e42"]);
        assert_eq!(actions[0].selector.as_deref(), Some("#email"));
        assert_eq!(actions[1].frame.as_deref(), Some("f1"));
        assert!(actions.iter().all(|a| a.validate().is_ok()));
    }
}
