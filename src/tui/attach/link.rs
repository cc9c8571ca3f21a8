//! The attached control centre's side of the wire: the hello, then server messages turned
//! into the loop's [`Event`]s, and the control centre's answers turned into commands. A
//! confirmation becomes a local [`ConfirmRequest`] mirroring the server's, so the modal, its
//! arming and its keys are the in-process control centre's own; the server checks them again.
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::mcp::ServerEvent;
use crate::mcp::confirm::{Ask, ConfirmRequest, Remote};
use crate::mcp::registry::Registry;
use crate::transport::control::proto::{
    ARMING_MS, AskWire, ClientMsg, ErrorCode, MAX_LINE, PROTOCOL_VERSION, ServerMsg,
};
use crate::tui::event::{DeviceRow, Event, ServerStatus};

/// What the server said in its welcome.
#[derive(Debug, Clone)]
pub struct Welcome {
    pub you: String,
    pub server_version: String,
    pub server_pid: u32,
    pub history_size: usize,
    pub demo: bool,
}

/// Why attaching failed, as the person is told before any screen is taken over.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error(
        "no spock-tui server to attach to at {path}: {error}. Start one with `spock-tui serve` \
         (or `spock-tui`) as this user"
    )]
    Connect { path: String, error: std::io::Error },
    #[error(
        "cannot read the control credential {path}: {error}. It is written by a running \
         `spock-tui serve` of this user"
    )]
    Credential { path: String, error: std::io::Error },
    #[error("the server refused to attach ({code:?}): {message}")]
    Refused { code: ErrorCode, message: String },
    #[error("the server closed the connection during the hello: {0}")]
    Hello(String),
}

pub struct Connected {
    pub welcome: Welcome,
    read: BufReader<OwnedReadHalf>,
    write: OwnedWriteHalf,
}

/// This terminal, as `/proc/self/fd/0` names it.
fn tty() -> Option<String> {
    std::fs::read_link("/proc/self/fd/0")
        .ok()
        .map(|p| p.display().to_string())
        .filter(|p| p.starts_with("/dev/"))
}

