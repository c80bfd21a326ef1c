//! `goto`: opens a URL in the current tab (relative URLs against the page's
//! own), refusing domains the caller does not allow.

use serde::Deserialize;
use serde_json::{json, Value};

use super::context::ToolContext;
use super::tool::{boxed, object, parse, RecordedCall, Tool, ToolFuture, ToolOutput};
use crate::error::Error;

pub const TOOL: Tool = Tool::new("goto", "Open a URL in this tab.", parameters, handle)
    .changing_page()
    .running_on_a_crashed_tab()
    .with_aliases(&["navigate"])
    .with_command("open", &["url"])
    .with_mcp_name("browser_navigate");

fn parameters() -> Value {
    object(
        json!({"url": {"type": "string", "description": "The URL (relative to the current page, or absolute)."}}),
        &["url"],
    )
}

#[derive(Deserialize)]
struct Args {
    url: String,
}

fn handle<'a>(ctx: &'a ToolContext<'a>, args: Value) -> ToolFuture<'a> {
    boxed(async move {
        let a: Args = parse("goto", args)?;
        if a.url.trim().is_empty() {
            return Ok(ToolOutput::failed(
                "No URL was given: name the page to open (https://example.com, a path relative to this page, or a \
local file)",
            ));
        }
        let page = ctx.page();
        // A relative URL is taken against the page's (as the browser lists
        // it: asking the page would cost a fresh tab its engine's start).
        let wanted = a.url.trim();
        // (`127.0.0.1:8080/x`, `www.a.test`: a web address without its
        // scheme, not a path on the current site.)
        let url = if let Some(web) = crate::page::scheme_less_web_address(wanted) {
            web
        } else if url::Url::parse(wanted).is_ok() {
            wanted.to_string()
        } else if wanted.contains(char::is_whitespace) && !wanted.contains(['/', '?', '.', '#']) {
            // Words, not an address: joined to the page's URL they would
            // load something no one asked for, and fail for another reason.
            return Ok(ToolOutput::failed(format!(
                "{:?} is not a URL: give a full address (https://example.com/page) or a path on the current site (/page)",
                crate::text::clip(wanted, 100)
            )));
        } else {
            let (base, _) = page.listed().await;
            url::Url::parse(&base)
                .ok()
                .and_then(|b| b.join(wanted).ok())
                .map(|u| u.to_string())
                .unwrap_or_else(|| wanted.to_string())
        };
        let domains = &ctx.settings.allowed_domains;
        if !domains.allows(&url) {
            return Ok(ToolOutput::failed(format!(
                "Refused: {url} is outside the allowed domains ({}). Stay on those sites.",
                domains.entries().join(", ")
            )));
        }
        let browser = ctx.browser("goto").ok();
        let mark = browser.map(|b| b.downloads(0).last().map_or(0, |d| d.seq));
        let documents_before = page.navigation_mark();
        let r = match page.goto(&url).await {
            Ok(r) => r,
            // A URL that is a download aborts its navigation: for it, that is success.
            Err(e @ Error::Navigation { .. }) if e.to_string().contains("ERR_ABORTED") => {
                let began = match browser.zip(mark) {
                    Some((b, mark)) => b.download_began_since(mark, &url).await,
                    None => None,
                };
                match began.map(|d| d.suggested_filename) {
                    Some(name) => {
                        return Ok(ToolOutput::ok(format!(
                            "{url} is a download: saving {name} (the tab stays on its page)"
                        )))
                    }
                    None => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        // A page that sends its visitor on by script (a login gate, a
        // consent wall) lands elsewhere while the step waits: said here, not
        // only in the page section's URL.
        // (Another document after ours: a router rewriting its URL in
        // place loads none, and is no going on.)
        let went_on = if page.navigation_mark() > documents_before + 1 {
            let (landed, _) = page.listed().await;
            let same = |a: &str, b: &str| a.split('#').next() == b.split('#').next();
            match landed.is_empty() || same(&landed, &r.url) {
                true => String::new(),
                false => format!("; the page then went on to {}", crate::text::shown_url(&landed)),
            }
        } else {
            String::new()
        };
        // Redirects the server answered with: where it was asked for, as the
        // browser asked (its credentials left out).
        // (Only of a new document: a jump within one is no request.)
        let new_document = page.navigation_mark() > documents_before;
        let asked = page.document_redirected_from().filter(|_| new_document);
        let redirected = match asked.and_then(|u| url::Url::parse(&u).ok()) {
            Some(mut asked) => {
                let _ = asked.set_username("");
                let _ = asked.set_password(None);
                format!(", redirected from {}", crate::text::shown_url(asked.as_str()))
            }
            None => String::new(),
        };
        let mut out = ToolOutput::ok(format!("Opened {r}{redirected}{went_on}{}", r.unfinished_said()));
        out.replay.push(RecordedCall {
            tool: "goto".into(),
            args: json!({"url": url}),
            actions: Vec::new(),
            context: None,
        });
        Ok(out)
    })
}
