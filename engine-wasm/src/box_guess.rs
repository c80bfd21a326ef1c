//! Whether a box that was guessed rather than read can be trusted.
//!
//! Inside an offscreen boundary (far outside the viewport) the walk gives
//! in-flow elements the boundary's box instead of reading their own, the
//! dearest read of a snapshot. Only its size can then be wrong, and size
//! matters for targets: a zero-size element gets no ref (it can't be hit).
//! A possible target keeps the guess only when something inside it surely
//! takes room in its own box; otherwise its own box is read after the walk.

use crate::dom::{Display, DomTree, NodeId, NodeKind};
use crate::protocol::Rect;

/// Whether `id` holds content that gives it a size: text with a character
/// that takes room (the walk reads the box of a target whose font size is 0
/// instead of guessing it), or an inline-level element whose own box was
/// read (it differs from `guess`, the box `id` and its in-flow descendants
/// were given) and isn't empty, reached only through inline-level and
/// box-less elements. Block and other boxes are not looked into: they may
/// float or be absolutely positioned, and then don't size their ancestors
/// (an inline-level box is neither: both make it block-level). The options
/// of a select are: they size it. Content that is not displayed doesn't
/// count.
pub fn has_in_flow_content(tree: &DomTree, id: NodeId, guess: &Rect) -> bool {
    let mut stack: Vec<NodeId> = tree.children(id).iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        match &tree.node(n).kind {
            NodeKind::Text(t) => {
                if t.chars().any(takes_room) {
                    return true;
                }
                continue;
            }
            NodeKind::Element(e) => {
                let Some(style) = e.style.as_ref() else { continue };
                let inline_level = matches!(style.display, Display::Inline | Display::InlineBlock);
                if inline_level && !e.rect.is_empty() && e.rect != *guess {
                    return true;
                }
                if !(inline_level || style.display == Display::Contents || e.is("option") || e.is("optgroup")) {
                    continue;
                }
            }
            NodeKind::ShadowRoot | NodeKind::Document => {}
        }
        stack.extend(tree.children(n).iter().rev());
    }
    false
}

/// A character that is neither white space nor drawn with zero width (zero
/// width space and joiners, word joiner, byte order mark, soft hyphen).
fn takes_room(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{AD}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dom::{Position, Style, TreeBuilder};

    const GUESS: Rect = Rect {
        x: 0.0,
        y: 5000.0,
        width: 800.0,
        height: 300.0,
    };

    /// Opens an element with this style and box.
    fn open(b: &mut TreeBuilder, tag: &str, display: Display, position: Position, rect: Rect) -> NodeId {
        let id = b.open_el(tag, &[]);
        b.data(id).style = Some(Style {
            display,
            position,
            ..Default::default()
        });
        b.data(id).rect = rect;
        id
    }

    /// An inline element whose box is the guess.
    fn open_span(b: &mut TreeBuilder) -> NodeId {
        open(b, "span", Display::Inline, Position::Static, GUESS)
    }

    /// Whether a link (box guessed) holding what `fill` builds has content.
    fn link_with(fill: impl FnOnce(&mut TreeBuilder)) -> bool {
        let mut b = TreeBuilder::new();
        let link = open(&mut b, "a", Display::Inline, Position::Static, GUESS);
        fill(&mut b);
        b.close();
        has_in_flow_content(&b.finish(), link, &GUESS)
    }

    #[test]
    fn text_counts_blank_text_does_not() {
        assert!(link_with(|b| {
            open_span(b);
            b.text("Read more");
            b.close();
        }));
        assert!(!link_with(|b| {
            b.text(" ");
            open_span(b);
            b.text(" \n \u{200B}\u{AD}");
            b.close();
        }));
    }

    #[test]
    fn an_element_counts_only_with_a_box_of_its_own() {
        // An icon whose own box was read.
        assert!(link_with(|b| {
            open(
                b,
                "img",
                Display::Inline,
                Position::Static,
                Rect::new(10.0, 5010.0, 16.0, 16.0),
            );
            b.close();
        }));
        // A zero-size one, and one whose box is the guess.
        assert!(!link_with(|b| {
            open(b, "img", Display::Inline, Position::Static, Rect::default());
            b.close();
            open(b, "svg", Display::Inline, Position::Static, GUESS);
            b.close();
        }));
    }

    #[test]
    fn hidden_and_block_level_content_does_not_count() {
        assert!(!link_with(|b| {
            open(b, "span", Display::None, Position::Static, Rect::default());
            b.text("Share");
            b.close();
            // Inside a display:none subtree: style not read.
            let unread = b.open_el("span", &[]);
            b.data(unread).style = None;
            b.text("Share");
            b.close();
            // Absolute, or floated (which isn't read): either way it doesn't
            // size the link.
            open(
                b,
                "span",
                Display::Block,
                Position::Absolute,
                Rect::new(0.0, 5000.0, 50.0, 20.0),
            );
            b.text("Share on Facebook");
            b.close();
            open(
                b,
                "div",
                Display::Block,
                Position::Static,
                Rect::new(0.0, 5000.0, 300.0, 200.0),
            );
            open(
                b,
                "img",
                Display::Inline,
                Position::Static,
                Rect::new(0.0, 5000.0, 300.0, 200.0),
            );
            b.close();
            b.close();
        }));
        // Box-less and sticky inline wrappers are looked through.
        assert!(link_with(|b| {
            open(b, "span", Display::Contents, Position::Static, Rect::default());
            open(b, "b", Display::Inline, Position::Sticky, GUESS);
            b.text("Share");
            b.close();
            b.close();
        }));
    }

    #[test]
    fn a_select_is_sized_by_its_options() {
        let mut b = TreeBuilder::new();
        let select = open(&mut b, "select", Display::InlineBlock, Position::Static, GUESS);
        let option = b.open_el("option", &[]);
        b.data(option).rect = Rect::default();
        b.text("Small");
        b.close();
        b.close();
        assert!(has_in_flow_content(&b.finish(), select, &GUESS));
    }
}
