//! Typed errors of the driver. Every message is one line, fit for `error: …`.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Result type of the driver API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a navigation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavigationErrorKind {
    /// Nothing listens on the port (`net::ERR_CONNECTION_REFUSED`).
    ConnectionRefused,
    /// The host name does not resolve (`net::ERR_NAME_NOT_RESOLVED`).
    NameNotResolved,
    /// The server sent no response in time.
    NoResponse,
    /// The response came, but the page did not load in time.
    Timeout,
    /// A local file that vanished between the check and the load.
    FileNotFound,
    /// The renderer crashed while loading (e.g. a page too deep to lay out).
    Crashed,
    /// The browser's origin policy refuses it (the reason says which list).
    Blocked(String),
    /// Any other network error, with Chromium's error text.
    Other(String),
}

impl NavigationErrorKind {
    /// Maps Chromium's `Page.navigate` `errorText` to a kind.
    pub fn from_error_text(text: &str) -> Self {
        match text.trim() {
            "net::ERR_CONNECTION_REFUSED" => Self::ConnectionRefused,
            "net::ERR_NAME_NOT_RESOLVED" | "net::ERR_NAME_RESOLUTION_FAILED" => Self::NameNotResolved,
            "net::ERR_TIMED_OUT" | "net::ERR_CONNECTION_TIMED_OUT" => Self::Timeout,
            "net::ERR_FILE_NOT_FOUND" => Self::FileNotFound,
            other => Self::Other(other.to_string()),
        }
    }
}

impl fmt::Display for NavigationErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ConnectionRefused => f.write_str("connection refused (net::ERR_CONNECTION_REFUSED)"),
            Self::NameNotResolved => f.write_str("host name not resolved (net::ERR_NAME_NOT_RESOLVED)"),
            Self::NoResponse => f.write_str("the server sent no response within the navigation timeout"),
            Self::Timeout => f.write_str("timed out waiting for the page to load"),
            Self::FileNotFound => f.write_str("file not found (net::ERR_FILE_NOT_FOUND)"),
            Self::Crashed => f.write_str("the page crashed while loading"),
            Self::Blocked(why) => write!(f, "blocked: {why}"),
            Self::Other(text) => f.write_str(text),
        }
    }
}

/// Why an element action failed. Each names a check of the actionability
/// sequence (attached, visible, stable, enabled, editable, receives events) or
/// a reason the action cannot apply to the element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionErrorKind {
    /// No element matches the selector (after waiting for one to appear).
    NotFound,
    /// The ref's element has left the page (re-render, navigation); take a new snapshot.
    StaleRef,
    /// The ref's frame is gone, or no snapshot has numbered it.
    UnknownFrame,
    /// No snapshot of this document handed out the ref.
    UnknownRef,
    /// The element is detached from the document.
    NotAttached,
    /// The element has no box or is `visibility:hidden`.
    NotVisible,
    /// The element has no box until a picture inside it loads.
    ImageLoading,
    /// The element kept moving (its box differed between two animation frames).
    NotStable,
    /// The element (or an ancestor with `aria-disabled`) is disabled.
    Disabled,
    /// `fill`/`type` on something that is not an editable field.
    NotEditable,
    /// The element has no point inside the viewport, even after scrolling.
    OutsideViewport,
    /// The action point lies outside a container's overflow clip: the
    /// element is out of sight (a collapsed menu's item).
    Clipped,
    /// Another element receives the events at the action point.
    Covered {
        /// A ref (when the covering element has one) or a short selector.
        selector: String,
        /// `div#cookie-bar "We use cookies…"`.
        description: String,
    },
    /// The action does not apply to this element or its arguments are wrong
    /// (e.g. `selectOptionFromDropdown` on a `<div>`, an unknown option).
    Unsupported(String),
    /// The action ran but the page did not change the way it should have
    /// (e.g. a checkbox that stayed unchecked after the click).
    NoEffect(String),
}

impl ActionErrorKind {
    /// Failures that can clear up by themselves (the element appears, stops
    /// moving, gets uncovered), so actions retry them until their timeout.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            Self::NotFound
                | Self::NotAttached
                | Self::NotVisible
                | Self::ImageLoading
                | Self::NotStable
                | Self::OutsideViewport
                | Self::Clipped
                | Self::Covered { .. }
        )
    }
}

