//! One task of a batch, as a line of the task file describes it.

use serde_json::Value;

use std::path::Path;

use crate::agent::AgentMode;
use crate::ai::Variables;
use crate::files::LocalInputs;
use crate::steps::Step;

/// What a task does.
#[derive(Debug, Clone)]
pub enum TaskKind {
    /// `{"task": "…"}`: the agent carries it out with a model.
    Agent { task: String },
    /// `{"steps": […]}`: a steps list, as `sightline run` reads, played with no
    /// model (unless a step calls a model tool).
    Steps(Vec<Step>),
    /// `{"extract": {"instruction", "schema"}}`: schema-shaped data from the page.
    Extract { instruction: String, schema: Option<Value> },
}

impl Task {
    /// The options of the task's model (its own `model`, else the run's)
    /// and of its judge (`--judge-model`, else the task's model).
    pub(crate) fn model_options(
        &self,
        llm: &crate::llm::LlmOptions,
        judge: Option<&crate::llm::LlmOptions>,
    ) -> (crate::llm::LlmOptions, crate::llm::LlmOptions) {
        let own = crate::llm::LlmOptions {
            model: self.model.clone().or_else(|| llm.model.clone()),
            ..llm.clone()
        };
        let judge = judge.cloned().unwrap_or_else(|| own.clone());
        (own, judge)
    }
}

impl TaskKind {
    /// Whether a run of this kind ends early when asked, and hands over
    /// what it did (the agent does; steps and extract are dropped).
    pub fn stops_when_asked(&self) -> bool {
        matches!(self, TaskKind::Agent { .. })
    }

    /// `agent`, `steps` or `extract`.
    pub fn name(&self) -> &'static str {
        match self {
            TaskKind::Agent { .. } => "agent",
            TaskKind::Steps(_) => "steps",
            TaskKind::Extract { .. } => "extract",
        }
    }

    /// Whether the task cannot run without a model.
    pub fn needs_llm(&self) -> bool {
        match self {
            TaskKind::Agent { .. } | TaskKind::Extract { .. } => true,
            TaskKind::Steps(steps) => steps.iter().any(Step::needs_llm),
        }
    }
}

/// A validated task.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    /// The line of the task file it came from (1-based), for messages.
    pub line: usize,
    pub kind: TaskKind,
    /// Where the task starts (already resolved: a URL, a relative path taken
    /// against the task file's directory).
    pub url: Option<String>,
    /// `%name%` values, substituted only when acting.
    pub vars: Variables,
    /// The agent's model turns (default: the batch's).
    pub max_steps: Option<u32>,
    /// Where navigations may go (empty: anywhere).
    pub allowed_domains: Vec<String>,
    /// The model of this task (default: the batch's).
    pub model: Option<String>,
    /// How an agent task sees the page (dom, hybrid or cua).
    pub mode: AgentMode,
    /// The question a judge answers about the task's end (its final
    /// screenshots and output): the result's `verdict`.
    pub evaluate: Option<String>,
}

impl Task {
    /// The local pages and uploads the task names: its start page, and
    /// those of its steps (relative uploads taken against `base_dir`).
    pub fn local_inputs(&self, base_dir: &Path, into: &mut LocalInputs) {
        if let Some(url) = &self.url {
            into.page(url);
        }
        if let TaskKind::Steps(steps) = &self.kind {
            for step in steps {
                step.local_inputs(Some(base_dir), into);
            }
        }
    }
}
