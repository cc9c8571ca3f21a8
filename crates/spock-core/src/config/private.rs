//! Private state on disk: every directory spock-tui keeps to itself (config, data with the
//! audit trail and its lock, batch tasks and runs, pulls, logs, runtime with the sockets and
//! the descriptor) and every file in them goes through here.
//!
//! A private directory is opened with `O_NOFOLLOW | O_DIRECTORY`, must be owned by us and is
//! made 0700; a file in it is opened relative to that descriptor (`openat`, `O_NOFOLLOW`), must
//! be a regular file owned by us and is made 0600. Someone else on the machine who plants a
//! symlink (the audit repair once truncated a symlink's target) or a file of their own is
//! refused with the path and what is wrong, never followed and never truncated: a file is only
//! truncated after it passed the checks. A wrong mode we can fix is fixed and logged.
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// What is wrong with a private path; carried inside the `io::Error` callers see.
#[derive(Debug, thiserror::Error)]
#[error("refusing {path}: {problem}")]
pub struct Refused {
    pub path: PathBuf,
    pub problem: Problem,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("it is a symbolic link (a private path is never followed; remove the link)")]
    Symlink,
    #[error("it is owned by uid {owner}, not by this user (uid {ours})")]
    ForeignOwner { owner: u32, ours: u32 },
    #[error("it is not a directory")]
    NotDir,
    #[error("it is not a regular file")]
    NotFile,
}

fn refused(path: &Path, problem: Problem) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        Refused {
            path: path.to_path_buf(),
            problem,
        },
    )
}

/// The [`Problem`] behind an error from this module, if it was a refusal.
pub fn problem(e: &io::Error) -> Option<&Problem> {
    e.get_ref()
        .and_then(|r| r.downcast_ref::<Refused>())
        .map(|r| &r.problem)
}

fn cstr(p: &OsStr) -> io::Result<CString> {
    CString::new(p.as_bytes()).map_err(|_| io::Error::other("a path with a NUL byte"))
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn fstat(fd: &impl AsRawFd) -> io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value for fstat to fill in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open for the call; `st` is a valid out pointer.
    cvt(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
    Ok(st)
}

fn euid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}

/// Owner and mode of an opened private object: refuse a foreign owner, fix the mode.
fn check_opened(fd: &impl AsRawFd, path: &Path, dir: bool) -> io::Result<()> {
    let st = fstat(fd)?;
    let kind = st.st_mode & libc::S_IFMT;
    match (dir, kind) {
        (true, libc::S_IFDIR) | (false, libc::S_IFREG) => {}
        (true, _) => return Err(refused(path, Problem::NotDir)),
        (false, _) => return Err(refused(path, Problem::NotFile)),
    }
    let ours = euid();
    if st.st_uid != ours {
        return Err(refused(
            path,
            Problem::ForeignOwner {
                owner: st.st_uid,
                ours,
            },
        ));
    }
    let want = if dir { 0o700 } else { 0o600 };
    let mode = st.st_mode & 0o7777;
    if mode != want {
        // SAFETY: fchmod on a descriptor we hold.
        cvt(unsafe { libc::fchmod(fd.as_raw_fd(), want) })?;
        tracing::warn!(path = %path.display(), from = format!("{mode:o}"), to = format!("{want:o}"), "a private path had a loose mode: fixed");
    }
    Ok(())
}

/// What a link-or-not at `path` is, without following it; for a precise refusal.
fn classify(path: &Path, e: io::Error, dir: bool) -> io::Error {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => refused(path, Problem::Symlink),
        Ok(m) if dir && !m.is_dir() => refused(path, Problem::NotDir),
        Ok(m) if !dir && !m.is_file() => refused(path, Problem::NotFile),
        _ => e,
    }
}

/// An open, checked private directory: files are opened relative to it.
#[derive(Debug)]
pub struct PrivateDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// How [`PrivateDir::open_file`] opens a file. Never truncating: see [`PrivateDir::write_atomic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    Read,
    /// Created when missing.
    Append,
    /// An existing file, for writing in place (a repair).
    Write,
    /// Created when missing (the instance lock).
    ReadWrite,
}

