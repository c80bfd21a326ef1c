//! `sightline` binary: see `cli.rs`.

mod cli;

use std::process::ExitCode;

use clap::Parser;
use sightline::Error;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();

    // Quiet unless asked: SIGHTLINE_LOG=debug, SIGHTLINE_LOG=sightline=debug, …
    let filter = EnvFilter::try_from_env("SIGHTLINE_LOG").unwrap_or_else(|_| EnvFilter::new("off"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();

    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(cli::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                Error::Interrupted => ExitCode::from(130),
                _ => ExitCode::FAILURE,
            }
        }
    }
}
