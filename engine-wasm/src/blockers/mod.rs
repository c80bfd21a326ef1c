//! Blocker candidates for `removeBlocker`: find overlays, pop-ups and bars
//! that stand between the user and the page, say what kind they are (with the
//! text evidence), and rank the buttons that would close them. Pure; the
//! adapter adds hit-test coverage and performs nothing itself — the driver
//! decides (conservatively) and acts with trusted input. The scan's types
//! are protocol types (`protocol/blockers.rs`).
pub mod keywords;

use crate::dom::{Display, DomTree, NodeId, Position};
use crate::protocol::{BlockerButton, BlockerCandidate, BlockerKind, Rect, ViewportInfo};
use crate::semantics::Semantics;
use keywords::*;

/// z-index from which a positioned layer counts as "far above the page".
const HIGH_Z: i32 = 1000;
const SIZE_AREA: f64 = 0.30;
/// Smaller than this share of the viewport (and no dialog role) is a tooltip.
const TOOLTIP_AREA: f64 = 0.04;

/// Hit-test facts supplied by the adapter (none on the host).
pub trait HitInfo {
    /// Share of probe points (a grid over the viewport) whose topmost
    /// element lies inside `node`.
    fn coverage(&mut self, node: NodeId) -> f64;
    /// The topmost element at the viewport centre lies inside `node`.
    fn covers_center(&mut self, node: NodeId) -> bool;
}

pub struct NoHits;
impl HitInfo for NoHits {
    fn coverage(&mut self, _: NodeId) -> f64 {
        0.0
    }
    fn covers_center(&mut self, _: NodeId) -> bool {
        false
    }
}

fn visible_text(sem: &Semantics, id: NodeId, limit: usize) -> String {
    let tree = sem.tree;
    let mut out = String::new();
    for d in tree.descendants(id) {
        if sem.is_hidden(d) {
            continue;
        }
        if let Some(t) = tree.node(d).text() {
            out.push_str(t);
            out.push(' ');
        } else if let Some(e) = tree.element(d) {
            for a in ["aria-label", "placeholder", "value", "alt"] {
                if let Some(v) = e.attr(a) {
                    if a != "value" || matches!(e.attr("type"), Some("submit") | Some("button")) {
                        out.push_str(v);
                        out.push(' ');
                    }
                }
            }
        }
        if out.len() > limit {
            break;
        }
    }
    fold(&out)
}

fn has_dialog_semantics(sem: &Semantics, id: NodeId) -> bool {
    let e = sem.tree.element(id).unwrap();
    matches!(sem.role(id), Some("dialog") | Some("alertdialog"))
        || e.has_attr("aria-modal")
        || (e.tag == "dialog" && (e.has_attr("open") || e.modal_dialog))
}

/// Site chrome (headers, navigation bars) is never a blocker.
fn is_site_chrome(sem: &Semantics, id: NodeId) -> bool {
    let tree = sem.tree;
    matches!(
        sem.role(id),
        Some("banner") | Some("navigation") | Some("contentinfo") | Some("menubar")
    ) || tree
        .descendants(id)
        .take(400)
        .any(|d| matches!(sem.role(d), Some("navigation") | Some("search") | Some("menubar")))
}

fn is_candidate(sem: &Semantics, id: NodeId, view: &Rect, hits: &mut dyn HitInfo) -> bool {
    let tree = sem.tree;
    let Some(e) = tree.element(id) else { return false };
    if sem.is_hidden(id) || matches!(e.tag.as_str(), "html" | "body" | "main") || e.rect.is_empty() {
        return false;
    }
    let Some(style) = e.style.as_ref() else { return false };
    let positioned = matches!(style.position, Position::Fixed | Position::Sticky);
    let high_z = style.position != Position::Static && style.z_index.map(|z| z >= HIGH_Z).unwrap_or(false);
    let area = overlap_area(&e.rect, view) / (view.width * view.height).max(1.0);
    positioned
        || high_z
        || has_dialog_semantics(sem, id)
        || matches!(sem.role(id), Some("tooltip"))
        || (area >= SIZE_AREA && style.position != Position::Static && style.position != Position::Relative)
        || (style.position == Position::Absolute && hits.covers_center(id))
}

