//! Stagehand v3's computer-use agent as a peer for `sightline bench cua`:
//! a headless Chromium started with a DevTools port (as Stagehand's docs
//! attach to one), and `stagehand-cua.mjs` next to this file running one
//! task against it with Stagehand's own CUA client pointed at a scripted
//! server. Stagehand is installed by scripts/setup.sh in `.tools/stagehand`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// `.tools/stagehand/node_modules/@browserbasehq/stagehand` exists.
pub fn installed() -> bool {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.tools/stagehand/node_modules/@browserbasehq/stagehand/package.json")
        .exists()
}

/// A headless Chromium with a DevTools port on 127.0.0.1, off the network; killed on drop.
pub struct DevToolsChrome {
    child: Child,
    /// `ws://127.0.0.1:PORT/devtools/browser/…`.
    pub ws_url: String,
    _profile: tempfile::TempDir,
}

impl DevToolsChrome {
    pub fn start(executable: &Path, width: u32, height: u32) -> Result<DevToolsChrome, String> {
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(executable);
        cmd.args([
            "--headless=new",
            "--remote-debugging-port=0",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-background-networking",
        ])
        .arg(format!("--window-size={width},{height}"))
        .args(crate::offline_switches().iter().map(|s| format!("--{s}")))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        let root = std::fs::metadata("/proc/self")
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
            .unwrap_or(false);
        if root {
            cmd.arg("--no-sandbox");
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", executable.display()))?;
        let file = profile.path().join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(60);
        let ws_url = loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    break format!("ws://127.0.0.1:{}{}", port.trim(), path.trim());
                }
            }
            if Instant::now() > deadline {
                return Err("chromium did not open its DevTools port".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Ok(DevToolsChrome {
            child,
            ws_url,
            _profile: profile,
        })
    }
}

impl Drop for DevToolsChrome {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One Stagehand task.
#[derive(Debug, Clone)]
pub struct StagehandTask<'a> {
    pub cdp_url: &'a str,
    pub url: &'a str,
    /// `anthropic/claude-sonnet-4-5-20250929`, `openai/computer-use-preview`…
    pub model: &'a str,
    pub base_url: &'a str,
    pub instruction: &'a str,
    pub max_steps: u32,
    pub viewport: (u32, u32),
    /// A JavaScript expression read from the page afterwards.
    pub check: &'a str,
}

/// What Stagehand reported.
#[derive(Debug, Clone)]
pub struct StagehandRun {
    pub ok: bool,
    pub completed: bool,
    pub message: String,
    /// `agent.execute()` alone, as measured in Node.
    pub ms: f64,
    pub check: Value,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("stagehand-cua.mjs")
}

/// Runs the task in a Node process (a fresh Stagehand, attached to the browser).
pub fn run(task: &StagehandTask<'_>) -> Result<StagehandRun, String> {
    let args = json!({
        "cdpUrl": task.cdp_url, "url": task.url, "modelName": task.model, "baseURL": task.base_url,
        // Anthropic's SDK refuses an empty key before sending anything.
        "apiKey": "test-key", "instruction": task.instruction, "maxSteps": task.max_steps,
        "viewport": {"width": task.viewport.0, "height": task.viewport.1}, "check": task.check,
    });
    let output = Command::new("node")
        .arg(script())
        .arg(args.to_string())
        // Google's client would read these instead of baseURL.
        .env_remove("GOOGLE_GENAI_USE_VERTEXAI")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("STAGEHAND_RESULT "))
        .ok_or_else(|| {
            format!(
                "stagehand-cua.mjs printed no result; stderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    let v: Value = serde_json::from_str(line).map_err(|e| format!("bad result {line}: {e}"))?;
    Ok(StagehandRun {
        ok: v["ok"].as_bool().unwrap_or(false),
        completed: v["completed"].as_bool().unwrap_or(false),
        message: v["message"].as_str().unwrap_or_default().to_string(),
        ms: v["ms"].as_f64().unwrap_or(0.0),
        check: v["check"].clone(),
    })
}
