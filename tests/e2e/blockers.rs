//! removeBlocker end to end: hand-written blocker pages and pages built on
//! real npm consent and modal libraries, served on 127.0.0.1, in Chromium.
//! Effects are checked through page state (page variables set by the page's
//! own handlers), never through the tool's own claim.

use std::time::{Duration, Instant};

use crate::support::*;
use serde_json::Value;
use sightline::{Browser, ConsentPolicy, LaunchOptions, Page, RemoveBlockerOptions, RemoveBlockerResult};

async fn js(page: &Page, expr: &str) -> Value {
    page.evaluate(expr)
        .await
        .unwrap_or_else(|e| panic!("evaluate {expr}: {e}"))
}

async fn blocker_present(page: &Page) -> bool {
    js(page, "!!document.getElementById('blocker') && getComputedStyle(document.getElementById('blocker')).display !== 'none' && document.getElementById('blocker').getBoundingClientRect().height > 0").await == Value::Bool(true)
}

/// Lets library pages finish opening their dialogs (they animate in).
async fn open(page: &Page, url: &str) {
    page.goto(url).await.unwrap_or_else(|e| panic!("goto {url}: {e}"));
    tokio::time::sleep(Duration::from_millis(600)).await;
}

struct Case {
    page: &'static str,
    opts: RemoveBlockerOptions,
    /// Expected (removed, method).
    expect: (bool, &'static str),
    /// A JS expression that must be true afterwards.
    check: &'static str,
}

fn default() -> RemoveBlockerOptions {
    RemoveBlockerOptions::default()
}

fn aggressive() -> RemoveBlockerOptions {
    RemoveBlockerOptions {
        aggressive: true,
        ..Default::default()
    }
}

fn accept() -> RemoveBlockerOptions {
    RemoveBlockerOptions {
        consent: ConsentPolicy::Accept,
        ..Default::default()
    }
}

fn reject() -> RemoveBlockerOptions {
    RemoveBlockerOptions {
        consent: ConsentPolicy::Reject,
        ..Default::default()
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            page: "dialog-close.html",
            opts: default(),
            expect: (true, "click"),
            check: "!document.getElementById('blocker') && !window.signups",
        },
        Case {
            page: "cookie-fullscreen.html",
            opts: default(),
            expect: (false, "none"),
            check: "!!document.getElementById('blocker')",
        },
        Case {
            page: "cookie-fullscreen.html",
            opts: aggressive(),
            expect: (true, "remove"),
            check: "!document.getElementById('blocker') && window.escSeen === 1",
        },
        Case {
            page: "tooltip.html",
            opts: default(),
            expect: (false, "none"),
            check: "!!document.getElementById('blocker')",
        },
        Case {
            page: "promo-icon.html",
            opts: default(),
            expect: (true, "click"),
            check: "!document.getElementById('blocker') && !window.subscribed",
        },
        Case {
            page: "esc-only.html",
            opts: default(),
            expect: (true, "esc"),
            check: "!document.getElementById('blocker')",
        },
        Case {
            page: "login-wall.html",
            opts: default(),
            expect: (false, "none"),
            check: "!!document.getElementById('blocker')",
        },
        Case {
            page: "login-wall.html",
            opts: aggressive(),
            expect: (true, "click"),
            check: "!document.getElementById('blocker')",
        },
        Case {
            page: "no-blocker.html",
            opts: default(),
            expect: (false, "none"),
            check: "document.querySelectorAll('*').length > 5",
        },
        Case {
            page: "scroll-lock.html",
            opts: aggressive(),
            expect: (true, "remove"),
            check: "(() => { window.scrollTo(0, 800); return window.scrollY > 0 && !window.joined; })()",
        },
        Case {
            page: "consent-reject.html",
            opts: reject(),
            expect: (true, "click"),
            check: "window.consent === 'reject'",
        },
        Case {
            page: "consent-reject.html",
            opts: default(),
            expect: (false, "none"),
            check: "window.consent === undefined",
        },
        // An empty layer over the page (a stuck loading screen) goes at once,
        // even conservatively: nothing in it to read, answer or lose.
        Case {
            page: "empty-overlay.html",
            opts: default(),
            expect: (true, "remove"),
            check: "!document.getElementById('blocker') && !window.layerClicks && !window.bought",
        },
        // Real consent libraries, opened through their own APIs.
        Case {
            page: "lib-vanilla-cookieconsent.html",
            opts: reject(),
            expect: (true, "click"),
            check: "window.consentCategories === 'necessary'",
        },
        Case {
            page: "lib-osano-cookieconsent.html",
            opts: reject(),
            expect: (true, "click"),
            check: "window.consentStatus === 'deny'",
        },
        Case {
            page: "lib-klaro.html",
            opts: reject(),
            expect: (true, "click"),
            check: "/analytics=false/.test(window.klaroConsent || '') && !/=true/.test(window.klaroConsent || '')",
        },
        // Real modal libraries.
        Case {
            page: "lib-bootstrap-promo.html",
            opts: default(),
            expect: (true, "click"),
            check: "!window.subscribed && !document.querySelector('.modal.show')",
        },
        Case {
            page: "lib-micromodal-promo.html",
            opts: default(),
            expect: (true, "click"),
            check: "!window.joined && !document.querySelector('.modal.is-open')",
        },
        Case {
            page: "lib-tingle.html",
            opts: default(),
            expect: (true, "click"),
            check: "!window.ordered && !document.querySelector('.tingle-modal--visible')",
        },
        // Issue 27: more real libraries, their buttons as people phrase
        // them ("✗ Deny all cookies", "Only accept technically necessary
        // cookies", "Decline").
        Case {
            page: "lib-orejime.html",
            opts: reject(),
            expect: (true, "click"),
            check: "/eu-consent=/.test(document.cookie) && !/true/.test(decodeURIComponent(document.cookie))",
        },
        Case {
            page: "lib-cookies-eu-banner.html",
            opts: reject(),
            expect: (true, "click"),
            check: "/hasConsent=false/.test(document.cookie) && !window.tracked",
        },
        Case {
            page: "lib-cookie-consent-js.html",
            opts: reject(),
            expect: (true, "click"),
            check: "window.cookieConsent.trackingAllowed() === false && /cookie-consent-tracking-allowed=false/.test(document.cookie)",
        },
        Case {
            page: "lib-vex-promo.html",
            opts: default(),
            expect: (true, "click"),
            check: "!window.subscribed && !document.querySelector('.vex')",
        },
        Case {
            page: "lib-alertify-promo.html",
            opts: default(),
            expect: (true, "click"),
            check: "!window.subscribed && !document.querySelector('.alertify:not(.ajs-hidden)')",
        },
    ]
}

