//! How control centres reach the server controller (`app`'s, which owns the MCP transports
//! and starts, stops and restarts them): a handle that sends [`ServerCtl`] commands and
//! watches the [`ServerStatus`]; the controller holds the other ends ([`ControllerEnds`]).
//! It lives here, below both, so the attach channel (`control`) needs nothing of `app`.
use tokio::sync::{mpsc, watch};

use crate::protocol::{ServerCtl, ServerStatus};

/// What the controller is asked to do.
pub enum Cmd {
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

/// The controller's ends: the commands it reads and the status it publishes.
pub struct ControllerEnds {
    pub commands: mpsc::UnboundedReceiver<Cmd>,
    pub status: watch::Sender<ServerStatus>,
}

/// A handle and the controller's ends, the status starting at `initial`.
pub fn channel(initial: ServerStatus) -> (ServerHandle, ControllerEnds) {
    let (tx, commands) = mpsc::unbounded_channel();
    let (status_tx, status) = watch::channel(initial);
    (
        ServerHandle { tx, status },
        ControllerEnds {
            commands,
            status: status_tx,
        },
    )
}
