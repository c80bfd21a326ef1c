//! `sightline bench sessions`: the ten-command flow a coding agent runs
//! (open a shop, snapshot, fill, select, click, snapshot, open another
//! page, back, snapshot, close), every command its own process, through
//! Sightline's session commands and agent-browser's CLI, two runs each,
//! interleaved. Per command: wall time and output characters. With
//! `--pages DIR`, also each tool's `snapshot` of every page there (real
//! pages: the output goal is about the trees a model reads).

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use serde::Serialize;
use sightline::{Error, Result};
use sightline_testkit::{fixtures_dir, offline_switches, FixtureServer};

use super::agent_browser::AgentBrowser;
use super::pages::{expand_inputs, median, print_report, ref_on_line, serve_files};

#[derive(Debug, Clone, clap::Args)]
pub struct BenchSessionsArgs {
    /// Runs per tool (interleaved).
    #[arg(long, default_value_t = 2)]
    pub runs: usize,
    /// Leave agent-browser out (only Sightline's figures).
    #[arg(long)]
    pub no_agent_browser: bool,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also open each page of these folders or files (e.g.
    /// ../shared/corpus/real) in one session per tool and count the
    /// characters of its `snapshot`.
    #[arg(long, value_name = "DIR|FILE", num_args = 1..)]
    pub pages: Vec<PathBuf>,
}

/// One page's `snapshot` output through each tool (None: it failed).
#[derive(Debug, Clone, Serialize)]
pub struct PageSnapshot {
    pub page: String,
    pub sightline: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_browser: Option<usize>,
}

/// One command of a run.
#[derive(Debug, Clone, Serialize)]
pub struct CommandRun {
    pub command: String,
    pub ms: f64,
    pub chars: usize,
    pub ok: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct FlowRun {
    pub tool: String,
    pub commands: Vec<CommandRun>,
    /// The order was placed with the typed name, and the page after back had refs.
    pub flow_ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionsReport {
    pub runs: Vec<FlowRun>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<PageSnapshot>,
}

const STEPS: &[&str] = &[
    "open", "snapshot", "fill", "select", "click", "snapshot", "open", "back", "snapshot", "close",
];

/// A tool that runs one command line as one process.
trait Cli {
    fn run(&mut self, args: &[&str]) -> (String, f64, bool);
    /// The tool's snapshot command.
    fn snapshot_args(&self) -> Vec<&'static str>;
    /// How the tool names a ref on its command line.
    fn target(&self, r: &str) -> String;
}

struct Sightline {
    exe: PathBuf,
    dir: tempfile::TempDir,
    session: String,
}

impl Cli for Sightline {
    fn run(&mut self, args: &[&str]) -> (String, f64, bool) {
        let mut cmd = Command::new(&self.exe);
        cmd.args(args)
            .env("SIGHTLINE_SESSION_DIR", self.dir.path())
            .env("SIGHTLINE_SESSION", &self.session)
            .env_remove("SIGHTLINE_LOG");
        if args.first() == Some(&"open") {
            for s in offline_switches() {
                cmd.arg(format!("--chrome-arg={s}"));
            }
        }
        let started = Instant::now();
        let out = cmd.output();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        match out {
            // A failure's words may be on stderr: all a reader sees, for the report.
            Ok(o) if !o.status.success() => (
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ),
                ms,
                false,
            ),
            Ok(o) => (String::from_utf8_lossy(&o.stdout).into_owned(), ms, true),
            Err(e) => (format!("did not run: {e}"), ms, false),
        }
    }

    fn snapshot_args(&self) -> Vec<&'static str> {
        // The whole tree, as agent-browser prints it (by default a big
        // page's is cut at what one MCP call gives Claude Code).
        vec!["snapshot", "--budget", "1000000"]
    }

    fn target(&self, r: &str) -> String {
        r.to_string()
    }
}

struct Peer(AgentBrowser);

impl Cli for Peer {
    fn run(&mut self, args: &[&str]) -> (String, f64, bool) {
        let r = self.0.run(args);
        // It says "✗ …" first when a command fails (a page's own text may hold a ✗).
        let ok = r.succeeded && !r.stdout.trim_start().starts_with('✗');
        (r.stdout, r.ms, ok)
    }

