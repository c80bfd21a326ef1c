//! End-to-end snapshots of hand-written fixture pages through the `sightline`
//! binary (one Chromium per test, pages served on 127.0.0.1).

use crate::support::*;

/// A strict `Content-Security-Policy` (no inline script, no eval, no wasm for
/// the page) does not stop the engine, which lives in its own world.
#[test]
fn strict_csp_page_still_snapshots() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("csp.html"), &[]);
    let tree = &snap.tree;
    assert_eq!(snap.title, "Strict CSP");
    assert_refs_consistent(&snap);

    let save = ref_with(tree, r#"button "Save settings""#);
    assert_eq!(snap.refs.get(&save).unwrap().role, "button");
    assert_eq!(snap.refs.get(&save).unwrap().name, "Save settings");
    ref_with(tree, r#"textbox "Display name""#);
    let newsletter = line_with(tree, r#"checkbox "Send me the newsletter""#);
    assert!(newsletter.contains("[checked]"), "{newsletter}");
    let help = ref_with(tree, r#"link "Read the help""#);
    assert_eq!(
        snap.refs.get(&help).unwrap().url.as_deref(),
        Some(server.url("help.html").as_str())
    );
    // The same-origin script ran (the policy allows it) and its button is there.
    ref_with(tree, r#"button "Added by allowed script""#);
}

/// A page decoded as windows-1252 holds C1 controls (byte 0x9D is U+009D,
/// as on several real news pages): `--json` keeps them, written as escapes
/// so the terminal sees none raw (they came out as U+FFFD), while the text
/// form still replaces them, since it goes to a terminal as it is.
#[test]
fn json_keeps_a_pages_control_characters_as_escapes() {
    let server = FixtureServer::start();
    let page = server.url("windows-1252.html");
    let out = run_cli(&["snapshot", &page, "--json"]);
    out.assert_success();
    assert!(!out.stdout.contains('\u{fffd}'), "{}", out.stdout);
    assert!(!out.stdout.contains('\u{9d}'), "no raw C1 control: {}", out.stdout);
    assert!(out.stdout.contains("T\\u009dtitle"), "{}", out.stdout);
    let (_, snap) = snapshot_json(&page, &[]);
    assert_eq!(snap.title, "T\u{9d}title");
    assert!(snap.tree.contains("para\u{9d}text \u{7f}del"), "{}", snap.tree);
    let link = ref_with(&snap.tree, "link \"link\u{9d}name\"");
    assert_eq!(snap.refs.get(&link).unwrap().name, "link\u{9d}name");
    assert!(snap.tree.contains("val\u{9d}ue"), "{}", snap.tree);
    let text = snapshot_text(&page, &[]);
    assert!(text.contains("para\u{fffd}text") && !text.contains('\u{9d}'), "{text}");
}

/// A PDF the browser opened shows nothing in its viewer that the tree or a
/// headless screenshot reaches: its text, read from the file, stands in.
#[test]
fn a_pdf_reads_as_its_text() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("docs/invoice.pdf"), &[]);
    let tree = &snap.tree;
    assert!(tree.contains("# invoice.pdf is a PDF (2 pages)"), "{tree}");
    assert!(
        tree.contains("- region \"Page 1\":\n  - text: Invoice 2041\n  - text: Trailhead Outfitters\n  - text: Total due: 118.50 EUR"),
        "{tree}"
    );
    assert!(
        tree.contains("- region \"Page 2\":\n  - text: Terms: payment within 30 days"),
        "{tree}"
    );
    assert!(snap.refs.is_empty(), "{:?}", snap.refs);
    // A file: URL too (the browser's own copy of the resource).
    let path = fixtures_dir().join("docs/invoice.pdf");
    let (_, snap) = snapshot_json(path.to_str().unwrap(), &[]);
    assert!(snap.tree.contains("Total due: 118.50 EUR"), "{}", snap.tree);
}

/// A page that breaks Array, JSON, layout and style APIs and removes
/// WebAssembly in its own world still gets a correct snapshot.
#[test]
fn hostile_page_cannot_break_the_engine() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("hostile.html"), &[]);
    let tree = &snap.tree;
    assert_eq!(snap.title, "Hostile page");
    assert_refs_consistent(&snap);

    let pay = ref_with(tree, r#"button "Pay now""#);
    let info = snap.refs.get(&pay).unwrap();
    assert_eq!((info.role.as_str(), info.name.as_str()), ("button", "Pay now"));
    // The fake getBoundingClientRect / getComputedStyle do not leak into the engine.
    assert!(info.in_viewport, "Pay now should be in the viewport: {info:?}");
    assert!(!offscreen(tree, r#"button "Pay now""#), "{tree}");

    let email = ref_with(tree, r#"textbox "Email address""#);
    assert_eq!(snap.refs.get(&email).unwrap().name, "Email address");
    ref_with(tree, r#"checkbox "I accept the terms""#);
    let faq = ref_with(tree, r#"link "Frequently asked questions""#);
    assert_eq!(snap.refs.get(&faq).unwrap().role, "link");
    ref_with(tree, r#"button "Open menu""#);
    assert!(
        snap.refs.len() >= 5,
        "expected at least 5 refs, got {}:\n{tree}",
        snap.refs.len()
    );
}

/// Open and closed shadow roots are walked; slotted light-DOM content is
/// rendered at its slot's position inside the shadow tree.
#[test]
fn shadow_roots_open_closed_and_slots() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("shadow.html"), &[]);
    let tree = &snap.tree;
    assert_refs_consistent(&snap);

    ref_with(tree, r#"button "Open shadow button""#);
    ref_with(tree, r#"link "Open shadow link""#);
    // Closed root: page scripts can't see into it, the engine can.
    let closed = ref_with(tree, r#"button "Closed shadow button""#);
    assert_eq!(snap.refs.get(&closed).unwrap().name, "Closed shadow button");

    let before = line_index(tree, r#"button "Before slot""#);
    let slotted = line_index(tree, r#"button "Slotted light button""#);
    let after = line_index(tree, r#"button "After slot""#);
    let light_after = line_index(tree, r#"button "Light DOM after""#);
    assert!(
        before < slotted && slotted < after && after < light_after,
        "slotted content out of place:\n{tree}"
    );
    assert!(
        ref_of(tree.lines().nth(slotted).unwrap()).is_some(),
        "slotted button has no ref:\n{tree}"
    );
    assert_eq!(
        tree.matches("Slotted light button").count(),
        1,
        "slotted content rendered twice:\n{tree}"
    );
}

/// Same-origin and cross-origin (second port) iframes, and a frame nested in
/// a frame, are spliced under their iframe lines with frame-prefixed refs.
#[test]
fn same_and_cross_origin_iframes_are_stitched() {
    let (main, other) = FixtureServer::pair();
    let url = main.url(&format!("frames.html?xport={}", other.port));
    let (raw, snap) = snapshot_json(&url, &[]);
    let tree = &snap.tree;
    assert_refs_consistent(&snap);

    let top = ref_with(tree, r#"button "Top button""#);
    assert!(top.starts_with('e'), "main-frame ref {top} should be unprefixed");
    assert!(snap.refs.get(&top).unwrap().frame.is_none());
    assert!(
        raw["refs"][&top].get("frame").is_none(),
        "main-frame refs carry no frame key"
    );

    let frame_of = |needle: &str| -> (String, String) {
        let r = ref_with(tree, needle);
        let prefix = r[..r.rfind('e').unwrap()].to_string();
        assert!(
            prefix.len() > 1 && prefix.starts_with('f') && prefix[1..].chars().all(|c| c.is_ascii_digit()),
            "{needle}: ref {r} should look like f<N>e<M>"
        );
        assert_eq!(
            snap.refs.get(&r).unwrap().frame.as_deref(),
            Some(prefix.as_str()),
            "{needle}: frame of {r}"
        );
        assert_eq!(raw["refs"][&r]["frame"], prefix.as_str());
        let idx = line_index(tree, needle);
        let iframes = ancestors(tree, idx)
            .into_iter()
            .filter(|l| l.contains("iframe"))
            .count();
        assert!(iframes >= 1, "{needle} is not under an iframe line:\n{tree}");
        (r, prefix)
    };
    let (_, same) = frame_of(r#"button "Same-origin inner button""#);
    let (_, same_link) = frame_of(r#"link "Same-origin inner link""#);
    let (_, cross) = frame_of(r#"button "Cross-origin inner button""#);
    let (_, grand) = frame_of(r#"button "Grandchild button""#);
    assert_eq!(same, same_link);
    assert!(
        same != cross && same != grand && cross != grand,
        "frames share a prefix:\n{tree}"
    );
    // The grandchild sits under two iframe lines.
    let idx = line_index(tree, r#"button "Grandchild button""#);
    assert_eq!(
        ancestors(tree, idx).iter().filter(|l| l.contains("iframe")).count(),
        2,
        "{tree}"
    );
    assert!(line_with(tree, r#"checkbox "Remember me""#).contains("[checked]"));

    // Child lines come right where their iframe is, not at the end.
    let same_btn = line_index(tree, r#"button "Same-origin inner button""#);
    let cross_btn = line_index(tree, r#"button "Cross-origin inner button""#);
    let bottom = line_index(tree, r#"button "Bottom top-level button""#);
    assert!(
        line_index(tree, r#"button "Top button""#) < same_btn && same_btn < cross_btn && cross_btn < bottom,
        "{tree}"
    );
}

/// A 1,000-level nested chain (built by script, past the parser's depth cap).
#[test]
fn thousand_deep_nesting_reaches_the_bottom() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("deep-1000.html"), &[]);
    let tree = &snap.tree;
    assert_refs_consistent(&snap);
    let deepest = ref_with(tree, r#"button "Deepest button""#);
    assert_eq!(snap.refs.get(&deepest).unwrap().role, "button");
    ref_with(tree, r#"link "Deepest link""#);
    assert!(
        snap.stats.elements >= 1000,
        "only {} elements counted",
        snap.stats.elements
    );
}

/// `--json` prints exactly one object with the documented keys; the text
/// output is exactly its `tree`.
#[test]
fn json_shape_and_text_output_of_the_example_shop() {
    let server = FixtureServer::start();
    let url = server.url("example/shop.html");
    let (raw, snap) = snapshot_json(&url, &[]);

    let obj = raw.as_object().expect("a JSON object");
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        ["modal", "refs", "stats", "status", "title", "tree", "url", "viewport"]
    );
    assert_eq!(raw["status"], 200);
    assert_eq!(snap.url, url);
    assert_eq!(snap.title, "Northwind Outfitters – Outdoor gear");
    assert!(raw["modal"].is_null());
    let refs = raw["refs"].as_object().expect("refs is an object");
    assert!(refs.len() >= 20, "expected a ref-rich page, got {} refs", refs.len());
    for (id, info) in refs {
        for key in ["role", "name", "selector", "in_viewport"] {
            assert!(info.get(key).is_some(), "ref {id} lacks {key}: {info}");
        }
        assert!(info["in_viewport"].is_boolean());
    }
    for key in ["elements", "refs", "engine_ms", "total_ms"] {
        assert!(raw["stats"][key].is_number(), "stats.{key} missing: {}", raw["stats"]);
    }
    assert!(snap.stats.total_ms > 0.0 && snap.stats.total_ms >= snap.stats.engine_ms);
    assert_eq!(snap.stats.refs as usize, snap.refs.len());
    assert_refs_consistent(&snap);

    let tree = &snap.tree;
    let add = ref_with(tree, r#"button "Add Trail Runner 2 to cart""#);
    assert_eq!(snap.refs.get(&add).unwrap().name, "Add Trail Runner 2 to cart");
    let details = ref_with(tree, r#"link "Trail Runner 2""#);
    let link_line = tree.lines().nth(line_index(tree, r#"link "Trail Runner 2""#)).unwrap();
    // Same-origin links show their path on their line; the JSON has the full URL.
    assert!(
        link_line.ends_with(&format!("[ref={details}] [url=/products/trail-runner-2.html]")),
        "{tree}"
    );
    let expected_href = server.url("products/trail-runner-2.html");
    assert_eq!(
        snap.refs.get(&details).unwrap().url.as_deref(),
        Some(expected_href.as_str())
    );
    ref_with(tree, r#"searchbox "Search products""#);
    ref_with(tree, r#"button "Search""#);
    assert!(line_with(tree, r#"checkbox "In stock only""#).contains("[checked]"));
    // Below the fold on a 1280x720 viewport: the footer links.
    assert!(offscreen(tree, r#"link "Privacy policy""#), "{tree}");
    let privacy = ref_with(tree, r#"link "Privacy policy""#);
    assert!(!snap.refs.get(&privacy).unwrap().in_viewport);
    assert!(!offscreen(tree, r#"searchbox "Search products""#), "{tree}");

    // Text mode prints exactly the tree.
    let text = snapshot_text(&url, &[]);
    assert_eq!(text.trim_end(), tree.trim_end());

    // A server's error page is told from content: the status in --json, a
    // note on stderr beside the text.
    let missing = server.url("example/no-such-page.html");
    let (raw, _) = snapshot_json(&missing, &[]);
    assert_eq!(raw["status"], 404);
    let out = run_cli(&["snapshot", &missing]);
    out.assert_success();
    assert_eq!(
        out.stderr.trim_end(),
        format!("note: {missing} (HTTP 404 Not Found): this is the server's error page")
    );
}

/// A page that breaks `Array.prototype.push/splice` *before* registering a
/// click listener: the main-world hook must not break the page's
/// addEventListener, and the clickable div still gets a ref.
#[test]
fn hostile_page_sabotaging_arrays_before_listeners() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("hostile-listeners.html"), &[]);
    assert_eq!(
        snap.title, "Hostile listeners",
        "the hook broke the page's addEventListener"
    );
    ref_with(&snap.tree, "Open menu");
}

/// Handlers set as properties (`el.onclick = fn`) live in the page's world,
/// where the engine can't read them: the main-world hook announces them.
#[test]
fn handler_properties_make_elements_clickable() {
    let server = FixtureServer::start();
    let (_, snap) = snapshot_json(&server.url("handler-properties.html"), &[]);
    assert_eq!(
        snap.title, "Handler properties",
        "the hook broke the page's handler properties"
    );
    ref_with(&snap.tree, "Open by property");
    ref_with(&snap.tree, "Press me");
    for inert in ["Not clickable", "Plain text"] {
        let line = snap.tree.lines().find(|l| l.contains(inert)).expect(inert);
        assert!(!line.contains("[ref="), "{line}");
    }
}

/// A plain box to drag (`draggable="true"`) has a ref in full snapshots as
/// in viewport ones; its neighbour, a plain box, does not.
#[test]
fn a_box_to_drag_has_a_ref_in_every_mode() {
    let server = FixtureServer::start();
    for mode in ["full", "viewport"] {
        let (_, snap) = snapshot_json(&server.url("draggable-cards.html"), &["--mode", mode]);
        let card = snap.tree.lines().find(|l| l.contains("Card A")).expect("the card");
        assert!(card.contains("[ref="), "{mode}: {}", snap.tree);
        assert!(
            !card.contains("Done column"),
            "{mode}: not merged with its neighbour: {}",
            snap.tree
        );
    }
}
