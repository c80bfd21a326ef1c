//! The model client: configuration (model string, base URL, key from the
//! environment), the HTTP exchange with retries, and the usage log.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;
use serde_json::Value;

use super::errors::{LlmError, LlmErrorKind};
use super::types::*;
use super::{anthropic, openai};

type Result<T, E = LlmError> = std::result::Result<T, E>;

/// Default model when `--model` is not given.
pub const MODEL_ENV: &str = "SIGHTLINE_MODEL";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI and every server with an OpenAI-compatible Chat Completions API.
    OpenAi,
    Anthropic,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }

    fn key_env(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    fn base_url_env(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_BASE_URL",
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
        }
    }
}

/// How to reach the model.
#[derive(Clone)]
pub struct LlmOptions {
    /// `openai/gpt-4.1-mini`, `anthropic/claude-sonnet-4-5`, or a bare model
    /// name (`claude-…` means Anthropic, anything else an OpenAI-compatible
    /// server). Default: `$SIGHTLINE_MODEL`.
    pub model: Option<String>,
    /// Default: `$OPENAI_BASE_URL` / `$ANTHROPIC_BASE_URL`, else the provider's.
    pub base_url: Option<String>,
    /// Default: `$OPENAI_API_KEY` / `$ANTHROPIC_API_KEY`. Never logged.
    pub api_key: Option<String>,
    /// Per attempt.
    pub timeout: Duration,
    /// Retries after the first attempt (429, 5xx, timeouts, connection errors).
    pub max_retries: u32,
    /// First backoff delay; doubles per retry, with jitter.
    pub retry_base_delay: Duration,
    /// Cap on one backoff delay (also on an honoured `Retry-After`).
    pub max_retry_delay: Duration,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    /// Whether the model takes images; `None` guesses from the model name.
    pub multimodal: Option<bool>,
}

impl Default for LlmOptions {
    fn default() -> Self {
        LlmOptions {
            model: None,
            base_url: None,
            api_key: None,
            timeout: Duration::from_secs(90),
            max_retries: 3,
            retry_base_delay: Duration::from_millis(500),
            max_retry_delay: Duration::from_secs(30),
            max_tokens: 4096,
            temperature: None,
            multimodal: None,
        }
    }
}

impl fmt::Debug for LlmOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmOptions")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

/// Values that must never reach the model: each occurrence in a request is
/// replaced by its `%name%` placeholder before sending.
#[derive(Clone, Default)]
pub struct Secrets {
    pairs: Vec<(String, String)>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.pairs.iter().map(|(n, _)| n.as_str()).collect();
        write!(f, "Secrets({names:?})")
    }
}

impl Secrets {
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Secrets {
        let mut pairs: Vec<(String, String)> = pairs.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        // Longest first, so a value that contains another is replaced whole.
        pairs.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        Secrets { pairs }
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Replaces every secret value by `%name%`, both raw and as it appears
    /// escaped inside JSON text.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.pairs {
            let placeholder = format!("%{name}%");
            out = out.replace(value.as_str(), &placeholder);
            let escaped = serde_json::to_string(value).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != value {
                out = out.replace(escaped, &placeholder);
            }
        }
        out
    }
}

/// One model call in the usage log.
#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    pub purpose: String,
    pub usage: Usage,
    pub attempts: u32,
    pub ok: bool,
}

/// A model client (cheap to clone; clones share the usage log).
#[derive(Clone)]
pub struct Llm {
    inner: Arc<Inner>,
}

struct Inner {
    provider: Provider,
    model: String,
    base_url: String,
    key: Option<String>,
    http: reqwest::Client,
    opts: LlmOptions,
    log: Mutex<Vec<CallRecord>>,
}

impl fmt::Debug for Llm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Llm({}/{} at {})",
            self.inner.provider.name(),
            self.inner.model,
            self.inner.base_url
        )
    }
}

/// `openai/x` → (OpenAI, x); `anthropic/x` → (Anthropic, x); `claude-…` →
/// Anthropic; any other name (`llama3`, `meta-llama/…` on OpenRouter) is sent
/// as is to an OpenAI-compatible server.
pub fn parse_model(spec: &str) -> (Provider, String) {
    let spec = spec.trim();
    if let Some((prefix, rest)) = spec.split_once('/') {
        match prefix.to_ascii_lowercase().as_str() {
            "openai" => return (Provider::OpenAi, rest.to_string()),
            "anthropic" => return (Provider::Anthropic, rest.to_string()),
            _ => {}
        }
    }
    if spec.to_ascii_lowercase().starts_with("claude") {
        (Provider::Anthropic, spec.to_string())
    } else {
        (Provider::OpenAi, spec.to_string())
    }
}

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn is_loopback(base_url: &str) -> bool {
    url::Url::parse(base_url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| matches!(h, "127.0.0.1" | "localhost" | "[::1]" | "::1"))
        })
        .unwrap_or(false)
}

