//! Why the LLM layer failed, and which call failures are worth a retry.
//! The layer has its own error type so that it depends on nothing else of
//! the driver; `crate::Error::Llm` wraps it.

use std::fmt;

/// A failure of the LLM layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The model is not set up (no model, no key, bad base URL).
    #[error("{0}")]
    Setup(String),

    /// A model call failed (after its retries).
    #[error("LLM call to {provider} failed{}: {kind}", if *.attempts > 1 { format!(" after {} attempts", .attempts) } else { String::new() })]
    Call {
        provider: &'static str,
        kind: LlmErrorKind,
        attempts: u32,
    },

    /// The model's answer was unusable (invalid JSON, a schema violation, a
    /// ref that is not on the page), also after feeding the problem back.
    #[error("{0}")]
    Output(String),
}

/// The kinds of LLM call failure (inside [`LlmError::Call`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmErrorKind {
    /// 401/403: the key is wrong, expired or lacks access.
    Auth { status: u16, message: String },
    /// The provider does not know the model.
    UnknownModel { model: String, message: String },
    /// 429, after the retries ran out.
    RateLimited { message: String },
    /// 5xx (or 529 overloaded), after the retries ran out.
    Server { status: u16, message: String },
    /// No answer within the request timeout, after the retries ran out.
    Timeout { secs: u64 },
    /// The connection failed (refused, reset, DNS), after the retries ran out.
    Connection { message: String },
    /// Any other 4xx: the request itself was refused.
    BadRequest { status: u16, message: String },
    /// A 200 whose body is not a response of the wire format.
    BadResponse { message: String },
    /// A 200 that is a web page: the base URL is a site, not the API. No
    /// retry makes it one.
    NotTheApi { message: String },
}

impl LlmErrorKind {
    /// Failures that a later attempt may not see.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. }
                | Self::Server { .. }
                | Self::Timeout { .. }
                | Self::Connection { .. }
                | Self::BadResponse { .. }
        )
    }
}

impl fmt::Display for LlmErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Auth { status, message } => {
                write!(f, "authentication failed (HTTP {status}): {message}; check the API key")
            }
            Self::UnknownModel { model, message } => {
                write!(f, "unknown model {model:?}: {message}; check --model")
            }
            Self::RateLimited { message } => write!(f, "rate limited (HTTP 429): {message}"),
            Self::Server { status, message } => write!(f, "server error (HTTP {status}): {message}"),
            Self::Timeout { secs } => write!(f, "no answer within {secs}s"),
            Self::Connection { message } => write!(f, "connection failed: {message}"),
            Self::BadRequest { status, message } => write!(f, "request refused (HTTP {status}): {message}"),
            Self::BadResponse { message } => write!(f, "malformed response: {message}"),
            Self::NotTheApi { message } => write!(
                f,
                "the server answered with a web page, not the API's JSON ({message}): check --base-url (an \
OpenAI-compatible server's usually ends in /v1)"
            ),
        }
    }
}
