//! The local files a run was given (its start pages, the pages and uploads
//! its steps name): a run a model drives may use those, however strict its
//! [`FileAccess`](super::FileAccess), because the user chose them.

use std::path::{Path, PathBuf};

/// Folders whose pages a run opens (granted as workspaces: their hidden
/// entries stay closed) and files it uploads (granted one by one).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalInputs {
    pub folders: Vec<PathBuf>,
    pub files: Vec<PathBuf>,
}

impl LocalInputs {
    /// The folder of a `file:` URL's page (a folder's URL: itself), if it
    /// is one; for a page that is a symlink, its target's folder too (the
    /// policy compares real paths).
    pub fn page(&mut self, url: &str) {
        let Some(parsed) = url::Url::parse(url.trim()).ok().filter(|u| u.scheme() == "file") else {
            return;
        };
        // The folder relative addresses resolve against: the page's, or
        // the folder itself for a URL ending in `/`.
        let Some(folder) = parsed.join(".").ok().and_then(|f| f.to_file_path().ok()) else {
            return;
        };
        let real = parsed
            .to_file_path()
            .ok()
            .and_then(|p| std::fs::canonicalize(p).ok())
            .and_then(|p| p.parent().map(Path::to_path_buf));
        self.folders.push(folder);
        self.folders.extend(real);
    }

    /// A file the run uploads, relative paths taken against `base_dir`.
    pub fn upload(&mut self, path: &str, base_dir: Option<&Path>) {
        self.files.push(upload_path(path, base_dir));
    }
}

/// The file an upload names: a relative path taken against `base_dir`
/// (a steps file's folder), as the upload itself takes it.
pub(crate) fn upload_path(path: &str, base_dir: Option<&Path>) -> PathBuf {
    let p = PathBuf::from(path);
    match base_dir {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p,
    }
}

/// The folder a file is in (`.` for a bare name): where the relative
/// paths inside a task file or a suite are taken from.
pub(crate) fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_give_the_folder_their_addresses_resolve_against() {
        let mut i = LocalInputs::default();
        i.page("file:///srv/site/a.html?x=1#top");
        i.page("file:///srv/base/");
        i.page("file:///srv/base");
        i.page("https://example.com/a.html");
        i.page("not a url");
        i.page("file://otherhost/share/a.html");
        assert_eq!(
            i.folders,
            [
                PathBuf::from("/srv/site/"),
                PathBuf::from("/srv/base/"),
                PathBuf::from("/srv/")
            ]
        );
        i.upload("cv.pdf", Some(Path::new("/work/tasks")));
        i.upload("/abs/cv.pdf", Some(Path::new("/work/tasks")));
        assert_eq!(
            i.files,
            [PathBuf::from("/work/tasks/cv.pdf"), PathBuf::from("/abs/cv.pdf")]
        );
    }
}