fn is_false_removal(c: &Case, r: &RemoveBlockerResult) -> bool {
    r.removed && !c.expect.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocker_fixtures_are_handled_conservatively() {
    with_timeout("removeBlocker fixtures", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        let audit = tempfile::NamedTempFile::new().unwrap();
        let mut failures = Vec::new();
        let (mut correct, mut false_removals) = (0, 0);
        let mut times = Vec::new();
        let all = cases();
        for c in &all {
            open(&page, &server.url(&format!("blockers/{}", c.page))).await;
            let mut opts = c.opts.clone();
            opts.audit_file = Some(audit.path().to_path_buf());
            let t0 = Instant::now();
            let r = page.remove_blocker(&opts).await;
            times.push(t0.elapsed().as_secs_f64() * 1000.0);
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{}: error {e}", c.page));
                    continue;
                }
            };
            if is_false_removal(c, &r) {
                false_removals += 1;
            }
            let checked = js(&page, c.check).await == Value::Bool(true);
            if (r.removed, r.method.as_str()) == c.expect && checked {
                correct += 1;
            } else {
                failures.push(format!(
                    "{} ({:?}): got {r:?}, check `{}` = {checked}",
                    c.page, c.opts, c.check
                ));
            }
        }
        // Conservative refusals explain themselves.
        open(&page, &server.url("blockers/login-wall.html")).await;
        let r = page.remove_blocker(&default()).await.unwrap();
        assert_eq!(
            r.note.as_deref(),
            Some("login dialog left alone (conservative mode)"),
            "{r:?}"
        );
        assert!(blocker_present(&page).await);
        open(&page, &server.url("blockers/cookie-fullscreen.html")).await;
        let r = page.remove_blocker(&default()).await.unwrap();
        assert_eq!(
            r.note.as_deref(),
            Some("consent dialog left alone (conservative mode)"),
            "{r:?}"
        );
        assert_eq!(r.kind, Some(sightline::BlockerKind::Consent));

        // A layer no one sees is nothing to close: not "closed with Escape"
        // because it reads as hidden before and after.
        open(&page, &server.url("blockers/invisible-layer.html")).await;
        let r = page.remove_blocker(&default()).await.unwrap();
        assert_eq!((r.removed, r.method.as_str()), (false, "none"), "{r:?}");
        assert!(r.note.as_deref().unwrap_or("").contains("is not visible"), "{r:?}");

        // A page without a blocker: unchanged, and fast on a warm engine.
        open(&page, &server.url("blockers/no-blocker.html")).await;
        let before = js(&page, "document.documentElement.outerHTML").await;
        let mut none_times = Vec::new();
        for _ in 0..5 {
            let t0 = Instant::now();
            let r = page.remove_blocker(&default()).await.unwrap();
            none_times.push(t0.elapsed().as_secs_f64() * 1000.0);
            assert_eq!((r.removed, r.method.as_str()), (false, "none"));
        }
        assert_eq!(
            js(&page, "document.documentElement.outerHTML").await,
            before,
            "the page changed"
        );

        // The audit trail has one JSON line per attempt, with the required fields.
        let lines: Vec<Value> = std::fs::read_to_string(audit.path())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).expect("audit line is JSON"))
            .collect();
        assert_eq!(
            lines.len(),
            all.len() - failures.iter().filter(|f| f.contains(": error")).count()
        );
        for l in &lines {
            for k in ["timestamp", "url", "selector", "kind", "method", "result", "reason"] {
                assert!(l.get(k).is_some(), "audit line lacks {k}: {l}");
            }
        }

        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        none_times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = |v: &[f64]| v[v.len() / 2];
        println!(
            "removeBlocker figures: {correct}/{} fixtures handled correctly, {false_removals} false removals, \
             median {:.0} ms per call, {:.1} ms on a page without a blocker (warm, median of 5)",
            all.len(),
            median(&times),
            median(&none_times)
        );
        browser.close().await.expect("close");
        assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
        assert_eq!(false_removals, 0);
    })
    .await;
}

