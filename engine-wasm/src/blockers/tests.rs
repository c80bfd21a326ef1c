use super::*;
use crate::dom::{Style, TreeBuilder};
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
    let sem = Semantics::compute(tree);
    let interactive = compute_interactive(&sem);
    let mut target = |n: NodeId| format!("e{n}");
    let sel = |n: NodeId| format!("#n{n}");
    let viewport = vp();
    let mut input = ScanInput {
        sem: &sem,
        interactive: &interactive,
        viewport: &viewport,
        target_of: &mut target,
        selector_of: &sel,
    };
    scan(&mut input, &mut NoHits)
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
