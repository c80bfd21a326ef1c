//! `sightline bench cua`: one computer-use task with an instant scripted
//! model, through Sightline's CUA agent and through Stagehand v3's own CUA
//! clients (npm `@browserbasehq/stagehand` 3.7.3), for each provider:
//! Anthropic, OpenAI and Gemini, each speaking its own wire format to the
//! test kit's scripted server (which validates both clients' requests).
//!
//! The task: a newsletter form behind a promo dialog (the fixture
//! `cua/newsletter.html`, 1280×720): close the promo, fill in the email,
//! subscribe. Per run: the agent's wall time (its execute call), the time
//! of each step (between consecutive model requests: the actions, the
//! screenshot, the page's readiness), whether the page ended subscribed,
//! and whether every screenshot the model got matches the declared display.

use std::time::Instant;

use serde::Serialize;
use serde_json::{json, Value};
use sightline::{Agent, AgentMode, AgentOptions, Browser, Error, LaunchOptions, Llm, LlmOptions, Result, ViewportSize};
use sightline_testkit::stagehand::{self, DevToolsChrome, StagehandTask};
use sightline_testkit::{offline_switches, FixtureServer, LlmServer, Reply};

use super::pages::{median, print_report};

#[derive(Debug, Clone, clap::Args)]
pub struct BenchCuaArgs {
    /// Runs per provider and client (the report gives medians).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runs: u32,
    /// Only these providers (anthropic, openai, gemini).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub providers: Vec<String>,
    /// Skip Stagehand (only Sightline's figures).
    #[arg(long)]
    pub no_stagehand: bool,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;
const TASK: &str = "Subscribe ada@example.org to the newsletter.";
const ADDRESS: &str = "ada@example.org";
const CHECK: &str = "window.subscribed";
/// The fixture's elements (CSS pixels; the display is the viewport, unscaled, for every provider).
const CLOSE: (f64, f64) = (860.0, 190.0);
const EMAIL: (f64, f64) = (300.0, 220.0);
const SUBSCRIBE: (f64, f64) = (600.0, 220.0);

/// A provider and its script.
struct Case {
    name: &'static str,
    model: &'static str,
    base_url: fn(&LlmServer) -> String,
    script: fn() -> Vec<Reply>,
}

fn anthropic_script() -> Vec<Reply> {
    let click = |p: (f64, f64)| Reply::tool("computer", json!({"action": "left_click", "coordinate": [p.0, p.1]}));
    vec![
        click(CLOSE),
        click(EMAIL),
        Reply::tool("computer", json!({"action": "type", "text": ADDRESS})),
        click(SUBSCRIBE),
        Reply::text("Subscribed ada@example.org."),
        Reply::tool(
            "done",
            json!({"reasoning": "Subscribed ada@example.org.", "taskComplete": true}),
        ),
    ]
}

fn openai_script() -> Vec<Reply> {
    let click = |p: (f64, f64)| Reply::computer(json!({"type": "click", "button": "left", "x": p.0, "y": p.1}));
    vec![
        click(CLOSE),
        click(EMAIL),
        Reply::computer(json!({"type": "type", "text": ADDRESS})),
        click(SUBSCRIBE),
        Reply::text("Subscribed ada@example.org."),
        Reply::tool(
            "done",
            json!({"reasoning": "Subscribed ada@example.org.", "taskComplete": true}),
        ),
    ]
}

fn gemini_script() -> Vec<Reply> {
    let grid = |p: (f64, f64)| {
        (
            (p.0 / f64::from(WIDTH) * 1000.0).round(),
            (p.1 / f64::from(HEIGHT) * 1000.0).round(),
        )
    };
    let (close, email, subscribe) = (grid(CLOSE), grid(EMAIL), grid(SUBSCRIBE));
    vec![
        Reply::tool("click_at", json!({"x": close.0, "y": close.1})),
        Reply::tool(
            "type_text_at",
            json!({"x": email.0, "y": email.1, "text": ADDRESS, "press_enter": false}),
        ),
        Reply::tool("click_at", json!({"x": subscribe.0, "y": subscribe.1})),
        Reply::text("Subscribed ada@example.org."),
        Reply::tool(
            "done",
            json!({"reasoning": "Subscribed ada@example.org.", "taskComplete": true}),
        ),
    ]
}

const CASES: [Case; 3] = [
    Case {
        name: "anthropic",
        model: "anthropic/claude-sonnet-4-5-20250929",
        base_url: LlmServer::anthropic_base_url,
        script: anthropic_script,
    },
    Case {
        name: "openai",
        model: "openai/computer-use-preview",
        base_url: LlmServer::openai_base_url,
        script: openai_script,
    },
    Case {
        name: "gemini",
        model: "google/gemini-2.5-computer-use-preview-10-2025",
        base_url: LlmServer::gemini_base_url,
        script: gemini_script,
    },
];

/// One run of one client.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub ms: f64,
    /// Between consecutive model requests (an action step each).
    pub step_ms: Vec<f64>,
    /// The page ended subscribed and the agent reported success.
    pub done: bool,
    pub screenshots: usize,
    /// Screenshots at the size the request declared (the viewport where none is declared).
    pub screenshots_at_size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClientFigures {
    pub provider: String,
    pub client: String,
    pub runs: Vec<Run>,
    pub median_ms: f64,
    pub median_step_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CuaBenchReport {
    pub figures: Vec<ClientFigures>,
    /// Sightline's median run over Stagehand's, per provider.
    pub ratios: Vec<(String, f64)>,
}

/// Step times and screenshot sizes, from the requests the server recorded;
/// a request the server refused (not what the real API takes) fails the run.
fn from_server(server: &LlmServer, run: &mut Run) {
    let requests = server.requests();
    if let Some(bad) = server.rejected().first() {
        run.done = false;
        run.error = Some(format!(
            "the server refused a request: {}",
            bad.rejected.clone().unwrap_or_default()
        ));
    }
    run.step_ms = requests
        .windows(2)
        .map(|w| w[1].at.duration_since(w[0].at).as_secs_f64() * 1000.0)
        .collect();
    for r in &requests {
        let (w, h) = r.declared_display().unwrap_or((WIDTH, HEIGHT));
        for png in r.screenshots() {
            run.screenshots += 1;
            if (png.width, png.height) == (w, h) {
                run.screenshots_at_size += 1;
            }
        }
    }
}

fn llm(case: &Case, server: &LlmServer) -> Result<Llm> {
    Ok(Llm::new(LlmOptions {
        model: Some(case.model.into()),
        base_url: Some((case.base_url)(server)),
        api_key: Some("test-key".into()),
        ..LlmOptions::default()
    })?)
}

async fn sightline_run(case: &Case, browser: &Browser, url: &str) -> Result<Run> {
    let server = LlmServer::with_script((case.script)());
    let llm = llm(case, &server)?;
    let page = browser.new_page().await?;
    page.goto(url).await?;
    let opts = AgentOptions {
        mode: AgentMode::Cua,
        max_steps: 10,
        ..AgentOptions::default()
    };
    let started = Instant::now();
    let result = Agent::new(&page, &llm, opts).execute(TASK).await?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let subscribed = page.evaluate(CHECK).await.unwrap_or(Value::Null) == json!(ADDRESS);
    page.close().await?;
    let mut run = Run {
        ms,
        step_ms: Vec::new(),
        done: result.success && subscribed,
        screenshots: 0,
        screenshots_at_size: 0,
        error: (!result.success).then(|| result.message.clone()),
    };
    from_server(&server, &mut run);
    Ok(run)
}

fn stagehand_run(case: &Case, url: &str) -> Result<Run> {
    let server = LlmServer::with_script((case.script)());
    let exe = LaunchOptions::default().resolved_executable();
    let chrome = DevToolsChrome::start(&exe, WIDTH, HEIGHT).map_err(Error::Io)?;
    let base = (case.base_url)(&server);
    let r = stagehand::run(&StagehandTask {
        cdp_url: &chrome.ws_url,
        url,
        model: case.model,
        base_url: &base,
        instruction: TASK,
        max_steps: 10,
        viewport: (WIDTH, HEIGHT),
        check: CHECK,
    })
    .map_err(Error::Io)?;
    let mut run = Run {
        ms: r.ms,
        step_ms: Vec::new(),
        done: r.completed && r.check == json!(ADDRESS),
        screenshots: 0,
        screenshots_at_size: 0,
        error: (!r.ok).then(|| r.message.lines().next().unwrap_or_default().to_string()),
    };
    from_server(&server, &mut run);
    Ok(run)
}

fn figures(provider: &str, client: &str, runs: Vec<Run>) -> ClientFigures {
    let ms: Vec<f64> = runs.iter().map(|r| r.ms).collect();
    let steps: Vec<f64> = runs.iter().flat_map(|r| r.step_ms.iter().copied()).collect();
    ClientFigures {
        provider: provider.into(),
        client: client.into(),
        median_ms: median(&ms),
        median_step_ms: median(&steps),
        runs,
    }
}

pub async fn run(args: BenchCuaArgs) -> Result<()> {
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| args.providers.is_empty() || args.providers.iter().any(|p| p == c.name))
        .collect();
    if cases.is_empty() {
        return Err(Error::Config(
            "--providers: expected anthropic, openai and/or gemini".into(),
        ));
    }
    let with_stagehand = !args.no_stagehand;
    if with_stagehand && !stagehand::installed() {
        return Err(Error::Config(
            "Stagehand is not installed: run scripts/setup.sh (or pass --no-stagehand)".into(),
        ));
    }
    // The fixtures directory, served on 127.0.0.1.
    let files = FixtureServer::start();
    let url = files.url("cua/newsletter.html");
    let mut launch = LaunchOptions {
        viewport: ViewportSize {
            width: WIDTH,
            height: HEIGHT,
        },
        ..LaunchOptions::default()
    };
    launch.extra_args.extend(offline_switches());
    let browser = Browser::launch(launch).await?;
    let mut report = CuaBenchReport {
        figures: Vec::new(),
        ratios: Vec::new(),
    };
    for case in &cases {
        let runs_n = args.runs.max(1);
        let mut ours = Vec::new();
        for i in 0..runs_n {
            let run = sightline_run(case, &browser, &url).await?;
            eprintln!("bench cua: {} sightline run {}: {:.0} ms", case.name, i + 1, run.ms);
            ours.push(run);
        }
        let ours = figures(case.name, "sightline", ours);
        if with_stagehand {
            let mut theirs = Vec::new();
            for i in 0..runs_n {
                let run = stagehand_run(case, &url)?;
                eprintln!("bench cua: {} stagehand run {}: {:.0} ms", case.name, i + 1, run.ms);
                theirs.push(run);
            }
            let theirs = figures(case.name, "stagehand", theirs);
            report
                .ratios
                .push((case.name.to_string(), ours.median_ms / theirs.median_ms));
            report.figures.push(ours);
            report.figures.push(theirs);
        } else {
            report.figures.push(ours);
        }
    }
    browser.close().await?;
    print_report(&report, args.json, render);
    Ok(())
}

fn render(r: &CuaBenchReport) -> String {
    let mut s = format!(
        "Computer-use task (promo, email, subscribe) on a {WIDTH}x{HEIGHT} page, instant scripted model\n\n\
{:<10} {:<10} {:>10} {:>13} {:>6} {:>12}  runs (ms) and steps (ms)\n",
        "provider", "client", "median ms", "median step", "done", "screenshots"
    );
    for f in &r.figures {
        let done = f.runs.iter().filter(|r| r.done).count();
        let shots: usize = f.runs.iter().map(|r| r.screenshots).sum();
        let at_size: usize = f.runs.iter().map(|r| r.screenshots_at_size).sum();
        let detail: Vec<String> = f
            .runs
            .iter()
            .map(|r| {
                let steps: Vec<String> = r.step_ms.iter().map(|m| format!("{m:.0}")).collect();
                format!("{:.0} [{}]", r.ms, steps.join(" "))
            })
            .collect();
        s.push_str(&format!(
            "{:<10} {:<10} {:>10.0} {:>13.0} {:>6} {:>12}  {}\n",
            f.provider,
            f.client,
            f.median_ms,
            f.median_step_ms,
            format!("{done}/{}", f.runs.len()),
            format!("{at_size}/{shots}"),
            detail.join("; ")
        ));
        for e in f.runs.iter().filter_map(|r| r.error.as_deref()) {
            s.push_str(&format!("    {} {}: {e}\n", f.provider, f.client));
        }
    }
    if !r.ratios.is_empty() {
        s.push_str("\nSightline's median run / Stagehand's: ");
        let parts: Vec<String> = r.ratios.iter().map(|(p, x)| format!("{p} {x:.2}x")).collect();
        s.push_str(&parts.join(", "));
        s.push('\n');
    }
    s
}
