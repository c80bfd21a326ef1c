//! `evaluate` (opt-in: `--caps evaluate`): runs a JavaScript function in
//! the page's own world, on the page or on one element, and returns its
//! JSON value. Off by default: page script can do anything a user could.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use super::untrusted::{defang, CLOSE_TAG, OPEN_TAG};
use crate::page::Target;

pub const TOOL: Tool = Tool::new(
    "evaluate",
    "Evaluate a JavaScript function on the page, or on an element: \"() => document.title\", \
\"(element) => element.textContent\".",
    parameters,
    handle,
)
.changing_page()
.with_capability("evaluate")
.with_command("eval", &["function"])
.offered_to(Offered::MCP_ONLY);

fn parameters() -> Value {
    object(
        json!({
            "function": {"type": "string", "description": "() => { /* code */ } (or a plain expression), or (element) => { /* code */ } with a target."},
            "target": {"type": "string", "description": "The element: a ref from the snapshot or a selector."},
            "element": {"type": "string", "description": "That element in words."}
        }),
        &["function"],
    )
}

#[derive(Deserialize)]
struct Args {
    function: String,
    #[serde(default)]
    target: Option<String>,
}

/// The code to run for `function`: a function is called; an expression
/// (`document.title`, as typed at a command line) is evaluated as it is.
fn page_call(function: &str) -> String {
    let code = function.trim();
    let head = code.split("=>").next().unwrap_or("").trim();
    let arrow = code.contains("=>")
        && (head.starts_with('(') || head.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$'));
    if arrow || code.starts_with("function") || code.starts_with("async") {
        format!("({code})()")
    } else {
        code.to_string()
    }
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("evaluate", args)?;
        let page = ctx.page();
        let value = match a.target.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(t) => page.evaluate_on(Target::parse(t), &a.function).await?,
            None => page.evaluate(&page_call(&a.function)).await?,
        };
        let text = serde_json::to_string_pretty(&value).expect("JSON serialises");
        let mut out = ToolOutput::ok(format!("{OPEN_TAG}\n{}\n{CLOSE_TAG}", defang(&text)));
        out.data = Some(value);
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn functions_are_called_and_expressions_evaluated() {
        use super::page_call;
        assert_eq!(page_call("() => document.title"), "(() => document.title)()");
        assert_eq!(page_call("async () => 1"), "(async () => 1)()");
        assert_eq!(page_call("function () { return 2 }"), "(function () { return 2 })()");
        assert_eq!(page_call("x => x"), "(x => x)()");
        assert_eq!(page_call("document.title"), "document.title");
        assert_eq!(page_call("[1, 2].map((x) => x * 2)"), "[1, 2].map((x) => x * 2)");
    }
}