impl PrivateDir {
    /// Open `path`, creating it (and missing parents) 0700 when it does not exist.
    pub fn create(path: &Path) -> io::Result<PrivateDir> {
        match Self::existing(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(parent)?;
                }
                match std::fs::DirBuilder::new().mode(0o700).create(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
                Self::existing(path)
            }
            other => other,
        }
    }

    /// Open `path`, which must exist already.
    pub fn existing(path: &Path) -> io::Result<PrivateDir> {
        let c = cstr(path.as_os_str())?;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid C string; the descriptor is owned below.
        let fd = match cvt(unsafe { libc::open(c.as_ptr(), flags) }) {
            Ok(fd) => fd,
            Err(e) => return Err(classify(path, e, true)),
        };
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        check_opened(&fd, path, true)?;
        Ok(PrivateDir {
            fd,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn openat(&self, name: &OsStr, flags: libc::c_int) -> io::Result<File> {
        let c = cstr(name)?;
        // O_NONBLOCK: a FIFO planted under the name must not hang the open; cleared below.
        let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;
        // SAFETY: a valid C string and a directory descriptor we hold.
        let fd = cvt(unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags, 0o600) });
        let path = self.path.join(name);
        let fd = fd.map_err(|e| classify(&path, e, false))?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        let file = unsafe { File::from_raw_fd(fd) };
        check_opened(&file, &path, false)?;
        // SAFETY: F_GETFL/F_SETFL on a descriptor we hold.
        unsafe {
            let fl = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
            if fl >= 0 {
                libc::fcntl(file.as_raw_fd(), libc::F_SETFL, fl & !libc::O_NONBLOCK);
            }
        }
        Ok(file)
    }

    /// Open the file `name` in this directory (never through a link, never someone else's).
    pub fn open_file(&self, name: &OsStr, how: Open) -> io::Result<File> {
        let flags = match how {
            Open::Read => libc::O_RDONLY,
            Open::Append => libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT,
            Open::Write => libc::O_WRONLY,
            Open::ReadWrite => libc::O_RDWR | libc::O_CREAT,
        };
        self.openat(name, flags)
    }

    /// Write `bytes` to a fresh neighbour of `name` (0600), fsync, rename it over `name`: a
    /// reader sees the old file or the new one. A link or someone else's file at `name` is
    /// refused, not replaced.
    pub fn write_atomic(&self, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
        let path = self.path.join(name);
        if let Some(st) = self.lstat(name)? {
            if st.st_mode & libc::S_IFMT == libc::S_IFLNK {
                return Err(refused(&path, Problem::Symlink));
            }
            if st.st_mode & libc::S_IFMT != libc::S_IFREG {
                return Err(refused(&path, Problem::NotFile));
            }
            let ours = euid();
            if st.st_uid != ours {
                let owner = st.st_uid;
                return Err(refused(&path, Problem::ForeignOwner { owner, ours }));
            }
        }
        let tmp = format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id());
        let tmp = OsStr::new(&tmp);
        let create = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        let mut f = match self.openat(tmp, create) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists || problem(&e).is_some() => {
                // Left by a crash, or planted: removing a name never follows it.
                self.unlink(tmp)?;
                self.openat(tmp, create)?
            }
            other => other?,
        };
        let result = (|| {
            f.write_all(bytes)?;
            f.sync_all()?;
            self.rename(tmp, name)
        })();
        if result.is_err() {
            let _ = self.unlink(tmp);
        }
        result.map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    }

    /// What is at `name`, links not followed; `None` when nothing is.
    fn lstat(&self, name: &OsStr) -> io::Result<Option<libc::stat>> {
        let c = cstr(name)?;
        // SAFETY: an all-zero `stat` is a valid value for fstatat to fill in.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let flags = libc::AT_SYMLINK_NOFOLLOW;
        // SAFETY: a valid C string, a directory descriptor we hold, a valid out pointer.
        match cvt(unsafe { libc::fstatat(self.fd.as_raw_fd(), c.as_ptr(), &mut st, flags) }) {
            Ok(_) => Ok(Some(st)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Remove the name `name` (a link is removed, never what it points at).
    pub fn unlink(&self, name: &OsStr) -> io::Result<()> {
        let c = cstr(name)?;
        // SAFETY: a valid C string and a directory descriptor we hold.
        cvt(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) }).map(drop)
    }

    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        let (a, b) = (cstr(from)?, cstr(to)?);
        let d = self.fd.as_raw_fd();
        // SAFETY: valid C strings and a directory descriptor we hold.
        cvt(unsafe { libc::renameat(d, a.as_ptr(), d, b.as_ptr()) })?;
        // SAFETY: fsync on a descriptor we hold: the rename itself is durable.
        unsafe { libc::fsync(d) };
        Ok(())
    }
}

fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => Ok((
            if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            },
            name,
        )),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )),
    }
}

/// Create `dir` (and missing parents) 0700, or check the one there: ours, not a link, 0700.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    PrivateDir::create(dir).map(drop)
}

/// Open the private file at `path`; its directory is checked (and created only when `how`
/// creates the file).
pub fn open(path: &Path, how: Open) -> io::Result<File> {
    let (dir, name) = split(path)?;
    let dir = match how {
        Open::Append | Open::ReadWrite => PrivateDir::create(dir)?,
        Open::Read | Open::Write => PrivateDir::existing(dir)?,
    };
    dir.open_file(name, how)
}

/// The whole private file at `path`.
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    let mut f = open(path, Open::Read)?;
    let mut out = Vec::new();
    io::Read::read_to_end(&mut f, &mut out)?;
    Ok(out)
}

pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not UTF-8: {e}", path.display()),
        )
    })
}

/// [`PrivateDir::write_atomic`] for `path`, its directory created when missing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, name) = split(path)?;
    PrivateDir::create(dir)?.write_atomic(name, bytes)
}

#[cfg(test)]
mod tests;
