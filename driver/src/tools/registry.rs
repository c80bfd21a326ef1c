//! The registry: every tool, one line each. The agent's tool list, `run`
//! steps, replay and `sightline mcp` all come from here; adding a tool is
//! one file in this folder and one line in [`Registry::standard`].

use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{RecordedCall, Tool, ToolOutput};
use super::{
    act, back, check, click, click_at, close, console_messages, done, drag, drag_at, evaluate, extract, fill,
    fill_form, forward, goto, handle_dialog, hover, hover_at, key_hold, mouse_button, network_requests, observe,
    page_text, press, reload, remove_blocker, resize, screenshot, scroll, scroll_at, select, snapshot, storage_state,
    tabs, think, type_at, type_text, upload, wait,
};
use crate::error::{Error, NavigationErrorKind, Result};
use crate::llm::{schema, ToolSpec};

/// A set of tools, in the order they are offered.
#[derive(Debug, Clone)]
pub struct Registry {
    tools: Vec<Tool>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::standard()
    }
}

impl Registry {
    /// Every Sightline tool.
    pub fn standard() -> Registry {
        Registry {
            tools: vec![
                act::TOOL,
                click::TOOL,
                fill::TOOL,
                type_text::TOOL,
                press::TOOL,
                select::TOOL,
                check::TOOL,
                hover::TOOL,
                drag::TOOL,
                upload::TOOL,
                fill_form::TOOL,
                goto::TOOL,
                back::TOOL,
                forward::TOOL,
                reload::TOOL,
                scroll::TOOL,
                wait::TOOL,
                snapshot::TOOL,
                page_text::TOOL,
                screenshot::TOOL,
                remove_blocker::TOOL,
                handle_dialog::TOOL,
                tabs::TOOL,
                resize::TOOL,
                console_messages::TOOL,
                network_requests::TOOL,
                storage_state::TOOL,
                evaluate::TOOL,
                close::TOOL,
                click_at::TOOL,
                type_at::TOOL,
                drag_at::TOOL,
                hover_at::TOOL,
                scroll_at::TOOL,
                mouse_button::DOWN,
                mouse_button::UP,
                key_hold::DOWN,
                key_hold::UP,
                observe::TOOL,
                extract::TOOL,
                think::TOOL,
                done::TOOL,
            ],
        }
    }

