//! A real Selenium Grid 4 standalone on 127.0.0.1 with Debian's Chromium
//! and chromedriver, for the batch tests and `sightline bench batch`.
//!
//! The server jar comes from npm (`@nightwatch/selenium-server`, installed
//! by scripts/setup.sh into `.grid/`), Java from Debian. The grid is started
//! with `--host 127.0.0.1`, or it would announce (and hand out `se:cdp`
//! URLs on) the machine's other address.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The pinned server version (scripts/env.sh pins the same).
pub const SELENIUM_VERSION: &str = "4.20.0";

/// Environment variable naming a server jar to use instead of `.grid/`'s.
pub const GRID_JAR_ENV: &str = "SIGHTLINE_GRID_JAR";

/// How long a grid may take to say it is ready on a busy machine.
const READY_WITHIN: Duration = Duration::from_secs(180);

/// Why there is no grid.
#[derive(Debug)]
pub enum GridError {
    /// Java or the server jar is not installed (scripts/setup.sh installs both).
    Missing(String),
    /// It is installed but did not come up.
    Failed(String),
}

impl std::fmt::Display for GridError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GridError::Missing(m) | GridError::Failed(m) => f.write_str(m),
        }
    }
}

/// The server jar: `$SIGHTLINE_GRID_JAR`, else the one setup.sh installs.
pub fn grid_jar() -> PathBuf {
    match std::env::var_os(GRID_JAR_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
            "../../.grid/node_modules/@nightwatch/selenium-server/lib/selenium-server-{SELENIUM_VERSION}.jar"
        )),
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// A running grid; stopped (with its browsers) when dropped.
pub struct LocalGrid {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl LocalGrid {
    /// Starts a standalone grid with `slots` Chromium slots on a free port
    /// and waits until it is ready.
    pub fn start(slots: u32) -> Result<LocalGrid, GridError> {
        let java = on_path("java")
            .ok_or_else(|| GridError::Missing("no `java` on PATH (apt-get install default-jre-headless)".into()))?;
        let jar = grid_jar();
        if !jar.is_file() {
            return Err(GridError::Missing(format!(
                "no Selenium server jar at {} (bash scripts/setup.sh installs it)",
                jar.display()
            )));
        }
        let chromium = std::env::var("SIGHTLINE_CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let driver = on_path("chromedriver").unwrap_or_else(|| PathBuf::from("/usr/bin/chromedriver"));
        let failed = |m: String| GridError::Failed(m);
        let dir = tempfile::tempdir().map_err(|e| failed(e.to_string()))?;
        let config = format!(
            "[node]\ndetect-drivers = false\n[[node.driver-configuration]]\ndisplay-name = \"chromium\"\n\
stereotype = '{{\"browserName\": \"chrome\", \"goog:chromeOptions\": {{\"binary\": \"{chromium}\"}}}}'\n\
max-sessions = {slots}\nwebdriver-executable = \"{}\"\n",
            driver.display()
        );
        std::fs::write(dir.path().join("grid.toml"), config).map_err(|e| failed(e.to_string()))?;
        let port = free_port();
        let log = std::fs::File::create(dir.path().join("grid.log")).map_err(|e| failed(e.to_string()))?;
        let child = {
            use std::os::unix::process::CommandExt;
            Command::new(java)
                .arg("-jar")
                .arg(&jar)
                .args(["standalone", "--config", "grid.toml", "--host", "127.0.0.1", "--port"])
                .arg(port.to_string())
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(log.try_clone().map_err(|e| failed(e.to_string()))?)
                .stderr(log)
                // Its own process group: dropping the grid stops chromedriver
                // and Chromium with it.
                .process_group(0)
                .spawn()
                .map_err(|e| failed(format!("cannot start java: {e}")))?
        };
        let mut grid = LocalGrid { child, port, dir };
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if grid.status().ok().is_some_and(|s| s["value"]["ready"] == true) {
                return Ok(grid);
            }
            if let Ok(Some(status)) = grid.child.try_wait() {
                return Err(failed(format!("the grid exited ({status}): {}", grid.log_tail())));
            }
            if Instant::now() > deadline {
                return Err(failed(format!(
                    "the grid was not ready within {READY_WITHIN:?}: {}",
                    grid.log_tail()
                )));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `GET /status`.
    pub fn status(&self) -> Result<Value, String> {
        self.request("GET", "/status", None)
    }

    /// Sessions the grid's slots hold now (from `/status`).
    pub fn sessions(&self) -> Result<usize, String> {
        let status = self.status()?;
        let nodes = status["value"]["nodes"].as_array().cloned().unwrap_or_default();
        Ok(nodes
            .iter()
            .flat_map(|n| n["slots"].as_array().cloned().unwrap_or_default())
            .filter(|s| !s["session"].is_null())
            .count())
    }

    /// New-session requests waiting in the grid's queue (GraphQL `sessionQueueSize`).
    pub fn queue_size(&self) -> Result<u64, String> {
        let body = r#"{"query": "{ grid { sessionQueueSize } }"}"#;
        let v = self.request("POST", "/graphql", Some(body))?;
        v["data"]["grid"]["sessionQueueSize"]
            .as_u64()
            .ok_or_else(|| format!("no sessionQueueSize in {v}"))
    }

    /// The end of the grid's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("grid.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }

    /// A small HTTP/1.0 exchange (the answer ends with the connection).
    fn request(&self, method: &str, path: &str, body: Option<&str>) -> Result<Value, String> {
        let mut sock = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        sock.set_read_timeout(Some(Duration::from_secs(30)))
            .map_err(|e| e.to_string())?;
        let body = body.unwrap_or("");
        let request = format!(
            "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json; charset=utf-8\r\n\
Content-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        sock.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
        let mut answer = String::new();
        sock.read_to_string(&mut answer).map_err(|e| e.to_string())?;
        let (_, body) = answer.split_once("\r\n\r\n").ok_or("not an HTTP answer")?;
        serde_json::from_str(body).map_err(|e| format!("{path}: {e}: {body}"))
    }
}

impl Drop for LocalGrid {
    fn drop(&mut self) {
        // SIGTERM to the whole group (java, chromedriver, Chromium), then make sure.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now (bound, then let go).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}
