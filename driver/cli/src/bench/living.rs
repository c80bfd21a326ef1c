//! `sightline bench living`: scripted agent steps on pages that behave like
//! real sites (tests/fixtures/living/: slow ads, beacons, long polls and
//! streams, client rendering, slow APIs and servers, carousels, a late
//! consent dialog), served on 127.0.0.1, through Sightline's MCP server,
//! Playwright MCP (the same real npm MCP client) and agent-browser (its own
//! CLI, a process per command).
//!
//! Per scenario and tool: the tool time until the target text is seen
//! (a snapshot is taken whenever a response lacks it), the calls that took,
//! and whether the target was in the first response.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;
use sightline::{Error, Result};
use sightline_testkit::mcp_client::McpClient;
use sightline_testkit::{fixtures_dir, FixtureServer};

use super::agent_browser::AgentBrowser;
use super::mcp::{playwright_mcp_client, sightline_mcp_client};
use super::pages::{median, print_report, ref_on_line};

#[derive(Debug, Clone, clap::Args)]
pub struct BenchLivingArgs {
    /// Runs of every scenario per tool (tools alternate run by run); the
    /// table shows medians.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Only these tools (sightline, playwright-mcp, agent-browser; comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub tools: Vec<String>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One timed step of a scenario.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Navigate to a fixture page.
    Navigate(&'static str),
    /// Click the element on the line holding this text.
    Click(&'static str),
}

struct Scenario {
    name: &'static str,
    /// A page opened first, untimed.
    setup: Option<&'static str>,
    /// Timed steps, each with the text that shows it worked.
    steps: &'static [(Step, &'static str)],
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "Article with a 12 s ad iframe and banner image",
        setup: None,
        steps: &[(
            Step::Navigate("living/article-ad.html"),
            "Council approves new riverside park",
        )],
    },
    Scenario {
        name: "Analytics beacons every 400 ms (open, click)",
        setup: None,
        steps: &[
            (
                Step::Navigate("living/beacons.html"),
                "Quarterly results beat forecasts",
            ),
            (
                Step::Click("button \"Read more\""),
                "Full-year guidance was raised to 10%",
            ),
        ],
    },
    Scenario {
        name: "A long poll and a stream that never end",
        setup: None,
        steps: &[(Step::Navigate("living/live.html"), "Election night, live")],
    },
    Scenario {
        name: "Client-rendered app, content after a 700 ms API call",
        setup: None,
        steps: &[(Step::Navigate("living/client-app.html"), "Trail Runner 2")],
    },
    Scenario {
        name: "Click -> results after a 900 ms API call",
        setup: Some("living/search.html"),
        steps: &[(Step::Click("button \"Search\""), "Alpine Hut Weekend")],
    },
    Scenario {
        name: "Link to a page whose server takes 1.5 s",
        setup: Some("living/link.html"),
        steps: &[(Step::Click("Read the full story"), "The full story of the freight yard")],
    },
    Scenario {
        name: "Carousel and clock changing the DOM every 100 ms",
        setup: None,
        steps: &[(Step::Navigate("living/carousel.html"), "Deals of the week")],
    },
    Scenario {
        name: "Consent dialog opening 600 ms after load",
        setup: None,
        steps: &[(Step::Navigate("living/consent.html"), "We value your privacy")],
    },
];

/// A step gives up after this much tool time or this many calls.
const GIVE_UP_MS: f64 = 30_000.0;
const GIVE_UP_CALLS: usize = 1000;

const TOOLS: &[&str] = &["sightline", "playwright-mcp", "agent-browser"];

/// One call's answer: its text (files it links read in) and time.
struct Answer {
    text: String,
    ms: f64,
}

/// A tool as the benchmark drives it.
enum Driver {
    Mcp {
        client: McpClient,
        /// Where Playwright MCP writes the snapshot files its answers link.
        files: Option<PathBuf>,
    },
    Cli(AgentBrowser),
}

impl Driver {
    fn mcp_answer(client: &mut McpClient, files: Option<&Path>, tool: &str, args: serde_json::Value) -> Answer {
        let a = client.call(tool, args);
        let mut text = a.text;
        if let Some(dir) = files {
            text.push_str(&linked_files(&text, dir));
        }
        Answer { text, ms: a.ms }
    }

    fn navigate(&mut self, url: &str) -> Answer {
        match self {
            Driver::Mcp { client, files } => {
                Self::mcp_answer(client, files.as_deref(), "browser_navigate", json!({ "url": url }))
            }
            Driver::Cli(ab) => cli_answer(ab.run(&["open", url])),
        }
    }

