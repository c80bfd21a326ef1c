//! Joining and collapsing words: the engine's one `join`.
//!
//! Why not `[T]::join`: std instantiates it per item type (`&str`, `String`),
//! ~900 bytes of .wasm each, and the module has a size budget. This one
//! takes any iterator of `&str` behind `dyn`, so there is a single copy.

/// `parts` with `sep` between them.
pub fn join(parts: &mut dyn Iterator<Item = &str>, sep: &str) -> String {
    let mut out = String::new();
    if let Some(first) = parts.next() {
        out.push_str(first);
        for p in parts {
            out.push_str(sep);
            out.push_str(p);
        }
    }
    out
}

/// `strings` with `sep` between them, in one allocation (a snapshot's
/// lines are joined this way).
pub fn join_strings(strings: &[String], sep: &str) -> String {
    let len = strings.iter().map(|s| s.len() + sep.len()).sum::<usize>();
    let mut out = String::with_capacity(len);
    for (i, s) in strings.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push_str(s);
    }
    out
}

/// Runs of Unicode whitespace become one space; none at either end.
pub fn collapse_whitespace(s: &str) -> String {
    join(&mut s.split_whitespace(), " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_like_std() {
        for parts in [&[][..], &["a"][..], &["a", "", "b"][..], &["x", "y", "z"][..]] {
            assert_eq!(join(&mut parts.iter().copied(), ", "), parts.join(", "));
            let owned: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
            assert_eq!(join_strings(&owned, "\n"), owned.join("\n"));
        }
    }

    #[test]
    fn collapses_unicode_whitespace() {
        for s in ["", "  ", " a  b\t\nc ", "a\u{a0}b", "\u{2003}x\u{2003}"] {
            assert_eq!(
                collapse_whitespace(s),
                s.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
    }
}
