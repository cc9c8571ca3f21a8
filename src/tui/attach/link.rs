//! The attached control centre's side of the wire: the hello and the initial sync (History,
//! the server's status, the view), then server messages turned into the loop's [`Event`]s, and
//! the control centre's answers and commands turned into client messages. A confirmation
//! becomes a plain [`Pending`] for the state (the modal, its arming and its keys are the
//! control centre's own; the server checks them again); the person's answer comes back as
//! [`Link::decide`], and what the server says of the request later (decided elsewhere,
//! withdrawn, the client's claim) as events. When the server goes away the link withdraws
//! every request it mirrored (never approvable), says so, and
//! reconnects for a bounded time; every message is tagged with its connection, so nothing
//! meant for the old server (a late `decide`) reaches the new one.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::mcp::ServerEvent;
use crate::mcp::confirm::Ask;
use crate::mcp::navigation::NavRequest;
use crate::mcp::registry::Registry;
use crate::protocol::{
    ARMING_MS, AskWire, ClientMsg, ErrorCode, MAX_LINE, PROTOCOL_VERSION, ServerMsg, ServerStatus,
    ViewWire,
};
use crate::tui::event::{AskEnded, DeviceRow, Event, Pending};
use crate::tui::history::CallEntry;
use spock_core::config::token::proof::{self, Role};

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
    #[error(
        "the process at the control socket did not prove it holds the control credential \
         ({0}): it is not this user's spock-tui server, or the credential was rotated since it \
         was read. Nothing was shown or sent; try again, and if it persists, see who listens \
         there (`spock-tui doctor`)"
    )]
    Impostor(String),
    #[error("the server refused to attach ({code:?}): {message}")]
    Refused { code: ErrorCode, message: String },
    #[error("the server closed the connection during the hello: {0}")]
    Hello(String),
}

/// A connection after the hello and the initial sync.
pub struct Connected {
    pub welcome: Welcome,
    /// The History preload (the server's audit trail, as stored), oldest first, as History's
    /// entries: each chunk is turned into entries as it arrives, never held whole as records.
    pub history: Vec<CallEntry>,
    pub history_source: String,
    pub status: ServerStatus,
    pub view: ViewWire,
    read: BufReader<Reader>,
    write: Writer,
}

type Reader = Box<dyn AsyncRead + Send + Unpin>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// What the HTTP client configuration shows for the MCP token.
#[derive(Clone)]
pub enum TokenShown {
    /// An attached control centre: the token never travels; this names where it is.
    Hint(String),
    /// The serving process's own control centre reads the token it serves with.
    Live(crate::config::token::TokenStore),
}

impl TokenShown {
    fn text(&self) -> String {
        match self {
            TokenShown::Hint(h) => h.clone(),
            TokenShown::Live(t) => t.token(),
        }
    }
}

/// Where to connect, again after the server went away.
#[derive(Clone)]
pub struct Target {
    /// `None` for the serving process's own control centre: its server going away is the end.
    pub socket: Option<PathBuf>,
    pub credential_file: PathBuf,
    /// How long to try reconnecting before detaching.
    pub reconnect_for: Duration,
    /// What the HTTP client configuration shows for the MCP token.
    pub token: TokenShown,
    /// The serving process's own control centre: the MCP clients connected this instant
    /// (its view follows by a short settle), asked before a `q` quits.
    pub connected_now: Option<Arc<dyn Fn() -> Vec<String> + Send + Sync>>,
}

/// This terminal, as `/proc/self/fd/0` names it.
fn tty() -> Option<String> {
    std::fs::read_link("/proc/self/fd/0")
        .ok()
        .map(|p| p.display().to_string())
        .filter(|p| p.starts_with("/dev/"))
}

/// One line, `None` at the end of the stream.
async fn read_line(r: &mut BufReader<Reader>) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    let n = r.take(MAX_LINE as u64).read_until(b'\n', &mut buf).await?;
    Ok((n > 0).then_some(buf))
}

async fn read_msg(r: &mut BufReader<Reader>) -> std::io::Result<Option<ServerMsg>> {
    let Some(buf) = read_line(r).await? else {
        return Ok(None);
    };
    serde_json::from_slice(&buf)
        .map(Some)
        .map_err(std::io::Error::other)
}

