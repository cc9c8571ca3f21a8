//! One writer per audit trail, so one instance per home. The control centre and `serve` hold
//! an exclusive `flock` on `audit.lock` beside `audit.jsonl` (in the data directory) for as
//! long as they run; a second one refuses at start, naming the first, instead of appending to
//! the same trail (two chains interleaved: `audit verify` finds the break) and taking over the
//! socket and the descriptor. Not in the runtime directory: logind removes that at logout, and
//! with it the lock file, while the server keeps running. The kernel drops the lock when the
//! holder exits, however it exits, so a crashed instance never blocks the next. `relay`,
//! `config`, `doctor`, `token`, `completions` and `sim` are not instances and never take it;
//! `doctor` asks who holds it ([`InstanceLock::holder`]).
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
        "another spock-tui (pid {pid}) is serving {home} and writing its audit trail; reach it \
         with `spock-tui attach` (or `spock-tui config` for a client), stop it (kill {pid}), or \
         use another {HOME_ENV} for a second instance",
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

/// Who holds the lock, as [`InstanceLock::holder`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    Nobody,
    /// A live process holds it; the pid is what it wrote in the file (unknown if unreadable).
    Process(Option<u32>),
}

fn would_block(err: &std::io::Error) -> bool {
    err.raw_os_error() == Some(libc::EWOULDBLOCK)
}

/// `flock(op | LOCK_NB)`: `Ok(false)` when someone else holds a conflicting lock.
fn try_flock(file: &File, op: libc::c_int) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor the caller owns; no memory is involved.
    if unsafe { libc::flock(file.as_raw_fd(), op | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if would_block(&err) {
        Ok(false)
    } else {
        Err(err)
    }
}

fn pid_in(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    text.trim().parse().ok()
}

impl InstanceLock {
    /// Beside the audit trail it guards.
    pub fn file(paths: &Paths) -> PathBuf {
        paths.audit_dir().join("audit.lock")
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
        if !try_flock(&file, libc::LOCK_EX).map_err(io)? {
            return Err(LockError::Held {
                pid: pid_in(&mut file),
                home: home_of(paths),
            });
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        Ok(InstanceLock { _file: file })
    }

    /// Whether a live process holds the lock, without taking it from anyone: a shared lock
    /// is tried and dropped at once (a start in that instant is refused; run it again).
    pub fn holder(paths: &Paths) -> Result<Holder, LockError> {
        let path = Self::file(paths);
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut file = match super::private::open(&path, Open::Read) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Holder::Nobody),
            Err(e) => return Err(io(e)),
        };
        Ok(if try_flock(&file, libc::LOCK_SH).map_err(io)? {
            Holder::Nobody
        } else {
            Holder::Process(pid_in(&mut file))
        })
    }
}

/// What to call the home in the refusal: `SPOCK_TUI_HOME` when set, else the data directory
/// where the audit trail and its lock live.
fn home_of(paths: &Paths) -> PathBuf {
    match std::env::var_os(HOME_ENV).filter(|h| !h.is_empty()) {
        Some(h) if Paths::under(Path::new(&h)) == *paths => PathBuf::from(h),
        _ => paths.data.clone(),
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
        assert_eq!(
            InstanceLock::holder(&paths).unwrap(),
            Holder::Process(Some(std::process::id()))
        );
        drop(held);
        assert_eq!(InstanceLock::holder(&paths).unwrap(), Holder::Nobody);
        InstanceLock::acquire(&paths).expect("free again once the holder is gone");
    }
}
