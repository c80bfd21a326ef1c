use super::*;
use crate::dom::{NodeKind, Style, TreeBuilder};
use crate::interactive::compute_interactive;
use crate::viewport::viewport_info;

fn vp() -> ViewportInfo {
    viewport_info(0.0, 0.0, 1000.0, 800.0, 1000.0, 3000.0)
}

fn layer(b: &mut TreeBuilder, attrs: &[(&str, &str)], rect: Rect, position: Position, z: Option<i32>) -> NodeId {
    let id = b.open_el("div", attrs);
    b.data(id).style = Some(Style {
        position,
        z_index: z,
        ..Default::default()
    });
    b.data(id).rect = rect;
    id
}

fn button(b: &mut TreeBuilder, attrs: &[(&str, &str)], text: &str, rect: Rect) -> NodeId {
    let id = b.open_el("button", attrs);
    b.data(id).rect = rect;
    if !text.is_empty() {
        b.text(text);
    }
    b.close();
    id
}

fn run(tree: &DomTree) -> Vec<BlockerCandidate> {
    run_with_hits(tree, &mut NoHits)
}

fn run_with_hits(tree: &DomTree, hits: &mut dyn HitInfo) -> Vec<BlockerCandidate> {
    scan_tree(tree, hits, &vp(), false)
}

/// The scan of `tree` in `viewport`; with `whole_document`, of the document as one candidate.
fn scan_tree(
    tree: &DomTree,
    hits: &mut dyn HitInfo,
    viewport: &ViewportInfo,
    whole_document: bool,
) -> Vec<BlockerCandidate> {
    let sem = Semantics::compute(tree);
    let interactive = compute_interactive(&sem);
    let mut target = |n: NodeId| format!("e{n}");
    let sel = |n: NodeId| format!("#n{n}");
    let mut input = ScanInput {
        sem: &sem,
        interactive: &interactive,
        viewport,
        target_of: &mut target,
        selector_of: &sel,
        whole_document,
    };
    scan(&mut input, hits)
}

#[test]
fn promo_modal_with_unlabeled_corner_icon() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    b.el("main", &[]);
    layer(
        &mut b,
        &[("role", "dialog")],
        Rect::new(200.0, 100.0, 600.0, 500.0),
        Position::Fixed,
        Some(5000),
    );
    b.text("Get 20% off your first order");
    let join = button(&mut b, &[], "Sign up", Rect::new(300.0, 400.0, 120.0, 40.0));
    let icon = button(&mut b, &[], "", Rect::new(760.0, 110.0, 30.0, 30.0));
    let t = b.finish();
    let c = run(&t);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].kind, BlockerKind::NewsletterPromo);
    assert!(c[0].evidence.iter().any(|e| e == "% off"));
    assert!(c[0].modal_evidence && c[0].size_evidence);
    assert_eq!(c[0].close.len(), 1, "{:?}", c[0].close);
    assert_eq!(c[0].close[0].target, format!("e{icon}"));
    assert!(
        c[0].close.iter().all(|x| x.target != format!("e{join}")),
        "never the sign-up button"
    );
}

#[test]
fn close_buttons_are_ranked() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    layer(
        &mut b,
        &[("role", "dialog"), ("aria-modal", "true")],
        Rect::new(100.0, 100.0, 800.0, 600.0),
        Position::Fixed,
        None,
    );
    b.text("Special offer");
    let later = button(&mut b, &[], "Maybe later", Rect::new(120.0, 600.0, 100.0, 30.0));
    let glyph = button(&mut b, &[], "×", Rect::new(120.0, 120.0, 30.0, 30.0));
    let labelled = button(
        &mut b,
        &[("aria-label", "Schließen")],
        "",
        Rect::new(130.0, 130.0, 30.0, 30.0),
    );
    let dismiss = button(
        &mut b,
        &[("data-bs-dismiss", "modal")],
        "Hide",
        Rect::new(140.0, 600.0, 60.0, 30.0),
    );
    let t = b.finish();
    let c = run(&t);
    let order: Vec<&str> = c[0].close.iter().map(|x| x.target.as_str()).collect();
    let want = [labelled, glyph, dismiss, later].map(|n| format!("e{n}"));
    assert_eq!(order, want.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn consent_banner_in_german_with_reject_and_accept() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    layer(
        &mut b,
        &[],
        Rect::new(0.0, 600.0, 1000.0, 200.0),
        Position::Fixed,
        Some(99),
    );
    b.text("Wir verwenden Cookies. Mit Ihrer Einwilligung verbessern wir unseren Datenschutz.");
    let accept = button(&mut b, &[], "Alle akzeptieren", Rect::new(700.0, 700.0, 120.0, 40.0));
    let reject = button(&mut b, &[], "Alle ablehnen", Rect::new(550.0, 700.0, 120.0, 40.0));
    let t = b.finish();
    let c = run(&t);
    assert_eq!(c[0].kind, BlockerKind::Consent);
    assert_eq!(c[0].reject.as_ref().unwrap().target, format!("e{reject}"));
    assert_eq!(c[0].accept.as_ref().unwrap().target, format!("e{accept}"));
    assert!(c[0].close.iter().all(|x| x.target != format!("e{accept}")));
}

