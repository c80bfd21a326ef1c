//! The architecture's invariants, checked on the source tree (no browser):
//! - no import cycle between the files of the driver library or of the CLI,
//!   nor between their top-level modules (a folder counts as one);
//! - the library prints nothing and knows no CLI types (no clap, no bench);
//! - only the CDP layer (`page/`, `browser/`) names chromiumoxide;
//! - only `engine-wasm/src/adapter/` touches the DOM (web-sys, js-sys, wasm-bindgen);
//! - steps wait only through the page's one readiness rule: the tools, the
//!   agents, the LLM pipelines and the steps runner never sleep;
//! - ARCHITECTURE.md stays a map (at most 250 lines).
//!
//! How import cycles are found: every file is a node; an edge goes from a
//! file to each file its code names by path (`crate::…`, `super::…`,
//! `self::…`, and child modules it declares), comments, strings and
//! `#[cfg(test)]` code left out, each path resolved to the deepest file it
//! reaches. A strongly connected component of two or more files is a cycle.
//! Method calls on a type defined elsewhere are not edges (Rust needs no
//! import for them); `impl Page` blocks across `page/` are one module's
//! split, not dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Module path of a file under `root` (`page/mod.rs` → `["page"]`).
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code without comments, string and char literals, and test modules.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(inner) = rest.strip_prefix("/*") {
            i += inner.find("*/").map_or(rest.len(), |j| j + 4);
        } else if let Some(hashes) = raw_string_start(src, i) {
            let body = i + hashes + 2 + usize::from(b[i] == b'b');
            let end = format!("\"{}", "#".repeat(hashes));
            i = src[body..].find(&end).map_or(b.len(), |j| body + j + end.len());
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && char_literal_len(rest).is_some() {
            i += char_literal_len(rest).unwrap();
            out.push_str("' '");
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    match out.find("#[cfg(test)]") {
        Some(k) => out[..k].to_string(),
        None => out,
    }
}

/// `r"`, `r#"`, `br##"` at `i` (not part of an identifier): the number of hashes.
fn raw_string_start(src: &str, i: usize) -> Option<usize> {
    let b = src.as_bytes();
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return None;
    }
    let rest = src[i..].strip_prefix('b').unwrap_or(&src[i..]);
    let after = rest.strip_prefix('r')?;
    let hashes = after.bytes().take_while(|c| *c == b'#').count();
    (after.as_bytes().get(hashes) == Some(&b'"')).then_some(hashes)
}

/// `'a'`, `'\n'`, `'\''` (not a lifetime): its length.
fn char_literal_len(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        let close = rest[2..].find('\'')?;
        return (close < 10).then_some(close + 3);
    }
    let (k, q) = chars.next()?;
    (q == '\'').then_some(k + 1)
}

/// Every path a file names: `crate::a::B`, `super::x`, `use crate::{a, b::C}`.
fn named_paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let idents = |s: &str| s.split("::").map(|p| p.trim().to_string()).collect::<Vec<_>>();
    // Brace groups of `use` (nested ones expanded).
    let mut rest = code;
    while let Some(k) = rest.find("use ") {
        rest = &rest[k + 4..];
        let stmt = &rest[..rest.find(';').unwrap_or(rest.len())];
        expand_use(stmt.trim(), &mut Vec::new(), &mut out);
    }
    // Plain paths anywhere in the code.
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (k, _) in code.match_indices(start) {
            if k > 0 && (bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_' || bytes[k - 1] == b':') {
                continue;
            }
            let end = code[k..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| k + e);
            let path = idents(code[k..end].trim_end_matches(':'));
            // A bare `super::{…}` prefix: the group is read with the `use`s.
            if path.len() > 1 {
                out.push(path);
            }
        }
    }
    // Child modules named without a prefix (`settle::Tracker`).
    for child in children {
        let pat = format!("{child}::");
        for (k, _) in code.match_indices(&pat) {
            if k > 0 && (bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_' || bytes[k - 1] == b':') {
                continue;
            }
            out.push(vec!["self".into(), child.clone(), "_".into()]);
        }
    }
    out.retain(|p| matches!(p.first().map(String::as_str), Some("crate" | "super" | "self")));
    out
}

