//! One attached control centre: the hello (peer uid, protocol version, control credential),
//! then events out and commands in until it detaches, stops reading, or the server stops.
//! The consent rules live here: `decide approve` counts only for a request this client said
//! it displayed, at least [`ARMING_MS`] after saying so; anything else is refused and audited.
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::proto::{
    ARMING_MS, AskWire, ClientMsg, DeviceWire, ErrorCode, MAX_LINE, PROTOCOL_VERSION, ServerMsg,
};
use super::{ControlOptions, own_uid, same_user};
use crate::audit::AuditRecord;
use crate::mcp::confirm::{ConfirmRequest, Notice};
use crate::mcp::events::{Outcome, Transport};
use crate::mcp::registry::Level;
use crate::mcp::{Core, ServerEvent};
use crate::transport::Shared;

struct Out {
    w: OwnedWriteHalf,
    timeout: Duration,
}

impl Out {
    /// False when the client is gone or stopped reading.
    async fn send(&mut self, m: &ServerMsg) -> bool {
        let Ok(mut line) = serde_json::to_vec(m) else {
            return false;
        };
        line.push(b'\n');
        matches!(
            tokio::time::timeout(self.timeout, self.w.write_all(&line)).await,
            Ok(Ok(()))
        )
    }

    async fn refuse(mut self, code: ErrorCode, message: String) {
        tracing::warn!(?code, "attach refused: {message}");
        self.send(&ServerMsg::error(code, message)).await;
        let _ = self.w.shutdown().await;
    }
}

/// What a client line is: a message, or why not.
enum Line {
    Msg(ClientMsg),
    Bad(String),
}

/// Lines are read on their own task, so a half-read line is never lost to the select loop.
fn spawn_reader(r: tokio::net::unix::OwnedReadHalf) -> mpsc::Receiver<Line> {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let mut r = BufReader::new(r);
        loop {
            let mut buf = Vec::new();
            match (&mut r)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut buf)
                .await
            {
                Ok(0) | Err(_) => return,
                Ok(_) if buf.len() > MAX_LINE => {
                    let _ = tx.send(Line::Bad("line too long".into())).await;
                    return;
                }
                Ok(_) => {}
            }
            let line = match serde_json::from_slice::<ClientMsg>(&buf) {
                Ok(m) => Line::Msg(m),
                Err(e) => Line::Bad(format!(
                    "not a message of attach protocol {PROTOCOL_VERSION}: {e}"
                )),
            };
            if tx.send(line).await.is_err() {
                return;
            }
        }
    });
    rx
}

/// `pid 4242 on /dev/pts/3`: the pid from the peer credentials, the tty as the client said
/// (only path characters kept, so it cannot draw anything in another terminal's modal).
fn terminal_label(pid: Option<i32>, tty: Option<&str>) -> String {
    let pid = pid.map_or("?".to_string(), |p| p.to_string());
    let tty: Option<String> = tty.map(|t| {
        t.chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
            .take(64)
            .collect()
    });
    match tty.filter(|t| !t.is_empty()) {
        Some(t) => format!("attach pid {pid} on {t}"),
        None => format!("attach pid {pid} (no tty)"),
    }
}

