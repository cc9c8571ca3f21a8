//! Who a control session is, and with what: the options a session runs with, and the peer
//! check (only this user's processes attach). A leaf: the listener (`control.rs`) and the
//! sessions (`session/`) both read it.
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct ControlOptions {
    pub socket: PathBuf,
    /// The control credential, read again when its file changes (`spock-tui token rotate
    /// --control`): a new hello needs the current one, and sessions attached with an older
    /// one end.
    pub credential: crate::config::token::TokenStore,
    pub handshake_timeout: Duration,
    pub write_timeout: Duration,
}

/// Only this user's processes may attach. (The 0700 directory already keeps others out; this
/// holds even if the directory's mode is changed.)
pub fn same_user(peer_uid: u32, own_uid: u32) -> bool {
    peer_uid == own_uid
}

pub fn own_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}
