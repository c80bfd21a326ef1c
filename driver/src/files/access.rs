//! Which local files pages may read: `file:` documents (navigations and
//! frames alike) and files chosen for upload. Open by default in the
//! library (a caller's own command line loads the file it was given);
//! limited to a few directories wherever a model that reads untrusted pages
//! chooses what to open or upload (an MCP server, the commands a model
//! drives).
//!
//! Two kinds of grant: a directory the user named (`--allow-file-access`)
//! opens everything in it; a directory granted by default (the working
//! directory, a run's own folders, an MCP client's roots) opens what is in
//! it but its hidden entries (`.ssh`, `.env`, `.git`): a workspace is where
//! secrets live too, and no page needs them. The filesystem's root is never
//! granted by default (a service's working directory).

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The folders of a directory named like one of them (`session-1`,
/// `session-2`, …), all but that one.
#[derive(Debug, PartialEq)]
struct SiblingFolders {
    parent: PathBuf,
    own: PathBuf,
    prefix: String,
}

impl SiblingFolders {
    fn hides(&self, real: &Path) -> bool {
        let Ok(rest) = real.strip_prefix(&self.parent) else {
            return false;
        };
        let first = rest
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        // (`session-41-2`, not the user's own `session-notes`.)
        let sibling = first.is_some_and(|name| {
            name.strip_prefix(self.prefix.as_str())
                .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == '-'))
        });
        sibling && !real.starts_with(&self.own)
    }
}

/// One directory files may be read from.
#[derive(Debug, Clone, PartialEq)]
struct Grant {
    /// Its real path (symlinks resolved).
    dir: PathBuf,
    /// Named by the user: hidden entries inside are open too.
    hidden_too: bool,
}

/// The directories local files may be read from, or anywhere. Clones share
/// the directories added later ([`FileAccess::add`]: an MCP client's
/// roots), so the pages already open follow them.
#[derive(Debug, Clone, Default)]
pub struct FileAccess {
    /// `None`: anywhere.
    grants: Option<Arc<RwLock<Vec<Grant>>>>,
    /// Folders closed whatever the grants say: the other sessions' folders
    /// in an MCP server's output directory over HTTP (`session-N` beside
    /// this session's own), so a page reads its own session's files only.
    closed: Option<Arc<SiblingFolders>>,
}

impl PartialEq for FileAccess {
    fn eq(&self, other: &Self) -> bool {
        self.grants() == other.grants() && self.closed == other.closed
    }
}

impl FileAccess {
    /// Any local file.
    pub fn anywhere() -> FileAccess {
        FileAccess {
            grants: None,
            closed: None,
        }
    }

    /// Only files inside these directories (symlinks resolved), named by
    /// the user: everything in them.
    pub fn within(dirs: impl IntoIterator<Item = PathBuf>) -> FileAccess {
        let access = FileAccess {
            grants: Some(Arc::new(RwLock::new(Vec::new()))),
            closed: None,
        };
        access.add(dirs);
        access
    }

    /// Another policy with the same directories now, and its own later additions.
    pub fn detached(&self) -> FileAccess {
        FileAccess {
            grants: self.grants().map(|g| Arc::new(RwLock::new(g))),
            closed: self.closed.clone(),
        }
    }

    /// [`FileAccess::detached`] with `own` (a folder such as `session-3`)
    /// open and its siblings named alike (`session-1`, …) closed, whatever
    /// else grants them (a working directory that holds the output
    /// directory, or is it): an MCP session over HTTP and its folder in the
    /// server's output directory. (No effect on what is open everywhere.)
    pub fn detached_confined(&self, own: &Path) -> FileAccess {
        let own = real_path(own);
        let name = own
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let closed = SiblingFolders {
            parent: own.parent().map(Path::to_path_buf).unwrap_or_default(),
            // (`session-41-2` → `session-`.)
            prefix: name
                .trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
                .to_string()
                + "-",
            own: own.clone(),
        };
        let access = FileAccess {
            closed: self.grants.as_ref().map(|_| Arc::new(closed)),
            ..self.detached()
        };
        access.add_workspace([own]);
        access
    }

    /// Whether any file may be read.
    pub fn is_open(&self) -> bool {
        self.grants.is_none()
    }

    fn grants(&self) -> Option<Vec<Grant>> {
        self.grants.as_ref().map(|g| g.read().unwrap().clone())
    }

    /// Widens the policy to these directories, named by the user:
    /// everything in them (no effect when open).
    pub fn add(&self, dirs: impl IntoIterator<Item = PathBuf>) {
        self.grant(dirs, true);
    }

    /// Widens the policy to these directories by default (the working
    /// directory, a run's own folders, a client's roots): what is in them
    /// but their hidden entries; the filesystem's root is left out.
    pub fn add_workspace(&self, dirs: impl IntoIterator<Item = PathBuf>) {
        self.grant(dirs.into_iter().filter(|d| real_path(d).parent().is_some()), false);
    }

