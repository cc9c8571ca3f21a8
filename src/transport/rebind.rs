//! Sockets that come back. logind removes the runtime directory at logout while a
//! `nohup spock-tui serve` keeps running: its listeners still accept on sockets nobody can
//! name, and `relay` and `attach` find nothing. Each accept loop checks on its tick that its
//! socket file is still the one it bound (same inode) and, when it is not, binds a fresh one at
//! the same path, the directory made again (0700). When that fails (the parent is gone too, as
//! `/run/user/UID` is until the next login) it says once how to recover and tries again on
//! later ticks. Every look at the file system runs on the blocking pool.
use std::io;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

use crate::config::paths::private_dir;

/// A Unix socket file an accept loop listens at.
pub struct SocketFile {
    path: PathBuf,
    what: &'static str,
    ino: Option<u64>,
    /// The last attempt to bind again failed and said so: not again every tick.
    failing: bool,
}

async fn inode(path: &Path) -> Option<u64> {
    tokio::fs::symlink_metadata(path)
        .await
        .ok()
        .map(|m| m.ino())
}

impl SocketFile {
    /// The socket `what` (for the log: "the stdio socket") just bound at `path`.
    pub async fn bound(path: &Path, what: &'static str) -> SocketFile {
        SocketFile {
            path: path.to_path_buf(),
            what,
            ino: inode(path).await,
            failing: false,
        }
    }

    /// The file is gone, or another one took its name.
    pub async fn gone(&self) -> bool {
        match inode(&self.path).await {
            None => true,
            now => now != self.ino,
        }
    }

    /// A fresh listener at the same path, or `None` when it cannot be made now (said once).
    pub async fn rebind(&mut self) -> Option<UnixListener> {
        let path = self.path.clone();
        let bound = tokio::task::spawn_blocking(move || bind(&path))
            .await
            .map_err(io::Error::other)
            .and_then(|r| r)
            .and_then(|(l, ino)| Ok((UnixListener::from_std(l)?, ino)));
        match bound {
            Ok((listener, ino)) => {
                self.ino = Some(ino);
                self.failing = false;
                tracing::warn!(
                    path = %self.path.display(),
                    "{} was gone (its runtime directory removed, as at a logout): bound again",
                    self.what
                );
                Some(listener)
            }
            Err(e) => {
                if !std::mem::replace(&mut self.failing, true) {
                    tracing::error!(
                        error = %e,
                        path = %self.path.display(),
                        "{} is gone and cannot be made again yet: HTTP still serves, and it keeps \
                         trying. To recover, log in again (the runtime directory can \
                         then be made) or stop this server (kill {}) and start it again",
                        self.what,
                        std::process::id()
                    );
                }
                None
            }
        }
    }
}

/// Bind `path` as the first bind did: the directory made (0700) or checked, a stale file
/// removed.
fn bind(path: &Path) -> io::Result<(std::os::unix::net::UnixListener, u64)> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    let _ = std::fs::remove_file(path);
    let listener = std::os::unix::net::UnixListener::bind(path)?;
    listener.set_nonblocking(true)?;
    let ino = std::fs::symlink_metadata(path)?.ino();
    Ok((listener, ino))
}
