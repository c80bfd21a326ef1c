//! `sightline agent` (the autonomous tool loop) and `sightline replay` (a
//! saved run, with no model).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use sightline::agent::AgentAction;
use sightline::eval::Evaluation;
use sightline::{
    resolve_target, ActOptions, Agent, AgentMode, AgentOptions, AgentResult, Browser, Error, EvaluateOptions,
    ReplayOptions, Result, SafetyChecks, SavedRun, Usage,
};

use crate::args::{variables, FileAccessArgs, JudgeArgs, LlmArgs, OutputArgs, PageArgs};
use crate::extension::ExtensionArgs;
use crate::output::{print_json, print_out};
use crate::signals::{interruptible, shutdown_signal};

#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The task, e.g. "buy the Alpine Trail Runner in EU 42".
    /// (Optional to clap only: a missing task is said in our words, as
    /// `--evaluate` may have taken it for its question.)
    pub task: Option<String>,
    /// Open this URL (or local .html file) first.
    #[arg(long, value_name = "URL|FILE")]
    pub url: Option<String>,
    /// Model turns before the run stops as not completed.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_steps: u32,
    /// dom: the page as a text tree with refs; cua: the provider's computer
    /// tool (screenshots and coordinates: anthropic/claude-…, openai/computer-use-preview,
    /// google/gemini-…-computer-use-…); hybrid: both kinds of tools and an annotated screenshot.
    #[arg(long, value_name = "MODE", default_value = "dom", value_parser = parse_mode)]
    pub mode: AgentMode,
    /// Computer use: what to do when the provider flags an action for
    /// confirmation: deny (stop the run) or allow (acknowledge it; the
    /// result and the report list each one).
    #[arg(long, value_name = "POLICY", default_value = "deny", value_parser = parse_safety)]
    pub safety_checks: SafetyChecks,
    /// Screenshots kept in the conversation (older ones become a short note).
    /// OpenAI computer use chains its turns on the server
    /// (`previous_response_id`), which keeps the earlier screenshots itself
    /// and trims them (`truncation: auto`); it also needs stored responses.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub keep_screenshots: usize,
    /// Only visit this domain (and its subdomains); repeatable. `host:port` pins a port.
    #[arg(long = "allowed-domain", value_name = "DOMAIN")]
    pub allowed_domains: Vec<String>,
    /// A `%name%` value, substituted only when acting and never sent to the model (repeatable).
    /// `NAME@SITE=VALUE` (sites comma-separated) types it only on those sites.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// Replace the default system prompt (the goal is appended).
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
    /// Time limit of one tool call.
    #[arg(long, value_name = "SECS", default_value_t = 45)]
    pub tool_timeout: u64,
    /// Cache act's resolved actions here.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Write a self-contained HTML trace report (screenshots, calls, reasoning, results, tokens).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Save the deterministic steps for `sightline replay`.
    #[arg(long, value_name = "FILE")]
    pub save_run: Option<PathBuf>,
    /// When the run ends, have a judge look at its final screenshots and
    /// answer this question (alone: was the task completed?). The result
    /// gets a `verdict`; the exit status is 0 only for YES.
    #[arg(long, value_name = "QUESTION", num_args = 0..=1, default_missing_value = "")]
    pub evaluate: Option<String>,
    #[command(flatten)]
    pub judge: JudgeArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// No live progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
    #[command(flatten)]
    pub files: FileAccessArgs,
    #[command(flatten)]
    pub extension: ExtensionArgs,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A run saved by `sightline agent --save-run`.
    pub run: PathBuf,
    /// Values of the run's `%name%` variables (repeatable; `NAME@SITE=VALUE` binds one to sites).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Lets a step whose selector no longer resolves heal through act
    /// (default: $SIGHTLINE_MODEL when set; otherwise no model is used).
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
    /// With a model (healing): which local files its choices may reach.
    #[command(flatten)]
    pub files: FileAccessArgs,
}

fn parse_mode(s: &str) -> std::result::Result<AgentMode, String> {
    s.parse()
}

