//! What the server sends: [`ServerMsg`], one variant a message, why it refused
//! ([`ErrorCode`]), and the reports it carries (the server's state, batch snapshots and
//! replies).
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::audit::AuditRecord;
use crate::batch::{BatchStatus, Recording, RunSummary, Task};
use crate::mcp::events::{ClientId, Decision, Outcome, Transport};
use crate::mcp::registry::Level;

use super::{AskWire, DeviceWire, ViewWire};

/// Why the server refused a hello or a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The hello's `protocol_version` is not this server's (fatal).
    ProtocolVersion,
    /// Wrong or missing control credential (fatal).
    Unauthorized,
    /// Another user's process (fatal).
    WrongUser,
    /// A line that is not a message of this protocol (fatal before the welcome).
    BadMessage,
    /// An approval for a request this client never acknowledged displaying.
    NotDisplayed,
    /// An approval sooner than the arming time after `displayed`.
    TooEarly,
    /// No such request is waiting (already decided, withdrawn, or never asked).
    NotPending,
    /// A command that was understood but did not work (a setting out of range, a save that
    /// failed, a stopped controller).
    Failed,
}

/// Whether the server (both transports) is up, as its controller reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", content = "error", rename_all = "snake_case")]
pub enum ServerStatus {
    Starting,
    Running,
    Stopping,
    Stopped,
    Failed(String),
}

impl ServerStatus {
    pub fn label(&self) -> &str {
        match self {
            ServerStatus::Starting => "starting",
            ServerStatus::Running => "running",
            ServerStatus::Stopping => "stopping",
            ServerStatus::Stopped => "stopped",
            ServerStatus::Failed(_) => "failed",
        }
    }
}

/// What the loop read from `core.batch()`, copied out so drawing never touches the store.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BatchData {
    /// Sorted by name, as the store lists them.
    pub tasks: Vec<Task>,
    /// Newest first, the run in progress included.
    pub runs: Vec<RunRow>,
    pub status: BatchStatus,
    /// The tool of the step running now, when it is known.
    pub current_tool: Option<String>,
    pub recording: Option<Recording>,
    /// Reading the store failed; shown instead of pretending it is empty.
    pub error: Option<String>,
}

/// One line of the run history: the summary, how many of its steps ended `ok` and, for a run
/// that stopped early, why (its failed step and the error, in the runner's words).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunRow {
    pub summary: RunSummary,
    pub ok: usize,
    pub stopped: Option<String>,
}

/// How a [`BatchCmd`] went.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchReply {
    /// A line for the footer.
    Done(String),
    /// A task was stored (editor save, recording stopped, made from History): select it.
    Saved { task: Task, note: String },
    /// `save` says whether it was the editor's save, which then shows the error in place.
    Failed { save: bool, message: String },
}

/// Server → client.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The answer to a hello of the right version: the server's nonce and its proof that it
    /// holds the control credential (HMAC-SHA256 of both nonces, labelled as the server's). The
    /// client checks it before showing anything, then answers [`super::ClientMsg::Prove`].
    Challenge {
        nonce: String,
        proof: String,
    },
    Welcome {
        protocol_version: u32,
        server_version: String,
        server_pid: u32,
        /// How this client's decisions are recorded and told to the others.
        you: String,
        arming_ms: u64,
        history_size: usize,
        demo: bool,
    },
    /// A refused hello (then the server closes) or command (`call_id` names it).
    Error {
        code: ErrorCode,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<u64>,
    },
    CallStarted {
        call_id: u64,
        at: DateTime<Utc>,
        tool: String,
        level: Level,
        transport: Transport,
        client: Option<ClientId>,
        device: Option<String>,
        arguments: Value,
        /// The person's own act, as the server knows it (never from a client's name).
        #[serde(default)]
        person: bool,
    },
    CallArguments {
        call_id: u64,
        arguments: Value,
    },
    CallFinished {
        call_id: u64,
        tool: String,
        outcome: Outcome,
        duration_ms: f64,
        decision: Option<Decision>,
        device: Option<String>,
        result: Value,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<crate::mcp::events::CallImage>,
        record: u64,
    },
    ConfirmAsked {
        ask: AskWire,
    },
    /// Someone decided: `by` names the terminal (this client's own `you` when it was this one).
    Decided {
        call_id: u64,
        approved: bool,
        by: String,
    },
    /// The asker stopped waiting: its client cancelled, or the confirmation timed out.
    Withdrawn {
        call_id: u64,
        timed_out: bool,
        /// Why the server withdrew it (another client leased the device meanwhile); absent
        /// when the client left or the request timed out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
    /// The calling client answered its own approval form while a person holds the request
    /// (`[confirm] via_client`): a claim for the modal; only the person's answer approves.
    ClientSaid {
        call_id: u64,
        approved: bool,
        by: String,
    },
    Devices {
        devices: Vec<DeviceWire>,
        /// Each adb server that is down, with why and what to do (Status shows them when no
        /// device is listed).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        problems: Vec<String>,
    },
    /// The server is stopping; the connection closes after this.
    Goodbye {
        reason: String,
    },
    /// The MCP transports' state, as their controller reports it: after the welcome, and on
    /// every change (a restart is `stopping`, `stopped`, `starting`, `running`).
    ServerStatus {
        status: ServerStatus,
    },
    /// What the screens show of the core: after the welcome, and after anything that may
    /// have changed it (calls, clients, settings, access, leases).
    View {
        view: Box<ViewWire>,
    },
    /// The History preload, oldest first, in chunks; sent once, after the welcome and before
    /// any event. `last` marks the final chunk. Records are as the audit trail holds them
    /// (already redacted), exactly what the in-process History preloads.
    History {
        records: Vec<AuditRecord>,
        source: String,
        last: bool,
    },
    /// The Batch screen's data: after the welcome and whenever it may have changed.
    Batch {
        data: BatchData,
    },
    /// How a `batch` command went.
    BatchReply {
        reply: BatchReply,
    },
    /// This session fell behind the server's event stream and lost `lost` events.
    Lagged {
        lost: u64,
    },
    /// A command's result, a line for the footer.
    Notice {
        message: String,
    },
    /// An agent asked for a screen (`spock_navigate`); answer with `navigated`.
    Navigate {
        id: u64,
        screen: String,
        select: Option<String>,
    },
}

impl ServerMsg {
    /// This message without its bulk (a call's images and result body), for one too large
    /// for a line; `None` when it has no bulk to drop.
    pub fn slimmed(&self) -> Option<ServerMsg> {
        match self {
            ServerMsg::CallFinished {
                call_id,
                tool,
                outcome,
                duration_ms,
                decision,
                device,
                record,
                ..
            } => Some(ServerMsg::CallFinished {
                call_id: *call_id,
                tool: tool.clone(),
                outcome: *outcome,
                duration_ms: *duration_ms,
                decision: *decision,
                device: device.clone(),
                result: serde_json::json!({
                    "note": format!("the result was too large for the attach channel; it is in the audit trail as record {record}")
                }),
                images: Vec::new(),
                record: *record,
            }),
            _ => None,
        }
    }

    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
            call_id: None,
        }
    }
}
