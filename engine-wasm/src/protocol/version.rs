//! What the driver checks before it talks to an engine.

/// Bumped whenever a request or response shape changes; the driver refuses to
/// talk to an engine bundle with another version.
pub const PROTOCOL_VERSION: u32 = 1;

/// Name of the isolated world the engine lives in (one per frame).
pub const WORLD_NAME: &str = "__sightline_engine";
