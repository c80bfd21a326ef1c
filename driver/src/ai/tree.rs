//! Working with snapshot text on the driver side: token estimates, the refs
//! new since an earlier snapshot (two-step dropdowns), chunks that fit a
//! token budget (extract), a line's head and its `[url=…]` token, and
//! dropping those tokens when URLs travel as refs.

use std::collections::HashSet;

use sightline_engine::protocol::SnapshotResult;

/// The token estimate used for budgets and figures: characters / 4.
pub fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The `[ref=…]` of a tree line (among the tokens after its name, whose
/// text is the page's and may look like one).
pub fn ref_of(line: &str) -> Option<&str> {
    token(line, "ref").map(|(_, value)| value)
}

/// A line's ` [key=…]` token among those after its name: its byte range
/// (with the space before it) and its value.
pub fn token<'l>(line: &'l str, key: &str) -> Option<(std::ops::Range<usize>, &'l str)> {
    let (end, tokens_from) = head(line);
    let opening = format!(" [{key}=");
    let start = line[tokens_from..end].find(&opening)? + tokens_from;
    let value_from = start + opening.len();
    let close = line[value_from..end].find(']')? + value_from;
    Some((start..close + 1, &line[value_from..close]))
}

/// Where a tree line's head (role, quoted name, `[…]` tokens) ends: at the
/// `:` that opens its inline text or its children, else at the end. Names
/// may hold `:` inside their quotes and URLs inside their `[url=…]` token.
pub fn head_len(line: &str) -> usize {
    head(line).0
}

/// [`head_len`], and where the head's tokens start (after the quoted name,
/// whose text is the page's and may look like a token).
fn head(line: &str) -> (usize, usize) {
    let mut in_quotes = false;
    let mut in_token = false;
    let mut escaped = false;
    let mut tokens_from = 0;
    for (i, c) in line.char_indices() {
        match c {
            '\\' if in_quotes && !escaped => {
                escaped = true;
                continue;
            }
            '"' if !escaped && !in_token => {
                in_quotes = !in_quotes;
                tokens_from = i + 1;
            }
            '[' if !in_quotes => in_token = true,
            ']' if !in_quotes => in_token = false,
            ':' if !in_quotes && !in_token => return (i, tokens_from),
            _ => {}
        }
        escaped = false;
    }
    (line.len(), tokens_from)
}

