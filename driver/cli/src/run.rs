//! `sightline run`: play a steps file on a page, no LLM involved (unless a
//! step calls a model tool and `--model` names one).

use std::path::PathBuf;

use clap::Args;
use sightline::steps::{read_steps, Runner, StepReport};
use sightline::{resolve_target, Error, LocalInputs, Result, SnapshotOptions};

use crate::args::{FileAccessArgs, LlmArgs, OutputArgs, PageArgs};
use crate::output::print_out;
use crate::signals::{interruptible, shutdown_signal};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// URL (http, https, file, about, data) or path to a local .html file to start on.
    #[arg(value_name = "URL|FILE")]
    pub target: String,
    /// The steps: a JSON list of tool calls (`{"tool":"click","target":"e3"}`)
    /// or actions (`{"method":"fill","selector":"#email","arguments":["a@b.c"]}`);
    /// `-` reads standard input. Relative upload paths are taken against its directory.
    #[arg(long, value_name = "FILE")]
    pub steps: PathBuf,
    /// After the steps, take a snapshot of the page the run ended on and
    /// print it (its tree after the steps; with `--json`, as `snapshot`).
    #[arg(long)]
    pub snapshot: bool,
    /// `--json` prints `{"steps":[{"ok","method","selector","error"?}],"url","title"}`
    /// (and `"snapshot"` with `--snapshot`).
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub page: PageArgs,
    /// For steps that call a model tool (act, extract, observe).
    #[command(flatten)]
    pub llm: LlmArgs,
    /// With a model: which local files its choices may reach.
    #[command(flatten)]
    pub files: FileAccessArgs,
}

/// One line per step: `1/3 ok   fill #email  input#email "Email"  (12 ms)`.
fn step_line(i: usize, total: usize, r: &StepReport) -> String {
    let what = match (&r.ref_, &r.selector) {
        (Some(rf), _) => format!("{} {rf}", r.method),
        (None, Some(sel)) => format!("{} {sel}", r.method),
        (None, None) => r.method.clone(),
    };
    let mut line = format!("{}/{total} {} {what}", i + 1, if r.ok { "ok  " } else { "FAIL" });
    if let Some(e) = &r.element {
        line.push_str(&format!(" → {e}"));
    }
    match &r.value {
        Some(serde_json::Value::String(text)) => line.push_str(&format!(" = {text}")),
        Some(data) => line.push_str(&format!(" = {data}")),
        None => {}
    }
    for n in &r.notes {
        line.push_str(&format!(" ({n})"));
    }
    if let Some(e) = &r.error {
        line.push_str(&format!(": {e}"));
    }
    line.push_str(&format!(" [{:.0} ms]\n", r.ms));
    line
}

pub async fn run_steps(args: RunArgs) -> Result<()> {
    // Everything that can be checked without a browser, first.
    let url = resolve_target(&args.target)?;
    let steps = read_steps(&args.steps)?;
    let mut launch = args.page.launch_options()?;
    let llm = args.llm.build_if_named()?;
    let base_dir = if args.steps.as_os_str() == "-" {
        None
    } else {
        args.steps.parent().map(|d| {
            if d.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                d.to_path_buf()
            }
        })
    };
    // A model steering the steps (act, observe) reads untrusted pages: it
    // gets the files the steps name, not any file. Steps alone are the
    // user's own and open what they say.
    if llm.is_some() {
        let mut inputs = LocalInputs::default();
        inputs.page(&url);
        inputs.folders.extend(base_dir.clone());
        for step in &steps {
            step.local_inputs(base_dir.as_deref(), &mut inputs);
        }
        launch.origins.files = args.files.policy(inputs)?;
    }
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let browser = interruptible(signal.as_mut(), args.page.open_browser(launch)).await?;
    let total = steps.len();
    let json = args.output.json;
    let outcome = interruptible(signal.as_mut(), async {
        let page = browser.new_page().await?;
        page.goto(&url).await?;
        let mut runner = Runner::new(&browser, page, base_dir);
        if let Some(llm) = &llm {
            runner = runner.with_llm(llm);
        }
        let (report, failure) = runner
            .run(&steps, |i, r| {
                if !json {
                    print_out(&step_line(i, total, r));
                }
            })
            .await;
        // The page after the steps, for a scripted flow checked without a model.
        let snapshot = match (&failure, args.snapshot) {
            (None, true) => Some(runner.page().snapshot(&SnapshotOptions::default()).await?),
            _ => None,
        };
        Ok((report, failure, snapshot))
    })
    .await;
    // Always close: no Chromium outlives the command, whatever happened.
    browser.close().await?;
    let (report, failure, snapshot) = outcome?;
    if json {
        let mut value = serde_json::to_value(&report).expect("report serialises");
        if let Some(snap) = &snapshot {
            value["snapshot"] = serde_json::to_value(snap).expect("snapshot serialises");
        }
        crate::output::print_json(&value);
    } else if failure.is_none() {
        print_out(&format!(
            "done: {total} step(s); now at {}{}\n",
            report.url,
            if report.title.is_empty() {
                String::new()
            } else {
                format!(" \"{}\"", report.title)
            }
        ));
        if let Some(snap) = &snapshot {
            print_out(&format!("{}\n", snap.tree));
        }
    }
    match failure {
        None => Ok(()),
        Some(e) => Err(Error::StepFailed {
            step: report.steps.len(),
            total,
            action: steps[report.steps.len() - 1].label(),
            source: Box::new(e),
        }),
    }
}