impl fmt::Display for ActionErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound => f.write_str("no element matches"),
            Self::StaleRef => {
                f.write_str("the ref is stale: its element is no longer in the page (take a new snapshot)")
            }
            Self::UnknownFrame => f.write_str("the frame is not in the page (take a new snapshot)"),
            // (A ref of another page, a mistyped one, or none taken yet.)
            Self::UnknownRef => f.write_str(
                "no snapshot of this page handed out this ref (use one from the latest snapshot, or take one)",
            ),
            Self::NotAttached => f.write_str("the element is not attached to the document"),
            Self::NotVisible => f.write_str("the element is not visible"),
            Self::ImageLoading => {
                f.write_str("the element has no size until its picture loads, and the picture is still loading")
            }
            Self::NotStable => f.write_str("the element is not stable (it keeps moving)"),
            Self::Disabled => f.write_str("the element is disabled"),
            Self::NotEditable => f.write_str("the element is not an editable field"),
            Self::OutsideViewport => f.write_str("the element cannot be scrolled into the viewport"),
            Self::Clipped => f.write_str(
                "the element is out of sight, clipped by its container (a collapsed menu or list?): open or scroll \
                 that first",
            ),
            Self::Covered { selector, description } => {
                if description.is_empty() || description == selector {
                    write!(f, "the element is covered by {selector}")
                } else {
                    write!(f, "the element is covered by {description} ({selector})")
                }
            }
            Self::Unsupported(m) | Self::NoEffect(m) => f.write_str(m),
        }
    }
}