/// What the initial sync reads: a `history` line becomes History's entries as it is parsed,
/// one record at a time, never a line of parsed records (parsed JSON costs several times its
/// text, and memory freed after such a peak mostly stays with the process).
enum Synced {
    History {
        entries: Vec<CallEntry>,
        source: String,
    },
    Msg(Box<ServerMsg>),
}

async fn read_synced(r: &mut BufReader<Reader>) -> std::io::Result<Option<Synced>> {
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    #[derive(serde::Deserialize)]
    struct HistoryLine {
        records: Entries,
        source: String,
    }
    let Some(buf) = read_line(r).await? else {
        return Ok(None);
    };
    if serde_json::from_slice::<Kind>(&buf).is_ok_and(|k| k.kind == "history") {
        let h: HistoryLine = serde_json::from_slice(&buf).map_err(std::io::Error::other)?;
        return Ok(Some(Synced::History {
            entries: h.records.0,
            source: h.source,
        }));
    }
    serde_json::from_slice(&buf)
        .map(|m| Some(Synced::Msg(Box::new(m))))
        .map_err(std::io::Error::other)
}

/// A `history` line's records, each turned into an entry as soon as it is read.
struct Entries(Vec<CallEntry>);

impl<'de> serde::Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entries, D::Error> {
        struct Each;
        impl<'de> serde::de::Visitor<'de> for Each {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of audit records")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(r) = a.next_element::<crate::audit::AuditRecord>()? {
                    out.push(CallEntry::from_record(r));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_seq(Each)
    }
}

impl Connected {
    /// Send one command and wait (at most `within`) for its answer: the first `notice`
    /// (`Ok`) or `error` (`Err`) that comes back, skipping the events in between; then leave.
    pub async fn request(
        mut self,
        msg: &ClientMsg,
        within: Duration,
    ) -> Result<Result<String, String>, AttachError> {
        let mut line = serde_json::to_vec(msg).map_err(|e| AttachError::Hello(e.to_string()))?;
        line.push(b'\n');
        self.write
            .write_all(&line)
            .await
            .map_err(|e| AttachError::Hello(e.to_string()))?;
        let answer = tokio::time::timeout(within, async {
            loop {
                match read_msg(&mut self.read).await {
                    Ok(Some(ServerMsg::Notice { message })) => return Ok(Ok(message)),
                    Ok(Some(ServerMsg::Error { message, .. })) => return Ok(Err(message)),
                    Ok(Some(_)) => continue,
                    Ok(None) => {
                        return Err(AttachError::Hello(
                            "the server closed the connection".into(),
                        ));
                    }
                    Err(e) => return Err(AttachError::Hello(e.to_string())),
                }
            }
        })
        .await
        .map_err(|_| AttachError::Hello(format!("no answer within {} s", within.as_secs())))?;
        let mut bye = serde_json::to_vec(&ClientMsg::Detach).unwrap_or_default();
        bye.push(b'\n');
        let _ = self.write.write_all(&bye).await;
        answer
    }
}

async fn send_line(write: &mut Writer, m: &ClientMsg) -> Result<(), AttachError> {
    let mut line = serde_json::to_vec(m).map_err(|e| AttachError::Hello(e.to_string()))?;
    line.push(b'\n');
    write
        .write_all(&line)
        .await
        .map_err(|e| AttachError::Hello(e.to_string()))
}

/// Connect, say hello, and read the welcome (or the refusal), the History preload, the
/// server's status and the view.
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
    let (read, write) = stream.into_split();
    connect_io(Box::new(read), Box::new(write), credential).await
}

