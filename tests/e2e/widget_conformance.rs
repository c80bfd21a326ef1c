//! Real-widget conformance (issue 27): every interactive node of Chromium's
//! own accessibility tree (`Accessibility.getFullAXTree`) on real widget
//! pages we did not write, compared with Sightline's snapshot.
//!
//! The corpus (see `tests/fixtures/widgets/README.md` for sources and
//! licences), served on 127.0.0.1 with every other address blocked:
//! - GOV.UK Frontend: every example template its npm package ships
//!   (`dist/govuk/components/*/template-*.html`), one page per component,
//!   initialised with its own `initAll()`;
//! - accessible-autocomplete: the example pages its npm package ships;
//! - Shoelace, Bootstrap, Tom Select, Choices.js: pages that only host the
//!   library's widgets, initialised through its own API
//!   (`tests/fixtures/widgets/*.html`).
//!
//! A Chromium node is interactive when it is not ignored and either has a
//! widget role (button, link, textbox, checkbox, option, tab, treeitem…) or
//! is focusable. The options of a native `<select>` and the document itself
//! are left out (see docs/ax-differences.md). Matching is by element: our
//! refs are resolved to `backendNodeId`s as in `ax_oracle.rs`.
//!
//! Figures, per source and overall:
//! - recall: Chromium's interactive nodes that we have, with a ref, on the
//!   same element, with the same role and name;
//! - role agreement and name agreement: over the nodes we have a ref on.
//!
//! Fails below 99% for any of the three overall.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::support::ax::*;
use crate::support::world::*;
use crate::support::*;
use serde_json::{json, Value};
use sightline::{Browser, LaunchOptions, Page, SnapshotOptions};

/// Chromium roles that make a node interactive by themselves.
const WIDGET_ROLES: &[&str] = &[
    "button",
    "link",
    "textbox",
    "searchbox",
    "combobox",
    "ComboBoxSelect",
    "PopUpButton",
    "checkbox",
    "radio",
    "switch",
    "slider",
    "spinbutton",
    "listbox",
    "option",
    "ListBoxOption",
    "MenuListOption",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "treeitem",
    "gridcell",
    "DisclosureTriangle",
    "scrollbar",
];

/// One page of the corpus: its source and its path under the served root.
struct CorpusPage {
    source: &'static str,
    path: String,
}

/// Builds the served root in `dir`: the fixture libraries (a link to
/// `tests/fixtures/node_modules`), the host pages, and one GOV.UK page per
/// component from the templates its package ships.
fn build_corpus(dir: &Path) -> Vec<CorpusPage> {
    let fixtures = fixtures_dir();
    let modules = fixtures.join("node_modules");
    assert!(
        modules.join("govuk-frontend").is_dir(),
        "fixture libraries missing: run `bash scripts/setup.sh`"
    );
    std::os::unix::fs::symlink(&modules, dir.join("node_modules")).unwrap();
    std::os::unix::fs::symlink(fixtures.join("widgets"), dir.join("widgets")).unwrap();
    let mut pages = Vec::new();

    let components = modules.join("govuk-frontend/dist/govuk/components");
    std::fs::create_dir(dir.join("govuk")).unwrap();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&components)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    for comp in names {
        let mut templates: Vec<PathBuf> = std::fs::read_dir(&comp)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                n.starts_with("template-") && n.ends_with(".html")
            })
            .collect();
        if templates.is_empty() {
            continue;
        }
        templates.sort();
        let name = comp.file_name().unwrap().to_string_lossy().to_string();
        let mut body = String::new();
        for t in &templates {
            let example = t.file_stem().unwrap().to_string_lossy().replace("template-", "");
            body.push_str(&format!(
                "<section class=\"govuk-!-margin-bottom-9\"><h2 class=\"govuk-heading-m\">{example}</h2>\n{}\n</section>\n",
                std::fs::read_to_string(t).unwrap()
            ));
        }
        let page = format!(
            r#"<!doctype html><html lang="en" class="govuk-template"><head><meta charset="utf-8"><title>GOV.UK Frontend: {name}</title>
<link rel="stylesheet" href="/node_modules/govuk-frontend/dist/govuk/govuk-frontend.min.css"></head>
<body class="govuk-template__body"><script>document.body.className += ' js-enabled govuk-frontend-supported';</script>
<div class="govuk-width-container"><main class="govuk-main-wrapper" id="main-content">
<h1 class="govuk-heading-l">{name}</h1>
{body}</main></div>
<script type="module">import {{ initAll }} from '/node_modules/govuk-frontend/dist/govuk/govuk-frontend.min.js'; initAll(); document.body.dataset.ready = '1';</script>
</body></html>"#
        );
        std::fs::write(dir.join("govuk").join(format!("{name}.html")), page).unwrap();
        pages.push(CorpusPage {
            source: "govuk-frontend",
            path: format!("govuk/{name}.html"),
        });
    }

    for example in ["index.html", "form.html", "form-single.html"] {
        pages.push(CorpusPage {
            source: "accessible-autocomplete",
            path: format!("node_modules/accessible-autocomplete/examples/{example}"),
        });
    }

    let mut hosted: Vec<String> = std::fs::read_dir(fixtures.join("widgets"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".html"))
        .collect();
    hosted.sort();
    for file in hosted {
        let source = match file.split(['-', '.']).next().unwrap() {
            "shoelace" => "shoelace",
            "bootstrap" => "bootstrap",
            "tom" => "tom-select",
            "choices" => "choices.js",
            other => panic!("widgets/{file}: unknown source {other}"),
        };
        pages.push(CorpusPage {
            source,
            path: format!("widgets/{file}"),
        });
    }
    pages
}

