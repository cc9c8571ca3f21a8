//! One attached control centre: the hello (peer uid, protocol version, control credential),
//! then events out and commands in until it detaches, stops reading, or the server stops.
//! The consent rules live in [`handle`] (`decide approve` counts only for a request this client
//! said it displayed, at least [`ARMING_MS`] after saying so; anything else is refused and
//! audited), with every input the loop waits on as one handler.
//! After the welcome the session sends the History preload, the server's status, the view,
//! the devices and the Batch screen's data, then events as they happen (a fresh view after
//! anything that may have changed it); the person's commands go through [`commands`] and the
//! Batch performer, the same code the in-process control centre uses.
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use super::batch_io::BatchLink;
use super::commands::Actor;
use super::peer::{ControlOptions, own_uid, same_user};
use crate::mcp::Core;
use crate::mcp::confirm::{ConfirmRequest, Notice};
use crate::mcp::navigation::NavRequest;
use crate::protocol::{ARMING_MS, ClientMsg, ErrorCode, MAX_LINE, PROTOCOL_VERSION, ServerMsg};
use crate::transport::Shared;
use crate::transport::switch::ServerHandle;
use spock_core::config::token::proof::{self, Role};
use spock_core::model::DecidedBy;

mod handle;
mod outgoing;

use handle::{Session, Step};
use outgoing::{devices, history, view};

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

/// What the server verified about an attached process, from the socket and `/proc`: its pid
/// and uid (peer credentials), its executable (`/proc/PID/exe`, the kernel's path) and the
/// terminal its own descriptors 0–2 are open on. Nothing here is the client's word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Verified {
    pid: Option<i32>,
    uid: Option<u32>,
    exe: Option<String>,
    tty: Option<String>,
}

impl Verified {
    async fn read(pid: Option<i32>, uid: Option<u32>) -> Verified {
        let Some(p) = pid else {
            return Verified {
                uid,
                ..Verified::default()
            };
        };
        let link = |f: String| async move {
            tokio::fs::read_link(f)
                .await
                .ok()
                .map(|t| t.display().to_string())
        };
        let exe = link(format!("/proc/{p}/exe")).await;
        let mut tty = None;
        for fd in 0..3 {
            if let Some(t) = link(format!("/proc/{p}/fd/{fd}")).await
                && (t.starts_with("/dev/pts/") || t.starts_with("/dev/tty"))
            {
                tty = Some(t);
                break;
            }
        }
        Verified { pid, uid, exe, tty }
    }
}

/// Only path characters kept (and at most 200), so a name cannot draw anything in another
/// terminal's modal.
fn clean(t: &str) -> String {
    t.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+'))
        .take(200)
        .collect()
}

