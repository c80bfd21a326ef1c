//! `sightline bench act`: per page, the prompt tokens `act` sends (request
//! characters / 4) and the driver-side time of one act with the model's time
//! taken out (readiness, snapshot, prompt building, checks, the action itself).
//!
//! By default the model is a loopback stand-in that answers every act call
//! at once with `hover` on the first ref of the prompt (hover acts like a
//! click on the driver side but never navigates away, so runs repeat on the
//! same page). Like a sensible model, it calls `removeBlocker` first when the
//! snapshot flags an overlay and every ref in it is covered. `--model` and
//! `--base-url` measure against a real model instead.
//!
//! removeBlocker keeps its default configuration, as a user's act would: its
//! tool is part of the prompt, and a page left covered by an overlay is
//! cleared in the warm-up act rather than failing every timed one.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use sightline::{
    ActOptions, Ai, Browser, Error, LaunchOptions, Llm, LlmOptions, Page, Result, ViewportSize, OVERLAY_WARNING,
};
use sightline_testkit::{offline_switches, LlmServer, Recorded, Reply};

use super::pages::{expand_inputs, median, print_report, serve_files};
use crate::args::parse_viewport;

/// The target for act's driver-side overhead.
pub const TARGET_OVERHEAD_MS: f64 = 150.0;

#[derive(Debug, Clone, clap::Args)]
pub struct BenchActArgs {
    /// HTML files, or directories of them.
    #[arg(value_name = "DIR|FILE", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Timed acts per page (after one warm-up); medians are reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// The instruction given to act.
    #[arg(long, default_value = "hover over the first link or button")]
    pub instruction: String,
    /// A real model instead of the loopback stand-in.
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long)]
    pub base_url: Option<String>,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720", value_parser = parse_viewport)]
    pub viewport: ViewportSize,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ActBench {
    pub page: String,
    /// Characters / 4 of the act request body (system, instruction, tree, tools).
    pub prompt_tokens: usize,
    pub act_ms: f64,
    pub inference_ms: f64,
    pub overhead_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ActBenchReport {
    pub runs: u32,
    pub pages: Vec<ActBench>,
    pub median_prompt_tokens: f64,
    pub median_overhead_ms: f64,
    pub max_overhead_ms: f64,
    pub target_overhead_ms: f64,
}

/// The first ref on a line that is neither covered nor offscreen (a hover
/// there succeeds without scrolling or removeBlocker).
fn first_ref(text: &str) -> Option<String> {
    let usable = |l: &&str| !l.contains("[covered]") && !l.contains("[offscreen]");
    let line = text
        .lines()
        .filter(|l| l.contains("[ref="))
        .find(usable)
        .or_else(|| text.lines().find(|l| l.contains("[ref=")))?;
    let start = line.find("[ref=")? + 5;
    let end = line[start..].find(']')? + start;
    Some(line[start..end].to_string())
}

/// True when the snapshot says an overlay covers the page and no ref in it
/// is usable: what a model should answer with removeBlocker.
fn blocked(text: &str) -> bool {
    let flagged = text.lines().any(|l| l.starts_with(OVERLAY_WARNING));
    flagged
        && text
            .lines()
            .filter(|l| l.contains("[ref="))
            .all(|l| l.contains("[covered]"))
}

/// The stand-in model's answer to one act request (OpenAI wire format):
/// `performAction` hovering the first usable ref of the last user message,
/// or `removeBlocker` when an overlay covers every ref.
fn stand_in_choice(body: &Value) -> (&'static str, Value) {
    let last_user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default();
    let may_unblock = body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "removeBlocker"));
    if may_unblock && blocked(last_user) {
        ("removeBlocker", json!({"reason": "an overlay covers every element"}))
    } else {
        let element = first_ref(last_user).unwrap_or_default();
        let args = json!({"elementId": element, "description": "the first element", "method": "hover", "arguments": [], "twoStep": false});
        ("performAction", args)
    }
}

fn stand_in(rec: &Recorded) -> Reply {
    let (name, args) = stand_in_choice(&rec.body);
    Reply::tool(name, args)
}

pub async fn bench_act(args: &BenchActArgs) -> Result<ActBenchReport> {
    let files = expand_inputs(&args.inputs)?;
    let (_server, served) = serve_files(&files)?;
    let stand_in = args.model.is_none().then(|| LlmServer::answering(stand_in));
    let llm = match &stand_in {
        Some(s) => Llm::new(LlmOptions {
            model: Some("openai/stand-in".into()),
            base_url: Some(s.openai_base_url()),
            api_key: Some("bench".into()),
            ..Default::default()
        })?,
        None => Llm::new(LlmOptions {
            model: args.model.clone(),
            base_url: args.base_url.clone(),
            ..Default::default()
        })?,
    };
    let mut launch = LaunchOptions {
        viewport: args.viewport,
        navigation_timeout: Duration::from_secs(60),
        ..LaunchOptions::default()
    };
    launch.extra_args.extend(offline_switches());
    let browser = Browser::launch(launch).await?;
    let outcome = async {
        let page = browser.new_page().await?;
        let mut pages = Vec::new();
        for (name, url) in &served {
            if !args.json {
                eprintln!("bench act: {name}");
            }
            let row = match bench_page(&page, &llm, url, args, stand_in.as_ref()).await {
                Ok(mut r) => {
                    r.page = name.clone();
                    r
                }
                Err(e) => ActBench {
                    page: name.clone(),
                    prompt_tokens: 0,
                    act_ms: f64::NAN,
                    inference_ms: f64::NAN,
                    overhead_ms: f64::NAN,
                    error: Some(e.to_string()),
                },
            };
            pages.push(row);
        }
        Ok::<_, Error>(pages)
    }
    .await;
    browser.close().await?;
    let pages = outcome?;
    let ok: Vec<&ActBench> = pages.iter().filter(|p| p.error.is_none()).collect();
    let tokens: Vec<f64> = ok.iter().map(|p| p.prompt_tokens as f64).collect();
    let overheads: Vec<f64> = ok.iter().map(|p| p.overhead_ms).collect();
    Ok(ActBenchReport {
        runs: args.runs,
        median_prompt_tokens: median(&tokens),
        median_overhead_ms: median(&overheads),
        max_overhead_ms: overheads.iter().copied().fold(f64::NAN, f64::max),
        target_overhead_ms: TARGET_OVERHEAD_MS,
        pages,
    })
}