/// A consent manager serving its dialog from another origin, in an iframe
/// over the page: the page's layer holds only the frame, so the kind and
/// the buttons come from the frame's document, and the consent button is
/// clicked there. The page's own handler records the choice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consent_dialog_in_a_cross_origin_iframe_is_answered_in_its_frame() {
    with_timeout("framed consent", async {
        let (server, cross) = FixtureServer::pair();
        let url = server.url(&format!("blockers/framed-dialog.html?xport={}", cross.port));
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");

        // Conservative: a consent dialog is left alone, and named as one.
        open(&page, &url).await;
        let r = page.remove_blocker(&default()).await.unwrap();
        assert_eq!(
            (r.removed, r.kind),
            (false, Some(sightline::BlockerKind::Consent)),
            "{r:?}"
        );
        assert_eq!(
            r.note.as_deref(),
            Some("consent dialog left alone (conservative mode)"),
            "{r:?}"
        );
        assert!(blocker_present(&page).await);
        let scan = page.scan_blockers().await.unwrap();
        let c = &scan.candidates[0];
        assert_eq!(c.frame.as_deref(), Some("#sp_message_iframe_1"), "{c:?}");
        assert!(c.evidence.iter().any(|e| e == "privacy"), "the frame's words: {c:?}");
        assert_eq!(c.reject.as_ref().map(|b| b.text.as_str()), Some("Reject all"), "{c:?}");

        for (opts, choice) in [(reject(), "reject"), (accept(), "accept")] {
            open(&page, &url).await;
            let r = page.remove_blocker(&opts).await.unwrap();
            assert_eq!((r.removed, r.method.as_str()), (true, "click"), "{r:?}");
            let note = r.note.clone().unwrap_or_default();
            assert!(note.contains("in the frame #sp_message_iframe_1"), "{r:?}");
            assert_eq!(js(&page, "window.consent").await, Value::from(choice), "{r:?}");
            assert!(!blocker_present(&page).await);
        }
        // A sticky ad slot showing only an iframe is not a dialog: left alone.
        open(
            &page,
            &server.url(&format!("blockers/framed-ad.html?xport={}", cross.port)),
        )
        .await;
        let r = page.remove_blocker(&aggressive()).await.unwrap();
        assert_eq!((r.removed, r.method.as_str()), (false, "none"), "{r:?}");
        assert!(
            r.note
                .as_deref()
                .unwrap_or("")
                .contains("only shows a frame, off the centre, and asks nothing"),
            "{r:?}"
        );
        assert_eq!(js(&page, "!!document.getElementById('ad')").await, Value::Bool(true));
        browser.close().await.expect("close");
    })
    .await;
}

