//! Files the tools write (storage states, screenshots saved by name): only
//! inside the caller's output directory. A name that is absolute, climbs
//! out with `..`, or leads out through a symlink is refused, and whatever
//! lies outside is left untouched.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use super::access::real_path;
use crate::error::{Error, Result};

/// Where `name` (relative to `dir`) is written, or why it may not be.
pub fn output_path(dir: &Path, name: &str) -> Result<PathBuf> {
    let refuse = |why: &str| {
        Error::OutsideOutputDir(format!(
            "{name:?} {why}: files are written only inside the output directory {}; give a file name \
relative to it",
            dir.display()
        ))
    };
    let relative = Path::new(name);
    if name.trim().is_empty() {
        return Err(refuse("is empty"));
    }
    if relative.is_absolute() {
        return Err(refuse("is an absolute path"));
    }
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(refuse("climbs out with .."));
    }
    if relative.file_name().is_none() {
        return Err(refuse("names no file"));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Io(format!("cannot create the output directory {}: {e}", dir.display())))?;
    let root = real_path(dir);
    // Symlinks on the way (in the name's folders, or the file itself) must
    // lead nowhere outside.
    let target = real_path(&root.join(relative));
    if !target.starts_with(&root) || target == root {
        return Err(refuse("leads outside through a symlink"));
    }
    Ok(target)
}

/// Writes `bytes` to `name` inside `dir` (see [`output_path`]): through a
/// temporary file renamed over the target, so a symlink put in its place
/// meanwhile is replaced, never followed. Returns where it went.
pub fn write_output(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let target = output_path(dir, name)?;
    write_atomically(&target, bytes)?;
    Ok(target)
}

/// Writes `path` through a temporary file in the same directory and a
/// rename: readers see the old file or the whole new one, never a torn one.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |e: std::io::Error| Error::Io(format!("cannot write {}: {e}", path.display()));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(err)?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(err)?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_data())
        .map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_inside() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        let outside = root.path().join("outside.json");
        std::fs::write(&outside, "keep").unwrap();
        std::fs::create_dir_all(&out).unwrap();
        std::os::unix::fs::symlink(&outside, out.join("link.json")).unwrap();
        std::os::unix::fs::symlink(root.path(), out.join("up")).unwrap();
        for (name, why) in [
            (outside.to_str().unwrap(), "absolute"),
            ("../outside.json", ".."),
            ("a/../../outside.json", ".."),
            ("link.json", "symlink"),
            ("up/outside.json", "symlink"),
            ("", "empty"),
        ] {
            let e = write_output(&out, name, b"new").unwrap_err().to_string();
            assert!(e.contains(why) && e.contains("output directory"), "{name}: {e}");
        }
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        let p = write_output(&out, "sub/state.json", b"{}").unwrap();
        assert!(p.starts_with(out.canonicalize().unwrap()) && p.ends_with("sub/state.json"));
        assert_eq!(std::fs::read_to_string(p).unwrap(), "{}");
        assert!(write_output(&out, "./plain.json", b"1").is_ok());
    }
}