#[test]
fn kinds_in_other_languages() {
    let cases: &[(&str, BlockerKind)] = &[
        ("Nous utilisons des cookies pour le consentement", BlockerKind::Consent),
        ("Usamos cookies. Privacidad y consentimiento", BlockerKind::Consent),
        ("Utilizziamo i cookie per il consenso", BlockerKind::Consent),
        ("Wij gebruiken cookies, geef toestemming", BlockerKind::Consent),
        ("Usamos cookies e privacidade", BlockerKind::Consent),
        ("Are you over 18? Please verify your age", BlockerKind::AgeGate),
        ("Bist du volljährig? Geburtsdatum eingeben", BlockerKind::AgeGate),
        ("Sign in to continue", BlockerKind::Login),
        ("Inicia sesión para continuar", BlockerKind::Login),
        ("You've reached your limit of free articles", BlockerKind::Paywall),
        ("Abonnez-vous pour continuer la lecture", BlockerKind::Paywall),
        (
            "Iscriviti alla newsletter e ottieni uno sconto",
            BlockerKind::NewsletterPromo,
        ),
        ("Schrijf je in voor onze nieuwsbrief", BlockerKind::NewsletterPromo),
    ];
    for (text, kind) in cases {
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        layer(
            &mut b,
            &[("role", "dialog")],
            Rect::new(100.0, 100.0, 800.0, 600.0),
            Position::Fixed,
            Some(2000),
        );
        b.text(text);
        button(&mut b, &[], "OK", Rect::new(120.0, 600.0, 60.0, 30.0));
        let t = b.finish();
        assert_eq!(run(&t)[0].kind, *kind, "{text}");
    }
}

#[test]
fn login_wall_by_password_field_and_tooltip_and_site_header() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    // A sticky site header with navigation: chrome, not a blocker.
    layer(
        &mut b,
        &[],
        Rect::new(0.0, 0.0, 1000.0, 60.0),
        Position::Sticky,
        Some(10),
    );
    b.open_el("nav", &[]);
    button(&mut b, &[], "Menu", Rect::new(0.0, 0.0, 60.0, 40.0));
    b.close();
    b.close();
    layer(
        &mut b,
        &[],
        Rect::new(100.0, 100.0, 800.0, 600.0),
        Position::Fixed,
        Some(3000),
    );
    b.text("Welcome back");
    let pw = b.el("input", &[("type", "password")]);
    b.data(pw).rect = Rect::new(200.0, 300.0, 200.0, 30.0);
    b.close();
    layer(
        &mut b,
        &[("role", "tooltip")],
        Rect::new(10.0, 10.0, 120.0, 30.0),
        Position::Absolute,
        None,
    );
    b.text("Copied!");
    b.close();
    let t = b.finish();
    let c = run(&t);
    let kinds: Vec<BlockerKind> = c.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, vec![BlockerKind::Login, BlockerKind::Tooltip]);
    assert!(c[0].evidence.iter().any(|e| e == "password field"));
}

#[test]
fn backdrops_and_static_content_are_not_candidates() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    layer(
        &mut b,
        &[],
        Rect::new(0.0, 0.0, 1000.0, 800.0),
        Position::Fixed,
        Some(9000),
    );
    b.close();
    layer(&mut b, &[], Rect::new(0.0, 0.0, 1000.0, 800.0), Position::Static, None);
    b.text("Plain page content about cookies");
    let t = b.finish();
    assert!(run(&t).is_empty());
}

/// Hit testing where the given nodes take the viewport centre.
struct CentreHits(Vec<NodeId>);
impl HitInfo for CentreHits {
    fn coverage(&mut self, node: NodeId) -> f64 {
        if self.0.contains(&node) {
            1.0
        } else {
            0.0
        }
    }
    fn covers_center(&mut self, node: NodeId) -> bool {
        self.0.contains(&node)
    }
}

