//! Fuzzing the transports and the UI-tree parser (`SPOCK_FUZZ_CASES` sets the case count).
//!
//! One test binary (`cargo test --test fuzz`), one module per area: a new test goes into
//! the module of the area it tests, or a new module listed here. Helpers shared by several
//! binaries are in `tests/support/` (one module each), never copied.
mod rig;
#[path = "../support/mod.rs"]
mod support;

mod transport;
mod uitree;