/// Nothing a user could read, answer or watch: no text, no control and no
/// media or embedded frame (a full-page iframe or canvas is content). Parts
/// that are not drawn (a spinner that never showed) do not count; parts
/// only hidden from assistive tech (aria-hidden) do.
fn is_empty_layer(sem: &Semantics, interactive: &[bool], id: NodeId) -> bool {
    const CONTENT_TAGS: &[&str] = &[
        "iframe", "frame", "canvas", "video", "img", "svg", "object", "embed", "picture", "audio", "input", "textarea",
        "select",
    ];
    let tree = sem.tree;
    // An element whose style was not read sits in a display:none subtree.
    let drawn = |e: NodeId| {
        tree.element(e)
            .and_then(|e| e.style.as_ref())
            .is_some_and(|s| s.display != Display::None && !s.visibility_hidden)
    };
    // The layer may take clicks itself (a click-catcher, a handler counting
    // them) but must not be a control of its own (a link, a button).
    let plain_layer = matches!(sem.role(id), None | Some("generic" | "none" | "presentation"));
    plain_layer
        && tree.descendants(id).all(|d| {
            let owner = if tree.element(d).is_some() {
                Some(d)
            } else {
                tree.node(d).parent
            };
            if !owner.is_some_and(drawn) {
                return true;
            }
            let control = d != id && interactive[d];
            let text = tree.node(d).text().is_some_and(|t| !t.trim().is_empty());
            let content = tree.tag(d).is_some_and(|t| CONTENT_TAGS.contains(&t));
            !(control || text || content)
        })
}

/// A drawn iframe in (or being) a layer with no content of its own, big
/// enough to be read: consent managers often serve their dialog as a page of
/// their own, in an iframe over the page.
fn shown_frame(sem: &Semantics, id: NodeId, view: &Rect) -> Option<NodeId> {
    let tree = sem.tree;
    let least = TOOLTIP_AREA * view.width * view.height;
    tree.descendants(id).find(|&d| {
        tree.tag(d) == Some("iframe")
            && !sem.is_hidden(d)
            && tree.element(d).is_some_and(|e| overlap_area(&e.rect, view) >= least)
    })
}

/// Whether the page has a control outside `id`. A layer that is the whole
/// page (an app in a full-window iframe) is the page, not a blocker over it.
fn page_outside(sem: &Semantics, interactive: &[bool], id: NodeId) -> bool {
    (0..interactive.len()).any(|d| interactive[d] && !sem.is_hidden(d) && !sem.tree.ancestors(d).any(|a| a == id))
}

fn overlap_area(r: &Rect, view: &Rect) -> f64 {
    let w = (r.right().min(view.right()) - r.x.max(view.x)).max(0.0);
    let h = (r.bottom().min(view.bottom()) - r.y.max(view.y)).max(0.0);
    w * h
}

fn classify(
    sem: &Semantics,
    id: NodeId,
    text: &str,
    area: f64,
    rect: &Rect,
    view: &Rect,
) -> (BlockerKind, Vec<String>) {
    let has_password = sem.tree.descendants(id).any(|d| {
        sem.tree
            .element(d)
            .map(|e| e.tag == "input" && e.attr("type") == Some("password"))
            .unwrap_or(false)
    });
    fn score(text: &str, list: Words) -> Vec<&'static str> {
        matches(text, list)
    }
    let consent = score(text, CONSENT);
    let age = score(text, AGE_GATE);
    let mut login = score(text, LOGIN);
    if has_password {
        login.push("password field");
    }
    let paywall = score(text, PAYWALL);
    let promo = score(text, NEWSLETTER_PROMO);
    let strs = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
    // Most specific evidence first: a consent banner mentions "subscribe"
    // rarely, a login wall mentions "privacy" often (in its footer).
    if consent.len() >= 2 || (!consent.is_empty() && login.is_empty() && age.is_empty() && paywall.is_empty()) {
        return (BlockerKind::Consent, strs(consent));
    }
    if !age.is_empty() {
        return (BlockerKind::AgeGate, strs(age));
    }
    if !paywall.is_empty() && (paywall.len() >= login.len() || !has_password) {
        return (BlockerKind::Paywall, strs(paywall));
    }
    if !login.is_empty() {
        return (BlockerKind::Login, strs(login));
    }
    if !promo.is_empty() {
        return (BlockerKind::NewsletterPromo, strs(promo));
    }
    let dialog = has_dialog_semantics(sem, id);
    if area < TOOLTIP_AREA && !dialog {
        return (
            BlockerKind::Tooltip,
            vec![format!("small ({}% of the viewport)", (area * 100.0).round() as u32)],
        );
    }
    let bar = rect.width >= 0.6 * view.width && rect.height < 0.3 * view.height;
    if bar && !dialog {
        return (BlockerKind::Banner, vec!["wide, short bar".into()]);
    }
    (
        BlockerKind::GenericModal,
        vec![if dialog {
            "dialog semantics".into()
        } else {
            "large overlay".into()
        }],
    )
}

