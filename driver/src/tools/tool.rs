//! One tool: its name, description, JSON-schema parameters, whether it
//! changes the page, and its handler. The agent, `sightline run` steps,
//! replay and the MCP server all read the same [`Tool`] values.

use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sightline_engine::protocol::Rect;

use super::context::ToolContext;
use crate::ai::ActRecord;
use crate::error::{Error, Result};
use crate::llm::Usage;

/// What a handler returns: a boxed future borrowing the context.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput>> + Send + 'a>>;

/// A tool's handler: validated arguments in, an outcome out. An `Err` is a
/// failure of the page or the browser that the caller reports as an error;
/// a refusal the model should read (a domain it may not visit, no history
/// to go back to) is an `Ok` outcome with `ok: false`.
pub type Handler = for<'a> fn(&'a ToolContext<'a>, Value) -> ToolFuture<'a>;

/// Which interfaces offer a tool (every interface can call any tool it
/// offers; `run` steps can call every tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offered {
    /// The autonomous agent's tool list.
    pub agent: bool,
    /// `sightline mcp`'s `tools/list`.
    pub mcp: bool,
}

impl Offered {
    pub const EVERYWHERE: Offered = Offered { agent: true, mcp: true };
    pub const AGENT_ONLY: Offered = Offered {
        agent: true,
        mcp: false,
    };
    pub const MCP_ONLY: Offered = Offered {
        agent: false,
        mcp: true,
    };
}

/// One tool of the registry.
#[derive(Clone, Copy)]
pub struct Tool {
    /// The registry name (camelCase): what the agent and steps files call.
    pub name: &'static str,
    /// Older names still accepted in calls and saved runs.
    pub aliases: &'static [&'static str],
    /// The MCP name when it is not `browser_` + the name in snake_case
    /// (Playwright MCP's names where it has the tool: `browser_navigate`).
    pub mcp_name: Option<&'static str>,
    pub description: &'static str,
    /// JSON Schema of the arguments (always an object schema).
    pub parameters: fn() -> Value,
    /// The page may change: callers show the page again afterwards, and a
    /// successful call is recorded for replay.
    pub changes_page: bool,
    /// Needs a model: offered only when one is configured.
    pub needs_llm: bool,
    /// Returns an image: offered to an agent only when its model reads images.
    pub returns_image: bool,
    /// Writes a file of the user's (storage state): not read-only, though
    /// the page stays as it is.
    pub writes_files: bool,
    /// Runs on a tab whose renderer crashed: it gives the tab a new document
    /// (goto, reload) or needs nothing of the page (tabs, console messages).
    /// Other tools answer at once that the tab crashed.
    pub runs_on_a_crashed_tab: bool,
    /// Runs while a dialog holds the tab: it answers the dialog, or needs
    /// nothing of the page (tabs, closing them): the way out of a page
    /// that keeps opening dialogs. Other tools are refused until it is
    /// answered.
    pub runs_beside_a_dialog: bool,
    /// Offered only when the user grants this capability (`--caps evaluate`).
    pub capability: Option<&'static str>,
    pub offered: Offered,
    /// How the session command line calls it (`sightline <command> …`).
    pub command: CommandShape,
    pub handler: Handler,
}

/// A tool as a session command: `sightline <name> <positional…> [--flags]`.
/// Every parameter not named positionally is a `--kebab-case` flag.
#[derive(Debug, Clone, Copy)]
pub struct CommandShape {
    /// The command's name; `None`: the tool's name in kebab-case.
    pub name: Option<&'static str>,
    /// Parameters given by position, in order; `"a|b"` takes the value as
    /// `a` when `a`'s schema accepts it, else as `b`. `None`: the required
    /// parameters. When fewer values come than are named, optional
    /// parameters are left out first.
    pub positional: Option<&'static [&'static str]>,
    /// Other commands for the same tool, each with the arguments it always
    /// passes (JSON): `("dblclick", r#"{"doubleClick": true}"#)`.
    pub presets: &'static [(&'static str, &'static str)],
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool that reads the page, offered everywhere; the builders below
    /// say what else it is.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        parameters: fn() -> Value,
        handler: Handler,
    ) -> Tool {
        Tool {
            name,
            aliases: &[],
            mcp_name: None,
            description,
            parameters,
            changes_page: false,
            needs_llm: false,
            returns_image: false,
            writes_files: false,
            runs_on_a_crashed_tab: false,
            runs_beside_a_dialog: false,
            capability: None,
            offered: Offered::EVERYWHERE,
            command: CommandShape {
                name: None,
                positional: None,
                presets: &[],
            },
            handler,
        }
    }

    /// Its session command: a name, and the parameters given by position.
    pub const fn with_command(mut self, name: &'static str, positional: &'static [&'static str]) -> Tool {
        self.command.name = Some(name);
        self.command.positional = Some(positional);
        self
    }

    /// Its parameters given by position in its session command.
    pub const fn with_positional(mut self, positional: &'static [&'static str]) -> Tool {
        self.command.positional = Some(positional);
        self
    }

    /// More session commands for it, each with preset arguments (JSON).
    pub const fn with_presets(mut self, presets: &'static [(&'static str, &'static str)]) -> Tool {
        self.command.presets = presets;
        self
    }

    /// Its session command's name.
    pub fn command_name(&self) -> String {
        if let Some(n) = self.command.name {
            return n.to_string();
        }
        let mut s = String::new();
        for c in self.name.chars() {
            if c.is_ascii_uppercase() {
                s.push('-');
                s.push(c.to_ascii_lowercase());
            } else {
                s.push(c);
            }
        }
        s
    }

    /// It may change the page.
    pub const fn changing_page(mut self) -> Tool {
        self.changes_page = true;
        self
    }

    /// It needs a model.
    pub const fn needing_llm(mut self) -> Tool {
        self.needs_llm = true;
        self
    }

    /// It returns an image.
    pub const fn returning_image(mut self) -> Tool {
        self.returns_image = true;
        self
    }

    /// It writes a file of the user's.
    pub const fn writing_files(mut self) -> Tool {
        self.writes_files = true;
        self
    }

    /// It runs on a tab whose renderer crashed.
    pub const fn running_on_a_crashed_tab(mut self) -> Tool {
        self.runs_on_a_crashed_tab = true;
        self
    }

    /// See [`Tool::runs_beside_a_dialog`].
    pub const fn running_beside_a_dialog(mut self) -> Tool {
        self.runs_beside_a_dialog = true;
        self
    }

    /// Neither the page nor the user's files change: a client may run it
    /// without asking.
    pub fn read_only(&self) -> bool {
        !self.changes_page && !self.writes_files
    }

    /// Older names it still answers to.
    pub const fn with_aliases(mut self, aliases: &'static [&'static str]) -> Tool {
        self.aliases = aliases;
        self
    }

    /// Its MCP name, when not derived from its name.
    pub const fn with_mcp_name(mut self, name: &'static str) -> Tool {
        self.mcp_name = Some(name);
        self
    }

    /// Offered only when the user grants `capability`.
    pub const fn with_capability(mut self, capability: &'static str) -> Tool {
        self.capability = Some(capability);
        self
    }

    /// Which interfaces offer it.
    pub const fn offered_to(mut self, offered: Offered) -> Tool {
        self.offered = offered;
        self
    }

    /// Its name in `sightline mcp`.
    pub fn mcp_name(&self) -> String {
        if let Some(n) = self.mcp_name {
            return n.to_string();
        }
        let mut s = String::from("browser_");
        for c in self.name.chars() {
            if c.is_ascii_uppercase() {
                s.push('_');
                s.push(c.to_ascii_lowercase());
            } else {
                s.push(c);
            }
        }
        s
    }

    /// Whether `name` calls this tool (its name or an alias).
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

