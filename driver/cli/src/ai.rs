//! `sightline act | observe | extract`: the LLM pipelines on one page.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde_json::Value;
use sightline::{
    resolve_target, ActOptions, Browser, Error, ExtractOptions, LaunchOptions, Llm, LlmOptions, ObserveOptions, Result,
    Usage, Variables, ViewportSize,
};

use super::{interruptible, load_config, open_browser, parse_viewport, print_out, shutdown_signal};

/// Model flags shared by every LLM command.
#[derive(Debug, Args, Clone)]
pub struct LlmArgs {
    /// `openai/gpt-4.1-mini`, `anthropic/claude-sonnet-4-5`, or a model name
    /// on an OpenAI-compatible server (default: $SIGHTLINE_MODEL).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// API base URL (OpenAI-compatible servers, gateways, local models).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Per-request timeout of model calls.
    #[arg(long, value_name = "SECS", default_value_t = 90)]
    pub llm_timeout: u64,
    /// Retries of a model call on 429, 5xx, timeouts and connection errors.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub llm_retries: u32,
}

impl LlmArgs {
    pub fn build(&self) -> Result<Llm> {
        Llm::new(LlmOptions {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            timeout: Duration::from_secs(self.llm_timeout.max(1)),
            max_retries: self.llm_retries,
            ..LlmOptions::default()
        })
    }
}

/// Page flags shared by every LLM command.
#[derive(Debug, Args, Clone)]
pub struct PageArgs {
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_viewport)]
    pub viewport: ViewportSize,
    /// Configuration file (default: ./sightline.toml when present).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Show the browser window.
    #[arg(long)]
    pub headed: bool,
    /// Use a running browser instead of launching one: `ws://…` or `http://host:port`.
    #[arg(long, value_name = "URL")]
    pub cdp_url: Option<String>,
}

#[derive(Debug, Args)]
pub struct ActArgs {
    /// URL (http, https, file, about, data) or path to a local .html file.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// What to do, e.g. "click the Add to cart button" or "type %email% into the email field".
    pub instruction: String,
    /// A `%name%` value, substituted only when acting and never sent to the model (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Cache resolved actions here; a hit replays them with no model call.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Do not re-snapshot and retry once when the action fails.
    #[arg(long)]
    pub no_self_heal: bool,
    /// Print `{"success","message","action_description","actions","usage"}`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Args)]
pub struct ObserveArgs {
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// What to look for, e.g. "the fields of the sign-up form".
    pub instruction: String,
    /// Print `{"actions":[{description,method,arguments,selector}],"usage"}`
    /// (a file `sightline run --steps` can play).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// What to extract; without it, the page's text is printed (no model call).
    pub instruction: Option<String>,
    /// JSON Schema of the result: a file, or the JSON itself.
    #[arg(long, value_name = "FILE|JSON")]
    pub schema: Option<String>,
    /// Read pages larger than this many tokens in chunks.
    #[arg(long, value_name = "TOKENS", default_value_t = 60_000)]
    pub token_budget: usize,
    /// Print `{"data","progress","completed","chunks_read","chunks_total","usage"}` instead of the data.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
}

impl PageArgs {
    /// Launch options from these flags and the configuration file (read now,
    /// so a bad file fails before a browser starts).
    pub fn launch_options(&self) -> Result<LaunchOptions> {
        let config = load_config(self.config.as_deref())?;
        Ok(LaunchOptions {
            headed: self.headed,
            viewport: self.viewport,
            remove_blocker: config.remove_blocker,
            ..LaunchOptions::default()
        })
    }
}

/// Reads `--schema`: inline JSON, else a file.
fn read_schema(arg: &str) -> Result<Value> {
    let trimmed = arg.trim_start();
    let text = if trimmed.starts_with('{') || trimmed.starts_with('[') || trimmed == "true" {
        arg.to_string()
    } else {
        std::fs::read_to_string(arg).map_err(|_| Error::NoSuchFile {
            path: PathBuf::from(arg),
            hint: None,
        })?
    };
    serde_json::from_str(&text).map_err(|e| Error::InvalidAction(format!("--schema is not JSON: {e}")))
}

fn usage_line(u: &Usage) -> String {
    format!(
        "{} call(s), {} input tokens ({} cached), {} output tokens, {} ms in the model",
        u.calls, u.input_tokens, u.cached_input_tokens, u.output_tokens, u.inference_ms
    )
}

/// Opens the browser and the page, runs `work`, always closes the browser.
async fn on_page<T>(
    target: &str,
    page_args: &PageArgs,
    work: impl for<'p> FnOnce(&'p sightline::Page) -> futures::future::BoxFuture<'p, Result<T>>,
) -> Result<T> {
    let url = resolve_target(target)?;
    let launch = page_args.launch_options()?;
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser: Browser = interruptible(signal.as_mut(), open_browser(page_args.cdp_url.as_deref(), launch)).await?;
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        page.goto(&url).await?;
        work(&page).await
    })
    .await;
    browser.close().await?;
    outcome
}

