//! The attach protocol's messages, version [`PROTOCOL_VERSION`]: JSON, one message a line,
//! each an object tagged by `"type"`. The client speaks first ([`ClientMsg::Hello`]); the
//! server answers [`ServerMsg::Welcome`] or [`ServerMsg::Error`] and closes. Then the server
//! sends events as they happen and the client sends commands. Documented in `docs/attach.md`;
//! these types are the whole of it, shared by the server (`transport::control`) and the
//! client (`tui::attach`). A change that an older peer would misread bumps the version.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::events::{ClientId, Decision, Outcome, Transport};
use crate::mcp::registry::Level;

pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line either side accepts; a longer one is a protocol error.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// How long after its `displayed` acknowledgement a client's approval counts: the same arming
/// time the in-process control centre waits after first drawing a request.
pub const ARMING_MS: u64 = 600;

/// Client → server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// First line. `credential` is the control credential (not the MCP token); `pid` and `tty`
    /// name the terminal (the server checks `pid` against the socket's peer credentials).
    Hello {
        protocol_version: u32,
        credential: String,
        pid: u32,
        #[serde(default)]
        tty: Option<String>,
    },
    /// The whole confirmation for `call_id` is on this client's screen: arming starts now.
    Displayed { call_id: u64 },
    /// Approve or deny `call_id`. An approval counts only [`ARMING_MS`] after `displayed`.
    Decide { call_id: u64, approve: bool },
    /// Leave; the server keeps serving.
    Detach,
}

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
}

/// A destructive call waiting for a person, as the modal shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskWire {
    pub call_id: u64,
    pub tool: String,
    pub title: String,
    pub level: Level,
    pub client: Option<ClientId>,
    pub transport: Transport,
    pub via: Option<String>,
    pub device: Option<String>,
    pub device_model: Option<String>,
    pub arguments: Value,
    pub reason: Option<String>,
    /// The whole confirmation timeout, and how much of it is left as this is sent.
    pub timeout_ms: u64,
    pub remaining_ms: u64,
}

/// A device as the Status screen lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceWire {
    pub serial: String,
    pub state: String,
    pub model: Option<String>,
    pub selected: bool,
}

/// Server → client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
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
    },
    Devices {
        devices: Vec<DeviceWire>,
    },
    ServerState {
        running: bool,
    },
    /// The server is stopping; the connection closes after this.
    Goodbye {
        reason: String,
    },
}

impl ServerMsg {
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
            call_id: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_tagged_snake_case_lines() {
        let m = ClientMsg::Decide {
            call_id: 7,
            approve: true,
        };
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"type":"decide","call_id":7,"approve":true}"#
        );
        let back: ClientMsg = serde_json::from_str(
            r#"{"type":"hello","protocol_version":1,"credential":"c","pid":3}"#,
        )
        .unwrap();
        assert_eq!(
            back,
            ClientMsg::Hello {
                protocol_version: 1,
                credential: "c".into(),
                pid: 3,
                tty: None
            }
        );
        let e = ServerMsg::error(ErrorCode::TooEarly, "wait");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"type": "error", "code": "too_early", "message": "wait"})
        );
    }
}
