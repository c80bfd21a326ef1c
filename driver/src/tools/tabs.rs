//! `tabs`: list, open, switch to and close the session's tabs.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, Offered, Tool, ToolFuture, ToolOutput};
use crate::browser::ListedTab;
use crate::error::{Error, Result};
use crate::page::Page;

pub const TOOL: Tool = Tool::new(
    "tabs",
    "List, create, close, or select a browser tab.",
    parameters,
    handle,
)
.changing_page()
.running_on_a_crashed_tab()
.running_beside_a_dialog()
.offered_to(Offered::MCP_ONLY)
.with_positional(&["action", "index"]);

fn parameters() -> Value {
    object(
        json!({
            "action": {"type": "string", "enum": ["list", "new", "close", "select"], "description": "What to do (default list)."},
            "index": {"type": "integer", "minimum": 0, "description": "The tab to close or select (default for close: the current one)."},
            "url": {"type": "string", "description": "For new: open this URL in it."}
        }),
        &[],
    )
}

#[derive(Deserialize)]
struct Args {
    #[serde(default = "list_action")]
    action: String,
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    url: Option<String>,
}

fn list_action() -> String {
    "list".into()
}

/// `- 0: (current) [title](url)` per tab.
pub async fn list(tabs: &[ListedTab], current: &Page) -> String {
    list_marking_new(tabs, current, &[]).await
}

/// [`list`], with `(new)` on the tabs whose target id is in `new` (opened
/// by the step just done).
pub async fn list_marking_new(tabs: &[ListedTab], current: &Page, new: &[&str]) -> String {
    let mut out = String::new();
    for (i, t) in tabs.iter().enumerate() {
        let is_current = t.page() == Some(current);
        let mark = match (is_current, new.contains(&t.target_id())) {
            (true, true) => "(current, new) ",
            (true, false) => "(current) ",
            (false, true) => "(new) ",
            (false, false) => "",
        };
        // What the browser lists: a tab whose page hangs must not hold the list.
        let (url, title) = t.listed().await;
        let url = crate::text::shown_url(&url);
        // (A dialog holds the tab, and pauses the tabs that share its process.)
        let dialog = t
            .page()
            .and_then(Page::dialog)
            .map(|d| format!(" — {} is open ({})", d.a_kind(), d.message_said()))
            .unwrap_or_default();
        out.push_str(&format!("- {i}: {mark}[{title}]({url}){dialog}\n"));
    }
    out
}

fn pick(tabs: &[ListedTab], index: usize) -> Result<ListedTab> {
    tabs.get(index).cloned().ok_or_else(|| {
        Error::InvalidAction(format!(
            "there is no tab {index}; the tabs are 0 to {}",
            tabs.len().saturating_sub(1)
        ))
    })
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("tabs", args)?;
        let browser = ctx.browser("tabs")?;
        let tabs = browser.tab_list(ctx.context()).await?;
        let said = match a.action.as_str() {
            "new" => {
                let page = browser.new_page_in(ctx.context()).await?;
                if let Some(url) = a.url.as_deref().filter(|u| !u.trim().is_empty()) {
                    page.goto(url).await?;
                }
                ctx.set_page(page);
                "Opened a new tab".to_string()
            }
            "select" => {
                let index = a
                    .index
                    .ok_or_else(|| Error::InvalidAction("tabs select needs an index".into()))?;
                let page = browser.choose_tab(&pick(&tabs, index)?).await?;
                // Shown, as a user's selected tab is (screenshots, input).
                page.bring_to_front().await?;
                ctx.set_page(page);
                format!("Selected tab {index}")
            }
            "close" => {
                let current = ctx.page();
                let victim = match a.index {
                    Some(i) => pick(&tabs, i)?,
                    None => ListedTab::Page(current.clone()),
                };
                let victim = match victim {
                    ListedTab::Page(p) if browser.opened_here(p.target_id(), ctx.context()) => p,
                    _ => {
                        return Err(Error::InvalidAction(format!(
                            "tab {} is one of your browser's own: Sightline closes only the tabs it opened and the \
pop-ups of the tabs it acts in (its work may be unsaved; close it yourself if you mean to)",
                            a.index.map_or("(the current one)".to_string(), |i| i.to_string())
                        )))
                    }
                };
                let was_current = victim == current;
                let closed_id = victim.target_id().to_string();
                browser.close_page(victim).await?;
                if was_current {
                    // The tab that opened it, else the newest of the session's own.
                    let rest = browser.pages_in(ctx.context()).await?;
                    let next = match browser.successor_tab(Some(&closed_id), &rest, ctx.context(), false) {
                        Some(p) => p,
                        None => match browser.new_page_in(ctx.context()).await {
                            Ok(p) => p,
                            // (The extension's tabs are all shared by the user.)
                            Err(e) => rest
                                .iter()
                                .rev()
                                .find(|p| p.target_id() != closed_id)
                                .cloned()
                                .ok_or(e)?,
                        },
                    };
                    next.bring_to_front().await?;
                    ctx.set_page(next);
                }
                "Closed the tab".to_string()
            }
            _ => String::new(),
        };
        let tabs = browser.tab_list(ctx.context()).await?;
        let current = ctx.page();
        let listing = list(&tabs, &current).await;
        let text = if said.is_empty() {
            listing
        } else {
            format!("{said}.\n{listing}")
        };
        let mut out = ToolOutput::ok(text.trim_end());
        // The same as data, for callers that read JSON.
        let mut data = Vec::new();
        for (index, t) in tabs.iter().enumerate() {
            let (url, title) = t.listed().await;
            data.push(json!({"index": index, "url": url, "title": title, "current": t.page() == Some(&current)}));
        }
        out.data = Some(Value::Array(data));
        Ok(out)
    })
}
