//! Where a suite's relative page addresses point. Real suites name live
//! sites (`https://www.allrecipes.com/`); a local or mirrored suite names
//! its pages relative (`shop.html?item=lamp`), resolved against `--web-base`
//! when given (a URL: a fixture server, a mirror), else against the suite
//! file's folder (`file://` pages), as batch task files resolve `url`.

use std::path::Path;

use url::Url;

use crate::error::{Error, Result};
use crate::page::resolve_target;

/// The base of relative page addresses.
#[derive(Debug, Clone, PartialEq)]
pub struct WebBase(Url);

impl WebBase {
    /// `--web-base URL`: relative addresses are joined to it (give it a
    /// trailing `/` for a folder).
    pub fn url(base: &str) -> Result<WebBase> {
        let url = Url::parse(base.trim()).map_err(|e| Error::InvalidUrl {
            input: base.to_string(),
            reason: e.to_string(),
        })?;
        if !matches!(url.scheme(), "http" | "https" | "file") {
            return Err(Error::InvalidUrl {
                input: base.to_string(),
                reason: "the web base must be an http(s) or file URL".into(),
            });
        }
        Ok(WebBase(url))
    }

    /// The folder of the suite file at `suite`.
    pub fn folder_of(suite: &Path) -> Result<WebBase> {
        let dir = crate::files::folder_of(suite);
        let abs = std::fs::canonicalize(&dir)
            .map_err(|e| Error::Io(format!("cannot read the folder {}: {e}", dir.display())))?;
        Url::from_directory_path(&abs)
            .map(WebBase)
            .map_err(|_| Error::Io(format!("{} is not an absolute folder", abs.display())))
    }

    /// The URL to open for a suite's address: absolute ones as they are,
    /// relative ones joined to the base. Local files must exist.
    pub fn resolve(&self, address: &str) -> std::result::Result<String, String> {
        let address = address.trim();
        if address.is_empty() {
            return Err("an empty address".into());
        }
        let absolute = match Url::parse(address) {
            Ok(_) => address.to_string(),
            Err(url::ParseError::RelativeUrlWithoutBase) => self
                .0
                .join(address)
                .map_err(|e| format!("cannot join {address:?} to {}: {e}", self.0))?
                .to_string(),
            Err(e) => return Err(format!("{address:?} is not a URL: {e}")),
        };
        resolve_target(&absolute).map_err(|e| e.to_string())
    }

    /// Whether `address` is relative (resolved against the base).
    pub fn is_relative(address: &str) -> bool {
        matches!(Url::parse(address.trim()), Err(url::ParseError::RelativeUrlWithoutBase))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_addresses_join_the_base_with_their_query() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shop.html"), "<p>hi</p>").unwrap();
        let suite = dir.path().join("suite.jsonl");
        let here = WebBase::folder_of(&suite).unwrap();
        let url = here.resolve("shop.html?item=lamp").unwrap();
        assert!(
            url.starts_with("file:///") && url.ends_with("/shop.html?item=lamp"),
            "{url}"
        );
        assert!(here.resolve("missing.html").unwrap_err().contains("no such file"));
        let served = WebBase::url("http://127.0.0.1:8000/eval/").unwrap();
        assert_eq!(
            served.resolve("shop.html?item=lamp").unwrap(),
            "http://127.0.0.1:8000/eval/shop.html?item=lamp"
        );
        assert_eq!(
            served.resolve("https://www.allrecipes.com/").unwrap(),
            "https://www.allrecipes.com/",
            "absolute addresses stay"
        );
        assert!(WebBase::url("ftp://x/").is_err());
        assert!(WebBase::is_relative("a.html") && !WebBase::is_relative("http://a/"));
    }
}