fn expand_use(stmt: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    // Split at top-level commas.
    let mut depth = 0;
    let mut start = 0;
    let mut items = Vec::new();
    for (i, c) in stmt.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&stmt[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&stmt[start..]);
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        match item.find("::{") {
            Some(k) if item.ends_with('}') => {
                let head: Vec<String> = item[..k].split("::").map(|s| s.trim().to_string()).collect();
                let n = head.len();
                prefix.extend(head);
                expand_use(&item[k + 3..item.len() - 1], prefix, out);
                prefix.truncate(prefix.len() - n);
            }
            _ => {
                let name = item.split(" as ").next().unwrap().trim();
                let mut p = prefix.clone();
                p.extend(name.split("::").map(|s| s.trim().to_string()));
                out.push(p);
            }
        }
    }
}

/// The file a path names, from module `from`: the deepest module file it reaches.
fn resolve(modules: &BTreeSet<Vec<String>>, from: &[String], path: &[String]) -> Option<Vec<String>> {
    let (mut base, rest): (Vec<String>, &[String]) = match path[0].as_str() {
        "crate" => (Vec::new(), &path[1..]),
        _ => (from.to_vec(), path),
    };
    let mut rest = rest;
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    let mut best = None;
    for i in 0..=rest.len() {
        let mut cand = base.clone();
        cand.extend(rest[..i].iter().cloned());
        if modules.contains(&cand) {
            best = Some(cand);
        }
    }
    best
}

/// Every file of the crate at `root` (by module path) and the files each one names.
type Graph = (BTreeSet<Vec<String>>, BTreeMap<Vec<String>, BTreeSet<Vec<String>>>);

fn file_graph(root: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(root, f), f.clone())).collect();
    let names: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, file) in &modules {
        let src = std::fs::read_to_string(file).unwrap();
        let code = code_only(&src);
        let children: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim().trim_start_matches("pub(crate) ").trim_start_matches("pub ");
                l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_string)
            })
            .collect();
        for p in named_paths(&code, &children) {
            if let Some(target) = resolve(&names, module, &p) {
                if &target != module {
                    edges.entry(module.clone()).or_default().insert(target);
                }
            }
        }
    }
    (names, edges)
}

/// The components of two or more nodes, named `a/b` (`lib` for the root).
fn cycles_of(names: &BTreeSet<Vec<String>>, edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    strongly_connected(names, edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            c.into_iter()
                .map(|m| if m.is_empty() { "lib".into() } else { m.join("/") })
                .collect()
        })
        .collect()
}

/// Cycles (strongly connected components of two or more files) of the crate at `root`.
fn import_cycles(root: &Path) -> Vec<Vec<String>> {
    let (names, edges) = file_graph(root);
    cycles_of(&names, &edges)
}

/// Cycles between the crate's top-level modules (`error.rs`, the `llm/`
/// folder, …): a file of `llm/` naming `error.rs` while `error.rs` names
/// `llm/errors.rs` is no file-level cycle, but the two modules still
/// depend on each other. `lib.rs` (which declares and re-exports
/// everything) is left out.
fn module_cycles(root: &Path) -> Vec<Vec<String>> {
    let (names, edges) = file_graph(root);
    let top = |m: &Vec<String>| m.first().cloned().map(|t| vec![t]);
    let tops: BTreeSet<Vec<String>> = names.iter().filter_map(top).collect();
    let mut top_edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (from, targets) in &edges {
        for to in targets {
            if let (Some(a), Some(b)) = (top(from), top(to)) {
                if a != b {
                    top_edges.entry(a).or_default().insert(b);
                }
            }
        }
    }
    cycles_of(&tops, &top_edges)
}

