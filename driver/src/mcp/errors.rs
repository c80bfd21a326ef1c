//! Failures as a model can act on them: what went wrong and what to do.

use crate::error::{ActionErrorKind, Error, NavigationErrorKind};
use crate::tools::Tool;

/// The text of a failed tool call. `navigated_to`: where the page went
/// while the call ran, if it navigated. The library's own names for the
/// tool and its page method (`goto`, `selectOptionFromDropdown`) become
/// the name the client calls it by.
pub fn explain(tool: &Tool, e: &Error, navigated_to: Option<&str>) -> String {
    let internal = tool.name;
    let tool = &tool.mcp_name();
    let mut text = match e {
        Error::Action {
            kind: ActionErrorKind::StaleRef | ActionErrorKind::UnknownRef | ActionErrorKind::UnknownFrame,
            target,
            ..
        } => format!(
            "{target} is not a ref of the current page: {}. Take a new browser_snapshot and use a ref from it.",
            // (The advice follows once, in the tool's own name.)
            action_kind(e)
                .trim_end_matches(" (take a new snapshot)")
                .trim_end_matches(" (use one from the latest snapshot, or take one)")
        ),
        Error::Action {
            kind: ActionErrorKind::Covered { selector, description },
            target,
            method,
            ..
        } => {
            let by = if description.is_empty() || description == selector {
                selector.clone()
            } else if description.starts_with(&format!("{selector} ")) {
                // (A description names its element first: `div#cc "We use…"`.)
                description.clone()
            } else {
                format!("{description} ({selector})")
            };
            // (fill meets a cover only on a <select>: its list is hit-tested.)
            if matches!(*method, "selectOptionFromDropdown" | "fill") {
                format!(
                    "{target} is covered by {by}: the page shows something else over this list. If that is the \
page's own control for it (a custom dropdown), choose through it: click it, then click the option. If it is a pop-up \
or an overlay, call browser_remove_blocker, then try again."
                )
            } else {
                format!(
                    "{target} is covered by {by}: a click would hit that instead. Call browser_remove_blocker to \
close pop-ups and overlays (or close {selector} yourself), then try again."
                )
            }
        }
        Error::Action { method, .. } => {
            let said = e.to_string();
            match said.strip_prefix(method) {
                Some(rest) => format!("{tool}{rest}"),
                None => said,
            }
        }
        Error::InvalidAction(why) => {
            let arguments = format!("invalid arguments for {internal}:");
            let named = format!("{internal}: ");
            if let Some(rest) = why.strip_prefix(&arguments) {
                format!("invalid arguments for {tool}:{rest}")
            } else if let Some(rest) = why.strip_prefix(&named) {
                format!("{tool}: {rest}")
            } else {
                why.clone()
            }
        }
        Error::Timeout { .. } => format!("{e}. The page may still be busy: take a browser_snapshot and try again."),
        Error::PageCrashed => {
            "The page crashed (its renderer died) and answers nothing now. Load it again with browser_reload \
(or browser_navigate to a URL, or a new tab with browser_tabs), then take a browser_snapshot."
                .to_string()
        }
        Error::BrowserClosed => {
            "The browser crashed or was closed. The next call starts a new one (open your page again).".to_string()
        }
        Error::BusyAfterInput { after } => format!(
            "{tool}: the page took its input, and its main thread has been busy since (over {}s: a long script?), so \
what it did is not known yet. Take a browser_snapshot to see (it waits for the page) before doing it again: it may \
well have been done. The tab is kept; a page that stays busy is closed by the next call.",
            after.as_secs()
        ),
        Error::Navigation {
            kind: NavigationErrorKind::Blocked(why),
            ..
        } => format!("Navigation refused: {why}."),
        other => other.to_string(),
    };
    let navigated_to = navigated_to.map(crate::text::shown_url);
    if let (Some(url), Error::NavigatedWhileRunning { what }) = (&navigated_to, e) {
        text = format!(
            "The page navigated (now at {url}) while {tool} ran {what}, so no answer came back. It was not run \
again, since it may have done its work: take a browser_snapshot before going on."
        );
    } else if let Some(url) = navigated_to {
        text = format!(
            "The page navigated while {tool} ran (now at {url}), so the action may not have happened. \
Take a browser_snapshot before acting again. ({text})"
        );
    }
    text
}

fn action_kind(e: &Error) -> String {
    match e {
        Error::Action { kind, .. } => kind.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Registry;

    fn action(kind: ActionErrorKind) -> Error {
        Error::Action {
            method: "click",
            target: "e7".into(),
            element: None,
            kind,
            waited_ms: None,
        }
    }

    #[test]
    fn errors_name_the_tool_as_the_client_calls_it() {
        let r = Registry::standard();
        let select = Error::Action {
            method: "selectOptionFromDropdown",
            target: "e9".into(),
            element: None,
            kind: ActionErrorKind::NotFound,
            waited_ms: None,
        };
        let said = explain(r.get("select").unwrap(), &select, None);
        assert!(said.starts_with("browser_select_option e9"), "{said}");
        let bad = Error::InvalidAction("invalid arguments for goto: missing field `url`".into());
        let said = explain(r.get("goto").unwrap(), &bad, None);
        assert_eq!(said, "invalid arguments for browser_navigate: missing field `url`");
        // (A tool whose client name holds its own: said once.)
        let bad = Error::InvalidAction("invalid arguments for click: missing field `target`".into());
        let said = explain(r.get("click").unwrap(), &bad, None);
        assert_eq!(said, "invalid arguments for browser_click: missing field `target`");
        let bad = Error::InvalidAction("click: no such element".into());
        assert_eq!(
            explain(r.get("click").unwrap(), &bad, None),
            "browser_click: no such element"
        );
    }

    #[test]
    fn errors_say_what_to_do() {
        let r = Registry::standard();
        let click = r.get("click").unwrap();
        let stale = explain(click, &action(ActionErrorKind::StaleRef), None);
        assert!(stale.contains("e7") && stale.contains("browser_snapshot"), "{stale}");
        assert_eq!(stale.matches("snapshot").count(), 1, "the advice once: {stale}");
        // A cover's description that names its element is not followed by it again.
        let named = explain(
            click,
            &action(ActionErrorKind::Covered {
                selector: "div#cc".into(),
                description: "div#cc \"We use cookies.\"".into(),
            }),
            None,
        );
        assert!(
            named.starts_with("e7 is covered by div#cc \"We use cookies.\": a click"),
            "{named}"
        );
        let covered = explain(
            click,
            &action(ActionErrorKind::Covered {
                selector: "div#promo".into(),
                description: "dialog \"Sale\"".into(),
            }),
            None,
        );
        assert!(
            covered.contains("div#promo") && covered.contains("browser_remove_blocker"),
            "{covered}"
        );
        let moved = explain(click, &action(ActionErrorKind::NotFound), Some("http://a.test/b"));
        assert!(
            moved.contains("navigated") && moved.contains("http://a.test/b"),
            "{moved}"
        );
        assert!(explain(click, &Error::BrowserClosed, None).contains("next call"));
        let went = Error::NavigatedWhileRunning { what: "the script" };
        let said = explain(r.get("evaluate").unwrap(), &went, Some("http://a.test/b"));
        assert_eq!(
            said,
            "The page navigated (now at http://a.test/b) while browser_evaluate ran the script, so no answer came \
back. It was not run again, since it may have done its work: take a browser_snapshot before going on."
        );
    }
}
