//! What a control centre sends: [`ClientMsg`], one variant a message, and the commands it
//! carries (the person's acts: access switches, settings, batch commands, the server).
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::batch::Task;
use crate::mcp::events::Transport;
use crate::mcp::registry::{HostGroup, Level};

/// Client → server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// First line. `nonce` is fresh (32 random bytes, hex) for the server's proof that it holds
    /// the control credential ([`super::ServerMsg::Challenge`]); the credential itself is never
    /// sent. `pid` and `tty` name the terminal (the server checks `pid` against the socket's
    /// peer credentials). An older client's `credential` field is ignored, and its version
    /// refused.
    Hello {
        protocol_version: u32,
        #[serde(default)]
        nonce: String,
        pid: u32,
        #[serde(default)]
        tty: Option<String>,
    },
    /// The answer to the server's challenge, sent only once the server's proof checked out:
    /// HMAC-SHA256 of both nonces under the control credential, labelled as the client's.
    Prove { proof: String },
    /// The whole confirmation for `call_id` is on this client's screen: arming starts now.
    Displayed { call_id: u64 },
    /// Approve or deny `call_id`. An approval counts only [`super::ARMING_MS`] after `displayed`.
    Decide { call_id: u64, approve: bool },
    /// Leave; the server keeps serving.
    Detach,
    /// Switch tools or host groups on or off (Tools).
    Access { change: AccessChange },
    /// Change a setting (Settings); saved to the config file.
    Setting { field: SettingField, value: u64 },
    /// Run, cancel, save, delete or record a batch task; answered with `batch_reply`.
    Batch { cmd: BatchCmd },
    /// Break lease `id` on `device` (the person said yes at the prompt).
    BreakLease { id: u64, device: String },
    /// Start, stop or restart the MCP transports (the attach channel stays up).
    Server { action: ServerCtl },
    /// Replace the control credential (Settings' `K`): answered with a `notice`; every other
    /// attached terminal is detached within 5 s and attaches again only with the new one,
    /// while this one stays attached (it asked).
    RotateCredential,
    /// Read the own tools' files again (config.toml's `[[tool]]`, `tools.d`); answered with a
    /// `notice` saying what loaded, or an `error` naming a file that did not.
    ReloadTools,
    /// This terminal now shows `screen` (what `spock_get_status` reports).
    Screen { name: String },
    /// The answer to `navigate` `id`: `error` is why the screen did not change.
    Navigated {
        id: u64,
        #[serde(default)]
        error: Option<String>,
    },
}

/// A change to the access switches (Tools), as the attach protocol's `access` command too.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum AccessChange {
    SetEnabled {
        tool: String,
        on: bool,
    },
    SetGroup {
        group: HostGroup,
        on: bool,
    },
    EnableAll,
    ReadOnlyOnly,
    /// One switch of one device's entry in the device tree (`device`: its identity, or
    /// `default`): Inspect (`interact: false`) or Interact. `label` names the device for people.
    SetDevice {
        device: String,
        interact: bool,
        on: bool,
        #[serde(default)]
        label: Option<String>,
    },
    /// The apps one device's Interact is limited to (`None`: any app).
    SetDeviceApps {
        device: String,
        apps: Option<Vec<String>>,
        #[serde(default)]
        label: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingField {
    HistorySize,
    ConfirmTimeout,
    Port,
}

impl SettingField {
    pub fn label(self) -> &'static str {
        match self {
            SettingField::HistorySize => "History size (calls kept)",
            SettingField::ConfirmTimeout => "Confirmation timeout (seconds)",
            SettingField::Port => "HTTP port (applies on restart)",
        }
    }
}

/// Start, stop or restart both MCP transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerCtl {
    Start,
    Stop,
    Restart,
}

/// A call marked in History, as much of it as a task step needs (and the audit shape wants).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PickedCall {
    pub tool: String,
    pub level: Level,
    pub transport: Transport,
    pub arguments: Value,
    /// The call's audit record (its `seq`): where a password it typed is found again.
    pub audit_seq: Option<u64>,
}

/// What the loop does to `core.batch()` on the person's behalf.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
pub enum BatchCmd {
    Run {
        task_id: String,
    },
    Cancel {
        run_id: String,
    },
    Delete {
        task_id: String,
    },
    /// Already checked with `validate_json`; the store checks again.
    Save {
        task: Task,
    },
    StartRecording {
        name: String,
    },
    StopRecording,
    FromCalls {
        name: String,
        calls: Vec<PickedCall>,
    },
}
