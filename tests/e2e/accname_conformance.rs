//! Accessible-name (and description) conformance against the WPT accname
//! tests in `../shared/corpus/wpt-accname/`.
//!
//! Cases:
//! - `accname/name/comp_*.html` and `accname/name/shadowdom/*.html`: every
//!   element with `data-expectedlabel` (expected name = that attribute), keyed
//!   by its `data-testname`.
//! - `accname/manual/name*-manual.html` (names) and
//!   `accname/manual/description*-manual.html` (descriptions): the steps of
//!   the JSON given to `new ATTAcomm({...})` whose ATK (or UIA) test is
//!   `["property", "name"|"description", "is", <expected>]`, keyed by the
//!   step's element id. Other steps are counted as not applicable.
//!
//! Every page is loaded in one tab of one browser and asked of the engine
//! (`__sightline.describeAll`) in its isolated world. Both sides are compared
//! after collapsing ASCII whitespace (as WPT's `aria-utils.js` does).
//!
//! Failures listed in `tests/e2e/accname_known_failures.txt`
//! (`file#case — reason`) are expected; any other failure is a regression and
//! fails the test. Listed cases that now pass are printed so the list can be
//! trimmed. `SIGHTLINE_ACCNAME_UPDATE=1` rewrites the list with the current
//! failures (keeping existing reasons; new ones are marked untriaged).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::support::world::*;
use crate::support::*;
use serde_json::Value;
use sightline::{Browser, LaunchOptions, Page};

const KNOWN_FAILURES: &str = "accname_known_failures.txt";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Name,
    Description,
}

#[derive(Debug, Clone)]
struct Case {
    /// `file#case`, the key of the known-failure list.
    key: String,
    kind: Kind,
    expected: String,
    /// What the engine computed; `None` when it did not find the element.
    got: Option<String>,
    role: String,
    hidden: bool,
    /// Chromium's own answer (`Accessibility.getPartialAXTree`), fetched for
    /// failing cases only: a tie-breaker for whoever triages them.
    chromium: Option<String>,
}

impl Case {
    fn passed(&self) -> bool {
        self.got.as_deref().map(|g| collapse_ws(g, is_ascii_ws)) == Some(collapse_ws(&self.expected, is_ascii_ws))
    }

    fn describe(&self) -> String {
        let got = match &self.got {
            Some(g) => format!("{:?}", clip(g, 80)),
            None => "element not found by the engine".to_string(),
        };
        let chromium = match &self.chromium {
            Some(c) => format!(", Chromium {:?}", clip(c, 80)),
            None => String::new(),
        };
        format!(
            "{} ({}): got {got}, expected {:?}{chromium} [role {}{}]",
            self.key,
            match self.kind {
                Kind::Name => "name",
                Kind::Description => "description",
            },
            clip(&self.expected, 80),
            if self.role.is_empty() { "-" } else { &self.role },
            if self.hidden { ", hidden" } else { "" }
        )
    }
}

fn corpus() -> PathBuf {
    shared_corpus("wpt-accname")
}

fn html_files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "html") && p.file_name().and_then(|n| n.to_str()).is_some_and(&keep)
        })
        .collect();
    out.sort();
    out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(corpus())
        .expect("file is in the corpus")
        .to_string_lossy()
        .replace('\\', "/")
}

/// The object literal passed to `new ATTAcomm(...)` in a manual test.
fn attacomm_json(html: &str) -> Option<Value> {
    let at = html.find("new ATTAcomm(")?;
    let open = at + html[at..].find('{')?;
    serde_json::Deserializer::from_str(&html[open..])
        .into_iter::<Value>()
        .next()?
        .ok()
}

