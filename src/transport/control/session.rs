//! One attached control centre: the hello (peer uid, protocol version, control credential),
//! then events out and commands in until it detaches, stops reading, or the server stops.
//! The consent rules live here: `decide approve` counts only for a request this client said
//! it displayed, at least [`ARMING_MS`] after saying so; anything else is refused and audited.
//! After the welcome the session sends the History preload, the server's status, the view,
//! the devices and the Batch screen's data, then events as they happen (a fresh view after
//! anything that may have changed it); the person's commands go through [`commands`] and the
//! Batch performer, the same code the in-process control centre uses.
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::commands::{self, Actor};
use super::proto::{ARMING_MS, ClientMsg, ErrorCode, MAX_LINE, PROTOCOL_VERSION, ServerMsg};
use super::{ControlOptions, own_uid, same_user};
use crate::app::ServerHandle;
use crate::audit::AuditRecord;
use crate::mcp::Core;
use crate::mcp::confirm::{ConfirmRequest, Notice};
use crate::mcp::events::{Outcome, Transport};
use crate::mcp::registry::Level;
use crate::mcp::uilink::NavRequest;
use crate::transport::Shared;
use crate::tui::batch_io::BatchLink;
use crate::tui::event::Event;

mod outgoing;

use outgoing::{devices, event, history, view, wire};

/// Where a session writes: the Unix socket, or the in-process duplex.
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

struct Out {
    w: Writer,
    timeout: Duration,
}

impl Out {
    /// False when the client is gone or stopped reading.
    async fn send(&mut self, m: &ServerMsg) -> bool {
        let Ok(mut line) = serde_json::to_vec(m) else {
            return false;
        };
        // A line the client would refuse would end its link (the combined mode's own screen
        // included): a call's bulky result goes without its images and body instead.
        if line.len() >= MAX_LINE
            && let Some(slim) = m.slimmed()
            && let Ok(l) = serde_json::to_vec(&slim)
        {
            line = l;
        }
        self.send_line(line).await
    }