/// The hello and the initial sync over any stream (the socket, or the in-process duplex).
pub async fn connect_io(
    read: Reader,
    mut write: Writer,
    credential: String,
) -> Result<Connected, AttachError> {
    let mut read = BufReader::new(read);
    let mine = proof::nonce().map_err(|e| AttachError::Hello(e.to_string()))?;
    let hello = ClientMsg::Hello {
        protocol_version: PROTOCOL_VERSION,
        nonce: mine.clone(),
        pid: std::process::id(),
        tty: tty(),
    };
    send_line(&mut write, &hello).await?;
    // The server proves it holds the credential before this client shows or sends anything.
    let theirs = match tokio::time::timeout(Duration::from_secs(10), read_msg(&mut read)).await {
        Ok(Ok(Some(ServerMsg::Challenge { nonce, proof: p }))) => {
            if !proof::verify(&credential, Role::Server, &mine, &nonce, &p) {
                return Err(AttachError::Impostor("a wrong proof".into()));
            }
            nonce
        }
        Ok(Ok(Some(ServerMsg::Error { code, message, .. }))) => {
            return Err(AttachError::Refused { code, message });
        }
        Ok(Ok(Some(_))) => {
            return Err(AttachError::Impostor(
                "no proof: it answered the hello with something else".into(),
            ));
        }
        Ok(Ok(None)) => return Err(AttachError::Hello("end of stream".into())),
        Ok(Err(e)) => return Err(AttachError::Hello(e.to_string())),
        Err(_) => return Err(AttachError::Hello("no challenge within 10 s".into())),
    };
    let answer = ClientMsg::Prove {
        proof: proof::prove(&credential, Role::Client, &mine, &theirs),
    };
    drop(credential);
    send_line(&mut write, &answer).await?;
    let welcome = match tokio::time::timeout(Duration::from_secs(10), read_msg(&mut read)).await {
        Ok(Ok(Some(ServerMsg::Welcome {
            you,
            server_version,
            server_pid,
            history_size,
            demo,
            ..
        }))) => Welcome {
            you,
            server_version,
            server_pid,
            history_size,
            demo,
        },
        Ok(Ok(Some(ServerMsg::Error { code, message, .. }))) => {
            return Err(AttachError::Refused { code, message });
        }
        Ok(Ok(Some(other))) => return Err(AttachError::Hello(format!("unexpected {other:?}"))),
        Ok(Ok(None)) => return Err(AttachError::Hello("end of stream".into())),
        Ok(Err(e)) => return Err(AttachError::Hello(e.to_string())),
        Err(_) => return Err(AttachError::Hello("no welcome within 10 s".into())),
    };
    // The initial sync, in the order the server sends it.
    let sync = async {
        let (mut history, mut source) = (Vec::new(), String::new());
        let mut status = None;
        loop {
            match read_synced(&mut read).await {
                Ok(Some(Synced::History { entries, source: s })) => {
                    history.extend(entries);
                    source = s;
                }
                Ok(Some(Synced::Msg(m))) => match *m {
                    ServerMsg::ServerStatus { status: s } => status = Some(s),
                    ServerMsg::View { view } => return Ok((history, source, status, *view)),
                    ServerMsg::Error { code, message, .. } => {
                        return Err(AttachError::Refused { code, message });
                    }
                    _ => {}
                },
                Ok(None) => return Err(AttachError::Hello("end of stream".into())),
                Err(e) => return Err(AttachError::Hello(e.to_string())),
            }
        }
    };
    let (history, history_source, status, view) =
        match tokio::time::timeout(Duration::from_secs(30), sync).await {
            Ok(r) => r?,
            Err(_) => return Err(AttachError::Hello("no initial sync within 30 s".into())),
        };
    Ok(Connected {
        welcome,
        history,
        history_source,
        status: status.unwrap_or(ServerStatus::Running),
        view,
        read,
        write,
    })
}

/// A confirmation the server asked this terminal: as it came, and the connection that asked
/// (the answer goes to that server only).
struct Mirrored {
    wire: AskWire,
    conn: u64,
}

/// The running link: commands go out through `out`, tagged with the connection they are
/// meant for; `displayed` is told what the loop drew.
#[derive(Clone)]
pub struct Link {
    out: mpsc::UnboundedSender<(u64, ClientMsg)>,
    /// The connection now in use; bumped when the server goes away.
    conn: Arc<AtomicU64>,
    asks: Arc<Mutex<HashMap<u64, Mirrored>>>,
    /// When this terminal told the server it displayed each request.
    shown: Arc<Mutex<HashMap<u64, Instant>>>,
    you: Arc<Mutex<Arc<str>>>,
    token: TokenShown,
}

/// Why the link ended, said after the terminal is restored.
pub type Ended = Arc<Mutex<Option<String>>>;

/// How a connection ended.
enum Gone {
    /// The person detached (or the loop is gone).
    Detached,
    /// The server went away, or said goodbye.
    Server(String),
}

