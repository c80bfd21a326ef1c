//! The LLM pipelines over a page: `act` (one instruction, one action),
//! `observe` (ready-to-run actions) and `extract` (schema-shaped data).

pub mod act;
pub mod cache;
pub mod extract;
pub mod observe;
pub mod prompts;
pub mod tree;
pub mod variables;

pub use act::{ActOptions, ActRecord, ActResult};
pub use extract::{ExtractOptions, ExtractResult};
pub use observe::{ObserveOptions, ObserveResult};
pub use variables::Variables;
