//! One browser tab, driven through the DevTools protocol: navigation,
//! frames, the engine in every frame, snapshots, element actions, actions
//! at coordinates, trusted input, readiness, screenshots (annotated too) and
//! removeBlocker. Everything `Page` can do is in this
//! folder; the LLM pipelines and tools take a `&Page` from outside.

mod actions;
mod address;
mod annotate;
mod bundle;
mod cdp_error;
mod context;
mod cover;
mod drag;
mod engine;
mod evaluate;
mod events;
mod frame_hosts;
mod frames;
mod handle;
mod held;
mod input;
mod navigation;
mod observed;
mod origin_filter;
mod pdf;
mod perform;
mod point;
mod pointer;
mod polls;
pub(crate) mod raw_cdp;
mod readiness;
mod ready_probe;
mod rebound;
mod receiver;
mod screenshot;
mod script_value;
mod side_channel;
mod snapshot;
mod state;
mod storage;
mod target;
mod tracker;
mod unblock;
mod viewport;

pub use actions::{ActionResult, ClickOptions};
pub use address::{resolve_target, scheme_less_web_address};
pub use annotate::{AnnotatedScreenshot, RefBox};
pub use bundle::{ENGINE_BUNDLE, MAIN_WORLD_HOOK, USER_WORLD_NAME};
pub use cover::Shot;
pub use events::{ConsoleMessage, DialogInfo, DialogPolicy, NetworkRecord};
pub use handle::Page;
pub(crate) use handle::TabOrigin;
pub use held::ClickButton;
pub use input::{key_by_name, parse_combo, Combo, KeyDef};
pub use navigation::NavigationResponse;
pub use observed::DialogHolds;
pub use perform::{Action, Method};
pub use point::PointTarget;
pub use pointer::PointClick;
pub use readiness::{
    ReadyReport, CONTENT_REQUEST_AGE, DEFAULT_READY_TIMEOUT, ECHO_WINDOW, LATE_WINDOW, QUIET_WINDOW_READY,
};
pub use rebound::names_its_own_identity;
pub use script_value::ScriptValue;
pub(crate) use side_channel::SideChannel;
pub use snapshot::SnapshotOptions;
pub use storage::StorageItem;
pub use target::{is_ref, Target};
pub use tracker::{MAX_REQUEST_AGE, QUIET_WINDOW};
pub use unblock::{RemoveBlockerResult, AGGRESSIVE_HINT};
pub use viewport::{ScrollAmount, ViewportSize};

pub(crate) use state::PageConfig;
