//! `sightline mcp` for the tests: the binary as a stdio server or a
//! background HTTP server, for the test kit's real MCP client.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub use sightline_testkit::mcp_client::{raw_post, raw_post_status, roots_env, McpClient};

/// `sightline mcp <args…>` over stdio.
pub fn stdio(args: &[&str]) -> McpClient {
    stdio_env(args, &[])
}

/// `sightline mcp <args…>` over stdio, with extra environment variables.
pub fn stdio_env(args: &[&str], envs: &[(&str, &str)]) -> McpClient {
    let mut full = vec!["mcp"];
    full.extend_from_slice(args);
    McpClient::stdio(env!("CARGO_BIN_EXE_sightline"), &full, envs)
}

/// The `[ref=…]` of the first line that contains `needle`.
pub fn ref_in(text: &str, needle: &str) -> String {
    text.lines()
        .filter(|l| l.contains(needle))
        .find_map(crate::support::ref_of)
        .unwrap_or_else(|| panic!("no ref on a line with {needle:?} in:\n{text}"))
}

/// `sightline mcp --port 0 …` running in the background; stopped (SIGTERM) on drop.
pub struct McpHttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    pub port: u16,
}

impl McpHttpServer {
    pub fn start(args: &[&str]) -> McpHttpServer {
        McpHttpServer::start_in(&std::env::current_dir().unwrap(), args)
    }

    /// [`McpHttpServer::start`] with `dir` as the server's working directory.
    pub fn start_in(dir: &std::path::Path, args: &[&str]) -> McpHttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sightline"))
            .current_dir(dir)
            .args(["mcp", "--port", "0"])
            .args(args)
            .env_remove("SIGHTLINE_LOG")
            .env_remove("SIGHTLINE_MCP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sightline mcp starts");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).expect("sightline mcp says where it listens");
        let url = line
            .trim()
            .strip_prefix("sightline mcp: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
            .to_string();
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = String::new();
            while err.read_line(&mut sink).map(|n| n > 0).unwrap_or(false) {
                sink.clear();
            }
        });
        let port = url
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches("/mcp")
            .parse()
            .unwrap();
        McpHttpServer { child, url, port }
    }
}

impl McpHttpServer {
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for McpHttpServer {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
