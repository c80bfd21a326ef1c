//! CSS generated content (`::before`/`::after`), as plain text. Pure: the
//! DOM adapter passes computed or declared `content` values in.

/// Extracts the concatenated string literals of a computed `content` value
/// (`"a" "b"` → `ab`); counters, images and attr() are ignored.
pub fn parse_css_content(v: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let quote = c;
            while let Some(d) = chars.next() {
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        out.push(e);
                    }
                } else if d == quote {
                    break;
                } else {
                    out.push(d);
                }
            }
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
