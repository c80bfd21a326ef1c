//! How the agent sees the page and acts on it ([`AgentMode`]), and what a
//! computer-use run does with the providers' safety checks ([`SafetyChecks`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How the agent sees the page and acts on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentMode {
    /// The page as a text tree with refs; the registry's element tools.
    #[default]
    Dom,
    /// Computer use: the provider's own computer tool (Anthropic, OpenAI,
    /// Gemini), screenshots in, actions at coordinates out, with Sightline's
    /// page sense beside the pixels (removeBlocker, page position, modal note).
    Cua,
    /// The tree and the element tools, plus an annotated screenshot (each
    /// ref's box labelled) and the coordinate tools (`clickAt`, `typeAt`,
    /// `dragAt`…).
    Hybrid,
}

impl AgentMode {
    pub const ALL: [AgentMode; 3] = [AgentMode::Dom, AgentMode::Hybrid, AgentMode::Cua];

    pub fn name(self) -> &'static str {
        match self {
            AgentMode::Dom => "dom",
            AgentMode::Cua => "cua",
            AgentMode::Hybrid => "hybrid",
        }
    }
}

impl fmt::Display for AgentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AgentMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        AgentMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown agent mode {s:?}: expected dom, hybrid or cua"))
    }
}

/// What a computer-use run does when the provider attaches a safety check
/// to an action (OpenAI's `pending_safety_checks`, Gemini's
/// `safety_decision: require_confirmation`). Never silently acknowledged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SafetyChecks {
    /// Stop the run before the action; the result names the check.
    #[default]
    Deny,
    /// Acknowledge the check (the person running the agent accepted it in
    /// advance), run the action, and record the check in the result.
    Allow,
}

impl FromStr for SafetyChecks {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "deny" => Ok(SafetyChecks::Deny),
            "allow" => Ok(SafetyChecks::Allow),
            _ => Err(format!("unknown safety-check policy {s:?}: expected deny or allow")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_print() {
        for m in AgentMode::ALL {
            assert_eq!(m.to_string().parse::<AgentMode>().unwrap(), m);
        }
        assert_eq!("CUA".parse::<AgentMode>().unwrap(), AgentMode::Cua);
        assert!("vision"
            .parse::<AgentMode>()
            .unwrap_err()
            .contains("dom, hybrid or cua"));
        assert_eq!(serde_json::to_string(&AgentMode::Hybrid).unwrap(), "\"hybrid\"");
        assert_eq!("allow".parse::<SafetyChecks>().unwrap(), SafetyChecks::Allow);
        assert!("yes".parse::<SafetyChecks>().is_err());
    }
}