impl Llm {
    /// Resolves model, base URL and key; fails with a one-line explanation of
    /// how to set whatever is missing. No network access.
    pub fn new(opts: LlmOptions) -> Result<Llm> {
        let spec = opts
            .model
            .clone()
            .filter(|m| !m.trim().is_empty())
            .or_else(|| env_nonempty(MODEL_ENV));
        let Some(spec) = spec else {
            return Err(LlmError::Setup(format!(
                "no model given: pass --model openai/gpt-4.1-mini (or anthropic/claude-sonnet-4-5), or set {MODEL_ENV}"
            )));
        };
        let (provider, model) = parse_model(&spec);
        if model.is_empty() {
            return Err(LlmError::Setup(format!(
                "the model {spec:?} has no name after the provider"
            )));
        }
        let base_url = opts
            .base_url
            .clone()
            .filter(|b| !b.trim().is_empty())
            .or_else(|| env_nonempty(provider.base_url_env()))
            .unwrap_or_else(|| match provider {
                Provider::OpenAi => openai::DEFAULT_BASE_URL.to_string(),
                Provider::Anthropic => anthropic::DEFAULT_BASE_URL.to_string(),
            });
        match url::Url::parse(&base_url) {
            Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
            _ => {
                return Err(LlmError::Setup(format!(
                    "the base URL {base_url:?} is not an http(s) URL"
                )))
            }
        }
        let key = opts
            .api_key
            .clone()
            .filter(|k| !k.trim().is_empty())
            .or_else(|| env_nonempty(provider.key_env()));
        // Local servers (Ollama, llama.cpp, vLLM on this machine) need no key.
        if key.is_none() && !is_loopback(&base_url) {
            return Err(LlmError::Setup(format!(
                "{} is not set: export {}=… to use {}/{model} (the key is read from the environment and never printed)",
                provider.key_env(),
                provider.key_env(),
                provider.name()
            )));
        }
        // One TLS backend for the process (ring; the install fails harmlessly
        // when another part of the program installed one first).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(opts.timeout)
            .connect_timeout(opts.timeout.min(Duration::from_secs(15)))
            .user_agent(concat!("sightline/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Setup(format!("cannot build the HTTP client: {e}")))?;
        Ok(Llm {
            inner: Arc::new(Inner {
                provider,
                model,
                base_url,
                key,
                http,
                opts,
                log: Mutex::new(Vec::new()),
            }),
        })
    }

    pub fn provider(&self) -> Provider {
        self.inner.provider
    }

    pub fn model(&self) -> &str {
        &self.inner.model
    }

    /// `openai/gpt-4.1-mini`.
    pub fn model_spec(&self) -> String {
        format!("{}/{}", self.inner.provider.name(), self.inner.model)
    }

    /// Whether screenshots may be sent to this model.
    pub fn supports_images(&self) -> bool {
        if let Some(m) = self.inner.opts.multimodal {
            return m;
        }
        let m = self.inner.model.to_ascii_lowercase();
        match self.inner.provider {
            Provider::Anthropic => {
                m.starts_with("claude-3") || m.contains("sonnet") || m.contains("opus") || m.contains("haiku-4")
            }
            Provider::OpenAi => {
                m.starts_with("gpt-4o")
                    || m.starts_with("gpt-4.1")
                    || m.starts_with("gpt-5")
                    || m.starts_with("o3")
                    || m.starts_with("o4")
            }
        }
    }

    /// Every call so far (all pipelines using this client).
    pub fn calls(&self) -> Vec<CallRecord> {
        self.inner.log.lock().unwrap().clone()
    }

    pub fn total_usage(&self) -> Usage {
        let mut u = Usage::default();
        for c in self.inner.log.lock().unwrap().iter() {
            u += c.usage;
        }
        u
    }

    /// The request body as it would be sent (for token budgets and tests).
    pub fn request_body(&self, req: &ChatRequest) -> Value {
        let o = &self.inner.opts;
        match self.inner.provider {
            Provider::OpenAi => openai::request_body(&self.inner.model, req, o.max_tokens, o.temperature),
            Provider::Anthropic => anthropic::request_body(&self.inner.model, req, o.max_tokens, o.temperature),
        }
    }

    /// One model call, retried per the options; secrets are redacted from
    /// the request before it leaves.
    pub async fn chat(&self, req: &ChatRequest, secrets: &Secrets) -> Result<ChatResponse> {
        let body = secrets.redact(&self.request_body(req).to_string());
        let started = Instant::now();
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let outcome = self.send_once(&body).await;
            match outcome {
                Ok(mut response) => {
                    response.usage.inference_ms = started.elapsed().as_millis() as u64;
                    response.usage.calls = 1;
                    self.record(&req.purpose, response.usage, attempt, true);
                    return Ok(response);
                }
                Err((kind, retry_after)) => {
                    if kind.is_retryable() && attempt <= self.inner.opts.max_retries {
                        let delay = self.backoff(attempt, retry_after);
                        tracing::warn!(
                            "LLM call ({}) attempt {attempt} failed: {kind}; retrying in {} ms",
                            req.purpose,
                            delay.as_millis()
                        );
                        tokio::time::sleep(delay).await;
                        continue;
                    }
                    let usage = Usage {
                        inference_ms: started.elapsed().as_millis() as u64,
                        ..Default::default()
                    };
                    self.record(&req.purpose, usage, attempt, false);
                    let kind = self.scrub(kind);
                    return Err(LlmError::Call {
                        provider: self.inner.provider.name(),
                        kind,
                        attempts: attempt,
                    });
                }
            }
        }
    }

    fn record(&self, purpose: &str, usage: Usage, attempts: u32, ok: bool) {
        self.inner.log.lock().unwrap().push(CallRecord {
            purpose: purpose.to_string(),
            usage,
            attempts,
            ok,
        });
    }

    /// Exponential backoff with jitter (50–100% of the step), or the
    /// server's `Retry-After`, capped.
    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let o = &self.inner.opts;
        if let Some(ra) = retry_after {
            return ra.min(o.max_retry_delay);
        }
        let step = o.retry_base_delay.saturating_mul(1u32 << (attempt - 1).min(16));
        let jitter = 0.5 + 0.5 * pseudo_random();
        step.mul_f64(jitter).min(o.max_retry_delay)
    }

