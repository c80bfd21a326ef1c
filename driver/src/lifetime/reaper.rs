//! A reaper: a small `sh` that outlives this process to clean up after it.
//! It holds the read end of a pipe whose only write end stays here
//! (close-on-exec, so no other child inherits it); when this process ends
//! in any way, SIGKILL included, the kernel closes that end and the reaper
//! reads end-of-file. It then kills every process whose command line uses
//! the folder as its browser profile, and removes the folder. A process
//! that cleaned up itself tells it `done` first and it leaves quietly.
//!
//! The folder travels on the pipe, not in the reaper's arguments, so the
//! reaper's own command line names no profile. It runs in a process group
//! of its own: a Ctrl-C at the terminal, which this process may handle
//! gracefully, does not take the reaper with it.
//!
//! (A parent-death signal on Chromium would need a hook between fork and
//! exec, which chromiumoxide's launch has not, and fires when the thread
//! that forked exits, not the process: see agent-browser's #1157.)

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Reads the folder and what to do with it, then waits. `done`: nothing to
/// do. End of file: kill the profile's users (twice: a helper may be forked
/// meanwhile), then remove the folder (helpers may still be writing for a
/// moment after they are killed).
const SCRIPT: &str = r#"
trap '' INT HUP TERM PIPE
IFS= read -r dir || exit 0
IFS= read -r mode || exit 0
while IFS= read -r line; do
  [ "$line" = done ] && exit 0
done
kill_users() {
  for p in /proc/[0-9]*; do
    case " $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null) " in
      *" --user-data-dir=$dir "*) kill -KILL "${p#/proc/}" 2>/dev/null ;;
    esac
  done
}
case "$mode" in *kill*) kill_users; sleep 0.2; kill_users ;; esac
case "$mode" in *remove*)
  i=0
  while [ -e "$dir" ] && [ "$i" -lt 25 ]; do
    rm -rf -- "$dir" 2>/dev/null
    [ -e "$dir" ] && sleep 0.2
    i=$((i + 1))
  done ;;
esac
"#;

/// What the reaper does when this process dies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cleanup {
    /// Kill the processes using the folder as their browser profile.
    pub kill_browsers: bool,
    /// Remove the folder.
    pub remove: bool,
}

/// A running reaper; dropping it tells the reaper the work was done here.
#[derive(Debug)]
pub(crate) struct Reaper {
    pipe: Option<std::io::PipeWriter>,
    child: Option<Child>,
}

impl Reaper {
    /// Starts a reaper for `dir`.
    pub(crate) fn watch(dir: &Path, cleanup: Cleanup) -> std::io::Result<Reaper> {
        let dir = dir
            .to_str()
            .filter(|d| !d.contains('\n'))
            .ok_or_else(|| std::io::Error::other("a folder name the reaper can read"))?;
        let (reader, mut pipe) = std::io::pipe()?;
        let child = Command::new("/bin/sh")
            .args(["-c", SCRIPT, "sightline-reaper"])
            .stdin(reader)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()?;
        let mode = match (cleanup.kill_browsers, cleanup.remove) {
            (true, true) => "kill remove",
            (true, false) => "kill",
            (false, true) => "remove",
            (false, false) => "nothing",
        };
        writeln!(pipe, "{dir}\n{mode}")?;
        Ok(Reaper {
            pipe: Some(pipe),
            child: Some(child),
        })
    }

    /// A reaper when one can be started; without one a SIGKILL leaves the
    /// folder to the next start's sweep.
    pub(crate) fn try_watch(dir: &Path, cleanup: Cleanup) -> Option<Reaper> {
        match Reaper::watch(dir, cleanup) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!("no reaper for {}: {e}", dir.display());
                None
            }
        }
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(mut pipe) = self.pipe.take() {
            let _ = pipe.write_all(b"done\n");
        }
        // It leaves at once: reap it rather than leave a zombie.
        if let Some(mut child) = self.child.take() {
            let _ = child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait_gone(path: &Path) -> bool {
        for _ in 0..100 {
            if !path.exists() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        false
    }

    #[test]
    fn a_dropped_reaper_leaves_the_folder_and_a_lost_owner_gets_it_removed() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        std::fs::create_dir(&kept).unwrap();
        let cleanup = Cleanup {
            kill_browsers: true,
            remove: true,
        };
        drop(Reaper::watch(&kept, cleanup).unwrap());
        assert!(kept.exists(), "done: nothing removed");

        // An owner that vanishes without a word (its write end closes, as the
        // kernel closes it on SIGKILL), with a "browser" using the profile.
        let lost = dir.path().join("lost");
        std::fs::create_dir_all(lost.join("Default")).unwrap();
        let mut browser = Command::new("/bin/sh")
            .args(["-c", "while :; do sleep 1; done", "browser"])
            .arg(format!("--user-data-dir={}", lost.display()))
            .spawn()
            .unwrap();
        let mut reaper = Reaper::watch(&lost, cleanup).unwrap();
        drop(reaper.pipe.take());
        assert!(wait_gone(&lost), "removed after the owner vanished");
        let status = browser.wait().unwrap();
        assert!(!status.success(), "the browser was killed: {status:?}");
        let _ = reaper.child.take().unwrap().wait();
    }
}
