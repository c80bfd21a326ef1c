//! `sightline.toml`: user configuration: what steps wait for, and
//! removeBlocker's policy:
//!
//! ```toml
//! wait_until = "ready"      # "ready" | "load" | "networkidle"
//!
//! [remove_blocker]
//! enabled = true            # the tool may act at all
//! aggressive = false        # also consent/login/age/paywall dialogs; allow DOM removal
//! consent = "leave"         # "leave" | "reject" | "accept"
//! allowed_selectors = []    # always closable (and removable) blockers
//! after_navigation = false  # run proactively after every navigation
//! audit_file = "blockers.jsonl"
//!
//! [remove_blocker.domain_overrides."example.com"]
//! aggressive = true         # applies to example.com and its subdomains
//! ```
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// What to do with cookie/privacy consent dialogs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConsentPolicy {
    /// Leave them alone (default).
    #[default]
    Leave,
    /// Click "Reject all" / "Only necessary" (privacy-preserving; never removes).
    Reject,
    /// Click "Accept all".
    Accept,
}

/// Options of one removeBlocker call (the effective policy for one page).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RemoveBlockerOptions {
    /// Also act on consent, login, age-gate and paywall dialogs, and allow DOM removal.
    #[serde(default)]
    pub aggressive: bool,
    #[serde(default)]
    pub consent: ConsentPolicy,
    /// CSS selectors of blockers that may always be closed and removed.
    #[serde(default)]
    pub allowed_selectors: Vec<String>,
    /// Append one JSON line per attempt here.
    #[serde(default)]
    pub audit_file: Option<PathBuf>,
}

/// What a step waits for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    /// Ready as a user would see it (the rules of page/readiness.rs).
    #[default]
    Ready,
    /// Navigations also wait for the load event.
    Load,
    /// The load event, then no request for 500 ms (WebSocket and
    /// EventSource aside, requests older than 2 s left out), everywhere.
    #[serde(rename = "networkidle")]
    NetworkIdle,
}

impl std::str::FromStr for WaitUntil {
    type Err = Error;

    fn from_str(s: &str) -> Result<WaitUntil> {
        match s.trim().to_ascii_lowercase().as_str() {
            "ready" => Ok(WaitUntil::Ready),
            "load" => Ok(WaitUntil::Load),
            "networkidle" | "network-idle" => Ok(WaitUntil::NetworkIdle),
            other => Err(Error::Config(format!(
                "wait-until {other:?}: expected ready, load or networkidle"
            ))),
        }
    }
}

impl std::fmt::Display for WaitUntil {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WaitUntil::Ready => "ready",
            WaitUntil::Load => "load",
            WaitUntil::NetworkIdle => "networkidle",
        })
    }
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// What steps wait for (`--wait-until` overrides it).
    #[serde(default)]
    pub wait_until: Option<WaitUntil>,
    #[serde(default)]
    pub remove_blocker: RemoveBlockerConfig,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RemoveBlockerConfig {
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub aggressive: bool,
    #[serde(default)]
    pub consent: ConsentPolicy,
    #[serde(default)]
    pub allowed_selectors: Vec<String>,
    #[serde(default)]
    pub after_navigation: bool,
    #[serde(default)]
    pub audit_file: Option<PathBuf>,
    #[serde(default)]
    pub domain_overrides: BTreeMap<String, DomainOverride>,
}

fn yes() -> bool {
    true
}

impl Default for RemoveBlockerConfig {
    fn default() -> Self {
        RemoveBlockerConfig {
            enabled: true,
            aggressive: false,
            consent: ConsentPolicy::Leave,
            allowed_selectors: Vec::new(),
            after_navigation: false,
            audit_file: None,
            domain_overrides: BTreeMap::new(),
        }
    }
}

/// Per-domain changes to the policy; unset keys keep the global value.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DomainOverride {
    pub enabled: Option<bool>,
    pub aggressive: Option<bool>,
    pub consent: Option<ConsentPolicy>,
    pub allowed_selectors: Option<Vec<String>>,
    pub after_navigation: Option<bool>,
}

