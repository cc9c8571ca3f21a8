//! The attach protocol's messages, version [`PROTOCOL_VERSION`]: JSON, one message a line,
//! each an object tagged by `"type"`. The client speaks first ([`ClientMsg::Hello`]); the
//! server answers [`ServerMsg::Welcome`] or [`ServerMsg::Error`] and closes. Then the server
//! sends events as they happen and the client sends commands. Documented in `docs/attach.md`;
//! these types are the whole of it, shared by the server (`transport::control`) and the
//! client (`tui::attach`). A change that an older peer would misread bumps the version.
//!
//! Version 2 carries the whole control centre: the server sends a [`ViewWire`] (what the
//! screens show of the core; never the MCP token nor the control credential), the History
//! preload (audit records as the trail holds them), Batch snapshots and replies, and agents'
//! navigation requests; the client sends the person's commands (access switches, settings,
//! batch, breaking a lease, starting and stopping the MCP transports) and navigation answers.
//! The command payloads are the control centre's own effect types.
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::{ServerCtl, ServerStatus};
use crate::audit::AuditRecord;
use crate::mcp::access::AccessSettings;
use crate::mcp::core::{ClientSeen, Endpoints};
use crate::mcp::events::{ClientId, Decision, Outcome, Transport};
use crate::mcp::registry::Level;
use crate::tui::batch::{BatchCmd, BatchData, BatchReply};
use crate::tui::event::CoreView;
use crate::tui::leases::LeaseRow;
use crate::tui::state::SettingField;
use crate::tui::update::AccessChange;

/// History records travel in chunks no bigger than this (well under [`MAX_LINE`]).
pub const HISTORY_CHUNK_BYTES: usize = 1024 * 1024;

pub const PROTOCOL_VERSION: u32 = 3;

/// The longest line either side accepts; a longer one is a protocol error.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// How long after its `displayed` acknowledgement a client's approval counts: the same arming
/// time the in-process control centre waits after first drawing a request.
pub const ARMING_MS: u64 = 600;

/// Client → server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// This terminal now shows `screen` (what `spock_get_status` reports).
    Screen { name: String },
    /// The answer to `navigate` `id`: `error` is why the screen did not change.
    Navigated {
        id: u64,
        #[serde(default)]
        error: Option<String>,
    },
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
    /// A command that was understood but did not work (a setting out of range, a save that
    /// failed, a stopped controller).
    Failed,
}

/// A lease as Status shows it; `remaining_ms` as of sending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseWire {
    pub id: u64,
    pub device: String,
    pub holder: String,
    pub expires_at: DateTime<Utc>,
    pub remaining_ms: u64,
}

/// What the screens show of the core (the in-process `CoreView`), without the MCP token: an
/// attached control centre shows the HTTP client configuration with a placeholder and says
/// where the token is.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ViewWire {
    pub endpoints: Endpoints,
    pub clients: Vec<ClientSeen>,
    pub enabled: Vec<String>,
    pub access: AccessSettings,
    pub allow_all: bool,
    pub history_size: usize,
    pub audit_warning: Option<String>,
    /// The audit trail's anchoring and last verify (absent from older servers).
    #[serde(default)]
    pub trail: spock_core::audit::TrailState,
    pub confirm_timeout_secs: u64,
    /// `[confirm] via_client`: a headless server asks through an MCP client (elicitation).
    #[serde(default)]
    pub confirm_via_client: bool,
    pub port: u16,
    pub bind: String,
    pub responder: bool,
    pub config_file: String,
    pub descriptor: String,
    pub exe: String,
    pub leases: Vec<LeaseWire>,
}

/// A destructive call waiting for a person, as the modal shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskWire {
    pub call_id: u64,
    pub tool: String,
    pub title: String,
    pub level: Level,
    /// A claim: the name the client gave.
    pub client: Option<ClientId>,
    pub transport: Transport,
    /// A claim: `ssh from …`, as the client's relay reported it.
    pub via: Option<String>,
    /// What the server verified about who asks (protocol 3; absent from older servers, then
    /// read as an MCP client's over `transport`, never as the person's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<spock_core::model::Verified>,
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

