//! The results file (`--out`): JSON lines appended as tasks end, read back
//! to resume, and merged across shards.
//!
//! A line is written whole with one `write` on a file opened for appending
//! and synced before the next task's result, so a crash or a kill loses at
//! most the line being written; a torn last line is skipped on reading and
//! cut off before the next run appends.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::result::TaskResult;
use crate::error::{Error, Result};
use crate::files::write_atomically;

/// The results read from a file: the newest line of each id, in order of
/// first appearance, and the lines that could not be read.
#[derive(Debug, Clone, Default)]
pub struct ResultLog {
    pub latest: Vec<TaskResult>,
    /// `results.jsonl line 7: …` for each unreadable line.
    pub skipped_lines: Vec<String>,
}

impl ResultLog {
    /// The newest result of `id`.
    pub fn get(&self, id: &str) -> Option<&TaskResult> {
        self.latest.iter().find(|r| r.id == id)
    }

    /// Reads `path`; a missing file is an empty log.
    pub fn read(path: &Path) -> Result<ResultLog> {
        let mut log = ResultLog::default();
        log.add_file(path, true)?;
        Ok(log)
    }

    fn add_file(&mut self, path: &Path, missing_ok: bool) -> Result<()> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if missing_ok && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => {
                return Err(Error::Io(format!(
                    "cannot read the results file {}: {e}",
                    path.display()
                )))
            }
        };
        let mut index: HashMap<String, usize> =
            self.latest.iter().enumerate().map(|(i, r)| (r.id.clone(), i)).collect();
        let lines = text.lines().count();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let torn = i + 1 == lines && !text.ends_with('\n');
            match serde_json::from_str::<TaskResult>(line) {
                Ok(r) => match index.get(&r.id) {
                    Some(&k) => self.latest[k] = r,
                    None => {
                        index.insert(r.id.clone(), self.latest.len());
                        self.latest.push(r);
                    }
                },
                Err(e) => self.skipped_lines.push(format!(
                    "{} line {}: {e}{}",
                    path.display(),
                    i + 1,
                    if torn {
                        " (a torn last line: cut off before the next result is appended)"
                    } else {
                        ""
                    }
                )),
            }
        }
        Ok(())
    }
}

/// Appends results to `--out`.
#[derive(Debug)]
pub struct ResultWriter {
    path: PathBuf,
    file: std::fs::File,
}

