//! Viewport metrics and the page-position header lines.
use crate::dom::{DomTree, NodeId};
use crate::protocol::{Rect, ViewportInfo};

/// Tolerance for sub-pixel scroll positions (zoom, fractional layouts).
const EDGE_TOLERANCE_PX: f64 = 2.0;

pub fn viewport_info(scroll_x: f64, scroll_y: f64, vw: f64, vh: f64, doc_w: f64, doc_h: f64) -> ViewportInfo {
    let vh_safe = if vh > 0.0 { vh } else { 1.0 };
    let doc_h = doc_h.max(vh);
    let at_top = scroll_y <= EDGE_TOLERANCE_PX;
    let at_bottom = scroll_y + vh >= doc_h - EDGE_TOLERANCE_PX;
    // Viewports to an edge, rounded; a part of one counts as one, so that
    // "0 above" means the top has been reached, and nothing less.
    let viewports = |px: f64, at_edge: bool| {
        if at_edge {
            0
        } else {
            ((px / vh_safe).round() as u32).max(1)
        }
    };
    let pages_above = viewports(scroll_y, at_top);
    let pages_below = viewports(doc_h - scroll_y - vh, at_bottom);
    ViewportInfo {
        scroll_x,
        scroll_y,
        viewport_width: vw,
        viewport_height: vh,
        doc_width: doc_w.max(vw),
        doc_height: doc_h,
        pages_above,
        pages_below,
        at_top,
        at_bottom,
    }
}

/// An app's shell: a document that fits its window while its content
/// scrolls in a box. That box is the largest scrolling one in view that
/// fills a quarter of the view and scrolls down: the one `scroll` moves
/// (driver's SCROLL_JS). `scroll_metrics` (the page's to say) gives a box's
/// `scrollTop`, `clientHeight` and `scrollHeight`, `None` for one that
/// scrolls sideways only (a carousel is no page); the box comes with them.
pub fn shell_scroller(
    tree: &DomTree,
    v: &ViewportInfo,
    scroll_metrics: &mut dyn FnMut(NodeId) -> Option<(f64, f64, f64)>,
) -> Option<(NodeId, (f64, f64, f64))> {
    if !(v.at_top && v.at_bottom) {
        return None;
    }
    let view = viewport_rect(v);
    // (Ties go to the first, as in SCROLL_JS.)
    let mut best = (view.width * view.height / 4.0 - 1.0, None);
    for id in 0..tree.len() {
        let Some(e) = tree
            .element(id)
            .filter(|e| e.style.as_ref().is_some_and(|s| s.scrollable))
        else {
            continue;
        };
        let w = e.rect.right().min(view.right()) - e.rect.x.max(0.0);
        let h = e.rect.bottom().min(view.bottom()) - e.rect.y.max(0.0);
        if w > 0.0 && h > 0.0 && w * h > best.0 {
            if let Some(m) = scroll_metrics(id) {
                best = (w * h, Some((id, m)));
            }
        }
    }
    best.1
}

/// The window's position, with an app's shell's from its box: scrolled
/// `top` px of `height`, `view` px shown.
pub fn in_shell(mut v: ViewportInfo, top: f64, view: f64, height: f64) -> ViewportInfo {
    let inner = viewport_info(0.0, top, v.viewport_width, view, v.viewport_width, height);
    (v.pages_above, v.pages_below, v.at_top, v.at_bottom) =
        (inner.pages_above, inner.pages_below, inner.at_top, inner.at_bottom);
    v
}

/// The viewport rectangle in viewport coordinates.
pub fn viewport_rect(v: &ViewportInfo) -> Rect {
    Rect::new(0.0, 0.0, v.viewport_width, v.viewport_height)
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        "viewport"
    } else {
        "viewports"
    }
}

/// `# Page position: …`: viewports above and below, an edge said
/// as reached (`at the top, 3 viewports below`; "0 above" would say the
/// same less plainly), and a page that fits the viewport said as such.
pub fn position_line(v: &ViewportInfo) -> String {
    if v.at_top && v.at_bottom && v.pages_below == 0 {
        return "# Page position: the whole page is in view.".into();
    }
    let side = |n: u32, at_edge: bool, edge: &str, direction: &str| {
        if at_edge {
            format!("at the {edge}")
        } else {
            format!("{n} {} {direction}", plural(n))
        }
    };
    format!(
        "# Page position: {}, {}.",
        side(v.pages_above, v.at_top, "top", "above"),
        side(v.pages_below, v.at_bottom, "bottom", "below")
    )
}