fn parse_safety(s: &str) -> std::result::Result<SafetyChecks, String> {
    s.parse()
}

fn short(text: &str, n: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() <= n {
        line.to_string()
    } else {
        format!("{}…", line.chars().take(n).collect::<String>())
    }
}

fn kilo(n: u64) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// `step 3 · act · Action performed: click … · 12.3k tokens`.
fn progress_line(a: &AgentAction, total: &Usage) -> String {
    let mark = if a.trace.ok { "·" } else { "✗" };
    format!(
        "step {} {mark} {} · {} · {} tokens",
        a.trace.step,
        a.tool,
        short(&a.result, 90),
        kilo(total.total_tokens())
    )
}

fn summary(r: &AgentResult) -> String {
    let verdict = if r.interrupted {
        "interrupted"
    } else if r.success {
        "done"
    } else if r.completed {
        "not achieved"
    } else {
        "not completed"
    };
    let mut s = format!("{verdict}: {}\n", r.message);
    for c in &r.safety_checks {
        s.push_str(&format!(
            "safety check at step {}: {} before {}: {} ({})\n",
            c.step,
            c.code,
            c.action,
            c.message,
            if c.acknowledged { "acknowledged" } else { "denied" }
        ));
    }
    if let Some(v) = &r.verdict {
        s.push_str(&format!("judged {}: {}\n", v.evaluation, v.reasoning));
    }
    if let Some(out) = &r.output {
        let text = match out {
            serde_json::Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap_or_default(),
        };
        s.push_str(&format!("output: {text}\n"));
    }
    let u = &r.usage;
    s.push_str(&format!(
        "{} step(s), {} tool call(s), {} input tokens ({} cached), {} output tokens, {} ms in the model\n",
        r.steps,
        r.actions.len(),
        u.input_tokens,
        u.cached_input_tokens,
        u.output_tokens,
        u.inference_ms
    ));
    s
}

