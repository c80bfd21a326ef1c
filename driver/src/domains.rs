//! `allowed_domains`: which URLs navigations may reach (the agent, tools).

use crate::files::FileAccess;

/// An allow-list entry: `example.com` (the domain and its subdomains),
/// `*.example.com` (subdomains only), `127.0.0.1:8080` (that host and port).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AllowedDomains(Vec<String>);

impl AllowedDomains {
    pub fn new(entries: &[String]) -> AllowedDomains {
        AllowedDomains(
            entries
                .iter()
                .map(|e| e.trim().trim_end_matches('/').to_ascii_lowercase())
                .map(|e| e.split("://").last().unwrap_or_default().to_string())
                .filter(|e| !e.is_empty())
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn entries(&self) -> &[String] {
        &self.0
    }

    /// Whether `url` may be visited. `about:blank` always may; anything that
    /// is not http(s) is refused once a list is set (file:, data:, javascript:).
    pub fn allows(&self, url: &str) -> bool {
        if self.0.is_empty() || url == "about:blank" {
            return true;
        }
        self.matches(url)
    }

    /// Whether an http(s) `url` is on the list (never for an empty list).
    pub fn matches(&self, url: &str) -> bool {
        let Ok(parsed) = url::Url::parse(url) else {
            return false;
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return false;
        }
        let Some(host) = parsed.host_str().map(|h| h.trim_end_matches('.').to_ascii_lowercase()) else {
            return false;
        };
        let port = parsed.port_or_known_default();
        self.0.iter().any(|entry| {
            let (pattern, want_port) = match entry.rsplit_once(':') {
                Some((h, p)) if !h.contains(']') || h.ends_with(']') => match p.parse::<u16>() {
                    Ok(p) => (h, Some(p)),
                    Err(_) => (entry.as_str(), None),
                },
                _ => (entry.as_str(), None),
            };
            if want_port.is_some() && want_port != port {
                return false;
            }
            match pattern.strip_prefix("*.") {
                Some(base) => host.ends_with(&format!(".{base}")),
                None => host == pattern || host.ends_with(&format!(".{pattern}")),
            }
        })
    }
}

/// Where a browser's pages may go: an allow-list (empty: anywhere) and a
/// block-list (empty: nothing), both of [`AllowedDomains`] entries, and
/// which local files they may load.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OriginPolicy {
    pub allowed: AllowedDomains,
    pub blocked: AllowedDomains,
    /// `file:` documents (and uploads): anywhere by default.
    pub files: FileAccess,
    /// Only the tab's own documents are held to `allowed` and `blocked`,
    /// not its frames': an agent that may only visit a shop still sees its
    /// payment frame, its captcha, its video.
    pub top_level_only: bool,
}

impl OriginPolicy {
    /// No restriction at all (no request needs to be looked at).
    pub fn is_open(&self) -> bool {
        self.allowed.is_empty() && self.blocked.is_empty() && self.files.is_open()
    }

    /// Only local files are restricted (only `file:` requests need a look).
    pub fn limits_only_files(&self) -> bool {
        self.allowed.is_empty() && self.blocked.is_empty() && !self.files.is_open()
    }

    /// Whether a page may load `url`.
    pub fn allows(&self, url: &str) -> bool {
        self.allowed.allows(url) && !self.blocked.matches(url) && self.files.allows_url(url)
    }

    /// Why `url` is refused, for error messages.
    pub fn refusal(&self, url: &str) -> Option<String> {
        if let Some(why) = self.files.refusal(url) {
            return Some(why);
        }
        if self.blocked.matches(url) {
            return Some(format!(
                "{url} is on the blocked origins ({})",
                self.blocked.entries().join(", ")
            ));
        }
        if !self.allowed.allows(url) {
            return Some(format!(
                "{url} is outside the allowed origins ({})",
                self.allowed.entries().join(", ")
            ));
        }
        None
    }
}

/// A document request refused by the origin policy before it was sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// Rises with each refusal (see [`RefusalLog::since`]).
    pub seq: u64,
    pub url: String,
    /// The target id of the tab it came from (a new tab's own, for its first document).
    pub tab: String,
    /// The browser context whose own policy refused it (None: the launch
    /// options' policy did).
    pub context: Option<String>,
    /// Why, as [`OriginPolicy::refusal`] says it.
    pub why: String,
    /// It was the first document of a tab a page opened, which was closed
    /// (it had nothing else to show).
    pub closed_tab: bool,
    /// It was a frame's document (an ad, an embed), not the tab's own.
    pub frame: bool,
}