    fn grant(&self, dirs: impl IntoIterator<Item = PathBuf>, hidden_too: bool) {
        let Some(list) = &self.grants else { return };
        let mut list = list.write().unwrap();
        for d in dirs {
            let dir = real_path(&d);
            match list.iter_mut().find(|g| g.dir == dir) {
                Some(g) => g.hidden_too |= hidden_too,
                None => list.push(Grant { dir, hidden_too }),
            }
        }
    }

    /// Replaces the directories with those of `base` and `roots` granted
    /// by default (an MCP client's new roots; no effect when open).
    pub fn reset_to(&self, base: &FileAccess, roots: impl IntoIterator<Item = PathBuf>) {
        let Some(list) = &self.grants else { return };
        *list.write().unwrap() = base.grants().unwrap_or_default();
        self.add_workspace(roots);
    }

    /// Whether the file (or directory) at `path` may be read: its real path
    /// (symlinks resolved) lies inside one of the directories, and, in a
    /// directory granted by default, not inside a hidden entry.
    pub fn allows_path(&self, path: &Path) -> bool {
        let Some(grants) = self.grants() else {
            return true;
        };
        let real = real_path(path);
        if self.closed.as_ref().is_some_and(|c| c.hides(&real)) {
            return false;
        }
        grants.iter().any(|g| match real.strip_prefix(&g.dir) {
            Ok(rest) => {
                g.hidden_too
                    || !rest
                        .components()
                        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            }
            Err(_) => false,
        })
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
        Some(format!(
            "{url} is a local file outside the directories pages may read ({}); allow more with \
--allow-file-access",
            self.describe()
        ))
    }

    /// The directories, for messages: those granted by default say that
    /// their hidden entries are not included.
    pub fn describe(&self) -> String {
        let Some(grants) = self.grants() else {
            return "anywhere".into();
        };
        if grants.is_empty() {
            return "none".into();
        }
        let shown: Vec<String> = grants
            .iter()
            .map(|g| match g.hidden_too {
                true => g.dir.display().to_string(),
                false => format!("{} but its hidden entries", g.dir.display()),
            })
            .collect();
        shown.join(", ")
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
    fn a_confined_policy_keeps_to_its_own_folder_among_its_siblings() {
        let out = tempfile::tempdir().unwrap();
        for d in ["session-1", "session-2", "shared", "session-notes"] {
            std::fs::create_dir(out.path().join(d)).unwrap();
        }
        let base = FileAccess::within([out.path().to_path_buf()]);
        let mine = base.detached_confined(&out.path().join("session-2"));
        assert!(mine.allows_path(&out.path().join("session-2/state.json")));
        assert!(!mine.allows_path(&out.path().join("session-1/state.json")));
        assert!(!mine.allows_path(&out.path().join("session-12/state.json")));
        assert!(
            mine.allows_path(&out.path().join("shared/page.html")),
            "the rest stays as granted"
        );
        assert!(
            mine.allows_path(&out.path().join("session-notes/a.md")),
            "the user's own"
        );
        assert!(!mine.allows_path(&out.path().join("session-77-3/state.json")));
        assert!(
            base.allows_path(&out.path().join("session-1/state.json")),
            "the base is untouched"
        );
        // Kept through a client's new roots.
        mine.reset_to(&mine.detached(), [out.path().join("shared")]);
        assert!(!mine.allows_path(&out.path().join("session-1/state.json")));
        assert!(FileAccess::anywhere()
            .detached_confined(&out.path().join("session-2"))
            .is_open());
    }

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

    #[test]
    fn a_workspace_keeps_its_hidden_entries_and_is_never_the_root() {
        let home = tempfile::tempdir().unwrap();
        let ssh = home.path().join(".ssh");
        std::fs::create_dir(&ssh).unwrap();
        std::fs::write(ssh.join("id_ed25519"), "k").unwrap();
        std::fs::write(home.path().join(".env"), "TOKEN=1").unwrap();
        std::fs::write(home.path().join("page.html"), "<p>x").unwrap();
        let access = FileAccess::within([]);
        access.add_workspace([home.path().to_path_buf(), PathBuf::from("/")]);
        assert!(access.allows_path(&home.path().join("page.html")));
        assert!(!access.allows_path(&ssh.join("id_ed25519")), "a hidden folder");
        assert!(!access.allows_path(&home.path().join(".env")), "a hidden file");
        assert!(
            !access.allows_path(Path::new("/etc/passwd")),
            "the root is no workspace"
        );
        assert!(
            access.describe().ends_with("but its hidden entries"),
            "{}",
            access.describe()
        );
        let refusal = access.refusal("file:///etc/passwd").unwrap();
        assert!(refusal.contains("but its hidden entries"), "{refusal}");
        // Named by the user, the same folder opens everything.
        access.add([home.path().to_path_buf()]);
        assert!(access.allows_path(&ssh.join("id_ed25519")));
        // A client's new roots replace the old ones, as workspaces.
        let base = FileAccess::within([]);
        let session = base.detached();
        session.reset_to(&base, [home.path().to_path_buf()]);
        assert!(session.allows_path(&home.path().join("page.html")));
        assert!(!session.allows_path(&home.path().join(".env")));
        session.reset_to(&base, []);
        assert!(!session.allows_path(&home.path().join("page.html")));
    }
}
