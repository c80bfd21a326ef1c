//! Flag groups every command shares: the page (browser and timeouts), the
//! model, the judge, and the output. Each command flattens the groups it needs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use sightline::{
    Browser, Config, FileAccess, LaunchOptions, Llm, LlmOptions, LocalInputs, Result, Variables, ViewportSize,
    WaitUntil,
};

/// Browser and page flags.
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
    /// How long an action waits for its element to become actionable.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub action_timeout: u64,
    /// Longest wait for the page to be ready after navigations and actions
    /// and before snapshots (0: no wait).
    #[arg(long, visible_alias = "settle-timeout", value_name = "MS", default_value_t = 5000)]
    pub ready_timeout: u64,
    /// What steps wait for: `ready` (as a user would see it, the default),
    /// `load` (navigations also wait for the load event) or `networkidle`
    /// (the load event, then 500 ms without requests). Default: the
    /// configuration file's `wait_until`, else `ready`.
    #[arg(long, value_name = "WHEN")]
    pub wait_until: Option<WaitUntil>,
    /// How long navigations wait for their document.
    #[arg(long, value_name = "MS", default_value_t = 30000, value_parser = clap::value_parser!(u64).range(1..))]
    pub navigation_timeout: u64,
    /// An extra Chromium switch, without the leading `--` (repeatable).
    #[arg(long = "chrome-arg", value_name = "SWITCH")]
    pub chrome_args: Vec<String>,
}

impl PageArgs {
    /// Launch options from these flags and the configuration file (read now,
    /// so a bad file fails before a browser starts).
    pub fn launch_options(&self) -> Result<LaunchOptions> {
        let config = load_config(self.config.as_deref())?;
        Ok(LaunchOptions {
            headed: self.headed,
            viewport: self.viewport,
            action_timeout: Duration::from_millis(self.action_timeout),
            ready_timeout: Duration::from_millis(self.ready_timeout),
            wait_until: self.wait_until.or(config.wait_until).unwrap_or_default(),
            navigation_timeout: Duration::from_millis(self.navigation_timeout),
            remove_blocker: config.remove_blocker,
            extra_args: self.chrome_args.clone(),
            ..LaunchOptions::default()
        })
    }

    /// Launches Chromium, or connects to the browser at `--cdp-url`.
    pub async fn open_browser(&self, launch: LaunchOptions) -> Result<Browser> {
        match self.cdp_url.as_deref() {
            Some(url) => Browser::connect(url, launch).await,
            None => Browser::launch(launch).await,
        }
    }
}

/// Local files for runs a model drives (agent, act, batch, eval, session
/// and steps runs with a model): pages it steers read untrusted text, so
/// they may only load (`file:`) and upload the files the run was given, and
/// those of the working directory but its hidden entries, unless the user
/// allows more, as for the MCP server.
#[derive(Debug, Args, Clone, Default)]
pub struct FileAccessArgs {
    /// Local files pages may load (`file:`) and upload, besides the working
    /// directory (not its hidden entries) and the files the run was given
    /// (start pages and their folders, a task file's or suite's folder,
    /// uploads its steps name): directories or files (repeat the flag), or
    /// `all` for any.
    #[arg(long = "allow-file-access", value_name = "PATH|all", action = clap::ArgAction::Append)]
    pub allow_file_access: Vec<PathBuf>,
}

impl FileAccessArgs {
    /// The policy: `all`, or the working directory, the run's `inputs`
    /// and what was allowed.
    pub fn policy(&self, inputs: LocalInputs) -> Result<FileAccess> {
        let access = file_access(&self.allow_file_access)?;
        access.add_workspace(std::env::current_dir().ok().into_iter().chain(inputs.folders));
        access.add(inputs.files);
        Ok(access)
    }

    /// [`FileAccessArgs::policy`] for a run that starts on `url`.
    pub fn policy_from(&self, url: Option<&str>) -> Result<FileAccess> {
        let mut inputs = LocalInputs::default();
        if let Some(url) = url {
            inputs.page(url);
        }
        self.policy(inputs)
    }
}

/// `--allow-file-access`: `all`, or paths that exist.
pub fn file_access(given: &[PathBuf]) -> Result<FileAccess> {
    if given.iter().any(|p| p.as_os_str() == "all") {
        return Ok(FileAccess::anywhere());
    }
    for p in given {
        if !p.exists() {
            return Err(sightline::Error::NoSuchFile {
                path: p.clone(),
                hint: Some(" (given to --allow-file-access)".into()),
            });
        }
    }
    Ok(FileAccess::within(given.iter().cloned()))
}

/// Model flags.
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
        Ok(Llm::new(self.options())?)
    }

    /// The options these flags give (the model may still be unnamed).
    pub fn options(&self) -> LlmOptions {
        LlmOptions {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            timeout: Duration::from_secs(self.llm_timeout.max(1)),
            max_retries: self.llm_retries,
            ..LlmOptions::default()
        }
    }

    /// A model when one is named (`--model` or $SIGHTLINE_MODEL), else none.
    pub fn build_if_named(&self) -> Result<Option<Llm>> {
        let named = self.model.is_some() || std::env::var_os(sightline::llm::MODEL_ENV).is_some();
        named.then(|| self.build()).transpose()
    }
}

/// The judge's model (`agent --evaluate`, batch tasks with `evaluate`, `eval`).
#[derive(Debug, Args, Clone)]
pub struct JudgeArgs {
    /// The judge's model (default: the run's model; the judge's calls are
    /// counted apart from the run's tokens).
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// The judge's API base URL (default: --base-url).
    #[arg(long, value_name = "URL")]
    pub judge_base_url: Option<String>,
}

impl JudgeArgs {
    /// The judge's options; `None`: the run's own model judges.
    pub fn options(&self, llm: &LlmArgs) -> Option<LlmOptions> {
        if self.judge_model.is_none() && self.judge_base_url.is_none() {
            return None;
        }
        Some(LlmOptions {
            model: self.judge_model.clone().or_else(|| llm.model.clone()),
            base_url: self.judge_base_url.clone().or_else(|| llm.base_url.clone()),
            ..llm.options()
        })
    }
}

/// Output flags.
#[derive(Debug, Args, Clone)]
pub struct OutputArgs {
    /// Print the result as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `--var NAME=VALUE` assignments as variables.
pub fn variables(vars: &[String]) -> Result<Variables> {
    let mut map = BTreeMap::new();
    for v in vars {
        let (k, val) = Variables::parse_assignment(v)?;
        map.insert(k, val);
    }
    Variables::new(map)
}

/// `--config FILE`, else `./sightline.toml` when present, else the defaults.
pub fn load_config(path: Option<&std::path::Path>) -> Result<Config> {
    match path {
        Some(path) => Config::load(path),
        None => Config::discover(),
    }
}

pub fn parse_viewport(s: &str) -> std::result::Result<ViewportSize, String> {
    s.parse()
}
