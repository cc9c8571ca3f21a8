//! The attach channel's server side: a private Unix socket (`control.sock`, never TCP) beside
//! the stdio socket in the 0700 runtime directory, through which `spock-tui attach` control
//! centres follow the calls and answer confirmations. Who may answer is decided here, not by
//! any screen: the peer must be this user (the socket's peer credentials), must present the
//! control credential (its own 0600 file; the MCP token does not work), and an approval counts
//! only after that client acknowledged displaying the request and the arming time has passed
//! since; an early or unacknowledged approval is refused, audited, and the call keeps waiting.
//! The messages are the [`crate::protocol`]; a session's loop is in [`session`], the Batch
//! screen's server side in [`batch_io`]; what the person's commands do to the core is in
//! [`commands`], shared with the in-process control centre.
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::net::UnixListener;

use super::Shared;
use super::rebind::SocketFile;
use crate::config::paths::{Paths, private_dir};

pub mod batch_io;
pub mod commands;
mod peer;
mod session;

pub use peer::{ControlOptions, own_uid, same_user};

/// `sun_path` is 108 bytes on Linux, including the NUL.
const SUN_PATH_MAX: usize = 107;

pub fn socket_path(paths: &Paths) -> PathBuf {
    paths.runtime.join("control.sock")
}

/// The control credential: like the MCP token, 256 random bits in a 0600 file, but a
/// different file and a different secret. Never printed in any client configuration.
pub fn credential_file(paths: &Paths) -> PathBuf {
    paths.config.join("control-credential")
}

/// Bind the control socket. A path too long for `sun_path` or an unusable directory means no
/// attach channel (logged): it never falls back to TCP.
pub fn bind(socket: &Path) -> std::io::Result<UnixListener> {
    if socket.as_os_str().len() > SUN_PATH_MAX {
        return Err(std::io::Error::other(format!(
            "{} is too long for a Unix socket path; set SPOCK_TUI_HOME or XDG_RUNTIME_DIR shorter",
            socket.display()
        )));
    }
    if let Some(dir) = socket.parent() {
        private_dir(dir)?;
    }
    let _ = std::fs::remove_file(socket);
    UnixListener::bind(socket)
}

/// Accept attach sessions until shutdown; each is its own task. `server` is the controller
/// of the MCP transports, for the `server` command. A socket file that is gone (the runtime
/// directory removed at a logout) is bound again ([`super::rebind`]).
pub async fn serve(
    mut listener: UnixListener,
    shared: Shared,
    opts: ControlOptions,
    server: super::switch::ServerHandle,
) {
    let mut file = SocketFile::bound(&opts.socket, "the attach socket").await;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        let ticked = tokio::select! {
            _ = shared.shutdown.cancelled() => break,
            _ = tick.tick() => true,
            accepted = listener.accept() => {
                match accepted {
                    Ok((stream, _)) => {
                        let (shared, opts, server) = (shared.clone(), opts.clone(), server.clone());
                        tokio::spawn(async move { session::run(stream, shared, opts, server).await });
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "control socket accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
                false
            }
        };
        if ticked
            && file.gone().await
            && let Some(l) = file.rebind().await
        {
            listener = l;
        }
    }
    let _ = std::fs::remove_file(&opts.socket);
}

/// The serving process's own control centre: a session over an in-process duplex, with the
/// same hello, consent rules and commands as an attached one (only the peer check differs).
/// Returns the client's end.
pub fn in_process(
    shared: Shared,
    opts: ControlOptions,
    server: super::switch::ServerHandle,
) -> tokio::io::DuplexStream {
    let (client, end) = tokio::io::duplex(256 * 1024);
    tokio::spawn(session::run_in_process(end, shared, opts, server));
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_uid_may_attach() {
        assert!(same_user(1000, 1000));
        assert!(!same_user(65534, 0));
        assert!(!same_user(0, 1000));
    }
}
