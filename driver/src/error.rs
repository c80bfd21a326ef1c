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
    /// The load event did not come in time.
    Timeout,
    /// A local file that vanished between the check and the load.
    FileNotFound,
    /// The renderer crashed while loading (e.g. a page too deep to lay out).
    Crashed,
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
            Self::Timeout => f.write_str("timed out waiting for the load event"),
            Self::FileNotFound => f.write_str("file not found (net::ERR_FILE_NOT_FOUND)"),
            Self::Crashed => f.write_str("the page crashed while loading"),
            Self::Other(text) => f.write_str(text),
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
    #[error("invalid URL {input:?}: {reason}")]
    InvalidUrl { input: String, reason: String },

    /// A local path that does not exist.
    #[error("no such file: {}{}", .path.display(), .hint.as_deref().unwrap_or(""))]
    NoSuchFile { path: PathBuf, hint: Option<String> },

    /// The page could not be loaded.
    #[error("could not load {url}: {kind}")]
    Navigation { url: String, kind: NavigationErrorKind },

    /// The in-page engine failed or is missing in a frame.
    #[error("engine error in {frame}: {message}")]
    Engine { frame: String, message: String },

    /// The engine bundle speaks another protocol version.
    #[error("engine protocol mismatch: the driver speaks {expected}, the page's engine {found}")]
    ProtocolMismatch { expected: u32, found: String },

    /// A Chrome DevTools Protocol command failed.
    #[error("browser protocol error in {method}: {message}")]
    Cdp { method: &'static str, message: String },

    /// A driver-side wait ran out of time.
    #[error("timed out after {}s waiting for {what}", .after.as_secs_f64())]
    Timeout { what: String, after: Duration },

    /// The tab's renderer process crashed.
    #[error("the page crashed (its renderer process died)")]
    PageCrashed,

    /// The browser went away (closed, crashed or interrupted).
    #[error("the browser is closed")]
    BrowserClosed,

    /// The user interrupted the run (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub(crate) fn cdp(method: &'static str, err: chromiumoxide::error::CdpError) -> Self {
        use chromiumoxide::error::CdpError;
        match err {
            CdpError::ChannelSendError(_) | CdpError::NoResponse => Error::BrowserClosed,
            CdpError::Ws(_) => Error::BrowserClosed,
            CdpError::Timeout => Error::Cdp {
                method,
                message: "the browser did not reply in time".into(),
            },
            other => Error::Cdp {
                method,
                message: one_line(&other.to_string()),
            },
        }
    }

    /// True for "Cannot find context with specified id" and its relatives: the
    /// execution context went away (navigation, frame detach).
    pub(crate) fn is_stale_context(&self) -> bool {
        match self {
            Error::Cdp { message, .. } | Error::Engine { message, .. } => {
                let m = message.to_ascii_lowercase();
                m.contains("cannot find context")
                    || m.contains("execution context was destroyed")
                    || m.contains("no frame with given id")
                    || m.contains("frame with the given id was not found")
                    || m.contains("cannot find default execution context")
            }
            _ => false,
        }
    }
}

/// Collapses whitespace runs (including newlines) so a message stays on one line.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn stale_context_detection() {
        let e = Error::Cdp {
            method: "Runtime.evaluate",
            message: "Cannot find context with specified id".into(),
        };
        assert!(e.is_stale_context());
        assert!(!Error::BrowserClosed.is_stale_context());
    }
}