    fn click(&mut self, r: &str) -> Answer {
        match self {
            Driver::Mcp { client, files } => Self::mcp_answer(
                client,
                files.as_deref(),
                "browser_click",
                json!({"element": "the element", "target": r}),
            ),
            Driver::Cli(ab) => cli_answer(ab.run(&["click", &format!("@{r}")])),
        }
    }

    fn snapshot(&mut self) -> Answer {
        match self {
            Driver::Mcp { client, files } => Self::mcp_answer(client, files.as_deref(), "browser_snapshot", json!({})),
            Driver::Cli(ab) => cli_answer(ab.run(&["snapshot"])),
        }
    }
}

fn cli_answer(r: super::agent_browser::Ran) -> Answer {
    Answer {
        text: r.stdout,
        ms: r.ms,
    }
}

/// The contents of the `.yml` snapshot files an answer links (Playwright
/// MCP links some snapshots instead of putting them inline).
fn linked_files(text: &str, dir: &Path) -> String {
    let mut out = String::new();
    for part in text.split("](").skip(1) {
        let Some(end) = part.find(')') else { continue };
        let link = &part[..end];
        if !link.ends_with(".yml") {
            continue;
        }
        let path = Path::new(link);
        let candidates = [
            path.to_path_buf(),
            dir.join(path),
            dir.join(path.file_name().unwrap_or_default()),
        ];
        if let Some(content) = candidates.iter().find_map(|p| std::fs::read_to_string(p).ok()) {
            out.push('\n');
            out.push_str(&content);
        }
    }
    out
}

/// How one scenario went for one tool in one run.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioRun {
    pub ms: f64,
    pub calls: usize,
    /// Every step's target was in its first response.
    pub first: bool,
    /// Every target was seen at all.
    pub seen: bool,
}

fn run_scenario(driver: &mut Driver, files: &FixtureServer, s: &Scenario) -> ScenarioRun {
    let mut last = String::new();
    if let Some(page) = s.setup {
        let nav = driver.navigate(&files.url(page));
        last = nav.text;
        if matches!(driver, Driver::Cli(_)) {
            // agent-browser's `open` prints no tree: its refs come from a snapshot.
            last = driver.snapshot().text;
        }
    }
    let mut run = ScenarioRun {
        ms: 0.0,
        calls: 0,
        first: true,
        seen: true,
    };
    for (step, target) in s.steps {
        let answer = match step {
            Step::Navigate(page) => driver.navigate(&files.url(page)),
            Step::Click(needle) => {
                let r = match ref_on_line(&last, needle) {
                    Some(r) => r,
                    None => {
                        // Refs the previous answer did not show: look first (untimed setup).
                        last = driver.snapshot().text;
                        match ref_on_line(&last, needle) {
                            Some(r) => r,
                            None => {
                                eprintln!("bench living: {}: no ref for {needle:?}", s.name);
                                run.seen = false;
                                run.first = false;
                                return run;
                            }
                        }
                    }
                };
                driver.click(&r)
            }
        };
        let mut spent = answer.ms;
        let mut calls = 1;
        let mut text = answer.text;
        let in_first = text.contains(target);
        while !text.contains(target) && spent < GIVE_UP_MS && calls < GIVE_UP_CALLS {
            let again = driver.snapshot();
            spent += again.ms;
            calls += 1;
            text = again.text;
        }
        run.ms += spent;
        run.calls += calls;
        run.first &= in_first;
        run.seen &= text.contains(target);
        last = text;
    }
    run
}

/// One tool's runs of every scenario.
#[derive(Debug, Clone, Serialize)]
pub struct ToolRuns {
    pub tool: String,
    /// Per scenario, one entry per run.
    pub scenarios: Vec<Vec<ScenarioRun>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LivingReport {
    pub scenarios: Vec<String>,
    pub tools: Vec<ToolRuns>,
}

fn start(tool: &str, run: usize, pw_files: &Path) -> Result<Driver> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    match tool {
        "sightline" => {
            let exe = std::env::current_exe().map_err(|e| Error::Io(format!("the sightline binary: {e}")))?;
            Ok(Driver::Mcp {
                client: sightline_mcp_client(&exe.to_string_lossy()),
                files: None,
            })
        }
        "playwright-mcp" => {
            let cli = repo.join(".tools/node_modules/@playwright/mcp/cli.js");
            if !cli.is_file() {
                return Err(Error::NoSuchFile {
                    path: cli,
                    hint: Some(" (run scripts/setup.sh, or leave playwright-mcp out with --tools)".into()),
                });
            }
            Ok(Driver::Mcp {
                client: playwright_mcp_client(&cli, pw_files, &["--viewport-size", "1280x720"]),
                files: Some(pw_files.to_path_buf()),
            })
        }
        "agent-browser" => {
            let binary = AgentBrowser::installed()?;
            let session = format!("sightline-living-{}-{run}", std::process::id());
            Ok(Driver::Cli(AgentBrowser::new(binary, &session)))
        }
        other => Err(Error::Config(format!(
            "unknown tool {other:?} (known: {})",
            TOOLS.join(", ")
        ))),
    }
}

