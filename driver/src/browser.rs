//! Launching and shutting down Chromium.
//!
//! One [`Browser`] owns one Chromium process with a fresh temporary profile,
//! and the chromiumoxide handler task that pumps its DevTools connection.
//! [`Browser::close`] closes it politely and waits for the process; dropping a
//! `Browser` that was not closed kills the process instead, so no Chromium is
//! ever left behind.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use chromiumoxide::error::CdpError;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::BrowserConfig;
use futures::StreamExt;
use tokio::task::JoinHandle;

use crate::error::{one_line, Error, Result};
use crate::page::Page;

/// Chromium used when neither [`LaunchOptions::executable`] nor `SIGHTLINE_CHROME` is set.
pub const DEFAULT_CHROME: &str = "/usr/bin/chromium";

/// Environment variable naming the Chromium executable.
pub const CHROME_ENV: &str = "SIGHTLINE_CHROME";

/// Size of the page viewport in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewportSize {
    pub width: u32,
    pub height: u32,
}

impl Default for ViewportSize {
    fn default() -> Self {
        ViewportSize {
            width: 1280,
            height: 720,
        }
    }
}

impl FromStr for ViewportSize {
    type Err = String;

    /// Parses `WIDTHxHEIGHT`, e.g. `1280x720`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (w, h) = s
            .trim()
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("expected WIDTHxHEIGHT (e.g. 1280x720), got {s:?}"))?;
        let parse = |v: &str, what: &str| -> std::result::Result<u32, String> {
            let n: u32 = v.trim().parse().map_err(|_| format!("invalid {what} {v:?} in {s:?}"))?;
            if !(100..=10_000).contains(&n) {
                return Err(format!("{what} {n} is out of range (100..=10000)"));
            }
            Ok(n)
        };
        Ok(ViewportSize {
            width: parse(w, "width")?,
            height: parse(h, "height")?,
        })
    }
}

impl std::fmt::Display for ViewportSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// How to start the browser.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// Chromium executable; defaults to `$SIGHTLINE_CHROME`, then [`DEFAULT_CHROME`].
    pub executable: Option<PathBuf>,
    /// Show a window instead of running headless.
    pub headed: bool,
    /// Page viewport (and window) size.
    pub viewport: ViewportSize,
    /// Chromium's sandbox; `None` turns it off only when running as root
    /// (where Chromium refuses to start with it).
    pub sandbox: Option<bool>,
    /// How long Chromium may take to come up.
    pub launch_timeout: Duration,
    /// How long any single DevTools command may take.
    pub request_timeout: Duration,
    /// How long [`Page::goto`] waits for the load event.
    pub navigation_timeout: Duration,
    /// Extra Chromium switches, without the leading `--` (e.g. `"lang=de"`).
    pub extra_args: Vec<String>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            executable: None,
            headed: false,
            viewport: ViewportSize::default(),
            sandbox: None,
            launch_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            navigation_timeout: Duration::from_secs(30),
            extra_args: Vec::new(),
        }
    }
}

impl LaunchOptions {
    /// The executable this launch will use.
    pub fn resolved_executable(&self) -> PathBuf {
        if let Some(p) = &self.executable {
            return p.clone();
        }
        match std::env::var_os(CHROME_ENV) {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => PathBuf::from(DEFAULT_CHROME),
        }
    }
}

/// Switches that keep Chromium quiet, deterministic and off the network.
const CHROME_SWITCHES: &[&str] = &[
    "disable-gpu",
    "disable-background-networking",
    "disable-component-update",
    "disable-sync",
    "disable-domain-reliability",
    "disable-client-side-phishing-detection",
    "no-first-run",
    "no-default-browser-check",
    "disable-quic",
    // Cross-origin iframes stay in the page's own renderer (and so in the
    // page's CDP session), where one frame tree reaches every frame.
    "disable-site-isolation-trials",
];
const DISABLED_FEATURES: &[&str] = &["IsolateOrigins", "site-per-process"];

