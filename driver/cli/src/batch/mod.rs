//! `sightline batch`: many tasks at once on a local pool, on running
//! browsers or on Selenium Grid 4; `sightline batch merge` joins the results
//! of shards. The work is the library's (`sightline::batch`); this parses
//! flags, shows progress and prints the summary.

mod command;
mod merge;
mod pool;
mod progress;
mod summary;

pub use command::{batch, BatchCommand};
pub use pool::{with_two_stage_stop, PoolArgs};
pub use progress::events_for;
