//! The tool registry: every browser tool Sightline offers, defined once.
//! The agent loop, `sightline run` steps, replay and the MCP server read
//! the same [`Tool`] values from a [`Registry`]. Element tools take a ref
//! or selector; the coordinate tools (`clickAt`, `typeAt`, `dragAt`,
//! `hoverAt`, `scrollAt`, `mouseDown`/`mouseUp`, capability [`VISION`])
//! take viewport pixels, for models that see screenshots.

pub mod act;
pub mod back;
pub mod check;
pub mod click;
pub mod click_at;
pub mod close;
pub mod console_messages;
mod context;
pub mod done;
pub mod drag;
pub mod drag_at;
mod element;
pub mod evaluate;
pub mod extract;
pub mod fill;
pub mod fill_form;
pub mod forward;
pub mod goto;
pub mod handle_dialog;
pub mod hover;
pub mod hover_at;
pub mod key_hold;
pub mod mouse_button;
pub mod network_requests;
pub mod observe;
pub mod page_text;
mod point;
pub mod press;
mod registry;
pub mod reload;
pub mod remove_blocker;
pub mod resize;
pub mod screenshot;
pub mod scroll;
pub mod scroll_at;
pub mod select;
pub mod snapshot;
pub mod storage_state;
pub mod tabs;
pub mod think;
mod tool;
pub mod type_at;
pub mod type_text;
pub mod untrusted;
pub mod upload;
pub mod wait;

pub use context::{ToolContext, ToolSettings, CONFIGURE_A_MODEL};
pub use point::VISION;
pub use registry::{specs, validate, Registry};
pub use tool::{
    boxed, element_properties, object, parse, with, CommandShape, Finish, Handler, Offered, RecordedCall, Tool,
    ToolFuture, ToolOutput, TARGET_HELP,
};
