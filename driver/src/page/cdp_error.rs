//! DevTools protocol failures as Sightline errors: a dropped connection is a
//! closed browser, everything else names the command that failed. And the
//! one way the page's code sends a command to its tab ([`Page::send`]).

use std::borrow::Cow;

use chromiumoxide::error::CdpError;
use chromiumoxide::types::{Command, CommandResponse};

use super::handle::Page;
use crate::error::{one_line, Error, Result};

impl Error {
    /// The error for `method` failing with `err`.
    pub(crate) fn cdp(method: &'static str, err: CdpError) -> Self {
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
}

/// The DevTools method `command` calls, for its errors.
pub(crate) fn method_name(command: &impl Command) -> &'static str {
    match command.identifier() {
        Cow::Borrowed(m) => m,
        Cow::Owned(_) => "a DevTools command",
    }
}

impl Page {
    /// Sends `command` to the tab. A renderer that has crashed, or crashes
    /// while the command waits, fails it at once as [`Error::PageCrashed`]:
    /// a crashed renderer never answers, and the command would wait out
    /// the DevTools timeout (30 s) before saying only that it had no reply.
    ///
    /// (Commands that must reach a crashed tab, those that give it a new
    /// renderer or read the browser's side of it, go through
    /// [`Page::cdp`] themselves.)
    pub(crate) async fn send<C: Command>(&self, command: C) -> Result<CommandResponse<C::Response>> {
        let method = method_name(&command);
        self.unless_crashed(self.cdp().execute(command))
            .await?
            .map_err(|e| Error::cdp(method, e))
    }
}
