//! The MCP core: one implementation of the protocol, whatever the transport.
//!
//! `registry` declares each tool once; `server` is the rmcp `ServerHandler` every transport
//! serves; its `call_tool` is the single seam where access, confirmation, audit and events sit.
//! This module imports neither ratatui, crossterm nor axum.
pub mod access;
pub mod claims;
pub mod completion;
pub mod confirm;
pub mod core;
pub mod ctx;
pub mod elicit;
pub mod events;
pub mod imagework;
pub mod lease;
pub mod logbuf;
pub mod logging;
pub mod navigation;
pub mod observe;
pub mod own;
pub mod progress;
pub mod registry;
pub mod resources;
pub mod result;
pub mod scrub;
pub mod selection;
pub mod server;
pub mod sessions;
pub mod staged;
pub mod subscribe;
pub mod templates;
pub mod tools;
pub mod toolsets;
pub mod typed_text;
pub mod who;

pub use self::core::Core;
pub use events::ServerEvent;
pub use registry::{Level, ToolDef};
pub use result::{ToolError, ToolOutput};
