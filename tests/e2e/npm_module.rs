//! The npm module (js-glue/, packed by scripts/build-npm.sh) in a user's
//! Playwright or Puppeteer script (tests/npm/npm-module.mjs), against
//! Debian's Chromium on fixture pages: its snapshots are the driver's
//! (`sightline snapshot --json`) to the character, removeBlocker clears the
//! promo with the driver's result and audit record, refs act on the right
//! elements through the user's own library, and a strict CSP works (the JS
//! build) or gives the documented error (`jsBuild: false`); and its typings
//! compile a strict TypeScript user's script.

use serde_json::{json, Value};
use sightline::protocol::ViewportInfo;

use crate::support::packages::{node_project, repo_root, run_node};
use crate::support::world::offline_args;
use crate::support::{run_cli, snapshot_json, FixtureServer};

/// Fixture pages whose snapshots must match the driver's: (name, path,
/// selector the page shows once it has reached the state the driver's
/// settle waits for).
const PAGES: &[(&str, &str, Option<&str>)] = &[
    ("shop", "shop/index.html", Some("#promo")),
    ("modal", "modals/aria-checkout.html", None),
    ("iframe_modal", "modals/iframe-modal.html", None),
    ("iframes", "frames.html?xport={xport}", None),
    ("shadow", "shadow.html", None),
];