/// `(element id, kind, expected)` of a manual test's applicable steps, and
/// the number of steps that are not applicable.
fn manual_steps(html: &str) -> (Vec<(String, Kind, String)>, usize) {
    let Some(json) = attacomm_json(html) else {
        return (Vec::new(), 1);
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    for step in json["steps"].as_array().cloned().unwrap_or_default() {
        let element = step["element"].as_str().map(str::to_string);
        let found = ["ATK", "UIA"].iter().find_map(|api| {
            step["test"][api].as_array()?.iter().find_map(|t| {
                let t = t.as_array()?;
                if t.len() != 4 || t[0] != "property" || t[2] != "is" {
                    return None;
                }
                let kind = match t[1].as_str()?.to_ascii_lowercase().as_str() {
                    "name" => Kind::Name,
                    "description" => Kind::Description,
                    _ => return None,
                };
                Some((kind, t[3].as_str()?.to_string()))
            })
        });
        match (step["type"].as_str(), element, found) {
            (Some("test"), Some(el), Some((kind, expected))) => out.push((el, kind, expected)),
            _ => skipped += 1,
        }
    }
    (out, skipped)
}

/// The known-failure list: key → reason.
fn load_known(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(" — ") {
            Some((k, r)) => (k.trim().to_string(), r.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

fn known_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/e2e")
        .join(KNOWN_FAILURES)
}

/// Loads `url`, waits for it to be complete, returns the engine's context.
async fn open(page: &Page, url: &str) -> chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId {
    page.goto(url).await.unwrap_or_else(|e| panic!("goto {url}: {e}"));
    let ctx = engine_world(page).await;
    // The load event has fired; give late script work one more frame.
    let _ = eval(
        page,
        ctx,
        "new Promise(r => { const ok = () => requestAnimationFrame(() => r(true)); \
         document.readyState === 'complete' ? ok() : addEventListener('load', ok); setTimeout(() => r(false), 3000); })",
    )
    .await;
    ctx
}

fn entry_fields(v: &Value, kind: Kind) -> (Option<String>, String, bool) {
    if v.get("found").and_then(Value::as_bool) != Some(true) {
        return (None, String::new(), false);
    }
    let field = match kind {
        Kind::Name => "name",
        Kind::Description => "description",
    };
    (
        Some(v[field].as_str().unwrap_or("").to_string()),
        v["role"].as_str().unwrap_or("").to_string(),
        v["hidden"].as_bool().unwrap_or(false),
    )
}

/// Chromium's computed name (or description) of the element `expression`
/// evaluates to, from its own accessibility tree.
async fn chromium_says(
    page: &Page,
    ctx: chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId,
    expression: &str,
    kind: Kind,
) -> Option<String> {
    let object_id = eval_remote(page, ctx, expression).await.ok()??;
    let tree = cdp(
        page,
        "Accessibility.getPartialAXTree",
        serde_json::json!({ "objectId": object_id, "fetchRelatives": false }),
    )
    .await
    .ok()?;
    let _ = cdp(
        page,
        "Runtime.releaseObject",
        serde_json::json!({ "objectId": object_id }),
    )
    .await;
    let node = tree["nodes"].as_array()?.first()?.clone();
    let field = match kind {
        Kind::Name => "name",
        Kind::Description => "description",
    };
    Some(node[field]["value"].as_str().unwrap_or("").to_string())
}

/// Cases of a `data-expectedlabel` file.
async fn label_cases(page: &Page, file: &str, url: &str) -> Vec<Case> {
    let ctx = open(page, url).await;
    const JS: &str = r#"(() => {
        const sel = '[data-expectedlabel]';
        const els = [...document.querySelectorAll(sel)];
        const got = JSON.parse(globalThis.__sightline.describeAll(sel));
        return els.map((e, i) => ({
            testname: e.getAttribute('data-testname') || e.id || e.getAttribute('data-expectedlabel'),
            expected: e.getAttribute('data-expectedlabel'),
            got: got[i] || null,
        }));
    })()"#;
    let rows = eval(page, ctx, JS)
        .await
        .unwrap_or_else(|e| panic!("{file}: describeAll failed: {e}"));
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut cases: Vec<Case> = rows
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|row| {
            let mut name = row["testname"].as_str().unwrap_or("").to_string();
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            if *n > 1 {
                name = format!("{name} ({n})");
            }
            let (got, role, hidden) = entry_fields(&row["got"], Kind::Name);
            Case {
                key: format!("{file}#{name}"),
                kind: Kind::Name,
                expected: row["expected"].as_str().unwrap_or("").to_string(),
                got,
                role,
                hidden,
                chromium: None,
            }
        })
        .collect();
    for (i, case) in cases.iter_mut().enumerate() {
        if !case.passed() {
            let expr = format!("document.querySelectorAll('[data-expectedlabel]')[{i}]");
            case.chromium = chromium_says(page, ctx, &expr, case.kind).await;
        }
    }
    cases
}