    fn snapshot_args(&self) -> Vec<&'static str> {
        // Its full snapshot, as the text a model reads.
        vec!["snapshot"]
    }

    fn target(&self, r: &str) -> String {
        format!("@{r}")
    }
}

fn flow(tool: &str, cli: &mut dyn Cli, files: &FixtureServer) -> FlowRun {
    let order = files.url("sessions/order.html");
    let about = files.url("sessions/about.html");
    let mut commands = Vec::new();
    let mut record = |name: &str, (text, ms, ok): (String, f64, bool)| -> String {
        commands.push(CommandRun {
            command: name.to_string(),
            ms,
            chars: text.chars().count(),
            ok,
        });
        text
    };
    let mut problem = None;
    record("open", cli.run(&["open", &order]));
    let snap_args = cli.snapshot_args();
    let page = record("snapshot", cli.run(&snap_args));
    let refs = (
        ref_on_line(&page, "textbox \"Full name\""),
        ref_on_line(&page, "combobox \"Size\""),
        ref_on_line(&page, "button \"Place order\""),
    );
    let placed_text;
    let after_back;
    if let (Some(name), Some(size), Some(place)) = refs {
        record("fill", cli.run(&["fill", &cli.target(&name), "Ada Lovelace"]));
        record("select", cli.run(&["select", &cli.target(&size), "Medium"]));
        record("click", cli.run(&["click", &cli.target(&place)]));
        placed_text = record("snapshot", cli.run(&snap_args));
        record("open", cli.run(&["open", &about]));
        record("back", cli.run(&["back"]));
        after_back = record("snapshot", cli.run(&snap_args));
    } else {
        problem = Some(format!("no refs for the form in:\n{page}"));
        placed_text = String::new();
        after_back = String::new();
    }
    record("close", cli.run(&["close"]));
    let placed = placed_text.contains("Order placed for Ada Lovelace (Medium)");
    let refs_back = after_back.contains("Order placed for Ada Lovelace") && after_back.contains("ref=");
    if problem.is_none() && !(placed && refs_back) {
        problem = Some(format!(
            "placed: {placed}, refs after back: {refs_back}\n--- after the click:\n{placed_text}\n--- after back:\n{after_back}"
        ));
    }
    FlowRun {
        tool: tool.to_string(),
        commands,
        flow_ok: problem.is_none(),
        problem,
    }
}

pub async fn bench_sessions(args: &BenchSessionsArgs) -> Result<SessionsReport> {
    let exe = std::env::current_exe().map_err(|e| Error::Io(format!("the sightline binary: {e}")))?;
    let peer = if args.no_agent_browser {
        None
    } else {
        Some(AgentBrowser::installed()?)
    };
    let files = FixtureServer::try_serve(fixtures_dir())
        .map_err(|e| Error::Io(format!("cannot serve the fixture pages: {e}")))?;
    let runs = args.runs.max(1);
    let pages = if args.pages.is_empty() {
        None
    } else {
        Some(serve_files(&expand_inputs(&args.pages)?)?)
    };
    tokio::task::spawn_blocking(move || -> Result<SessionsReport> {
        let mut out = Vec::new();
        for run in 0..runs {
            let dir = tempfile::tempdir().map_err(|e| Error::Io(format!("a session folder: {e}")))?;
            let mut ours = Sightline {
                exe: exe.clone(),
                dir,
                session: format!("bench-{run}"),
            };
            eprintln!("bench sessions: run {}/{runs}: sightline", run + 1);
            out.push(flow("sightline", &mut ours, &files));
            if let Some(binary) = &peer {
                eprintln!("bench sessions: run {}/{runs}: agent-browser", run + 1);
                let session = format!("sightline-bench-{}-{run}", std::process::id());
                let mut theirs = Peer(AgentBrowser::new(binary.clone(), &session));
                out.push(flow("agent-browser", &mut theirs, &files));
            }
        }
        let mut snapshots = Vec::new();
        if let Some((_server, served)) = &pages {
            let dir = tempfile::tempdir().map_err(|e| Error::Io(format!("a session folder: {e}")))?;
            let mut ours = Sightline {
                exe: exe.clone(),
                dir,
                session: "bench-pages".into(),
            };
            eprintln!("bench sessions: {} pages: sightline", served.len());
            let sightline = snapshot_each(&mut ours, served);
            let theirs = peer.as_ref().map(|binary| {
                eprintln!("bench sessions: {} pages: agent-browser", served.len());
                let session = format!("sightline-bench-pages-{}", std::process::id());
                snapshot_each(&mut Peer(AgentBrowser::new(binary.clone(), &session)), served)
            });
            for (i, (name, _)) in served.iter().enumerate() {
                snapshots.push(PageSnapshot {
                    page: name.clone(),
                    sightline: sightline[i],
                    agent_browser: theirs.as_ref().and_then(|t| t[i]),
                });
            }
        }
        Ok(SessionsReport {
            runs: out,
            pages: snapshots,
        })
    })
    .await
    .map_err(|e| Error::Io(format!("the sessions benchmark failed: {e}")))?
}

