//! `%name%` variables: secrets and other values the model must never see.
//! The model writes the placeholder; the driver substitutes the value only
//! when it acts, and every request is redacted on the way out as well.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::llm::Secrets;

#[derive(Clone, Default, PartialEq)]
pub struct Variables(BTreeMap<String, String>);

impl std::fmt::Debug for Variables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Variables({:?})", self.names())
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Variables {
    pub fn new(map: BTreeMap<String, String>) -> Result<Variables> {
        if let Some(bad) = map.keys().find(|k| !valid_name(k)) {
            return Err(Error::InvalidAction(format!(
                "variable name {bad:?}: use letters, digits and _ only (written %{bad}% in instructions)"
            )));
        }
        Ok(Variables(map))
    }

    /// `name=value` (the CLI's `--var`).
    pub fn parse_assignment(s: &str) -> Result<(String, String)> {
        let (name, value) = s.split_once('=').ok_or_else(|| {
            Error::InvalidAction(format!(
                "--var expects name=value, got {:?}",
                s.split('=').next().unwrap_or("")
            ))
        })?;
        let name = name.trim().trim_matches('%').to_string();
        if !valid_name(&name) {
            return Err(Error::InvalidAction(format!(
                "variable name {name:?}: use letters, digits and _ only"
            )));
        }
        Ok((name, value.to_string()))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn names(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    /// The values (for covering them in screenshots).
    pub fn values(&self) -> Vec<String> {
        self.0.values().cloned().collect()
    }

    /// Replaces known `%name%` placeholders by their values. When there are
    /// variables, a value that is only a placeholder none of them fills
    /// (`%pasword%` for `%password%`, or a forgotten one) is refused: typed
    /// as it stands, it would put the placeholder in the field and look
    /// like success. Other `%…%` text stays as written (`100%sure%` is
    /// text), and so does all of it when no variable was given.
    pub fn substitute(&self, text: &str) -> Result<String> {
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
        Ok(self.fill_in(text))
    }

    /// Replaces known `%name%` placeholders, leaving any other `%…%` as
    /// written: for recorded actions, checked when they were made.
    /// In one pass: a value is never read for placeholders in its turn
    /// (a password `x%code%y` stays as given).
    pub fn fill_in(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('%') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let known = after
                .find('%')
                .and_then(|close| self.0.get(&after[..close]).map(|value| (close, value)));
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
        Secrets::new(self.0.iter().map(|(k, v)| (k.clone(), v.clone())))
    }

    /// The prompt line that tells the model which placeholders exist.
    pub fn prompt_note(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        Some(format!(
            "Variables (their values are hidden from you; write the placeholder exactly, e.g. as a fill argument): {}",
            placeholders(self.0.keys())
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
        assert_eq!(v.substitute("%password%!").unwrap(), "hunter2!");
        // A placeholder no variable fills is refused, not typed as it stands.
        let e = v.substitute("%other%").unwrap_err().to_string();
        assert!(
            e.contains("%other% is no variable") && e.contains("the variables are %password%"),
            "{e}"
        );
        assert_eq!(v.substitute("100%sure% %password%").unwrap(), "100%sure% hunter2");
        // A misspelt placeholder would be typed as it stands: refused, with the right one.
        for typo in ["%pasword%", "%PASSWORD%", " %passwrd% "] {
            let e = v.substitute(typo).unwrap_err().to_string();
            assert!(e.contains("did you mean %password%?"), "{typo}: {e}");
        }
        // Text with more than a placeholder in it is text.
        let named = Variables::new(BTreeMap::from([("name".into(), "Ada".into())])).unwrap();
        assert_eq!(named.substitute("first%20name%20last").unwrap(), "first%20name%20last");
        assert_eq!(named.substitute("Dear %name%,").unwrap(), "Dear Ada,");
        // A value is not read for placeholders in its turn.
        let tricky = Variables::new(BTreeMap::from([
            ("code".into(), "1234".into()),
            ("password".into(), "x%code%y".into()),
        ]))
        .unwrap();
        assert_eq!(tricky.substitute("%password% / %code%").unwrap(), "x%code%y / 1234");
        assert_eq!(tricky.fill_in("%%code%%"), "%1234%");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        // No variables: every %…% is text.
        assert_eq!(Variables::default().substitute("%pasword%").unwrap(), "%pasword%");
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
}