/// Everything that can go wrong in the driver.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The browser executable is missing or did not start.
    #[error("could not start the browser {executable}: {reason}")]
    BrowserLaunch { executable: PathBuf, reason: String },

    /// The target is neither a usable URL nor a path.
    #[error("invalid URL {:?}: {reason}", crate::text::shown_url(.input))]
    InvalidUrl { input: String, reason: String },

    /// A local path that does not exist.
    #[error("no such file: {}{}", .path.display(), .hint.as_deref().unwrap_or(""))]
    NoSuchFile { path: PathBuf, hint: Option<String> },

    /// The page could not be loaded.
    #[error("could not load {}: {kind}", crate::text::shown_url(.url))]
    Navigation { url: String, kind: NavigationErrorKind },

    /// The in-page engine failed or is missing in a frame.
    #[error("engine error in {frame}: {message}")]
    Engine { frame: String, message: String },

    /// The caller's own script threw (`evaluate`): its error, not the engine's.
    #[error("the script threw: {0}")]
    ScriptThrew(String),

    /// The engine bundle speaks another protocol version.
    #[error("engine protocol mismatch: the driver speaks {expected}, the page's engine {found}")]
    ProtocolMismatch { expected: u32, found: String },

    /// A Chrome DevTools Protocol command failed.
    #[error("browser protocol error in {method}: {message}")]
    Cdp { method: &'static str, message: String },

    /// A driver-side wait ran out of time.
    #[error("timed out after {} waiting for {what}", crate::time::spoken(*.after))]
    Timeout { what: String, after: Duration },

    /// The tab's renderer process crashed.
    #[error("the page crashed (its renderer process died)")]
    PageCrashed,

    /// The page's main thread stopped answering (a script in an endless
    /// loop): nothing can be read or done in it.
    #[error("the page is not responding: its main thread has been busy for over {}s (a script in an endless loop?)", .after.as_secs())]
    PageNotResponding { after: Duration },

    /// The page took the input (a click, a key) and has been busy since: its
    /// handler runs long (an export, a sort), or loops. What it did is not
    /// known yet; it was done, so it must not be sent again.
    #[error("the page took the input, and its main thread has been busy since (over {}s: a long script?), so what it did is not known yet. Take a snapshot to see (it waits for the page) before sending it again: it may well have been done", .after.as_secs())]
    BusyAfterInput { after: Duration },

    /// The browser went away (closed, crashed or interrupted).
    #[error("the browser is closed")]
    BrowserClosed,

    /// The tab went away while the browser lives (its page called
    /// `window.close()`, or it was closed by hand).
    #[error("the tab was closed (its page closed itself, or it was closed by hand)")]
    TabClosed,

    /// The page replaced its document under every try to read it (a fast
    /// meta refresh, a redirect loop, a script that reloads it).
    #[error(
        "the page replaced its document each time it was read (it keeps reloading or redirecting itself); wait for it \
to settle, or open another page"
    )]
    DocumentKeptChanging,

    /// A script or an action that may change the page ran, and its document
    /// went away before it answered (a navigation or a reload, perhaps its
    /// own doing). It is not run again: it may have done its work.
    #[error(
        "the page navigated while {what} ran, so no answer came back; it was not run again, since it may have done \
its work"
    )]
    NavigatedWhileRunning { what: &'static str },

    /// An element action failed; `element` describes the element when it was found.
    #[error("{method} {target}{}: {kind}{}", .element.as_deref().map(|e| format!(" ({e})")).unwrap_or_default(), .waited_ms.map(|w| format!(" (waited {:.1}s)", f64::from(w) / 1000.0)).unwrap_or_default())]
    Action {
        method: &'static str,
        target: String,
        element: Option<String>,
        kind: ActionErrorKind,
        /// How long the action retried before giving up (milliseconds), for transient failures.
        waited_ms: Option<u32>,
    },

    /// A malformed action or step (unknown method, missing argument…).
    #[error("invalid action: {0}")]
    InvalidAction(String),

    /// A coordinate action's point lies outside the viewport: no one sees
    /// it, and a model that sent one mixed up its coordinates (the page's
    /// for the viewport's, an image's for CSS pixels).
    #[error(
        "({x:.0}, {y:.0}) is outside the {width:.0}×{height:.0} viewport: points are the viewport's (the \
screenshot's) pixels. Scroll to bring what is there into view, then take a new screenshot"
    )]
    OutsideViewport { x: f64, y: f64, width: f64, height: f64 },

    /// A step of `sightline run` failed (the run stopped there).
    #[error("step {step} of {total} ({action}) failed: {source}")]
    StepFailed {
        step: usize,
        total: usize,
        action: String,
        source: Box<Error>,
    },

    /// Could not reach a browser given by `--cdp-url`.
    #[error("could not connect to the browser at {url}: {reason}")]
    Connect { url: String, reason: String },

    /// The extension bridge could not start, or the extension refused it.
    #[error("extension bridge: {0}")]
    Extension(String),

    /// The model is not set up, a model call failed, or its answer was unusable.
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),

    /// `act` could not carry out its instruction (the message says why).
    #[error("act failed: {0}")]
    ActFailed(String),

    /// `sightline.toml` (or an option) is invalid.
    #[error("invalid configuration: {0}")]
    Config(String),

    /// The user interrupted the run (Ctrl-C).
    #[error("interrupted")]
    Interrupted,

    /// A tool was asked to write a file outside the output directory (the
    /// message says why, and where files go).
    #[error("refused: {0}")]
    OutsideOutputDir(String),

    /// A local file could not be written or read (reports, saved runs).
    #[error("{0}")]
    Io(String),

    /// The agent stopped without achieving its task (the message says why).
    #[error("{0}")]
    AgentFailed(String),

    /// A batch could not run or did not fully succeed: a malformed task or
    /// results file (by line number), or tasks that ended other than ok.
    #[error("{0}")]
    Batch(String),

    /// An eval suite could not be read (by line number), or a judge did not
    /// answer YES (`sightline evaluate`, `agent --evaluate`).
    #[error("{0}")]
    Eval(String),

    /// A frame another process runs (another site's, in a browser that
    /// isolates sites) did not answer in time: its script is busy while
    /// the page is not (the message says when it is asked again).
    #[error("{0}")]
    FrameBusy(String),
}

impl Error {
    /// Whether the browser's (or the engine's) message says any of `what`
    /// (lower case).
    fn says_any(&self, what: &[&str]) -> bool {
        match self {
            Error::Cdp { message, .. } | Error::Engine { message, .. } => {
                let m = message.to_ascii_lowercase();
                what.iter().any(|w| m.contains(w))
            }
            _ => false,
        }
    }

    /// The frame itself is gone (a detached iframe), not just its document.
    pub(crate) fn is_frame_gone(&self) -> bool {
        // (Page.createIsolatedWorld says "for", Runtime's calls "with".)
        self.says_any(&[
            "no frame with given id",
            "no frame for given id",
            "frame with the given id was not found",
            // (A frame another process ran: its target went with it.)
            "no target with given id",
        ])
    }

    /// A stale context that the call never reached: nothing of it ran
    /// (unlike a document that went while it ran).
    pub(crate) fn ran_nowhere(&self) -> bool {
        self.says_any(&["cannot find context", "cannot find default execution context"]) || self.is_frame_gone()
    }

