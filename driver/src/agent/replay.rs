//! Saved runs (`--save-run run.json`) and `sightline replay`: the agent's
//! deterministic steps re-executed with no model. Every step is a registry
//! tool call; a model tool's step (act, a described fillForm field) keeps
//! the actions its choice resolved to and replays those. Only when a stored
//! selector no longer resolves does replay ask the model again (through
//! act), if it has one.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::ai::{ActOptions, ActRecord, Ai, Variables};
use crate::browser::{Browser, TabMove};
use crate::error::{Error, Result};
use crate::files::LocalInputs;
use crate::llm::{Llm, Usage};
use crate::page::{Action, DialogHolds, Page, Target};
use crate::steps::Step;
use crate::tools::{handle_dialog, RecordedCall, Registry, ToolContext, ToolSettings};

/// The format's version: bump on incompatible changes. Version 1 (before
/// the tool registry) and 2 (before runs followed the tabs their steps
/// opened) are still read, and replayed as they ran.
pub const RUN_FORMAT: u32 = 3;

/// The first format whose runs followed a tab a step opened.
const FOLLOWS_NEW_TABS: u32 = 3;

/// What `--save-run` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SavedRun {
    pub sightline_run: u32,
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_url: Option<String>,
    /// Names of the `%name%` variables the steps use (values are never saved).
    #[serde(default)]
    pub variables: Vec<String>,
    pub steps: Vec<RecordedCall>,
}

impl SavedRun {
    /// The local files the run named: its start page's folder, and the
    /// pages and uploads of its steps and of the actions they resolved to.
    pub fn local_inputs(&self) -> LocalInputs {
        let mut inputs = LocalInputs::default();
        if let Some(url) = &self.start_url {
            inputs.page(url);
        }
        for call in &self.steps {
            let step = Step::Tool {
                name: call.tool.clone(),
                args: call.args.clone(),
            };
            step.local_inputs(None, &mut inputs);
            for a in &call.actions {
                let action = a.to_action(&Variables::default(), "");
                Step::Action(action).local_inputs(None, &mut inputs);
            }
        }
        inputs
    }