    /// [`Out::send`] for a message already serialized (without its newline).
    async fn send_line(&mut self, mut line: Vec<u8>) -> bool {
        if line.len() >= MAX_LINE {
            tracing::warn!(
                bytes = line.len(),
                "a message too large for the attach channel was not sent"
            );
            return true;
        }
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
fn spawn_reader(r: impl AsyncRead + Send + Unpin + 'static) -> mpsc::Receiver<Line> {
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

pub(super) async fn run(
    stream: UnixStream,
    shared: Shared,
    opts: ControlOptions,
    server: ServerHandle,
) {
    let cred = stream.peer_cred();
    let (r, w) = stream.into_split();
    let out = Out {
        w: Box::new(w),
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
    session(
        spawn_reader(r),
        out,
        Peer::Socket(peer_pid),
        shared,
        opts,
        server,
    )
    .await
}

/// Who is at the other end, as the transport knows it.
enum Peer {
    /// A Unix socket peer of this user, with its pid from the peer credentials.
    Socket(Option<i32>),
    /// This process's own control centre, over an in-process duplex.
    InProcess,
}

/// The control centre of this process, over `stream` (one end of an in-process duplex): the
/// same hello, consent rules and commands as an attached one; only the peer check differs.
pub(super) async fn run_in_process(
    stream: tokio::io::DuplexStream,
    shared: Shared,
    opts: ControlOptions,
    server: ServerHandle,
) {
    let (r, w) = tokio::io::split(stream);
    let out = Out {
        w: Box::new(w),
        timeout: opts.write_timeout,
    };
    session(spawn_reader(r), out, Peer::InProcess, shared, opts, server).await
}

async fn session(
    mut lines: mpsc::Receiver<Line>,
    mut out: Out,
    peer: Peer,
    shared: Shared,
    opts: ControlOptions,
    server: ServerHandle,
) {
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
    let local = matches!(peer, Peer::InProcess);
    // What this terminal's decisions and acts are recorded as.
    let (you, actor) = match peer {
        Peer::Socket(peer_pid) => {
            if peer_pid.is_some_and(|p| p as u32 != pid) {
                tracing::warn!(said = pid, peer = ?peer_pid, "attach hello names another pid; the peer's is recorded");
            }
            let you = terminal_label(peer_pid, tty.as_deref());
            let actor = Actor::attached(&you);
            (you, actor)
        }
        Peer::InProcess => (crate::mcp::confirm::local_label(), Actor::in_process()),
    };
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
    let mut status = server.status();
    // A responder from before the welcome: once the person is told they are attached, every
    // waiting call is theirs to answer (a client's yes meanwhile is only a claim), and by the
    // time the client has its view no call finds nobody to ask. What is asked meanwhile waits
    // in the channel and follows the initial sync.
    let (rid, mut asks) = core.confirmer.attach_remote(you.clone());
    // Agents' navigation requests go to the serving process's own control centre first.
    let (nid, mut navs) = if local {
        core.ui.attach_local()
    } else {
        core.ui.attach_remote()
    };
    let mut sent = out.send(&welcome).await;
    if sent {
        let mut lines = history(&core);
        while let Some(line) = lines.recv().await {
            sent = out.send_line(line).await;
            if !sent {
                break;
            }
        }
    }
    if !sent {
        core.confirmer.detach_responder(rid);
        core.ui.detach_id(nid);
        return;
    }
    let first = ServerMsg::ServerStatus {
        status: status.borrow_and_update().clone(),
    };
    if !out.send(&first).await || !out.send(&view(&core)).await || !out.send(&devices(&core)).await
    {
        core.confirmer.detach_responder(rid);
        core.ui.detach_id(nid);
        return;
    }
    // The Batch screen's watcher and performer, as the in-process control centre has them;
    // their events come back here and go out as `batch` and `batch_reply`.
    let (btx, mut brx) = mpsc::unbounded_channel::<Event>();
    let batch = BatchLink::spawn(&core, &btx);
    // Results of work done off this loop (saving a file) come back here.
    let (rtx, mut replies) = mpsc::unbounded_channel::<ServerMsg>();
    let mut s = Session {
        core: core.clone(),
        actor,
        you,
        held: HashMap::new(),
        displayed: HashMap::new(),
        navs: HashMap::new(),
        next_nav: 1,
        batch,
        server,
        replies: rtx,
        wrote_screen: false,
    };
    // A fresh view follows what may have changed it, at most every VIEW_SETTLE.
    let mut view_due: Option<Instant> = None;
    let mut status_live = true;
    // The trail's state changes on the writer thread (anchors, failures, a verify): looked at
    // every few seconds, a view sent when it changed.
    let mut trail_seen = core.audit.trail_state();
    let mut trail_tick = tokio::time::interval(TRAIL_EVERY);
    trail_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let msg = tokio::select! {
            _ = trail_tick.tick() => {
                let t = core.audit.trail_state();
                if t == trail_seen {
                    continue;
                }
                trail_seen = t;
                view_due.get_or_insert_with(|| Instant::now() + VIEW_SETTLE);
                continue;
            }
            _ = shared.shutdown.cancelled() => {
                out.send(&ServerMsg::Goodbye { reason: "the server is stopping".into() }).await;
                break;
            }
            _ = sleep_until_some(view_due) => {
                view_due = None;
                view(&core)
            }
            Some(req) = asks.recv() => {
                let m = ServerMsg::ConfirmAsked { ask: wire(&req) };
                s.held.insert(req.ask.call_id, req);
                m
            }
            Some(req) = navs.recv() => {
                let id = s.next_nav;
                s.next_nav += 1;
                let m = ServerMsg::Navigate {
                    id,
                    screen: req.screen.clone(),
                    select: req.select.clone(),
                };
                s.navs.insert(id, req);
                m
            }
            Some(m) = replies.recv() => {
                view_due.get_or_insert_with(|| Instant::now() + VIEW_SETTLE);
                m
            }
            Some(ev) = brx.recv() => match ev {
                Event::Batch(data) => ServerMsg::Batch { data },
                Event::BatchReply(reply) => ServerMsg::BatchReply { reply },
                _ => continue,
            },
            r = status.changed(), if status_live => match r {
                Ok(()) => {
                    view_due.get_or_insert_with(|| Instant::now() + VIEW_SETTLE);
                    ServerMsg::ServerStatus { status: status.borrow_and_update().clone() }
                }
                // The controller ended: the process is stopping; the goodbye follows.
                Err(_) => {
                    status_live = false;
                    continue;
                }
            },
            n = notices.recv() => match n {
                Ok(Notice::Decided { call_id, approved, by }) => {
                    s.forget(call_id);
                    ServerMsg::Decided { call_id, approved, by }
                }
                Ok(Notice::Withdrawn { call_id, timed_out, why }) => {
                    s.forget(call_id);
                    ServerMsg::Withdrawn { call_id, timed_out, why }
                }
                Ok(Notice::ClientSaid { call_id, approved, by }) => {
                    ServerMsg::ClientSaid { call_id, approved, by }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => break,
            },
            ev = events.recv() => match ev {
                Ok(ev) => {
                    view_due.get_or_insert_with(|| Instant::now() + VIEW_SETTLE);
                    match event(&core, ev) {
                        Some(m) => m,
                        None => continue,
                    }
                }
                Err(broadcast::error::RecvError::Lagged(lost)) => {
                    view_due.get_or_insert_with(|| Instant::now() + VIEW_SETTLE);
                    ServerMsg::Lagged { lost }
                }
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
    core.ui.detach_id(nid);
    if s.wrote_screen
        && let Ok(mut slot) = core.screen.write()
    {
        *slot = "none".into();
    }
    tracing::info!(terminal = %s.you, "control centre detached");
    // Dropping the held copies leaves the requests to the other terminals (or, with nobody
    // left and no waiting for an attach, to the default: no); an unanswered navigation
    // request is answered "closed without an answer".
}

/// How long a fresh view waits for more changes to arrive with it.
const VIEW_SETTLE: Duration = Duration::from_millis(50);
/// How often the trail's state is looked at for a change.
const TRAIL_EVERY: Duration = Duration::from_secs(5);

async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

struct Session {
    core: Arc<Core>,
    you: String,
    actor: Actor,
    held: HashMap<u64, ConfirmRequest>,
    displayed: HashMap<u64, Instant>,
    /// Agents' navigation requests waiting for this terminal's answer, by wire id.
    navs: HashMap<u64, NavRequest>,
    next_nav: u64,
    batch: BatchLink,
    server: ServerHandle,
    /// Results of off-loop work (a saved file), sent when they land.
    replies: mpsc::UnboundedSender<ServerMsg>,
    /// This terminal reported its screen: "none" again when it leaves.
    wrote_screen: bool,
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
            ClientMsg::Access { change } => {
                tracing::info!(terminal = %self.you, ?change, "access changed from an attached control centre");
                match commands::access(&self.core, &change, &self.actor) {
                    Ok(what) => {
                        // In force at once; written to the file off the loop.
                        let (core, tx) = (self.core.clone(), self.replies.clone());
                        tokio::task::spawn_blocking(move || {
                            let _ = tx.send(notice_or_error(commands::save_access(&core, &what)));
                        });
                        None
                    }
                    Err(e) => Some(ServerMsg::error(ErrorCode::Failed, e)),
                }
            }
            ClientMsg::Setting { field, value } => {
                tracing::info!(terminal = %self.you, ?field, value, "setting changed from an attached control centre");
                let (core, tx) = (self.core.clone(), self.replies.clone());
                let actor = self.actor.clone();
                tokio::task::spawn_blocking(move || {
                    let _ = tx.send(notice_or_error(commands::setting(
                        &core, field, value, &actor,
                    )));
                });
                None
            }
            ClientMsg::BreakLease { id, device } => Some(ServerMsg::Notice {
                message: commands::break_lease(&self.core, id, &device, &self.actor),
            }),
            ClientMsg::Batch { cmd } => {
                self.batch.perform_as(cmd, self.actor.client.clone());
                None
            }
            ClientMsg::Server { action } => {
                tracing::info!(terminal = %self.you, ?action, "server control from an attached control centre");
                if self.server.send(action) {
                    None
                } else {
                    Some(ServerMsg::error(
                        ErrorCode::Failed,
                        "the server controller has stopped (the process is stopping)",
                    ))
                }
            }
            ClientMsg::Screen { name } => {
                // What agents read back: a screen's name, nothing that could draw.
                let name: String = name
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .take(32)
                    .collect();
                if let Ok(mut slot) = self.core.screen.write() {
                    *slot = name;
                }
                self.wrote_screen = true;
                None
            }
            ClientMsg::Navigated { id, error } => {
                let Some(req) = self.navs.remove(&id) else {
                    return Some(ServerMsg::error(
                        ErrorCode::NotPending,
                        format!("navigation request {id} is not waiting for an answer"),
                    ));
                };
                match error {
                    None => {
                        if let Ok(mut slot) = self.core.screen.write() {
                            *slot = req.screen.clone();
                        }
                        req.applied();
                    }
                    Some(why) => req.refused(why),
                }
                None
            }
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

fn notice_or_error(r: Result<String, String>) -> ServerMsg {
    match r {
        Ok(message) => ServerMsg::Notice { message },
        Err(e) => ServerMsg::error(ErrorCode::Failed, e),
    }
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
