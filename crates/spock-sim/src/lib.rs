//! The virtual Android device: a test instrument and the `--demo` default.
//!
//! One device core ([`Target`], implemented by [`device::SimDevice`]) behind two front doors:
//! an adb server speaking the host smart-socket protocol ([`server`]), so the demo and the
//! device layer need no `adb` binary, and adbd over TCP ([`adbd`]), so Debian's real `adb`
//! can `adb connect` to it. Formats follow the real captures in `tests/fixtures/`.
//!
//! Ownership: the protocol side (`adbd`, `server`, `services`, `syncproto`, `faults`, `cli`)
//! talks only to [`Target`]; the device side (`device`, `scenario`, `shell`, `fs`,
//! `screencap`, `touch`) knows nothing about wire formats.
use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use tokio::sync::mpsc;

pub mod adbd;
pub mod cli;
pub mod device;
pub mod faults;
pub mod fs;
pub mod latency;
pub mod replay;
pub mod scenario;
pub mod screencap;
pub mod server;
pub mod services;
pub mod shell;
pub mod syncproto;
pub mod touch;

pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A chunk of output from a running shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellChunk {
    Stdout(Bytes),
    Stderr(Bytes),
}

/// The pipes of one running command. `stdin` closes when the client closes its side;
/// output is sent in order. Dropping the command's future kills it (as SIGHUP would).
pub struct ShellIo {
    pub stdin: mpsc::Receiver<Bytes>,
    pub out: mpsc::Sender<ShellChunk>,
}

/// What `stat` reports, in sync-protocol terms (`mode` includes the file type bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    pub mode: u32,
    pub size: u64,
    pub mtime: u32,
}

/// A filesystem failure, carrying the errno a phone would report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    #[error("No such file or directory")]
    NotFound,
    #[error("Is a directory")]
    IsDirectory,
    #[error("Not a directory")]
    NotDirectory,
    #[error("Permission denied")]
    PermissionDenied,
    #[error("Read-only file system")]
    ReadOnly,
    #[error("File exists")]
    Exists,
    #[error("Operation not permitted")]
    NotPermitted,
    #[error("Too many levels of symbolic links")]
    Loop,
}

impl FsError {
    pub fn errno(&self) -> u32 {
        match self {
            FsError::NotFound => 2,
            FsError::IsDirectory => 21,
            FsError::NotDirectory => 20,
            FsError::PermissionDenied => 13,
            FsError::ReadOnly => 30,
            FsError::Exists => 17,
            FsError::NotPermitted => 1,
            FsError::Loop => 40,
        }
    }
}

/// Identity a front door announces: `devices -l` fields and the adbd banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceIdentity {
    pub serial: String,
    pub product: String,
    pub model: String,
    pub device: String,
}

/// A raw framebuffer for the `framebuffer:` service (RGBA8888).
#[derive(Debug, Clone)]
pub struct Framebuffer {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The device core both front doors serve. Implementations are internally synchronised.
pub trait Target: Send + Sync + 'static {
    fn identity(&self) -> DeviceIdentity;
    /// Run one shell command line (as `sh -c` would on the device). Resolves to the exit code.
    fn shell(&self, command: String, io: ShellIo) -> BoxFuture<i32>;
    fn stat(&self, path: &str) -> Result<FileStat, FsError>;
    /// `lstat`: a final symlink is reported as itself. Targets without links need not say.
    fn lstat(&self, path: &str) -> Result<FileStat, FsError> {
        self.stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<(String, FileStat)>, FsError>;
    fn read(&self, path: &str) -> Result<Bytes, FsError>;
    fn write(&self, path: &str, mode: u32, mtime: u32, data: Bytes) -> Result<(), FsError>;
    /// A file arriving by `adb push` (sync SEND): adbd unlinks a regular file or symlink at
    /// `path` first, so a push replaces a link instead of writing through it.
    fn push_file(&self, path: &str, mode: u32, mtime: u32, data: Bytes) -> Result<(), FsError> {
        self.write(path, mode, mtime, data)
    }
    fn framebuffer(&self) -> Framebuffer;
    /// `reboot:` service; the argument is what followed the colon (may be empty).
    fn reboot(&self, target: &str);
}
