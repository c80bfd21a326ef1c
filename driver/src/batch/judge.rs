//! Judging a task the agent did not judge itself: steps and extract tasks,
//! and any task that failed before it got going (a start page that did not
//! load is judged on the error page the tab shows).

use super::execute::Done;
use super::task::{Task, TaskKind};
use crate::eval::{Evaluator, Evidence, Verdict};
use crate::llm::Llm;
use crate::page::Page;

/// The verdict on `task`, which ended with `done` or failed with `error`,
/// judged on `page` as it is now. A judge that cannot be asked gives an
/// INVALID verdict saying why.
pub(crate) async fn judge_task(
    page: &Page,
    task: &Task,
    done: Option<&Done>,
    error: Option<&str>,
    judge: &Llm,
) -> Verdict {
    let question = task.evaluate.clone().unwrap_or_default();
    let mut evidence = Evidence::new(question).task(described(task));
    if let Some(output) = done.and_then(|d| d.output.as_ref()) {
        evidence = evidence.answer(output.to_string());
    }
    let account = match (done, error) {
        (Some(d), _) => format!(
            "The {} task ran to its end ({}): {}",
            task.kind.name(),
            if d.ok {
                "it reported success"
            } else {
                "it reported failure"
            },
            d.error.as_deref().or(d.result.as_deref()).unwrap_or_default()
        ),
        (None, Some(e)) => format!("The task failed before it got going: {e}"),
        (None, None) => String::new(),
    };
    let judge = Evaluator::new(judge).with_secrets(task.vars.secrets());
    judge
        .verdict_on_page(page, evidence.reasoning(account), "the task")
        .await
}

/// What the task asked for, in words.
fn described(task: &Task) -> String {
    match &task.kind {
        TaskKind::Agent { task } => task.clone(),
        TaskKind::Steps(steps) => format!(
            "play these steps: {}",
            steps.iter().map(|s| s.label()).collect::<Vec<_>>().join(", ")
        ),
        TaskKind::Extract { instruction, .. } => format!("extract from the page: {instruction}"),
    }
}
