//! [`Ai`]: the LLM pipelines (act, observe, extract) bound to one model.
//! They take the page as an argument; the page knows nothing of models.

use crate::llm::Llm;

/// The LLM pipelines over pages: `Ai::new(&llm).act(&page, "click Buy", &opts)`.
#[derive(Clone, Copy)]
pub struct Ai<'a> {
    llm: &'a Llm,
}

impl<'a> Ai<'a> {
    pub fn new(llm: &'a Llm) -> Ai<'a> {
        Ai { llm }
    }

    /// The model the pipelines call.
    pub fn llm(&self) -> &'a Llm {
        self.llm
    }
}
