//! Saved runs (`--save-run run.json`) and `sightline replay`: the agent's
//! deterministic steps re-executed with no model. act steps are stored as
//! the actions they resolved to; only when a stored selector no longer
//! resolves does replay ask the model again (through act), if it has one.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::ai::{ActOptions, ActRecord, Variables};
use crate::error::{Error, Result};
use crate::llm::{Llm, Usage};
use crate::page::Page;
use crate::tools::ScrollAmount;

/// The format's version: bump on incompatible changes.
pub const RUN_FORMAT: u32 = 1;

/// One deterministic step (`{"tool": "act", …}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "camelCase")]
pub enum ReplayStep {
    /// The instruction and the actions it resolved to (arguments keep `%name%`).
    Act {
        instruction: String,
        actions: Vec<ActRecord>,
    },
    Goto {
        url: String,
    },
    Navback,
    Scroll {
        direction: String,
        percentage: f64,
    },
    Keys {
        method: String,
        value: String,
        #[serde(default = "one")]
        repeat: u32,
    },
    Wait {
        ms: u64,
    },
    RemoveBlocker {
        #[serde(default)]
        aggressive: bool,
    },
}

fn one() -> u32 {
    1
}

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
    pub steps: Vec<ReplayStep>,
}

impl SavedRun {
    pub fn load(path: &Path) -> Result<SavedRun> {
        let text = std::fs::read_to_string(path).map_err(|_| Error::NoSuchFile {
            path: path.to_path_buf(),
            hint: None,
        })?;
        let run: SavedRun = serde_json::from_str(&text)
            .map_err(|e| Error::InvalidAction(format!("{}: not a saved run: {e}", path.display())))?;
        if run.sightline_run != RUN_FORMAT {
            return Err(Error::InvalidAction(format!(
                "{}: saved-run format {} is not supported (this build reads {RUN_FORMAT})",
                path.display(),
                run.sightline_run
            )));
        }
        Ok(run)
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a saved run serialises");
        std::fs::write(path, text + "\n").map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))
    }
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
}

impl Page {
    /// Re-executes a saved run: the start URL, then every step; stops at the
    /// first step that fails.
    pub async fn replay_run(&self, run: &SavedRun, opts: &ReplayOptions<'_>) -> Result<ReplayReport> {
        if let Some(missing) = run.variables.iter().find(|n| !opts.variables.names().contains(n)) {
            return Err(Error::InvalidAction(format!(
                "the run uses %{missing}%: give its value with --var {missing}=VALUE"
            )));
        }
        let mut report = ReplayReport {
            success: true,
            steps: Vec::new(),
            usage: Usage::default(),
        };
        if let Some(url) = &run.start_url {
            self.goto(url).await?;
        }
        for step in &run.steps {
            let done = self.replay_step(step, opts, &mut report.usage).await?;
            let ok = done.ok;
            report.steps.push(done);
            if !ok {
                report.success = false;
                break;
            }
        }
        Ok(report)
    }

    async fn replay_step(
        &self,
        step: &ReplayStep,
        opts: &ReplayOptions<'_>,
        usage: &mut Usage,
    ) -> Result<ReplayedStep> {
        let (tool, detail) = match step {
            ReplayStep::Act { instruction, actions } => {
                return self.replay_act(instruction, actions, opts, usage).await
            }
            ReplayStep::Goto { url } => ("goto", self.goto(url).await?.to_string()),
            ReplayStep::Navback => (
                "navback",
                self.back()
                    .await?
                    .map(|r| r.to_string())
                    .unwrap_or_else(|| "no history".into()),
            ),
            ReplayStep::Scroll { direction, percentage } => {
                let sign = if direction == "up" { -1.0 } else { 1.0 };
                self.scroll(ScrollAmount::ViewportPercent(sign * percentage)).await?;
                ("scroll", format!("{direction} {percentage}%"))
            }
            ReplayStep::Keys { method, value, repeat } => {
                let value = opts.variables.substitute(value);
                for _ in 0..(*repeat).max(1) {
                    if method == "press" {
                        self.press(None, std::slice::from_ref(&value)).await?;
                    } else {
                        self.type_text(&value).await?;
                    }
                }
                ("keys", method.clone())
            }
            ReplayStep::Wait { ms } => {
                self.wait(std::time::Duration::from_millis(*ms)).await?;
                ("wait", format!("{ms} ms"))
            }
            ReplayStep::RemoveBlocker { aggressive } => {
                let mut o = self
                    .blocker_config()
                    .options_for(&self.url().await.unwrap_or_default())
                    .unwrap_or_default();
                o.aggressive |= aggressive;
                let r = self.remove_blocker(&o).await?;
                ("removeBlocker", serde_json::to_string(&r).expect("serialises"))
            }
        };
        Ok(ReplayedStep {
            tool: tool.into(),
            ok: true,
            detail,
            healed: false,
        })
    }

