//! Failures as a model can act on them: what went wrong and what to do.

use crate::error::{ActionErrorKind, Error, NavigationErrorKind};

/// The text of a failed tool call. `navigated_to`: where the page went
/// while the call ran, if it navigated.
pub fn explain(tool: &str, e: &Error, navigated_to: Option<&str>) -> String {
    let mut text = match e {
        Error::Action {
            kind: ActionErrorKind::StaleRef | ActionErrorKind::UnknownRef | ActionErrorKind::UnknownFrame,
            target,
            ..
        } => format!(
            "{target} is not a ref of the current page ({}). Take a new browser_snapshot and use a ref from it.",
            action_kind(e)
        ),
        Error::Action {
            kind: ActionErrorKind::Covered { selector, description },
            target,
            ..
        } => {
            let by = if description.is_empty() || description == selector {
                selector.clone()
            } else {
                format!("{description} ({selector})")
            };
            format!(
                "{target} is covered by {by}: a click would hit that instead. Call browser_remove_blocker to close \
pop-ups and overlays (or close {selector} yourself), then try again."
            )
        }
        Error::Action { .. } => e.to_string(),
        Error::Timeout { .. } => format!("{e}. The page may still be busy: take a browser_snapshot and try again."),
        Error::PageCrashed => {
            "The page crashed (its renderer died) and answers nothing now. Load it again with browser_reload \
(or browser_navigate to a URL, or a new tab with browser_tabs), then take a browser_snapshot."
                .to_string()
        }
        Error::BrowserClosed => {
            "The browser crashed or was closed. The next call starts a new one (open your page again).".to_string()
        }
        Error::Navigation {
            kind: NavigationErrorKind::Blocked(why),
            ..
        } => format!("Navigation refused: {why}."),
        other => other.to_string(),
    };
    if let Some(url) = navigated_to {
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
    fn errors_say_what_to_do() {
        let stale = explain("browser_click", &action(ActionErrorKind::StaleRef), None);
        assert!(stale.contains("e7") && stale.contains("browser_snapshot"), "{stale}");
        let covered = explain(
            "browser_click",
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
        let moved = explain(
            "browser_click",
            &action(ActionErrorKind::NotFound),
            Some("http://a.test/b"),
        );
        assert!(
            moved.contains("navigated") && moved.contains("http://a.test/b"),
            "{moved}"
        );
        assert!(explain("x", &Error::BrowserClosed, None).contains("next call"));
    }
}
