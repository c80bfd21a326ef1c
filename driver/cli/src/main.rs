//! `sightline`: the command line over the `sightline` library. It parses
//! flags, calls the library and prints what it returns; everything else
//! lives in the library.

mod agent;
mod ai;
mod args;
mod batch;
mod bench;
mod eval;
mod evaluate;
mod extension;
mod mcp;
mod output;
mod run;
mod session;
mod signals;
mod snapshot;
mod unblock;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use sightline::{Error, Result};
use tracing_subscriber::EnvFilter;

#[derive(Debug, Parser)]
#[command(
    name = "sightline",
    version,
    about = "Browser automation for LLM agents: compact, ref-annotated page snapshots"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Load a page and print its snapshot (the text an LLM is given).
    Snapshot(snapshot::SnapshotArgs),
    /// Play a list of steps on a page, no LLM involved
    /// (`[{"tool":"click","target":"e3"}, {"method":"fill","selector":"#email","arguments":["a@b.c"]}, …]`).
    Run(run::RunArgs),
    /// Carry out one instruction with an LLM ("click the Add to cart button").
    Act(ai::ActArgs),
    /// List the elements that fit a request, as actions `sightline run` can play.
    Observe(ai::ObserveArgs),
    /// Extract data shaped by a JSON Schema (or the page's text).
    Extract(ai::ExtractArgs),
    /// Carry out a whole task autonomously with an LLM and the browser tools.
    Agent(agent::AgentArgs),
    /// Re-run a run saved by `agent --save-run`, with no LLM.
    Replay(agent::ReplayArgs),
    /// Close the pop-up, overlay or banner in the way (conservative by default;
    /// options also come from `./sightline.toml`).
    Unblock(unblock::UnblockArgs),
    /// Ask a judge model whether a page shows something ("Was the order
    /// placed?"): YES or NO with its reasoning, from the page's screenshot.
    Evaluate(evaluate::EvaluateArgs),
    /// Run an eval suite (WebVoyager, Online-Mind2Web or task lines) with the
    /// agent in each mode and trial, judge every run, report success rates.
    /// (In a session, `sightline eval <js>` evaluates JavaScript on the page.)
    Eval(eval::EvalArgs),
    /// Run many tasks (agent, steps, extract) from a JSON-lines file on a
    /// pool of browsers, running browsers or a Selenium Grid; resumable.
    Batch(batch::BatchCommand),
    /// Serve every Sightline tool to MCP clients (stdio, or HTTP with --port).
    Mcp(mcp::McpArgs),
    /// Measure snapshot speed and size, action latency, act's overhead, MCP responses and batch throughput on local pages.
    Bench(bench::BenchArgs),
    /// A session's daemon (started by `sightline open`; not for direct use).
    #[command(name = "__session-daemon", hide = true)]
    SessionDaemon(session::DaemonArgs),
}

/// The help of a one-shot command (`snapshot URL`, `eval SUITE`…), for the
/// session command of the same name to show beside its own.
fn one_shot_help(name: &str) -> Option<String> {
    let mut command = Cli::command()
        .find_subcommand(name)?
        .clone()
        .bin_name(format!("sightline {name}"));
    Some(command.render_long_help().to_string())
}

async fn dispatch(command: Command) -> Result<()> {
    match command {
        Command::Snapshot(args) => snapshot::snapshot(args).await,
        Command::Run(args) => run::run_steps(args).await,
        Command::Unblock(args) => unblock::unblock(args).await,
        Command::Act(args) => ai::act(args).await,
        Command::Observe(args) => ai::observe(args).await,
        Command::Extract(args) => ai::extract(args).await,
        Command::Agent(args) => agent::agent(args).await,
        Command::Replay(args) => agent::replay(args).await,
        Command::Evaluate(args) => evaluate::evaluate(args).await,
        Command::Eval(args) => eval::eval(args).await,
        Command::Batch(args) => batch::batch(args).await,
        Command::Mcp(args) => mcp::mcp(args).await,
        Command::SessionDaemon(args) => session::run_daemon(args).await,
        Command::Bench(args) => {
            let signal = signals::shutdown_signal();
            tokio::pin!(signal);
            signals::interruptible(signal.as_mut(), bench::run(args)).await
        }
    }
}

fn main() -> ExitCode {
    // Session commands (`sightline open URL`, `sightline click e3`…) are
    // short clients of a daemon: no async runtime, no browser here.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) = session::run_if_session(&argv, one_shot_help) {
        return code;
    }
    // The one-shot commands, and the session commands listed in the help.
    let mut command = Cli::command().after_help(
        "Session commands keep a browser open between calls: `sightline open URL`, then `sightline snapshot`, \
`sightline click e3`… (`sightline skill` explains them).",
    );
    for c in session::help_commands(&sightline::Registry::standard()) {
        command = command.subcommand(c);
    }
    let cli = match Cli::from_arg_matches(&command.get_matches_from(&argv)) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };

    // Quiet unless asked: SIGHTLINE_LOG=debug, SIGHTLINE_LOG=sightline=debug, …
    let filter = EnvFilter::try_from_env("SIGHTLINE_LOG").unwrap_or_else(|_| EnvFilter::new("off"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();

    // Workers get 16 MB of stack, as the tests' threads do (.cargo/config.toml):
    // an unoptimised build keeps each await's temporaries in the poll
    // function's frame, and a batch task (agent → tool → page) overflowed
    // the default 2 MB when the binary was run outside cargo. (Only address
    // space: pages are committed as they are used.)
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 * 1024 * 1024)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", output::terminal_safe(&e.to_string()));
            match e {
                Error::Interrupted => ExitCode::from(signals::interrupted_exit_status()),
                _ => ExitCode::FAILURE,
            }
        }
    }
}