async fn read_msg(r: &mut BufReader<OwnedReadHalf>) -> std::io::Result<Option<ServerMsg>> {
    let mut buf = Vec::new();
    let n = r.take(MAX_LINE as u64).read_until(b'\n', &mut buf).await?;
    if n == 0 {
        return Ok(None);
    }
    serde_json::from_slice(&buf)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// Connect, say hello, and read the welcome (or the refusal).
pub async fn connect(socket: &Path, credential_file: &Path) -> Result<Connected, AttachError> {
    let stream = UnixStream::connect(socket)
        .await
        .map_err(|error| AttachError::Connect {
            path: socket.display().to_string(),
            error,
        })?;
    let credential = crate::config::private::read_to_string(credential_file)
        .map_err(|error| AttachError::Credential {
            path: credential_file.display().to_string(),
            error,
        })?
        .trim()
        .to_string();
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let hello = ClientMsg::Hello {
        protocol_version: PROTOCOL_VERSION,
        credential,
        pid: std::process::id(),
        tty: tty(),
    };
    let mut line = serde_json::to_vec(&hello).map_err(|e| AttachError::Hello(e.to_string()))?;
    line.push(b'\n');
    write
        .write_all(&line)
        .await
        .map_err(|e| AttachError::Hello(e.to_string()))?;
    match tokio::time::timeout(Duration::from_secs(10), read_msg(&mut read)).await {
        Ok(Ok(Some(ServerMsg::Welcome {
            you,
            server_version,
            server_pid,
            history_size,
            demo,
            ..
        }))) => Ok(Connected {
            welcome: Welcome {
                you,
                server_version,
                server_pid,
                history_size,
                demo,
            },
            read,
            write,
        }),
        Ok(Ok(Some(ServerMsg::Error { code, message, .. }))) => {
            Err(AttachError::Refused { code, message })
        }
        Ok(Ok(Some(other))) => Err(AttachError::Hello(format!("unexpected {other:?}"))),
        Ok(Ok(None)) => Err(AttachError::Hello("end of stream".into())),
        Ok(Err(e)) => Err(AttachError::Hello(e.to_string())),
        Err(_) => Err(AttachError::Hello("no welcome within 10 s".into())),
    }
}

/// A confirmation the server asked this terminal, mirrored locally.
struct Mirrored {
    wire: AskWire,
    remote: Arc<Remote>,
}

/// The running link: commands go out through `out`; `displayed` is told what the loop drew.
#[derive(Clone)]
pub struct Link {
    out: mpsc::UnboundedSender<ClientMsg>,
    asks: Arc<Mutex<HashMap<u64, Mirrored>>>,
    /// When this terminal told the server it displayed each request.
    shown: Arc<Mutex<HashMap<u64, Instant>>>,
    you: Arc<str>,
}

/// Why the link ended, said after the terminal is restored.
pub type Ended = Arc<Mutex<Option<String>>>;

impl Link {
    /// Start the reader and writer tasks; server messages arrive on `tx` as events.
    pub fn spawn(
        c: Connected,
        registry: Registry,
        tx: mpsc::UnboundedSender<Event>,
        ended: Ended,
    ) -> Link {
        let (out, mut rx) = mpsc::unbounded_channel::<ClientMsg>();
        let link = Link {
            out,
            asks: Arc::new(Mutex::new(HashMap::new())),
            shown: Arc::new(Mutex::new(HashMap::new())),
            you: Arc::from(c.welcome.you.as_str()),
        };
        let mut write = c.write;
        tokio::spawn(async move {
            while let Some(m) = rx.recv().await {
                let Ok(mut line) = serde_json::to_vec(&m) else {
                    continue;
                };
                line.push(b'\n');
                if write.write_all(&line).await.is_err() {
                    break;
                }
                if m == ClientMsg::Detach {
                    let _ = write.shutdown().await;
                    break;
                }
            }
        });
        let (l, mut read) = (link.clone(), c.read);
        tokio::spawn(async move {
            let why = loop {
                match read_msg(&mut read).await {
                    Ok(Some(ServerMsg::Goodbye { reason })) => break reason,
                    Ok(Some(m)) => {
                        for ev in l.on_message(m, &registry) {
                            if tx.send(ev).is_err() {
                                return;
                            }
                        }
                    }
                    Ok(None) => break "the server closed the connection".to_string(),
                    Err(e) => break format!("the connection failed: {e}"),
                }
            };
            if let Ok(mut e) = ended.lock() {
                *e = Some(why);
            }
            let _ = tx.send(Event::Quit);
        });
        link
    }

    /// The loop drew the request `call_id` whole: the server may start its arming time.
    pub fn displayed(&self, call_id: u64) {
        let Ok(mut shown) = self.shown.lock() else {
            return;
        };
        if shown.contains_key(&call_id) {
            return;
        }
        shown.insert(call_id, Instant::now());
        let _ = self.out.send(ClientMsg::Displayed { call_id });
    }

    pub fn detach(&self) {
        let _ = self.out.send(ClientMsg::Detach);
    }

    fn on_message(&self, m: ServerMsg, registry: &Registry) -> Vec<Event> {
        match m {
            ServerMsg::CallStarted {
                call_id,
                at,
                tool,
                level,
                transport,
                client,
                device,
                arguments,
            } => vec![Event::Server(ServerEvent::CallStarted {
                call_id,
                at,
                tool,
                level,
                transport,
                client,
                device,
                arguments,
            })],
            ServerMsg::CallArguments { call_id, arguments } => {
                vec![Event::Server(ServerEvent::CallArguments {
                    call_id,
                    arguments,
                })]
            }
            ServerMsg::CallFinished {
                call_id,
                tool,
                outcome,
                duration_ms,
                decision,
                device,
                result,
                images,
                record,
            } => vec![Event::Server(ServerEvent::CallFinished {
                call_id,
                tool,
                outcome,
                duration: Duration::from_secs_f64(duration_ms.max(0.0) / 1000.0),
                decision,
                device,
                result,
                images,
                record,
            })],
            ServerMsg::ServerState { running } => vec![Event::ServerStatus(if running {
                ServerStatus::Running
            } else {
                ServerStatus::Stopped
            })],
            ServerMsg::Devices { devices } => vec![Event::Devices(
                devices
                    .into_iter()
                    .map(|d| DeviceRow {
                        serial: d.serial,
                        state: d.state,
                        model: d.model,
                        selected: d.selected,
                    })
                    .collect(),
            )],
            ServerMsg::ConfirmAsked { ask } => vec![self.mirror(ask, registry)],
            ServerMsg::Decided {
                call_id,
                approved,
                by,
            } => {
                let elsewhere = (*by != *self.you).then_some((approved, by));
                self.close(call_id, elsewhere);
                vec![Event::Tick]
            }
            ServerMsg::Withdrawn { call_id, .. } => {
                self.close(call_id, None);
                vec![Event::Tick]
            }
            ServerMsg::Error {
                code,
                message,
                call_id,
            } => {
                let mut evs = vec![Event::Notice(format!("server: {message}"))];
                // A refused approval leaves the call waiting: show it again to answer afresh.
                if matches!(code, ErrorCode::NotDisplayed | ErrorCode::TooEarly)
                    && let Some(id) = call_id
                    && let Some(wire) = self
                        .asks
                        .lock()
                        .ok()
                        .and_then(|a| a.get(&id).map(|m| m.wire.clone()))
                {
                    evs.push(self.mirror(wire, registry));
                }
                evs
            }
            ServerMsg::Welcome { .. } | ServerMsg::Goodbye { .. } => Vec::new(),
        }
    }

    fn close(&self, call_id: u64, decided: Option<(bool, String)>) {
        if let Some(m) = self.asks.lock().ok().and_then(|mut a| a.remove(&call_id)) {
            m.remote.close(decided);
        }
        if let Ok(mut s) = self.shown.lock() {
            s.remove(&call_id);
        }
    }

    /// A local request for the modal; its answer goes to the server as `decide`.
    fn mirror(&self, wire: AskWire, registry: &Registry) -> Event {
        let (tool, title) = registry
            .get(&wire.tool)
            .map_or(("unknown tool", "Unknown tool"), |t| (t.name, t.title));
        let ask = Ask {
            call_id: wire.call_id,
            tool,
            title,
            level: wire.level,
            client: wire.client.clone(),
            transport: wire.transport,
            via: wire.via.clone(),
            device: wire.device.clone(),
            device_model: wire.device_model.clone(),
            arguments: wire.arguments.clone(),
            reason: wire.reason.clone(),
        };
        let deadline = Instant::now() + Duration::from_millis(wire.remaining_ms);
        let (req, remote) = ConfirmRequest::remote(
            wire.call_id,
            ask,
            deadline,
            Duration::from_millis(wire.timeout_ms),
            &self.you,
        );
        let remote = Arc::new(remote);
        let call_id = wire.call_id;
        if let Ok(mut a) = self.asks.lock() {
            a.insert(
                call_id,
                Mirrored {
                    wire,
                    remote: remote.clone(),
                },
            );
        }
        let link = self.clone();
        tokio::spawn(async move { link.forward_answer(call_id, remote).await });
        Event::Confirm(req)
    }

    /// The person answered in this terminal: tell the server, an approval no sooner than the
    /// server's arming time after this terminal said it displayed the request.
    async fn forward_answer(self, call_id: u64, remote: Arc<Remote>) {
        let Some(answered) = remote.take_answer().await else {
            return;
        };
        let approve = answered.decision.approved;
        if approve {
            let since = self
                .shown
                .lock()
                .ok()
                .and_then(|s| s.get(&call_id).copied());
            if let Some(at) = since {
                // The server measures from when it read `displayed`: a little margin.
                let armed = at + Duration::from_millis(ARMING_MS + 50);
                tokio::time::sleep_until(armed).await;
            }
        }
        let _ = self.out.send(ClientMsg::Decide { call_id, approve });
    }
}
