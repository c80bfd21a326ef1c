//! The model client: configuration (model string, base URL, key from the
//! environment), the HTTP exchange with retries, and the usage log.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::errors::{LlmError, LlmErrorKind};
use super::retry::{backoff_delay, retry_after};
pub use super::secrets::Secrets;
use super::types::*;
use super::{anthropic, gemini, openai, openai_responses};
use crate::text::{clip, one_line};

type Result<T, E = LlmError> = std::result::Result<T, E>;

/// Default model when `--model` is not given.
pub const MODEL_ENV: &str = "SIGHTLINE_MODEL";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// OpenAI and every server with an OpenAI-compatible Chat Completions API.
    OpenAi,
    Anthropic,
    /// Google's Gemini API.
    Google,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Google => "google",
        }
    }

    /// Where the key is read from, in order.
    fn key_envs(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_API_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY"],
            Provider::Google => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        }
    }

    fn base_url_env(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_BASE_URL",
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
            Provider::Google => "GOOGLE_GEMINI_BASE_URL",
        }
    }

    fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => openai::DEFAULT_BASE_URL,
            Provider::Anthropic => anthropic::DEFAULT_BASE_URL,
            Provider::Google => gemini::DEFAULT_BASE_URL,
        }
    }
}

/// How to reach the model.
#[derive(Clone)]
pub struct LlmOptions {
    /// `openai/gpt-4.1-mini`, `anthropic/claude-sonnet-4-5`,
    /// `google/gemini-2.5-flash`, or a bare model name (`claude-…` means
    /// Anthropic, `gemini-…` Google, anything else an OpenAI-compatible
    /// server). Default: `$SIGHTLINE_MODEL`.
    pub model: Option<String>,
    /// Default: `$OPENAI_BASE_URL` / `$ANTHROPIC_BASE_URL` /
    /// `$GOOGLE_GEMINI_BASE_URL`, else the provider's.
    pub base_url: Option<String>,
    /// Default: `$OPENAI_API_KEY` / `$ANTHROPIC_API_KEY` / `$GEMINI_API_KEY`
    /// (or `$GOOGLE_API_KEY`). Never logged.
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

/// `openai/x` → (OpenAI, x); `anthropic/x` → (Anthropic, x); `google/x`
/// (or `gemini/x`) → (Google, x); `claude-…` → Anthropic; `gemini-…` →
/// Google; any other name (`llama3`, `meta-llama/…` on OpenRouter) is sent
/// as is to an OpenAI-compatible server.
pub fn parse_model(spec: &str) -> (Provider, String) {
    let spec = spec.trim();
    if let Some((prefix, rest)) = spec.split_once('/') {
        match prefix.to_ascii_lowercase().as_str() {
            "openai" => return (Provider::OpenAi, rest.to_string()),
            "anthropic" => return (Provider::Anthropic, rest.to_string()),
            "google" | "gemini" => return (Provider::Google, rest.to_string()),
            _ => {}
        }
    }
    let lower = spec.to_ascii_lowercase();
    if lower.starts_with("claude") {
        (Provider::Anthropic, spec.to_string())
    } else if lower.starts_with("gemini") {
        (Provider::Google, spec.to_string())
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
                "no model given: pass --model openai/gpt-4.1-mini (or anthropic/claude-sonnet-4-5, google/gemini-2.5-flash), or set {MODEL_ENV}"
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
            .unwrap_or_else(|| provider.default_base_url().to_string());
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
            .or_else(|| provider.key_envs().iter().find_map(|e| env_nonempty(e)));
        // Local servers (Ollama, llama.cpp, vLLM on this machine) need no key.
        if key.is_none() && !is_loopback(&base_url) {
            let env = provider.key_envs()[0];
            return Err(LlmError::Setup(format!(
                "{env} is not set: export {env}=… to use {}/{model} (the key is read from the environment and never printed)",
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

    /// The same model, base URL, key and options, with a usage log of its
    /// own: a judge's calls are counted apart from the run it judges.
    pub fn with_own_log(&self) -> Llm {
        let i = &self.inner;
        Llm {
            inner: Arc::new(Inner {
                provider: i.provider,
                model: i.model.clone(),
                base_url: i.base_url.clone(),
                key: i.key.clone(),
                http: i.http.clone(),
                opts: i.opts.clone(),
                log: Mutex::new(Vec::new()),
            }),
        }
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
                    || m.starts_with("computer-use")
            }
            Provider::Google => true,
        }
    }

    /// The API a request goes to: OpenAI models go through Chat Completions
    /// unless the request needs the Responses API (computer use, chaining)
    /// or the model is only served there.
    pub fn api_for(&self, req: &ChatRequest) -> Api {
        match self.inner.provider {
            Provider::Anthropic => Api::Messages,
            Provider::Google => Api::GenerateContent,
            Provider::OpenAi
                if req.computer.is_some()
                    || req.previous_response_id.is_some()
                    || openai_responses::needs_responses_api(&self.inner.model) =>
            {
                Api::Responses
            }
            Provider::OpenAi => Api::ChatCompletions,
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
        let (o, model) = (&self.inner.opts, self.inner.model.as_str());
        match self.api_for(req) {
            Api::ChatCompletions => openai::request_body(model, req, o.max_tokens, o.temperature),
            Api::Responses => openai_responses::request_body(model, req, o.max_tokens, o.temperature),
            Api::Messages => anthropic::request_body(model, req, o.max_tokens, o.temperature),
            Api::GenerateContent => gemini::request_body(req, o.max_tokens, o.temperature),
        }
    }

    /// One model call, retried per the options; secrets are redacted from
    /// the request before it leaves.
    pub async fn chat(&self, req: &ChatRequest, secrets: &Secrets) -> Result<ChatResponse> {
        let mut body = self.request_body(req);
        secrets.redact_json(&mut body);
        let body = body.to_string();
        let api = self.api_for(req);
        let beta = match api {
            Api::Messages => anthropic::beta_header(&self.inner.model, req),
            _ => None,
        };
        // Time spent on the model's answers: every attempt, not the pauses
        // between them (a Retry-After of 3 s is no model latency).
        let mut waited = Duration::ZERO;
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let asked = Instant::now();
            let outcome = self.send_once(api, beta, &body).await;
            waited += asked.elapsed();
            match outcome {
                Ok(mut response) => {
                    response.usage.inference_ms = waited.as_millis() as u64;
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
                        inference_ms: waited.as_millis() as u64,
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

    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let o = &self.inner.opts;
        backoff_delay(attempt, retry_after, o.retry_base_delay, o.max_retry_delay)
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

    async fn send_once(
        &self,
        api: Api,
        beta: Option<&str>,
        body: &str,
    ) -> std::result::Result<ChatResponse, (LlmErrorKind, Option<Duration>)> {
        let inner = &self.inner;
        let (base, model) = (inner.base_url.as_str(), inner.model.as_str());
        let url = match api {
            Api::ChatCompletions => openai::endpoint(base),
            Api::Responses => openai_responses::endpoint(base),
            Api::Messages => anthropic::endpoint(base),
            Api::GenerateContent => gemini::endpoint(base, model),
        };
        let mut rb = inner.http.post(url);
        rb = match (inner.provider, &inner.key) {
            (Provider::OpenAi, Some(k)) => rb.bearer_auth(k),
            (Provider::Anthropic, Some(k)) => rb.header("x-api-key", k),
            (Provider::Google, Some(k)) => rb.header("x-goog-api-key", k),
            (_, None) => rb,
        };
        if api == Api::Messages {
            rb = rb.header("anthropic-version", anthropic::API_VERSION);
        }
        if let Some(beta) = beta {
            rb = rb.header("anthropic-beta", beta);
        }
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
                let page = text.trim_start().starts_with('<');
                let message = format!("not JSON: {}", clip(&text, 120));
                return Err((
                    if page {
                        LlmErrorKind::NotTheApi { message }
                    } else {
                        LlmErrorKind::BadResponse { message }
                    },
                    None,
                ));
            };
            let parsed = match api {
                Api::ChatCompletions => openai::parse_response(&json),
                Api::Responses => openai_responses::parse_response(&json),
                Api::Messages => anthropic::parse_response(&json),
                Api::GenerateContent => gemini::parse_response(&json),
            };
            return parsed.map_err(|message| (LlmErrorKind::BadResponse { message }, None));
        }
        let json = json.unwrap_or(Value::Null);
        let (message, unknown_model) = match api {
            Api::ChatCompletions | Api::Responses => {
                (openai::error_message(&json), openai::is_unknown_model(status, &json))
            }
            Api::Messages => (
                anthropic::error_message(&json),
                anthropic::is_unknown_model(status, &json),
            ),
            Api::GenerateContent => (gemini::error_message(&json), gemini::is_unknown_model(status, &json)),
        };
        let message = message.unwrap_or_else(|| clip(&one_line(&text), 200));
        let kind = match status {
            401 | 403 => LlmErrorKind::Auth { status, message },
            // Gemini answers a wrong key with 400 API_KEY_INVALID.
            400 if message.contains("API key not valid") => LlmErrorKind::Auth { status, message },
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
        assert_eq!(
            parse_model("google/gemini-2.5-computer-use-preview-10-2025"),
            (Provider::Google, "gemini-2.5-computer-use-preview-10-2025".into())
        );
        assert_eq!(parse_model("gemini-2.5-flash").0, Provider::Google);
    }

    #[test]
    fn apis_follow_the_provider_and_the_request() {
        let llm = |m: &str| {
            Llm::new(LlmOptions {
                model: Some(m.into()),
                base_url: Some("http://127.0.0.1:1".into()),
                ..Default::default()
            })
            .unwrap()
        };
        let plain = ChatRequest::default();
        let computer = ChatRequest {
            computer: Some(super::super::ComputerSpec {
                display_width: 10,
                display_height: 10,
            }),
            ..Default::default()
        };
        assert_eq!(llm("openai/gpt-4.1-mini").api_for(&plain), Api::ChatCompletions);
        assert_eq!(llm("openai/gpt-5.4").api_for(&computer), Api::Responses);
        assert_eq!(llm("openai/computer-use-preview").api_for(&plain), Api::Responses);
        assert_eq!(llm("anthropic/claude-sonnet-4-5").api_for(&computer), Api::Messages);
        assert_eq!(llm("google/gemini-2.5-flash").api_for(&plain), Api::GenerateContent);
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
    fn backoff_follows_the_options() {
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
