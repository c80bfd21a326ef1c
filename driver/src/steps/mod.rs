//! Deterministic runs (`sightline run URL --steps steps.json`): a list of
//! steps played on a page with no LLM. A step is a registry tool call
//! (`{"tool": "click", "target": "e12"}`) or, as `observe` writes them, a
//! Stagehand-style action (`{"method": "click", "selector": "#go"}`).

mod file;
mod runner;

pub use file::{parse_steps, read_steps, steps_from_values, Step};
pub use runner::{RunReport, Runner, StepReport};
