//! The server controller: one task owns the running MCP transports ([`Server`]) and starts,
//! stops and restarts them on command ([`ServerCtl`]), publishing each step as a
//! [`ServerStatus`] on a watch channel. Both the control centre in this process and every
//! attached one (through the attach channel's `server` command) drive the same controller;
//! the attach channel itself is not part of [`Server`] and stays up across a restart.
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use super::{Listen, Server};
use crate::config::token::TokenStore;
use crate::mcp::Core;

/// Start, stop or restart both MCP transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerCtl {
    Start,
    Stop,
    Restart,
}

/// Whether the server (both transports) is up, as its controller reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", content = "error", rename_all = "snake_case")]
pub enum ServerStatus {
    Starting,
    Running,
    Stopping,
    Stopped,
    Failed(String),
}

impl ServerStatus {
    pub fn label(&self) -> &str {
        match self {
            ServerStatus::Starting => "starting",
            ServerStatus::Running => "running",
            ServerStatus::Stopping => "stopping",
            ServerStatus::Stopped => "stopped",
            ServerStatus::Failed(_) => "failed",
        }
    }
}

enum Cmd {
    Ctl(ServerCtl),
    /// The process is stopping: stop the server and end the controller.
    Quit,
}

/// How the control centres reach the controller: commands in, status out.
#[derive(Clone)]
pub struct ServerHandle {
    tx: mpsc::UnboundedSender<Cmd>,
    status: watch::Receiver<ServerStatus>,
}

impl ServerHandle {
    /// False when the controller has ended (the process is stopping).
    pub fn send(&self, c: ServerCtl) -> bool {
        self.tx.send(Cmd::Ctl(c)).is_ok()
    }

    pub fn status(&self) -> watch::Receiver<ServerStatus> {
        self.status.clone()
    }

    /// Stop the server and end the controller (its task then finishes).
    pub fn quit(&self) {
        let _ = self.tx.send(Cmd::Quit);
    }
}

/// Start the controller, owning `running` if the server was already started.
pub fn spawn_controller(
    core: Arc<Core>,
    tokens: TokenStore,
    listen: Listen,
    port_fixed: bool,
    running: Option<Server>,
) -> (ServerHandle, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Cmd>();
    let (status_tx, status) = watch::channel(if running.is_some() {
        ServerStatus::Running
    } else {
        ServerStatus::Stopped
    });
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
    (ServerHandle { tx, status }, handle)
}