/// `attach pid 4242 uid 1000 (/usr/bin/spock-tui) on /dev/pts/3`: what the server verified
/// (pid and uid from the peer credentials, the executable and the terminal from `/proc`); a
/// terminal the client names that its descriptors do not show is marked as its claim.
fn terminal_label(v: &Verified, claimed: Option<&str>) -> String {
    let pid = v.pid.map_or("?".to_string(), |p| p.to_string());
    let mut s = format!("attach pid {pid}");
    if let Some(u) = v.uid {
        s.push_str(&format!(" uid {u}"));
    }
    if let Some(e) = &v.exe {
        s.push_str(&format!(" ({})", clean(e)));
    }
    let claimed = claimed.map(clean).filter(|t| !t.is_empty());
    match (&v.tty, claimed) {
        (Some(t), Some(c)) if *t != c => s.push_str(&format!(" on {} (claimed {c})", clean(t))),
        (Some(t), _) => s.push_str(&format!(" on {}", clean(t))),
        (None, Some(c)) => s.push_str(&format!(", no terminal (claimed {c})")),
        (None, None) => s.push_str(", no terminal"),
    }
    s
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
        Ok(c) if same_user(c.uid(), own_uid()) => (c.pid(), c.uid()),
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
    /// A Unix socket peer of this user, with its pid and uid from the peer credentials.
    Socket((Option<i32>, u32)),
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
    out: Out,
    peer: Peer,
    shared: Shared,
    opts: ControlOptions,
    server: ServerHandle,
) {
    // A rotated credential is in force for this hello already.
    let store = opts.credential.clone();
    let _ = tokio::task::spawn_blocking(move || store.reload_if_changed()).await;
    let Some((mut out, who)) = hello(&mut lines, out, peer, &opts).await else {
        return;
    };
    let holds = Arc::new(std::sync::atomic::AtomicU64::new(
        opts.credential.generation(),
    ));
    let local = who.local;
    tracing::info!(terminal = %who.you, "control centre attached");
    let core = shared.core.clone();
    // Subscribed before the welcome, so nothing that happens after it is missed.
    let mut ch = Channels::open(&core, &server, &who);
    if !greet(&mut out, &core, &who, &mut ch).await {
        ch.close(&core);
        return;
    }
    // The Batch screen's watcher and performer: their `batch` and `batch_reply` messages
    // come back here and go out.
    let (btx, mut batch_out) = mpsc::unbounded_channel::<ServerMsg>();
    // Results of work done off this loop (saving a file) come back here.
    let (rtx, mut replies) = mpsc::unbounded_channel::<ServerMsg>();
    let mut s = Session {
        batch: BatchLink::spawn(&core, &btx),
        trail_seen: core.audit.trail_state(),
        core: core.clone(),
        actor: who.actor,
        you: who.you,
        held: HashMap::new(),
        displayed: HashMap::new(),
        navs: HashMap::new(),
        next_nav: 1,
        server,
        replies: rtx,
        wrote_screen: false,
        view_due: None,
        status_live: true,
        credential: opts.credential.clone(),
        holds: holds.clone(),
    };
    let mut trail_tick = tokio::time::interval(TRAIL_EVERY);
    trail_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let step = tokio::select! {
            _ = trail_tick.tick() => {
                // The credential rotated since this terminal attached: it attaches again with
                // the new one or not at all (the in-process control centre is not a holder).
                let store = opts.credential.clone();
                let _ = tokio::task::spawn_blocking(move || store.reload_if_changed()).await;
                let held = holds.load(std::sync::atomic::Ordering::SeqCst);
                if !local && held != u64::MAX && opts.credential.generation() != held {
                    Step::Last(ServerMsg::Goodbye {
                        reason: "the control credential was rotated: attach again (`spock-tui \
                                 attach` reads the new one)"
                            .into(),
                    })
                } else {
                    s.trail_looked_at()
                }
            }
            _ = shared.shutdown.cancelled() => Step::Last(ServerMsg::Goodbye {
                reason: "the server is stopping".into(),
            }),
            _ = sleep_until_some(s.view_due) => s.view_now(),
            Some(req) = ch.asks.recv() => s.asked(req),
            Some(req) = ch.navs.recv() => s.navigation_asked(req),
            Some(m) = replies.recv() => s.replied(m),
            Some(m) = batch_out.recv() => Step::Send(m),
            r = ch.status.changed(), if s.status_live => s.status_changed(r, &mut ch.status),
            n = ch.notices.recv() => s.noticed(n),
            ev = ch.events.recv() => s.core_event(ev),
            line = lines.recv() => s.line(line).await,
        };
        let (msg, last) = match step {
            Step::Send(m) => (m, false),
            Step::Last(m) => (m, true),
            Step::Skip => continue,
            Step::Stop => break,
        };
        if !out.send(&msg).await || last {
            break;
        }
    }
    ch.close(&core);
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

/// Who attached: the terminal's label, what its acts are recorded as, and whether it is this
/// process's own control centre.
struct Who {
    you: String,
    actor: Actor,
    local: bool,
}

