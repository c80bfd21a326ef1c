//! The next start's cleanup: folders of dead owners (a run killed with its
//! reaper, or a machine that lost power) go, after the browsers still using
//! them. A folder whose owner lives is never touched, nor one named in
//! another way (an older version's).

use std::path::Path;

use super::owner::is_alive;

/// The owner token of `dir` when it is named `<prefix>-<pid>.<start>-<random>`.
pub(super) fn owner_of(dir: &Path, prefix: &str) -> Option<String> {
    let name = dir.file_name()?.to_str()?;
    let rest = name.strip_prefix(prefix)?.strip_prefix('-')?;
    let (owner, random) = rest.split_once('-')?;
    let (pid, start) = owner.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(start) && !random.is_empty()).then(|| owner.to_string())
}

/// Removes the folders in `tmp` named by one of `prefixes` whose owner is dead.
pub(crate) fn sweep_stale(tmp: &Path, prefixes: &[&str]) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(owner) = prefixes.iter().find_map(|p| owner_of(&path, p)) else {
            continue;
        };
        if is_alive(&owner) || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        kill_users(&path);
        if let Err(e) = std::fs::remove_dir_all(&path) {
            tracing::debug!("could not remove the stale {}: {e}", path.display());
        } else {
            tracing::info!(
                "removed {}, left by a run that ended without cleaning up",
                path.display()
            );
        }
    }
}

/// Kills the processes (orphaned browsers) whose command line names `dir`
/// as their profile.
fn kill_users(dir: &Path) {
    let Some(dir) = dir.to_str() else { return };
    let Ok(procs) = std::fs::read_dir("/proc") else { return };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        if uses_profile(&cmdline, dir) {
            // SAFETY: kill(2) with a pid read from /proc; no memory involved.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Whether a `/proc/<pid>/cmdline` passes `--user-data-dir=<dir>`: as an
/// argument of its own, or inside the one space-separated title Chromium's
/// helpers rewrite theirs into.
pub(super) fn uses_profile(cmdline: &[u8], dir: &str) -> bool {
    let needle = format!("--user-data-dir={dir}");
    let text = String::from_utf8_lossy(cmdline).replace('\0', " ");
    let padded = format!(" {} ", text.trim_end());
    padded.contains(&format!(" {needle} "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_and_profiles_are_read_exactly() {
        assert_eq!(
            owner_of(Path::new("/tmp/sightline-profile-123.456-AbC9"), "sightline-profile"),
            Some("123.456".into())
        );
        for other in [
            "sightline-profile-AbC9xy",
            "sightline-profile-12-x",
            "sightline-profiles-1.2-x",
            "sightline-mcp-1.2-x",
        ] {
            assert_eq!(owner_of(Path::new(other), "sightline-profile"), None, "{other}");
        }
        let argv = b"/usr/lib/chromium/chromium\0--user-data-dir=/tmp/p\0about:blank\0";
        assert!(uses_profile(argv, "/tmp/p"));
        assert!(!uses_profile(argv, "/tmp"));
        let title = b"/usr/lib/chromium/chromium --type=renderer --user-data-dir=/tmp/p --lang=en";
        assert!(uses_profile(title, "/tmp/p"));
        assert!(!uses_profile(b"chromium --user-data-dir=/tmp/p2", "/tmp/p"));
    }

    #[test]
    fn only_folders_of_dead_owners_go() {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = tmp.path().join(format!("sightline-profile-{dead}.1-abc"));
        let live = tmp
            .path()
            .join(format!("sightline-profile-{}-abc", super::super::owner::this_process()));
        let foreign = tmp.path().join("sightline-profile-abcdef");
        for d in [&stale, &live, &foreign] {
            std::fs::create_dir_all(d.join("Default")).unwrap();
        }
        sweep_stale(tmp.path(), &["sightline-profile"]);
        assert!(!stale.exists());
        assert!(live.exists() && foreign.exists());
    }
}
