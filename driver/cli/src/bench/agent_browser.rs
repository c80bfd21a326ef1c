//! agent-browser (npm `agent-browser`, pinned in scripts/env.sh), the peer
//! of `bench living` and `bench sessions`: each command is a process of
//! its own talking to the session's daemon, as a coding agent runs it.
//! Its Linux binary ships inside the package (scripts/setup.sh sets the run
//! bit); it drives the same Debian Chromium, kept off the network.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sightline::{Error, Result};
use sightline_testkit::offline_switches;

/// One command's output and wall time.
#[derive(Debug, Clone)]
pub struct Ran {
    pub stdout: String,
    pub ms: f64,
    /// It ran and exited with status 0.
    pub succeeded: bool,
}

/// A named agent-browser session; closed on drop.
pub struct AgentBrowser {
    binary: PathBuf,
    session: String,
}

impl AgentBrowser {
    /// The binary scripts/setup.sh installs, or an error that says so.
    pub fn installed() -> Result<PathBuf> {
        let binary = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../.tools/node_modules/agent-browser/bin/agent-browser-linux-x64");
        if binary.is_file() {
            Ok(binary)
        } else {
            Err(Error::NoSuchFile {
                path: binary,
                hint: Some(" (run scripts/setup.sh, or leave agent-browser out)".into()),
            })
        }
    }

    pub fn new(binary: PathBuf, session: &str) -> AgentBrowser {
        AgentBrowser {
            binary,
            session: session.to_string(),
        }
    }

    /// Runs `agent-browser <args…>` in this session.
    pub fn run(&self, args: &[&str]) -> Ran {
        let mut launch_args = vec!["--no-sandbox".to_string()];
        launch_args.extend(offline_switches().into_iter().map(|s| format!("--{s}")));
        let started = Instant::now();
        let out = Command::new(&self.binary)
            .args(args)
            .env("AGENT_BROWSER_SESSION", &self.session)
            .env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium")
            .env("AGENT_BROWSER_ARGS", launch_args.join("\n"))
            .output();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        match out {
            Ok(o) => Ran {
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                ms,
                succeeded: o.status.success(),
            },
            Err(e) => Ran {
                stdout: format!("agent-browser did not run: {e}"),
                ms,
                succeeded: false,
            },
        }
    }
}

impl Drop for AgentBrowser {
    fn drop(&mut self) {
        let _ = self.run(&["close"]);
    }
}