impl Config {
    pub fn parse(text: &str) -> Result<Config> {
        // toml's message spans lines (position, a source excerpt, the
        // reason); keep the position and the reason on one line.
        toml::from_str(text).map_err(|e| {
            let msg = e.to_string();
            let lines: Vec<&str> = msg.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            let first = lines.first().copied().unwrap_or_default();
            let last = lines.last().copied().unwrap_or_default();
            Error::Config(if first == last {
                first.to_string()
            } else {
                format!("{first}: {last}")
            })
        })
    }

    pub fn load(path: &Path) -> Result<Config> {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::Config(format!("cannot read {}: {e}", path.display())))?;
        Config::parse(&text).map_err(|e| match e {
            Error::Config(m) => Error::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// `./sightline.toml` when present, else the defaults.
    pub fn discover() -> Result<Config> {
        let p = Path::new("sightline.toml");
        if p.exists() {
            Config::load(p)
        } else {
            Ok(Config::default())
        }
    }
}

fn host_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h.to_ascii_lowercase()))
}

impl RemoveBlockerConfig {
    /// The override for `url`'s host: exact domain or a parent domain; the
    /// most specific (longest) wins.
    fn override_for(&self, url: &str) -> Option<&DomainOverride> {
        let host = host_of(url)?;
        self.domain_overrides
            .iter()
            .filter(|(d, _)| {
                let d = d.to_ascii_lowercase();
                host == d || host.ends_with(&format!(".{d}"))
            })
            .max_by_key(|(d, _)| d.len())
            .map(|(_, o)| o)
    }

    /// The effective options on `url`, or `None` when the tool is disabled there.
    pub fn options_for(&self, url: &str) -> Option<RemoveBlockerOptions> {
        let o = self.override_for(url).cloned().unwrap_or_default();
        if !o.enabled.unwrap_or(self.enabled) {
            return None;
        }
        Some(RemoveBlockerOptions {
            aggressive: o.aggressive.unwrap_or(self.aggressive),
            consent: o.consent.unwrap_or(self.consent),
            allowed_selectors: o.allowed_selectors.unwrap_or_else(|| self.allowed_selectors.clone()),
            audit_file: self.audit_file.clone(),
        })
    }

    /// Whether to run removeBlocker after navigating to `url`.
    pub fn after_navigation_on(&self, url: &str) -> bool {
        self.override_for(url)
            .and_then(|o| o.after_navigation)
            .unwrap_or(self.after_navigation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example_and_applies_overrides() {
        let c = Config::parse(
            r#"
[remove_blocker]
enabled = true
aggressive = false
consent = "leave"
allowed_selectors = []

[remove_blocker.domain_overrides."example.com"]
aggressive = true
consent = "reject"
"#,
        )
        .unwrap();
        let rb = &c.remove_blocker;
        let plain = rb.options_for("https://news.test/a").unwrap();
        assert!(!plain.aggressive && plain.consent == ConsentPolicy::Leave);
        let ex = rb.options_for("https://shop.example.com/x").unwrap();
        assert!(ex.aggressive && ex.consent == ConsentPolicy::Reject);
        assert!(!rb.options_for("https://notexample.com/").unwrap().aggressive);
    }

    #[test]
    fn disabled_and_bad_files() {
        let c = Config::parse("[remove_blocker]\nenabled = false\n").unwrap();
        assert!(c.remove_blocker.options_for("https://a.test/").is_none());
        let e = Config::parse("[remove_blocker]\nconsent = \"maybe\"\n").unwrap_err();
        assert!(
            e.to_string().contains("consent") || e.to_string().contains("maybe"),
            "{e}"
        );
        assert!(
            Config::parse("[remove_blocker]\nagressive = true\n").is_err(),
            "typos are errors"
        );
    }
}
