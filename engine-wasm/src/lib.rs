//! Sightline in-page engine.
//!
//! Layout (see ARCHITECTURE.md):
//! - `protocol`: the types shared with the driver, and `protocol::wire`,
//!   the request reader.
//! - `dom`: the plain-data page model filled by the DOM adapter.
//! - `semantics`: hidden rules, roles, accessible names, states (pure).
//! - `interactive`, `modal`, `selector`, `viewport`, `render`, `snapshot`,
//!   `stitch`: the pure pipeline from a `DomTree` to a `FrameSnapshot`, and
//!   frames into one page (also for hosts other than the driver).
//! - `actions`, `blockers`: the pure rules of actions and removeBlocker.
//! - `css_content`, `url_resolve`, `box_guess`, `number`, `words`: small pure
//!   helpers.
//! - `adapter` (wasm32 only): the one thin layer that reads the DOM, plus the
//!   exported JS API.

pub mod actions;
pub mod blockers;
pub mod box_guess;
pub mod css_content;
pub mod dom;
pub mod interactive;
pub mod modal;
pub mod number;
pub mod outline;
pub mod protocol;
pub mod render;
pub mod selector;
pub mod semantics;
pub mod snapshot;
pub mod stitch;
pub mod url_resolve;
pub mod viewport;
pub mod words;

#[cfg(target_arch = "wasm32")]
pub mod adapter;

// The engine runs single-threaded in a page: talc replaces dlmalloc, saving
// module bytes and allocation time.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