/// How many refusals a browser keeps.
const KEPT_REFUSALS: usize = 1000;

/// The refusals of one browser, kept by whoever refused (a tab's filter,
/// the browser's guard), so the tool call they happened in can say so.
/// A handle reads and keeps those of one policy's tabs.
#[derive(Debug, Clone, Default)]
pub(crate) struct RefusalLog {
    list: std::sync::Arc<std::sync::Mutex<Vec<Refusal>>>,
    /// Per context, the latest refusal a tool call has said.
    said: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<Option<String>, u64>>>,
    /// The context whose own policy this handle's tabs follow (None: the
    /// launch options').
    context: Option<String>,
}

impl RefusalLog {
    /// The same log, for the tabs of `context`.
    pub(crate) fn in_context(&self, context: Option<String>) -> RefusalLog {
        RefusalLog {
            list: self.list.clone(),
            said: self.said.clone(),
            context,
        }
    }

    /// This handle's refusals no call has said yet (one that came after
    /// its call returned, a pop-up's late first request, is said by the
    /// next); they count as said from now on.
    pub(crate) fn unsaid(&self) -> Vec<Refusal> {
        let mut said = self.said.lock().unwrap();
        let after = said.get(&self.context).copied().unwrap_or(0);
        let new = self.since(after);
        if let Some(last) = new.last() {
            said.insert(self.context.clone(), last.seq);
        }
        new
    }

    pub(crate) fn keep(&self, url: &str, tab: &str, why: String, closed_tab: bool, frame: bool) {
        let mut list = self.list.lock().unwrap();
        let seq = list.last().map_or(0, |r| r.seq) + 1;
        // (The latest only: a call reads those since its start.)
        if list.len() >= KEPT_REFUSALS {
            list.drain(..KEPT_REFUSALS / 2);
        }
        list.push(Refusal {
            seq,
            url: url.to_string(),
            tab: tab.to_string(),
            context: self.context.clone(),
            why,
            closed_tab,
            frame,
        });
    }

    /// The number of the latest refusal (0: none yet).
    pub(crate) fn mark(&self) -> u64 {
        self.list.lock().unwrap().last().map_or(0, |r| r.seq)
    }

    /// This handle's refusals after the one numbered `after`.
    pub(crate) fn since(&self, after: u64) -> Vec<Refusal> {
        let list = self.list.lock().unwrap();
        list.iter()
            .filter(|r| r.seq > after && r.context == self.context)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching() {
        let d = AllowedDomains::new(&["example.com".into(), "*.shop.test".into(), "127.0.0.1:8080".into()]);
        assert!(d.allows("https://example.com/a"));
        assert!(d.allows("https://www.example.com/a"));
        assert!(!d.allows("https://notexample.com/"));
        assert!(!d.allows("https://example.com.evil.test/"));
        assert!(d.allows("http://a.shop.test/"));
        assert!(!d.allows("http://shop.test/"));
        assert!(d.allows("http://127.0.0.1:8080/x"));
        assert!(!d.allows("http://127.0.0.1:9090/x"));
        assert!(!d.allows("file:///etc/passwd"));
        assert!(!d.allows("not a url"));
        assert!(d.allows("about:blank"));
        assert!(AllowedDomains::new(&[]).allows("file:///x"));
        assert!(AllowedDomains::new(&["https://Example.com/".into()]).allows("http://example.com"));
        assert!(AllowedDomains::new(&["127.0.0.1".into()]).allows("http://127.0.0.1:1234/"));
    }
}
