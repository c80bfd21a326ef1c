//! The page behind a modal, as an outline (`ObscuredMode::Outline`, the
//! default): the model needs its bearings (which page, which section, what
//! it was doing), not every line the modal hides. Landmarks and the first
//! few headings under each are kept, marked `[obscured]`; everything else
//! is counted, and each landmark ends with one line of what it holds:
//! `- … 3,000 articles, 12,000 links, 40 form fields, hidden behind the modal`.
//! Pure: `render` asks which obscured elements to keep and tallies the rest.

/// Roles that stay as the outline's skeleton.
const LANDMARKS: &[&str] = &[
    "banner",
    "navigation",
    "main",
    "contentinfo",
    "complementary",
    "search",
    "region",
    "form",
];

/// Headings listed under one landmark (or at the top level) before the
/// rest are only counted: a long feed has thousands.
pub const MAX_HEADINGS: u32 = 8;

/// What an obscured element becomes in the outline.
#[derive(PartialEq, Eq, Debug)]
pub enum Keep {
    /// A line of its own, its content walked for more of the outline.
    Landmark,
    /// A line of its own (while its landmark has room), nothing inside.
    Heading,
    /// Counted (when it is something countable), its content walked.
    Counted,
}

pub fn keep(role: Option<&str>) -> Keep {
    match role {
        Some("heading") => Keep::Heading,
        Some(r) if crate::dom::among(LANDMARKS, r) => Keep::Landmark,
        _ => Keep::Counted,
    }
}

/// What one landmark (or the top level) holds behind the modal.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Headings listed so far (up to `MAX_HEADINGS`).
    pub listed_headings: u32,
    pub more_headings: u32,
    pub articles: u32,
    pub links: u32,
    pub buttons: u32,
    pub fields: u32,
}

impl Tally {
    /// Counts an obscured element that is not part of the outline.
    pub fn count(&mut self, role: Option<&str>) {
        let Some(r) = role else { return };
        match r {
            "article" => self.articles += 1,
            "link" => self.links += 1,
            "button" => self.buttons += 1,
            "heading" => self.more_headings += 1,
            _ if crate::dom::among(crate::interactive::FORM_FIELD_ROLES, r) => self.fields += 1,
            _ => {}
        }
    }

    /// Whether another heading may have a line of its own.
    pub fn list_heading(&mut self) -> bool {
        if self.listed_headings < MAX_HEADINGS {
            self.listed_headings += 1;
            true
        } else {
            self.more_headings += 1;
            false
        }
    }

    /// The summary line's text (without the `- `), or `None` when nothing
    /// was counted.
    pub fn summary(&self) -> Option<String> {
        let more = if self.listed_headings > 0 { " more" } else { "" };
        let parts: Vec<String> = [
            (self.more_headings, "heading", more),
            (self.articles, "article", ""),
            (self.links, "link", ""),
            (self.buttons, "button", ""),
            (self.fields, "form field", ""),
        ]
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|&(n, what, more)| {
            let s = if n == 1 { "" } else { "s" };
            format!("{}{more} {what}{s}", thousands(n))
        })
        .collect();
        if parts.is_empty() {
            None
        } else {
            Some(format!(
                "… {}, hidden behind the modal",
                crate::words::join_strings(&parts, ", ")
            ))
        }
    }
}

/// `12000` → `12,000`.
pub fn thousands(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12000), "12,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn landmarks_headings_and_the_rest() {
        assert_eq!(keep(Some("main")), Keep::Landmark);
        assert_eq!(keep(Some("navigation")), Keep::Landmark);
        assert_eq!(keep(Some("heading")), Keep::Heading);
        assert_eq!(keep(Some("article")), Keep::Counted);
        assert_eq!(keep(None), Keep::Counted);
    }

    #[test]
    fn a_summary_counts_what_was_not_listed() {
        let mut t = Tally::default();
        assert_eq!(t.summary(), None);
        for _ in 0..3000 {
            t.count(Some("article"));
            t.count(Some("link"));
            t.count(Some("link"));
        }
        for _ in 0..40 {
            t.count(Some("textbox"));
        }
        t.count(Some("button"));
        t.count(Some("paragraph"));
        assert_eq!(
            t.summary().unwrap(),
            "… 3,000 articles, 6,000 links, 1 button, 40 form fields, hidden behind the modal"
        );
        for _ in 0..10 {
            t.list_heading();
        }
        assert_eq!(t.listed_headings, MAX_HEADINGS);
        assert!(t.summary().unwrap().starts_with("… 2 more headings, 3,000 articles"));
    }
}
