//! The typed protocol between the in-page engine and the driver, in one place.
//!
//! The driver sends each request as one JSON string; the engine reads it with
//! [`wire`] (not serde_json: see there) and answers with one JSON string
//! written by serde (cheaper than building JS objects across the WASM
//! boundary). The driver deserialises the very same types. Field names are
//! part of the public `--json` output, so they are snake_case and stable.
//!
//! One file per area; every type is re-exported here, so users name them
//! `protocol::X` whatever their area:
//! - `snapshot`: snapshot requests, one frame's snapshot, the stitched result;
//! - `actions`: action targets (actionability) and DOM-level operations;
//! - `blockers`: removeBlocker's scan and its operations on one blocker;
//! - `version`: [`PROTOCOL_VERSION`] and the engine's [`WORLD_NAME`];
//! - [`wire`]: the hand-written reader of the requests; `wire_tests` checks
//!   it reads every request type as serde does.

mod actions;
mod blockers;
mod snapshot;
mod version;
pub mod wire;
#[cfg(test)]
mod wire_tests;

pub use actions::*;
pub use blockers::*;
pub use snapshot::*;
pub use version::*;
