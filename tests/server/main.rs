//! The server side through the core on the virtual device: the call pipeline's safety rules,
//! the action tools' paths through the guard,
//! leases, pinning, batch runs, the audit trail (and its crash windows), events, tools' fidelity,
//! the device layer, private state files and load.
//!
//! One test binary (`cargo test --test server`), one module per area: a new test goes into
//! the module of the area it tests, or a new module listed here. Helpers shared by several
//! binaries are in `tests/support/` (one module each), never copied.
#[path = "../support/mod.rs"]
mod support;

mod actions_guard;
mod audit_crash;
mod batch;
mod busy_screens;
mod device_layer;
mod events;
mod fidelity_tools;
mod lab;
mod lease;
mod own_tools;
mod pin;
mod private_state;
mod push_source;
mod reliability_load;
mod safety;
mod screen_reuse;