    /// Server messages may quote the key (masked or not): never pass it on.
    fn scrub(&self, kind: LlmErrorKind) -> LlmErrorKind {
        let Some(key) = self.inner.key.as_deref() else {
            return kind;
        };
        let clean = |m: String| if key.len() >= 4 { m.replace(key, "***") } else { m };
        match kind {
            LlmErrorKind::Auth { status, message } => LlmErrorKind::Auth {
                status,
                message: clean(message),
            },
            LlmErrorKind::BadRequest { status, message } => LlmErrorKind::BadRequest {
                status,
                message: clean(message),
            },
            LlmErrorKind::UnknownModel { model, message } => LlmErrorKind::UnknownModel {
                model,
                message: clean(message),
            },
            other => other,
        }
    }

    async fn send_once(&self, body: &str) -> std::result::Result<ChatResponse, (LlmErrorKind, Option<Duration>)> {
        let inner = &self.inner;
        let mut rb = match inner.provider {
            Provider::OpenAi => {
                let rb = inner.http.post(openai::endpoint(&inner.base_url));
                match &inner.key {
                    Some(k) => rb.bearer_auth(k),
                    None => rb,
                }
            }
            Provider::Anthropic => {
                let rb = inner
                    .http
                    .post(anthropic::endpoint(&inner.base_url))
                    .header("anthropic-version", anthropic::API_VERSION);
                match &inner.key {
                    Some(k) => rb.header("x-api-key", k),
                    None => rb,
                }
            }
        };
        rb = rb.header("content-type", "application/json").body(body.to_string());
        let response = rb
            .send()
            .await
            .map_err(|e| (transport_error(&e, inner.opts.timeout), None))?;
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let text = response
            .text()
            .await
            .map_err(|e| (transport_error(&e, inner.opts.timeout), None))?;
        let json: std::result::Result<Value, _> = serde_json::from_str(&text);
        if (200..300).contains(&status) {
            let Ok(json) = json else {
                return Err((
                    LlmErrorKind::BadResponse {
                        message: format!("not JSON: {}", clip(&text, 120)),
                    },
                    None,
                ));
            };
            let parsed = match inner.provider {
                Provider::OpenAi => openai::parse_response(&json),
                Provider::Anthropic => anthropic::parse_response(&json),
            };
            return parsed.map_err(|message| (LlmErrorKind::BadResponse { message }, None));
        }
        let json = json.unwrap_or(Value::Null);
        let message = match inner.provider {
            Provider::OpenAi => openai::error_message(&json),
            Provider::Anthropic => anthropic::error_message(&json),
        }
        .unwrap_or_else(|| clip(&one_line(&text), 200));
        let unknown_model = match inner.provider {
            Provider::OpenAi => openai::is_unknown_model(status, &json),
            Provider::Anthropic => anthropic::is_unknown_model(status, &json),
        };
        let kind = match status {
            401 | 403 => LlmErrorKind::Auth { status, message },
            _ if unknown_model => LlmErrorKind::UnknownModel {
                model: inner.model.clone(),
                message,
            },
            429 => LlmErrorKind::RateLimited { message },
            408 | 409 | 500..=599 => LlmErrorKind::Server { status, message },
            _ => LlmErrorKind::BadRequest { status, message },
        };
        Err((kind, retry_after))
    }
}

