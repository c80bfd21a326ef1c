//! `sightline bench …`: figures, printed (performance goals are checked by
//! reading them, never by timed tests). Pages and stand-in models are served
//! by the tests' own servers (`sightline-testkit`).

mod act;
mod actions;
mod agent_browser;
mod batch;
mod cua;
mod living;
mod mcp;
mod mcp_sessions;
mod memory;
mod pages;
mod sessions;
mod snapshot;

use sightline::Result;

/// `sightline bench …`
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum BenchCommand {
    /// Time snapshots of local pages (a directory stands for its *.html files).
    Snapshot(snapshot::BenchSnapshotArgs),
    /// Median latency of `click` and `fill` on a warm page (checks included).
    Actions(actions::BenchActionsArgs),
    /// Prompt tokens of `act` per page and its driver-side overhead (the
    /// model's time excluded; a loopback stand-in model by default).
    Act(act::BenchActArgs),
    /// One tool-call sequence through Sightline's MCP server and Playwright
    /// MCP: response tokens, latency and success per step.
    Mcp(mcp::BenchMcpArgs),
    /// Scripted agent steps on pages that behave like real sites (slow ads,
    /// beacons, long polls, client rendering…) through Sightline's MCP
    /// server, Playwright MCP and agent-browser: tool time until the target
    /// is seen, and whether the first response had it.
    Living(living::BenchLivingArgs),
    /// The ten-command flow of a coding agent (a process per command)
    /// through Sightline's session commands and agent-browser.
    Sessions(sessions::BenchSessionsArgs),
    /// Tasks per minute of a batch of steps-only tasks at several
    /// concurrencies and through a local Selenium Grid, with each worker's peak memory.
    Batch(batch::BenchBatchArgs),
    /// One computer-use task with an instant scripted model, through
    /// Sightline and Stagehand v3's CUA clients, for Anthropic, OpenAI and
    /// Gemini: wall time per run and per step.
    Cua(cua::BenchCuaArgs),
    /// The MCP HTTP server's memory over many sessions: opened with a tab
    /// each and ended, and initialize-only ones left to the idle timeout.
    McpSessions(mcp_sessions::BenchMcpSessionsArgs),
}

/// Entry point of `sightline bench`.
pub async fn run(args: BenchArgs) -> Result<()> {
    match args.command {
        BenchCommand::Snapshot(a) => snapshot::run(a).await,
        BenchCommand::Actions(a) => actions::run(a).await,
        BenchCommand::Act(a) => act::run(a).await,
        BenchCommand::Mcp(a) => mcp::run(a).await,
        BenchCommand::Batch(a) => batch::run(a).await,
        BenchCommand::Living(a) => living::run(a).await,
        BenchCommand::Sessions(a) => sessions::run(a).await,
        BenchCommand::Cua(a) => cua::run(a).await,
        BenchCommand::McpSessions(a) => mcp_sessions::run(a).await,
    }
}
