//! What a user typed as a page to open (a URL, or a path to a local file),
//! turned into the URL to load.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Schemes [`resolve_target`] accepts as URLs.
const URL_SCHEMES: &[&str] = &["http", "https", "file", "about", "data"];

/// The path and query of an absolute URL (`/api/items?x=1`), or `None`
/// when it has none after its origin.
pub(crate) fn path_and_query(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    rest.find('/').map(|i| &rest[i..])
}

/// A web address typed without its scheme, with the scheme it most likely
/// means: `127.0.0.1:8080/x` and `localhost:3000` (a port, a local host)
/// over http, `www.example.com/a` over https. `None` for anything else
/// (`page.html`, `docs/a.html`, `example.com` could be files or paths).
pub fn scheme_less_web_address(input: &str) -> Option<String> {
    let s = input.trim();
    if s.contains("://") || s.contains([' ', '\\']) {
        return None;
    }
    let host_port = s.split(['/', '?', '#']).next().unwrap_or("");
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) => (h, Some(p)),
        _ => (host_port, None),
    };
    let label = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    if host.is_empty() || !host.chars().all(label) {
        return None;
    }
    let local = host == "localhost" || host.split('.').count() == 4 && host.split('.').all(|p| p.parse::<u8>().is_ok());
    if port.is_some() || local {
        Some(format!("http://{s}"))
    } else if host.starts_with("www.") && host.len() > 4 {
        Some(format!("https://{s}"))
    } else {
        None
    }
}

/// Turns what a user typed (a URL, or a path to a local file) into the URL to load.
///
/// Paths, relative or absolute, must name an existing file and become `file://` URLs.
pub fn resolve_target(input: &str) -> Result<String> {
    let trimmed = input.trim();
    let invalid = |reason: String| Error::InvalidUrl {
        input: input.to_string(),
        reason,
    };
    if trimmed.is_empty() {
        return Err(invalid("empty URL".into()));
    }
    match url::Url::parse(trimmed) {
        Ok(u) => match u.scheme() {
            "http" | "https" => {
                if u.host_str().is_none_or(str::is_empty) {
                    return Err(invalid("missing host".into()));
                }
                Ok(u.to_string())
            }
            "file" => {
                let path = u.to_file_path().map_err(|_| invalid("not a local file URL".into()))?;
                if !path.exists() {
                    return Err(Error::NoSuchFile { path, hint: None });
                }
                Ok(u.to_string())
            }
            // Kept verbatim: re-serialising could re-encode a data: payload.
            "about" | "data" => Ok(trimmed.to_string()),
            other => {
                if Path::new(trimmed).exists() {
                    return file_url(Path::new(trimmed), input);
                }
                let mut reason = format!("unsupported URL scheme \"{other}:\" (use {})", URL_SCHEMES.join(", "));
                if let Some(web) = scheme_less_web_address(trimmed) {
                    reason.push_str(&format!("; for a web page, write {web}"));
                }
                Err(invalid(reason))
            }
        },
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let path = Path::new(trimmed);
            if path.exists() {
                return file_url(path, input);
            }
            let looks_like_host = !trimmed.contains(['/', '\\', ' '])
                && trimmed.contains('.')
                && !trimmed.rsplit('.').next().is_some_and(|ext| {
                    ["html", "htm", "xhtml", "svg", "xml", "txt"].contains(&ext.to_ascii_lowercase().as_str())
                });
            let web =
                scheme_less_web_address(trimmed).or_else(|| looks_like_host.then(|| format!("https://{trimmed}")));
            let hint = web.map(|w| format!(" (for a web page, include the scheme: {w})"));
            Err(Error::NoSuchFile {
                path: PathBuf::from(trimmed),
                hint,
            })
        }
        Err(e) => Err(invalid(e.to_string())),
    }
}

fn file_url(path: &Path, input: &str) -> Result<String> {
    let abs = std::fs::canonicalize(path).map_err(|_| Error::NoSuchFile {
        path: path.to_path_buf(),
        hint: None,
    })?;
    url::Url::from_file_path(&abs)
        .map(|u| u.to_string())
        .map_err(|_| Error::InvalidUrl {
            input: input.to_string(),
            reason: "cannot make a file URL of it".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pass_through() {
        assert_eq!(
            resolve_target("http://127.0.0.1:8080/a?b=1").unwrap(),
            "http://127.0.0.1:8080/a?b=1"
        );
        assert_eq!(resolve_target("https://example.com").unwrap(), "https://example.com/");
        assert_eq!(resolve_target("about:blank").unwrap(), "about:blank");
        assert_eq!(
            resolve_target("data:text/html,<p>hi</p>").unwrap(),
            "data:text/html,<p>hi</p>"
        );
    }

    #[test]
    fn bad_urls_are_invalid() {
        for bad in [
            "http://exa mple.com/",
            "http://[::1",
            "http://",
            "",
            "ftp://example.com/x",
        ] {
            assert!(matches!(resolve_target(bad), Err(Error::InvalidUrl { .. })), "{bad:?}");
        }
        let e = resolve_target("localhost:8080").unwrap_err();
        assert!(e.to_string().contains("http://localhost:8080"), "{e}");
        for (typed, meant) in [
            ("127.0.0.1:8765/x", "http://127.0.0.1:8765/x"),
            ("www.example.com/path", "https://www.example.com/path"),
        ] {
            let e = resolve_target(typed).unwrap_err();
            assert!(e.to_string().contains(meant), "{e}");
        }
        // A script is no web page to suggest.
        let e = resolve_target("javascript:alert(1)").unwrap_err();
        assert!(!e.to_string().contains("http://"), "{e}");
    }

    #[test]
    fn scheme_less_web_addresses() {
        assert_eq!(
            scheme_less_web_address("localhost:3000").as_deref(),
            Some("http://localhost:3000")
        );
        assert_eq!(
            scheme_less_web_address("10.0.0.2/a").as_deref(),
            Some("http://10.0.0.2/a")
        );
        assert_eq!(
            scheme_less_web_address("www.a.test").as_deref(),
            Some("https://www.a.test")
        );
        for not in [
            "page.html",
            "docs/a.html",
            "example.com",
            "javascript:alert(1)",
            "a b:80",
            "/x:80",
        ] {
            assert_eq!(scheme_less_web_address(not), None, "{not}");
        }
    }

    #[test]
    fn paths_become_file_urls() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("page one.html");
        std::fs::write(&f, "<p>x</p>").unwrap();
        let url = resolve_target(f.to_str().unwrap()).unwrap();
        assert!(
            url.starts_with("file:///") && url.ends_with("/page%20one.html"),
            "{url}"
        );
        let missing = dir.path().join("missing.html");
        let e = resolve_target(missing.to_str().unwrap()).unwrap_err();
        assert!(matches!(e, Error::NoSuchFile { .. }));
        assert_eq!(e.to_string(), format!("no such file: {}", missing.display()));
        let e = resolve_target("nope/missing.html").unwrap_err();
        assert_eq!(e.to_string(), "no such file: nope/missing.html");
        let e = resolve_target("example.com").unwrap_err();
        assert!(e.to_string().contains("https://example.com"), "{e}");
        let e = resolve_target(&format!("file://{}", missing.display())).unwrap_err();
        assert!(matches!(e, Error::NoSuchFile { .. }));
    }
}
