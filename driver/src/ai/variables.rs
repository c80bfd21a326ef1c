//! `%name%` variables: secrets and other values the model must never see.
//! The model writes the placeholder; the driver substitutes the value only
//! when it acts, and every request is redacted on the way out as well.
//!
//! A variable may be bound to sites (`pw@bank.example`, as browser-use's
//! domain-keyed secrets): its value is typed only on a page of those
//! domains. A page's text can ask the model to type `%pw%` into a field of
//! its own; on another site the placeholder is refused, not filled.

use std::collections::BTreeMap;

use crate::domains::AllowedDomains;
use crate::error::{Error, Result};
use crate::llm::Secrets;
use crate::page::{Page, Target};

/// One value of a variable and the sites it may be typed on (none: any).
#[derive(Clone, PartialEq)]
struct Binding {
    value: String,
    sites: AllowedDomains,
}

#[derive(Clone, Default, PartialEq)]
pub struct Variables(BTreeMap<String, Vec<Binding>>);

impl std::fmt::Debug for Variables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variables({:?})", self.names())
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `pw@bank.example,login.bank.example` → (`pw`, its sites); a key
/// without `@` may be typed anywhere.
fn split_key(key: &str) -> Result<(&str, AllowedDomains)> {
    let (name, sites) = match key.split_once('@') {
        Some((name, sites)) => {
            let sites: Vec<String> = sites
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(String::from)
                .collect();
            if sites.is_empty() {
                return Err(Error::InvalidAction(format!(
                    "variable {key:?}: name the sites after @ (pw@bank.example), or leave the @ out"
                )));
            }
            // A site is a host (a scheme is let go, as --allowed-domain
            // does): a path would never match, and refuse the value
            // everywhere.
            let host = |d: &String| {
                d.split("://")
                    .last()
                    .unwrap_or_default()
                    .trim_end_matches('/')
                    .to_string()
            };
            if let Some(bad) = sites.iter().find(|d| host(d).contains('/')) {
                return Err(Error::InvalidAction(format!(
                    "variable {key:?}: {bad:?} is no site: give a host, as bank.example or 127.0.0.1:8080"
                )));
            }
            (name, AllowedDomains::new(&sites))
        }
        None => (key, AllowedDomains::default()),
    };
    if !valid_name(name) {
        return Err(Error::InvalidAction(format!(
            "variable name {name:?}: use letters, digits and _ only (written %{name}% in instructions)"
        )));
    }
    Ok((name, sites))
}

impl Variables {
    /// Variables from `name` (or `name@site,site`) → value.
    pub fn new(map: BTreeMap<String, String>) -> Result<Variables> {
        let mut vars: BTreeMap<String, Vec<Binding>> = BTreeMap::new();
        for (key, value) in map {
            let (name, sites) = split_key(&key)?;
            vars.entry(name.to_string()).or_default().push(Binding { value, sites });
        }
        Ok(Variables(vars))
    }

    /// `name=value` or `name@site=value` (the CLI's `--var`): the key as
    /// [`Variables::new`] takes it, and the value.
    pub fn parse_assignment(s: &str) -> Result<(String, String)> {
        let (key, value) = s.split_once('=').ok_or_else(|| {
            Error::InvalidAction(format!(
                "--var expects name=value, got {:?}",
                s.split('=').next().unwrap_or("")
            ))
        })?;
        let key = key.trim().trim_matches('%');
        split_key(key)?;
        Ok((key.to_string(), value.to_string()))
    }

    /// Whether a variable is bound to sites (substitution then reads the
    /// page's URL).
    pub fn has_sites(&self) -> bool {
        self.0.values().flatten().any(|b| !b.sites.is_empty())
    }

