//! [`Effect`]: what `update` asks the loop to do on the state's behalf (I/O the state may not do
//! itself: answer a confirmation, command the server, write to the clipboard). Plain data, a
//! leaf, so every part of the control centre can return one.
use super::images::FoundImage;
use crate::mcp::navigation::NavRequest;
use crate::protocol::{AccessChange, ServerCtl, SettingField};

/// What the loop does on the state's behalf.
#[derive(Debug)]
pub enum Effect {
    /// The person's answer to the waiting call `call_id` (the loop sends it to the server).
    Decide {
        call_id: u64,
        approve: bool,
    },
    Server(ServerCtl),
    /// OSC 52 to the clipboard; `what` names it in the footer.
    Copy {
        what: String,
        text: String,
    },
    /// Bell and desktop notification: a confirmation is waiting.
    Alert {
        title: String,
        body: String,
    },
    Access(AccessChange),
    /// Read the own tools' files again (Settings, `T`).
    ReloadTools,
    /// Replace the control credential (Settings, `K`, after the person said yes).
    RotateCredential,
    Setting(SettingField, u64),
    SaveImages {
        stem: String,
        images: Vec<FoundImage>,
    },
    /// Answer a navigation request after `Core::screen` has been updated.
    NavReply(NavRequest, Result<(), String>),
    /// Run, cancel, save, delete or record a batch task.
    Batch(crate::protocol::BatchCmd),
    /// Break lease `id` on `device` (the person said yes).
    BreakLease {
        id: u64,
        device: String,
    },
}
