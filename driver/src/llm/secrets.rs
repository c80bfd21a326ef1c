//! Values that must never reach the model (`--var name=value`): each
//! occurrence in a request is replaced by its `%name%` placeholder before
//! sending, in every form a page or a tool result may carry it.

use std::fmt;

/// See the module docs.
#[derive(Clone, Default)]
pub struct Secrets {
    /// (name, the forms of its value), longest value first.
    pairs: Vec<(String, Vec<String>)>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.pairs.iter().map(|(n, _)| n.as_str()).collect();
        write!(f, "Secrets({names:?})")
    }
}

impl Secrets {
    pub fn new(pairs: impl IntoIterator<Item = (String, String)>) -> Secrets {
        let mut pairs: Vec<(String, String)> = pairs.into_iter().filter(|(_, v)| !v.is_empty()).collect();
        // Longest first, so a value that contains another is replaced whole.
        pairs.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        Secrets {
            pairs: pairs
                .into_iter()
                .map(|(name, value)| (name, all_forms(&value)))
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Replaces every secret value by `%name%`: as typed, escaped inside
    /// JSON text, and percent- or form-encoded as URLs carry it (a GET
    /// form, a login redirect), with upper- or lower-case escapes.
    ///
    /// Matched as written, in capitals (`ADA-LOVELACE-42`) and capitalised
    /// (`Ada-lovelace-42`), as pages echo a name or a code back: not in any
    /// case, and the two variants only for values of
    /// [`CASE_VARIANTS_FROM`] characters or more. The text is a whole
    /// request (wire keys, base64 screenshots), where a short value matched
    /// loosely would rewrite `"role":"user"` or a run of image data.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, forms) in &self.pairs {
            let placeholder = format!("%{name}%");
            for form in forms {
                out = out.replace(form.as_str(), &placeholder);
            }
        }
        out
    }
}

/// The shortest value also looked for in capitals and capitalised.
const CASE_VARIANTS_FROM: usize = 6;

/// The forms of `value` and of its letter-case variants (see
/// [`Secrets::redact`]), longest first.
fn all_forms(value: &str) -> Vec<String> {
    let mut all = forms(value);
    if value.chars().count() >= CASE_VARIANTS_FROM {
        let mut chars = value.chars();
        let capitalised: String = chars
            .next()
            .into_iter()
            .flat_map(char::to_uppercase)
            .chain(chars)
            .collect();
        for variant in [value.to_uppercase(), capitalised] {
            if variant != value {
                all.extend(forms(&variant));
            }
        }
    }
    // Longest first; equal ones side by side, for dedup.
    all.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    all.dedup();
    all
}

/// The forms of `value` to look for (unsorted, maybe repeated).
fn forms(value: &str) -> Vec<String> {
    let json = serde_json::to_string(value).unwrap_or_default();
    let encoded = [
        percent_encoded(value, b"-_.~", false),
        // encodeURIComponent leaves these too.
        percent_encoded(value, b"-_.~!'()*", false),
        // application/x-www-form-urlencoded, as a form submits it.
        percent_encoded(value, b"-_.*", true),
    ];
    let mut forms = vec![value.to_string(), json.trim_matches('"').to_string()];
    // Also with lower-case hex digits (`%2b`), as some servers write them.
    forms.extend(encoded.iter().map(|f| lower_case_escapes(f)));
    forms.extend(encoded);
    forms
}

/// `value` with every byte but ASCII letters, digits and `keep` as `%XX`
/// (a space as `+` when `space_as_plus`).
fn percent_encoded(value: &str, keep: &[u8], space_as_plus: bool) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for &b in value.as_bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else if b == b' ' && space_as_plus {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `encoded` with the hex digits of its `%XX` escapes in lower case.
fn lower_case_escapes(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut chars = encoded.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' {
            out.extend(chars.by_ref().take(2).map(|h| h.to_ascii_lowercase()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_raw_and_escaped() {
        let s = Secrets::new(vec![("pw".to_string(), "hun\"ter2".to_string())]);
        let body = serde_json::json!({"content": "type hun\"ter2 now"}).to_string();
        let red = s.redact(&body);
        assert!(!red.contains("ter2"), "{red}");
        assert!(red.contains("%pw%"));
    }

    #[test]
    fn secrets_in_urls_are_redacted_and_the_request_around_them_kept() {
        let s = Secrets::new(vec![
            ("email".to_string(), "john.doe+vip@corp.com".to_string()),
            ("phrase".to_string(), "open sesame (now)".to_string()),
        ]);
        for text in [
            "URL: http://x/form?email=john.doe%2Bvip%40corp.com&go=1",
            "URL: http://x/form?email=john.doe%2bvip%40corp.com",
        ] {
            let red = s.redact(text);
            assert!(red.contains("%email%") && !red.contains("corp"), "{red}");
        }
        // A page's echo in capitals, or capitalised, is redacted too.
        let code = Secrets::new(vec![("code".to_string(), "ada-lovelace-42".to_string())]);
        assert_eq!(
            code.redact("Hello ADA-LOVELACE-42, Ada-lovelace-42 and ada-lovelace-42"),
            "Hello %code%, %code% and %code%"
        );
        // A short value is matched as written only: it must not rewrite the
        // wire's own words or image data.
        let user = Secrets::new(vec![("who".to_string(), "User".to_string())]);
        assert_eq!(
            user.redact(r#"{"role":"user","text":"User"}"#),
            r#"{"role":"user","text":"%who%"}"#
        );
        for text in [
            "q=open+sesame+%28now%29",
            "q=open%20sesame%20(now)",
            "q=open%20sesame%20%28now%29",
        ] {
            let red = s.redact(text);
            assert_eq!(red, "q=%phrase%", "{text}");
        }
        // Text around a match keeps its own case and bytes.
        assert_eq!(
            s.redact("Ünïcode john.doe+vip@corp.com Ünïcode"),
            "Ünïcode %email% Ünïcode"
        );
    }
}
