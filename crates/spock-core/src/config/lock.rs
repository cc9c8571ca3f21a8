//! One instance per home. The control centre and `serve` hold an exclusive `flock` on a file
//! in the runtime directory for as long as they run; a second one refuses at start instead of
//! taking over the socket and the descriptor (and deleting them on exit, which left the first
//! unreachable over stdio). The kernel drops the lock when the holder exits, however it exits,
//! so a crashed instance never blocks the next. `relay`, `config`, `doctor`, `token`,
//! `completions` and `sim` are not instances and never take it.
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::paths::{HOME_ENV, Paths};
use super::private::Open;

/// Held for the life of the process; dropping it releases the lock.
#[derive(Debug)]
pub struct InstanceLock {
    _file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another spock-tui (pid {pid}) is using {home}; stop it or use {HOME_ENV}",
        pid = pid.map_or_else(|| "unknown".to_string(), |p| p.to_string()),
        home = home.display()
    )]
    Held { pid: Option<u32>, home: PathBuf },
    #[error("instance lock {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

impl InstanceLock {
    pub fn file(paths: &Paths) -> PathBuf {
        paths.runtime.join("instance.lock")
    }

    /// Take the lock for `paths`, or say who holds it. The lock file holds the holder's pid.
    pub fn acquire(paths: &Paths) -> Result<InstanceLock, LockError> {
        let path = Self::file(paths);
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        // Not truncated on open: a refused second instance must still read the holder's pid.
        let mut file = super::private::open(&path, Open::ReadWrite).map_err(io)?;
        // SAFETY: flock on a descriptor this function owns; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(io(err));
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            return Err(LockError::Held {
                pid: text.trim().parse().ok(),
                home: home_of(paths),
            });
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(InstanceLock { _file: file })
    }
}

/// What to call the home in the refusal: `SPOCK_TUI_HOME` when set, else the runtime directory
/// where the socket, the descriptor and the lock live.
fn home_of(paths: &Paths) -> PathBuf {
    match std::env::var_os(HOME_ENV).filter(|h| !h.is_empty()) {
        Some(h) if Paths::under(Path::new(&h)) == *paths => PathBuf::from(h),
        _ => paths.runtime.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holders_pid_and_freed_on_drop() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::under(t.path());
        let held = InstanceLock::acquire(&paths).unwrap();
        match InstanceLock::acquire(&paths) {
            Err(LockError::Held { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("expected a refusal, got {other:?}"),
        }
        drop(held);
        InstanceLock::acquire(&paths).expect("free again once the holder is gone");
    }
}