pub async fn bench_living(args: &BenchLivingArgs) -> Result<LivingReport> {
    let tools: Vec<String> = if args.tools.is_empty() {
        TOOLS.iter().map(|t| t.to_string()).collect()
    } else {
        args.tools.clone()
    };
    for t in &tools {
        if !TOOLS.contains(&t.as_str()) {
            return Err(Error::Config(format!(
                "unknown tool {t:?} (known: {})",
                TOOLS.join(", ")
            )));
        }
    }
    let runs = args.runs.max(1);
    let pw_files =
        tempfile::tempdir().map_err(|e| Error::Io(format!("a directory for Playwright MCP's files: {e}")))?;
    let files = FixtureServer::try_serve(fixtures_dir())
        .map_err(|e| Error::Io(format!("cannot serve the fixture pages: {e}")))?;
    let pw_dir = pw_files.path().to_path_buf();
    // The MCP client and the CLI block: keep them off the async workers.
    tokio::task::spawn_blocking(move || -> Result<LivingReport> {
        let mut results: Vec<ToolRuns> = tools
            .iter()
            .map(|t| ToolRuns {
                tool: t.clone(),
                scenarios: vec![Vec::new(); SCENARIOS.len()],
            })
            .collect();
        for run in 0..runs {
            for (ti, tool) in tools.iter().enumerate() {
                eprintln!("bench living: run {}/{runs}: {tool}", run + 1);
                let mut driver = start(tool, run, &pw_dir)?;
                // The browser starts on the first call: not part of any scenario.
                driver.navigate(&files.url("living/ad.html"));
                for (si, s) in SCENARIOS.iter().enumerate() {
                    let r = run_scenario(&mut driver, &files, s);
                    eprintln!(
                        "bench living: {tool}: {}: {:.2}s, {} call(s){}",
                        s.name,
                        r.ms / 1000.0,
                        r.calls,
                        if r.first { "" } else { ", not in the first response" }
                    );
                    results[ti].scenarios[si].push(r);
                }
            }
        }
        Ok(LivingReport {
            scenarios: SCENARIOS.iter().map(|s| s.name.to_string()).collect(),
            tools: results,
        })
    })
    .await
    .map_err(|e| Error::Io(format!("the living-pages benchmark failed: {e}")))?
}

/// Median time (s), median calls, runs whose first response had the target, runs.
fn summary(runs: &[ScenarioRun]) -> (f64, f64, usize, usize, bool) {
    let ms: Vec<f64> = runs.iter().map(|r| r.ms).collect();
    let calls: Vec<f64> = runs.iter().map(|r| r.calls as f64).collect();
    let first = runs.iter().filter(|r| r.first).count();
    let seen = runs.iter().all(|r| r.seen);
    (median(&ms) / 1000.0, median(&calls), first, runs.len(), seen)
}

pub fn render(r: &LivingReport) -> String {
    let mut out = String::from(
        "tool time until the target text is seen (median s), calls (median), runs with the target in the first response\n",
    );
    out.push_str(&format!("{:<54}", "scenario"));
    for t in &r.tools {
        out.push_str(&format!(" | {:>24}", t.tool));
    }
    out.push('\n');
    let mut totals = vec![0.0; r.tools.len()];
    for (si, name) in r.scenarios.iter().enumerate() {
        out.push_str(&format!("{name:<54}"));
        for (ti, t) in r.tools.iter().enumerate() {
            let (s, calls, first, n, seen) = summary(&t.scenarios[si]);
            totals[ti] += s;
            let missed = if seen { "" } else { " MISSED" };
            out.push_str(&format!(" | {s:>7.2}s {calls:>3.0} call {first}/{n} first{missed}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:<54}", "total"));
    for total in &totals {
        out.push_str(&format!(" | {:>7.2}s {:>16}", total, ""));
    }
    out.push('\n');
    if let Some(ours) = r.tools.iter().position(|t| t.tool == "sightline") {
        let fastest_peer = r
            .tools
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != ours)
            .map(|(i, t)| (totals[i], t.tool.as_str()))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((peer, name)) = fastest_peer {
            out.push_str(&format!(
                "sightline / fastest peer ({name}): {:.2}x the total tool time\n",
                totals[ours] / peer.max(f64::EPSILON)
            ));
        }
    }
    out
}

pub async fn run(args: BenchLivingArgs) -> Result<()> {
    let report = bench_living(&args).await?;
    print_report(&report, args.json, render);
    Ok(())
}