impl ViewWire {
    /// The wire form of a view; the token is not copied.
    pub fn from_view(v: &CoreView) -> ViewWire {
        let now = tokio::time::Instant::now();
        ViewWire {
            endpoints: v.endpoints.clone(),
            clients: v.clients.clone(),
            enabled: v.enabled.iter().cloned().collect(),
            access: v.access.clone(),
            allow_all: v.allow_all,
            history_size: v.history_size,
            audit_warning: v.audit_warning.clone(),
            trail: v.trail.clone(),
            confirm_timeout_secs: v.confirm_timeout_secs,
            confirm_via_client: v.confirm_via_client,
            port: v.port,
            bind: v.bind.clone(),
            responder: v.responder,
            config_file: v.config_file.display().to_string(),
            descriptor: v.descriptor.display().to_string(),
            exe: v.exe.display().to_string(),
            leases: v
                .leases
                .iter()
                .map(|l| LeaseWire {
                    id: l.id,
                    device: l.device.clone(),
                    holder: l.holder.clone(),
                    expires_at: l.expires_at,
                    remaining_ms: l.deadline.saturating_duration_since(now).as_millis() as u64,
                })
                .collect(),
        }
    }

    /// The view an attached control centre draws; `token` stands in for the MCP token.
    pub fn into_view(self, token: String) -> CoreView {
        let now = tokio::time::Instant::now();
        CoreView {
            endpoints: self.endpoints,
            clients: self.clients,
            enabled: self.enabled.into_iter().collect(),
            access: self.access,
            allow_all: self.allow_all,
            history_size: self.history_size.max(1),
            audit_warning: self.audit_warning,
            trail: self.trail,
            confirm_timeout_secs: self.confirm_timeout_secs,
            confirm_via_client: self.confirm_via_client,
            port: self.port,
            bind: self.bind,
            responder: self.responder,
            config_file: self.config_file.into(),
            exe: self.exe.into(),
            descriptor: self.descriptor.into(),
            token,
            leases: self
                .leases
                .into_iter()
                .map(|l| LeaseRow {
                    id: l.id,
                    device: l.device,
                    holder: l.holder,
                    expires_at: l.expires_at,
                    deadline: now + std::time::Duration::from_millis(l.remaining_ms),
                })
                .collect(),
        }
    }
}

