//! Resolving a link's `href` against the document's base URL, for the
//! common, plain cases only.
//!
//! Why: `a.href` asks Blink to parse and serialise a URL (~2–3 µs, plus a
//! UTF-16 to UTF-8 copy of the result); on a link-heavy page such as a long
//! Wikipedia article that was 6–7% of a full snapshot. Most hrefs are plain
//! (`#cite_note-3`, `/wiki/Foo`, `https://example.org/a?b=c`) and resolve by
//! string work alone. Anything this module is not certain to resolve exactly
//! as the WHATWG URL parser does (non-ASCII, spaces, backslashes, ports,
//! user info, IP or IDNA hosts, encoded dot segments, other schemes) gives
//! `None`, and the caller falls back to `a.href`.

/// The parts of an http(s) base URL that resolution needs.
struct Base<'a> {
    /// `https`
    scheme: &'a str,
    /// `https://host[:port]`
    origin: &'a str,
    /// `/dir/page` (always starts with `/`)
    path: &'a str,
    /// Everything before the fragment: `https://host/dir/page?q`
    without_fragment: &'a str,
}

/// Index of the first byte of `s` that is one of `set`, or `s.len()`.
fn find_any(s: &str, set: &[u8]) -> usize {
    s.bytes().position(|c| set.contains(&c)).unwrap_or(s.len())
}

/// The concatenation of `parts` (one allocation; smaller code than `format!`).
fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

fn parse_base(base: &str) -> Option<Base<'_>> {
    let scheme = if base.starts_with("https://") {
        "https"
    } else if base.starts_with("http://") {
        "http"
    } else {
        return None;
    };
    let after = scheme.len() + 3;
    let authority_end = after + find_any(&base[after..], b"/?#");
    if base[after..authority_end].contains('@') || !base[authority_end..].starts_with('/') {
        return None;
    }
    let without_fragment = &base[..find_any(base, b"#")];
    let path_end = find_any(without_fragment, b"?");
    Some(Base {
        scheme,
        origin: &base[..authority_end],
        path: &without_fragment[authority_end..path_end],
        without_fragment,
    })
}

/// Characters a plain href may contain: printable ASCII that no part of an
/// http(s) URL percent-encodes or rewrites (so not space, `"`, `'`, `<`, `>`,
/// `\`, `^`, `` ` ``, `{`, `|`, `}`). A bit set: this test runs on every
/// byte of every link.
const PLAIN_CHARS: u128 = {
    let mut set = 0u128;
    let mut c = 0x21;
    while c <= 0x7e {
        set |= 1 << c;
        c += 1;
    }
    let excluded = b"\"'<>\\^`{|}";
    let mut i = 0;
    while i < excluded.len() {
        set &= !(1 << excluded[i]);
        i += 1;
    }
    set
};

fn plain_char(c: u8) -> bool {
    c < 128 && PLAIN_CHARS & (1 << c) != 0
}

/// The absolute URL `href` resolves to against `base` (the document's base
/// URL), exactly as `a.href` gives it, or `None` when the case is not a
/// plain one (then ask the browser).
pub fn resolve_plain(base: &str, href: &str) -> Option<String> {
    let base = parse_base(base)?;
    // The parser trims leading and trailing C0 controls and spaces.
    let href = href.trim_matches(|c: char| c <= ' ');
    if !href.bytes().all(plain_char) {
        return None;
    }
    if href.is_empty() {
        return Some(base.without_fragment.to_string());
    }
    if href.starts_with('#') {
        return Some(concat(&[base.without_fragment, href]));
    }
    if href.starts_with('?') {
        return Some(concat(&[base.origin, base.path, href]));
    }
    if let Some(rest) = href.strip_prefix("//") {
        return with_authority(base.scheme, rest);
    }
    if href.starts_with('/') {
        return Some(concat(&[base.origin, &normalized(href)?]));
    }
    if let Some(colon) = scheme_end(href) {
        let scheme = href[..colon].to_ascii_lowercase();
        let rest = href[colon + 1..].strip_prefix("//")?;
        return match scheme.as_str() {
            "http" | "https" => with_authority(&scheme, rest),
            _ => None,
        };
    }
    // A relative path: replaces the last segment of the base path.
    let dir = &base.path[..=base.path.rfind('/')?];
    Some(concat(&[base.origin, &normalized(&concat(&[dir, href]))?]))
}

/// Where a leading `scheme:` ends (the colon's index), if there is one.
fn scheme_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = b
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    (b[end] == b':').then_some(end)
}

/// `scheme://` + `rest` (an authority and what follows it), when the
/// authority is a plain domain name (no port, user info, IP or IDNA label).
fn with_authority(scheme: &str, rest: &str) -> Option<String> {
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let host = rest[..end].to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let plain_label = |l: &&str| {
        !l.is_empty()
            && !l.starts_with("xn--")
            && l.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
    };
    // A last label that starts with a digit may make the host an IPv4 address.
    let last_is_numeric = labels
        .last()
        .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_digit()));
    if !labels.iter().all(plain_label) || last_is_numeric {
        return None;
    }
    let tail = &rest[end..];
    let tail = if tail.starts_with('/') {
        normalized(tail)?
    } else {
        format!("/{tail}")
    };
    Some(format!("{scheme}://{host}{tail}"))
}

