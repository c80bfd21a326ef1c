//! Judging a run as it ends ([`AgentOptions::evaluate`](super::AgentOptions::evaluate)):
//! the page as the run left it, captured now on whatever tab the run ended
//! (an error page and a tab that never navigated included), the newest
//! screenshots the run took, its answer and its account of itself.

use serde_json::Value;

use super::options::EvaluateOptions;
use super::result::AgentResult;
use crate::eval::{task_question, Evaluator, Evidence, Verdict};
use crate::llm::{Llm, Secrets};
use crate::page::Page;
use crate::text::clip;

/// Screenshots of the run the judge sees besides the final page: what the
/// last steps showed, for answers read on a page the run then left.
const EARLIER_SCREENSHOTS: usize = 2;
/// The newest steps told in the account (a long run's start says little
/// about how it ended).
const ACCOUNT_STEPS: usize = 30;
/// A call's arguments and result in the account, at most.
const CALL_CHARS: usize = 200;

/// The verdict on `result`, judged on `page`. A judge that cannot be asked
/// gives an INVALID verdict saying why: the run itself stands.
pub(super) async fn judge(
    page: &Page,
    llm: &Llm,
    secrets: &Secrets,
    opts: &EvaluateOptions,
    result: &AgentResult,
) -> Verdict {
    let judge = Evaluator::new(opts.judge.as_ref().unwrap_or(llm)).with_secrets(secrets.clone());
    let question = opts
        .question
        .clone()
        .filter(|q| !q.trim().is_empty())
        .unwrap_or_else(|| task_question(&result.task));
    judge.verdict_on_page(page, evidence(question, result), "the run").await
}

fn evidence(question: String, r: &AgentResult) -> Evidence {
    let mut e = Evidence::new(question).task(&r.task).reasoning(account(r));
    if let Some(answer) = &r.output {
        e = e.answer(match answer {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
    }
    let mut shots: Vec<String> = Vec::new();
    for a in r.actions.iter().rev() {
        if shots.len() == EARLIER_SCREENSHOTS {
            break;
        }
        if let Some(s) = &a.trace.screenshot {
            if !shots.contains(&s.png_base64) {
                shots.push(s.png_base64.clone());
            }
        }
    }
    shots.reverse();
    e.screenshots = shots;
    e
}

/// How the run ended and its newest steps, one line each.
fn account(r: &AgentResult) -> String {
    let ending = if r.success {
        "the agent reported the task complete"
    } else if r.completed {
        "the agent reported the task NOT complete"
    } else {
        "the run stopped before the agent finished"
    };
    let mut s = format!("How the run ended: {ending}: {}\n", r.message.trim());
    if !r.actions.is_empty() {
        s.push_str(&format!("Its steps ({} tool calls):\n", r.actions.len()));
    }
    let skip = r.actions.len().saturating_sub(ACCOUNT_STEPS);
    if skip > 0 {
        s.push_str(&format!("[{skip} earlier calls left out]\n"));
    }
    for a in r.actions.iter().skip(skip) {
        let outcome = if a.trace.ok { "ok" } else { "failed" };
        let result = a.result.lines().next().unwrap_or_default();
        s.push_str(&format!(
            "{}. {}({}) → {outcome}: {}\n",
            a.trace.step,
            a.tool,
            clip(&a.arguments.to_string(), CALL_CHARS),
            clip(result, CALL_CHARS)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::{ActionTrace, AgentAction, Screenshot};
    use serde_json::json;

    fn action(step: u32, tool: &str, shot: Option<&str>) -> AgentAction {
        AgentAction {
            tool: tool.into(),
            arguments: json!({"target": "e3"}),
            result: "Clicked button \"Place order\"\nmore".into(),
            trace: ActionTrace {
                step,
                ok: true,
                screenshot: shot.map(|s| Screenshot {
                    png_base64: s.into(),
                    ..Screenshot::default()
                }),
                ..ActionTrace::default()
            },
            ..AgentAction::default()
        }
    }

    #[test]
    fn the_evidence_tells_claims_and_keeps_the_newest_distinct_screenshots() {
        let r = AgentResult {
            task: "Buy the lamp".into(),
            success: true,
            completed: true,
            message: "Ordered it.".into(),
            output: Some(json!({"order": 42})),
            actions: vec![
                action(1, "click", Some("A")),
                action(2, "scroll", Some("B")),
                action(3, "click", Some("C")),
                action(3, "done", Some("C")),
            ],
            ..AgentResult::default()
        };
        let e = evidence(task_question(&r.task), &r);
        assert_eq!(e.screenshots, ["B", "C"]);
        assert_eq!(e.answer.as_deref(), Some("{\"order\":42}"));
        let account = e.reasoning.unwrap();
        assert!(
            account.starts_with("How the run ended: the agent reported the task complete: Ordered it.\n"),
            "{account}"
        );
        assert!(
            account.contains("1. click({\"target\":\"e3\"}) → ok: Clicked button \"Place order\"\n"),
            "{account}"
        );
        assert!(!account.contains("more"), "one line per call: {account}");
    }
}
