//! Values that must never reach the model (`--var name=value`): each
//! occurrence in a request is replaced by its `%name%` placeholder before
//! sending, in every form a page or a tool result may carry it.

use std::fmt;

/// See the module docs.
#[derive(Clone, Default)]
pub struct Secrets {
    /// (name, the forms of its value), longest value first.
    pairs: Vec<(String, Vec<String>)>,
    /// The values as given, longest first: what a screenshot must not show.
    values: Vec<String>,
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
            values: pairs.iter().map(|(_, v)| v.clone()).collect(),
            pairs: pairs
                .into_iter()
                .map(|(name, value)| (name, all_forms(&value)))
                .collect(),
        }
    }

    /// The values as given (for covering them in screenshots).
    pub fn values(&self) -> &[String] {
        &self.values
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
    /// [`CASE_VARIANTS_FROM`] characters or more. A value shorter than
    /// that (a PIN, a CVV) is matched only where it stands alone, not
    /// inside a word or number (`e12`, `2300`): there it is someone
    /// else's text, and rewriting it would garble refs and prices.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, forms) in &self.pairs {
            let placeholder = format!("%{name}%");
            for form in forms {
                out = if form.chars().count() < CASE_VARIANTS_FROM {
                    replace_standing_alone(&out, form, &placeholder)
                } else {
                    out.replace(form.as_str(), &placeholder)
                };
            }
            // A text clipped inside a value (a long title, "Welcome Hunt…")
            // keeps the value's start: it goes too.
            if out.contains('…') {
                for form in forms.iter().filter(|f| f.chars().count() >= CASE_VARIANTS_FROM) {
                    let chars: Vec<char> = form.chars().collect();
                    let start: String = chars[..CLIPPED_FROM].iter().collect();
                    if !out.contains(&start) {
                        continue;
                    }
                    for keep in (CLIPPED_FROM..chars.len()).rev() {
                        let clipped: String = chars[..keep].iter().chain(['…'].iter()).collect();
                        out = replace_at_word_start(&out, &clipped, &format!("{placeholder}…"));
                    }
                }
            }
        }
        out
    }

    /// Redacts the texts of a JSON request or response: its string values,
    /// not its keys, numbers or image data (an image source's base64
    /// `data`, `data:image/…` URLs), and not the top level's tool
    /// definitions, which are Sightline's own.
    pub fn redact_json(&self, value: &mut serde_json::Value) {
        if self.is_empty() {
            return;
        }
        if let serde_json::Value::Object(map) = value {
            for (_, v) in map.iter_mut().filter(|(k, _)| k.as_str() != "tools") {
                self.redact_texts(v);
            }
        } else {
            self.redact_texts(value);
        }
    }

    fn redact_texts(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(s) if !s.starts_with("data:image/") => *s = self.redact(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_texts(v)),
            Value::Object(map) => {
                // An image's source: Anthropic's `media_type`, Gemini's `mime_type`/`mimeType`.
                let image = ["media_type", "mime_type", "mimeType"].iter().any(|k| {
                    map.get(*k)
                        .and_then(Value::as_str)
                        .is_some_and(|m| m.starts_with("image/"))
                });
                for (key, v) in map.iter_mut() {
                    if !(image && key == "data") {
                        self.redact_texts(v);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `text` with each occurrence of `form` that starts a word (no letter or
/// digit before it) replaced by `placeholder`: "Compas…" keeps its text.
fn replace_at_word_start(text: &str, form: &str, placeholder: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(form) {
        let starts_word = !rest[..at].chars().next_back().is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..at]);
        out.push_str(if starts_word { placeholder } else { form });
        rest = &rest[at + form.len()..];
    }
    out.push_str(rest);
    out
}

/// `text` with each occurrence of `form` that no letter or digit touches
/// replaced by `placeholder`.
fn replace_standing_alone(text: &str, form: &str, placeholder: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(at) = rest.find(form) {
        let (head, tail) = rest.split_at(at);
        let prev = head.chars().next_back().or(before);
        let next = tail[form.len()..].chars().next();
        out.push_str(head);
        if word(prev) || word(next) {
            out.push_str(form);
        } else {
            out.push_str(placeholder);
        }
        before = form.chars().next_back();
        rest = &tail[form.len()..];
    }
    out.push_str(rest);
    out
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

/// The shortest start of a value, clipped with "…", that is redacted.
const CLIPPED_FROM: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_clipped_in_a_text_is_redacted_by_its_start() {
        let s = Secrets::new([("pw".to_string(), "Hunter2Secret".to_string())]);
        assert_eq!(s.redact("Title: login Hunt…"), "Title: login %pw%…");
        assert_eq!(s.redact("Hunter2Secret and Hunter2S…"), "%pw% and %pw%…");
        assert_eq!(s.redact("a Hu… b"), "a Hu… b", "two letters are anyone's");
        assert_eq!(s.redact("ReHunt… Hunt…"), "ReHunt… %pw%…", "only where a word starts");
    }

    #[test]
    fn a_short_value_is_redacted_where_it_stands_alone_and_a_request_stays_whole() {
        let s = Secrets::new(vec![
            ("cvv".to_string(), "300".to_string()),
            ("pin".to_string(), "12".to_string()),
        ]);
        assert_eq!(
            s.redact("CVV 300, e12 [ref=e300] costs 2300 or 300€; PIN: 12."),
            "CVV %cvv%, e12 [ref=e300] costs 2300 or %cvv%€; PIN: %pin%."
        );
        let mut body = serde_json::json!({
            "max_tokens": 300,
            "tools": [{"name": "wait", "description": "up to 300 ms", "parameters": {"maximum": 30000}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "- textbox \"CVV\" [ref=e12]: 300"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AB 300 CD"}},
                    {"type": "text", "data": "a tool's data: 300"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AB 300 CD"}}
                ]},
                {"role": "assistant", "tool_calls": [{"function": {"arguments": "{\"value\":\"12\"}"}}]}
            ]
        });
        s.redact_json(&mut body);
        assert_eq!(body["max_tokens"], 300);
        assert_eq!(body["tools"][0]["description"], "up to 300 ms");
        let content = &body["messages"][0]["content"];
        assert_eq!(content[0]["text"], "- textbox \"CVV\" [ref=e12]: %cvv%");
        assert_eq!(content[1]["source"]["data"], "AB 300 CD");
        assert_eq!(
            content[2]["data"], "a tool's data: %cvv%",
            "only an image's data is left alone"
        );
        assert_eq!(content[3]["image_url"]["url"], "data:image/png;base64,AB 300 CD");
        assert_eq!(
            body["messages"][1]["tool_calls"][0]["function"]["arguments"],
            "{\"value\":\"%pin%\"}"
        );
    }

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
