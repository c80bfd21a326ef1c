//! Modal-aware occlusion and covered-element truth, end to end: fixture pages
//! (hand-written, and built on real npm modal libraries opened through their
//! own APIs) served on 127.0.0.1, snapshotted by the real binary in Chromium.

use crate::support::*;
use sightline::protocol::SnapshotResult;

const MODAL_NOTE: &str = "# A modal is open. Only modal elements have refs.";

/// Every ref in the tree lies inside the `[modal]` node, the modal note is in
/// the header (after the page-position lines), and the JSON agrees.
fn assert_only_modal_has_refs(snap: &SnapshotResult, kind: &str) -> usize {
    let tree = &snap.tree;
    assert_refs_consistent(snap);
    let lines: Vec<&str> = tree.lines().collect();
    let note = lines
        .iter()
        .position(|l| *l == MODAL_NOTE)
        .unwrap_or_else(|| panic!("no modal note:\n{tree}"));
    let position = lines.iter().position(|l| l.starts_with("# Page position:")).unwrap();
    assert!(
        position < note,
        "the modal note comes after the page-position lines:\n{tree}"
    );
    let modal_idx = line_index(tree, "[modal]");
    let mut refs = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.contains("[ref=") {
            refs += 1;
            assert!(
                i == modal_idx || ancestors(tree, i).contains(&lines[modal_idx]),
                "ref outside the modal: {line:?}\n{tree}"
            );
            assert!(!line.contains("[obscured]"), "{line}");
        }
    }
    assert!(refs > 0, "the modal has no refs:\n{tree}");
    let modal = snap.modal.as_ref().expect("modal in JSON");
    assert_eq!(modal.kind, kind);
    assert!(!modal.selector.is_empty());
    for (_, r) in snap.refs.iter() {
        assert!(!r.obscured);
    }
    refs
}

/// These tests check every obscured line, so they ask for `mark` (the
/// default outlines the page behind a modal: see
/// `the_default_outlines_the_page_behind_the_modal`).
const MARK: &[&str] = &["--obscured", "mark"];

/// The default: the page behind is outlined (landmarks, headings, counts),
/// the modal is the same as in `mark`, and so are the refs.
#[test]
fn the_default_outlines_the_page_behind_the_modal() {
    let server = FixtureServer::start();
    let url = server.url("modals/aria-checkout.html");
    let (_, outline) = snapshot_json(&url, &[]);
    let (_, marked) = snapshot_json(&url, MARK);
    assert_only_modal_has_refs(&outline, "aria");
    let tree = &outline.tree;
    assert!(tree.contains("hidden behind the modal"), "{tree}");
    assert!(!tree.contains("button \"Buy now\""), "{tree}");
    let modal = |t: &str| -> Vec<String> {
        let lines: Vec<&str> = t.lines().collect();
        let at = lines.iter().position(|l| l.contains("[modal]")).unwrap();
        let depth = indent_of(lines[at]);
        std::iter::once(lines[at])
            .chain(lines[at + 1..].iter().copied().take_while(|l| indent_of(l) > depth))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(modal(tree), modal(&marked.tree));
    let keys = |s: &sightline::protocol::SnapshotResult| s.refs.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&outline), keys(&marked));
}

#[test]
fn aria_modal_over_checkout_obscures_the_page() {
    let server = FixtureServer::start();
    let (raw, snap) = snapshot_json(&server.url("modals/aria-checkout.html"), MARK);
    let tree = &snap.tree;
    assert_only_modal_has_refs(&snap, "aria");
    assert!(line_with(tree, "- dialog \"Sign in\" [modal]").ends_with(':'), "{tree}");
    for page_button in [
        "button \"Buy now\"",
        "button \"Continue\"",
        "textbox \"Street\"",
        "link \"Cart\"",
    ] {
        let line = line_with(tree, page_button);
        assert!(line.contains("[obscured]") && !line.contains("[ref="), "{line}");
    }
    for live in [
        "textbox \"Email\"",
        "textbox \"Password\"",
        "button \"Sign in\"",
        "button \"Close\"",
    ] {
        ref_with(tree, live);
    }
    assert_eq!(snap.modal.as_ref().unwrap().name, "Sign in");
    assert!(!tree.contains("secret-pw") && !raw.to_string().contains("secret-pw"));
    // Every ref in JSON carries the occlusion fields.
    for (_, r) in raw["refs"].as_object().unwrap() {
        assert_eq!(r["obscured"], false);
        assert!(r.get("covered_by").is_some());
    }
}