/// Triggers: an action whose target is covered runs removeBlocker once and
/// retries; a configuration can run it after every navigation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn covered_actions_and_navigation_trigger_remove_blocker() {
    with_timeout("removeBlocker triggers", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");

        open(&page, &server.url("blockers/dialog-close.html")).await;
        let click = sightline::Action::new("click", "#buy", &[]);
        let plain = page.perform_once(&click, None).await.expect_err("the Buy button is covered");
        assert!(plain.to_string().contains("covered"), "{plain}");
        assert_eq!(js(&page, "window.bought === undefined").await, Value::Bool(true));
        let done = page.perform(&click, None).await.expect("unblocked, then clicked");
        assert!(done.notes.iter().any(|n| n.contains("covered it: closed it first")), "{done:?}");
        assert_eq!(js(&page, "window.bought").await, Value::from(1));
        assert_eq!(js(&page, "window.signups === undefined").await, Value::Bool(true));

        // The same through an empty, transparent layer: the click first lands
        // on the layer, which removeBlocker then takes away.
        open(&page, &server.url("blockers/empty-overlay.html")).await;
        let plain = page.perform_once(&click, None).await.expect_err("the Buy button is covered");
        assert!(plain.to_string().contains("covered"), "{plain}");
        let done = page.perform(&click, None).await.expect("unblocked, then clicked");
        assert!(done.notes.iter().any(|n| n.contains("covered it: closed it first")), "{done:?}");
        assert_eq!(js(&page, "[window.bought, window.layerClicks ?? 0]").await, serde_json::json!([1, 0]));

        // Proactively after navigation, when the configuration says so (here
        // through a domain override for 127.0.0.1).
        let config = sightline::Config::parse(
            "[remove_blocker]\nafter_navigation = false\n[remove_blocker.domain_overrides.\"127.0.0.1\"]\nafter_navigation = true\n",
        )
        .unwrap();
        page.set_blocker_config(config.remove_blocker.clone());
        page.goto(&server.url("blockers/promo-icon.html")).await.expect("goto");
        assert!(!blocker_present(&page).await, "the promo was closed after navigating");
        assert_eq!(js(&page, "window.subscribed === undefined").await, Value::Bool(true));

        // A login wall is still left alone by the proactive run.
        page.goto(&server.url("blockers/login-wall.html")).await.expect("goto");
        assert!(blocker_present(&page).await);
        browser.close().await.expect("close");
    })
    .await;
}

