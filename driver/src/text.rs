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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_and_one_line() {
        assert_eq!(clip("abcdef", 6), "abcdef");
        assert_eq!(clip("abcdéf", 4), "abcd…");
        assert_eq!(one_line(" a\n  b\tc "), "a b c");
    }
}