/// An absolute path (with any query and fragment after it) with its `.` and
/// `..` segments applied. `None` for percent-encoded dots, which the parser
/// also treats as dot segments.
fn normalized(path_and_rest: &str) -> Option<String> {
    let (path, rest) = path_and_rest.split_at(find_any(path_and_rest, b"?#"));
    if path.contains('%') && path.to_ascii_lowercase().contains("%2e") {
        return None;
    }
    if !path.contains("/.") {
        return Some(path_and_rest.to_string());
    }
    let mut out: Vec<&str> = Vec::new();
    let mut segments = path[1..].split('/').peekable();
    while let Some(seg) = segments.next() {
        let last = segments.peek().is_none();
        if seg == "." || seg == ".." {
            if seg == ".." {
                out.pop();
            }
            // A trailing dot segment leaves the path ending in `/`.
            if last {
                out.push("");
            }
        } else {
            out.push(seg);
        }
    }
    let mut joined = String::with_capacity(path_and_rest.len());
    for seg in &out {
        joined.push('/');
        joined.push_str(seg);
    }
    if out.is_empty() {
        joined.push('/');
    }
    joined.push_str(rest);
    Some(joined)
}

#[cfg(test)]
mod tests {
    use super::resolve_plain;

    const BASE: &str = "https://en.wikipedia.org/wiki/Rust_(programming_language)?action=view#History";

    fn r(href: &str) -> Option<String> {
        resolve_plain(BASE, href)
    }

    #[test]
    fn plain_forms_resolve_like_the_url_parser() {
        let cases = [
            (
                "#cite_note-3",
                "https://en.wikipedia.org/wiki/Rust_(programming_language)?action=view#cite_note-3",
            ),
            (
                "",
                "https://en.wikipedia.org/wiki/Rust_(programming_language)?action=view",
            ),
            ("  /wiki/Main_Page \n", "https://en.wikipedia.org/wiki/Main_Page"),
            (
                "?oldid=1",
                "https://en.wikipedia.org/wiki/Rust_(programming_language)?oldid=1",
            ),
            ("Ferris", "https://en.wikipedia.org/wiki/Ferris"),
            ("./a/../b/./c", "https://en.wikipedia.org/wiki/b/c"),
            ("../..", "https://en.wikipedia.org/"),
            ("a/..", "https://en.wikipedia.org/wiki/"),
            ("/a/./", "https://en.wikipedia.org/a/"),
            ("/a//b", "https://en.wikipedia.org/a//b"),
            ("/x?q=a/../b#f/./g", "https://en.wikipedia.org/x?q=a/../b#f/./g"),
            ("//upload.Wikimedia.org/x.png", "https://upload.wikimedia.org/x.png"),
            ("//example.org", "https://example.org/"),
            ("//example.org?q", "https://example.org/?q"),
            ("HTTP://Example.COM", "http://example.com/"),
            (
                "https://foundation.wikimedia.org/wiki/Privacy_policy",
                "https://foundation.wikimedia.org/wiki/Privacy_policy",
            ),
            ("https://a.org/%7Euser/%20x", "https://a.org/%7Euser/%20x"),
            ("http://a.org/b/../c", "http://a.org/c"),
        ];
        for (href, want) in cases {
            assert_eq!(r(href).as_deref(), Some(want), "{href}");
        }
    }

    #[test]
    fn anything_unusual_is_left_to_the_browser() {
        for href in [
            "a b",
            "/caf\u{e9}",
            "/a\\b",
            "/it's",
            "/a\tb",
            "/%2e%2E/x",
            "/a/%2E",
            "mailto:a@b.org",
            "javascript:void(0)",
            "http:/a",
            "http:a",
            "//user@a.org/",
            "//a.org:8080/",
            "//127.0.0.1/",
            "//[::1]/",
            "//xn--mnchen-3ya.de/",
            "//a..org/",
            "//%41.org/",
        ] {
            assert_eq!(r(href), None, "{href}");
        }
        // Bases that are not plain http(s) URLs.
        assert_eq!(resolve_plain("file:///tmp/a.html", "#x"), None);
        assert_eq!(resolve_plain("about:blank", "/x"), None);
        assert_eq!(resolve_plain("https://u:p@a.org/", "/x"), None);
    }

    #[test]
    fn a_base_with_a_port_keeps_it() {
        assert_eq!(
            resolve_plain("http://127.0.0.1:8771/dir/page.html", "other.html#top").as_deref(),
            Some("http://127.0.0.1:8771/dir/other.html#top")
        );
        assert_eq!(
            resolve_plain("http://127.0.0.1:8771", "x").as_deref(),
            None,
            "a base without a path is not canonical"
        );
    }
}