/// Footer hint for viewport mode.
pub fn offscreen_hint_lines(above: u32, below: u32) -> Vec<String> {
    let mut out = Vec::new();
    let noun = |n: u32| {
        if n == 1 {
            ("interactive element", "it")
        } else {
            ("interactive elements", "them")
        }
    };
    if below > 0 {
        let (what, it) = noun(below);
        out.push(format!("# {below} {what} below the viewport; scroll down to see {it}."));
    }
    if above > 0 {
        let (what, it) = noun(above);
        out.push(format!("# {above} {what} above the viewport; scroll up to see {it}."));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_middle_bottom_and_short_pages() {
        let top = viewport_info(0.0, 0.0, 1280.0, 720.0, 1280.0, 3000.0);
        assert_eq!(
            (top.pages_above, top.pages_below, top.at_top, top.at_bottom),
            (0, 3, true, false)
        );
        assert_eq!(position_line(&top), "# Page position: at the top, 3 viewports below.");

        let mid = viewport_info(0.0, 1000.0, 1280.0, 720.0, 1280.0, 3000.0);
        assert_eq!(
            (mid.pages_above, mid.pages_below, mid.at_top, mid.at_bottom),
            (1, 2, false, false),
            "1.4 above and 1.8 below, rounded"
        );
        assert_eq!(
            position_line(&mid),
            "# Page position: 1 viewport above, 2 viewports below."
        );
        // Parts of a viewport on both sides: one each, not "0 … 0" with
        // neither edge reached.
        let partial = viewport_info(0.0, 576.0, 1280.0, 720.0, 1280.0, 1462.0);
        assert_eq!((partial.pages_above, partial.pages_below), (1, 1));

        let bottom = viewport_info(0.0, 2280.0, 1280.0, 720.0, 1280.0, 3000.0);
        assert_eq!((bottom.pages_above, bottom.pages_below, bottom.at_bottom), (3, 0, true));
        assert_eq!(
            position_line(&bottom),
            "# Page position: 3 viewports above, at the bottom."
        );

        let short = viewport_info(0.0, 0.0, 1280.0, 720.0, 1280.0, 300.0);
        assert_eq!(
            (short.pages_above, short.pages_below, short.at_top, short.at_bottom),
            (0, 0, true, true)
        );
        assert_eq!(short.doc_height, 720.0);
        assert_eq!(position_line(&short), "# Page position: the whole page is in view.");
    }

    #[test]
    fn singular_and_hints() {
        let v = viewport_info(0.0, 720.0, 1280.0, 720.0, 1280.0, 1440.0);
        assert_eq!(position_line(&v), "# Page position: 1 viewport above, at the bottom.");
        assert_eq!(
            offscreen_hint_lines(2, 37),
            vec![
                "# 37 interactive elements below the viewport; scroll down to see them.".to_string(),
                "# 2 interactive elements above the viewport; scroll up to see them.".to_string()
            ]
        );
        assert!(offscreen_hint_lines(0, 0).is_empty());
        assert_eq!(
            offscreen_hint_lines(0, 1),
            vec!["# 1 interactive element below the viewport; scroll down to see it.".to_string()]
        );
    }
    #[test]
    fn an_app_shells_position_is_its_content_boxs() {
        use crate::dom::{Style, TreeBuilder};
        let fits = viewport_info(0.0, 0.0, 1000.0, 800.0, 1000.0, 800.0);
        let mut b = TreeBuilder::new();
        b.open_el("body", &[]);
        let scroller = |b: &mut TreeBuilder, rect: Rect| {
            let id = b.el("div", &[]);
            b.data(id).style = Some(Style {
                scrollable: true,
                ..Default::default()
            });
            b.data(id).rect = rect;
            id
        };
        // A small scrolling list, then the content box: the larger one.
        scroller(&mut b, Rect::new(0.0, 50.0, 120.0, 200.0));
        let main = scroller(&mut b, Rect::new(0.0, 50.0, 1000.0, 750.0));
        let t = b.finish();
        let metrics = (0.0, 750.0, 7500.0);
        assert_eq!(shell_scroller(&t, &fits, &mut |_| Some(metrics)), Some((main, metrics)));
        // One that scrolls sideways only is passed over.
        assert_eq!(
            shell_scroller(&t, &fits, &mut |id| Some(metrics).filter(|_| id != main)),
            None
        );
        // A page that scrolls itself is not a shell.
        let long = viewport_info(0.0, 0.0, 1000.0, 800.0, 1000.0, 3000.0);
        assert_eq!(shell_scroller(&t, &long, &mut |_| Some(metrics)), None);
        // 7,500 px of content, 750 shown, scrolled 1,500 down.
        let v = in_shell(fits, 1500.0, 750.0, 7500.0);
        assert_eq!(
            (v.pages_above, v.pages_below, v.at_top, v.at_bottom),
            (2, 7, false, false)
        );
        assert_eq!(
            position_line(&v),
            "# Page position: 2 viewports above, 7 viewports below."
        );
        assert_eq!((v.scroll_y, v.viewport_height), (0.0, 800.0));
    }
}