/// Runs the script for one library and checks everything it saw.
fn check_library(library: &str) {
    let (server, cross) = FixtureServer::pair();
    let xport = cross.port.to_string();
    let dir = tempfile::tempdir().unwrap();
    let project = node_project(dir.path());
    let snapshots: serde_json::Map<String, Value> = PAGES
        .iter()
        .map(|(name, path, wait)| (name.to_string(), json!({"path": path, "waitFor": wait})))
        .collect();
    // Offline, with one more site on 127.0.0.1 (ads.test), which a user's
    // browser runs in a process of its own (the busy-frame scenario).
    let chrome_args: Vec<String> = offline_args()
        .iter()
        .map(|a| match a.split_once('=') {
            Some(("host-resolver-rules", rules)) => format!("--host-resolver-rules=MAP ads.test 127.0.0.1, {rules}"),
            Some(("proxy-bypass-list", list)) => format!("--proxy-bypass-list={list};ads.test"),
            _ => format!("--{a}"),
        })
        .collect();
    // Next to its node_modules: ES modules resolve packages from the script's own directory.
    let script = project.join("npm-module.mjs");
    std::fs::copy(repo_root().join("tests/npm/npm-module.mjs"), &script).unwrap();
    let seen = run_node(
        &project,
        &script,
        &json!({
            "library": library,
            "base": server.url(""),
            "xport": xport.parse::<u16>().unwrap(),
            "chromeArgs": chrome_args,
            "snapshots": snapshots,
            "viewportPage": "shop/list.html",
            "promoPage": "blockers/promo-icon.html",
        }),
    );

    for (name, path, _) in PAGES {
        let url = server.url(&path.replace("{xport}", &xport));
        // As the library's side: Playwright's and Puppeteer's goto wait for
        // the load event, so every frame has loaded. The driver's own rule
        // may answer sooner and mark a frame still loading `[loading]`.
        let (driver, _) = snapshot_json(&url, &["--wait-until", "load"]);
        same_snapshot(&format!("{library} {name}"), &seen["snapshots"][name], &driver);
    }
    let (driver, _) = snapshot_json(&server.url("shop/list.html"), &["--mode", "viewport"]);
    same_snapshot(&format!("{library} viewport"), &seen["viewportSnapshot"], &driver);
    // A busy frame of another site is left out, said, within its time.
    let busy = &seen["busyFrame"];
    let tree = busy["tree"].as_str().unwrap();
    assert!(
        busy["ms"].as_u64().unwrap() < 9000,
        "{library}: waited for the busy frame: {busy}"
    );
    assert!(tree.contains("button \"Read more\""), "{library}: {tree}");
    assert!(
        tree.contains("busy-frame.html was left out: its page did not answer within 5 s"),
        "{library}: {tree}"
    );
    // A ref of an earlier full snapshot, not in the viewport one.
    assert_eq!(seen["farInViewport"], false, "{library}");
    assert_eq!(seen["farClicked"], "Button 10", "{library}");
    let never = seen["neverGiven"].as_str().unwrap();
    assert!(never.contains("unknown ref e999"), "{library}: {never}");
    let allow = seen["allowErrors"].as_array().unwrap();
    assert!(
        allow[0]
            .as_str()
            .unwrap()
            .starts_with("TypeError: allowedSelectors must be an array"),
        "{library}: {allow:?}"
    );
    assert!(
        allow[1]
            .as_str()
            .unwrap()
            .contains("\"<<<\" is not a valid CSS selector"),
        "{library}: {allow:?}"
    );
    assert_eq!(seen["consentKept"], true, "{library}");

    // removeBlocker: the driver's result and audit record, and the promo is gone.
    let unblocked = run_cli(&["unblock", &server.url("blockers/promo-icon.html"), "--json"]);
    unblocked.assert_success();
    let driver_result: Value = serde_json::from_str(unblocked.stdout.trim()).unwrap();
    assert_eq!(
        seen["removeBlocker"]["result"], driver_result,
        "{library}: removeBlocker"
    );
    assert_eq!(seen["promoGone"], true, "{library}: the promo is still there");
    assert!(
        seen["unwritableAudit"].as_str().is_some_and(|m| m.contains("ENOENT")),
        "{library}: {}",
        seen["unwritableAudit"]
    );
    assert_eq!(
        seen["promoAfterUnwritableAudit"], true,
        "{library}: closed before the record failed"
    );
    let audit = &seen["removeBlocker"]["audit"];
    for (field, want) in [
        ("url", json!(server.url("blockers/promo-icon.html"))),
        ("selector", driver_result["selector"].clone()),
        ("kind", driver_result["kind"].clone()),
        ("method", driver_result["method"].clone()),
        ("result", json!("removed")),
        ("reason", driver_result["note"].clone()),
    ] {
        assert_eq!(audit[field], want, "{library}: audit {field}: {audit}");
    }
    assert!(audit["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')), "{audit}");
    assert!(!seen["afterRemoveBlocker"].as_str().unwrap().contains("15% off"));
    let invisible = run_cli(&["unblock", &server.url("blockers/invisible-layer.html"), "--json"]);
    let driver_result: Value = serde_json::from_str(invisible.stdout.trim()).unwrap();
    assert_eq!(driver_result["removed"], false, "{driver_result}");
    assert_eq!(
        seen["invisibleLayer"], driver_result,
        "{library}: removeBlocker on a layer no one sees"
    );

    // Snapshots of a page reloading itself: taken again, or a clear error.
    let during = &seen["duringReloads"];
    for e in during["errors"].as_array().unwrap() {
        assert!(
            e.as_str()
                .unwrap()
                .starts_with("The page navigated while its snapshot was taken"),
            "{library}: {during}"
        );
    }
    assert!(during["taken"].as_u64().unwrap() >= 10, "{library}: {during}");
    assert!(
        seen["afterReloads"]
            .as_str()
            .unwrap()
            .contains("A page that reloads itself"),
        "{library}"
    );

    let framed = server.url(&format!("blockers/framed-dialog.html?xport={xport}"));
    let framed = run_cli(&["unblock", &framed, "--consent", "reject", "--json"]);
    let driver_result: Value = serde_json::from_str(framed.stdout.trim()).unwrap();
    assert_eq!(driver_result["method"], "click", "{driver_result}");
    assert_eq!(
        seen["framedConsent"], driver_result,
        "{library}: removeBlocker on a consent dialog in a cross-origin iframe"
    );
    assert_eq!(seen["framedConsentChoice"], "reject", "{library}");

    // Refs acted on with the user's own library: in a shadow root, in an iframe.
    assert_eq!(
        seen["subscribed"], "ada@example.com",
        "{library}: shadow-root field and button"
    );
    assert!(seen["payRef"].as_str().unwrap().starts_with('f'), "{}", seen["payRef"]);
    assert_eq!(
        seen["paid"], "1",
        "{library}: the button in the iframe was clicked once"
    );
    assert_eq!(seen["topClicks"], 0, "{library}: nothing at the top level was clicked");
    assert!(
        seen["badSnapshot"].as_str().is_some_and(|m| m.contains("viewpoint")),
        "{library}: {}",
        seen["badSnapshot"]
    );
    assert_eq!(
        seen["paidAfterBadSnapshot"], "2",
        "{library}: the frame's ref still held after a snapshot failed"
    );

    // A ref whose element went with a reload fails; it clicks nothing else.
    assert!(
        seen["staleRef"]
            .as_str()
            .is_some_and(|m| m.contains("no longer on the page")),
        "{library}: {}",
        seen["staleRef"]
    );
    assert_eq!(seen["clickedAfterReload"], Value::Null, "{library}");
    assert!(
        seen["refOfPageLeft"]
            .as_str()
            .is_some_and(|m| m.contains("no longer on the page")),
        "{library}: {}",
        seen["refOfPageLeft"]
    );
    assert_eq!(
        seen["consentAfterStaleRef"],
        Value::Null,
        "{library}: the next page's e1 was clicked"
    );
    // A blocker scan before the first snapshot numbers refs in document order.
    let tree = seen["treeAfterFirstScan"].as_str().unwrap_or_default();
    let numbers: Vec<u32> = tree
        .lines()
        .filter_map(|l| l.split_once("[ref=e")?.1.split_once(']')?.0.parse().ok())
        .collect();
    assert!(
        numbers.len() >= 3 && numbers.windows(2).all(|w| w[0] < w[1]),
        "{library}: refs out of document order after removeBlocker:\n{tree}"
    );
    if library == "playwright" {
        assert_eq!(seen["locatorType"], "Locator");
        assert_eq!(
            seen["countAfterReload"], 1,
            "count() answers about what the selector finds"
        );
        assert!(
            seen["chainedAfterReload"]
                .as_str()
                .is_some_and(|m| m.contains("no longer on the page")),
            "{}",
            seen["chainedAfterReload"]
        );
        assert_eq!(seen["clickedAfterChained"], Value::Null);
        assert_eq!(seen["lightClicked"], "light");
    }
    assert_eq!(seen["shadowClicked"], "Before slot", "{library}");
    if library == "playwright" {
        assert_eq!(seen["shadowFirstClicked"], "Before slot", "{library}");
    }
    let promo = &seen["shadowPromo"]["result"];
    assert_eq!(
        seen["shadowPromoTitle"], "Shadow promo",
        "{library}: the slotted Subscribe was clicked: {promo}"
    );
    assert_eq!(
        (&promo["removed"], &promo["method"]),
        (&json!(true), &json!("click")),
        "{library}: {promo}"
    );

    // Strict CSP: the JS build by default, the documented error without it.
    assert_eq!(seen["cspBuild"], "js", "{library}");
    let (driver, _) = snapshot_json(&server.url("csp.html"), &[]);
    same_snapshot(&format!("{library} csp"), &seen["csp"], &driver);
    let bad: Vec<&str> = seen["badOptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        bad,
        [
            "Error: unknown obscured mode \"x\" (outline, mark or drop)",
            "TypeError: snapshot() takes an options object, or nothing",
            "TypeError: snapshot(): the viewport width must be a whole number of pixels above 0 (got 0)",
            "TypeError: snapshot(): scrollY must be a number of pixels (got NaN)",
        ],
        "{library}"
    );
    assert_eq!(seen["nullOptions"], "Short page", "{library}");
    let framed = seen["cspFrameTree"].as_str().unwrap();
    assert!(
        framed.contains("csp.html was left out: its Content-Security-Policy refuses WebAssembly, and attach() was given jsBuild: false.")
            && !framed.contains("bypassCSP"),
        "{library}: {framed}"
    );
    let err = &seen["cspError"];
    assert_eq!(seen["sameObject"], true, "{library}");
    assert_eq!(err["isCspError"], true, "{library}: {err}");
    let message = err["message"].as_str().unwrap();
    for needle in ["bypassCSP: true", "page.setBypassCSP(true)", "wasm-unsafe-eval"] {
        assert!(message.contains(needle), "{library}: {needle:?} missing from {message}");
    }

    // A page that replaced built-ins: a clear error, not the page's own.
    let layout = seen["layoutReplaced"].as_str().unwrap();
    assert!(
        layout.starts_with("# This page replaced built-ins the engine reads it with in its own world (Element.prototype.getBoundingClientRect)"),
        "{library}: {layout}"
    );
    // (The driver reads it from its own world, where nothing was replaced.)
    let (driver, _) = snapshot_json(&server.url("hostile-layout.html"), &[]);
    assert!(
        driver["tree"].as_str().unwrap().contains("button \"Buy now\" [ref="),
        "{driver}"
    );
    let err = &seen["hostileError"];
    assert_eq!(err["isHostile"], true, "{library}: {err}");
    let replaced = err["replaced"].as_str().unwrap();
    assert!(
        replaced.contains("Array.prototype.push") && replaced.contains("JSON.stringify"),
        "{library}: {err}"
    );
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("read pages from an isolated world"),
        "{library}: {err}"
    );
}

/// The same text, refs, viewport and modal (timings differ).
fn same_snapshot(what: &str, ours: &Value, driver: &Value) {
    assert_eq!(
        ours["tree"].as_str().unwrap_or_default(),
        driver["tree"].as_str().unwrap(),
        "{what}: the tree differs from the driver's"
    );
    for field in ["refs", "modal", "url", "title"] {
        assert_eq!(ours[field], driver[field], "{what}: {field} differs from the driver's");
    }
    // Numbers as numbers: JavaScript writes 720 where serde writes 720.0.
    let viewport = |v: &Value| serde_json::from_value::<ViewportInfo>(v["viewport"].clone()).expect("a viewport");
    assert_eq!(
        viewport(ours),
        viewport(driver),
        "{what}: the viewport differs from the driver's"
    );
}

#[test]
fn playwright_user_gets_the_drivers_snapshot_and_remove_blocker() {
    check_library("playwright");
}

#[test]
fn puppeteer_user_gets_the_drivers_snapshot_and_remove_blocker() {
    check_library("puppeteer");
}

/// The typings, as a TypeScript user meets them (strict, `nodenext`,
/// tests/npm/types-check.ts): refs come back as the page's own library's
/// Locator and handle types, and misuse (a Locator method that doesn't
/// exist, a wrong mode or blocker kind, something that is no page,
/// `locator()` on Puppeteer) fails to compile.
#[test]
fn typescript_users_get_their_librarys_types_and_misuse_fails_to_compile() {
    let dir = tempfile::tempdir().unwrap();
    let project = node_project(dir.path());
    let npm = repo_root().join("tests/npm");
    std::fs::copy(npm.join("types-check.ts"), project.join("types-check.ts")).unwrap();
    std::fs::copy(npm.join("tsconfig.types-check.json"), project.join("tsconfig.json")).unwrap();
    let tsc = npm.join("node_modules/typescript/bin/tsc");
    assert!(
        tsc.is_file(),
        "TypeScript is missing from tests/npm/node_modules: run scripts/setup.sh"
    );
    let mut cmd = std::process::Command::new("node");
    cmd.arg(&tsc).arg("-p").arg(&project).current_dir(&project);
    let out = crate::support::run_with_limit(cmd, "tsc");
    assert!(
        out.status.success(),
        "tsc found errors (an unused @ts-expect-error is a misuse the typings let through):\n{}{}",
        out.stdout,
        out.stderr
    );
}