/// Tarjan's algorithm.
fn strongly_connected(
    nodes: &BTreeSet<Vec<String>>,
    edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> Vec<Vec<Vec<String>>> {
    struct T<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<Vec<String>, usize>,
        low: BTreeMap<Vec<String>, usize>,
        stack: Vec<Vec<String>>,
        on: BTreeSet<Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn visit(t: &mut T, v: &Vec<String>) {
        let n = t.index.len();
        t.index.insert(v.clone(), n);
        t.low.insert(v.clone(), n);
        t.stack.push(v.clone());
        t.on.insert(v.clone());
        for w in t.edges.get(v).cloned().unwrap_or_default() {
            if !t.index.contains_key(&w) {
                visit(t, &w);
                let l = t.low[&w].min(t.low[v]);
                t.low.insert(v.clone(), l);
            } else if t.on.contains(&w) {
                let l = t.index[&w].min(t.low[v]);
                t.low.insert(v.clone(), l);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(&w);
                let done = &w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            t.out.push(comp);
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, s: &str| {
        let f = dir.path().join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, s).unwrap();
    };
    w("lib.rs", "mod a;\nmod b;\nmod c;\n");
    w(
        "a.rs",
        "use crate::b::B;\n// crate::c::C in a comment\nconst S: &str = \"crate::c\";\n",
    );
    w("b.rs", "use crate::{c::{C}, x};\npub struct B;\n");
    w(
        "c.rs",
        "pub struct C(super::a::A);\n#[cfg(test)]\nmod tests { use crate::b::B; }\n",
    );
    let cycles = import_cycles(dir.path());
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let mut c = cycles[0].clone();
    c.sort();
    assert_eq!(c, ["a", "b", "c"]);
    w("c.rs", "pub struct C;\n");
    assert!(import_cycles(dir.path()).is_empty());
}

#[test]
fn the_module_cycle_finder_sees_folders_as_one_module() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, s: &str| {
        let f = dir.path().join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, s).unwrap();
    };
    // error ↔ llm as it was: no two files name each other.
    w("lib.rs", "mod error;\nmod llm;\n");
    w("error.rs", "pub enum Error { Llm(crate::llm::errors::Kind) }\n");
    w("llm/mod.rs", "pub mod errors;\nmod client;\n");
    w("llm/errors.rs", "pub enum Kind {}\n");
    w("llm/client.rs", "use crate::error::Error;\n");
    assert!(import_cycles(dir.path()).is_empty());
    let cycles = module_cycles(dir.path());
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let mut c = cycles[0].clone();
    c.sort();
    assert_eq!(c, ["error", "llm"]);
    w("llm/client.rs", "use super::errors::Kind;\n");
    assert!(module_cycles(dir.path()).is_empty());
}

#[test]
fn no_import_cycles_in_the_driver_or_the_cli() {
    for dir in ["driver/src", "driver/cli/src"] {
        let cycles = import_cycles(&repo().join(dir));
        assert!(cycles.is_empty(), "{dir}: import cycles: {cycles:?}");
    }
}

#[test]
fn no_cycles_between_the_top_level_modules() {
    for dir in ["driver/src", "driver/cli/src"] {
        let cycles = module_cycles(&repo().join(dir));
        assert!(cycles.is_empty(), "{dir}: module cycles: {cycles:?}");
    }
}

#[test]
fn the_library_prints_nothing_and_knows_no_cli() {
    let manifest = std::fs::read_to_string(repo().join("driver/Cargo.toml")).unwrap();
    assert!(!manifest.contains("clap"), "the library depends on clap");
    let mut files = Vec::new();
    rust_files(&repo().join("driver/src"), &mut files);
    for f in files {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for bad in [
            "println!",
            "eprintln!",
            "print!(",
            "eprint!(",
            "std::process::exit",
            "clap::",
            "mod bench",
        ] {
            assert!(!code.contains(bad), "{} uses {bad}", f.display());
        }
    }
}

#[test]
fn only_the_cdp_layer_names_chromiumoxide() {
    let root = repo().join("driver/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let cdp_layer = rel.starts_with("page/") || rel.starts_with("browser/");
        // lib.rs re-exports the raw protocol types for `Page::cdp` users.
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        let names = code.matches("chromiumoxide").count();
        let allowed = if rel == "lib.rs" { 1 } else { 0 };
        assert!(cdp_layer || names <= allowed, "{rel} names chromiumoxide");
    }
}

#[test]
fn only_the_adapter_touches_the_dom() {
    let root = repo().join("engine-wasm/src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        if rel.starts_with("adapter/") {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        for dom in ["web_sys", "js_sys", "wasm_bindgen"] {
            assert!(
                !code.contains(dom),
                "{rel} uses {dom}: only engine-wasm/src/adapter/ may"
            );
        }
    }
}

#[test]
fn steps_wait_only_through_the_readiness_rule() {
    let root = repo().join("driver/src");
    for dir in ["tools", "agent", "ai", "steps"] {
        let mut files = Vec::new();
        rust_files(&root.join(dir), &mut files);
        for f in files {
            let code = code_only(&std::fs::read_to_string(&f).unwrap());
            for sleep in ["time::sleep", "sleep_until", "thread::sleep"] {
                assert!(
                    !code.contains(sleep),
                    "{} sleeps ({sleep}): wait for the page with Page::wait_ready (page/readiness.rs) instead",
                    f.strip_prefix(&root).unwrap().display()
                );
            }
        }
    }
}

#[test]
fn the_architecture_map_stays_short() {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= 250,
        "ARCHITECTURE.md has {lines} lines (at most 250: a map, not a log)"
    );
    assert!(
        text.contains("## Where to add"),
        "ARCHITECTURE.md has a \"where to add\" section"
    );
}