#[derive(Default, Clone)]
struct Score {
    pages: usize,
    /// Chromium's interactive nodes.
    nodes: usize,
    /// … on which we have a ref.
    matched: usize,
    roles_ok: usize,
    names_ok: usize,
    /// … with a ref, the same role and the same name.
    hits: usize,
}

impl Score {
    fn add(&mut self, o: &Score) {
        self.pages += o.pages;
        self.nodes += o.nodes;
        self.matched += o.matched;
        self.roles_ok += o.roles_ok;
        self.names_ok += o.names_ok;
        self.hits += o.hits;
    }
}

/// Whether Chromium's node is interactive (see the header).
fn interactive(node: &Value, by_id: &HashMap<String, Value>) -> bool {
    if node["ignored"].as_bool().unwrap_or(false) {
        return false;
    }
    let role = node["role"]["value"].as_str().unwrap_or("");
    if role == "RootWebArea" || role == "Iframe" {
        return false;
    }
    // A native <select>'s options: the select is the one target.
    if matches!(role, "MenuListOption" | "ListBoxOption") {
        let parent = node["parentId"].as_str().and_then(|p| by_id.get(p));
        let select_part = |n: Option<&Value>| {
            n.and_then(|n| n["role"]["value"].as_str())
                .is_some_and(|r| matches!(r, "MenuListPopup" | "ComboBoxSelect" | "PopUpButton" | "listbox"))
        };
        if select_part(parent) {
            return false;
        }
    }
    let focusable = node["properties"].as_array().is_some_and(|ps| {
        ps.iter()
            .any(|p| p["name"] == "focusable" && p["value"]["value"] == true)
    });
    WIDGET_ROLES.contains(&role) || focusable
}

async fn score_page(page: &Page, url: &str, misses: &mut Vec<String>, label: &str) -> Result<Score, String> {
    page.goto(url).await.map_err(|e| format!("goto: {e}"))?;
    // Let module scripts and web components finish upgrading.
    let _ = page
        .evaluate("new Promise(r => setTimeout(r, 400)).then(() => true)")
        .await;
    let snap = page
        .snapshot(&SnapshotOptions::default())
        .await
        .map_err(|e| format!("snapshot: {e}"))?;
    let main: Vec<(&String, &sightline::protocol::RefInfo)> = snap
        .refs
        .iter()
        .filter(|(_, info)| info.frame.is_none())
        .map(|(k, v)| (k, v))
        .collect();
    let keys: Vec<String> = main.iter().map(|(k, _)| (*k).clone()).collect();
    let ids = backend_ids(page, &keys).await?;
    let mut ours: HashMap<i64, &sightline::protocol::RefInfo> = HashMap::new();
    for ((_, info), id) in main.iter().zip(ids) {
        if let Some(id) = id {
            ours.insert(id, info);
        }
    }
    let tree = cdp(page, "Accessibility.getFullAXTree", json!({})).await?;
    let nodes = tree["nodes"].as_array().cloned().unwrap_or_default();
    let by_id: HashMap<String, Value> = nodes
        .iter()
        .filter_map(|n| Some((n["nodeId"].as_str()?.to_string(), n.clone())))
        .collect();
    let mut s = Score {
        pages: 1,
        ..Default::default()
    };
    for node in nodes.iter().filter(|n| interactive(n, &by_id)) {
        let Some(backend) = node["backendDOMNodeId"].as_i64() else {
            continue;
        };
        if native_option(page, node, backend).await {
            continue;
        }
        s.nodes += 1;
        let ax_role = node["role"]["value"].as_str().unwrap_or("");
        let ax_name = norm(node["name"]["value"].as_str().unwrap_or(""));
        let Some(info) = ours.get(&backend) else {
            misses.push(format!("{label}: no ref on {ax_role} {ax_name:?}"));
            continue;
        };
        s.matched += 1;
        let role_ok = map_role(ax_role) == info.role;
        let name_ok = norm(&info.name) == file_input_name(&info.role, &ax_name);
        s.roles_ok += role_ok as usize;
        s.names_ok += name_ok as usize;
        if role_ok && name_ok {
            s.hits += 1;
        } else {
            misses.push(format!(
                "{label}: ours {} {:?} | Chromium {ax_role} {ax_name:?}",
                info.role,
                clip(&norm(&info.name), 80)
            ));
        }
    }
    Ok(s)
}

