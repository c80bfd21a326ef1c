//! `sightline act | observe | extract`: the LLM pipelines on one page.

use std::path::PathBuf;

use clap::Args;
use serde_json::Value;
use sightline::{
    page_text, resolve_target, ActOptions, Ai, Browser, Error, ExtractOptions, ObserveOptions, Result, Usage,
};

use crate::args::{variables, FileAccessArgs, LlmArgs, OutputArgs, PageArgs};
use crate::output::{print_json, print_out};
use crate::signals::{interruptible, shutdown_signal};

#[derive(Debug, Args)]
pub struct ActArgs {
    /// URL (http, https, file, about, data) or path to a local .html file.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// What to do, e.g. "click the Add to cart button" or "type %email% into the email field".
    pub instruction: String,
    /// A `%name%` value, substituted only when acting and never sent to the model (repeatable).
    /// `NAME@SITE=VALUE` (sites comma-separated) types it only on those sites.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Cache resolved actions here; a hit replays them with no model call.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Do not re-snapshot and retry once when the action fails.
    #[arg(long)]
    pub no_self_heal: bool,
    /// `--json` prints `{"success","message","action_description","actions","usage"}`.
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
    #[command(flatten)]
    pub files: FileAccessArgs,
}

#[derive(Debug, Args)]
pub struct ObserveArgs {
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// What to look for, e.g. "the fields of the sign-up form".
    pub instruction: String,
    /// `--json` prints `{"actions":[{description,method,arguments,selector}],"usage"}`
    #[command(flatten)]
    pub output: OutputArgs,
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
    /// `--json` prints `{"data","progress","completed","chunks_read","chunks_total","usage"}`
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
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
/// `files`: the local files a model's actions may reach (none given: any,
/// for commands whose model only reads).
async fn on_page<T>(
    target: &str,
    page_args: &PageArgs,
    files: Option<&FileAccessArgs>,
    work: impl for<'p> FnOnce(&'p sightline::Page) -> futures::future::BoxFuture<'p, Result<T>>,
) -> Result<T> {
    let url = resolve_target(target)?;
    let mut launch = page_args.launch_options()?;
    if let Some(files) = files {
        launch.origins.files = files.policy_from(Some(&url))?;
    }
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser: Browser = interruptible(signal.as_mut(), page_args.open_browser(launch)).await?;
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
    let opts = ActOptions {
        variables: variables(&args.vars)?,
        self_heal: !args.no_self_heal,
        cache_dir: args.cache_dir.clone(),
        ..ActOptions::default()
    };
    let instruction = args.instruction.clone();
    let result = on_page(&args.target, &args.page, Some(&args.files), |page| {
        Box::pin(async move { Ai::new(&llm).act(page, &instruction, &opts).await })
    })
    .await?;
    if args.output.json {
        print_json(&result);
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
    let result = on_page(&args.target, &args.page, None, |page| {
        Box::pin(async move {
            Ai::new(&llm)
                .observe(page, &instruction, &ObserveOptions::default())
                .await
        })
    })
    .await?;
    if args.output.json {
        print_json(&result);
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
    let result = on_page(&args.target, &args.page, None, |page| {
        Box::pin(async move {
            match &llm {
                Some(llm) => {
                    Ai::new(llm)
                        .extract(page, instruction.as_deref(), schema.as_ref(), &opts)
                        .await
                }
                None => page_text(page, &opts).await,
            }
        })
    })
    .await?;
    let text = if args.output.json {
        crate::output::json_text(&result)
    } else {
        match result.data.get("page_text").and_then(Value::as_str) {
            Some(t) if text_only => t.trim_end().to_string(),
            _ => serde_json::to_string_pretty(&result.data).expect("data serialises"),
        }
    };
    print_out(&format!("{text}\n"));
    // The data alone would read as all of it: say when the model did not
    // find the extraction complete (`--json` has `completed`).
    if !args.output.json && !text_only && !result.completed {
        eprintln!(
            "note: the extraction may be incomplete: {} (read {} of {} part(s) of the page)",
            if result.progress.is_empty() {
                "the model did not say it is complete"
            } else {
                result.progress.as_str()
            },
            result.chunks_read,
            result.chunks_total
        );
    }
    Ok(())
}
