//! What the whole process shares, below the entry points (`app`) and the control centre
//! (`tui`): the async runtime every entry point runs on, and the signals that stop it.
use anyhow::Context;

pub mod signals;

/// The multi-threaded runtime every entry point runs on.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
