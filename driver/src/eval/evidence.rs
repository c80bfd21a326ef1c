//! What a judge is shown: [`Evidence`]. The screenshots are the evidence;
//! the agent's answer and account are claims the judge weighs against
//! them. [`Evidence::capture_final`] adds the page as it is now.

use serde::{Deserialize, Serialize};

use crate::base64;
use crate::error::Result;
use crate::llm::Secrets;
use crate::page::{Page, Shot, SnapshotOptions};
use crate::readable;

/// The page text a judge gets at most (about 3,000 tokens): enough to check
/// an answer, small beside the screenshots.
pub const PAGE_TEXT_CHARS: usize = 12_000;

/// What the judge sees of the final page besides its screenshot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FinalPage {
    pub url: String,
    pub title: String,
    /// The page's words (the snapshot as reading matter), when they could be
    /// read: an error page or a crashed frame may have none.
    pub text: Option<String>,
}

/// The judge's input. Its JSON is what `sightline eval` keeps of each run
/// for judging again (`--rejudge`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Evidence {
    /// What to decide ("Was the order placed?"; see [`task_question`](super::task_question)).
    pub question: String,
    /// The task the agent was given, when there was one.
    pub task: Option<String>,
    /// PNG screenshots, base64, oldest first; the last is the final page.
    pub screenshots: Vec<String>,
    /// The answer the agent gave (its output), a claim to check.
    pub answer: Option<String>,
    /// The agent's account of its run (its final message, its steps, the
    /// error it ended on), a claim to check.
    pub reasoning: Option<String>,
    pub page: Option<FinalPage>,
}

impl Evidence {
    pub fn new(question: impl Into<String>) -> Evidence {
        Evidence {
            question: question.into(),
            ..Evidence::default()
        }
    }

    /// Adds a PNG screenshot (after those already given).
    pub fn screenshot(mut self, png: &[u8]) -> Evidence {
        self.screenshots.push(base64::encode(png));
        self
    }

    pub fn answer(mut self, answer: impl Into<String>) -> Evidence {
        self.answer = Some(answer.into()).filter(|a: &String| !a.trim().is_empty());
        self
    }

    pub fn reasoning(mut self, reasoning: impl Into<String>) -> Evidence {
        self.reasoning = Some(reasoning.into()).filter(|r: &String| !r.trim().is_empty());
        self
    }

    pub fn task(mut self, task: impl Into<String>) -> Evidence {
        self.task = Some(task.into()).filter(|t: &String| !t.trim().is_empty());
        self
    }

    /// The evidence with `secrets`' values replaced by their `%name%` in
    /// every text (the screenshots are covered as they are taken): what may
    /// be kept on disk.
    pub fn redacted(&self, secrets: &Secrets) -> Evidence {
        let text = |t: &Option<String>| t.as_ref().map(|t| secrets.redact(t));
        Evidence {
            question: secrets.redact(&self.question),
            task: text(&self.task),
            screenshots: self.screenshots.clone(),
            answer: text(&self.answer),
            reasoning: text(&self.reasoning),
            page: self.page.as_ref().map(|p| FinalPage {
                url: secrets.redact(&p.url),
                title: secrets.redact(&p.title),
                text: text(&p.text),
            }),
        }
    }

    /// Adds the page as it is now: its viewport screenshot (the last
    /// screenshot; an earlier one showing exactly the same is dropped), URL,
    /// title and text. An error page or a blank tab is captured like any
    /// other page: the judge decides on what it shows.
    /// `secrets`: values covered in the screenshot.
    pub async fn capture_final(&mut self, page: &Page, secrets: &[String]) -> Result<()> {
        // As a user would see it: not halfway through a render. A page that
        // never settles is still judged, on what it shows by then.
        let _ = page.wait_ready().await;
        let png = page.screenshot().await?;
        let png = base64::encode(&page.cover_secrets(png, secrets, Shot::Viewport).await);
        self.screenshots.retain(|s| *s != png);
        self.screenshots.push(png);
        let text = page
            .snapshot(&SnapshotOptions::default())
            .await
            .ok()
            .map(|s| readable::from_tree(&s.tree, false))
            .filter(|t| !t.trim().is_empty());
        self.page = Some(FinalPage {
            url: page.url().await.unwrap_or_default(),
            title: page.title().await.unwrap_or_default(),
            text,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_evidence_holds_no_secret() {
        let secrets = Secrets::new([("pw".to_string(), "hunter2!".to_string())]);
        let mut e = Evidence::new("Did hunter2! log in?")
            .task("Log in with hunter2!")
            .answer("typed hunter2!")
            .reasoning("fill(hunter2!)");
        e.screenshots.push("png".into());
        e.page = Some(FinalPage {
            url: "http://a.test/?p=hunter2!".into(),
            title: "hunter2!".into(),
            text: Some("Welcome hunter2!".into()),
        });
        let kept = serde_json::to_string(&e.redacted(&secrets)).unwrap();
        assert!(!kept.contains("hunter2"), "{kept}");
        assert!(kept.contains("%pw%") && kept.contains("\"png\""), "{kept}");
    }
}
