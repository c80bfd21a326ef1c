//! DevTools protocol failures as Sightline errors: a dropped connection is a
//! closed browser, everything else names the command that failed.

use chromiumoxide::error::CdpError;

use crate::error::{one_line, Error};

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
