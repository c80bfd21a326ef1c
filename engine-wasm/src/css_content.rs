//! CSS generated content (`::before`/`::after`), as plain text. Pure: the
//! DOM adapter passes computed or declared `content` values in.

/// Extracts the concatenated top-level string literals of a computed
/// `content` value (`"a" "b"` → `ab`). Strings inside functions are not
/// text: `url("data:image/svg+xml,…")` is an image, and a counter's
/// separator comes with a number we can't know. The alternative text after
/// `/` (`url(x.svg) / "Close"`) replaces what comes before it, as Chromium
/// names it.
pub fn parse_css_content(v: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = v.chars();
    // Nesting of `(`: strings count only outside functions.
    let mut depth = 0u32;
    while let Some(c) = chars.next() {
        match c {
            // Alternative text (`"x" / "alt"`) replaces the content for
            // assistive technology, as Chromium names it.
            '/' if depth == 0 => out.clear(),
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '"' | '\'' => {
                let quote = c;
                while let Some(d) = chars.next() {
                    if d == quote {
                        break;
                    }
                    let d = if d == '\\' { chars.next().unwrap_or(d) } else { d };
                    if depth == 0 {
                        out.push(d);
                    }
                }
            }
            _ => {}
        }
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Whether a `content` declaration in a style sheet may put text on the
/// page. Empty strings (the clearfix idiom) and keywords don't; anything
/// else might (strings, `attr()`, `var()`, counters, `inherit`).
pub fn declared_content_may_add_text(content: &str) -> bool {
    let v = content.trim();
    !(v.is_empty() || v == "none" || v == "normal" || v == "\"\"" || v == "''")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_are_concatenated() {
        assert_eq!(parse_css_content("\"a\" \"b\""), Some("ab".into()));
        assert_eq!(parse_css_content("'x\\'y'"), Some("x'y".into()));
        assert_eq!(parse_css_content("counter(item) \". \""), Some(". ".into()));
        assert_eq!(parse_css_content("url(x.png)"), None);
        // An image is no text, whatever its URL holds (issue 27).
        assert_eq!(
            parse_css_content("url(\"data:image/svg+xml,%3Csvg xmlns='x'%3E\")"),
            None
        );
        assert_eq!(parse_css_content("url(\"a.svg\") / \"Close\""), Some("Close".into()));
        assert_eq!(parse_css_content("\"before\" / \"alt\""), Some("alt".into()));
        assert_eq!(parse_css_content("counters(item, \".\") \" \""), Some(" ".into()));
        assert_eq!(parse_css_content("\"\""), None);
    }

    #[test]
    fn empty_and_keyword_declarations_add_no_text() {
        for v in ["", "none", "normal", "\"\"", "''", "  \"\" "] {
            assert!(!declared_content_may_add_text(v), "{v:?}");
        }
        for v in [
            "\"×\"",
            "'\\f00d'",
            "attr(title)",
            "var(--icon)",
            "counter(item)",
            "inherit",
        ] {
            assert!(declared_content_may_add_text(v), "{v:?}");
        }
    }
}