impl Link {
    /// Start the link; server messages arrive on `tx` as events. When the server goes away it
    /// reconnects to `target` for `target.reconnect_for`, then ends (`Quit`, and `ended` says
    /// why).
    pub fn spawn(
        c: Connected,
        registry: Registry,
        tx: mpsc::UnboundedSender<Event>,
        ended: Ended,
        target: Target,
    ) -> Link {
        let (out, mut rx) = mpsc::unbounded_channel::<(u64, ClientMsg)>();
        let link = Link {
            out,
            conn: Arc::new(AtomicU64::new(0)),
            asks: Arc::new(Mutex::new(HashMap::new())),
            shown: Arc::new(Mutex::new(HashMap::new())),
            you: Arc::new(Mutex::new(Arc::from(c.welcome.you.as_str()))),
            token: target.token.clone(),
        };
        let l = link.clone();
        tokio::spawn(async move {
            let mut c = c;
            loop {
                let why = match l.serve(c, &registry, &tx, &mut rx).await {
                    Gone::Detached => return,
                    Gone::Server(why) => why,
                };
                // Nothing meant for that server goes to the next one, and nothing it asked
                // stays answerable.
                l.conn.fetch_add(1, Ordering::SeqCst);
                l.withdraw_all(&tx);
                if target.socket.is_some() {
                    let secs = target.reconnect_for.as_secs();
                    let _ = tx.send(Event::ServerStatus(ServerStatus::Failed(
                        "server gone: reconnecting…".into(),
                    )));
                    let _ = tx.send(Event::Notice(format!(
                        "server gone: reconnecting… ({why}; for up to {secs} s, q detaches)"
                    )));
                }
                match l.reconnect(&target, &tx, &mut rx).await {
                    Ok(next) => c = next,
                    Err(None) => return,
                    Err(Some(fatal)) => {
                        if let Ok(mut e) = ended.lock() {
                            *e = Some(format!("{why}; {fatal}"));
                        }
                        let _ = tx.send(Event::Quit);
                        return;
                    }
                }
            }
        });
        link
    }

    /// One connection: server messages in, commands out, until either side ends it.
    async fn serve(
        &self,
        c: Connected,
        registry: &Registry,
        tx: &mpsc::UnboundedSender<Event>,
        rx: &mut mpsc::UnboundedReceiver<(u64, ClientMsg)>,
    ) -> Gone {
        let (mut read, mut write) = (c.read, c.write);
        // Lines are read on their own task, so a half-read line is never lost to the select.
        let (mtx, mut msgs) = mpsc::unbounded_channel::<Result<ServerMsg, String>>();
        let reader = tokio::spawn(async move {
            loop {
                let m = match read_msg(&mut read).await {
                    Ok(Some(m)) => Ok(m),
                    Ok(None) => Err("the server closed the connection".to_string()),
                    Err(e) => Err(format!("the connection failed: {e}")),
                };
                let end = m.is_err();
                if mtx.send(m).is_err() || end {
                    return;
                }
            }
        });
        let conn = self.conn.load(Ordering::SeqCst);
        let gone = loop {
            tokio::select! {
                m = msgs.recv() => match m {
                    Some(Ok(ServerMsg::Goodbye { reason })) => break Gone::Server(reason),
                    Some(Ok(m)) => {
                        if self.on_message(m, registry).into_iter().any(|ev| tx.send(ev).is_err()) {
                            break Gone::Detached;
                        }
                    }
                    Some(Err(why)) => break Gone::Server(why),
                    None => break Gone::Server("the connection ended".into()),
                },
                o = rx.recv() => match o {
                    None => break Gone::Detached,
                    Some((for_conn, m)) => {
                        if for_conn != conn {
                            continue;
                        }
                        let Ok(mut line) = serde_json::to_vec(&m) else {
                            continue;
                        };
                        line.push(b'\n');
                        if let Err(e) = write.write_all(&line).await {
                            break Gone::Server(format!("the connection failed: {e}"));
                        }
                        if m == ClientMsg::Detach {
                            let _ = write.shutdown().await;
                            break Gone::Detached;
                        }
                    }
                },
            }
        };
        reader.abort();
        gone
    }