    /// `name`'s value on `url`: one bound to its site first, else one for
    /// anywhere. `Err` with the sites when it has values only for others.
    fn value_on(&self, name: &str, url: &str) -> Option<std::result::Result<&str, String>> {
        let bindings = self.0.get(name)?;
        let bound = bindings.iter().find(|b| !b.sites.is_empty() && b.sites.matches(url));
        Some(
            bound
                .or_else(|| bindings.iter().find(|b| b.sites.is_empty()))
                .map(|b| b.value.as_str())
                .ok_or_else(|| {
                    bindings
                        .iter()
                        .flat_map(|b| b.sites.entries().iter().cloned())
                        .collect::<Vec<_>>()
                        .join(", ")
                }),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn names(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    /// The values (for covering them in screenshots).
    pub fn values(&self) -> Vec<String> {
        self.0.values().flatten().map(|b| b.value.clone()).collect()
    }

    /// Replaces known `%name%` placeholders by their values. When there are
    /// variables, a value that is only a placeholder none of them fills
    /// (`%pasword%` for `%password%`, or a forgotten one) is refused: typed
    /// as it stands, it would put the placeholder in the field and look
    /// like success. Other `%…%` text stays as written (`100%sure%` is
    /// text), and so does all of it when no variable was given.
    ///
    /// `url` is the page's the text goes to: a variable bound to other
    /// sites is refused there (nothing is typed).
    pub fn substitute(&self, text: &str, url: &str) -> Result<String> {
        if let Some((wrote, meant)) = self.misspelt_placeholder(text) {
            return Err(Error::InvalidAction(format!(
                "%{wrote}% is no variable: did you mean %{meant}%? (the variables are {})",
                placeholders(self.0.keys())
            )));
        }
        if let Some(name) = whole_placeholder(text).filter(|n| !self.0.is_empty() && !self.0.contains_key(*n)) {
            return Err(Error::InvalidAction(format!(
                "%{name}% is no variable, and would be typed as it stands (the variables are {}): use one of \
them, or give it a value first",
                placeholders(self.0.keys())
            )));
        }
        let mut elsewhere = None;
        let filled = self.replace(text, url, &mut |name, sites| {
            elsewhere.get_or_insert((name.to_string(), sites.to_string()));
        });
        if let Some((name, sites)) = elsewhere {
            let here = url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_else(|| url.to_string());
            return Err(Error::InvalidAction(format!(
                "%{name}% may only be typed on {sites}, and the document it would reach is {here} (a page, or a frame \
on one): nothing was typed (text on a page can ask for a secret; type it only on its own site)"
            )));
        }
        Ok(filled)
    }

    /// [`Variables::substitute`] for what is typed at `target` on `page`
    /// (with none, into what has focus). The address of the document it
    /// reaches is read only when a variable is bound to sites.
    pub async fn substitute_on(&self, text: &str, page: &Page, target: Option<&Target>) -> Result<String> {
        let url = if text.contains('%') {
            self.url_of(page, target).await
        } else {
            String::new()
        };
        self.substitute(text, &url)
    }

    /// The address of the document text typed at `target` on `page`
    /// reaches, as substitution reads it ([`Page::receiving_url`]: a frame
    /// of another site is not the tab's site), and only when a variable is
    /// bound to sites (empty otherwise: nothing reads it).
    pub async fn url_of(&self, page: &Page, target: Option<&Target>) -> String {
        if self.has_sites() {
            page.receiving_url(target).await
        } else {
            String::new()
        }
    }

    /// Replaces known `%name%` placeholders that may be typed on `url`,
    /// leaving any other `%…%` as written: for recorded actions, checked
    /// when they were made (a variable bound to other sites stays a
    /// placeholder). In one pass: a value is never read for placeholders
    /// in its turn (a password `x%code%y` stays as given).
    pub fn fill_in(&self, text: &str, url: &str) -> String {
        self.replace(text, url, &mut |_, _| {})
    }

    /// The one pass of [`Variables::fill_in`]; `elsewhere` hears of each
    /// variable left as written because it is bound to other sites (its
    /// name and theirs).
    fn replace(&self, text: &str, url: &str, elsewhere: &mut dyn FnMut(&str, &str)) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('%') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let known = after.find('%').and_then(|close| {
                let name = &after[..close];
                match self.value_on(name, url)? {
                    Ok(value) => Some((close, value)),
                    Err(sites) => {
                        elsewhere(name, &sites);
                        None
                    }
                }
            });
            match known {
                Some((close, value)) => {
                    out.push_str(value);
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('%');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// `text`'s `%name%`, when `text` is that alone (a field's whole value,
    /// as placeholders are written), that is not a variable but is within
    /// two edits (or a change of case) of one: (written, meant). Text with
    /// more in it is left alone: `first%20name%20last` is a URL's words.
    fn misspelt_placeholder(&self, text: &str) -> Option<(String, String)> {
        let name = whole_placeholder(text)?;
        if self.0.contains_key(name) {
            return None;
        }
        let near = self
            .0
            .keys()
            .find(|known| known.eq_ignore_ascii_case(name) || (name.len() > 3 && edit_distance(known, name) <= 2))?;
        Some((name.to_string(), near.clone()))
    }

    /// The `%name%` placeholders an instruction or task names that are no
    /// variable (a forgotten `--var`): the model would type them as they
    /// stand, and the step would look done. Only whole words count
    /// (`100%sure%` is text).
    pub fn unknown_placeholders_in(&self, instruction: &str) -> Vec<String> {
        let mut unknown: Vec<String> = Vec::new();
        let bytes = instruction.as_bytes();
        let mut i = 0;
        while let Some(open) = instruction[i..].find('%').map(|o| i + o) {
            let Some(close) = instruction[open + 1..].find('%').map(|c| open + 1 + c) else {
                break;
            };
            let name = &instruction[open + 1..close];
            let word_before = open > 0 && bytes[open - 1].is_ascii_alphanumeric();
            let word_after = bytes.get(close + 1).is_some_and(u8::is_ascii_alphanumeric);
            if valid_name(name) && !word_before && !word_after {
                if !self.0.contains_key(name) && !unknown.iter().any(|u| u == name) {
                    unknown.push(name.to_string());
                }
                i = close + 1;
            } else {
                i = open + 1;
            }
        }
        unknown
    }

    /// The error for [`Variables::unknown_placeholders_in`]'s names: a
    /// misspelling of a variable is said as one, else how to give a value
    /// (each way in has its own: `--var`, an MCP `--secrets` file, a batch
    /// line's `vars`).
    pub fn unknown_placeholders_error(&self, unknown: &[String]) -> Error {
        if let Some((wrote, meant)) = unknown
            .iter()
            .find_map(|u| self.misspelt_placeholder(&format!("%{u}%")))
        {
            return Error::InvalidAction(format!(
                "%{wrote}% in the instruction is no variable: did you mean %{meant}%?"
            ));
        }
        let named = placeholders(unknown);
        let given = if self.0.is_empty() {
            "none was given".to_string()
        } else {
            format!("the variables are {}", placeholders(self.0.keys()))
        };
        Error::InvalidAction(format!(
            "{named} in the instruction is no variable ({given}): give it a value (--var {}=… on the command \
line), or write it without the % signs",
            unknown[0]
        ))
    }

    /// Every value, for redaction of outgoing requests.
    pub fn secrets(&self) -> Secrets {
        Secrets::new(
            self.0
                .iter()
                .flat_map(|(k, bindings)| bindings.iter().map(move |b| (k.clone(), b.value.clone()))),
        )
    }

    /// The prompt line that tells the model which placeholders exist.
    pub fn prompt_note(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let said: Vec<String> = self
            .0
            .iter()
            .map(|(name, bindings)| match bindings.iter().all(|b| !b.sites.is_empty()) {
                true => {
                    let sites: Vec<&str> = bindings
                        .iter()
                        .flat_map(|b| b.sites.entries().iter().map(String::as_str))
                        .collect();
                    format!("%{name}% (only on {})", sites.join(", "))
                }
                false => format!("%{name}%"),
            })
            .collect();
        Some(format!(
            "Variables (their values are hidden from you; write the placeholder exactly, e.g. as a fill argument): {}",
            said.join(", ")
        ))
    }
}

/// `name` when `text` is `%name%` alone (spaces around allowed).
fn whole_placeholder(text: &str) -> Option<&str> {
    let name = text.trim().strip_prefix('%')?.strip_suffix('%')?;
    valid_name(name).then_some(name)
}

/// `%a%, %b%`: names as the placeholders they are written as.
fn placeholders<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> String {
    names
        .into_iter()
        .map(|n| format!("%{}%", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Levenshtein distance over bytes (names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_and_notes() {
        let v = Variables::new(BTreeMap::from([("password".into(), "hunter2".into())])).unwrap();
        assert_eq!(v.substitute("%password%!", "").unwrap(), "hunter2!");
        // A placeholder no variable fills is refused, not typed as it stands.
        let e = v.substitute("%other%", "").unwrap_err().to_string();
        assert!(
            e.contains("%other% is no variable") && e.contains("the variables are %password%"),
            "{e}"
        );
        assert_eq!(v.substitute("100%sure% %password%", "").unwrap(), "100%sure% hunter2");
        // A misspelt placeholder would be typed as it stands: refused, with the right one.
        for typo in ["%pasword%", "%PASSWORD%", " %passwrd% "] {
            let e = v.substitute(typo, "").unwrap_err().to_string();
            assert!(e.contains("did you mean %password%?"), "{typo}: {e}");
        }
        // Text with more than a placeholder in it is text.
        let named = Variables::new(BTreeMap::from([("name".into(), "Ada".into())])).unwrap();
        assert_eq!(
            named.substitute("first%20name%20last", "").unwrap(),
            "first%20name%20last"
        );
        assert_eq!(named.substitute("Dear %name%,", "").unwrap(), "Dear Ada,");
        // A value is not read for placeholders in its turn.
        let tricky = Variables::new(BTreeMap::from([
            ("code".into(), "1234".into()),
            ("password".into(), "x%code%y".into()),
        ]))
        .unwrap();
        assert_eq!(tricky.substitute("%password% / %code%", "").unwrap(), "x%code%y / 1234");
        assert_eq!(tricky.fill_in("%%code%%", ""), "%1234%");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        // No variables: every %…% is text.
        assert_eq!(Variables::default().substitute("%pasword%", "").unwrap(), "%pasword%");
        // An instruction that names a placeholder no variable fills.
        assert_eq!(
            v.unknown_placeholders_in("type %password% and %email%, then %email% again; 100%sure% (%x-y%)"),
            ["email"]
        );
        assert!(v.unknown_placeholders_in("save 20% now, or 30%").is_empty());
        let e = Variables::default()
            .unknown_placeholders_error(&["password".into()])
            .to_string();
        assert!(
            e.contains(
                "%password% in the instruction is no variable (none was given): give it a value (--var password="
            ),
            "{e}"
        );
        let e = v.unknown_placeholders_error(&["pasword".into()]).to_string();
        assert!(e.contains("did you mean %password%?"), "{e}");
        assert!(v.prompt_note().unwrap().contains("%password%"));
        assert!(!v.prompt_note().unwrap().contains("hunter2"));
        assert!(!format!("{v:?}").contains("hunter2"));
        assert_eq!(
            Variables::parse_assignment("pw=a=b").unwrap(),
            ("pw".into(), "a=b".into())
        );
        assert!(Variables::parse_assignment("no-equals").is_err());
        assert!(Variables::new(BTreeMap::from([("bad name".into(), "x".into())])).is_err());
    }

    #[test]
    fn a_variable_bound_to_sites_is_typed_only_there() {
        let (key, value) = Variables::parse_assignment("pw@bank.example,127.0.0.1:8080=s3cret").unwrap();
        assert_eq!(key, "pw@bank.example,127.0.0.1:8080");
        let v = Variables::new(BTreeMap::from([
            (key, value),
            ("pin@other.example".into(), "1111".into()),
            ("pin@bank.example".into(), "4096".into()),
            ("email".into(), "ada@example.org".into()),
        ]))
        .unwrap();
        assert!(v.has_sites());
        assert_eq!(v.names(), ["email", "pin", "pw"]);
        let bank = "https://login.bank.example/signin";
        assert_eq!(v.substitute("%pw%", bank).unwrap(), "s3cret");
        assert_eq!(v.substitute("%pw%", "http://127.0.0.1:8080/").unwrap(), "s3cret");
        assert_eq!(v.substitute("%pin%", bank).unwrap(), "4096", "each site its own value");
        assert_eq!(v.substitute("%pin%", "https://other.example/").unwrap(), "1111");
        let e = v
            .substitute("my %pw%", "https://evil.test/comments")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "%pw% may only be typed on bank.example, 127.0.0.1:8080, and the document it would reach is evil.test"
            ),
            "{e}"
        );
        assert!(
            v.substitute("%pw%", "http://127.0.0.1:9999/").is_err(),
            "the port is pinned"
        );
        assert_eq!(
            v.substitute("%email%", "https://evil.test/").unwrap(),
            "ada@example.org"
        );
        // A record replayed elsewhere keeps the placeholder.
        assert_eq!(v.fill_in("%pw%/%email%", "https://evil.test/"), "%pw%/ada@example.org");
        // Every value is still kept out of requests and screenshots.
        assert_eq!(v.values().len(), 4);
        assert_eq!(v.secrets().redact("s3cret 4096 1111"), "%pw% %pin% %pin%");
        let note = v.prompt_note().unwrap();
        assert!(
            note.contains("%pw% (only on bank.example, 127.0.0.1:8080)") && note.contains("%email%,"),
            "{note}"
        );
        assert!(!note.contains("s3cret"));
        // A scheme or capitals are let go; a path is no site.
        let (key, value) = Variables::parse_assignment("pw@https://Bank.Example/=s3cret").unwrap();
        let v = Variables::new(BTreeMap::from([(key, value)])).unwrap();
        assert_eq!(v.substitute("%pw%", bank).unwrap(), "s3cret");
        for bad in ["pw@=x", "p w@a.example=x", "pw@bank.example/login=x"] {
            assert!(Variables::parse_assignment(bad).is_err(), "{bad}");
        }
    }
}
