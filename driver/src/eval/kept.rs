//! Evidence kept on disk: one JSON file per judged run (what the judge was
//! shown, its secrets already replaced by their `%name%`), so the run can
//! be judged again, by another judge or a better prompt, without running
//! it. A results line names its file relative to the results file's folder
//! (absolute when the file lies elsewhere), so the results and their
//! evidence move together.

use std::path::{Path, PathBuf};

use super::evidence::Evidence;
use crate::error::{Error, Result};
use crate::files::write_atomically;

/// Writes `evidence` to `dir/<stem>.json`; returns the file as a results
/// line names it (relative to `results_dir` when inside it).
pub fn keep(dir: &Path, results_dir: &Path, stem: &str, evidence: &Evidence) -> Result<String> {
    let path = dir.join(format!("{stem}.json"));
    let json = serde_json::to_vec(evidence).expect("evidence serialises");
    write_atomically(&path, &json)?;
    Ok(named(&path, results_dir))
}

/// The evidence a results line names (`recorded`), read back. Only a
/// `.json` file in a `*.evidence` folder is read: a results file from
/// someone else cannot have another file of the user's sent to the judge.
pub fn read_kept(results_dir: &Path, recorded: &str) -> Result<Evidence> {
    let path = located(results_dir, recorded);
    let in_evidence_folder = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d.to_string_lossy().ends_with(".evidence"));
    if !in_evidence_folder || path.extension().is_none_or(|e| e != "json") {
        return Err(Error::Eval(format!(
            "{recorded} is not kept evidence (a .json file in a *.evidence folder)"
        )));
    }
    let bytes = std::fs::read(&path)
        .map_err(|e| Error::Io(format!("cannot read the kept evidence {}: {e}", path.display())))?;
    let evidence: Evidence = serde_json::from_slice(&bytes).map_err(|e| {
        Error::Eval(format!(
            "the kept evidence {} is not what the judge was shown ({e})",
            path.display()
        ))
    })?;
    if evidence.screenshots.is_empty() || evidence.question.trim().is_empty() {
        return Err(Error::Eval(format!(
            "the kept evidence {} holds no screenshot or no question",
            path.display()
        )));
    }
    Ok(evidence)
}

/// The file stem of run `id`'s evidence: its safe characters, and a hash
/// of the whole id, so that every run has its own file whatever else was
/// planned (ids are free text, and may differ only in what a file name
/// cannot hold, or only past the part kept).
pub fn stem_for(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    // FNV-1a: stable across builds (the name is read back from results).
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{safe}-{hash:016x}")
}

/// `recorded` as a path, read against `results_dir` when relative.
pub fn located(results_dir: &Path, recorded: &str) -> PathBuf {
    let p = Path::new(recorded);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        results_dir.join(p)
    }
}

/// `path` as a results file in `results_dir` names it.
pub fn named(path: &Path, results_dir: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (path, dir) = (absolute(path), absolute(results_dir));
    path.strip_prefix(&dir)
        .map(Path::to_path_buf)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The folder of a results file (`.` for a bare file name).
pub fn results_dir(results: &Path) -> PathBuf {
    match results.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_run_has_a_file_of_its_own() {
        let a = stem_for("Shop--0@dom#1");
        assert!(
            a.starts_with("Shop--0_dom_1-") && a.len() == "Shop--0_dom_1-".len() + 16,
            "{a}"
        );
        assert_ne!(stem_for("a/b"), stem_for("a_b"));
        let long = "x".repeat(100);
        assert_ne!(stem_for(&format!("{long}@dom#1")), stem_for(&format!("{long}@cua#1")));
        assert_eq!(stem_for("Shop--0@dom#1"), a, "stable");
    }

    #[test]
    fn kept_evidence_is_named_from_the_results_folder_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("eval.jsonl");
        let mut e = Evidence::new("Was the lamp ordered?").task("Order the lamp");
        e.screenshots.push("iVBORw0KGgo=".into());
        let named = keep(&dir.path().join("eval.evidence"), &results_dir(&results), "Shop--0", &e).unwrap();
        assert_eq!(named, "eval.evidence/Shop--0.json");
        assert_eq!(read_kept(&results_dir(&results), &named).unwrap(), e);
        // Elsewhere: absolute.
        let other = tempfile::tempdir().unwrap();
        let kept_dir = other.path().join("old.evidence");
        let far = keep(&kept_dir, &results_dir(&results), "x", &e).unwrap();
        assert!(Path::new(&far).is_absolute(), "{far}");
        assert_eq!(read_kept(Path::new("/nowhere"), &far).unwrap(), e);
        // What is not evidence is said so.
        std::fs::write(kept_dir.join("junk.json"), "{\"question\": 3}").unwrap();
        let junk = read_kept(other.path(), "old.evidence/junk.json")
            .unwrap_err()
            .to_string();
        assert!(junk.contains("is not what the judge was shown"), "{junk}");
        std::fs::write(kept_dir.join("bare.json"), "{\"question\": \"q\"}").unwrap();
        let bare = read_kept(other.path(), "old.evidence/bare.json")
            .unwrap_err()
            .to_string();
        assert!(bare.contains("holds no screenshot"), "{bare}");
        let missing = read_kept(other.path(), "old.evidence/gone.json")
            .unwrap_err()
            .to_string();
        assert!(missing.contains("cannot read the kept evidence"), "{missing}");
        // Nothing outside an evidence folder is read.
        std::fs::write(other.path().join("notes.json"), serde_json::to_vec(&e).unwrap()).unwrap();
        let outside = read_kept(other.path(), "notes.json").unwrap_err().to_string();
        assert!(outside.contains("is not kept evidence"), "{outside}");
        let etc = read_kept(other.path(), "/etc/passwd").unwrap_err().to_string();
        assert!(etc.contains("is not kept evidence"), "{etc}");
    }
}
