//! The control centre: its screens, keys and modal as data (a `State` fed events, drawn to a
//! `TestBackend`), its snapshots, and an attached control centre's session.
//!
//! One test binary (`cargo test --test control_centre`), one module per area: a new test goes into
//! the module of the area it tests, or a new module listed here. Helpers shared by several
//! binaries are in `tests/support/` (one module each), never copied.
#[path = "../support/mod.rs"]
mod support;

mod attach;
mod batch;
mod consent;
mod keys;
mod lease;
mod messages;
mod port_note;
mod screens;
mod secrets;
mod status;
mod update;
