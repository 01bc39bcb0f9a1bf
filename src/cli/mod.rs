//! The command handlers of the `pliant` binary that do not fit in
//! `main.rs`: one file per command (group).

pub(crate) mod gradient;
pub(crate) mod optimize;
pub(crate) mod sweep;
