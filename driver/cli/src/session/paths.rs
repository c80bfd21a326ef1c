//! Where a session's daemon listens: a Unix socket only the user can open,
//! in `$XDG_RUNTIME_DIR/sightline/` or, without one, a private folder
//! `sightline-<uid>` under the temporary directory (`$SIGHTLINE_SESSION_DIR`
//! overrides both). Next to the socket: the daemon's pid, its log, and the
//! lock its starter holds.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sightline::{Error, Result};

/// Environment variable naming the folder of the session sockets.
pub const DIR_ENV: &str = "SIGHTLINE_SESSION_DIR";

/// One session's files.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub name: String,
    pub socket: PathBuf,
    pub pid: PathBuf,
    pub log: PathBuf,
    /// Held while a daemon is started: one starter at a time.
    pub lock: PathBuf,
}

/// Whether `name` can name a session (it becomes a file name).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 64 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn my_uid() -> u32 {
    // /proc/self belongs to the process's effective user.
    std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0)
}

/// The folder of the session sockets, created private (0700) and checked:
/// a real folder of ours that no one else can enter.
pub fn session_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os(DIR_ENV).filter(|v| !v.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
            Some(run) if Path::new(&run).is_dir() => PathBuf::from(run).join("sightline"),
            _ => std::env::temp_dir().join(format!("sightline-{}", my_uid())),
        },
    };
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| Error::Io(format!("cannot create the session folder {}: {e}", dir.display())))?;
    }
    let meta = std::fs::symlink_metadata(&dir)
        .map_err(|e| Error::Io(format!("cannot read the session folder {}: {e}", dir.display())))?;
    if !meta.is_dir() {
        return Err(Error::Io(format!("{} is not a folder (a symlink?)", dir.display())));
    }
    if meta.uid() != my_uid() {
        return Err(Error::Io(format!(
            "the session folder {} belongs to another user; set {DIR_ENV} to a folder of yours",
            dir.display()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| Error::Io(format!("cannot make {} private: {e}", dir.display())))?;
    }
    Ok(dir)
}

impl SessionPaths {
    pub fn for_session(name: &str) -> Result<SessionPaths> {
        if !valid_name(name) {
            return Err(Error::Config(format!(
                "session name {name:?}: use letters, digits, - and _ (at most 64)"
            )));
        }
        let dir = session_dir()?;
        Ok(SessionPaths {
            name: name.to_string(),
            socket: dir.join(format!("{name}.sock")),
            pid: dir.join(format!("{name}.pid")),
            log: dir.join(format!("{name}.log")),
            lock: dir.join(format!("{name}.lock")),
        })
    }

    /// Every session that has a socket in the folder, by name.
    pub fn all() -> Result<Vec<SessionPaths>> {
        let dir = session_dir()?;
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| Error::Io(format!("cannot list {}: {e}", dir.display())))?
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".sock").map(str::to_string)
            })
            .filter(|n| valid_name(n))
            .collect();
        names.sort();
        names.iter().map(|n| SessionPaths::for_session(n)).collect()
    }

    /// Removes what a daemon that is gone left behind.
    pub fn remove_stale(&self) {
        let _ = std::fs::remove_file(&self.socket);
        let _ = std::fs::remove_file(&self.pid);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn session_names_are_file_names() {
        use super::valid_name;
        assert!(valid_name("default") && valid_name("shop-2") && valid_name("a_b"));
        assert!(!valid_name("") && !valid_name("../x") && !valid_name("a b") && !valid_name(&"x".repeat(65)));
    }
}