/// A button's name as plain words (see [`words`]).
fn label_of(sem: &Semantics, id: NodeId) -> String {
    words(&sem.name(id))
}

/// Elements inside the candidate a user could click.
fn clickables(sem: &Semantics, interactive: &[bool], id: NodeId) -> Vec<NodeId> {
    sem.tree
        .descendants(id)
        .filter(|&d| d != id && interactive[d] && !sem.is_hidden(d))
        .collect()
}

fn is_commit(label: &str) -> bool {
    !label_is(label, DECLINE_TEXTS)
        && decision(label, REJECT_TEXTS, REJECT_OBJECTS).is_none()
        && each(COMMIT_TEXTS).any(|k| contains_phrase(label, k))
}

/// Ranks the close buttons of a candidate, best first.
fn close_buttons(sem: &Semantics, interactive: &[bool], id: NodeId, cand: &Rect) -> Vec<(NodeId, u32, &'static str)> {
    let tree = sem.tree;
    let mut out = Vec::new();
    for b in clickables(sem, interactive, id) {
        let e = tree.element(b).unwrap();
        let label = label_of(sem, b);
        if is_commit(&label) {
            continue;
        }
        let aria = e.attr("aria-label").or(e.attr("title")).map(words).unwrap_or_default();
        let class = e.attr("class").map(fold).unwrap_or_default();
        // (Folded, not plain words: the glyphs are symbols.)
        let text = fold(&crate::render::normalize_ws(&visible_text(sem, b, 80)));
        let glyph = |t: &str| each(CLOSE_GLYPHS).any(|g| g == t);
        let (score, reason) = if decision(&aria, CLOSE_LABELS, CLOSE_OBJECTS).is_some() || aria.starts_with("close") {
            (100, "labelled close/dismiss")
        } else if glyph(&text) || glyph(&fold(&sem.name(b))) {
            (90, "close glyph")
        } else if [
            "data-dismiss",
            "data-bs-dismiss",
            "data-micromodal-close",
            "data-a11y-dialog-hide",
            "data-close",
        ]
        .iter()
        .any(|a| e.has_attr(a))
            || class.split(' ').any(|c| {
                matches!(
                    c,
                    "close" | "btn-close" | "modal-close" | "dismiss" | "close-button" | "closebutton"
                )
            })
        {
            (80, "dismiss attribute or class")
        } else if label_is(&label, DECLINE_TEXTS) || label_is(&words(&text), DECLINE_TEXTS) {
            (70, "declines without committing")
        } else if is_top_right_icon(e.rect, cand) && text.chars().count() <= 1 {
            (60, "icon button in the top-right corner")
        } else {
            continue;
        };
        out.push((b, (score, reason)));
    }
    let by_score = order_by(out, |&(score, _)| u32::MAX - score);
    by_score
        .into_iter()
        .map(|(b, (score, reason))| (b, score, reason))
        .collect()
}

/// `items` ordered by `rank` (lowest first), ties by node id (unique per
/// item): by sorting plain `u64` keys, whose sort the selector index has
/// already; a sort with a comparator of its own would add ~2–3 KB of .wasm
/// per call site. Memory stays in proportion to the items.
fn order_by<T>(items: Vec<(NodeId, T)>, rank: impl Fn(&T) -> u32) -> Vec<(NodeId, T)> {
    let mut keys: Vec<u64> = items
        .iter()
        .map(|(id, t)| (u64::from(rank(t)) << 32) | *id as u64)
        .collect();
    keys.sort_unstable();
    // Node id → position in `items`, found by binary search.
    let mut positions: Vec<u64> = items
        .iter()
        .enumerate()
        .map(|(i, (id, _))| ((*id as u64) << 32) | i as u64)
        .collect();
    positions.sort_unstable();
    let mut slots: Vec<Option<(NodeId, T)>> = items.into_iter().map(Some).collect();
    keys.into_iter()
        .filter_map(|k| {
            let id = k & 0xffff_ffff;
            let at = positions.partition_point(|&p| p >> 32 < id);
            let i = (positions.get(at)? & 0xffff_ffff) as usize;
            slots[i].take()
        })
        .collect()
}

