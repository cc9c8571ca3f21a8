//! spock-tui: safe, structured, auditable access to Android devices for AI agents over MCP,
//! with a person watching and approving from a terminal.
//!
//! The core (`mcp`, `device`, `uitree`, `audit`, `config`, `sim`) imports neither ratatui,
//! crossterm nor axum; `transport` adapts bytes to `mcp`, `tui` reads `mcp` events and the
//! audit store, and `cli` wires everything together.
pub mod app;
pub mod audit;
pub mod batch;
pub mod cli;
pub mod clientconfig;
pub mod config;
pub mod device;
pub mod doctor;
pub mod guard;
pub mod mcp;
pub mod project;
pub mod redact;
pub mod sim;
#[doc(hidden)]
pub mod testdata;
pub mod transport;
pub mod tui;
pub mod uitree;
