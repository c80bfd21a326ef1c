//! Which local files pages may read: `file:` documents (navigations and
//! frames alike) and files chosen for upload. Open by default in the
//! library (a caller's own command line loads the file it was given); an
//! MCP server limits it to a few directories, as its clients are models
//! reading untrusted pages.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The directories local files may be read from, or anywhere. Clones share
/// the directories added later ([`FileAccess::add`]: an MCP client's
/// roots), so the pages already open follow them.
#[derive(Debug, Clone, Default)]
pub struct FileAccess {
    /// `None`: anywhere.
    dirs: Option<Arc<RwLock<Vec<PathBuf>>>>,
}

impl PartialEq for FileAccess {
    fn eq(&self, other: &Self) -> bool {
        self.dirs() == other.dirs()
    }
}

impl FileAccess {
    /// Any local file.
    pub fn anywhere() -> FileAccess {
        FileAccess { dirs: None }
    }

    /// Only files inside these directories (symlinks resolved).
    pub fn within(dirs: impl IntoIterator<Item = PathBuf>) -> FileAccess {
        let access = FileAccess {
            dirs: Some(Arc::new(RwLock::new(Vec::new()))),
        };
        access.add(dirs);
        access
    }

    /// Another policy with the same directories now, and its own later additions.
    pub fn detached(&self) -> FileAccess {
        match self.dirs() {
            None => FileAccess::anywhere(),
            Some(dirs) => FileAccess::within(dirs),
        }
    }

    /// Whether any file may be read.
    pub fn is_open(&self) -> bool {
        self.dirs.is_none()
    }

    /// The directories (None: anywhere).
    pub fn dirs(&self) -> Option<Vec<PathBuf>> {
        self.dirs.as_ref().map(|d| d.read().unwrap().clone())
    }

    /// Widens the policy to these directories too (no effect when open).
    pub fn add(&self, dirs: impl IntoIterator<Item = PathBuf>) {
        let Some(list) = &self.dirs else { return };
        let mut list = list.write().unwrap();
        for d in dirs {
            let d = real_path(&d);
            if !list.contains(&d) {
                list.push(d);
            }
        }
    }

    /// Replaces the directories (no effect when open).
    pub fn set(&self, dirs: impl IntoIterator<Item = PathBuf>) {
        let Some(list) = &self.dirs else { return };
        list.write().unwrap().clear();
        self.add(dirs);
    }

    /// Whether the file (or directory) at `path` may be read: its real path
    /// (symlinks resolved) lies inside one of the directories.
    pub fn allows_path(&self, path: &Path) -> bool {
        let Some(dirs) = self.dirs() else {
            return true;
        };
        let real = real_path(path);
        dirs.iter().any(|d| real.starts_with(d))
    }

    /// Whether a page may load `url`: anything but a local file is not this
    /// policy's business (`view-source:` of a file is a file).
    pub fn allows_url(&self, url: &str) -> bool {
        match local_file(url) {
            Some(path) => self.allows_path(&path),
            None => true,
        }
    }

    /// Why `url` is refused, for error messages.
    pub fn refusal(&self, url: &str) -> Option<String> {
        if self.allows_url(url) {
            return None;
        }
        let dirs = self.dirs().unwrap_or_default();
        let list: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        Some(format!(
            "{url} is a local file outside the directories pages may read ({}); allow more with \
--allow-file-access",
            list.join(", ")
        ))
    }
}

/// The local path a URL loads, if it is a `file:` URL (or shows one).
fn local_file(url: &str) -> Option<PathBuf> {
    let inner = url.trim().strip_prefix("view-source:").unwrap_or(url.trim());
    let parsed = url::Url::parse(inner).ok()?;
    if parsed.scheme() != "file" {
        return None;
    }
    // A file URL naming another host, or no usable path, reads nothing local we could vouch for.
    Some(parsed.to_file_path().unwrap_or_else(|_| PathBuf::from("/")))
}

/// `path` with symlinks resolved; for a path that does not exist (yet),
/// its longest existing ancestor resolved and the rest appended, `..`
/// folded first so it cannot climb out.
pub(crate) fn real_path(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut folded = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::ParentDir => {
                folded.pop();
            }
            Component::CurDir => {}
            other => folded.push(other),
        }
    }
    let mut rest = Vec::new();
    let mut existing = folded.as_path();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return folded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_the_directories_only_symlinks_resolved() {
        let root = tempfile::tempdir().unwrap();
        let allowed = root.path().join("allowed");
        std::fs::create_dir(&allowed).unwrap();
        std::fs::write(allowed.join("page.html"), "<p>x").unwrap();
        std::fs::write(root.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(root.path().join("secret.txt"), allowed.join("link.txt")).unwrap();
        let access = FileAccess::within([allowed.clone()]);
        assert!(access.allows_path(&allowed.join("page.html")));
        assert!(access.allows_path(&allowed.join("missing.html")));
        assert!(!access.allows_path(&root.path().join("secret.txt")));
        assert!(!access.allows_path(&allowed.join("link.txt")), "a symlink out is out");
        assert!(!access.allows_path(&allowed.join("../secret.txt")));
        assert!(!access.allows_path(&allowed.join("nope/../../secret.txt")));
        let url = url::Url::from_file_path(allowed.join("page.html")).unwrap().to_string();
        assert!(access.allows_url(&url));
        assert!(!access.allows_url("file:///etc/passwd"));
        assert!(!access.allows_url("view-source:file:///etc/passwd"));
        assert!(!access.allows_url("FILE:///etc/passwd"));
        assert!(access.allows_url("http://127.0.0.1/etc/passwd"));
        assert!(access
            .refusal("file:///etc/passwd")
            .unwrap()
            .contains("--allow-file-access"));
        assert!(FileAccess::anywhere().allows_url("file:///etc/passwd"));
        // Added later: seen by clones, not by detached copies.
        let clone = access.clone();
        let detached = access.detached();
        access.add([root.path().to_path_buf()]);
        assert!(clone.allows_path(&root.path().join("secret.txt")));
        assert!(!detached.allows_path(&root.path().join("secret.txt")));
    }
}