    /// Try to attach again every half second until `target.reconnect_for` has passed.
    /// `Err(None)`: the person detached meanwhile; `Err(Some(why))`: give up.
    async fn reconnect(
        &self,
        target: &Target,
        tx: &mpsc::UnboundedSender<Event>,
        rx: &mut mpsc::UnboundedReceiver<(u64, ClientMsg)>,
    ) -> Result<Connected, Option<String>> {
        let Some(socket) = &target.socket else {
            return Err(Some("the serving process is stopping".into()));
        };
        let deadline = Instant::now() + target.reconnect_for;
        loop {
            let pause = tokio::time::sleep(Duration::from_millis(500));
            tokio::pin!(pause);
            loop {
                tokio::select! {
                    _ = &mut pause => break,
                    o = rx.recv() => match o {
                        None | Some((_, ClientMsg::Detach)) => return Err(None),
                        Some(_) => {
                            let _ = tx.send(Event::Notice(
                                "not sent: the server is gone (reconnecting…)".into(),
                            ));
                        }
                    },
                }
            }
            match connect(socket, &target.credential_file).await {
                Ok(mut c) => {
                    if let Ok(mut you) = self.you.lock() {
                        *you = Arc::from(c.welcome.you.as_str());
                    }
                    // The preload again: what was recorded while the link was down appears
                    // (History keeps what it holds and adds only the newer records).
                    let _ = tx.send(Event::History(crate::tui::history::Preloaded {
                        records: std::mem::take(&mut c.history),
                        source: std::mem::take(&mut c.history_source),
                    }));
                    let _ = tx.send(Event::ServerStatus(c.status.clone()));
                    let _ = tx.send(self.view(c.view.clone()));
                    let _ = tx.send(Event::Notice(format!(
                        "reconnected to spock-tui {} (pid {}) as {}",
                        c.welcome.server_version, c.welcome.server_pid, c.welcome.you
                    )));
                    return Ok(c);
                }
                Err(e @ AttachError::Refused { .. }) => return Err(Some(e.to_string())),
                Err(e) if Instant::now() >= deadline => {
                    return Err(Some(format!(
                        "no server came back within {} s ({e})",
                        target.reconnect_for.as_secs()
                    )));
                }
                Err(_) => {}
            }
        }
    }

    /// Send a command on the connection now in use.
    pub fn send(&self, m: ClientMsg) {
        let _ = self.out.send((self.conn.load(Ordering::SeqCst), m));
    }

    /// The loop drew the request `call_id` whole: the server may start its arming time.
    pub fn displayed(&self, call_id: u64) {
        // Only a request this connection asked (one from before a reconnect is withdrawn).
        if !self.asks.lock().is_ok_and(|a| a.contains_key(&call_id)) {
            return;
        }
        let Ok(mut shown) = self.shown.lock() else {
            return;
        };
        if shown.contains_key(&call_id) {
            return;
        }
        shown.insert(call_id, Instant::now());
        self.send(ClientMsg::Displayed { call_id });
    }

    pub fn detach(&self) {
        self.send(ClientMsg::Detach);
    }

