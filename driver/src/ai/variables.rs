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

    /// Replaces known `%name%` placeholders by their values.
    pub fn substitute(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.0 {
            out = out.replace(&format!("%{name}%"), value);
        }
        out
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
        let names: Vec<String> = self.0.keys().map(|k| format!("%{k}%")).collect();
        Some(format!(
            "Variables (their values are hidden from you; write the placeholder exactly, e.g. as a fill argument): {}",
            names.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_and_notes() {
        let v = Variables::new(BTreeMap::from([("password".into(), "hunter2".into())])).unwrap();
        assert_eq!(v.substitute("%password%!"), "hunter2!");
        assert_eq!(v.substitute("%other%"), "%other%");
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