/// A page with some content under a full-viewport layer at z-index 1001
/// holding a spinner box and whatever `inside` adds.
fn page_under_layer(inside: impl FnOnce(&mut TreeBuilder)) -> (DomTree, NodeId) {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    b.open_el("main", &[]);
    button(&mut b, &[], "Read more", Rect::new(10.0, 10.0, 100.0, 30.0));
    b.close();
    let shield = layer(
        &mut b,
        &[("class", "viewer-loading-screen")],
        Rect::new(0.0, 0.0, 1000.0, 800.0),
        Position::Absolute,
        Some(1001),
    );
    let spinner = b.el("div", &[("class", "spinner")]);
    b.data(spinner).rect = Rect::new(480.0, 380.0, 40.0, 40.0);
    inside(&mut b);
    b.close();
    (b.finish(), shield)
}

/// Adds a full-layer `tag` with `attrs`; returns it.
fn full_layer_child(b: &mut TreeBuilder, tag: &str, attrs: &[(&str, &str)]) -> NodeId {
    let el = b.el(tag, attrs);
    b.data(el).rect = Rect::new(0.0, 0.0, 1000.0, 800.0);
    el
}

#[test]
fn an_empty_layer_taking_the_centre_is_an_empty_overlay() {
    let (tree, shield) = page_under_layer(|_| {});
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert_eq!(found.len(), 1, "{found:?}");
    let c = &found[0];
    assert_eq!(c.kind, BlockerKind::EmptyOverlay);
    assert_eq!(c.target, format!("e{shield}"));
    assert!(c.size_evidence && c.modal_evidence && c.close.is_empty(), "{c:?}");
    // Not taking the clicks (pointer-events: none, or under the page): no blocker.
    assert!(run_with_hits(&tree, &mut NoHits).is_empty());
}

#[test]
fn a_layer_with_media_or_a_frame_is_content_not_an_empty_overlay() {
    for tag in ["iframe", "canvas", "video", "img"] {
        // Hidden from assistive tech only, it is still on screen.
        for attrs in [&[][..], &[("aria-hidden", "true")][..]] {
            let (tree, shield) = page_under_layer(|b| {
                full_layer_child(b, tag, attrs);
            });
            let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
            assert!(
                found.iter().all(|c| c.kind != BlockerKind::EmptyOverlay),
                "{tag} {attrs:?}: {found:?}"
            );
        }
    }
}

#[test]
fn a_click_catching_layer_is_empty_but_a_full_page_link_is_not() {
    let (mut tree, shield) = page_under_layer(|_| {});
    if let NodeKind::Element(e) = &mut tree.nodes[shield].kind {
        e.has_click_handler = true;
    }
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, BlockerKind::EmptyOverlay);

    if let NodeKind::Element(e) = &mut tree.nodes[shield].kind {
        e.tag = "a".into();
        e.attrs.push(("href".into(), "/promo".into()));
    }
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert!(found.iter().all(|c| c.kind != BlockerKind::EmptyOverlay), "{found:?}");
}

#[test]
fn media_that_is_not_drawn_leaves_the_layer_empty() {
    // A spinner image in a display:none box (its style is never read), and a
    // visibility:hidden video.
    let (tree, shield) = page_under_layer(|b| {
        let off = b.open_el("div", &[("class", "spinner-box")]);
        b.data(off).style.as_mut().unwrap().display = Display::None;
        let img = full_layer_child(b, "img", &[]);
        b.data(img).style = None;
        b.close();
        let video = full_layer_child(b, "video", &[]);
        b.data(video).style.as_mut().unwrap().visibility_hidden = true;
    });
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, BlockerKind::EmptyOverlay);
}

#[test]
fn a_backdrop_beside_a_dialog_leaves_the_dialog_as_the_blocker() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    let backdrop = layer(
        &mut b,
        &[],
        Rect::new(0.0, 0.0, 1000.0, 800.0),
        Position::Fixed,
        Some(1040),
    );
    b.close();
    let dialog = layer(
        &mut b,
        &[("role", "dialog")],
        Rect::new(250.0, 200.0, 500.0, 400.0),
        Position::Fixed,
        Some(1050),
    );
    b.text("Choose your region");
    button(
        &mut b,
        &[("aria-label", "Close")],
        "",
        Rect::new(720.0, 205.0, 24.0, 24.0),
    );
    b.close();
    let tree = b.finish();
    let found = run_with_hits(&tree, &mut CentreHits(vec![backdrop, dialog]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].target, format!("e{dialog}"));
    assert_ne!(found[0].kind, BlockerKind::EmptyOverlay);
}

#[test]
fn order_by_ranks_then_node_ids_whatever_the_input_order() {
    let items = vec![(9, "c"), (3, "b"), (7, "a"), (1, "b"), (5, "a")];
    let rank = |s: &&str| u32::from(s.as_bytes()[0]);
    let ids: Vec<usize> = super::order_by(items, rank).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, vec![5, 7, 1, 3, 9]);
    assert!(super::order_by(Vec::<(usize, ())>::new(), |_| 0).is_empty());
}

