//! Starting Chromium as a process of ours: its switches, finding the
//! executable, readable launch errors, and removing the temporary profile.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chromiumoxide::error::CdpError;

use crate::error::one_line;

/// Switches that keep Chromium quiet, deterministic and off the network.
pub(super) const CHROME_SWITCHES: &[&str] = &[
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
pub(super) const DISABLED_FEATURES: &[&str] = &[
    "IsolateOrigins",
    "site-per-process",
    // The omnibox's WebUI popups: Chromium loads both into renderers of
    // their own beside the first tab, which slows opening it by ~100 ms on
    // a 2-core machine. Without them a headed window's address bar falls
    // back to its native popup.
    "WebUIOmniboxPopup",
    "WebUIOmniboxAimPopup",
];

/// The switches of our own launches, for browsers others start for us
/// (a grid's Chromium sessions), without the leading `--`.
pub(crate) fn chrome_switches() -> Vec<String> {
    let mut all: Vec<String> = CHROME_SWITCHES.iter().map(|s| s.to_string()).collect();
    all.push(format!("disable-features={}", DISABLED_FEATURES.join(",")));
    all
}

pub(super) fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // /proc/self belongs to the effective user of this process.
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

/// Finds a bare command name (`chromium`) on PATH; paths are returned as is.
pub(crate) fn locate_executable(exe: &Path) -> Option<PathBuf> {
    if exe.components().count() > 1 || exe.is_absolute() {
        return exe.is_file().then(|| exe.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(exe))
        .find(|p| p.is_file())
}

/// The last meaningful line Chromium wrote before dying, if any.
pub(super) fn stderr_summary(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.contains("DevTools listening"))
        .map(|l| crate::text::clip(&one_line(l), 300))
}

/// Removes a profile directory. Chromium's helper processes can still be
/// finishing writes (atomic temp files) for a moment after the main process
/// is gone, which makes a single `remove_dir_all` fail with "directory not
/// empty"; retry briefly, and check again that nothing re-created it.
pub(super) fn remove_profile(dir: tempfile::TempDir) {
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

pub(super) fn launch_reason(err: CdpError) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarises_stderr() {
        let s = stderr_summary(b"\nfirst\n[123:ERROR] Missing X server\n\n").unwrap();
        assert_eq!(s, "[123:ERROR] Missing X server");
        assert!(stderr_summary(b"  \n").is_none());
    }
}
