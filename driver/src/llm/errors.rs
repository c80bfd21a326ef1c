//! Why a model call failed, and which failures are worth a retry.

use std::fmt;

/// The kinds of LLM call failure (inside [`crate::Error::Llm`]).
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
        }
    }
}
