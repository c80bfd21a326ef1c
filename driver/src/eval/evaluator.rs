//! [`Evaluator`]: a model judges evidence (screenshots first) and answers
//! YES or NO with its reasoning, through the LLM layer's structured output,
//! so every provider works (each wire module sends the images in its API's
//! own form). An answer that cannot be read after the retry structured
//! output makes is INVALID, not an error.

use std::time::Instant;

use serde_json::Value;

use super::evidence::Evidence;
use super::prompts;
use super::verdict::{Evaluation, Judged, Verdict};
use crate::base64;
use crate::error::{Error, Result};
use crate::llm::{Llm, LlmError, Message, Part, Role, Secrets, StructuredReply, Usage};
use crate::page::Page;

/// A judge over one model.
#[derive(Debug, Clone)]
pub struct Evaluator {
    llm: Llm,
    secrets: Secrets,
}

impl Evaluator {
    /// A judge on `llm`'s model. Its calls go to a usage log of their own,
    /// so a run judged with the run's own model keeps its own token count.
    pub fn new(llm: &Llm) -> Evaluator {
        Evaluator {
            llm: llm.with_own_log(),
            secrets: Secrets::default(),
        }
    }

    /// Values never to send the judge (a run's `%name%` secrets may show up
    /// in the page's text).
    pub fn with_secrets(mut self, secrets: Secrets) -> Evaluator {
        self.secrets = secrets;
        self
    }

    /// `openai/gpt-4.1-mini`.
    pub fn model(&self) -> String {
        self.llm.model_spec()
    }

    /// Judges `evidence`, which must hold at least one screenshot: a judge
    /// that only hears the agent's claim cannot tell a run that did the task
    /// from one that says it did. `Err` only when the model cannot be asked
    /// (setup, network, refusals); an unreadable answer is INVALID.
    pub async fn evaluate(&self, evidence: &Evidence) -> Result<Verdict> {
        let (started, calls_before) = (Instant::now(), self.llm.calls().len());
        if evidence.question.trim().is_empty() {
            return Err(Error::InvalidAction("the evaluator needs a question".into()));
        }
        if evidence.screenshots.is_empty() {
            return Err(Error::InvalidAction(
                "the evaluator judges from screenshots: give at least one".into(),
            ));
        }
        let prompt = prompts::user_message(evidence);
        let asked = self
            .ask(
                prompts::SYSTEM,
                &prompt,
                &evidence.screenshots,
                "verdict",
                &prompts::verdict_schema(),
            )
            .await?;
        let mut verdict = match asked {
            Ok(reply) => verdict_from(&reply.value),
            Err(problem) => Verdict::invalid(problem),
        };
        let mut judged = self.judged(prompts::SYSTEM, prompt, &evidence.screenshots, started, calls_before);
        judged.evidence = Some(evidence.redacted(&self.secrets));
        verdict.judged = Some(Box::new(judged));
        Ok(verdict)
    }

    /// Captures the page as it is now (its screenshot last, URL, title and
    /// text; see [`Evidence::capture_final`]) and judges.
    pub async fn judge_page(&self, page: &Page, mut evidence: Evidence) -> Result<Verdict> {
        let started = Instant::now();
        evidence.capture_final(page, self.secrets.values()).await?;
        let mut verdict = self.evaluate(&evidence).await?;
        if let Some(j) = verdict.judged.as_mut() {
            j.duration_ms = started.elapsed().as_millis() as u64;
        }
        Ok(verdict)
    }