    fn view(&self, view: ViewWire) -> Event {
        Event::Sync(Box::new(view.into_view(self.token.text())))
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
                person,
            } => vec![Event::Server(ServerEvent::CallStarted {
                call_id,
                at,
                tool,
                level,
                transport,
                client,
                device,
                arguments,
                person,
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
            ServerMsg::ServerStatus { status } => vec![Event::ServerStatus(status)],
            ServerMsg::View { view } => vec![self.view(*view)],
            ServerMsg::Devices { devices, problems } => vec![Event::Devices(
                devices
                    .into_iter()
                    .map(|d| DeviceRow {
                        serial: d.serial,
                        state: d.state,
                        model: d.model,
                        selected: d.selected,
                    })
                    .collect(),
                problems,
            )],
            ServerMsg::Batch { data } => vec![Event::Batch(data)],
            ServerMsg::BatchReply { reply } => vec![Event::BatchReply(reply)],
            ServerMsg::Notice { message } => vec![Event::Notice(message)],
            ServerMsg::Lagged { lost } => vec![Event::Lagged(lost)],
            ServerMsg::Navigate { id, screen, select } => {
                let (req, answer) = NavRequest::new(screen, select);
                let (link, conn) = (self.clone(), self.conn.load(Ordering::SeqCst));
                tokio::spawn(async move {
                    let error = match answer.await {
                        Ok(Ok(())) => None,
                        Ok(Err(why)) => Some(why),
                        Err(_) => Some("the control centre closed the request".into()),
                    };
                    let _ = link.out.send((conn, ClientMsg::Navigated { id, error }));
                });
                vec![Event::Navigate(req)]
            }
            ServerMsg::ConfirmAsked { ask } => vec![self.mirror(ask, registry)],
            ServerMsg::Decided {
                call_id,
                approved,
                by,
            } => {
                let mine = self.you.lock().is_ok_and(|you| **you == *by);
                let decided = (!mine).then_some((approved, by));
                self.close(call_id);
                vec![Event::ConfirmGone {
                    id: call_id,
                    gone: AskEnded { decided, why: None },
                }]
            }
            ServerMsg::Withdrawn { call_id, why, .. } => {
                self.close(call_id);
                vec![Event::ConfirmGone {
                    id: call_id,
                    gone: AskEnded { decided: None, why },
                }]
            }
            ServerMsg::ClientSaid {
                call_id,
                approved,
                by,
            } => vec![Event::ClientSaid {
                id: call_id,
                approved,
                by,
            }],
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
            // The History preload is read once, at the first connect; after a reconnect the
            // records from before it are already on screen.
            ServerMsg::History { .. }
            | ServerMsg::Welcome { .. }
            | ServerMsg::Challenge { .. }
            | ServerMsg::Goodbye { .. } => Vec::new(),
        }
    }

    fn close(&self, call_id: u64) {
        if let Ok(mut a) = self.asks.lock() {
            a.remove(&call_id);
        }
        if let Ok(mut s) = self.shown.lock() {
            s.remove(&call_id);
        }
    }

    /// The server went away: every request it asked is withdrawn from the screen.
    fn withdraw_all(&self, tx: &mpsc::UnboundedSender<Event>) {
        let all: Vec<u64> = self
            .asks
            .lock()
            .map(|mut a| a.drain().map(|(id, _)| id).collect())
            .unwrap_or_default();
        for id in all {
            let _ = tx.send(Event::ConfirmGone {
                id,
                gone: AskEnded::default(),
            });
        }
        if let Ok(mut s) = self.shown.lock() {
            s.clear();
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
            // An older server says nothing verified: an MCP client's, never the person's.
            verified: wire.verified.clone().unwrap_or_else(|| {
                spock_core::model::Verified::client(
                    wire.transport,
                    None,
                    spock_core::model::Peer::default(),
                )
            }),
            device: wire.device.clone(),
            device_model: wire.device_model.clone(),
            arguments: wire.arguments.clone(),
            reason: wire.reason.clone(),
        };
        let pending = Pending {
            id: wire.call_id,
            ask,
            deadline: Instant::now() + Duration::from_millis(wire.remaining_ms),
            timeout: Duration::from_millis(wire.timeout_ms),
            client_says: None,
            gone: None,
        };
        let conn = self.conn.load(Ordering::SeqCst);
        if let Ok(mut a) = self.asks.lock() {
            a.insert(wire.call_id, Mirrored { wire, conn });
        }
        Event::Confirm(pending)
    }

    /// The person answered request `call_id` in this terminal: tell the server that asked, an
    /// approval no sooner than the server's arming time after this terminal said it displayed
    /// the request. A request no longer mirrored (decided elsewhere, withdrawn, its server
    /// gone) is not answered.
    pub fn decide(&self, call_id: u64, approve: bool) {
        let Some(conn) = self
            .asks
            .lock()
            .ok()
            .and_then(|a| a.get(&call_id).map(|m| m.conn))
        else {
            return;
        };
        let since = self
            .shown
            .lock()
            .ok()
            .and_then(|s| s.get(&call_id).copied());
        let out = self.out.clone();
        tokio::spawn(async move {
            if approve && let Some(at) = since {
                // The server measures from when it read `displayed`: a little margin.
                tokio::time::sleep_until(at + Duration::from_millis(ARMING_MS + 50)).await;
            }
            let _ = out.send((conn, ClientMsg::Decide { call_id, approve }));
        });
    }
}