/// A running Chromium.
pub struct Browser {
    inner: Option<chromiumoxide::Browser>,
    handler: Option<JoinHandle<()>>,
    /// Fresh profile; removed after the process has exited.
    profile: Option<tempfile::TempDir>,
    options: LaunchOptions,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("running", &self.inner.is_some())
            .field("profile", &self.profile.as_ref().map(|p| p.path().to_path_buf()))
            .field("options", &self.options)
            .finish()
    }
}

fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // /proc/self belongs to the effective user of this process.
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

/// Finds a bare command name (`chromium`) on PATH; paths are returned as is.
fn locate_executable(exe: &Path) -> Option<PathBuf> {
    if exe.components().count() > 1 || exe.is_absolute() {
        return exe.is_file().then(|| exe.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(exe))
        .find(|p| p.is_file())
}

/// The last meaningful line Chromium wrote before dying, if any.
fn stderr_summary(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.contains("DevTools listening"))
        .map(|l| {
            let l = one_line(l);
            if l.chars().count() > 300 {
                l.chars().take(300).collect::<String>() + "…"
            } else {
                l
            }
        })
}

/// Removes a profile directory. Chromium's helper processes can still be
/// finishing writes (atomic temp files) for a moment after the main process
/// is gone, which makes a single `remove_dir_all` fail with "directory not
/// empty"; retry briefly, and check again that nothing re-created it.
fn remove_profile(dir: tempfile::TempDir) {
    let path = dir.keep();
    let mut failures = 0;
    let mut clean_checks = 0;
    while failures < 40 && clean_checks < 2 {
        match std::fs::remove_dir_all(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                failures += 1;
                tracing::debug!("removing {}: {e}", path.display());
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        }
        clean_checks += 1;
        if clean_checks < 2 {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    if path.exists() {
        tracing::warn!("could not remove the browser profile {}", path.display());
    }
}

fn launch_reason(err: CdpError) -> String {
    match err {
        CdpError::LaunchExit(status, stderr) => {
            let mut s = format!("the process exited ({status}) before it was ready");
            if let Some(line) = stderr_summary(stderr.as_slice()) {
                s.push_str(": ");
                s.push_str(&line);
            }
            s
        }
        CdpError::LaunchTimeout(stderr) => {
            let mut s = "it did not open its DevTools endpoint in time".to_string();
            if let Some(line) = stderr_summary(stderr.as_slice()) {
                s.push_str(": ");
                s.push_str(&line);
            }
            s
        }
        CdpError::LaunchIo(e, stderr) => {
            // Its stderr closing first is just the other face of an early exit.
            let mut s = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                "the process exited before it was ready".to_string()
            } else {
                e.to_string()
            };
            if let Some(line) = stderr_summary(stderr.as_slice()) {
                s.push_str(": ");
                s.push_str(&line);
            }
            s
        }
        other => one_line(&other.to_string()),
    }
}

impl Browser {
    /// Starts Chromium with a fresh temporary profile.
    pub async fn launch(options: LaunchOptions) -> Result<Browser> {
        let requested = options.resolved_executable();
        let launch_err = |reason: String| Error::BrowserLaunch {
            executable: requested.clone(),
            reason,
        };
        let executable = locate_executable(&requested).ok_or_else(|| launch_err("no such executable".into()))?;

        let profile = tempfile::Builder::new()
            .prefix("sightline-profile-")
            .tempdir()
            .map_err(|e| launch_err(format!("cannot create a profile directory: {e}")))?;

        let ViewportSize { width, height } = options.viewport;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(&executable)
            .user_data_dir(profile.path())
            .viewport(Viewport {
                width,
                height,
                ..Viewport::default()
            })
            .window_size(width, height)
            .launch_timeout(options.launch_timeout)
            .request_timeout(options.request_timeout)
            .args(CHROME_SWITCHES.iter().copied())
            .arg(("disable-features", DISABLED_FEATURES));
        for a in &options.extra_args {
            builder = builder.arg(a.trim_start_matches('-').to_string());
        }
        builder = if options.headed {
            builder.with_head()
        } else {
            builder.new_headless_mode()
        };
        if !options.sandbox.unwrap_or(!running_as_root()) {
            builder = builder.no_sandbox();
        }
        let config = builder.build().map_err(launch_err)?;

        tracing::debug!(executable = %executable.display(), profile = %profile.path().display(), "launching chromium");
        let (browser, mut handler) = match chromiumoxide::Browser::launch(config).await {
            Ok(v) => v,
            Err(e) => {
                remove_profile(profile);
                return Err(launch_err(launch_reason(e)));
            }
        };

        // Pump the DevTools connection until it closes or breaks.
        let task = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if let Err(e) = event {
                    match e {
                        CdpError::Ws(_) | CdpError::Io(_) => {
                            tracing::debug!("devtools connection closed: {e}");
                            break;
                        }
                        other => tracing::debug!("devtools handler: {other}"),
                    }
                }
            }
        });

        Ok(Browser {
            inner: Some(browser),
            handler: Some(task),
            profile: Some(profile),
            options,
        })
    }

    /// The options this browser was launched with.
    pub fn options(&self) -> &LaunchOptions {
        &self.options
    }

    /// The temporary profile directory (removed when the browser is closed or dropped).
    pub fn profile_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(|p| p.path())
    }

    /// Process id of the Chromium main process, while it runs.
    pub fn pid(&mut self) -> Option<u32> {
        self.inner.as_mut()?.get_mut_child().and_then(|c| c.inner.id())
    }

    /// Opens a new tab (on `about:blank`) with the engine installed in every frame.
    pub async fn new_page(&self) -> Result<Page> {
        let browser = self.inner.as_ref().ok_or(Error::BrowserClosed)?;
        let page = browser
            .new_page("about:blank")
            .await
            .map_err(|e| Error::cdp("Target.createTarget", e))?;
        Page::attach(page, self.options.navigation_timeout).await
    }

    /// Closes the browser and waits for its process to exit.
    pub async fn close(mut self) -> Result<()> {
        self.shutdown().await;
        Ok(())
    }

    async fn shutdown(&mut self) {
        if let Some(mut browser) = self.inner.take() {
            // Ask politely first; Chromium then takes its helpers down with it.
            match tokio::time::timeout(Duration::from_secs(5), browser.close()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::debug!("Browser.close failed: {e}"),
                Err(_) => tracing::debug!("Browser.close timed out"),
            }
            match tokio::time::timeout(Duration::from_secs(10), browser.wait()).await {
                Ok(_) => {}
                Err(_) => {
                    tracing::debug!("chromium did not exit in time; killing it");
                    if let Some(Err(e)) = browser.kill().await {
                        tracing::debug!("killing chromium failed: {e}");
                    }
                }
            }
        }
        if let Some(task) = self.handler.take() {
            task.abort();
            let _ = task.await;
        }
        // The process is gone: its profile can go too.
        if let Some(profile) = self.profile.take() {
            let _ = tokio::task::spawn_blocking(move || remove_profile(profile)).await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(mut browser) = self.inner.take() {
            if let Some(child) = browser.get_mut_child() {
                if let Ok(None) = child.inner.try_wait() {
                    let _ = child.inner.start_kill();
                    // Reap it now (briefly) rather than leaving a zombie to the runtime.
                    for _ in 0..50 {
                        match child.inner.try_wait() {
                            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                            _ => break,
                        }
                    }
                }
            }
        }
        if let Some(task) = self.handler.take() {
            task.abort();
        }
        if let Some(profile) = self.profile.take() {
            remove_profile(profile);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_viewport_sizes() {
        assert_eq!(
            "1280x720".parse::<ViewportSize>().unwrap(),
            ViewportSize {
                width: 1280,
                height: 720
            }
        );
        assert_eq!(
            "800X600".parse::<ViewportSize>().unwrap(),
            ViewportSize {
                width: 800,
                height: 600
            }
        );
        assert!("1280".parse::<ViewportSize>().is_err());
        assert!("axb".parse::<ViewportSize>().is_err());
        assert!("10x10".parse::<ViewportSize>().is_err());
    }

    #[test]
    fn summarises_stderr() {
        let s = stderr_summary(b"\nfirst\n[123:ERROR] Missing X server\n\n").unwrap();
        assert_eq!(s, "[123:ERROR] Missing X server");
        assert!(stderr_summary(b"  \n").is_none());
    }
}
