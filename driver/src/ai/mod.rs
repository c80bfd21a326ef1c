//! The LLM pipelines over a page: `act` (one instruction, one action),
//! `observe` (ready-to-run actions) and `extract` (schema-shaped data), all
//! methods of [`Ai`], which takes the page as an argument.

pub mod act;
pub mod cache;
pub mod extract;
mod handle;
pub mod observe;
pub mod prompts;
mod record;
pub mod tree;
pub mod variables;

pub use act::{ActOptions, ActResult};
pub use extract::{page_text, ExtractOptions, ExtractResult};
pub use handle::Ai;
pub use observe::{ObserveOptions, ObserveResult};
pub use record::ActRecord;
pub use variables::Variables;
