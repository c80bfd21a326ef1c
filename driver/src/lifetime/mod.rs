//! What a run leaves on the machine, and how it goes away on every exit
//! path: temporary folders are named after the process that owns them
//! ([`owned_temp_dir`]), a [`Reaper`] kills the browsers and removes the
//! folders of a process that died without cleaning up (even SIGKILL), and
//! the next start sweeps what a reaper could not ([`sweep_stale`]).

mod owner;
mod reaper;
mod sweep;

pub(crate) use reaper::{Cleanup, Reaper};
pub(crate) use sweep::sweep_stale;

/// Temporary browser profiles.
pub(crate) const PROFILE_PREFIX: &str = "sightline-profile";
/// Output folders an MCP server made for itself.
pub(crate) const MCP_OUTPUT_PREFIX: &str = "sightline-mcp";

/// A new folder in the temporary directory, `<prefix>-<owner>-<random>`,
/// where the owner (this process's id and start time) tells a later run
/// whether its creator is still alive.
pub(crate) fn owned_temp_dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&format!("{prefix}-{}-", owner::this_process()))
        .tempdir()
}

/// Sweeps the stale folders of both kinds, once per process (the first
/// launch or server start pays a directory listing).
pub(crate) fn sweep_stale_once() {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| sweep_stale(&std::env::temp_dir(), &[PROFILE_PREFIX, MCP_OUTPUT_PREFIX]));
}