#[test]
fn native_dialog_show_modal() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/native-dialog.html"), MARK);
    assert_only_modal_has_refs(&snap, "dialog");
    let tree = &snap.tree;
    line_with(tree, "dialog \"Are you sure?\" [modal]");
    ref_with(tree, "button \"Yes, delete\"");
    assert!(line_with(tree, "button \"Delete account\"").contains("[obscured]"));
}

#[test]
fn modal_inside_open_shadow_root() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/shadow-modal.html"), MARK);
    assert_only_modal_has_refs(&snap, "aria");
    let tree = &snap.tree;
    ref_with(tree, "textbox \"User\"");
    assert!(line_with(tree, "button \"Export report\"").contains("[obscured]"));
    assert!(
        snap.modal.as_ref().unwrap().selector.contains(">>>"),
        "{:?}",
        snap.modal
    );
}

#[test]
fn modal_inside_same_origin_iframe_obscures_the_whole_page() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/iframe-modal.html"), MARK);
    assert_only_modal_has_refs(&snap, "aria");
    let tree = &snap.tree;
    let pay = ref_with(tree, "button \"Pay\"");
    assert!(pay.starts_with('f'), "frame-prefixed ref: {pay}");
    assert!(line_with(tree, "button \"Outer buy\"").contains("[obscured]"), "{tree}");
    assert!(
        line_with(tree, "button \"Inner page button\"").contains("[obscured]"),
        "{tree}"
    );
}

#[test]
fn nested_modals_only_the_top_one_is_live() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/nested.html"), MARK);
    assert_only_modal_has_refs(&snap, "aria");
    let tree = &snap.tree;
    line_with(tree, "alertdialog \"Discard changes?\" [modal]");
    ref_with(tree, "button \"Discard\"");
    assert!(
        line_with(tree, "button \"Save settings\"").contains("[obscured]"),
        "{tree}"
    );
    assert!(
        line_with(tree, "button \"Page button\"").contains("[obscured]"),
        "{tree}"
    );
}

#[test]
fn heuristic_overlay_warns_and_keeps_refs() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/heuristic-overlay.html"), &[]);
    let tree = &snap.tree;
    assert!(!tree.contains(MODAL_NOTE) && !tree.contains("[obscured]"), "{tree}");
    let warning = line_with(tree, "# A large overlay may be covering the page:");
    assert!(warning.contains("20% off") && warning.contains("(ref "), "{warning}");
    assert_eq!(snap.modal.as_ref().unwrap().kind, "heuristic");
    // The page keeps its refs, but the hit-test tells the truth: it is covered.
    let story = ref_with(tree, "link \"Top story\"");
    assert!(line_with(tree, "link \"Top story\"").contains("[covered]"), "{tree}");
    assert_eq!(snap.refs.get(&story).unwrap().covered_by.as_deref(), Some("div.promo"));
    ref_with(tree, "button \"Claim offer\"");
}

/// A dialog faded out (opacity 0) and left in place hides nothing from a
/// user, and `unblock` finds nothing to close: no modal, the page keeps its
/// refs. (The layer still takes clicks where it lies: that is `[covered]`.)
#[test]
fn a_transparent_dialog_is_not_an_open_modal() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("blockers/invisible-layer.html"), &[]);
    let tree = &snap.tree;
    assert!(snap.modal.is_none(), "{:?}", snap.modal);
    assert!(!tree.contains(MODAL_NOTE) && !tree.contains("[obscured]"), "{tree}");
    assert!(!tree.contains("hidden behind the modal"), "{tree}");
    ref_with(tree, "link \"Intro\"");
}

/// Modal dialogs kept in the page while closed: a drawer slid out of the
/// window and a layer faded out hide nothing; once the drawer slides in, it
/// is the modal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_modal_layers_hide_nothing_until_opened() {
    use sightline::{Browser, LaunchOptions, SnapshotOptions};
    with_timeout("closed layers", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("modals/closed-layers.html")).await.expect("goto");
        let closed = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert!(closed.modal.is_none(), "{:?}\n{}", closed.modal, closed.tree);
        assert!(!closed.tree.contains(MODAL_NOTE), "{}", closed.tree);
        for live in ["link \"Home\"", "button \"Menu\"", "link \"Next article\""] {
            ref_with(&closed.tree, live);
        }
        page.click("#menu").await.expect("open the menu");
        let open = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert_eq!(
            open.modal.as_ref().map(|m| m.name.as_str()),
            Some("Site menu"),
            "{}",
            open.tree
        );
        ref_with(&open.tree, "button \"Close menu\"");
        assert!(!open.tree.contains("button \"Subscribe\" [ref="), "{}", open.tree);
        // A modal fading in is open from its first frame, at opacity 0.
        page.click(
            open.tree
                .lines()
                .find(|l| l.contains("Close menu"))
                .and_then(ref_of)
                .unwrap()
                .as_str(),
        )
        .await
        .expect("close the menu");
        page.click("#signin-button").await.expect("sign in");
        let fading = page.snapshot(&SnapshotOptions::default()).await.unwrap();
        assert_eq!(
            fading.modal.as_ref().map(|m| m.name.as_str()),
            Some("Sign in"),
            "{}",
            fading.tree
        );
        browser.close().await.expect("close");
    })
    .await;
}