    async fn replay_act(
        &self,
        instruction: &str,
        actions: &[ActRecord],
        opts: &ReplayOptions<'_>,
        usage: &mut Usage,
    ) -> Result<ReplayedStep> {
        let mut done = Vec::new();
        for rec in actions {
            let action: Action = rec.to_action(&opts.variables);
            let resolves = match action.target() {
                Some(t) => {
                    // The option of a dropdown may appear a moment after its trigger was clicked.
                    self.exists(t.clone()).await? || {
                        self.settle().await?;
                        self.exists(t).await?
                    }
                }
                None => true,
            };
            if resolves {
                match self.perform(&action, None).await {
                    Ok(_) => {
                        done.push(rec.description.clone());
                        continue;
                    }
                    Err(e) if matches!(e, Error::Action { .. } | Error::InvalidAction(_)) => {
                        return Ok(failed(instruction, format!("{} failed: {e}", rec.method)));
                    }
                    Err(e) => return Err(e),
                }
            }
            // Self-heal: only this record, through the act pipeline.
            let Some(llm) = opts.llm else {
                return Ok(failed(
                    instruction,
                    format!(
                        "{} no longer resolves; give a model (--model) to let replay self-heal",
                        rec.selector
                    ),
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
            let r = self.act(llm, &heal, &act_opts).await?;
            *usage += r.usage;
            if !r.success {
                return Ok(failed(
                    instruction,
                    format!(
                        "{} no longer resolves and self-heal failed: {}",
                        rec.selector, r.message
                    ),
                ));
            }
            return Ok(ReplayedStep {
                tool: "act".into(),
                ok: true,
                detail: format!("{instruction}: healed ({})", r.message),
                healed: true,
            });
        }
        Ok(ReplayedStep {
            tool: "act".into(),
            ok: true,
            detail: format!("{instruction}: {}", done.join("; then ")),
            healed: false,
        })
    }
}

fn failed(instruction: &str, why: String) -> ReplayedStep {
    ReplayedStep {
        tool: "act".into(),
        ok: false,
        detail: format!("{instruction}: {why}"),
        healed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_round_trip_in_the_documented_shape() {
        let run = SavedRun {
            sightline_run: RUN_FORMAT,
            task: "t".into(),
            start_url: Some("http://a.test/".into()),
            variables: vec!["pw".into()],
            steps: vec![
                ReplayStep::Goto {
                    url: "http://a.test/x".into(),
                },
                ReplayStep::RemoveBlocker { aggressive: false },
                ReplayStep::Scroll {
                    direction: "down".into(),
                    percentage: 80.0,
                },
                ReplayStep::Keys {
                    method: "press".into(),
                    value: "Enter".into(),
                    repeat: 1,
                },
            ],
        };
        let text = serde_json::to_string(&run).unwrap();
        assert!(
            text.contains(r#"{"tool":"removeBlocker","aggressive":false}"#),
            "{text}"
        );
        assert!(text.contains(r#"{"tool":"goto","url":"http://a.test/x"}"#), "{text}");
        let back: SavedRun = serde_json::from_str(&text).unwrap();
        assert_eq!(back, run);
    }
}
