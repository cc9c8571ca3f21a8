//! Who asks, as the pipeline states it for the modal, the client's approval form and the
//! audit record: the verified part from the call's origin (see [`crate::model::who`]). The
//! person's own acts are the calls with no MCP session (made at a control centre, or steps of
//! a run started there): only the server makes those, so no client name can pass for them.
use std::net::SocketAddr;

use super::ctx::Origin;
use super::events::ClientId;
use crate::model::Verified;

/// What the HTTP transport read from a request for the core, as typed values (the core reads
/// no header and no query text): the MCP session the request belongs to (none for a
/// 2026-07-28 request, whatever `Mcp-Session-Id` it carries: another client's id on it would let
/// it act as that session) and the toolsets its endpoint asks for (`/mcp?toolsets=core,apps`,
/// decoded). Put in each request's extensions by the transport.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFacts {
    pub session_id: Option<String>,
    pub toolsets: Option<String>,
}

/// The address an HTTP connection was accepted from, put in each request's extensions by the
/// HTTP server and read back as the session's verified peer.
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

/// What the server verified about `origin`.
pub fn verified(origin: &Origin) -> Verified {
    match &origin.session {
        Some(s) => Verified::client(
            origin.transport,
            Some(s.label().to_string()),
            s.peer().cloned().unwrap_or_default(),
        ),
        None => Verified::person(origin.transport, terminal(&origin.client)),
    }
}

/// The terminal a person's act came from, as the server named it: an attached control centre
/// is named by its `you` (`attach pid 42 on /dev/pts/3`, carried as the version of the
/// control centre's client id), the serving process's own by [`super::confirm::local_label`].
fn terminal(client: &Option<ClientId>) -> String {
    match client {
        Some(c) if c.version.starts_with("attach ") => c.version.clone(),
        _ => super::confirm::local_label(),
    }
}
