//! The browser: launching Chromium (or connecting to a running one), its
//! tabs, and shutting it down. Pages come from here.

mod cdp_url;
mod contexts;
mod downloads;
mod handle;
mod options;
mod origin_guard;
mod process;
mod records;
mod tab_move;
mod tab_screen;
mod user_tabs;

pub use contexts::{OriginStorage, StorageState};
pub use handle::Browser;
pub use options::{LaunchOptions, CHROME_ENV, DEFAULT_CHROME};
pub(crate) use process::{chrome_switches, locate_executable};
pub use records::{BrowserContext, Download};
pub use tab_move::TabMove;
pub use user_tabs::ListedTab;