pub async fn agent(args: AgentArgs) -> Result<()> {
    let Some(task) = args.task.clone().filter(|t| !t.trim().is_empty()) else {
        return Err(Error::Config(
            match args.evaluate.as_deref().filter(|q| !q.is_empty()) {
                Some(q) => format!(
                    "no task: --evaluate took {q:?} as its question. Put the task before --evaluate, or write \
--evaluate=QUESTION"
                ),
                None => "no task: give it as the first argument (sightline agent \"TASK\" --url URL)".into(),
            },
        ));
    };
    let llm = args.llm.build()?;
    let evaluate = match &args.evaluate {
        None => None,
        Some(question) => Some(EvaluateOptions {
            question: Some(question.clone()).filter(|q| !q.trim().is_empty()),
            judge: args.judge.options(&args.llm).map(sightline::Llm::new).transpose()?,
        }),
    };
    let vars = variables(&args.vars)?;
    let start = args.url.as_deref().map(resolve_target).transpose()?;
    let mut launch = args.page.launch_options()?;
    launch.origins.files = args.files.policy_from(start.as_deref())?;
    // Pages outside the allowed domains are refused as the browser asks
    // for them (a link, a form's POST with its data): the run's own check
    // afterwards only says so and goes back.
    launch.origins.allowed = sightline::AllowedDomains::new(&args.allowed_domains);
    launch.origins.top_level_only = true;
    let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
    let signal = shutdown_signal();
    tokio::pin!(signal);
    // With --extension, the tab the user shared in their own browser;
    // otherwise a new tab of a browser we launch (or reach with --cdp-url).
    let (browser, shared_tab, bridge) = if args.extension.extension {
        if args.page.cdp_url.is_some() {
            return Err(Error::Config("--extension and --cdp-url exclude each other".into()));
        }
        let session = interruptible(signal.as_mut(), args.extension.open("sightline agent", launch)).await?;
        (session.browser, Some(session.page), Some(session.bridge))
    } else {
        let browser: Browser = interruptible(signal.as_mut(), args.page.open_browser(launch)).await?;
        (browser, None, None)
    };
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let opts = AgentOptions {
        mode: args.mode,
        safety_checks: args.safety_checks,
        keep_screenshots: args.keep_screenshots.max(1),
        max_steps: args.max_steps.max(1),
        tool_timeout: Duration::from_secs(args.tool_timeout.max(1)),
        system_instructions: args.instructions.clone(),
        allowed_domains: args.allowed_domains.clone(),
        variables: vars.clone(),
        act: ActOptions {
            cache_dir: args.cache_dir.clone(),
            ..ActOptions::default()
        },
        screenshots: args.report.is_some(),
        evaluate,
        start_url: start,
        cancel: Some(cancel_rx),
        progress: show_progress.then(|| -> sightline::agent::ProgressFn {
            Arc::new(|a: &AgentAction, u: &Usage| eprintln!("{}", progress_line(a, u)))
        }),
        ..AgentOptions::default()
    };
    let outcome = {
        let run = async {
            let page = match shared_tab.clone() {
                Some(page) => page,
                None => browser.new_page().await?,
            };
            Agent::new(&page, &llm, opts)
                .with_browser(&browser)
                .execute(&task)
                .await
        };
        tokio::pin!(run);
        tokio::select! {
            r = &mut run => r,
            _ = signal.as_mut() => {
                // Let the loop stop at its next await and hand back what it did.
                let _ = cancel_tx.send(true);
                run.await
            }
        }
    };
    browser.close().await?;
    drop(bridge);
    let result = outcome?;
    if let Some(path) = &args.report {
        std::fs::write(path, result.report_html())
            .map_err(|e| Error::Io(format!("cannot write the report {}: {e}", path.display())))?;
    }
    if let Some(path) = &args.save_run {
        result.run.save(path)?;
    }
    if args.output.json {
        print_json(&result);
    } else {
        print_out(&summary(&result));
    }
    match (&result.verdict, result.interrupted) {
        (_, true) => Err(Error::Interrupted),
        // Asked for a judge: its verdict decides, not the agent's claim.
        (Some(v), false) if v.evaluation == Evaluation::Yes => Ok(()),
        (Some(v), false) => Err(Error::Eval(format!(
            "the judge answered {}: {}",
            v.evaluation, v.reasoning
        ))),
        // Asked, yet no verdict: Ctrl-C came while the judge looked.
        (None, false) if args.evaluate.is_some() => Err(Error::Interrupted),
        (None, false) if result.success => Ok(()),
        (None, false) => Err(Error::AgentFailed(format!(
            "the task was not completed: {}",
            result.message
        ))),
    }
}

pub async fn replay(args: ReplayArgs) -> Result<()> {
    let run = SavedRun::load(&args.run)?;
    let vars = variables(&args.vars)?;
    let llm = args.llm.build_if_named()?;
    let mut launch = args.page.launch_options()?;
    // A model healing a step reads untrusted pages: it gets the run's own
    // files (its start page's folder, the uploads it recorded), not any file.
    if llm.is_some() {
        launch.origins.files = args.files.policy(run.local_inputs())?;
    }
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser: Browser = interruptible(signal.as_mut(), args.page.open_browser(launch)).await?;
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        run.replay(
            &page,
            &ReplayOptions {
                variables: vars,
                llm: llm.as_ref(),
                browser: Some(&browser),
            },
        )
        .await
    })
    .await;
    browser.close().await?;
    let report = outcome?;
    if args.output.json {
        print_json(&report);
    } else {
        let mut s = String::new();
        for (i, step) in report.steps.iter().enumerate() {
            let status = match (step.ok, step.healed) {
                (false, _) => "FAIL",
                (true, true) => "heal",
                (true, false) => "ok  ",
            };
            s.push_str(&format!(
                "{}/{} {status} {} {}\n",
                i + 1,
                run.steps.len(),
                step.tool,
                step.detail
            ));
        }
        print_out(&s);
    }
    if report.success {
        Ok(())
    } else {
        let failed = report.steps.last().map(|s| s.detail.clone()).unwrap_or_default();
        Err(Error::AgentFailed(format!("replay stopped: {failed}")))
    }
}
