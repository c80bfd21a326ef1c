//! Pure rules for acting on elements: which inputs take typing or a value,
//! editability, the action point, choosing `<select>` options. The requests
//! and answers (`TargetRequest`, `TargetInfo`, `DomAction`…) are protocol
//! types (`protocol/actions.rs`); the adapter measures and acts.
use crate::protocol::Rect;

/// Input types whose value a user types as text.
pub fn is_text_input(input_type: &str) -> bool {
    matches!(
        input_type,
        "" | "text" | "email" | "password" | "search" | "tel" | "url" | "number"
    )
}

/// Input types a user sets with a picker: `fill` sets the value directly.
pub fn is_value_input(input_type: &str) -> bool {
    matches!(
        input_type,
        "date" | "datetime-local" | "month" | "week" | "time" | "color" | "range"
    )
}

/// Whether `fill`/`type` can edit an element, from its facts.
pub fn editable(tag: &str, input_type: &str, readonly: bool, content_editable: bool) -> bool {
    if content_editable {
        return true;
    }
    if readonly {
        return false;
    }
    match tag {
        "textarea" => true,
        "input" => is_text_input(input_type) || is_value_input(input_type),
        _ => false,
    }
}

/// The action point: centre of the part of `rect` inside the viewport.
pub fn action_point(rect: &Rect, viewport: &Rect) -> Option<(f64, f64)> {
    let visible = crate::snapshot::clip_rect(rect, viewport)?;
    Some((visible.x + visible.width / 2.0, visible.y + visible.height / 2.0))
}

/// Picks the option indexes to select: by exact label first, then value,
/// then trimmed case-insensitive label. `options` is (label, value).
pub fn choose_options(options: &[(String, String)], wanted: &[String]) -> Result<Vec<usize>, String> {
    let mut chosen = Vec::new();
    for w in wanted {
        // As the snapshot lists it (`Green [disabled]`): the label is before.
        let w: &str = w.strip_suffix(" [disabled]").unwrap_or(w);
        let norm = |s: &str| crate::words::collapse_whitespace(s).to_ascii_lowercase();
        let i = options
            .iter()
            .position(|(l, _)| l == w)
            .or_else(|| options.iter().position(|(_, v)| v == w))
            .or_else(|| options.iter().position(|(l, _)| norm(l) == norm(w)));
        match i {
            Some(i) => chosen.push(i),
            None => {
                let labels = crate::words::join(&mut options.iter().map(|(l, _)| l.as_str()).take(20), "\", \"");
                return Err(format!("no option \"{w}\"; options are \"{labels}\""));
            }
        }
    }
    Ok(chosen)
}

/// The chosen options as the result says them, one per line: by label,
/// with the value too where another option has the same label (else the
/// answer could not tell which was taken).
pub fn chosen_labels(options: &[(String, String)], chosen: &[usize]) -> String {
    let mut out = String::new();
    for &i in chosen {
        let (label, value) = &options[i];
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(label);
        if options.iter().filter(|(l, _)| l == label).count() > 1 {
            out.push_str(" (value \"");
            out.push_str(value);
            out.push_str("\")");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editability() {
        assert!(editable("input", "email", false, false));
        assert!(editable("input", "", false, false));
        assert!(editable("input", "date", false, false));
        assert!(!editable("input", "checkbox", false, false));
        assert!(!editable("input", "text", true, false));
        assert!(editable("textarea", "", false, false));
        assert!(editable("div", "", false, true));
        assert!(!editable("button", "", false, false));
    }

    #[test]
    fn action_point_is_centre_of_visible_part() {
        let vp = Rect::new(0.0, 0.0, 100.0, 100.0);
        assert_eq!(
            action_point(&Rect::new(10.0, 10.0, 20.0, 20.0), &vp),
            Some((20.0, 20.0))
        );
        assert_eq!(
            action_point(&Rect::new(90.0, 90.0, 20.0, 20.0), &vp),
            Some((95.0, 95.0))
        );
        assert_eq!(action_point(&Rect::new(200.0, 0.0, 20.0, 20.0), &vp), None);
    }

    #[test]
    fn options_by_label_then_value() {
        let opts = vec![
            ("Small".to_string(), "s".to_string()),
            ("Medium ".to_string(), "m".to_string()),
        ];
        assert_eq!(choose_options(&opts, &["Small".into()]), Ok(vec![0]));
        assert_eq!(choose_options(&opts, &["m".into()]), Ok(vec![1]));
        assert_eq!(choose_options(&opts, &["medium".into()]), Ok(vec![1]));
        assert!(choose_options(&opts, &["XL".into()]).unwrap_err().contains("Small"));
        assert_eq!(choose_options(&opts, &["Medium [disabled]".into()]), Ok(vec![1]));
        let twins = [
            ("Same".to_string(), "a".to_string()),
            ("Same".to_string(), "b".to_string()),
            ("Other".to_string(), "c".to_string()),
        ];
        assert_eq!(chosen_labels(&twins, &[1]), "Same (value \"b\")");
        assert_eq!(chosen_labels(&twins, &[2, 0]), "Other\nSame (value \"a\")");
    }
}
