//! What the benchmarks share: the pages to load, served on 127.0.0.1,
//! medians, and printing a report.

use std::path::PathBuf;

use sightline::{Error, NavigationErrorKind, Result};
use sightline_testkit::FixtureServer;

pub fn median(xs: &[f64]) -> f64 {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The ref on the first line holding `needle`, in every tool's format:
/// `[ref=e3]`, `[ref=e3] [cursor=pointer]`, `[expanded=false, ref=e5]`.
pub fn ref_on_line(text: &str, needle: &str) -> Option<String> {
    text.lines().filter(|l| l.contains(needle)).find_map(|l| {
        let start = l.find("ref=")? + 4;
        let end = l[start..].find([']', ',', ' '])? + start;
        Some(l[start..end].to_string())
    })
}

/// Prints `report` as one JSON object (`--json`) or as `render` writes it.
pub fn print_report<T: serde::Serialize>(report: &T, json: bool, render: impl Fn(&T) -> String) {
    let text = if json {
        crate::output::json_text(report)
    } else {
        render(report)
    };
    crate::output::print_out(&format!("{}\n", text.trim_end()));
}

/// The HTML files named by `inputs` (directories expand to their *.html, sorted).
pub fn expand_inputs(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|_| Error::NoSuchFile {
                    path: input.clone(),
                    hint: None,
                })?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "html" || e == "htm"))
                .collect();
            if files.is_empty() {
                return Err(Error::NoSuchFile {
                    path: input.join("*.html"),
                    hint: Some(" (the directory has no .html files)".into()),
                });
            }
            files.sort();
            out.extend(files);
        } else if input.is_file() {
            out.push(input.clone());
        } else {
            return Err(Error::NoSuchFile {
                path: input.clone(),
                hint: None,
            });
        }
    }
    Ok(out)
}

/// Serves `files` from 127.0.0.1: the server and, per file, its name and URL.
pub fn serve_files(files: &[PathBuf]) -> Result<(FixtureServer, Vec<(String, String)>)> {
    // One served root per distinct directory.
    let mut roots: Vec<PathBuf> = Vec::new();
    let names: Vec<(usize, String)> = files
        .iter()
        .map(|f| {
            let dir = f
                .parent()
                .map(|d| d.canonicalize().unwrap_or_else(|_| d.to_path_buf()))
                .unwrap_or_default();
            let i = roots.iter().position(|r| *r == dir).unwrap_or_else(|| {
                roots.push(dir);
                roots.len() - 1
            });
            (i, f.file_name().unwrap_or_default().to_string_lossy().into_owned())
        })
        .collect();
    let server = FixtureServer::try_serve_many(roots).map_err(|e| Error::Navigation {
        url: "http://127.0.0.1 (the bench's static server)".into(),
        kind: NavigationErrorKind::Other(e.to_string()),
    })?;
    let served = names
        .into_iter()
        .map(|(i, name)| {
            let encoded: String = url::form_urlencoded::byte_serialize(name.as_bytes())
                .collect::<String>()
                .replace('+', "%20");
            let url = server.url(&format!("{i}/{encoded}"));
            (name, url)
        })
        .collect();
    Ok((server, served))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_in_every_tool_format() {
        assert_eq!(
            ref_on_line("- button \"Search\" [ref=e7]", "Search").as_deref(),
            Some("e7")
        );
        assert_eq!(
            ref_on_line(
                "- link \"Read the full story\" [ref=e3] [cursor=pointer]:",
                "full story"
            )
            .as_deref(),
            Some("e3")
        );
        assert_eq!(
            ref_on_line("- combobox \"Category\" [expanded=false, ref=e5]: All", "Category").as_deref(),
            Some("e5")
        );
        assert!(ref_on_line("- heading \"x\"", "x").is_none());
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn directories_expand_to_html_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.html"), "<p>b</p>").unwrap();
        std::fs::write(dir.path().join("a.html"), "<p>a</p>").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let files = expand_inputs(&[dir.path().to_path_buf()]).unwrap();
        let names: Vec<_> = files.iter().map(|f| f.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["a.html", "b.html"]);
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(
            expand_inputs(&[empty.path().to_path_buf()]),
            Err(Error::NoSuchFile { .. })
        ));
        assert!(expand_inputs(&[dir.path().join("missing.html")]).is_err());
    }
}