/// Opens each page in one session and counts its `snapshot`'s characters
/// (None: the open or the snapshot failed); closes the session.
fn snapshot_each(cli: &mut dyn Cli, pages: &[(String, String)]) -> Vec<Option<usize>> {
    let snap = cli.snapshot_args();
    let counts = pages
        .iter()
        .map(|(name, url)| {
            let (said, _, opened) = cli.run(&["open", url]);
            let (text, _, ok) = cli.run(&snap);
            if !(opened && ok) {
                // Why, on stderr: the table only says "failed".
                let why = if opened { &text } else { &said };
                let why: String = why
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .take(4)
                    .collect::<Vec<_>>()
                    .join(" | ");
                eprintln!(
                    "bench sessions: {name}: {} failed: {why}",
                    if opened { "snapshot" } else { "open" }
                );
            }
            (opened && ok).then(|| text.chars().count())
        })
        .collect();
    cli.run(&["close"]);
    counts
}

/// The per-page table of `--pages`.
/// `peer_ran`: agent-browser was in the run (else its column says `-`).
fn render_pages(pages: &[PageSnapshot], peer_ran: bool) -> String {
    let mut out = String::from("\nsnapshot of each page: output characters\n");
    out.push_str(&format!(
        "{:<36} {:>10} {:>14} {:>7}\n",
        "page", "sightline", "agent-browser", "ratio"
    ));
    let shown = |c: Option<usize>| c.map_or_else(|| "failed".to_string(), |c| c.to_string());
    let (mut ours, mut theirs, mut within, mut both) = (0, 0, 0, 0);
    for p in pages {
        let ratio = match (p.sightline, p.agent_browser) {
            (Some(a), Some(b)) => {
                ours += a;
                theirs += b;
                both += 1;
                within += usize::from(a <= b);
                format!("{:.2}", a as f64 / b.max(1) as f64)
            }
            _ => String::new(),
        };
        out.push_str(&format!(
            "{:<36} {:>10} {:>14} {:>7}\n",
            p.page,
            shown(p.sightline),
            if peer_ran { shown(p.agent_browser) } else { "-".into() },
            ratio
        ));
    }
    if both > 0 {
        out.push_str(&format!(
            "sightline's snapshot <= agent-browser's full snapshot on {within} of {both} pages; {ours} vs {theirs} chars in all ({:.2}x)\n",
            ours as f64 / theirs.max(1) as f64
        ));
    }
    out
}