/// An `<option>` of a native `<select>`: the select is the one target
/// (see docs/ax-differences.md).
async fn native_option(page: &Page, node: &Value, backend: i64) -> bool {
    let role = node["role"]["value"].as_str().unwrap_or("");
    if !matches!(role, "option" | "MenuListOption" | "ListBoxOption") {
        return false;
    }
    let described = cdp(page, "DOM.describeNode", json!({ "backendNodeId": backend })).await;
    described.is_ok_and(|d| d["node"]["nodeName"] == "OPTION")
}

/// Chromium names a file input's button with its own UI strings: "Choose
/// File" alone, or the label followed by ": No file chosen". The accname
/// spec (and WPT) name it by its label only, as we do.
fn file_input_name(our_role: &str, ax_name: &str) -> String {
    if our_role != "button" {
        return ax_name.to_string();
    }
    match ax_name {
        "Choose File" => String::new(),
        n => n.strip_suffix(": No file chosen").unwrap_or(n).to_string(),
    }
}

fn row(name: &str, s: &Score) -> String {
    format!(
        "{name:<26} {:>5} {:>6}  recall {:>5.1}% ({}/{})  roles {:>5.1}% ({}/{})  names {:>5.1}% ({}/{})",
        s.pages,
        s.nodes,
        pct(s.hits, s.nodes),
        s.hits,
        s.nodes,
        pct(s.roles_ok, s.matched),
        s.roles_ok,
        s.matched,
        pct(s.names_ok, s.matched),
        s.names_ok,
        s.matched
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_widgets_agree_with_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = build_corpus(dir.path());
    let sources: std::collections::BTreeSet<&str> = corpus.iter().map(|p| p.source).collect();
    assert!(corpus.len() >= 40, "{} pages", corpus.len());
    assert!(sources.len() >= 5, "{sources:?}");

    let server = FixtureServer::serve(dir.path().to_path_buf());
    let browser = Browser::launch(LaunchOptions {
        extra_args: offline_args(),
        navigation_timeout: Duration::from_secs(45),
        ..LaunchOptions::default()
    })
    .await
    .expect("launch");
    let page = browser.new_page().await.expect("page");
    cdp(&page, "Accessibility.enable", json!({}))
        .await
        .expect("Accessibility.enable");

    let mut per_source: BTreeMap<&str, Score> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut failed = Vec::new();
    let run = tokio::time::timeout(Duration::from_secs(900), async {
        for p in &corpus {
            match score_page(&page, &server.url(&p.path), &mut misses, &p.path).await {
                Ok(s) => per_source.entry(p.source).or_default().add(&s),
                Err(e) => failed.push(format!("{}: {}", p.path, clip(&e, 200))),
            }
        }
    })
    .await;
    browser.close().await.expect("close");
    run.expect("the conformance run did not finish within 15 minutes");

    let mut total = Score::default();
    println!("{:<26} {:>5} {:>6}", "source", "pages", "nodes");
    for (source, s) in &per_source {
        println!("{}", row(source, s));
        total.add(s);
    }
    println!("{}", row("TOTAL", &total));
    println!("\ndisagreements and misses ({}):", misses.len());
    for m in &misses {
        println!("  {m}");
    }
    assert!(failed.is_empty(), "pages failed: {failed:?}");
    let (recall, roles, names) = (
        pct(total.hits, total.nodes),
        pct(total.roles_ok, total.matched),
        pct(total.names_ok, total.matched),
    );
    assert!(total.nodes > 200, "only {} interactive nodes compared", total.nodes);
    assert!(recall >= 99.0, "recall {recall:.1}% is below 99%");
    assert!(roles >= 99.0, "role agreement {roles:.1}% is below 99%");
    assert!(names >= 99.0, "name agreement {names:.1}% is below 99%");
}
