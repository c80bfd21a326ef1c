//! `sightline evaluate <URL|FILE> "<question>" [--answer TEXT] [--json]`:
//! a judge looks at the page (its screenshot, URL, title and text) and
//! answers the question YES or NO, with its reasoning.

use clap::Args;
use sightline::eval::{Evaluation, Evaluator, Evidence};
use sightline::{resolve_target, Error, Result};

use crate::args::{LlmArgs, OutputArgs, PageArgs};
use crate::output::{print_json, print_out};
use crate::signals::{interruptible, shutdown_signal};

#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// URL (http, https, file, about, data) or path to a local .html file.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// The question, e.g. "Was the order placed?".
    pub question: String,
    /// An answer to check against the page (an agent's, say).
    #[arg(long, value_name = "TEXT")]
    pub answer: Option<String>,
    /// `{"evaluation","reasoning"}` instead of text.
    #[command(flatten)]
    pub output: OutputArgs,
    /// The judge's model.
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub page: PageArgs,
}

pub async fn evaluate(args: EvaluateArgs) -> Result<()> {
    let url = resolve_target(&args.target)?;
    if args.question.trim().is_empty() {
        return Err(Error::Eval("give a question, e.g. \"Was the order placed?\"".into()));
    }
    let llm = args.llm.build()?;
    let launch = args.page.launch_options()?;
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), args.page.open_browser(launch)).await?;
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        let mut evidence = Evidence::new(args.question.clone());
        if let Some(answer) = &args.answer {
            evidence = evidence.answer(answer.clone());
        }
        // A page that does not load is judged on the error page it shows.
        match page.goto(&url).await {
            Ok(_) => {}
            Err(e @ Error::Navigation { .. }) => evidence = evidence.reasoning(format!("Opening {url} failed: {e}")),
            Err(e) => return Err(e),
        }
        Evaluator::new(&llm).judge_page(&page, evidence).await
    })
    .await;
    browser.close().await?;
    let verdict = outcome?;
    if args.output.json {
        print_json(&verdict);
    } else {
        print_out(&format!("{}: {}\n", verdict.evaluation, verdict.reasoning));
    }
    match verdict.evaluation {
        Evaluation::Yes => Ok(()),
        other => Err(Error::Eval(format!("the judge answered {other}"))),
    }
}
