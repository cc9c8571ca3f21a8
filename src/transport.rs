//! Transports adapt bytes to the one MCP core: streamable HTTP and legacy SSE (`http`, `sse`),
//! a local socket for stdio clients (`socket`) reached through `spock-tui relay` (`relay`),
//! and the attach channel for control centres in other terminals (`control`; its own
//! credential, never the MCP token), which reaches the server controller through `switch`.
//! All of them check the same token and write under the same write timeout (`stall`); none
//! implements any MCP logic of its own. The socket files come back when their directory is
//! removed under a running server (`rebind`).
pub mod agent_door;
pub mod auth;
pub mod control;
pub mod http;
pub mod jsonrpc_checks;
pub mod rebind;
pub mod relay;
pub mod request_ids;
pub mod sessions;
pub mod socket;
pub mod sse;
pub mod sse_as_json;
pub mod switch;
pub mod write_timeout;

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::config::token::TokenStore;
use crate::mcp::Core;

/// Everything a transport needs from the rest of the program.
#[derive(Clone)]
pub struct Shared {
    pub core: Arc<Core>,
    pub tokens: TokenStore,
    /// Cancelled when the server stops: every transport closes its sessions.
    pub shutdown: CancellationToken,
}