/// The hello: the first line, within the handshake timeout, with this protocol version and
/// a nonce; then the challenge (this server's nonce and its proof that it holds the control
/// credential) and the client's proof, within the same timeout. Refuses (and closes) otherwise.
async fn hello(
    lines: &mut mpsc::Receiver<Line>,
    mut out: Out,
    peer: Peer,
    opts: &ControlOptions,
) -> Option<(Out, Who)> {
    let deadline = tokio::time::Instant::now() + opts.handshake_timeout;
    let first = tokio::time::timeout_at(deadline, lines.recv()).await;
    let checked = match first {
        Ok(None) => return None,
        Err(_) => Err((
            ErrorCode::BadMessage,
            "no hello within the handshake timeout".to_string(),
        )),
        Ok(Some(Line::Bad(why))) => Err((ErrorCode::BadMessage, why)),
        Ok(Some(Line::Msg(ClientMsg::Hello {
            protocol_version,
            nonce,
            pid,
            tty,
        }))) => check_version(protocol_version).map(|()| (nonce, pid, tty)),
        Ok(Some(Line::Msg(_))) => Err((
            ErrorCode::BadMessage,
            "the first message must be a hello".to_string(),
        )),
    };
    let (theirs, pid, tty) = match checked {
        Ok(v) => v,
        Err((code, why)) => {
            out.refuse(code, why).await;
            return None;
        }
    };
    let Ok(mine) = proof::nonce() else {
        out.refuse(
            ErrorCode::Failed,
            "no OS randomness for the challenge".into(),
        )
        .await;
        return None;
    };
    let challenge = ServerMsg::Challenge {
        proof: opts.credential.prove(Role::Server, &theirs, &mine),
        nonce: mine.clone(),
    };
    if !out.send(&challenge).await {
        return None;
    }
    let proved = match tokio::time::timeout_at(deadline, lines.recv()).await {
        Ok(None) => return None,
        Ok(Some(Line::Msg(ClientMsg::Prove { proof: p }))) => {
            opts.credential
                .verify_proof(Role::Client, &theirs, &mine, &p)
        }
        _ => false,
    };
    if !proved {
        out.refuse(
            ErrorCode::Unauthorized,
            "wrong control credential (the MCP token does not attach): `spock-tui attach` \
             reads the control credential file itself and proves it holds it"
                .into(),
        )
        .await;
        return None;
    }
    // What this terminal's decisions and acts are recorded as.
    let who = match peer {
        Peer::Socket((peer_pid, uid)) => {
            if peer_pid.is_some_and(|p| p as u32 != pid) {
                tracing::warn!(said = pid, peer = ?peer_pid, "attach hello names another pid; the peer's is recorded");
            }
            let verified = Verified::read(peer_pid, Some(uid)).await;
            let you = terminal_label(&verified, tty.as_deref());
            Who {
                actor: Actor::attached(&you),
                you,
                local: false,
            }
        }
        Peer::InProcess => Who {
            you: crate::mcp::confirm::local_label(),
            actor: Actor::in_process(),
            local: true,
        },
    };
    Some((out, who))
}

/// The hello's version.
fn check_version(protocol_version: u32) -> Result<(), (ErrorCode, String)> {
    if protocol_version != PROTOCOL_VERSION {
        return Err((
            ErrorCode::ProtocolVersion,
            format!(
                "this server (spock-tui {}) speaks attach protocol {PROTOCOL_VERSION}; the \
                 client speaks {protocol_version}: attach with the same spock-tui version as \
                 the running server",
                env!("CARGO_PKG_VERSION")
            ),
        ));
    }
    Ok(())
}

/// What a session listens to besides its client: the core's events, the confirmer's notices,
/// the server controller's status, the requests it answers (a responder registered before
/// the welcome) and agents' navigation requests.
struct Channels {
    events: broadcast::Receiver<crate::mcp::ServerEvent>,
    notices: broadcast::Receiver<Notice>,
    status: tokio::sync::watch::Receiver<crate::protocol::ServerStatus>,
    rid: crate::mcp::confirm::ResponderId,
    asks: mpsc::Receiver<ConfirmRequest>,
    nid: u64,
    navs: mpsc::Receiver<NavRequest>,
}