pub async fn act(args: ActArgs) -> Result<()> {
    // Everything that needs no browser first: model, key, variables.
    let llm = args.llm.build()?;
    let mut vars = BTreeMap::new();
    for v in &args.vars {
        let (k, val) = Variables::parse_assignment(v)?;
        vars.insert(k, val);
    }
    let opts = ActOptions {
        variables: Variables::new(vars)?,
        self_heal: !args.no_self_heal,
        cache_dir: args.cache_dir.clone(),
        ..ActOptions::default()
    };
    let instruction = args.instruction.clone();
    let result = on_page(&args.target, &args.page, |page| {
        Box::pin(async move { page.act(&llm, &instruction, &opts).await })
    })
    .await?;
    if args.json {
        print_out(&format!(
            "{}\n",
            serde_json::to_string(&result).expect("result serialises")
        ));
    } else if result.success {
        let hit = if result.cache_hit { " (from the cache)" } else { "" };
        print_out(&format!("{}{hit}\n{}\n", result.message, usage_line(&result.usage)));
    }
    if result.success {
        Ok(())
    } else {
        Err(Error::ActFailed(result.message))
    }
}

pub async fn observe(args: ObserveArgs) -> Result<()> {
    let llm = args.llm.build()?;
    let instruction = args.instruction.clone();
    let result = on_page(&args.target, &args.page, |page| {
        Box::pin(async move { page.observe(&llm, &instruction, &ObserveOptions::default()).await })
    })
    .await?;
    if args.json {
        print_out(&format!(
            "{}\n",
            serde_json::to_string(&result).expect("result serialises")
        ));
        return Ok(());
    }
    let mut out = String::new();
    for (i, a) in result.actions.iter().enumerate() {
        let args = if a.arguments.is_empty() {
            String::new()
        } else {
            format!(" {:?}", a.arguments)
        };
        let frame = a.frame.as_deref().map(|f| format!(" (frame {f})")).unwrap_or_default();
        out.push_str(&format!(
            "{}. {} {}{args}{frame} — {}\n",
            i + 1,
            a.method,
            a.selector.as_deref().unwrap_or_default(),
            a.description.as_deref().unwrap_or_default()
        ));
    }
    if result.actions.is_empty() {
        out.push_str("nothing on the page matches\n");
    }
    out.push_str(&usage_line(&result.usage));
    out.push('\n');
    print_out(&out);
    Ok(())
}

pub async fn extract(args: ExtractArgs) -> Result<()> {
    let schema = args.schema.as_deref().map(read_schema).transpose()?;
    if let Some(s) = &schema {
        sightline::llm::schema::check_schema(s).map_err(|e| Error::InvalidAction(format!("--schema: {e}")))?;
    }
    let instruction = args.instruction.clone().filter(|i| !i.trim().is_empty());
    // No instruction: the page's text, and no model needed.
    let llm = match &instruction {
        Some(_) => Some(args.llm.build()?),
        None => None,
    };
    let opts = ExtractOptions {
        token_budget: args.token_budget.max(500),
        ..ExtractOptions::default()
    };
    let text_only = instruction.is_none();
    let result = on_page(&args.target, &args.page, |page| {
        Box::pin(async move {
            match &llm {
                Some(llm) => page.extract(llm, instruction.as_deref(), schema.as_ref(), &opts).await,
                None => page.page_text(&opts).await,
            }
        })
    })
    .await?;
    let text = if args.json {
        serde_json::to_string(&result).expect("result serialises")
    } else {
        match result.data.get("page_text").and_then(Value::as_str) {
            Some(t) if text_only => t.trim_end().to_string(),
            _ => serde_json::to_string_pretty(&result.data).expect("data serialises"),
        }
    };
    print_out(&format!("{text}\n"));
    Ok(())
}
