//! The virtual device through the real `adb` server over TCP, and its fidelity as the client's
//! device layer and tools read it (the device alone is tested in the sim crate's `sim` binary).
//!
//! One test binary (`cargo test --test virtual_device`), one module per area: a new test goes into
//! the module of the area it tests, or a new module listed here. Helpers shared by several
//! binaries are in `tests/support/` (one module each), never copied.
#[path = "../support/mod.rs"]
mod support;

mod adb_real;
mod fidelity;
