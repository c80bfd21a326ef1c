//! Local files and the tools: which ones pages may read ([`FileAccess`]),
//! and where the tools may write ([`write_output`]: the output directory
//! only).

mod access;
mod inputs;
mod output;

pub use access::FileAccess;
pub use inputs::LocalInputs;
pub(crate) use inputs::{folder_of, upload_path};
pub(crate) use output::write_atomically;
pub use output::{output_path, write_output};