    /// [`Evaluator::judge_page`] for a run that goes on whatever the judge
    /// does: a judge that cannot be asked gives an INVALID verdict saying
    /// why (`unjudged`), which still holds the evidence captured, so that
    /// the run can be judged later from it. `what`: the run, in words.
    pub async fn verdict_on_page(&self, page: &Page, evidence: Evidence, what: &str) -> Verdict {
        let started = Instant::now();
        let mut evidence = evidence;
        if let Err(e) = evidence.capture_final(page, self.secrets.values()).await {
            return Verdict::unjudged(format!("{what} could not be judged: {e}"));
        }
        let calls_before = self.llm.calls().len();
        match self.evaluate(&evidence).await {
            Ok(mut verdict) => {
                // (Capturing the page is the judge's time, as in judge_page.)
                if let Some(j) = verdict.judged.as_mut() {
                    j.duration_ms = started.elapsed().as_millis() as u64;
                }
                verdict
            }
            Err(e) => {
                // What the judge was to be shown, and what its attempts cost.
                let mut verdict = Verdict::unjudged(format!("{what} could not be judged: {e}"));
                let prompt = prompts::user_message(&evidence);
                let mut judged = self.judged(prompts::SYSTEM, prompt, &evidence.screenshots, started, calls_before);
                judged.evidence = Some(evidence.redacted(&self.secrets));
                verdict.judged = Some(Box::new(judged));
                verdict
            }
        }
    }

    /// Several yes/no questions about one PNG screenshot, in one model call;
    /// one verdict per question, in order (all INVALID when the answer
    /// cannot be read, or does not answer each question once).
    pub async fn batch_ask(&self, png: &[u8], questions: &[String]) -> Result<Vec<Verdict>> {
        let (started, calls_before) = (Instant::now(), self.llm.calls().len());
        if questions.is_empty() || questions.iter().any(|q| q.trim().is_empty()) {
            return Err(Error::InvalidAction(
                "batch_ask needs questions, none of them empty".into(),
            ));
        }
        let screenshots = vec![base64::encode(png)];
        let prompt = prompts::batch_message(questions);
        let schema = prompts::answers_schema(questions.len());
        let asked = self
            .ask(prompts::BATCH_SYSTEM, &prompt, &screenshots, "verdicts", &schema)
            .await?;
        let mut verdicts: Vec<Verdict> = match asked {
            Ok(reply) => reply.value["answers"]
                .as_array()
                .map(|a| a.iter().map(verdict_from).collect())
                .unwrap_or_default(),
            Err(problem) => questions.iter().map(|_| Verdict::invalid(problem.clone())).collect(),
        };
        let judged = self.judged(prompts::BATCH_SYSTEM, prompt, &screenshots, started, calls_before);
        for v in &mut verdicts {
            v.judged = Some(Box::new(judged.clone()));
        }
        Ok(verdicts)
    }

    /// One structured call; `Ok(Err(problem))` when the answer was still
    /// unreadable after the retry.
    async fn ask(
        &self,
        system: &str,
        prompt: &str,
        screenshots: &[String],
        name: &str,
        schema: &Value,
    ) -> Result<std::result::Result<StructuredReply, String>> {
        let mut parts = vec![Part::Text(prompt.to_string())];
        parts.extend(screenshots.iter().map(|png| Part::Image {
            png_base64: png.clone(),
        }));
        let messages = vec![Message {
            role: Role::User,
            parts,
        }];
        match self
            .llm
            .structured(system, messages, name, schema, "evaluate", &self.secrets)
            .await
        {
            Ok(reply) => Ok(Ok(reply)),
            Err(LlmError::Output(problem)) => Ok(Err(format!("the judge's answer could not be read: {problem}"))),
            Err(e) => Err(e.into()),
        }
    }

    /// The record of a judgment that started at `started` with `calls_before` calls in the log.
    fn judged(
        &self,
        system: &str,
        prompt: String,
        screenshots: &[String],
        started: Instant,
        calls_before: usize,
    ) -> Judged {
        let mut usage = Usage::default();
        for c in self.llm.calls().iter().skip(calls_before) {
            usage += c.usage;
        }
        Judged {
            model: self.model(),
            system: system.to_string(),
            prompt,
            screenshots: screenshots.to_vec(),
            usage,
            duration_ms: started.elapsed().as_millis() as u64,
            evidence: None,
        }
    }
}

/// A schema-valid answer as a verdict.
fn verdict_from(v: &Value) -> Verdict {
    let evaluation = match v["evaluation"].as_str() {
        Some("YES") => Evaluation::Yes,
        Some("NO") => Evaluation::No,
        _ => Evaluation::Invalid,
    };
    Verdict {
        evaluation,
        reasoning: v["reasoning"].as_str().unwrap_or_default().trim().to_string(),
        unjudged: false,
        judged: None,
    }
}
