//! `evaluate` (opt-in: `--caps evaluate`): runs a JavaScript function in
//! the page's own world, on the page or on one element, and returns its
//! JSON value. Off by default: page script can do anything a user could.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use super::untrusted::{defang, CLOSE_TAG, OPEN_TAG};
use crate::page::{ActionResult, Target};

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
/// (`document.title`, as typed at a command line, or an IIFE) is evaluated
/// as it is.
fn page_call(function: &str) -> String {
    let code = function.trim();
    if is_function(code) {
        format!("({code})()")
    } else {
        code.to_string()
    }
}

/// Whether `code` as a whole is a function: `function …`, `async …`, or an
/// arrow whose head is one parameter name or one parenthesised list
/// (`(() => 1)()` is a call, not a function: its head `(()` is unbalanced).
fn is_function(code: &str) -> bool {
    let word = |rest: &str| rest.starts_with(|c: char| c.is_whitespace() || c == '(' || c == '*');
    if let Some(rest) = code.strip_prefix("function").or_else(|| code.strip_prefix("async")) {
        return word(rest);
    }
    let Some((head, _)) = code.split_once("=>") else {
        return false;
    };
    let head = head.trim();
    if !head.is_empty() && head.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') {
        return true;
    }
    // One parenthesised list: the first '(' closes at the head's end.
    let mut depth = 0usize;
    for (i, c) in head.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1 == head.len() && head.starts_with('(');
                }
            }
            _ if depth == 0 => return false,
            _ => {}
        }
    }
    false
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("evaluate", args)?;
        let page = ctx.page();
        // A step like any action: a script that navigates or starts work
        // is answered when the page is ready, and says where it went (the
        // next response's changes are then the new document's).
        let mark = page.begin_action();
        let value = match a.target.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(t) => page.evaluate_script_on(Target::parse(t), &a.function).await?,
            None => page.evaluate_script(&page_call(&a.function)).await?,
        };
        let mut step = ActionResult::default();
        page.after_action(&mut step, mark).await?;
        let text = value.text();
        // As big as a tree may be, and no bigger: a value can be megabytes.
        let (shown, cut) = super::untrusted::cap(&text, ctx.settings.snapshot_budget.saturating_mul(4));
        let more = if cut {
            format!(
                "\n[truncated: the value is {} characters; return a part of it (slice it, pick fields) for the rest]",
                text.chars().count()
            )
        } else {
            String::new()
        };
        let step_notes = if step.notes.is_empty() {
            String::new()
        } else {
            format!("\n({})", step.notes.join("; "))
        };
        // (The notes are ours: outside the fence.)
        let mut out = ToolOutput::ok(format!("{OPEN_TAG}\n{}\n{CLOSE_TAG}{more}{step_notes}", defang(shown)));
        out.data = Some(value.json);
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
        assert_eq!(page_call("(a, b = 2) => a + b"), "((a, b = 2) => a + b)()");
        assert_eq!(
            page_call("async function f() { return 1 }"),
            "(async function f() { return 1 })()"
        );
        // Immediately invoked, or merely named like a keyword: already expressions.
        assert_eq!(page_call("(() => document.title)()"), "(() => document.title)()");
        assert_eq!(
            page_call("(function () { return 2 })()"),
            "(function () { return 2 })()"
        );
        assert_eq!(page_call("asyncQueue.length"), "asyncQueue.length");
        assert_eq!(
            page_call("functions.map((f) => f.name)"),
            "functions.map((f) => f.name)"
        );
    }
}