/// A consent manager's dialog served in an iframe: the page's layer holds
/// only the frame, so its words and buttons are in the frame's document.
#[test]
fn a_layer_showing_only_an_iframe_is_a_framed_candidate() {
    let (tree, shield) = page_under_layer(|b| {
        let frame = full_layer_child(b, "iframe", &[("title", "SP Consent Message")]);
        b.data(frame).rect = Rect::new(200.0, 150.0, 600.0, 500.0);
    });
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert_eq!(found.len(), 1, "{found:?}");
    let c = &found[0];
    assert_eq!(c.target, format!("e{shield}"));
    let frame = c.frame.as_deref().expect("the iframe is named");
    assert_eq!(frame, format!("#n{}", shield + 2), "{c:?}");
    // The iframe's title is all the page says of the dialog.
    assert_eq!(c.kind, BlockerKind::Consent, "{c:?}");
    assert!(c.size_evidence && c.modal_evidence, "{c:?}");
    assert!(c.close.is_empty() && c.reject.is_none(), "{c:?}");
}

#[test]
fn a_full_window_iframe_with_nothing_else_on_the_page_is_the_page() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    layer(&mut b, &[], Rect::new(0.0, 0.0, 1000.0, 800.0), Position::Fixed, None);
    full_layer_child(&mut b, "iframe", &[("title", "Cookie settings")]);
    b.close();
    let tree = b.finish();
    assert!(run(&tree).is_empty(), "{:?}", run(&tree));
    // A tiny frame (a tracking pixel, a chat launcher) shows nothing to read.
    let (tree, shield) = page_under_layer(|b| {
        let pixel = b.el("iframe", &[]);
        b.data(pixel).rect = Rect::new(900.0, 700.0, 60.0, 60.0);
    });
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert!(found.iter().all(|c| c.frame.is_none()), "{found:?}");
}

#[test]
fn a_framed_dialog_s_own_document_is_one_candidate_with_its_buttons() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    b.text("We and our partners use cookies to personalise ads. Your privacy choices:");
    let reject = button(&mut b, &[], "Reject all", Rect::new(100.0, 400.0, 120.0, 40.0));
    let accept = button(&mut b, &[], "Accept all", Rect::new(260.0, 400.0, 120.0, 40.0));
    let close = button(
        &mut b,
        &[("aria-label", "Close")],
        "",
        Rect::new(560.0, 10.0, 30.0, 30.0),
    );
    let tree = b.finish();
    assert!(run(&tree).is_empty(), "a plain page scan finds no layer");
    let frame_viewport = viewport_info(0.0, 0.0, 600.0, 500.0, 600.0, 500.0);
    let found = scan_tree(&tree, &mut NoHits, &frame_viewport, true);
    assert_eq!(found.len(), 1, "{found:?}");
    let c = &found[0];
    assert_eq!(c.kind, BlockerKind::Consent);
    assert_eq!(c.reject.as_ref().unwrap().target, format!("e{reject}"));
    assert_eq!(c.accept.as_ref().unwrap().target, format!("e{accept}"));
    assert_eq!(c.close.first().map(|x| x.target.clone()), Some(format!("e{close}")));
}

/// A sticky ad slot (a layer showing only an iframe) beside a stuck empty
/// shield over the centre: the shield is still found as the empty overlay.
#[test]
fn a_framed_ad_slot_does_not_hide_a_stuck_empty_shield() {
    let mut b = TreeBuilder::new();
    b.open_el("body", &[]);
    b.open_el("main", &[]);
    button(&mut b, &[], "Read more", Rect::new(10.0, 10.0, 100.0, 30.0));
    b.close();
    let slot = layer(
        &mut b,
        &[],
        Rect::new(700.0, 500.0, 300.0, 250.0),
        Position::Fixed,
        Some(10),
    );
    full_layer_child(&mut b, "iframe", &[]);
    b.data(slot + 1).rect = Rect::new(700.0, 500.0, 300.0, 250.0);
    b.close();
    let shield = layer(
        &mut b,
        &[],
        Rect::new(0.0, 0.0, 1000.0, 800.0),
        Position::Absolute,
        Some(1001),
    );
    b.close();
    let tree = b.finish();
    let found = run_with_hits(&tree, &mut CentreHits(vec![shield]));
    assert!(
        found
            .iter()
            .any(|c| c.kind == BlockerKind::EmptyOverlay && c.target == format!("e{shield}")),
        "{found:?}"
    );
    assert!(found.iter().any(|c| c.frame.is_some()), "{found:?}");
}