/// Collapses whitespace runs so a server's message stays on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn transport_error(e: &reqwest::Error, timeout: Duration) -> LlmErrorKind {
    if e.is_timeout() {
        LlmErrorKind::Timeout {
            secs: timeout.as_secs().max(1),
        }
    } else {
        // reqwest's Display hides the cause ("error sending request"); the
        // source chain says what happened (refused, reset, DNS…).
        let mut message = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            message = format!("{message}: {s}");
            source = s.source();
        }
        LlmErrorKind::Connection {
            message: one_line(&message),
        }
    }
}

/// `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`.
fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) = h
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
    {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let v = h.get("retry-after")?.to_str().ok()?.trim().to_string();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate_to_unix(&v)?;
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(when.saturating_sub(now)))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT` → seconds since the epoch.
fn httpdate_to_unix(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    if parts.len() != 6 {
        return None;
    }
    let day: i64 = parts[1].parse().ok()?;
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| *m == parts[2])? as i64
        + 1;
    let year: i64 = parts[3].parse().ok()?;
    let hms: Vec<i64> = parts[4].split(':').filter_map(|x| x.parse().ok()).collect();
    if hms.len() != 3 {
        return None;
    }
    // Days from civil (Howard Hinnant).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]).ok()
}

/// A number in [0, 1) without a random-number dependency (jitter only).
fn pseudo_random() -> f64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mut x = u64::from(nanos) ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_strings() {
        assert_eq!(
            parse_model("openai/gpt-4.1-mini"),
            (Provider::OpenAi, "gpt-4.1-mini".into())
        );
        assert_eq!(
            parse_model("anthropic/claude-sonnet-4-5"),
            (Provider::Anthropic, "claude-sonnet-4-5".into())
        );
        assert_eq!(
            parse_model("claude-3-5-haiku"),
            (Provider::Anthropic, "claude-3-5-haiku".into())
        );
        assert_eq!(
            parse_model("meta-llama/llama-3-70b"),
            (Provider::OpenAi, "meta-llama/llama-3-70b".into())
        );
    }

    #[test]
    fn missing_model_and_key_explain_themselves() {
        let e = Llm::new(LlmOptions {
            model: Some(String::new()),
            ..Default::default()
        });
        // SIGHTLINE_MODEL may be set in a developer's shell; only check when it isn't.
        if std::env::var(MODEL_ENV).is_err() {
            assert!(e.unwrap_err().to_string().contains("--model"));
        }
        let e = Llm::new(LlmOptions {
            model: Some("anthropic/claude-x".into()),
            base_url: Some("https://api.anthropic.com".into()),
            api_key: None,
            ..Default::default()
        });
        if std::env::var("ANTHROPIC_API_KEY").is_err() {
            let m = e.unwrap_err().to_string();
            assert!(m.contains("ANTHROPIC_API_KEY"), "{m}");
        }
        let ok = Llm::new(LlmOptions {
            model: Some("llama3".into()),
            base_url: Some("http://127.0.0.1:11434/v1".into()),
            ..Default::default()
        });
        assert!(ok.is_ok(), "local servers need no key");
    }

    #[test]
    fn secrets_are_redacted_raw_and_escaped() {
        let s = Secrets::new(vec![("pw".to_string(), "hun\"ter2".to_string())]);
        let body = serde_json::json!({"content": "type hun\"ter2 now"}).to_string();
        let red = s.redact(&body);
        assert!(!red.contains("ter2"), "{red}");
        assert!(red.contains("%pw%"));
    }

    #[test]
    fn retry_after_parsing_and_backoff() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "150".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(150)));
        assert_eq!(httpdate_to_unix("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        let llm = Llm::new(LlmOptions {
            model: Some("m".into()),
            base_url: Some("http://127.0.0.1:1/v1".into()),
            retry_base_delay: Duration::from_millis(100),
            ..Default::default()
        })
        .unwrap();
        for attempt in 1..=4u32 {
            let d = llm.backoff(attempt, None);
            let step = 100u64 << (attempt - 1);
            assert!(
                d.as_millis() as u64 >= step / 2 && d.as_millis() as u64 <= step,
                "{attempt}: {d:?}"
            );
        }
        assert_eq!(llm.backoff(1, Some(Duration::from_secs(100))), Duration::from_secs(30));
    }
}
