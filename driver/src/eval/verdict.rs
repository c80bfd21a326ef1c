//! What a judge says: [`Verdict`] (`{"evaluation","reasoning"}`), and what
//! it was shown and asked ([`Judged`]), for reports.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::evidence::Evidence;
use crate::llm::Usage;

/// The judge's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Evaluation {
    /// The evidence shows the task done (or the question's answer is yes).
    Yes,
    No,
    /// No verdict: the judge's answer could not be read, even after a retry
    /// (or the judge could not be asked; the reasoning says why).
    Invalid,
}

impl Evaluation {
    pub fn as_str(self) -> &'static str {
        match self {
            Evaluation::Yes => "YES",
            Evaluation::No => "NO",
            Evaluation::Invalid => "INVALID",
        }
    }
}

impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A judge's verdict: `{"evaluation": "YES"|"NO"|"INVALID", "reasoning": "…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub evaluation: Evaluation,
    pub reasoning: String,
    /// The judge could not be asked (its call failed or ran out of time, or
    /// the final page could not be captured): an INVALID verdict that says
    /// nothing of the run, asked again by a rerun with `--retry-failed`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unjudged: bool,
    /// What the judge was shown and asked, for reports (not part of the JSON;
    /// boxed: screenshots and prompts are large, results are passed around).
    #[serde(skip)]
    pub judged: Option<Box<Judged>>,
}

impl Verdict {
    /// A verdict that could not be reached, and why.
    pub fn invalid(reasoning: impl Into<String>) -> Verdict {
        Verdict {
            evaluation: Evaluation::Invalid,
            reasoning: reasoning.into(),
            unjudged: false,
            judged: None,
        }
    }

    /// The verdict of a run the judge could not be asked about, and why
    /// (see [`Verdict::unjudged`]).
    pub fn unjudged(reasoning: impl Into<String>) -> Verdict {
        Verdict {
            unjudged: true,
            ..Verdict::invalid(reasoning)
        }
    }

    pub fn is_yes(&self) -> bool {
        self.evaluation == Evaluation::Yes
    }
}

/// How a verdict came about: the judge's model, its prompt (system and
/// user text), the screenshots it saw, and what the judgment cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Judged {
    /// `openai/gpt-4.1-mini`.
    pub model: String,
    pub system: String,
    /// The user message's text (the screenshots follow it).
    pub prompt: String,
    /// PNG screenshots, base64, in the order the judge saw them (the last
    /// is the final page).
    pub screenshots: Vec<String>,
    pub usage: Usage,
    /// Capturing the final page and asking the model.
    pub duration_ms: u64,
    /// The evidence judged, its secrets replaced by their `%name%` (none
    /// for `Evaluator::batch_ask`'s questions).
    pub evidence: Option<Evidence>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_is_evaluation_and_reasoning_only() {
        let mut v = Verdict::invalid("the answer could not be read");
        v.judged = Some(Box::new(Judged {
            model: "openai/m".into(),
            ..Judged::default()
        }));
        let line = serde_json::to_string(&v).unwrap();
        assert_eq!(
            line,
            r#"{"evaluation":"INVALID","reasoning":"the answer could not be read"}"#
        );
        let back: Verdict = serde_json::from_str(r#"{"evaluation":"YES","reasoning":"green"}"#).unwrap();
        assert!(back.is_yes() && back.judged.is_none());
        assert_eq!(Evaluation::No.to_string(), "NO");
    }
}
