//! `sightline eval SUITE`: a suite's tasks run by the agent in each mode
//! and trial on the batch machinery, every run judged, and the success
//! rate reported per mode and per level. The work is the library's
//! (`sightline::suite`); this parses flags, shows progress and prints the tables.

mod command;
mod table;

pub use command::{eval, EvalArgs};
