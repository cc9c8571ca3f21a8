//! A log of every command sent to the devices and what came back, for a capture
//! (`spock-tui doctor --capture`): switched on for one [`super::Devices`], it costs nothing
//! otherwise.
use std::sync::Mutex;
use std::time::Duration;

/// One command as a device answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The device's full name as the device layer knows it.
    pub device: String,
    pub command: String,
    /// Sent as `exec:` (stdout only).
    pub exec: bool,
    /// `None`: no answer (the error says why).
    pub exit: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub took: Duration,
    pub error: Option<String>,
}

/// The commands recorded so far, in the order they finished.
#[derive(Debug, Default)]
pub struct Recorder {
    items: Mutex<Vec<Recorded>>,
}

impl Recorder {
    pub fn push(&self, r: Recorded) {
        self.items.lock().unwrap_or_else(|p| p.into_inner()).push(r);
    }

    /// Everything recorded, leaving the log empty.
    pub fn take(&self) -> Vec<Recorded> {
        std::mem::take(&mut *self.items.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