    /// This registry plus `tool` (replacing a tool of the same name).
    pub fn with(mut self, tool: Tool) -> Registry {
        self.tools.retain(|t| t.name != tool.name);
        self.tools.push(tool);
        self
    }

    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name` (or one of its older names).
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.answers_to(name))
    }

    /// The tool whose MCP name is `name`.
    pub fn get_mcp(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.mcp_name() == name)
    }

    /// What an agent is offered: its tools, the model ones only with a
    /// model (an agent always has one), images only for models that read them.
    pub fn for_agent(&self, reads_images: bool) -> Vec<&Tool> {
        self.for_agent_with(reads_images, &[])
    }

    /// [`Registry::for_agent`] plus the tools of `capabilities` (a hybrid
    /// agent gets the coordinate tools of [`VISION`](super::VISION)).
    pub fn for_agent_with(&self, reads_images: bool, capabilities: &[&str]) -> Vec<&Tool> {
        self.tools
            .iter()
            .filter(|t| t.offered.agent && (reads_images || !t.returns_image))
            .filter(|t| t.capability.is_none_or(|c| capabilities.contains(&c)))
            .collect()
    }

    /// What `sightline mcp` lists: its tools, the model ones only with a
    /// model, opt-in ones only when their capability is granted.
    pub fn for_mcp(&self, has_llm: bool, capabilities: &[String]) -> Vec<&Tool> {
        self.tools
            .iter()
            .filter(|t| t.offered.mcp && (has_llm || !t.needs_llm))
            .filter(|t| t.capability.is_none_or(|c| capabilities.iter().any(|g| g == c)))
            .collect()
    }

    /// Validates `args` against the tool's schema and runs it. A successful
    /// page-changing call without a record of its own is recorded as called.
    pub async fn call(&self, ctx: &ToolContext<'_>, name: &str, args: Value) -> Result<ToolOutput> {
        let tool = self.get(name).ok_or_else(|| {
            Error::InvalidAction(format!(
                "there is no tool {name:?}; use one of {}",
                self.tools.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
            ))
        })?;
        let args = validate(tool, args)?;
        if tool.needs_llm {
            ctx.llm(tool.name)?;
        }
        let mark = ctx.page().refusal_mark();
        let mut out = match (tool.handler)(ctx, args.clone()).await {
            Ok(out) => out,
            // A navigation that failed as its request was refused (a
            // redirect to a site outside the policy): said as refused.
            Err(Error::Navigation { url, .. }) if !ctx.page().refusals_since(mark).is_empty() => {
                let why = ctx.page().unsaid_refusals().pop().map(|r| r.why).unwrap_or_default();
                return Err(Error::Navigation {
                    url,
                    kind: NavigationErrorKind::Blocked(why),
                });
            }
            Err(e) => return Err(e),
        };
        // What the origin policy refused, which no page shows, and no call
        // said yet: a link's or a form's navigation (the tab stays), a new
        // tab's first document (maybe after the call that opened it), a
        // download.
        // (Frames of other sites, ads and embeds, are counted, not listed.)
        let (frames, own): (Vec<_>, Vec<_>) = ctx.page().unsaid_refusals().into_iter().partition(|r| r.frame);
        for r in own {
            let closed = if r.closed_tab {
                " The new tab it was for was closed."
            } else {
                ""
            };
            out.text
                .push_str(&format!("\nRefused before it was sent: {}.{closed}", r.why));
        }
        if let Some(first) = frames.first() {
            out.text.push_str(&format!(
                "\nRefused before it was sent: {} frame document(s) of sites outside the policy ({}).",
                frames.len(),
                crate::text::shown_url(&first.url)
            ));
        }
        if out.ok && tool.changes_page && !tool.needs_llm && out.replay.is_empty() {
            out.replay.push(RecordedCall {
                tool: tool.name.to_string(),
                args,
                actions: Vec::new(),
                context: None,
            });
        }
        Ok(out)
    }
}

/// `args` checked against the tool's schema (`null`, which models send for
/// tools without parameters, reads as `{}`).
pub fn validate(tool: &Tool, args: Value) -> Result<Value> {
    let args = match args {
        Value::Null => json!({}),
        // Arguments the model wrote as text that is not JSON (cut off, or
        // junk) come as that text: said so, not as a type mismatch. A JSON
        // object written twice over (a string of it) is read.
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => Value::String(text),
            Err(e) => {
                return Err(Error::InvalidAction(format!(
                    "invalid arguments for {}: they are not valid JSON ({e}): {}",
                    tool.name,
                    crate::text::clip(&text, 120)
                )))
            }
        },
        other => other,
    };
    schema::validate(&(tool.parameters)(), &args)
        .map_err(|e| Error::InvalidAction(format!("invalid arguments for {}: {e}", tool.name)))?;
    Ok(args)
}

/// Tools as a model is offered them.
pub fn specs(tools: &[&Tool]) -> Vec<ToolSpec> {
    tools
        .iter()
        .map(|t| ToolSpec::new(t.name, t.description, (t.parameters)()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Handler;

    #[test]
    fn every_entry_is_complete_and_unique() {
        let r = Registry::standard();
        let mut names = std::collections::HashSet::new();
        let mut mcp = std::collections::HashSet::new();
        for t in r.tools() {
            assert!(!t.description.trim().is_empty(), "{}: description", t.name);
            let p = (t.parameters)();
            assert_eq!(p["type"], "object", "{}: an object schema", t.name);
            schema::check_schema(&p).unwrap_or_else(|e| panic!("{}: {e}", t.name));
            // The handler is a fn pointer: it exists by construction; a call
            // with bad arguments is refused before it runs.
            let _: Handler = t.handler;
            assert!(names.insert(t.name), "duplicate name {}", t.name);
            for a in t.aliases {
                assert!(names.insert(a), "alias {a} of {} is taken", t.name);
            }
            assert!(mcp.insert(t.mcp_name()), "duplicate MCP name {}", t.mcp_name());
        }
        for wanted in [
            "click",
            "fill",
            "type",
            "press",
            "select",
            "hover",
            "drag",
            "upload",
            "check",
            "goto",
            "back",
            "scroll",
            "wait",
            "snapshot",
            "screenshot",
            "removeBlocker",
            "act",
            "observe",
            "extract",
            "fillForm",
            "think",
            "done",
        ] {
            assert!(r.get(wanted).is_some(), "{wanted} is registered");
        }
        assert_eq!(r.get("navback").unwrap().name, "back");
        assert_eq!(r.get("ariaTree").unwrap().name, "snapshot");
        assert_eq!(r.get("goto").unwrap().mcp_name(), "browser_navigate");
        assert_eq!(r.get("removeBlocker").unwrap().mcp_name(), "browser_remove_blocker");
        assert_eq!(r.get("fillForm").unwrap().mcp_name(), "browser_fill_form");
    }

    #[test]
    fn arguments_that_are_not_json_are_said_so() {
        let r = Registry::standard();
        let click = r.get("click").unwrap();
        let cut = validate(click, json!("{\"target\": \"e1\"")).unwrap_err().to_string();
        assert!(
            cut.contains("invalid arguments for click: they are not valid JSON (EOF while parsing"),
            "{cut}"
        );
        assert_eq!(
            validate(click, json!("{\"target\": \"e1\"}")).unwrap(),
            json!({"target": "e1"}),
            "an object written as a string is read"
        );
    }

    #[test]
    fn offers_follow_the_flags() {
        let r = Registry::standard();
        let agent: Vec<&str> = r.for_agent(false).iter().map(|t| t.name).collect();
        assert!(agent.contains(&"done") && agent.contains(&"act") && !agent.contains(&"screenshot"));
        assert!(r.for_agent(true).iter().any(|t| t.name == "screenshot"));
        let mcp: Vec<&str> = r.for_mcp(false, &[]).iter().map(|t| t.name).collect();
        assert!(!mcp.contains(&"act") && !mcp.contains(&"done") && mcp.contains(&"click"));
        assert!(!mcp.contains(&"evaluate"), "evaluate is opt-in");
        assert!(r.for_mcp(true, &[]).iter().any(|t| t.name == "act"));
        assert!(r
            .for_mcp(false, &["evaluate".into()])
            .iter()
            .any(|t| t.name == "evaluate"));
        // Coordinate tools: hybrid agents and `--caps vision` only.
        assert!(!agent.contains(&"clickAt"));
        let hybrid: Vec<&str> = r
            .for_agent_with(true, &[super::super::VISION])
            .iter()
            .map(|t| t.name)
            .collect();
        for t in ["clickAt", "typeAt", "dragAt", "hoverAt", "scrollAt", "click", "done"] {
            assert!(hybrid.contains(&t), "{t}");
        }
        assert!(!hybrid.contains(&"evaluate"));
        // What stays held between calls: MCP's and computer use's, not an agent's.
        assert!(!hybrid.contains(&"mouseDown") && !hybrid.contains(&"keyDown"));
        assert!(r
            .for_mcp(false, &["vision".into()])
            .iter()
            .any(|t| t.mcp_name() == "browser_mouse_down"));
        assert!(r
            .for_mcp(false, &["vision".into()])
            .iter()
            .any(|t| t.mcp_name() == "browser_mouse_click_xy"));
        // Read-only: neither the page nor a file of the user's changes.
        let read_only = |name: &str| r.get(name).unwrap().read_only();
        assert!(read_only("snapshot") && read_only("consoleMessages"));
        assert!(!read_only("click") && !read_only("storageState"));
        // On a crashed tab: what gives it a new document, or needs nothing of the page.
        let on_crashed = |name: &str| r.get(name).unwrap().runs_on_a_crashed_tab;
        assert!(["goto", "reload", "back", "tabs", "consoleMessages"]
            .iter()
            .all(|t| on_crashed(t)));
        assert!(!["click", "snapshot", "evaluate", "screenshot"]
            .iter()
            .any(|t| on_crashed(t)));
    }

    #[test]
    fn arguments_are_validated() {
        let r = Registry::standard();
        let tool = |n: &str| r.get(n).unwrap();
        assert!(validate(tool("act"), json!({}))
            .unwrap_err()
            .to_string()
            .contains("action"));
        assert!(validate(tool("scroll"), json!({"direction": "sideways"})).is_err());
        assert!(validate(tool("wait"), json!({"ms": 99999})).is_err());
        assert_eq!(validate(tool("back"), Value::Null).unwrap(), json!({}));
        assert!(validate(tool("fillForm"), json!({"fields": []})).is_err());
        assert!(validate(tool("click"), json!({"target": "e1", "extra": 1})).is_err());
    }
}
