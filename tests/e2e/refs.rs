//! Ref stability through the library API.

use crate::support::*;
use sightline::protocol::SnapshotResult;
use sightline::{Browser, LaunchOptions, SnapshotOptions};

fn by_name(snap: &SnapshotResult) -> Vec<(String, String, String)> {
    snap.refs
        .iter()
        .map(|(k, v)| (k.clone(), v.role.clone(), v.name.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refs_are_stable_and_vanish_with_their_element() {
    with_timeout("refs test", async {
        let server = FixtureServer::start();
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&server.url("refs.html")).await.expect("goto");

        let first = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("first snapshot");
        let second = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("second snapshot");
        assert_refs_consistent(&first);
        assert_eq!(by_name(&first), by_name(&second), "refs changed between two snapshots");
        assert_eq!(first.tree, second.tree);

        let b1 = ref_with(&first.tree, r#"button "Archive order 1001""#);
        let b2 = ref_with(&first.tree, r#"button "Archive order 1002""#);
        let b3 = ref_with(&first.tree, r#"button "Archive order 1003""#);
        let all = ref_with(&first.tree, r#"link "All orders""#);
        let q = ref_with(&first.tree, r#"searchbox "Filter orders""#);

        page.evaluate("document.getElementById('b2').remove()")
            .await
            .expect("remove b2");
        let third = page
            .snapshot(&SnapshotOptions::default())
            .await
            .expect("third snapshot");
        assert_refs_consistent(&third);
        assert!(third.refs.get(&b2).is_none(), "{b2} still in refs after removal");
        assert!(
            !third.tree.contains(&format!("[ref={b2}]")),
            "{b2} still in the tree:\n{}",
            third.tree
        );
        assert!(!third.tree.contains("Archive order 1002"));
        for (r, name) in [
            (&b1, "Archive order 1001"),
            (&b3, "Archive order 1003"),
            (&all, "All orders"),
            (&q, "Filter orders"),
        ] {
            assert_eq!(
                third.refs.get(r).map(|i| i.name.as_str()),
                Some(name),
                "ref {r} moved:\n{}",
                third.tree
            );
        }

        // A new element gets a fresh ref; the others keep theirs, also after scrolling.
        page.evaluate(
            "(() => { const b = document.createElement('button'); b.textContent = 'Archive order 1004'; \
             document.querySelector('ul').appendChild(b); })()",
        )
        .await
        .expect("add a button");
        let fourth = page
            .snapshot(&SnapshotOptions {
                scroll_y: Some(0.0),
                ..Default::default()
            })
            .await
            .unwrap();
        let b4 = ref_with(&fourth.tree, r#"button "Archive order 1004""#);
        assert!(
            ![&b1, &b3, &all, &q].contains(&&b4),
            "new button reused a live ref {b4}"
        );
        assert_eq!(ref_with(&fourth.tree, r#"button "Archive order 1001""#), b1);
        assert_eq!(ref_with(&fourth.tree, r#"link "All orders""#), all);

        browser.close().await.expect("close");
    })
    .await;
}

/// The text that tells a row's button from its peers' is the row's: also
/// when the row's buttons share one cell, whose text ("Cancel Edit") is
/// the same in every row, or a card's buttons share a toolbar.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buttons_context_is_its_row_not_the_cell_of_buttons() {
    with_timeout("row context", async {
        let files = FixtureServer::pages(&[(
            "rows.html",
            "<!doctype html><title>Bookings</title><table>\
             <tr><td>Ada, 10:00</td><td><button>Cancel</button> <button>Edit</button></td></tr>\
             <tr><td>Grace, 11:00</td><td><button>Cancel</button> <button>Edit</button></td></tr></table>\
             <div class=card><h3>Red shoe</h3><div class=bar><button>Buy</button><a href=#>Details</a></div></div>\
             <div class=card><h3>Green hat</h3><div class=bar><button>Buy</button><a href=#>Details</a></div></div>\
             <table id=invoices><tr><td><a href=#42>Invoice 42</a> <button>Delete</button></td></tr>\
             <tr><td><a href=#43>Invoice 43</a> <button>Delete</button></td></tr></table>\
             <p><label>Name <input id=name></label></p>",
        )]);
        let browser = Browser::launch(LaunchOptions::default()).await.expect("launch");
        let page = browser.new_page().await.expect("page");
        page.goto(&files.url("rows.html")).await.expect("goto");
        let context = |selector: &'static str| {
            let page = page.clone();
            async move { page.context_of(selector).await.unwrap().unwrap_or_default() }
        };
        assert_eq!(context("tr:nth-of-type(2) button").await, "Grace, 11:00 Cancel Edit");
        assert_eq!(context(".card:nth-of-type(1) button").await, "Red shoe BuyDetails");
        assert_eq!(context("#name").await, "Name");
        // A row named by its link is told by it (a link is no button).
        assert_eq!(context("#invoices tr:nth-of-type(2) button").await, "Invoice 43 Delete");
        browser.close().await.unwrap();
    })
    .await
}
