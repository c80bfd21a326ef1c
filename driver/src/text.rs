//! Text helpers for messages, prompts and logs. A leaf module: the error
//! type and the LLM layer both use it without importing each other.

/// The fence around page content shown to a model.
pub const OPEN_TAG: &str = "<untrusted_page_content>";
pub const CLOSE_TAG: &str = "</untrusted_page_content>";

/// Page text may not close the wrapper early (nor open one of its own).
pub fn defang(text: &str) -> String {
    text.replace(CLOSE_TAG, "</untrusted_page_content_>")
        .replace(OPEN_TAG, "<untrusted_page_content_>")
}

/// `bytes` random bytes as hex: nonces, and secrets in local URLs (the
/// bridge's and the DevTools screen's paths).
pub(crate) fn random_hex(bytes: usize) -> String {
    use ring::rand::{SecureRandom, SystemRandom};
    let mut buf = vec![0u8; bytes];
    SystemRandom::new().fill(&mut buf).expect("the system's random source");
    hex(&buf)
}

/// Bytes as lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Collapses whitespace runs (including newlines) so a message stays on one line.
pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` cut to its first `n` characters, with "…" when something was cut.
pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// How much of a URL a message shows.
const URL_SHOWN: usize = 300;

/// A URL as a message shows it: whole up to a few hundred characters, else
/// its start and its length (a `data:` URL of megabytes would otherwise be
/// repeated in every answer about its page).
pub fn shown_url(url: &str) -> std::borrow::Cow<'_, str> {
    let n = url.chars().count();
    if n <= URL_SHOWN {
        url.into()
    } else {
        format!("{} ({n} characters)", clip(url, URL_SHOWN)).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_and_one_line() {
        assert_eq!(clip("abcdef", 6), "abcdef");
        assert_eq!(clip("abcdéf", 4), "abcd…");
        assert_eq!(one_line(" a\n  b\tc "), "a b c");
        assert_eq!(shown_url("http://a.test/"), "http://a.test/");
        let long = format!("data:text/html,{}", "x".repeat(100_000));
        let shown = shown_url(&long);
        assert!(shown.len() < 400 && shown.ends_with("… (100015 characters)"), "{shown}");
    }
}