/// The end of an agent run, from the `done` tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    pub complete: bool,
    pub message: String,
    pub output: Option<Value>,
}

/// One deterministic step of a saved run: a registry call, and for model
/// tools the actions their choice resolved to (replayed with no model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub args: Value,
    /// What a model tool (act, fillForm) resolved to; arguments keep `%name%`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ActRecord>,
    /// The text around the element its target found, when that target is a
    /// position among siblings (see [`ActRecord::context`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// What a tool did.
#[derive(Debug, Clone, Default)]
pub struct ToolOutput {
    /// The result as text, for a model to read.
    pub text: String,
    /// `false`: the call did not do what was asked (the model is told so).
    pub ok: bool,
    /// A PNG (screenshots).
    pub image_png: Option<Vec<u8>>,
    /// The text is a page tree (callers may drop it from later context).
    pub tree: bool,
    /// The acted-on element's box in viewport CSS pixels (trace reports).
    pub rect: Option<Rect>,
    /// Where a coordinate tool acted, in viewport CSS pixels (trace reports mark it).
    pub point: Option<(f64, f64)>,
    /// How to do it again with no model: set by model tools; other
    /// page-changing tools are recorded as called.
    pub replay: Vec<RecordedCall>,
    /// Model use inside the tool (act's, observe's, extract's calls).
    pub usage: Usage,
    /// Set by `done`: the agent run ends.
    pub finish: Option<Finish>,
    /// The result as data, when it has a shape (extract's data, observe's actions).
    pub data: Option<Value>,
    /// The whole page tree this result shows (a full snapshot): callers
    /// remember it for later `diff` calls.
    pub page_tree: Option<String>,
    /// The call asked for only what changed since the last whole-page tree
    /// the caller showed.
    pub diff: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            ok: true,
            ..Default::default()
        }
    }

    pub fn failed(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            ok: false,
            ..Default::default()
        }
    }
}

/// An object schema with these properties, of which `required` are required.
pub fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

/// The two properties of an element tool: what the element is, in words,
/// and the ref (or selector) that names it.
pub fn element_properties(target_help: &str) -> Value {
    json!({
        "element": {"type": "string", "description": "The element in words (for the record and error messages)."},
        "target": {"type": "string", "description": target_help},
        "frame": {"type": "string", "description": "Only with a selector inside a child frame: the frame's ref prefix (f1) or a selector of its <iframe>."}
    })
}

/// Help text of `target` for element tools.
pub const TARGET_HELP: &str = "The element: a ref from the snapshot (e12, f1e3), or a CSS or XPath selector.";

/// Adds `more` properties to an object of properties.
pub fn with(mut properties: Value, more: Value) -> Value {
    if let (Some(p), Value::Object(m)) = (properties.as_object_mut(), more) {
        p.extend(m);
    }
    properties
}

/// Reads validated arguments into the tool's own type.
pub fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T> {
    serde_json::from_value(args)
        .map_err(|e| Error::InvalidAction(format!("{tool}: {}", crate::error::one_line(&e.to_string()))))
}

/// `Box::pin` for handlers, so each reads `fn handle(ctx, args) -> ToolFuture { boxed(async move { … }) }`.
pub fn boxed<'a>(fut: impl Future<Output = Result<ToolOutput>> + Send + 'a) -> ToolFuture<'a> {
    Box::pin(fut)
}
