//! The attach protocol's messages, version [`PROTOCOL_VERSION`]: JSON, one message a line,
//! each an object tagged by `"type"`. The client speaks first ([`ClientMsg::Hello`] with a
//! nonce); the server answers [`ServerMsg::Challenge`] (its nonce and its proof that it holds
//! the control credential), the client checks it and answers [`ClientMsg::Prove`], and the
//! server sends [`ServerMsg::Welcome`], or [`ServerMsg::Error`] and closes. Neither side sends
//! the credential (version 4). Then the server
//! sends events as they happen and the client sends commands. Documented in `docs/attach.md`;
//! these types are the whole of it, shared by the server (`transport::control`) and the
//! client (`tui::attach`), and they import nothing of either. A change that an older peer would misread bumps the version.
//!
//! Version 2 carries the whole control centre: the server sends a [`ViewWire`] (what the
//! screens show of the core; never the MCP token nor the control credential), the History
//! preload (audit records as the trail holds them), Batch snapshots and replies, and agents'
//! navigation requests; the client sends the person's commands (access switches, settings,
//! batch, breaking a lease, starting and stopping the MCP transports) and navigation answers.
//! The command payloads are the control centre's own effect types.
//!
//! One file a direction: [`client`] (what a control centre sends), [`server`] (what the
//! server sends), [`view`] (what the screens show of the core).
mod client;
mod server;
mod view;

pub use client::{AccessChange, BatchCmd, ClientMsg, PickedCall, ServerCtl, SettingField};
pub use server::{BatchData, BatchReply, ErrorCode, RunRow, ServerMsg, ServerStatus};
pub use view::{
    AskWire, CoreView, DeviceWire, LeaseRow, LeaseWire, OwnToolView, ViewWire, lease_rows,
};

/// History records travel in chunks no bigger than this (well under [`MAX_LINE`]).
pub const HISTORY_CHUNK_BYTES: usize = 1024 * 1024;

pub const PROTOCOL_VERSION: u32 = 4;

/// The longest line either side accepts; a longer one is a protocol error.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// How long after its `displayed` acknowledgement a client's approval counts: the same arming
/// time the in-process control centre waits after first drawing a request.
pub const ARMING_MS: u64 = 600;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AuditRecord;
    use crate::mcp::events::{Outcome, Transport};
    use crate::mcp::registry::Level;

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
                view: Box::new(ViewWire {
                    enabled: vec!["android_tap".into()],
                    history_size: 10,
                    port: 8765,
                    ..ViewWire::default()
                }),
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
                nonce: String::new(),
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
