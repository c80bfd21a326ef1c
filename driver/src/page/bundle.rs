//! The scripts the driver puts into every page: the engine bundle (built by
//! build.rs from engine-wasm and js-glue) and the main-world hook.

/// The engine bundle's text (wasm-bindgen glue, the module bytes and the JS API), built by build.rs.
macro_rules! engine_bundle {
    () => {
        include_str!(concat!(env!("OUT_DIR"), "/sightline-engine.bundle.js"))
    };
}

/// The engine bundle as built, with no world marked (the test harness and
/// main-world injections use it).
pub const ENGINE_BUNDLE: &str = engine_bundle!();

/// The bundle as the driver injects it, into its isolated world, which it
/// first marks as one: there the engine reads no `onclick` handler
/// properties (a handler property belongs to the world that set it, so all
/// it could read is null; the main-world hook announces the page's). Page
/// scripts can't reach the isolated world's globals.
pub(crate) const ISOLATED_ENGINE: &str = concat!("globalThis.__sightlineIsolated = true;\n", engine_bundle!());

/// The main-world hook (closed shadow roots, click listeners); runs before page scripts.
pub const MAIN_WORLD_HOOK: &str = include_str!("../../../js-glue/main-world-hook.js");

/// Name of the isolated world of [`Page::evaluate_isolated`]: neither the
/// page's world nor the engine's.
pub const USER_WORLD_NAME: &str = "__sightline_user__";
