//! `type`: text into an element (or whatever has focus). Into an element
//! it replaces the value, as Playwright MCP's `browser_type` does, unless
//! `slowly` asks for key-by-key typing that keeps what is there (for pages
//! that react to each key); `submit` presses Enter afterwards.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::element::{self, ElementArgs};
use super::tool::{boxed, object, parse, Tool, ToolFuture, ToolOutput};

pub const TOOL: Tool = Tool::new(
    "type",
    "Type text into an element (its ref or selector), replacing its text, or into the focused element when \
no target is given. %name% variables are filled in here, never shown. submit presses Enter afterwards; slowly types \
key by key after the current text.",
    parameters,
    handle,
)
.changing_page()
.with_positional(&["target", "text"]);

fn parameters() -> Value {
    object(
        json!({
            "element": {"type": "string", "description": "The element in words (for the record and error messages)."},
            "target": {"type": "string", "description": "The element: a ref from the snapshot or a selector. Default: the focused element."},
            "frame": {"type": "string", "description": "Only with a selector inside a child frame: its ref prefix (f1) or a selector of its <iframe>."},
            "text": {"type": "string", "description": "The text, or a %name% variable."},
            "submit": {"type": "boolean", "description": "Press Enter afterwards (default false)."},
            "slowly": {"type": "boolean", "description": "Type one key at a time after the current text (default false)."}
        }),
        &["text"],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    element: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    frame: Option<String>,
    text: String,
    #[serde(default)]
    submit: bool,
    #[serde(default)]
    slowly: bool,
}

/// What has focus, described in a few words (`<input name="q">`), through
/// shadow roots; "" when nothing does (the body or the document itself).
const FOCUSED_JS: &str = r#"(() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  const editable = a && (a.isContentEditable || document.designMode === "on");
  if (!a || ((a === document.body || a === document.documentElement) && !editable)) return "";
  const tag = a.tagName.toLowerCase();
  const said = ["aria-label", "name", "id", "placeholder"].map(k => [k, a.getAttribute(k)]).find(([, v]) => v);
  return said ? `<${tag} ${said[0]}="${said[1].slice(0, 40)}">` : `<${tag}>`;
})()"#;

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("type", args.clone())?;
        let el = a
            .target
            .clone()
            .filter(|t| !t.trim().is_empty())
            .map(|target| ElementArgs {
                element: a.element.clone(),
                target,
                frame: a.frame.clone(),
            });
        let method = if a.slowly { "type" } else { "fill" };
        let at = el.as_ref().and_then(|el| el.action(method, Vec::new()).target());
        let text = ctx.substitute(&a.text, at.as_ref()).await?;
        let shown = format!("{} characters", a.text.chars().count());
        let Some(el) = el else {
            let page = ctx.page();
            // Keys with nothing focused go to the page (a game, a shortcut):
            // typed all the same, but the result must not claim a field took them.
            let focused = page
                .evaluate_isolated(FOCUSED_JS)
                .await
                .unwrap_or_else(|_| Value::String("element".into()));
            page.type_text(&text).await?;
            if a.submit {
                page.press(None, &["Enter".to_string()]).await?;
            }
            let then = if a.submit { ", then Enter" } else { "" };
            return Ok(ToolOutput::ok(match focused.as_str() {
                Some("") => format!(
                    "Typed {shown}{then} with nothing focused: the keys went to the page, no field took them. \
To type into a field, name it: its ref or a selector as the target."
                ),
                // (The page's words, on one line and unable to close a fence.)
                what => format!(
                    "Typed {shown} into the focused {}{then}",
                    super::untrusted::defang(&crate::text::one_line(what.unwrap_or("element")))
                ),
            }));
        };
        let substituted = text != a.text;
        let mut r = element::perform(ctx, &el.action(method, vec![text])).await?;
        let cut_short = r.typed_chars.take();
        let shown = match cut_short {
            // (Counts of a text with a variable's value would tell its length.)
            Some(_) if substituted => "only part of the text".to_string(),
            Some(typed) => format!("only {typed} of {shown}"),
            None => shown,
        };
        // (Not on the page the typing led to.)
        let submit = a.submit && cut_short.is_none();
        if submit {
            let enter = element::perform(ctx, &el.action("press", vec!["Enter".into()])).await?;
            r.notes.extend(enter.notes);
        }
        // Said as it is: without `slowly` the text replaced what the field held.
        let how = if a.slowly { "into" } else { "replacing the text of" };
        let verb = format!("Typed {shown}{} {how}", if submit { " and Enter" } else { "" });
        let mut out = element::outcome("type", &verb, &args, r);
        // Not what was asked: the model must see it as a failure.
        out.ok = cut_short.is_none();
        Ok(out)
    })
}