pub(super) async fn run(stream: UnixStream, shared: Shared, opts: ControlOptions) {
    let cred = stream.peer_cred();
    let (r, w) = stream.into_split();
    let mut out = Out {
        w,
        timeout: opts.write_timeout,
    };
    let peer_pid = match &cred {
        Ok(c) if same_user(c.uid(), own_uid()) => c.pid(),
        Ok(c) => {
            return out
                .refuse(
                    ErrorCode::WrongUser,
                    format!(
                        "uid {} may not attach to uid {}'s server",
                        c.uid(),
                        own_uid()
                    ),
                )
                .await;
        }
        Err(e) => {
            return out
                .refuse(ErrorCode::WrongUser, format!("no peer credentials: {e}"))
                .await;
        }
    };
    let mut lines = spawn_reader(r);
    let hello = match tokio::time::timeout(opts.handshake_timeout, lines.recv()).await {
        Ok(Some(Line::Msg(m))) => m,
        Ok(Some(Line::Bad(why))) => return out.refuse(ErrorCode::BadMessage, why).await,
        Ok(None) => return,
        Err(_) => {
            return out
                .refuse(
                    ErrorCode::BadMessage,
                    "no hello within the handshake timeout".into(),
                )
                .await;
        }
    };
    let ClientMsg::Hello {
        protocol_version,
        credential,
        pid,
        tty,
    } = hello
    else {
        return out
            .refuse(
                ErrorCode::BadMessage,
                "the first message must be a hello".into(),
            )
            .await;
    };
    if protocol_version != PROTOCOL_VERSION {
        return out
            .refuse(
                ErrorCode::ProtocolVersion,
                format!(
                    "this server (spock-tui {}) speaks attach protocol {PROTOCOL_VERSION}; the \
                     client speaks {protocol_version}: attach with the same spock-tui version \
                     as the running server",
                    env!("CARGO_PKG_VERSION")
                ),
            )
            .await;
    }
    if !crate::config::token::matches(&opts.credential, &credential) {
        return out
            .refuse(
                ErrorCode::Unauthorized,
                "wrong control credential (the MCP token does not attach): `spock-tui attach` \
                 reads the control credential file itself"
                    .into(),
            )
            .await;
    }
    if peer_pid.is_some_and(|p| p as u32 != pid) {
        tracing::warn!(said = pid, peer = ?peer_pid, "attach hello names another pid; the peer's is recorded");
    }
    let you = terminal_label(peer_pid, tty.as_deref());
    tracing::info!(terminal = %you, "control centre attached");
    let core = shared.core.clone();
    let welcome = ServerMsg::Welcome {
        protocol_version: PROTOCOL_VERSION,
        server_version: env!("CARGO_PKG_VERSION").into(),
        server_pid: std::process::id(),
        you: you.clone(),
        arming_ms: ARMING_MS,
        history_size: core.config().history.size,
        demo: core.demo,
    };
    // Subscribed before the welcome, so nothing that happens after it is missed.
    let mut events = core.subscribe();
    let mut notices = core.confirmer.notices();
    if !out.send(&welcome).await
        || !out.send(&ServerMsg::ServerState { running: true }).await
        || !out.send(&devices(&core)).await
    {
        return;
    }
    let (rid, mut asks) = core.confirmer.attach_remote(you.clone());
    let mut s = Session {
        core: core.clone(),
        you,
        held: HashMap::new(),
        displayed: HashMap::new(),
    };
    loop {
        let msg = tokio::select! {
            _ = shared.shutdown.cancelled() => {
                out.send(&ServerMsg::Goodbye { reason: "the server is stopping".into() }).await;
                break;
            }
            Some(req) = asks.recv() => {
                let m = ServerMsg::ConfirmAsked { ask: wire(&req) };
                s.held.insert(req.ask.call_id, req);
                m
            }
            n = notices.recv() => match n {
                Ok(Notice::Decided { call_id, approved, by }) => {
                    s.forget(call_id);
                    ServerMsg::Decided { call_id, approved, by }
                }
                Ok(Notice::Withdrawn { call_id, timed_out }) => {
                    s.forget(call_id);
                    ServerMsg::Withdrawn { call_id, timed_out }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => break,
            },
            ev = events.recv() => match ev {
                Ok(ev) => match event(&core, ev) {
                    Some(m) => m,
                    None => continue,
                },
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => break,
            },
            line = lines.recv() => match line {
                None | Some(Line::Msg(ClientMsg::Detach)) => break,
                Some(Line::Bad(why)) => ServerMsg::error(ErrorCode::BadMessage, why),
                Some(Line::Msg(m)) => match s.command(m).await {
                    Some(reply) => reply,
                    None => continue,
                },
            },
        };
        if !out.send(&msg).await {
            break;
        }
    }
    core.confirmer.detach_responder(rid);
    tracing::info!(terminal = %s.you, "control centre detached");
    // Dropping the held copies leaves the requests to the other terminals (or, with nobody
    // left and no waiting for an attach, to the default: no).
}

struct Session {
    core: Arc<Core>,
    you: String,
    held: HashMap<u64, ConfirmRequest>,
    displayed: HashMap<u64, Instant>,
}

impl Session {
    fn forget(&mut self, call_id: u64) {
        self.held.remove(&call_id);
        self.displayed.remove(&call_id);
    }

    async fn command(&mut self, m: ClientMsg) -> Option<ServerMsg> {
        let refuse = |code, message: String, call_id| {
            Some(ServerMsg::Error {
                code,
                message,
                call_id: Some(call_id),
            })
        };
        match m {
            ClientMsg::Hello { .. } => Some(ServerMsg::error(
                ErrorCode::BadMessage,
                "already attached: a second hello is not a command",
            )),
            ClientMsg::Detach => None,
            ClientMsg::Displayed { call_id } => {
                if !self.held.contains_key(&call_id) {
                    return refuse(
                        ErrorCode::NotPending,
                        format!("call {call_id} is not waiting for an answer"),
                        call_id,
                    );
                }
                // The first acknowledgement starts the arming time; repeats do not restart it.
                self.displayed.entry(call_id).or_insert_with(Instant::now);
                None
            }
            ClientMsg::Decide { call_id, approve } => {
                if !self.held.contains_key(&call_id) {
                    return refuse(
                        ErrorCode::NotPending,
                        format!(
                            "call {call_id} is not waiting for an answer (decided or withdrawn)"
                        ),
                        call_id,
                    );
                }
                if approve {
                    let why = match self.displayed.get(&call_id) {
                        None => Some((
                            ErrorCode::NotDisplayed,
                            "approval refused: this terminal never acknowledged displaying the request".to_string(),
                        )),
                        Some(at) if at.elapsed() < Duration::from_millis(ARMING_MS) => Some((
                            ErrorCode::TooEarly,
                            format!(
                                "approval refused: sent {} ms after the request was displayed; approvals count from {ARMING_MS} ms",
                                at.elapsed().as_millis()
                            ),
                        )),
                        Some(_) => None,
                    };
                    if let Some((code, message)) = why {
                        self.audit_refusal(call_id, code, &message).await;
                        return refuse(code, format!("{message}; the call still waits"), call_id);
                    }
                }
                if let Some(req) = self.held.remove(&call_id) {
                    req.answer(approve);
                }
                self.displayed.remove(&call_id);
                None
            }
        }
    }

    /// A refused approval is on the audit trail (before the refusal goes back): which
    /// terminal, which call, why.
    async fn audit_refusal(&self, call_id: u64, code: ErrorCode, message: &str) {
        let tool = self.held.get(&call_id).map(|r| r.ask.tool).unwrap_or("?");
        tracing::warn!(terminal = %self.you, call_id, tool, ?code, "attach approval refused");
        let mut r = AuditRecord::new(
            "attach_decide",
            Level::Destructive,
            Transport::Tui,
            json!({ "callId": call_id, "tool": tool, "approve": true }),
        );
        r.client = self.you.clone();
        r.outcome = Outcome::Refused;
        r.error = Some(message.to_string());
        self.core.audit.append_answered(r).await;
    }
}

fn wire(req: &ConfirmRequest) -> AskWire {
    let a = &req.ask;
    AskWire {
        call_id: a.call_id,
        tool: a.tool.into(),
        title: a.title.into(),
        level: a.level,
        client: a.client.clone(),
        transport: a.transport,
        via: a.via.clone(),
        device: a.device.clone(),
        device_model: a.device_model.clone(),
        arguments: a.arguments.clone(),
        reason: a.reason.clone(),
        timeout_ms: req.timeout.as_millis() as u64,
        remaining_ms: req.remaining().as_millis() as u64,
    }
}

fn devices(core: &Core) -> ServerMsg {
    let selected = core.selected_device.read().ok().and_then(|s| s.clone());
    ServerMsg::Devices {
        devices: core
            .devices
            .snapshot()
            .into_iter()
            .map(|d| DeviceWire {
                selected: selected.as_deref() == Some(d.id.as_str()),
                serial: d.serial,
                state: d.state.to_string(),
                model: d.model,
            })
            .collect(),
    }
}

/// The core's events as the protocol carries them; the rest are not (yet) sent.
fn event(core: &Core, ev: ServerEvent) -> Option<ServerMsg> {
    Some(match ev {
        ServerEvent::CallStarted {
            call_id,
            at,
            tool,
            level,
            transport,
            client,
            device,
            arguments,
        } => ServerMsg::CallStarted {
            call_id,
            at,
            tool,
            level,
            transport,
            client,
            device,
            arguments,
        },
        ServerEvent::CallArguments { call_id, arguments } => {
            ServerMsg::CallArguments { call_id, arguments }
        }
        ServerEvent::CallFinished {
            call_id,
            tool,
            outcome,
            duration,
            decision,
            device,
            result,
            images,
            record,
        } => ServerMsg::CallFinished {
            call_id,
            tool,
            outcome,
            duration_ms: duration.as_secs_f64() * 1000.0,
            decision,
            device,
            result,
            images,
            record,
        },
        ServerEvent::ServerStateChanged { running } => ServerMsg::ServerState { running },
        ServerEvent::DevicesChanged | ServerEvent::Device { .. } => devices(core),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::terminal_label;

    #[test]
    fn a_terminal_is_named_by_its_peer_pid_and_a_clean_tty() {
        assert_eq!(
            terminal_label(Some(42), Some("/dev/pts/3")),
            "attach pid 42 on /dev/pts/3"
        );
        assert_eq!(
            terminal_label(Some(42), Some("\x1b[31m/dev/pts/3")),
            "attach pid 42 on 31m/dev/pts/3"
        );
        assert_eq!(terminal_label(None, None), "attach pid ? (no tty)");
    }
}