/// Cases of an ATTAcomm manual file, and its count of non-applicable steps.
async fn manual_cases(page: &Page, file: &str, url: &str, html: &str) -> (Vec<Case>, usize) {
    let (steps, skipped) = manual_steps(html);
    if steps.is_empty() {
        return (Vec::new(), skipped);
    }
    let ctx = open(page, url).await;
    let ids: Vec<&str> = steps.iter().map(|(id, _, _)| id.as_str()).collect();
    let js = format!(
        "({ids}).map(id => JSON.parse(globalThis.__sightline.describeAll('#' + CSS.escape(id)))[0] || null)",
        ids = serde_json::to_string(&ids).unwrap()
    );
    let rows = eval(page, ctx, &js)
        .await
        .unwrap_or_else(|e| panic!("{file}: describeAll failed: {e}"));
    let mut cases: Vec<Case> = steps
        .iter()
        .zip(rows.as_array().cloned().unwrap_or_default())
        .map(|((id, kind, expected), row)| {
            let (got, role, hidden) = entry_fields(&row, *kind);
            Case {
                key: format!("{file}#{id}"),
                kind: *kind,
                expected: expected.clone(),
                got,
                role,
                hidden,
                chromium: None,
            }
        })
        .collect();
    for ((id, _, _), case) in steps.iter().zip(cases.iter_mut()) {
        if !case.passed() {
            let expr = format!("document.getElementById({})", serde_json::to_string(id).unwrap());
            case.chromium = chromium_says(page, ctx, &expr, case.kind).await;
        }
    }
    (cases, skipped)
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accname_conformance() {
    let root = corpus();
    let server = FixtureServer::serve(root.clone());
    let browser = Browser::launch(LaunchOptions {
        extra_args: offline_args(),
        ..LaunchOptions::default()
    })
    .await
    .expect("launch");
    let page = browser.new_page().await.expect("page");

    let mut cases: Vec<Case> = Vec::new();
    let mut not_applicable = 0usize;
    let name_dir = root.join("accname/name");
    let label_files: Vec<PathBuf> = html_files(&name_dir, |n| n.starts_with("comp_"))
        .into_iter()
        .chain(html_files(&name_dir.join("shadowdom"), |_| true))
        .collect();
    let manual_files = html_files(&root.join("accname/manual"), |n| {
        (n.starts_with("name") || n.starts_with("description")) && n.ends_with("-manual.html")
    });

    // ~180 page loads: a generous limit of its own rather than CLI_TIMEOUT.
    let outcome = tokio::time::timeout(std::time::Duration::from_secs(900), async {
        for path in &label_files {
            let file = rel(path);
            cases.extend(label_cases(&page, &file, &server.url(&file)).await);
        }
        for path in &manual_files {
            let file = rel(path);
            let html = std::fs::read_to_string(path).expect("read manual test");
            let (c, skipped) = manual_cases(&page, &file, &server.url(&file), &html).await;
            cases.extend(c);
            not_applicable += skipped;
        }
    })
    .await;
    browser.close().await.expect("close");
    outcome.expect("accname conformance did not finish within 900 s");

    // Scores.
    let score = |kind: Kind| {
        let all: Vec<&Case> = cases.iter().filter(|c| c.kind == kind).collect();
        (all.iter().filter(|c| c.passed()).count(), all.len())
    };
    let (np, nt) = score(Kind::Name);
    let (dp, dt) = score(Kind::Description);
    println!("accname conformance: {np}/{nt} names ({:.1}%)", pct(np, nt));
    println!("accname conformance: {dp}/{dt} descriptions ({:.1}%)", pct(dp, dt));
    // For reference only: the score when U+00A0 also counts as whitespace
    // (our output collapses it on purpose; WPT keeps it).
    let loose = |c: &Case| {
        let n = |s: &str| collapse_ws(s, |ch| is_ascii_ws(ch) || ch == '\u{a0}');
        c.got.as_deref().map(n) == Some(n(&c.expected))
    };
    let nl = cases.iter().filter(|c| c.kind == Kind::Name && loose(c)).count();
    println!(
        "accname conformance: {nl}/{nt} names ({:.1}%) if U+00A0 counted as whitespace",
        pct(nl, nt)
    );
    if not_applicable > 0 {
        println!(
            "accname conformance: {not_applicable} manual steps not applicable (not a name/description property test)"
        );
    }
    assert!(nt > 400, "too few name cases found ({nt}): is the corpus complete?");
    assert!(pct(np, nt) >= 95.0, "name conformance {:.1}% is below 95%", pct(np, nt));

    // Compare with the known-failure list.
    let known = load_known(&known_path());
    let failing: Vec<&Case> = cases.iter().filter(|c| !c.passed()).collect();
    let all_keys: HashSet<&str> = cases.iter().map(|c| c.key.as_str()).collect();
    let regressions: Vec<&&Case> = failing.iter().filter(|c| !known.contains_key(&c.key)).collect();
    let now_passing: Vec<&Case> = cases
        .iter()
        .filter(|c| c.passed() && known.contains_key(&c.key))
        .collect();
    let stale: Vec<&String> = known.keys().filter(|k| !all_keys.contains(k.as_str())).collect();

    let chromium_agrees = failing
        .iter()
        .filter(|c| {
            c.chromium.as_deref().map(|x| collapse_ws(x, is_ascii_ws)) == Some(collapse_ws(&c.expected, is_ascii_ws))
        })
        .count();
    println!(
        "\nfailing cases ({}; Chromium itself gives the expected value in {chromium_agrees}):",
        failing.len()
    );
    for c in &failing {
        let reason = known
            .get(&c.key)
            .map(String::as_str)
            .unwrap_or("NOT IN THE KNOWN-FAILURE LIST");
        println!("  {} — {reason}", c.describe());
    }
    if !now_passing.is_empty() {
        println!(
            "\n{} case(s) in {KNOWN_FAILURES} now pass (trim the list):",
            now_passing.len()
        );
        for c in &now_passing {
            println!("  {}", c.key);
        }
    }
    if !stale.is_empty() {
        println!("\n{} entr(y/ies) in {KNOWN_FAILURES} match no case:", stale.len());
        for k in &stale {
            println!("  {k}");
        }
    }

    if std::env::var("SIGHTLINE_ACCNAME_UPDATE").is_ok_and(|v| v == "1") {
        write_known(&known, &failing);
        println!("\nrewrote {}", known_path().display());
        return;
    }

    assert!(
        regressions.is_empty(),
        "{} accname case(s) fail that are not in tests/e2e/{KNOWN_FAILURES}:\n{}",
        regressions.len(),
        regressions
            .iter()
            .map(|c| format!("  {}", c.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Rewrites the known-failure list: the header comments, then one line per
/// current failure (its old reason, or an untriaged note).
fn write_known(known: &BTreeMap<String, String>, failing: &[&Case]) {
    let path = known_path();
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    let mut out: String = old
        .lines()
        .take_while(|l| l.starts_with('#') || l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    for c in failing {
        let reason = known.get(&c.key).cloned().unwrap_or_else(|| {
            format!(
                "untriaged: got {}, expected {:?}",
                c.got
                    .as_deref()
                    .map(|g| format!("{:?}", clip(g, 60)))
                    .unwrap_or_else(|| "no element".into()),
                clip(&c.expected, 60)
            )
        });
        out.push_str(&format!("{} — {reason}\n", c.key));
    }
    std::fs::write(&path, out).expect("write the known-failure list");
}
