//! spock-tui: safe, structured, auditable access to Android devices for AI agents over MCP,
//! with a person watching and approving from a terminal.
//!
//! This package is the program around the core: `transport` adapts bytes to `mcp`, `tui` (the
//! control centre) reads `mcp` events and the audit store, `doctor` and `clientconfig` help set
//! up. `cli` parses the command line, `app` dispatches and wires everything together (its
//! `main` is the binary's), and `tui` runs the control centre it is handed. The MCP core
//! (`mcp`, `device`, `uitree`, `audit`, `guard`, `redact`, `config`, `batch`, `project`) is the
//! `spock-core` crate and the virtual device (`sim`) the `spock-sim` crate; both are
//! re-exported here under their old paths. Where a `tools/call` goes, in order, is the module
//! map in `spock-core`'s crate documentation (`crates/spock-core/src/lib.rs`); the layers are
//! in `ARCHITECTURE.md`.
pub mod app;
pub mod capture;
pub mod cli;
pub mod clientconfig;
pub mod doctor;
pub mod process;
pub mod protocol;
pub mod sandbox;
pub mod transport;
pub mod tui;

#[doc(hidden)]
pub use spock_core::testdata;
pub use spock_core::{audit, batch, config, device, guard, mcp, own, project, redact, uitree};
pub use spock_sim as sim;