#[test]
fn non_modal_dialog_and_toast_never_occlude() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/nonmodal.html"), &[]);
    let tree = &snap.tree;
    assert!(snap.modal.is_none(), "{:?}", snap.modal);
    assert!(
        !tree.contains("[obscured]") && !tree.contains("# A ") && !tree.contains("[covered]"),
        "{tree}"
    );
    for live in ["button \"Compose\"", "button \"Archive\"", "button \"Send\""] {
        ref_with(tree, live);
    }
    line_with(tree, "status: Saved");
}

#[test]
fn sticky_cookie_bar_covers_bottom_buttons() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("modals/cookie-bar.html"), &[]);
    let tree = &snap.tree;
    let basket = ref_with(tree, "button \"Add to basket\"");
    assert!(
        line_with(tree, "button \"Add to basket\"").contains("[covered]"),
        "{tree}"
    );
    let by = snap.refs.get(&basket).unwrap().covered_by.clone().expect("covered_by");
    assert_eq!(by, "div.bar");
    let top = ref_with(tree, "button \"Top button\"");
    assert!(!line_with(tree, "button \"Top button\"").contains("[covered]"));
    assert_eq!(snap.refs.get(&top).unwrap().covered_by, None);
    assert!(snap.stats.occlusion_ms > 0.0, "{:?}", snap.stats);
    assert!(snap.modal.is_none());
}

#[test]
fn drop_mode_leaves_obscured_content_out() {
    let server = FixtureServer::start();
    let url = server.url("modals/aria-checkout.html");
    let (_, marked) = snapshot_json(&url, MARK);
    let (_, dropped) = snapshot_json(&url, &["--obscured", "drop"]);
    assert!(
        !dropped.tree.contains("Buy now") && !dropped.tree.contains("[obscured]"),
        "{}",
        dropped.tree
    );
    assert!(dropped.tree.contains(MODAL_NOTE));
    assert_eq!(marked.refs.len(), dropped.refs.len());
    assert!(dropped.tree.len() < marked.tree.len());
}

/// Real libraries, each opening its dialog through its own API.
fn library_case(page: &str, kind: &str, live: &[&str], obscured: &[&str]) {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url(&format!("modals/{page}")), MARK);
    let tree = &snap.tree;
    assert_only_modal_has_refs(&snap, kind);
    for l in live {
        ref_with(tree, l);
    }
    for o in obscured {
        let line = line_with(tree, o);
        assert!(line.contains("[obscured]") && !line.contains("[ref="), "{line}\n{tree}");
    }
}

#[test]
fn library_bootstrap_modal() {
    library_case(
        "lib-bootstrap.html",
        "aria",
        &[
            "button \"Close\"",
            "textbox \"Email\"",
            "button \"No thanks\"",
            "button \"Join\"",
        ],
        &["button \"Proceed to checkout\"", "link \"Continue shopping\""],
    );
}

#[test]
fn library_a11y_dialog() {
    library_case(
        "lib-a11y-dialog.html",
        "aria",
        &["button \"Close dialog\"", "button \"Subscribe\""],
        &["button \"Write a post\""],
    );
}

#[test]
fn library_micromodal() {
    library_case(
        "lib-micromodal.html",
        "aria",
        &["button \"Close modal\"", "button \"Send rating\""],
        &["button \"Edit profile\"", "link \"Log out\""],
    );
}

#[test]
fn library_sweetalert2() {
    // SweetAlert2 also aria-hides the page, so the page is absent, not obscured.
    library_case(
        "lib-sweetalert2.html",
        "aria",
        &["button \"Delete\"", "button \"Cancel\""],
        &[],
    );
}

#[test]
fn library_shoelace_dialog_in_shadow_dom() {
    library_case(
        "lib-shoelace.html",
        "aria",
        &["button \"Close\"", "textbox \"Email\"", "button \"Send invite\""],
        &["button \"New project\""],
    );
}