impl Channels {
    fn open(core: &Core, server: &ServerHandle, who: &Who) -> Channels {
        // A responder from before the welcome: once the person is told they are attached,
        // every waiting call is theirs to answer (a client's yes meanwhile is only a claim),
        // and by the time the client has its view no call finds nobody to ask. What is asked
        // meanwhile waits in the channel and follows the initial sync.
        let (rid, asks) = core.confirmer.attach_remote(
            who.you.clone(),
            if who.local {
                DecidedBy::Key
            } else {
                DecidedBy::Attached
            },
        );
        // Agents' navigation requests go to the serving process's own control centre first.
        let (nid, navs) = if who.local {
            core.ui.attach_local()
        } else {
            core.ui.attach_remote()
        };
        Channels {
            events: core.subscribe(),
            notices: core.confirmer.notices(),
            status: server.status(),
            rid,
            asks,
            nid,
            navs,
        }
    }

    fn close(&self, core: &Core) {
        core.confirmer.detach_responder(self.rid);
        core.ui.detach_id(self.nid);
    }
}

/// The welcome, the History preload, the server's status, the view and the devices; false
/// when the client stopped reading.
async fn greet(out: &mut Out, core: &Arc<Core>, who: &Who, ch: &mut Channels) -> bool {
    let welcome = ServerMsg::Welcome {
        protocol_version: PROTOCOL_VERSION,
        server_version: env!("CARGO_PKG_VERSION").into(),
        server_pid: std::process::id(),
        you: who.you.clone(),
        arming_ms: ARMING_MS,
        history_size: core.config().history.size,
        demo: core.demo,
    };
    if !out.send(&welcome).await {
        return false;
    }
    let mut lines = history(core);
    while let Some(line) = lines.recv().await {
        if !out.send_line(line).await {
            return false;
        }
    }
    let first = ServerMsg::ServerStatus {
        status: ch.status.borrow_and_update().clone(),
    };
    out.send(&first).await && out.send(&view(core)).await && out.send(&devices(core)).await
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

fn notice_or_error(r: Result<String, String>) -> ServerMsg {
    match r {
        Ok(message) => ServerMsg::Notice { message },
        Err(e) => ServerMsg::error(ErrorCode::Failed, e),
    }
}

#[cfg(test)]
mod tests {
    use super::{Verified, terminal_label};

    #[test]
    fn a_terminal_is_named_by_what_the_server_verified() {
        let v = Verified {
            pid: Some(42),
            uid: Some(1000),
            exe: Some("/usr/bin/spock-tui".into()),
            tty: Some("/dev/pts/3".into()),
        };
        assert_eq!(
            terminal_label(&v, Some("/dev/pts/3")),
            "attach pid 42 uid 1000 (/usr/bin/spock-tui) on /dev/pts/3"
        );
        // The client's word never replaces what its descriptors show.
        assert_eq!(
            terminal_label(&v, Some("/dev/pts/9")),
            "attach pid 42 uid 1000 (/usr/bin/spock-tui) on /dev/pts/3 (claimed /dev/pts/9)"
        );
        let script = Verified {
            tty: None,
            exe: Some("/usr/bin/python3.11".into()),
            ..v
        };
        assert_eq!(
            terminal_label(&script, Some("\x1b[31m/dev/pts/3")),
            "attach pid 42 uid 1000 (/usr/bin/python3.11), no terminal (claimed 31m/dev/pts/3)"
        );
        assert_eq!(
            terminal_label(&Verified::default(), None),
            "attach pid ?, no terminal"
        );
    }

    /// This test process, read as an attached peer would be: its own executable, and a
    /// terminal only if its descriptors are on one.
    #[tokio::test]
    async fn what_is_verified_is_read_from_proc() {
        let me = std::process::id() as i32;
        let v = Verified::read(Some(me), Some(0)).await;
        let exe = std::fs::read_link("/proc/self/exe").unwrap();
        assert_eq!(v.exe.as_deref(), Some(exe.display().to_string().as_str()));
        let on_tty = (0..3).any(|fd| {
            std::fs::read_link(format!("/proc/self/fd/{fd}"))
                .is_ok_and(|t| t.starts_with("/dev/pts/") || t.starts_with("/dev/tty"))
        });
        assert_eq!(v.tty.is_some(), on_tty, "{v:?}");
    }
}