/// `sightline unblock`: flags, `--json`, the configuration file and its errors.
#[test]
fn unblock_cli() {
    let server = FixtureServer::start();
    // `unblock --json` on a page: its one JSON object, after a close by click.
    let clicked_shut = |page: &str| -> Value {
        let out = run_cli(&["unblock", &server.url(page), "--json"]);
        out.assert_success();
        let r: Value = serde_json::from_str(out.stdout.trim()).expect("one JSON object");
        assert_eq!(
            (r["removed"].as_bool(), r["method"].as_str()),
            (Some(true), Some("click")),
            "{r}"
        );
        r
    };
    let dialog = server.url("blockers/dialog-close.html");
    let r = clicked_shut("blockers/dialog-close.html");
    assert!(r["kind"].is_string() && r["selector"].is_string(), "{r}");

    // A close button that navigates: the dialog went with its document.
    let r = clicked_shut("blockers/close-navigates.html");
    assert!(r["note"].as_str().is_some_and(|n| n.ends_with("detached")), "{r}");

    // Conservative by default, with a note; --aggressive overrides.
    let wall = server.url("blockers/login-wall.html");
    let out = run_cli(&["unblock", &wall]);
    out.assert_success();
    assert!(out.stdout.starts_with("nothing removed · login · "), "{}", out.stdout);
    assert!(
        out.stdout.contains("login dialog left alone (conservative mode)"),
        "{}",
        out.stdout
    );
    let out = run_cli(&["unblock", &wall, "--aggressive", "--json"]);
    out.assert_success();
    assert!(out.stdout.contains("\"removed\":true"), "{}", out.stdout);
    // An allow-listed selector that is no CSS would never match: said, and
    // the page left as it was.
    let out = run_cli(&["unblock", &wall, "--allow", "<<<"]);
    let line = out.assert_one_line_error();
    assert!(
        line.contains("holds \"<<<\", which is not a valid CSS selector"),
        "{line}"
    );

    // --consent reject clicks "Reject all" (the page records the choice).
    let consent = server.url("blockers/consent-reject.html");
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let out = run_cli(&[
        "unblock",
        &consent,
        "--consent",
        "reject",
        "--json",
        "--audit-file",
        audit.to_str().unwrap(),
    ]);
    out.assert_success();
    assert!(out.stdout.contains("\"method\":\"click\""), "{}", out.stdout);
    let line: Value = serde_json::from_str(std::fs::read_to_string(&audit).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(line["kind"], "consent");
    assert_eq!(line["result"], "removed");

    // A configuration file that disables the tool for this host.
    let cfg = dir.path().join("sightline.toml");
    std::fs::write(
        &cfg,
        "[remove_blocker.domain_overrides.\"127.0.0.1\"]\nenabled = false\n",
    )
    .unwrap();
    let out = run_cli(&["unblock", &dialog, "--config", cfg.to_str().unwrap()]);
    out.assert_success();
    assert!(out.stdout.contains("disabled for this site"), "{}", out.stdout);

    // A broken configuration is a one-line error, before any browser starts.
    std::fs::write(&cfg, "[remove_blocker]\nconsent = \"maybe\"\n").unwrap();
    let out = run_cli(&["unblock", &dialog, "--config", cfg.to_str().unwrap()]);
    let line = out.assert_one_line_error();
    assert!(
        line.contains("invalid configuration") && line.contains("maybe"),
        "{line}"
    );
}

/// `sightline run`: a step whose target is covered by a pop-up triggers
/// removeBlocker once, then succeeds.
#[test]
fn run_unblocks_covered_steps() {
    let server = FixtureServer::start();
    let dir = tempfile::tempdir().unwrap();
    let steps = dir.path().join("steps.json");
    std::fs::write(&steps, r##"[{"method":"click","selector":"#buy"}]"##).unwrap();
    let out = run_cli(&[
        "run",
        &server.url("blockers/dialog-close.html"),
        "--steps",
        steps.to_str().unwrap(),
        "--json",
    ]);
    out.assert_success();
    let r: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(r["steps"][0]["ok"], true, "{r}");
    let notes = r["steps"][0]["notes"].to_string();
    assert!(notes.contains("covered it: closed it first"), "{r}");
}