pub fn render(r: &SessionsReport) -> String {
    let tools: Vec<&str> = {
        let mut t: Vec<&str> = r.runs.iter().map(|f| f.tool.as_str()).collect();
        t.dedup();
        t.sort();
        t.dedup();
        t.reverse();
        t
    };
    let mut out = String::from("per command: wall ms of each run (a process per command), output characters\n");
    out.push_str(&format!("{:<4} {:<9}", "#", "command"));
    for t in &tools {
        out.push_str(&format!(" | {:>30}", t));
    }
    out.push('\n');
    for (i, step) in STEPS.iter().enumerate() {
        out.push_str(&format!("{:<4} {:<9}", i + 1, step));
        for t in &tools {
            let cells: Vec<&CommandRun> = r
                .runs
                .iter()
                .filter(|f| f.tool == *t)
                .filter_map(|f| f.commands.get(i))
                .collect();
            let ms: Vec<String> = cells.iter().map(|c| format!("{:.0}", c.ms)).collect();
            let chars = cells.first().map_or(0, |c| c.chars);
            out.push_str(&format!(" | {:>20} ms {:>6}", ms.join(", "), chars));
        }
        out.push('\n');
    }
    let mut totals = Vec::new();
    out.push_str(&format!("{:<14}", "total"));
    for t in &tools {
        let per_run: Vec<f64> = r
            .runs
            .iter()
            .filter(|f| f.tool == *t)
            .map(|f| f.commands.iter().map(|c| c.ms).sum())
            .collect();
        let chars: usize = r
            .runs
            .iter()
            .find(|f| f.tool == *t)
            .map_or(0, |f| f.commands.iter().map(|c| c.chars).sum());
        totals.push((t.to_string(), median(&per_run)));
        let shown: Vec<String> = per_run.iter().map(|m| format!("{m:.0}")).collect();
        out.push_str(&format!(" | {:>20} ms {:>6}", shown.join(", "), chars));
    }
    out.push('\n');
    for t in &tools {
        let warm: Vec<f64> = r
            .runs
            .iter()
            .filter(|f| f.tool == *t)
            .flat_map(|f| f.commands.iter().skip(1).take(8).map(|c| c.ms))
            .collect();
        let ok = r.runs.iter().filter(|f| f.tool == *t).all(|f| f.flow_ok);
        out.push_str(&format!(
            "{t}: warm per-command median {:.0} ms; the flow {}\n",
            median(&warm),
            if ok { "worked in every run" } else { "FAILED" }
        ));
    }
    if let (Some(ours), Some(theirs)) = (
        totals.iter().find(|(t, _)| t == "sightline"),
        totals.iter().find(|(t, _)| t == "agent-browser"),
    ) {
        out.push_str(&format!(
            "sightline / agent-browser: {:.2}x the total time (median run)\n",
            ours.1 / theirs.1.max(f64::EPSILON)
        ));
    }
    for f in r.runs.iter().filter(|f| !f.flow_ok) {
        if let Some(p) = &f.problem {
            out.push_str(&format!("{}: {}\n", f.tool, p));
        }
    }
    if !r.pages.is_empty() {
        let peer_ran = r.runs.iter().any(|f| f.tool == "agent-browser");
        out.push_str(&render_pages(&r.pages, peer_ran));
    }
    out
}

pub async fn run(args: BenchSessionsArgs) -> Result<()> {
    let report = bench_sessions(&args).await?;
    print_report(&report, args.json, render);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_table_counts_pages_within_and_totals_only_pages_both_read() {
        let page = |name: &str, ours: Option<usize>, theirs: Option<usize>| PageSnapshot {
            page: name.into(),
            sightline: ours,
            agent_browser: theirs,
        };
        let t = render_pages(
            &[
                page("a.html", Some(100), Some(200)),
                page("b.html", Some(300), Some(150)),
                page("c.html", None, Some(10)),
            ],
            true,
        );
        assert!(t.contains("on 1 of 2 pages; 400 vs 350 chars in all (1.14x)"), "{t}");
        assert!(
            t.lines().any(|l| l.starts_with("c.html") && l.contains("failed")),
            "{t}"
        );
        // Without agent-browser in the run, its column is not "failed".
        let alone = render_pages(&[page("a.html", Some(100), None)], false);
        assert!(
            alone
                .lines()
                .any(|l| l.starts_with("a.html") && l.contains(" - ") && !l.contains("failed")),
            "{alone}"
        );
    }
}