fn is_top_right_icon(r: Rect, cand: &Rect) -> bool {
    r.width <= 64.0 && r.height <= 64.0 && r.x >= cand.x + cand.width * 0.6 && r.y <= cand.y + cand.height * 0.25
}

/// The consent button that says one of `phrases` (with only `objects`
/// around it), the earliest phrase first. A button that opens something
/// (`aria-haspopup`, `aria-expanded`: a settings panel) is no answer.
fn consent_button(sem: &Semantics, interactive: &[bool], id: NodeId, phrases: Words, objects: &str) -> Option<NodeId> {
    let mut best: Option<(NodeId, usize)> = None;
    for b in clickables(sem, interactive, id) {
        let e = sem.tree.element(b).unwrap();
        if e.has_attr("aria-haspopup") || e.has_attr("aria-expanded") {
            continue;
        }
        if let Some(rank) = decision(&label_of(sem, b), phrases, objects) {
            if best.map(|(_, r)| rank < r).unwrap_or(true) {
                best = Some((b, rank));
            }
        }
    }
    best.map(|(b, _)| b)
}

/// Everything the scan needs besides the tree.
pub struct ScanInput<'a> {
    pub sem: &'a Semantics<'a>,
    pub interactive: &'a [bool],
    pub viewport: &'a ViewportInfo,
    /// Ref ids of the nodes the driver may target.
    pub target_of: &'a mut dyn FnMut(NodeId) -> String,
    pub selector_of: &'a dyn Fn(NodeId) -> String,
    /// The document itself is the one candidate (`ScanDocument`): the frame
    /// is a dialog over its parent page, whose scan found its `<iframe>`.
    pub whole_document: bool,
}

