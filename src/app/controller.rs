//! The server controller: one task owns the running MCP transports ([`Server`]) and starts,
//! stops and restarts them on command ([`ServerCtl`]), publishing each step as a
//! [`ServerStatus`] on a watch channel. Both the control centre in this process and every
//! attached one (through the attach channel's `server` command) drive the same controller;
//! the attach channel itself is not part of [`Server`] and stays up across a restart.
use std::sync::Arc;

use super::{Listen, Server};
use crate::config::token::TokenStore;
use crate::mcp::Core;
use crate::protocol::{ServerCtl, ServerStatus};
use crate::transport::switch::{self, Cmd, ServerHandle};

/// Start the controller, owning `running` if the server was already started.
pub fn spawn_controller(
    core: Arc<Core>,
    tokens: TokenStore,
    listen: Listen,
    port_fixed: bool,
    running: Option<Server>,
) -> (ServerHandle, tokio::task::JoinHandle<()>) {
    let (server_handle, ends) = switch::channel(if running.is_some() {
        ServerStatus::Running
    } else {
        ServerStatus::Stopped
    });
    let mut rx = ends.commands;
    let status_tx = ends.status;
    let set = move |s: ServerStatus| {
        status_tx.send_replace(s);
    };
    let handle = tokio::spawn(async move {
        let mut server = running;
        while let Some(cmd) = rx.recv().await {
            let cmd = match cmd {
                Cmd::Ctl(c) => c,
                Cmd::Quit => break,
            };
            if matches!(cmd, ServerCtl::Stop | ServerCtl::Restart)
                && let Some(s) = server.take()
            {
                set(ServerStatus::Stopping);
                s.stop().await;
                set(ServerStatus::Stopped);
            }
            if matches!(cmd, ServerCtl::Start | ServerCtl::Restart) && server.is_none() {
                set(ServerStatus::Starting);
                // The port may have changed in Settings since the last start (unless --port
                // fixed it). The address was checked, and warned about, before the terminal
                // was taken over; nothing here may print.
                let mut listen = listen.clone();
                if !port_fixed {
                    listen.http.set_port(core.config().server.port);
                }
                match Server::start(core.clone(), tokens.clone(), &listen).await {
                    Ok(s) => {
                        server = Some(s);
                        set(ServerStatus::Running);
                    }
                    Err(e) => {
                        tracing::error!(error = %format!("{e:#}"), "server did not start");
                        set(ServerStatus::Failed(format!("{e:#}")));
                    }
                }
            }
        }
        if let Some(s) = server.take() {
            set(ServerStatus::Stopping);
            s.stop().await;
            set(ServerStatus::Stopped);
        }
    });
    (server_handle, handle)
}