/// A link line's ` [url=…]` token: its byte range (with the space before
/// it) and the URL as shown. Only among the tokens after the name.
pub fn url_token(line: &str) -> Option<(std::ops::Range<usize>, &str)> {
    token(line, "url")
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The lines of `after` whose refs were not in `before`, each with the lines
/// that enclose it (so "option "EU 42"" keeps its "listbox "Size"" parent),
/// re-indented from zero. Empty when nothing new appeared.
pub fn new_refs_view(before: &SnapshotResult, after: &SnapshotResult) -> String {
    let old: HashSet<&str> = before.refs.iter().map(|(k, _)| k.as_str()).collect();
    let lines: Vec<&str> = after.tree.lines().collect();
    let mut keep = vec![false; lines.len()];
    for (i, line) in lines.iter().enumerate() {
        let Some(r) = ref_of(line) else { continue };
        if old.contains(r) {
            continue;
        }
        keep[i] = true;
        // Enclosing lines (less indented, above), and its children.
        let mut level = indent(line);
        for j in (0..i).rev() {
            let l = lines[j];
            if l.starts_with('#') || l.trim().is_empty() {
                continue;
            }
            let d = indent(l);
            if d < level {
                keep[j] = true;
                level = d;
                if d == 0 {
                    break;
                }
            }
        }
        let mut k = i + 1;
        while k < lines.len() && indent(lines[k]) > indent(line) {
            keep[k] = true;
            k += 1;
        }
    }
    if !keep.iter().any(|k| *k) {
        return String::new();
    }
    let chosen: Vec<&str> = lines.iter().zip(&keep).filter(|(_, k)| **k).map(|(l, _)| *l).collect();
    let base = chosen.iter().map(|l| indent(l)).min().unwrap_or(0);
    chosen
        .iter()
        .map(|l| &l[base.min(indent(l))..])
        .collect::<Vec<_>>()
        .join("\n")
}

/// The refs of `after` that `before` did not have.
pub fn new_refs(before: &SnapshotResult, after: &SnapshotResult) -> Vec<String> {
    let old: HashSet<&str> = before.refs.iter().map(|(k, _)| k.as_str()).collect();
    after
        .refs
        .iter()
        .filter(|(k, _)| !old.contains(k.as_str()))
        .map(|(k, _)| k.clone())
        .collect()
}

/// The tree without links' `[url=…]` tokens (extract asks for link refs
/// instead).
pub fn without_urls(tree: &str) -> String {
    let mut out = without_token(tree, "url");
    out.pop();
    out
}

/// Each line of `tree` (ended by a newline) without its own `[key=…]`
/// token (see [`token`]).
pub fn without_token(tree: &str, key: &str) -> String {
    let mut out = String::with_capacity(tree.len());
    for line in tree.lines() {
        match token(line, key) {
            Some((at, _)) => {
                out.push_str(&line[..at.start]);
                out.push_str(&line[at.end..]);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The tree whole when it fits `budget` tokens, else its [`chunks`]: what a
/// request per part shows of a page.
pub fn parts(tree: &str, budget: usize) -> Vec<String> {
    if tokens(tree) <= budget {
        vec![tree.to_string()]
    } else {
        chunks(tree, budget)
    }
}

/// Splits a tree into chunks of at most `budget` tokens at line boundaries.
/// Every chunk starts with the `#` header lines and with the lines that
/// enclose its first line, so each chunk reads as a tree of its own.
pub fn chunks(tree: &str, budget: usize) -> Vec<String> {
    let lines: Vec<&str> = tree.lines().collect();
    let header: Vec<&str> = lines.iter().copied().take_while(|l| l.starts_with('#')).collect();
    let body = &lines[header.len()..];
    let header_text = header.join("\n");
    let budget = budget.max(tokens(&header_text) + 64);
    let mut out = Vec::new();
    let mut start = 0;
    while start < body.len() {
        // The enclosing lines of the chunk's first line.
        let mut context: Vec<&str> = Vec::new();
        let mut level = indent(body[start]);
        for j in (0..start).rev() {
            let d = indent(body[j]);
            if d < level {
                context.push(body[j]);
                level = d;
                if d == 0 {
                    break;
                }
            }
        }
        context.reverse();
        let mut chunk: Vec<&str> = header.clone();
        chunk.extend(context.iter().copied());
        let mut used = tokens(&chunk.join("\n"));
        let mut end = start;
        while end < body.len() {
            let t = tokens(body[end]) + 1;
            if used + t > budget && end > start {
                break;
            }
            used += t;
            chunk.push(body[end]);
            end += 1;
        }
        out.push(chunk.join("\n"));
        start = end;
    }
    if out.is_empty() {
        out.push(tree.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sightline_engine::protocol::{RefInfo, RefMap};

    fn snap(tree: &str, refs: &[&str]) -> SnapshotResult {
        SnapshotResult {
            tree: tree.to_string(),
            refs: RefMap(refs.iter().map(|r| (r.to_string(), RefInfo::default())).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn new_refs_keep_their_parents() {
        let a = snap(
            "- main:\n  - button \"Size\" [ref=e1]\n  - button \"Buy\" [ref=e2]",
            &["e1", "e2"],
        );
        let b = snap(
            "- main:\n  - button \"Size\" [expanded] [ref=e1]\n  - listbox \"Sizes\":\n    - option \"EU 41\" [ref=e5]\n    - option \"EU 42\" [ref=e6]\n  - button \"Buy\" [ref=e2]",
            &["e1", "e5", "e6", "e2"],
        );
        let v = new_refs_view(&a, &b);
        assert_eq!(
            v,
            "- main:\n  - listbox \"Sizes\":\n    - option \"EU 41\" [ref=e5]\n    - option \"EU 42\" [ref=e6]"
        );
        assert_eq!(new_refs(&a, &b), ["e5", "e6"]);
        assert_eq!(new_refs_view(&a, &a), "");
    }

    #[test]
    fn chunks_fit_and_carry_context() {
        let mut tree = String::from("# Page position: at the top, 9 viewports below.\n- main:\n  - list:\n");
        for i in 0..200 {
            tree.push_str(&format!("    - listitem: Product number {i} costs {i}.99 EUR\n"));
        }
        let parts = chunks(&tree, 300);
        assert!(parts.len() > 3);
        for p in &parts {
            assert!(tokens(p) <= 300 + 20, "{}", tokens(p));
            assert!(p.starts_with("# Page position"));
        }
        assert!(parts[1].contains("- main:\n  - list:\n    - listitem"));
        let all: usize = parts.iter().map(|p| p.matches("listitem").count()).sum();
        assert_eq!(all, 200);
    }

    #[test]
    fn url_tokens_dropped() {
        assert_eq!(
            without_urls("- link \"A\" [ref=e1] [url=https://a.test/x]\n- link \"B: b\" [ref=e2] [url=/b]: text [url=/c]\n- text: t"),
            "- link \"A\" [ref=e1]\n- link \"B: b\" [ref=e2]: text [url=/c]\n- text: t"
        );
    }

    #[test]
    fn a_head_ends_at_the_colon_outside_quotes_and_tokens() {
        let line = "- link \"Time: \\\"now\\\"\" [ref=e1] [url=https://a.test/?q=a:b]: read";
        assert_eq!(&line[head_len(line)..], ": read");
        assert_eq!(url_token(line).map(|(_, u)| u), Some("https://a.test/?q=a:b"));
        assert_eq!(url_token("- button \"[url=x]\" [ref=e1]"), None);
        // A name that looks like a token is the page's text, not a URL.
        assert_eq!(url_token("- button \"Go [url=https://evil.test/]\" [ref=e1]"), None);
        assert_eq!(ref_of("- button \"[ref=e9]\" [ref=e1]"), Some("e1"));
        assert_eq!(ref_of("- paragraph: see [ref=e9]"), None);
        let cut = "- cell \"See [url=http://x.test/a…\" [ref=e7]";
        assert_eq!(without_urls(cut), cut);
        assert_eq!(
            url_token("- link \"Go [url=x]\" [ref=e1] [url=/real]").map(|(_, u)| u),
            Some("/real")
        );
    }
}