/// Server → client.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
        view: ViewWire,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip_client(m: ClientMsg) {
        let line = serde_json::to_string(&m).unwrap();
        assert!(!line.contains('\n'));
        let back: ClientMsg = serde_json::from_str(&line).unwrap();
        assert_eq!(back, m, "{line}");
    }

    #[test]
    fn version_2_commands_round_trip() {
        use crate::mcp::registry::HostGroup;
        round_trip_client(ClientMsg::Access {
            change: AccessChange::SetEnabled {
                tool: "android_tap".into(),
                on: false,
            },
        });
        round_trip_client(ClientMsg::Access {
            change: AccessChange::SetGroup {
                group: HostGroup::AdbServer,
                on: true,
            },
        });
        round_trip_client(ClientMsg::Access {
            change: AccessChange::ReadOnlyOnly,
        });
        round_trip_client(ClientMsg::Setting {
            field: SettingField::ConfirmTimeout,
            value: 45,
        });
        round_trip_client(ClientMsg::Batch {
            cmd: BatchCmd::Run {
                task_id: "t1".into(),
            },
        });
        round_trip_client(ClientMsg::Batch {
            cmd: BatchCmd::StopRecording,
        });
        round_trip_client(ClientMsg::BreakLease {
            id: 3,
            device: "sim-1".into(),
        });
        round_trip_client(ClientMsg::Server {
            action: ServerCtl::Restart,
        });
        round_trip_client(ClientMsg::Navigated {
            id: 9,
            error: Some("busy".into()),
        });
        assert_eq!(
            serde_json::to_value(ClientMsg::Access {
                change: AccessChange::SetEnabled {
                    tool: "android_tap".into(),
                    on: false
                }
            })
            .unwrap(),
            serde_json::json!({"type": "access", "change": {"change": "set_enabled", "tool": "android_tap", "on": false}})
        );
        assert_eq!(
            serde_json::to_value(ClientMsg::Setting {
                field: SettingField::HistorySize,
                value: 10
            })
            .unwrap(),
            serde_json::json!({"type": "setting", "field": "history_size", "value": 10})
        );
    }

    #[test]
    fn version_2_events_round_trip_and_never_carry_a_token() {
        let msgs = vec![
            ServerMsg::ServerStatus {
                status: ServerStatus::Failed("port taken".into()),
            },
            ServerMsg::View {
                view: ViewWire {
                    enabled: vec!["android_tap".into()],
                    history_size: 10,
                    port: 8765,
                    ..ViewWire::default()
                },
            },
            ServerMsg::History {
                records: vec![AuditRecord::new(
                    "android_tap",
                    Level::SafeAction,
                    Transport::Http,
                    serde_json::json!({"x": 1}),
                )],
                source: "audit trail".into(),
                last: true,
            },
            ServerMsg::Batch {
                data: BatchData::default(),
            },
            ServerMsg::BatchReply {
                reply: BatchReply::Done("started".into()),
            },
            ServerMsg::Notice {
                message: "saved".into(),
            },
            ServerMsg::Navigate {
                id: 1,
                screen: "tools".into(),
                select: None,
            },
        ];
        for m in msgs {
            let line = serde_json::to_string(&m).unwrap();
            let back: ServerMsg = serde_json::from_str(&line).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), line);
            assert!(!line.contains("token"), "{line}");
        }
        assert_eq!(
            serde_json::to_value(ServerMsg::ServerStatus {
                status: ServerStatus::Running
            })
            .unwrap(),
            serde_json::json!({"type": "server_status", "status": {"state": "running"}})
        );
    }

    #[test]
    fn a_version_1_hello_still_parses_so_it_can_be_refused_by_version() {
        let v1: ClientMsg = serde_json::from_str(
            r#"{"type":"hello","protocol_version":1,"credential":"c","pid":3,"tty":null}"#,
        )
        .unwrap();
        assert!(matches!(
            v1,
            ClientMsg::Hello {
                protocol_version: 1,
                ..
            }
        ));
        assert_ne!(PROTOCOL_VERSION, 1);
    }

    #[test]
    fn a_call_too_large_for_a_line_is_sent_slim_not_dropped_with_the_link() {
        let big = crate::mcp::events::CallImage {
            mime: "image/png".into(),
            data: vec![7u8; MAX_LINE].into(),
        };
        let m = ServerMsg::CallFinished {
            call_id: 9,
            tool: "android_screenshot".into(),
            outcome: Outcome::Ok,
            duration_ms: 1.0,
            decision: None,
            device: Some("emulator-5554".into()),
            result: serde_json::json!({"width": 1080}),
            images: vec![big],
            record: 41,
        };
        assert!(serde_json::to_vec(&m).unwrap().len() > MAX_LINE);
        let slim = m.slimmed().expect("a call result has bulk to drop");
        let line = serde_json::to_vec(&slim).unwrap();
        assert!(line.len() < 1024, "{}", line.len());
        let text = String::from_utf8(line).unwrap();
        assert!(
            text.contains("record 41") && text.contains("\"call_id\":9"),
            "{text}"
        );
        assert!(
            ServerMsg::error(ErrorCode::TooEarly, "x")
                .slimmed()
                .is_none()
        );
    }

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