async fn bench_page(
    page: &Page,
    llm: &Llm,
    url: &str,
    args: &BenchActArgs,
    stand_in: Option<&LlmServer>,
) -> Result<ActBench> {
    page.goto(url).await?;
    let opts = ActOptions {
        self_heal: false,
        ..ActOptions::default()
    };
    // Warm-up (engine injected, first snapshot taken).
    let ai = Ai::new(llm);
    ai.act(page, &args.instruction, &opts).await?;
    let (mut act_ms, mut inference_ms, mut overhead_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut prompt_chars = 0;
    for _ in 0..args.runs {
        let seen = stand_in.map_or(0, |s| s.requests().len());
        let started = Instant::now();
        let r = ai.act(page, &args.instruction, &opts).await?;
        let total = started.elapsed().as_secs_f64() * 1000.0;
        if !r.success {
            return Err(Error::ActFailed(r.message));
        }
        act_ms.push(total);
        inference_ms.push(r.usage.inference_ms as f64);
        overhead_ms.push(total - r.usage.inference_ms as f64);
        prompt_chars = match stand_in {
            Some(s) => s.requests()[seen..].iter().map(|r| r.raw.chars().count()).sum(),
            None => r.usage.input_tokens as usize * 4,
        };
    }
    Ok(ActBench {
        page: String::new(),
        prompt_tokens: prompt_chars.div_ceil(4),
        act_ms: median(&act_ms),
        inference_ms: median(&inference_ms),
        overhead_ms: median(&overhead_ms),
        error: None,
    })
}

pub fn render(r: &ActBenchReport) -> String {
    let mut out = format!(
        "act: prompt tokens (request chars/4) and driver-side time, median of {} runs per page\n{:<34} {:>8} {:>9} {:>9} {:>11}\n",
        r.runs, "page", "tokens", "act_ms", "model_ms", "overhead_ms"
    );
    for p in &r.pages {
        match &p.error {
            Some(e) => out.push_str(&format!("{:<34} error: {e}\n", p.page)),
            None => out.push_str(&format!(
                "{:<34} {:>8} {:>9.1} {:>9.1} {:>11.1}\n",
                p.page, p.prompt_tokens, p.act_ms, p.inference_ms, p.overhead_ms
            )),
        }
    }
    let failed = r.pages.iter().filter(|p| p.error.is_some()).count();
    if failed == r.pages.len() {
        out.push_str("no page could be measured\n");
        return out;
    }
    out.push_str(&format!(
        "median: {:.0} prompt tokens, {:.1} ms overhead (max {:.1} ms; target ≤ {:.0} ms)",
        r.median_prompt_tokens, r.median_overhead_ms, r.max_overhead_ms, r.target_overhead_ms
    ));
    if failed > 0 {
        out.push_str(&format!(" over {} page(s); {failed} failed", r.pages.len() - failed));
    }
    out.push('\n');
    out
}

pub async fn run(args: BenchActArgs) -> Result<()> {
    let report = bench_act(&args).await?;
    print_report(&report, args.json, render);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_in_hovers_the_first_ref() {
        let body = json!({"model": "m", "messages": [{"role": "system", "content": "x [ref=e0]"},
            {"role": "user", "content": "Instruction: x\n- link \"A\" [ref=e3]\n- button [ref=e4]"}]});
        let (name, args) = stand_in_choice(&body);
        assert_eq!(name, "performAction");
        assert_eq!(args["elementId"], "e3");
        assert_eq!(args["method"], "hover");
    }

    #[test]
    fn stand_in_unblocks_a_covered_page_only_when_it_may() {
        let covered = format!("Instruction: x\n{OVERLAY_WARNING}div.\n- link \"A\" [covered] [ref=e1]");
        let tool = |name: &str| json!({"type": "function", "function": {"name": name, "parameters": {}}});
        let call = |tools: Vec<Value>, content: &str| {
            let body = json!({"model": "m", "tools": tools, "messages": [{"role": "user", "content": content}]});
            stand_in_choice(&body).0
        };
        let both = || vec![tool("performAction"), tool("removeBlocker")];
        assert_eq!(call(both(), &covered), "removeBlocker");
        // Not offered (disabled, or already used up): it acts anyway.
        assert_eq!(call(vec![tool("performAction")], &covered), "performAction");
        // One usable ref, or no overlay flagged: no reason to unblock.
        let usable = format!("{covered}\n- button \"B\" [ref=e2]");
        assert_eq!(call(both(), &usable), "performAction");
        assert_eq!(call(both(), "- link \"A\" [covered] [ref=e1]"), "performAction");
    }
}