    /// The call's document or frame is gone, before it ran or while it ran.
    pub(crate) fn is_stale_context(&self) -> bool {
        // (The evaluation's document went while it ran.)
        self.ran_nowhere()
            || self.says_any(&[
                "execution context was destroyed",
                "inspected target navigated or closed",
            ])
    }

    /// The browser gave no answer within the request timeout.
    pub(crate) fn is_reply_timeout(&self) -> bool {
        matches!(self, Error::Cdp { .. }) && self.says_any(&["did not reply in time"])
    }

    /// This error, or [`Error::NavigatedWhileRunning`] when it says that the
    /// document of `what` (a call that may change the page) went while it ran.
    pub(crate) fn or_navigated_while(self, what: &'static str) -> Error {
        if self.is_stale_context() && !self.ran_nowhere() {
            Error::NavigatedWhileRunning { what }
        } else {
            self
        }
    }
}

pub(crate) use crate::text::one_line;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_frame_is_not_a_replaced_document() {
        let cdp = |m: &str| Error::Cdp {
            method: "Runtime.evaluate",
            message: m.into(),
        };
        for gone in [
            cdp("No frame with given id found"),
            cdp("Error -32602: No frame for given id found"),
        ] {
            assert!(gone.is_frame_gone() && gone.is_stale_context(), "{gone}");
        }
        for replaced in [
            cdp("Error -32000: Cannot find context with specified id"),
            cdp("Error -32000: Inspected target navigated or closed"),
        ] {
            assert!(!replaced.is_frame_gone() && replaced.is_stale_context(), "{replaced}");
        }
        // An action is run again only where it never ran.
        assert!(cdp("Error -32000: Cannot find context with specified id").ran_nowhere());
        assert!(!cdp("Error -32000: Inspected target navigated or closed").ran_nowhere());
        assert!(!cdp("Execution context was destroyed.").ran_nowhere());
        assert!(!Error::DocumentKeptChanging.is_stale_context());
        // A call that ran when its document went is said as such; one that never ran is left to be tried again.
        let went = cdp("Error -32000: Inspected target navigated or closed").or_navigated_while("the script");
        assert!(
            matches!(went, Error::NavigatedWhileRunning { what: "the script" }),
            "{went}"
        );
        let never = cdp("Error -32000: Cannot find context with specified id").or_navigated_while("the script");
        assert!(never.ran_nowhere(), "{never}");
    }

    #[test]
    fn messages_are_one_line() {
        let e = Error::Navigation {
            url: "http://127.0.0.1:9/".into(),
            kind: NavigationErrorKind::from_error_text("net::ERR_CONNECTION_REFUSED"),
        };
        assert_eq!(
            e.to_string(),
            "could not load http://127.0.0.1:9/: connection refused (net::ERR_CONNECTION_REFUSED)"
        );
        let e = Error::NoSuchFile {
            path: "nope.html".into(),
            hint: None,
        };
        assert_eq!(e.to_string(), "no such file: nope.html");
        assert_eq!(one_line("a\n  b\tc"), "a b c");
    }

    #[test]
    fn errors_stay_small() {
        // Results of the driver carry this error: keep it within clippy's bound.
        assert!(std::mem::size_of::<Error>() <= 128, "{}", std::mem::size_of::<Error>());
    }

    #[test]
    fn action_errors_name_the_element() {
        let e = Error::Action {
            method: "click",
            target: "e12".into(),
            element: Some("button#buy \"Buy now\"".into()),
            kind: ActionErrorKind::Covered {
                selector: "div#overlay".into(),
                description: "div#overlay \"We use cookies\"".into(),
            },
            waited_ms: Some(1500),
        };
        assert_eq!(
            e.to_string(),
            "click e12 (button#buy \"Buy now\"): the element is covered by div#overlay \"We use cookies\" (div#overlay) (waited 1.5s)"
        );
        assert!(ActionErrorKind::NotStable.is_transient());
        assert!(!ActionErrorKind::Disabled.is_transient());
    }

    #[test]
    fn stale_context_detection() {
        let e = Error::Cdp {
            method: "Runtime.evaluate",
            message: "Cannot find context with specified id".into(),
        };
        assert!(e.is_stale_context());
        assert!(!Error::BrowserClosed.is_stale_context());
    }
}