pub fn scan(input: &mut ScanInput, hits: &mut dyn HitInfo) -> Vec<BlockerCandidate> {
    let sem = input.sem;
    let tree: &DomTree = sem.tree;
    let view = Rect::new(0.0, 0.0, input.viewport.viewport_width, input.viewport.viewport_height);
    let mut found: Vec<NodeId> = Vec::new();
    // Outermost candidates only: an overlay wrapper and the dialog inside it
    // are one blocker (evidence and buttons come from the whole subtree).
    let mut skip_under: Option<NodeId> = None;
    // Candidates with nothing in them (backdrops, shields), outermost first.
    let mut contentless: Vec<NodeId> = Vec::new();
    // Layers whose only content is an iframe, with that iframe.
    let mut framed: Vec<(NodeId, NodeId)> = Vec::new();
    for id in tree.descendants(DomTree::ROOT) {
        if input.whole_document {
            if tree.tag(id) == Some("body") {
                found.push(id);
                break;
            }
            continue;
        }
        if let Some(s) = skip_under {
            if tree.ancestors(id).any(|a| a == s) {
                continue;
            }
            skip_under = None;
        }
        if tree.element(id).is_none() || !is_candidate(sem, id, &view, hits) {
            continue;
        }
        if is_site_chrome(sem, id) {
            skip_under = Some(id);
            continue;
        }
        // A layer with nothing in it is a backdrop; its sibling is the blocker.
        let has_content = tree.descendants(id).any(|d| {
            d != id && (input.interactive[d] || tree.node(d).text().map(|t| !t.trim().is_empty()).unwrap_or(false))
        });
        if !has_content {
            match shown_frame(sem, id, &view) {
                Some(frame) if page_outside(sem, input.interactive, id) => {
                    framed.push((id, frame));
                    found.push(id);
                    skip_under = Some(id);
                }
                _ => contentless.push(id),
            }
            continue;
        }
        found.push(id);
        skip_under = Some(id);
    }
    // With no blocker found (so not a dialog's backdrop), the outermost empty
    // layer that takes the clicks at the viewport centre is the blocker. (A
    // layer showing a frame, such as a sticky ad, is no dialog it backs.)
    let empty_layer = if found.len() == framed.len() {
        contentless
            .into_iter()
            .find(|&id| is_empty_layer(sem, input.interactive, id) && hits.covers_center(id))
    } else {
        None
    };
    found.extend(empty_layer);
    let mut out = Vec::new();
    for id in found {
        let e = tree.element(id).unwrap();
        let style = e.style.clone().unwrap_or_default();
        let area = overlap_area(&e.rect, &view) / (view.width * view.height).max(1.0);
        let frame = framed.iter().find(|&&(layer, _)| layer == id).map(|&(_, f)| f);
        // A framed layer's words are in its frame; its iframe's title
        // ("Consent Message") is all the page says of them.
        let text = match frame {
            Some(f) => fold(tree.attr(f, "title").unwrap_or_default()),
            None => visible_text(sem, id, 4000),
        };
        let (kind, evidence) = if Some(id) == empty_layer {
            (
                BlockerKind::EmptyOverlay,
                vec!["empty layer over the viewport centre (no text, controls or media)".into()],
            )
        } else {
            classify(sem, id, &text, area, &e.rect, &view)
        };
        let coverage = hits.coverage(id);
        let covers_center = hits.covers_center(id);
        let positioned = matches!(style.position, Position::Fixed | Position::Sticky);
        let high_z = style.z_index.map(|z| z >= HIGH_Z).unwrap_or(false);
        let modal_evidence = has_dialog_semantics(sem, id) || positioned || high_z;
        // Size or position: big, over the centre, or a fixed/sticky layer
        // that is more than a tooltip (cookie bars, corner notices).
        let size_evidence =
            area >= SIZE_AREA || covers_center || (positioned && (area >= 0.03 || e.rect.width >= 0.5 * view.width));
        let mut button = |b: NodeId, score: u32, reason: &str| BlockerButton {
            target: (input.target_of)(b),
            selector: (input.selector_of)(b),
            text: crate::render::normalize_ws(&sem.name(b)),
            score,
            reason: reason.to_string(),
            frame: None,
        };
        // (A frame's document: its corner is the frame's, the body may be
        // no taller than its static content.)
        let corner = if input.whole_document { &view } else { &e.rect };
        let close: Vec<BlockerButton> = close_buttons(sem, input.interactive, id, corner)
            .into_iter()
            .map(|(b, s, r)| button(b, s, r))
            .collect();
        let (reject, accept) = if kind == BlockerKind::Consent {
            (
                consent_button(sem, input.interactive, id, REJECT_TEXTS, REJECT_OBJECTS)
                    .map(|b| button(b, 100, "rejects optional cookies")),
                consent_button(sem, input.interactive, id, ACCEPT_TEXTS, ACCEPT_OBJECTS)
                    .map(|b| button(b, 100, "accepts cookies")),
            )
        } else {
            (None, None)
        };
        out.push((
            id,
            BlockerCandidate {
                target: (input.target_of)(id),
                selector: (input.selector_of)(id),
                kind,
                evidence,
                rect: e.rect,
                area_ratio: (area * 1000.0).round() / 1000.0,
                position: match style.position {
                    Position::Static => "static",
                    Position::Relative => "relative",
                    Position::Absolute => "absolute",
                    Position::Fixed => "fixed",
                    Position::Sticky => "sticky",
                }
                .to_string(),
                z_index: style.z_index,
                hit_coverage: (coverage * 1000.0).round() / 1000.0,
                covers_center,
                modal_evidence,
                size_evidence,
                close,
                reject,
                accept,
                description: crate::modal::describe(sem, id),
                frame: frame.map(|f| (input.selector_of)(f)),
            },
        ));
    }
    // Most obstructive first: size and modal evidence, then over the centre,
    // then the share of the viewport covered (in thousandths); ties in
    // document order (the walk numbers elements in tree order).
    let rank = |c: &BlockerCandidate| {
        let area = (c.area_ratio * 1000.0).clamp(0.0, 1_000_000.0) as u32;
        u32::from(!(c.size_evidence && c.modal_evidence)) << 31 | u32::from(!c.covers_center) << 30 | (1_000_000 - area)
    };
    order_by(out, rank).into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests;