    pub fn load(path: &Path) -> Result<SavedRun> {
        let text = std::fs::read_to_string(path).map_err(|_| Error::NoSuchFile {
            path: path.to_path_buf(),
            hint: None,
        })?;
        SavedRun::parse(&text).map_err(|e| match e {
            Error::InvalidAction(m) => Error::InvalidAction(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Reads a saved run of this format or of format 1.
    pub fn parse(text: &str) -> Result<SavedRun> {
        let mut v: Value =
            serde_json::from_str(text).map_err(|e| Error::InvalidAction(format!("not a saved run: {e}")))?;
        match v.get("sightline_run").and_then(Value::as_u64) {
            Some(1) => {
                let steps = v["steps"].as_array().cloned().unwrap_or_default();
                let upgraded: Vec<Value> = steps.iter().map(upgrade_v1_step).collect::<Result<_>>()?;
                v["steps"] = Value::Array(upgraded);
                // (Its run stayed on its first tab, as format 2's did.)
                v["sightline_run"] = json!(2);
            }
            Some(n) if (2..=u64::from(RUN_FORMAT)).contains(&n) => {}
            other => {
                return Err(Error::InvalidAction(format!(
                    "saved-run format {} is not supported (this build reads 1 to {RUN_FORMAT})",
                    other.map(|n| n.to_string()).unwrap_or_else(|| "(none)".into())
                )))
            }
        }
        serde_json::from_value(v).map_err(|e| Error::InvalidAction(format!("not a saved run: {e}")))
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a saved run serialises");
        std::fs::write(path, text + "\n").map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))
    }

    /// Re-executes the run on `page`: the start URL, then every step; stops
    /// at the first step that fails.
    pub async fn replay(&self, page: &Page, opts: &ReplayOptions<'_>) -> Result<ReplayReport> {
        let given = opts.variables.names();
        let missing: Vec<&String> = self.variables.iter().filter(|n| !given.contains(n)).collect();
        if !missing.is_empty() {
            // All of them at once: one run of the command to get them right.
            let uses: Vec<String> = missing.iter().map(|n| format!("%{n}%")).collect();
            let flags: Vec<String> = missing.iter().map(|n| format!("--var {n}=VALUE")).collect();
            return Err(Error::InvalidAction(format!(
                "the run uses {}: give {} with {}",
                uses.join(", "),
                if missing.len() == 1 {
                    "its value"
                } else {
                    "their values"
                },
                flags.join(" ")
            )));
        }
        let mut report = ReplayReport {
            success: true,
            steps: Vec::new(),
            usage: Usage::default(),
        };
        if let Some(url) = &self.start_url {
            page.goto(url).await?;
        }
        let settings = ToolSettings {
            variables: opts.variables.clone(),
            ..ToolSettings::default()
        };
        let registry = Registry::standard();
        let ctx = ToolContext::new(page.clone(), &settings).with_llm(opts.llm);
        // A run that answered a dialog gets its dialogs held for that answer,
        // and the step that opens one ends there, as in the run.
        let answers_dialogs = self.steps.iter().any(|s| s.tool == handle_dialog::TOOL.name);
        let mut holds = DialogHolds::default();
        if answers_dialogs {
            holds.hold(page);
        }
        let replayed = self
            .replay_steps(&registry, &ctx, opts, answers_dialogs, &mut report)
            .await;
        holds.release().await;
        replayed?;
        Ok(report)
    }

    async fn replay_steps(
        &self,
        registry: &Registry,
        ctx: &ToolContext<'_>,
        opts: &ReplayOptions<'_>,
        answers_dialogs: bool,
        report: &mut ReplayReport,
    ) -> Result<()> {
        for step in &self.steps {
            let done = match self
                .replay_step(registry, ctx, opts, answers_dialogs, step, &mut report.usage)
                .await
            {
                Ok(done) => done,
                // The page closed its own tab as the step ran (a sign-in
                // pop-up's window.close()), as in the run, which went back
                // to the tab that opened it: so does the replay (below).
                Err(Error::TabClosed) if opts.browser.is_some() && self.sightline_run >= FOLLOWS_NEW_TABS => {
                    ReplayedStep::said(
                        &step.tool,
                        true,
                        "ran, and the page closed its tab as it did".to_string(),
                    )
                }
                // The browser or the tab is gone: no step can run.
                Err(e @ (Error::BrowserClosed | Error::PageCrashed | Error::TabClosed | Error::Interrupted)) => {
                    return Err(e)
                }
                // The step's own failure: reported as the step's, with the steps before it.
                Err(e) => ReplayedStep::said(&step.tool, false, e.to_string()),
            };
            // (The run followed a tab its step opened, and came back from
            // one that closed: so does the replay.)
            if let Some(b) = opts.browser.filter(|_| self.sightline_run >= FOLLOWS_NEW_TABS) {
                if let Some(page) = b.tab_after_step(&ctx.page()).await.as_ref().and_then(TabMove::page) {
                    ctx.set_page(page.clone());
                }
            }
            let ok = done.ok;
            report.steps.push(done);
            if !ok {
                report.success = false;
                break;
            }
        }
        Ok(())
    }

    /// Replays one step: what it did, or an error that stops the replay.
    async fn replay_step(
        &self,
        registry: &Registry,
        ctx: &ToolContext<'_>,
        opts: &ReplayOptions<'_>,
        answers_dialogs: bool,
        step: &RecordedCall,
        usage: &mut Usage,
    ) -> Result<ReplayedStep> {
        let failed = |detail: String| ReplayedStep::said(&step.tool, false, detail);
        if let Some(moved) = moved_element(&ctx.page(), step, &opts.variables).await? {
            return Ok(failed(moved));
        }
        if let Some(d) = ctx.page().dialog().filter(|_| step.tool != handle_dialog::TOOL.name) {
            // (The run had no dialog here: the page moved on otherwise.)
            let said = format!(
                "{} dialog is open that the run did not have here: {}",
                d.a_kind(),
                d.said()
            );
            return Ok(failed(said));
        }
        if !step.actions.is_empty() {
            return replay_resolved(&ctx.page(), step, opts, usage).await;
        }
        let page = ctx.page();
        let call = registry.call(ctx, &step.tool, step.args.clone());
        let out = if answers_dialogs && step.tool != handle_dialog::TOOL.name {
            page.unless_a_dialog_opens(call).await
        } else {
            Some(call.await)
        };
        Ok(match out {
            Some(out) => {
                let out = out?;
                ReplayedStep::said(&step.tool, out.ok, out.text)
            }
            None => ReplayedStep::said(&step.tool, true, "it opened a dialog, held for the next step".into()),
        })
    }
}

/// Why an element step must not run: its selector (a position among
/// siblings) finds an element with other text around it than the run's,
/// such as another row's "Add to cart" after the list reordered.
async fn moved_element(page: &Page, step: &RecordedCall, variables: &Variables) -> Result<Option<String>> {
    let Some(then) = &step.context else { return Ok(None) };
    let Some(selector) = ["target", "startTarget"]
        .iter()
        .find_map(|k| step.args.get(*k).and_then(Value::as_str))
    else {
        return Ok(None);
    };
    let target = match step.args.get("frame").and_then(Value::as_str) {
        Some(frame) => Target::in_frame(selector, frame),
        None => Target::parse(selector),
    };
    page.wait_ready().await?;
    let secrets = variables.secrets();
    Ok(page
        .context_changed(target, then, &|s| secrets.redact(s))
        .await?
        .map(|now| {
            format!(
                "{}: {selector} now finds an element among \"{}\", where the run acted among \"{}\": the page \
changed, and it may be another row's; not acted on",
                step.tool,
                crate::text::clip(&now, 80),
                crate::text::clip(then, 80)
            )
        }))
}

/// A format-1 step (`{"tool":"navback"}`, `{"tool":"keys","method","value","repeat"}`…)
/// as the registry call it stood for.
fn upgrade_v1_step(step: &Value) -> Result<Value> {
    let s = |k: &str| step.get(k).cloned().unwrap_or(Value::Null);
    let tool = step.get("tool").and_then(Value::as_str).unwrap_or_default();
    Ok(match tool {
        "act" => json!({"tool": "act", "args": {"action": s("instruction")}, "actions": s("actions")}),
        "goto" => json!({"tool": "goto", "args": {"url": s("url")}}),
        "navback" => json!({"tool": "back", "args": {}}),
        "scroll" => json!({"tool": "scroll", "args": {"direction": s("direction"), "percentage": s("percentage")}}),
        "wait" => json!({"tool": "wait", "args": {"ms": s("ms")}}),
        "removeBlocker" => {
            json!({"tool": "removeBlocker", "args": {"aggressive": step.get("aggressive").cloned().unwrap_or(json!(false))}})
        }
        "keys" => {
            let repeat = step.get("repeat").and_then(Value::as_u64).unwrap_or(1).max(1);
            let value = step.get("value").and_then(Value::as_str).unwrap_or_default();
            if step.get("method").and_then(Value::as_str) == Some("press") {
                json!({"tool": "press", "args": {"key": value, "repeat": repeat}})
            } else {
                json!({"tool": "type", "args": {"text": value.repeat(repeat as usize)}})
            }
        }
        other => {
            return Err(Error::InvalidAction(format!(
                "unknown step {other:?} in a format-1 run"
            )))
        }
    })
}

/// How one replayed step went.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayedStep {
    pub tool: String,
    pub ok: bool,
    pub detail: String,
    /// The model was asked again because a stored selector no longer resolved.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub healed: bool,
}

impl ReplayedStep {
    /// A step replayed with no model (not healed), and what it said.
    fn said(tool: &str, ok: bool, detail: String) -> ReplayedStep {
        ReplayedStep {
            tool: tool.into(),
            ok,
            detail,
            healed: false,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ReplayReport {
    pub success: bool,
    pub steps: Vec<ReplayedStep>,
    /// Model use by self-healing (zero when every selector resolved).
    pub usage: Usage,
}

pub struct ReplayOptions<'a> {
    pub variables: Variables,
    /// Lets a step whose selector no longer resolves heal through act.
    pub llm: Option<&'a Llm>,
    /// The page's browser: a tab a step opens is followed, as the run did.
    pub browser: Option<&'a Browser>,
}

/// A model tool's step: its resolved actions, with no model unless one no
/// longer resolves.
async fn replay_resolved(
    page: &Page,
    step: &RecordedCall,
    opts: &ReplayOptions<'_>,
    usage: &mut Usage,
) -> Result<ReplayedStep> {
    let instruction = step.args.get("action").and_then(Value::as_str).unwrap_or(&step.tool);
    let mut done = Vec::new();
    for rec in &step.actions {
        let action: Action = rec.to_action_on(&opts.variables, page).await;
        let resolves = match action.target() {
            Some(t) => {
                // The option of a dropdown may appear a moment after its trigger was clicked.
                page.exists(t.clone()).await? || {
                    page.wait_ready().await?;
                    page.exists(t).await?
                }
            }
            None => true,
        };
        // A position that now holds another row's element is healed (or
        // refused) as a selector that no longer resolves.
        let moved = match (&rec.context, action.target()) {
            (Some(then), Some(t)) if resolves => {
                let secrets = opts.variables.secrets();
                page.context_changed(t, then, &|s| secrets.redact(s)).await?.is_some()
            }
            _ => false,
        };
        if resolves && !moved {
            match page.perform(&action, None).await {
                Ok(_) => {
                    done.push(rec.description.clone());
                    continue;
                }
                Err(e) if matches!(e, Error::Action { .. } | Error::InvalidAction(_)) => {
                    return Ok(failed(&step.tool, instruction, format!("{} failed: {e}", rec.method)));
                }
                Err(e) => return Err(e),
            }
        }
        let why = if moved {
            "finds an element with other text around it than the run's (the page changed)"
        } else {
            "no longer resolves"
        };
        return heal(page, step, rec, instruction, why, opts, usage).await;
    }
    Ok(ReplayedStep {
        tool: step.tool.clone(),
        ok: true,
        detail: format!("{instruction}: {}", done.join("; then ")),
        healed: false,
    })
}

/// Self-heal: only this record, through the act pipeline.
async fn heal(
    page: &Page,
    step: &RecordedCall,
    rec: &ActRecord,
    instruction: &str,
    why: &str,
    opts: &ReplayOptions<'_>,
    usage: &mut Usage,
) -> Result<ReplayedStep> {
    let Some(llm) = opts.llm else {
        return Ok(failed(
            &step.tool,
            instruction,
            format!("{} {why}; give a model (--model) to let replay self-heal", rec.selector),
        ));
    };
    let heal = if rec.arguments.is_empty() {
        format!("{} {}", rec.method, rec.description)
    } else {
        format!("{} {} with {}", rec.method, rec.description, rec.arguments.join(", "))
    };
    let act_opts = ActOptions {
        variables: opts.variables.clone(),
        ..ActOptions::default()
    };
    let r = Ai::new(llm).act(page, &heal, &act_opts).await?;
    *usage += r.usage;
    if !r.success {
        return Ok(failed(
            &step.tool,
            instruction,
            format!("{} {why}, and self-heal failed: {}", rec.selector, r.message),
        ));
    }
    Ok(ReplayedStep {
        tool: step.tool.clone(),
        ok: true,
        detail: format!("{instruction}: healed ({})", r.message),
        healed: true,
    })
}

fn failed(tool: &str, instruction: &str, why: String) -> ReplayedStep {
    ReplayedStep::said(tool, false, format!("{instruction}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_round_trip_as_registry_calls() {
        let run = SavedRun {
            sightline_run: RUN_FORMAT,
            task: "t".into(),
            start_url: Some("http://a.test/".into()),
            variables: vec!["pw".into()],
            steps: vec![
                RecordedCall {
                    tool: "goto".into(),
                    args: json!({"url": "http://a.test/x"}),
                    actions: Vec::new(),
                    context: None,
                },
                RecordedCall {
                    tool: "removeBlocker".into(),
                    args: json!({"aggressive": false}),
                    actions: Vec::new(),
                    context: None,
                },
            ],
        };
        let text = serde_json::to_string(&run).unwrap();
        assert!(
            text.contains(r#"{"tool":"removeBlocker","args":{"aggressive":false}}"#),
            "{text}"
        );
        assert_eq!(SavedRun::parse(&text).unwrap(), run);
    }

    #[test]
    fn format_1_runs_are_read_as_registry_calls() {
        let v1 = r#"{"sightline_run":1,"task":"t","steps":[
            {"tool":"goto","url":"http://a.test/x"},
            {"tool":"navback"},
            {"tool":"scroll","direction":"down","percentage":80.0},
            {"tool":"keys","method":"press","value":"Enter","repeat":2},
            {"tool":"keys","method":"type","value":"ab","repeat":2},
            {"tool":"act","instruction":"click Buy","actions":[{"description":"Buy","method":"click","arguments":[],"selector":"button#buy"}]}
        ]}"#;
        let run = SavedRun::parse(v1).unwrap();
        let tools: Vec<&str> = run.steps.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(tools, ["goto", "back", "scroll", "press", "type", "act"]);
        assert_eq!(run.steps[3].args, json!({"key": "Enter", "repeat": 2}));
        assert_eq!(run.steps[4].args, json!({"text": "abab"}));
        assert_eq!(run.steps[5].actions[0].selector, "button#buy");
        let registry = Registry::standard();
        for s in &run.steps {
            let tool = registry.get(&s.tool).unwrap();
            crate::tools::validate(tool, s.args.clone()).unwrap();
        }
        assert!(SavedRun::parse(r#"{"sightline_run":9,"task":"t","steps":[]}"#)
            .unwrap_err()
            .to_string()
            .contains("format 9"));
    }
}
