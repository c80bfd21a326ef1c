//! The script: what the server answers to the next accepted request.

use std::fmt;
use std::sync::Arc;

use serde_json::{json, Value};

use super::Recorded;

/// What the server answers to the next accepted request.
#[derive(Clone)]
pub enum Reply {
    /// One tool call.
    Tool { name: String, args: Value },
    /// Several tool calls in one answer.
    Tools(Vec<(String, Value)>),
    /// Structured output, shaped as the request asked for it (see [`Reply::json`]).
    Json(Value),
    /// Plain assistant text.
    Text(String),
    /// An error status; `body: None` means the provider's error shape.
    Status {
        code: u16,
        body: Option<String>,
        headers: Vec<(String, String)>,
    },
    /// 200 with this body verbatim (for malformed-JSON tests).
    RawBody(String),
    /// Waits, then answers `then` (for timeouts; dropped if the client hung up).
    Delay { ms: u64, then: Box<Reply> },
    /// Decides from the request.
    Dynamic(Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>),
    /// An OpenAI Responses `computer_call`: one `action`, or a batch of
    /// `actions` (the GA `computer` tool), with pending safety checks.
    /// (Anthropic's computer actions are `Reply::tool("computer", …)`,
    /// Gemini's are its functions: `Reply::tool("click_at", …)`.)
    Computer {
        actions: Vec<Value>,
        batch: bool,
        safety_checks: Vec<Value>,
    },
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Tool { name, args } => write!(f, "Tool({name}, {args})"),
            Reply::Tools(calls) => write!(f, "Tools({calls:?})"),
            Reply::Json(v) => write!(f, "Json({v})"),
            Reply::Text(s) => write!(f, "Text({s:?})"),
            Reply::Status { code, .. } => write!(f, "Status({code})"),
            Reply::RawBody(s) => write!(f, "RawBody({s:?})"),
            Reply::Delay { ms, then } => write!(f, "Delay({ms} ms, {then:?})"),
            Reply::Dynamic(_) => write!(f, "Dynamic"),
            Reply::Computer { actions, .. } => write!(f, "Computer({actions:?})"),
        }
    }
}

impl Reply {
    pub fn tool(name: impl Into<String>, args: Value) -> Reply {
        Reply::Tool {
            name: name.into(),
            args,
        }
    }

    pub fn tools<S: Into<String>>(calls: Vec<(S, Value)>) -> Reply {
        Reply::Tools(calls.into_iter().map(|(n, a)| (n.into(), a)).collect())
    }

    /// JSON the way the request wants it: OpenAI with `response_format` →
    /// message content; a forced tool (either wire) → a call of that tool
    /// with the value as arguments; otherwise text holding the JSON.
    pub fn json(v: Value) -> Reply {
        Reply::Json(v)
    }

    pub fn text(s: impl Into<String>) -> Reply {
        Reply::Text(s.into())
    }

    pub fn status(code: u16) -> Reply {
        Reply::Status {
            code,
            body: None,
            headers: Vec::new(),
        }
    }

    /// `Reply::status_with(429, &[("Retry-After", "1")], None)`.
    pub fn status_with(code: u16, headers: &[(&str, &str)], body: Option<&str>) -> Reply {
        Reply::Status {
            code,
            body: body.map(str::to_string),
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        }
    }

    pub fn raw(s: impl Into<String>) -> Reply {
        Reply::RawBody(s.into())
    }

    pub fn delay(ms: u64, then: Reply) -> Reply {
        Reply::Delay {
            ms,
            then: Box::new(then),
        }
    }

    pub fn dynamic(f: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Reply {
        Reply::Dynamic(Arc::new(f))
    }

    /// An OpenAI Responses `computer_call` with one `action`
    /// (`json!({"type": "click", "button": "left", "x": 10, "y": 20})`).
    pub fn computer(action: Value) -> Reply {
        Reply::Computer {
            actions: vec![action],
            batch: false,
            safety_checks: Vec::new(),
        }
    }

    /// A `computer_call` with a batch of `actions` (the GA `computer` tool).
    pub fn computer_actions(actions: Vec<Value>) -> Reply {
        Reply::Computer {
            actions,
            batch: true,
            safety_checks: Vec::new(),
        }
    }

    /// This `computer_call` with a pending safety check
    /// (`malicious_instructions`, `irrelevant_domain`, `sensitive_domain`).
    pub fn with_safety_check(self, code: &str, message: &str) -> Reply {
        match self {
            Reply::Computer {
                actions,
                batch,
                mut safety_checks,
            } => {
                let id = format!("cu_sc_{}", safety_checks.len() + 1);
                safety_checks.push(json!({"id": id, "code": code, "message": message}));
                Reply::Computer {
                    actions,
                    batch,
                    safety_checks,
                }
            }
            other => panic!("with_safety_check applies to Reply::computer, not {other:?}"),
        }
    }
}