impl ResultWriter {
    /// Opens (or creates) `path` for appending. A torn last line left by a
    /// killed run is dropped first (see [`mend_last_line`]), so the file
    /// holds whole lines only and the next result starts on a line of its own.
    pub fn open(path: &Path) -> Result<ResultWriter> {
        let err = |e: std::io::Error| Error::Io(format!("cannot write the results file {}: {e}", path.display()));
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(err)?;
        mend_last_line(&mut file, path).map_err(err)?;
        Ok(ResultWriter {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Appends one line and syncs it to disk.
    pub fn append(&mut self, result: &TaskResult) -> Result<()> {
        let mut line = serde_json::to_string(result).expect("results serialise");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| Error::Io(format!("cannot write the results file {}: {e}", self.path.display())))
    }
}

/// A last line without its newline is either torn (a run killed while
/// writing it: cut off, so only whole lines remain) or a whole result saved
/// without one (by hand: ended). Cutting is one `ftruncate` to the end of
/// the last whole line, so a crash meanwhile leaves the file either as it
/// was or without the fragment, and no whole line is ever lost.
/// A file that is not empty must be a results file: one with a result on a
/// line, or the start of one (a run killed writing its first line). Any
/// other file (notes, a CSV, a pretty-printed report given as `--out` by
/// mistake) is refused before a line of it is cut or a result appended.
fn mend_last_line(file: &mut std::fs::File, path: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(path)?;
    let start = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let lines = bytes[..start]
        .split(|b| *b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty());
    let holds_results = lines.clone().any(|l| serde_json::from_slice::<TaskResult>(l).is_ok());
    let started_one = bytes[start..].starts_with(br#"{"id":"#);
    if !bytes.trim_ascii().is_empty() && !holds_results && !started_one {
        let lines = lines.count() + usize::from(start < bytes.len());
        return Err(std::io::Error::other(format!(
            "it is not a results file (none of its {lines} line(s) is a task's result); give --out a new file, or \
one a batch wrote"
        )));
    }
    if bytes.last().is_none_or(|b| *b == b'\n') {
        return Ok(());
    }
    if serde_json::from_slice::<TaskResult>(&bytes[start..]).is_ok() {
        file.write_all(b"\n")?;
    } else {
        tracing::info!(
            "{}: dropping a torn last line ({} bytes)",
            path.display(),
            bytes.len() - start
        );
        file.set_len(start as u64)?;
    }
    file.sync_data()
}

/// What [`merge`] did.
#[derive(Debug, Clone)]
pub struct MergeReport {
    pub files: usize,
    /// Results written (one per id).
    pub results: usize,
    pub skipped_lines: Vec<String>,
}

/// Merges results files (shards) into `out`: one line per id, the newest
/// (later file, later line) winning, in order of first appearance. `out`
/// is replaced atomically, so it may be one of the inputs.
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<MergeReport> {
    if inputs.is_empty() {
        return Err(Error::Batch("merge: give the results files to merge".into()));
    }
    let mut log = ResultLog::default();
    for input in inputs {
        if !input.is_file() {
            return Err(Error::NoSuchFile {
                path: input.clone(),
                hint: None,
            });
        }
        log.add_file(input, false)?;
    }
    let mut text = String::new();
    for r in &log.latest {
        text.push_str(&serde_json::to_string(r).expect("results serialise"));
        text.push('\n');
    }
    write_atomically(out, text.as_bytes())?;
    Ok(MergeReport {
        files: inputs.len(),
        results: log.latest.len(),
        skipped_lines: log.skipped_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::super::result::TaskStatus;
    use super::*;

    #[test]
    fn appends_resume_and_survive_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out/results.jsonl");
        assert!(ResultLog::read(&path).unwrap().latest.is_empty());
        let mut w = ResultWriter::open(&path).unwrap();
        w.append(&TaskResult::new("a", TaskStatus::Crashed, 1)).unwrap();
        w.append(&TaskResult::new("b", TaskStatus::Ok, 1)).unwrap();
        drop(w);
        // A run killed mid-write.
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"id":"c","sta"#).unwrap();
        drop(f);
        let log = ResultLog::read(&path).unwrap();
        assert_eq!(log.skipped_lines.len(), 1, "{:?}", log.skipped_lines);
        assert!(log.skipped_lines[0].contains("line 3"));
        let mut w = ResultWriter::open(&path).unwrap();
        w.append(&TaskResult::new("a", TaskStatus::Ok, 2)).unwrap();
        let log = ResultLog::read(&path).unwrap();
        assert_eq!(log.latest.len(), 2);
        assert_eq!(log.get("a").unwrap().attempts, 2);
        assert_eq!(log.get("a").unwrap().status, TaskStatus::Ok);
        assert!(
            log.skipped_lines.is_empty(),
            "the torn line is gone: {:?}",
            log.skipped_lines
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(!text.contains(r#"{"id":"c","sta"#), "{text}");
    }

    #[test]
    fn a_whole_last_line_without_its_newline_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let line = serde_json::to_string(&TaskResult::new("a", TaskStatus::Ok, 1)).unwrap();
        std::fs::write(&path, &line).unwrap();
        let mut w = ResultWriter::open(&path).unwrap();
        w.append(&TaskResult::new("b", TaskStatus::Ok, 1)).unwrap();
        let log = ResultLog::read(&path).unwrap();
        assert_eq!(log.latest.len(), 2);
        assert!(log.skipped_lines.is_empty());
    }

    #[test]
    fn a_file_that_holds_no_results_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("notes.txt", "my important line one\nmy important line two"),
            ("report.json", "{\n  \"a\": 1\n}\n"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let e = ResultWriter::open(&path).unwrap_err().to_string();
            assert!(e.contains("it is not a results file"), "{e}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "untouched");
        }
        // Empty, or a first result cut off mid-write: a results file.
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "\n").unwrap();
        ResultWriter::open(&empty).unwrap();
        let torn = dir.path().join("torn.jsonl");
        std::fs::write(&torn, r#"{"id":"a","sta"#).unwrap();
        ResultWriter::open(&torn).unwrap();
        assert_eq!(std::fs::read_to_string(&torn).unwrap(), "");
    }

    #[test]
    fn merges_shards() {
        let dir = tempfile::tempdir().unwrap();
        let one = dir.path().join("1.jsonl");
        let two = dir.path().join("2.jsonl");
        let mut w = ResultWriter::open(&one).unwrap();
        w.append(&TaskResult::new("a", TaskStatus::Ok, 1)).unwrap();
        w.append(&TaskResult::new("c", TaskStatus::Failed, 1)).unwrap();
        let mut w = ResultWriter::open(&two).unwrap();
        w.append(&TaskResult::new("b", TaskStatus::Ok, 1)).unwrap();
        w.append(&TaskResult::new("c", TaskStatus::Ok, 2)).unwrap();
        let out = dir.path().join("merged.jsonl");
        let report = merge(&[one.clone(), two], &out).unwrap();
        assert_eq!((report.files, report.results), (2, 3));
        let merged = ResultLog::read(&out).unwrap();
        let ids: Vec<_> = merged.latest.iter().map(|r| (r.id.as_str(), r.status)).collect();
        assert_eq!(
            ids,
            [("a", TaskStatus::Ok), ("c", TaskStatus::Ok), ("b", TaskStatus::Ok)]
        );
        assert!(merge(&[dir.path().join("nope.jsonl")], &out).is_err());
        // Merging into one of the inputs is safe.
        merge(&[one.clone(), out.clone()], &one).unwrap();
        assert_eq!(ResultLog::read(&one).unwrap().latest.len(), 3);
    }
}
