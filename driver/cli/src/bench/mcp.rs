//! `sightline bench mcp`: one scripted sequence of tool calls through
//! Sightline's MCP server and through Playwright MCP (`@playwright/mcp`,
//! the same Debian Chromium), both driven by the same real MCP client (the
//! npm SDK, via sightline-testkit), on every page given:
//!
//! navigate → snapshot → click a link → type into a field → snapshot again.
//!
//! Per step: response characters (tokens ≈ chars/4), median latency, and
//! whether the step did what it should. Pages are served on 127.0.0.1 and
//! both browsers are kept off the network.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;
use sightline::{Error, Result};
use sightline_testkit::mcp_client::McpClient;
use sightline_testkit::offline_switches;

use super::pages::{expand_inputs, median, serve_files};

#[derive(Debug, Clone, clap::Args)]
pub struct BenchMcpArgs {
    /// HTML files, or directories of them (default: the real-page corpus
    /// and the bundled shop).
    #[arg(value_name = "DIR|FILE")]
    pub inputs: Vec<PathBuf>,
    /// Skip Playwright MCP (only Sightline's figures).
    #[arg(long)]
    pub no_playwright: bool,
    /// Playwright MCP's cli.js (default: the one scripts/setup.sh installs).
    #[arg(long, value_name = "PATH")]
    pub playwright_mcp: Option<PathBuf>,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// The steps of the sequence, in order.
const STEPS: &[&str] = &["navigate", "snapshot", "click", "type", "snapshot2"];

/// One call of the sequence.
#[derive(Debug, Clone, Serialize, Default)]
pub struct StepFigure {
    pub step: String,
    pub chars: usize,
    pub ms: f64,
    /// The step did what it should (None: the page gave it nothing to do).
    pub ok: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct PageRun {
    pub page: String,
    pub steps: Vec<StepFigure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerRun {
    pub server: String,
    pub pages: Vec<PageRun>,
}

#[derive(Debug, Clone, Serialize)]
pub struct McpBenchReport {
    pub runs: Vec<ServerRun>,
}

/// The first `[ref=…]` on a line that satisfies `pick`.
fn find_ref(text: &str, pick: impl Fn(&str) -> bool) -> Option<String> {
    text.lines().filter(|l| pick(l)).find_map(|l| {
        let start = l.find("[ref=")? + 5;
        let end = l[start..].find(']')? + start;
        Some(l[start..end].to_string())
    })
}

/// A link to click, as a model would pick one: a named link (an unnamed one
/// says nothing about where it goes) that the snapshot does not mark out of
/// reach, one that stays on the page (`#…`) if there is one, else the first.
/// Sightline's snapshot puts the URL on the link's line (`[url=…]`),
/// Playwright's under it (`- /url:`).
fn pick_link(snapshot: &str) -> Option<String> {
    // Named, and not marked as out of reach where the snapshot says so
    // (a model prefers a link it can see).
    let named = |l: &str| {
        l.trim_start().starts_with("- link \"")
            && !l.contains("- link \"\"")
            && !["[offscreen]", "[covered]", "[obscured]"].iter().any(|m| l.contains(m))
    };
    let lines: Vec<&str> = snapshot
        .lines()
        .filter(|l| !l.contains("- link ") || named(l))
        .collect();
    let in_page = lines.iter().enumerate().find_map(|(i, line)| {
        let url = match sightline::ai::tree::url_token(line) {
            Some((_, url)) => url,
            None => lines
                .get(i + 1)
                .and_then(|l| l.trim_start().strip_prefix("- /url: "))
                .unwrap_or(""),
        };
        (line.contains("link ") && line.contains("[ref=") && url.trim_start_matches('"').starts_with('#'))
            .then(|| find_ref(line, |_| true))
            .flatten()
    });
    in_page.or_else(|| find_ref(snapshot, named))
}

/// A field to type into.
fn pick_field(snapshot: &str) -> Option<String> {
    find_ref(snapshot, |l| {
        let l = l.trim_start();
        l.starts_with("- textbox") || l.starts_with("- searchbox") || l.starts_with("- combobox")
    })
}

const TYPED: &str = "sightline bench";
/// A budget no corpus page reaches: its whole tree, as Playwright MCP gives it.
const WHOLE_TREE: u64 = 1_000_000;

/// The page URL a response reports (`- URL: …`, or Playwright's `- Page URL: …`).
fn page_url(response: &str) -> Option<String> {
    response.lines().find_map(|l| {
        let l = l.trim_start().strip_prefix("- ")?;
        let rest = l.strip_prefix("Page URL: ").or_else(|| l.strip_prefix("URL: "))?;
        Some(rest.trim().to_string())
    })
}

fn without_fragment(url: &str) -> &str {
    url.split('#').next().unwrap_or(url)
}

/// Runs the sequence on one page.
fn run_page(client: &mut McpClient, name: &str, url: &str) -> PageRun {
    let mut steps = Vec::new();
    let mut record = |step: &str, a: &sightline_testkit::mcp_client::Answer, ok: Option<bool>| {
        if ok == Some(false) {
            // Why a step failed, next to the progress lines.
            let first: String = a.text.lines().take(4).collect::<Vec<_>>().join(" | ");
            eprintln!("bench mcp: {name}: {step} failed: {first}");
        }
        steps.push(StepFigure {
            step: step.to_string(),
            chars: a.text.chars().count(),
            ms: a.ms,
            ok,
        });
    };
    let nav = client.call("browser_navigate", json!({"url": url}));
    record("navigate", &nav, Some(!nav.is_error));
    // The whole tree, as Playwright MCP gives it (the default budget cuts big pages).
    let snap = client.call("browser_snapshot", json!({"budget": WHOLE_TREE}));
    record("snapshot", &snap, Some(!snap.is_error && snap.text.contains("[ref=")));
    let mut field = pick_field(&snap.text);
    match pick_link(&snap.text) {
        Some(r) => {
            let a = client.call("browser_click", json!({"element": "a link", "target": r}));
            record("click", &a, Some(!a.is_error));
            // A link that left the page took the field with it: nothing to type into.
            if page_url(&a.text).is_some_and(|u| without_fragment(&u) != without_fragment(url)) {
                field = None;
            }
        }
        None => steps.push(StepFigure {
            step: "click".into(),
            ..Default::default()
        }),
    }
    let typed = field.map(|r| {
        client.call(
            "browser_type",
            json!({"element": "a field", "target": r, "text": TYPED}),
        )
    });
    match &typed {
        Some(a) => {
            let ok = !a.is_error;
            steps.push(StepFigure {
                step: "type".into(),
                chars: a.text.chars().count(),
                ms: a.ms,
                ok: Some(ok),
            });
        }
        None => steps.push(StepFigure {
            step: "type".into(),
            ..Default::default()
        }),
    }
    let again = client.call("browser_snapshot", json!({"budget": WHOLE_TREE}));
    steps.push(StepFigure {
        step: "snapshot2".into(),
        chars: again.text.chars().count(),
        ms: again.ms,
        ok: Some(!again.is_error),
    });
    PageRun {
        page: name.to_string(),
        steps,
        error: None,
    }
}

fn run_server(label: &str, mut client: McpClient, served: &[(String, String)]) -> ServerRun {
    let mut pages = Vec::new();
    for (name, url) in served {
        eprintln!("bench mcp: {label}: {name}");
        pages.push(run_page(&mut client, name, url));
    }
    ServerRun {
        server: label.to_string(),
        pages,
    }
}

fn default_inputs() -> Vec<PathBuf> {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    vec![
        repo.join("../shared/corpus/real"),
        repo.join("tests/fixtures/example/shop.html"),
    ]
}

pub async fn bench_mcp(args: &BenchMcpArgs) -> Result<McpBenchReport> {
    let inputs = if args.inputs.is_empty() {
        default_inputs()
    } else {
        args.inputs.clone()
    };
    let files = expand_inputs(&inputs)?;
    let (_server, served) = serve_files(&files)?;
    let exe = std::env::current_exe().map_err(|e| Error::Io(format!("cannot find the sightline binary: {e}")))?;
    let exe = exe.to_string_lossy().into_owned();
    let playwright = args.playwright_mcp.clone().unwrap_or_else(|| {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.tools/node_modules/@playwright/mcp/cli.js")
    });
    if !args.no_playwright && !playwright.is_file() {
        return Err(Error::NoSuchFile {
            path: playwright,
            hint: Some(" (run scripts/setup.sh, or pass --no-playwright)".into()),
        });
    }
    let no_playwright = args.no_playwright;
    // Playwright MCP writes a file per snapshot: into a directory of its own,
    // removed afterwards, not the caller's working directory.
    let pw_output =
        tempfile::tempdir().map_err(|e| Error::Io(format!("a directory for Playwright MCP's files: {e}")))?;
    // The MCP client blocks on its pipes: keep it off the async workers.
    tokio::task::spawn_blocking(move || {
        let mut runs = vec![run_server("sightline", sightline_mcp_client(&exe), &served)];
        if !no_playwright {
            let client = playwright_mcp_client(&playwright, pw_output.path(), &[]);
            runs.push(run_server("playwright-mcp", client, &served));
        }
        McpBenchReport { runs }
    })
    .await
    .map_err(|e| Error::Io(format!("the MCP benchmark failed: {e}")))
}

/// `sightline mcp` (the binary `exe`) through the real MCP client, its
/// Chromium kept off the network.
pub(super) fn sightline_mcp_client(exe: &str) -> McpClient {
    let mut args: Vec<String> = vec!["mcp".into()];
    for s in offline_switches() {
        args.push("--chrome-arg".into());
        args.push(s);
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    McpClient::stdio(exe, &refs, &[])
}

/// Playwright MCP (its `cli.js`) through the real MCP client: Debian's
/// Chromium, headless, kept off the network, its files in `output_dir`;
/// `extra` adds flags.
pub(super) fn playwright_mcp_client(cli: &Path, output_dir: &Path, extra: &[&str]) -> McpClient {
    let cli = cli.to_string_lossy();
    let out = output_dir.to_string_lossy();
    let mut args = vec![
        cli.as_ref(),
        "--headless",
        "--isolated",
        "--no-sandbox",
        "--browser",
        "chromium",
        "--executable-path",
        "/usr/bin/chromium",
        "--proxy-server",
        "http://127.0.0.1:9",
        "--proxy-bypass",
        "127.0.0.1",
        "--output-dir",
        out.as_ref(),
    ];
    args.extend_from_slice(extra);
    McpClient::stdio("node", &args, &[])
}

/// Characters, latencies (of calls that answered), steps that did what
/// they should, and steps that had something to do.
fn totals<'a>(steps: impl Iterator<Item = &'a StepFigure>) -> (usize, Vec<f64>, usize, usize) {
    let mut chars = 0;
    let mut ms = Vec::new();
    let (mut done, mut tried) = (0, 0);
    for s in steps {
        chars += s.chars;
        if s.chars > 0 {
            ms.push(s.ms);
        }
        if let Some(ok) = s.ok {
            tried += 1;
            done += usize::from(ok);
        }
    }
    (chars, ms, done, tried)
}

fn all_steps(run: &ServerRun) -> impl Iterator<Item = &StepFigure> {
    run.pages.iter().flat_map(|p| &p.steps)
}

/// One server's cell of a table row.
fn cell<'a>(steps: impl Iterator<Item = &'a StepFigure>) -> String {
    let (chars, ms, done, tried) = totals(steps);
    format!(
        " | {:>9} {:>8} {:>7.0}ms {:>3}/{:<3}",
        chars,
        chars / 4,
        median(&ms),
        done,
        tried
    )
}

pub fn render(r: &McpBenchReport) -> String {
    let mut out =
        String::from("per step (all pages): chars, tokens (chars/4), median ms, steps that did what they should\n");
    out.push_str(&format!("{:<10}", "step"));
    for run in &r.runs {
        out.push_str(&format!(" | {:>34}", run.server));
    }
    out.push('\n');
    for step in STEPS {
        out.push_str(&format!("{step:<10}"));
        for run in &r.runs {
            out.push_str(&cell(all_steps(run).filter(|s| s.step == *step)));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:<10}", "total"));
    for run in &r.runs {
        out.push_str(&cell(all_steps(run)));
    }
    out.push('\n');
    if let [ours, theirs] = &r.runs[..] {
        let (a, am, ..) = totals(all_steps(ours));
        let (b, bm, ..) = totals(all_steps(theirs));
        out.push_str(&format!(
            "sightline / playwright-mcp: {:.2}x the response tokens, median latency {:.0} ms vs {:.0} ms\n",
            a as f64 / b.max(1) as f64,
            median(&am),
            median(&bm)
        ));
    }
    out
}

pub async fn run(args: BenchMcpArgs) -> Result<()> {
    let report = bench_mcp(&args).await?;
    super::pages::print_report(&report, args.json, render);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_an_in_page_link_and_a_field() {
        let snap = "- link \"Away\" [ref=e1] [url=https://x.test/]\n- link \"Top\" [ref=e2] [url=#top]\n- textbox \"Search\" [ref=e3]\n";
        assert_eq!(pick_link(snap).as_deref(), Some("e2"));
        assert_eq!(pick_field(snap).as_deref(), Some("e3"));
        assert_eq!(pick_link("- link \"A\" [ref=e9] [url=/a]\n").as_deref(), Some("e9"));
        assert_eq!(
            page_url("### Page\n- Page URL: http://a/b#c\n").as_deref(),
            Some("http://a/b#c")
        );
        assert_eq!(page_url("### Page\n- URL: http://a/\n").as_deref(), Some("http://a/"));
        // Playwright quotes URLs.
        let pw = "- link \"A\" [ref=e1] [cursor=pointer]:\n  - /url: /a\n- link \"B\" [ref=e2]:\n  - /url: \"#b\"\n";
        assert_eq!(pick_link(pw).as_deref(), Some("e2"));
    }
}
