//! The attach channel's session as `spock-tui`'s own control centre reaches it: over the
//! in-process duplex (`ControlChannel::in_process`), speaking the same protocol lines as any
//! attached terminal. A client of another protocol version is refused naming both; the MCP
//! token does not attach; the initial sync never carries the token or the credential; a
//! command changes the core; an approval for a call that is not waiting is refused.
use crate::support::virtual_core;
use std::time::Duration;

use chrono::Offset as _;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use spock_tui::app::{self, ControlChannel, Listen};
use spock_tui::config::Config;
use spock_tui::config::token::TokenStore;
use spock_tui::config::token::proof::{self, Role};
use spock_tui::protocol::PROTOCOL_VERSION;
use spock_tui::sim::device::SimDevice;

const TOKEN: &str = "mcp-token-never-on-the-attach-wire";

struct Line {
    r: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    w: tokio::io::WriteHalf<DuplexStream>,
    seen: Vec<String>,
    /// The credential the server's challenge must prove.
    server_proved: Option<String>,
}

impl Line {
    async fn send(&mut self, v: Value) {
        let mut s = v.to_string();
        s.push('\n');
        self.w.write_all(s.as_bytes()).await.unwrap();
    }

    /// The next message, or `None` at the end of the stream.
    async fn recv(&mut self) -> Option<Value> {
        let mut s = String::new();
        let n = tokio::time::timeout(Duration::from_secs(15), self.r.read_line(&mut s))
            .await
            .expect("a line within 15 s")
            .unwrap();
        if n == 0 {
            return None;
        }
        self.seen.push(s.clone());
        Some(serde_json::from_str(&s).unwrap())
    }

    /// The handshake as a client does it, proving `credential`: the server's challenge is
    /// checked against the credential the channel holds, then the welcome or the refusal.
    async fn hello(&mut self, credential: &str) -> Value {
        let mine = proof::nonce().unwrap();
        self.send(
            json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "nonce": mine, "pid": 1}),
        )
        .await;
        let ch = self.recv().await.expect("a challenge");
        if ch["type"] != "challenge" {
            return ch;
        }
        self.answer(
            &ch,
            &mine,
            &proof::prove(
                credential,
                Role::Client,
                &mine,
                ch["nonce"].as_str().unwrap(),
            ),
        )
        .await
    }

    /// Sends `proof` for challenge `ch` (its server proof checked first); the next message.
    async fn answer(&mut self, ch: &Value, mine: &str, p: &str) -> Value {
        let theirs = ch["nonce"].as_str().unwrap();
        assert!(
            self.server_proved.as_deref().is_none_or(|c| proof::verify(
                c,
                Role::Server,
                mine,
                theirs,
                ch["proof"].as_str().unwrap()
            )),
            "the server's proof does not check out: {ch}"
        );
        self.send(json!({"type": "prove", "proof": p})).await;
        self.recv().await.expect("an answer to the proof")
    }

    async fn until(&mut self, kind: &str) -> Value {
        loop {
            let m = self.recv().await.expect("closed while waiting");
            if m["type"] == kind {
                return m;
            }
        }
    }
}

async fn channel(
    tmp: &std::path::Path,
) -> (
    std::sync::Arc<spock_tui::mcp::Core>,
    ControlChannel,
    spock_tui::sim::cli::SimHandle,
) {
    let (core, sim) = virtual_core::core_on_virtual_device(
        tmp,
        Config::default_config(),
        false,
        SimDevice::demo(),
    )
    .await
    .unwrap();
    let tokens = TokenStore::fixed(TOKEN);
    let listen = Listen {
        http: "127.0.0.1:0".parse().unwrap(),
        any_host: false,
    };
    let (ctl, _controller) =
        app::spawn_controller(core.clone(), tokens.clone(), listen, true, None);
    let ch = ControlChannel::start(&core, tokens, ctl).unwrap();
    (core, ch, sim)
}

fn open(ch: &ControlChannel) -> (Line, String) {
    let (duplex, credential) = ch.in_process();
    let (r, w) = tokio::io::split(duplex);
    (
        Line {
            r: BufReader::new(r),
            w,
            seen: Vec::new(),
            server_proved: Some(credential.clone()),
        },
        credential,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_another_version_or_with_the_mcp_token_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (_core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    // A version-3 client's hello, credential and all: refused by version, nothing proven.
    c.send(json!({"type": "hello", "protocol_version": 3, "credential": credential, "pid": 1}))
        .await;
    let m = c.recv().await.unwrap();
    assert_eq!(m["code"], "protocol_version", "{m}");
    let text = m["message"].as_str().unwrap();
    assert!(
        text.contains(&format!("speaks attach protocol {PROTOCOL_VERSION}"))
            && text.contains("client speaks 3"),
        "{text}"
    );
    assert!(c.recv().await.is_none(), "the connection stays open");

    // Proving the MCP token instead of the credential: refused.
    let (mut c, _) = open(&ch);
    let m = c.hello(TOKEN).await;
    assert_eq!(m["code"], "unauthorized", "{m}");
    assert!(c.recv().await.is_none());

    // The credential itself where the proof goes (a client of the old kind): refused.
    let (mut c, credential) = open(&ch);
    let mine = proof::nonce().unwrap();
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "nonce": mine, "pid": 1}))
        .await;
    let challenge = c.recv().await.unwrap();
    assert_eq!(challenge["type"], "challenge", "{challenge}");
    assert!(!challenge.to_string().contains(&credential), "{challenge}");
    let m = c.answer(&challenge, &mine, &credential).await;
    assert_eq!(m["code"], "unauthorized", "{m}");

    // A proof that worked once does not work again: the server's nonce is fresh each time.
    let (mut c, credential) = open(&ch);
    let mine = proof::nonce().unwrap();
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "nonce": mine, "pid": 1}))
        .await;
    let first = c.recv().await.unwrap();
    let good = proof::prove(
        &credential,
        Role::Client,
        &mine,
        first["nonce"].as_str().unwrap(),
    );
    assert_eq!(c.answer(&first, &mine, &good).await["type"], "welcome");
    let (mut c, _) = open(&ch);
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "nonce": mine, "pid": 1}))
        .await;
    let second = c.recv().await.unwrap();
    assert_ne!(second["nonce"], first["nonce"]);
    let m = c.answer(&second, &mine, &good).await;
    assert_eq!(m["code"], "unauthorized", "a replayed proof attached: {m}");

    // A client nonce too short to be fresh proves nothing either.
    let (mut c, credential) = open(&ch);
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "nonce": "", "pid": 1}))
        .await;
    let ch2 = c.recv().await.unwrap();
    let p = proof::prove(
        &credential,
        Role::Client,
        "",
        ch2["nonce"].as_str().unwrap(),
    );
    c.send(json!({"type": "prove", "proof": p})).await;
    let m = c.recv().await.unwrap();
    assert_eq!(m["code"], "unauthorized", "{m}");
    ch.stop().await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_carries_no_secret_and_commands_reach_the_core() {
    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    let welcome = c.hello(&credential).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    assert!(
        welcome["you"]
            .as_str()
            .unwrap()
            .contains("the control centre of the serving process"),
        "{welcome}"
    );
    // The preload comes first, then the status and the view.
    let history = c.recv().await.unwrap();
    assert_eq!(history["type"], "history", "{history}");
    assert_eq!(c.until("server_status").await["type"], "server_status");
    let view = c.until("view").await;
    assert!(
        view["view"]["enabled"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "android_get_battery_info")
    );
    // A switch from this terminal is in force in the core at once.
    c.send(json!({"type": "access", "change": {"change": "set_enabled", "tool": "android_get_battery_info", "on": false}}))
        .await;
    let notice = c.until("notice").await;
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .contains("android_get_battery_info off"),
        "{notice}"
    );
    let tool = core.registry.get("android_get_battery_info").unwrap();
    assert!(!core.access.allows(tool));
    // An approval for nothing that waits: refused, the connection stays.
    c.send(json!({"type": "decide", "call_id": 4242, "approve": true}))
        .await;
    let e = c.until("error").await;
    assert_eq!(e["code"], "not_pending", "{e}");
    // Neither secret was ever on the wire.
    for line in &c.seen {
        assert!(!line.contains(TOKEN), "{line}");
        assert!(!line.contains(&credential), "{line}");
    }
    c.send(json!({"type": "detach"})).await;
    ch.stop().await;
    sim.stop().await;
}

/// The Tools screen says which clients each toolset is listed to: an attached control centre
/// gets each client's toolsets in the view, and a fresh view when they change, and the
/// control centre's own view (`into_view`) keeps them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_toolsets_reach_the_attached_view() {
    use spock_tui::mcp::events::{ClientId, Transport};
    use spock_tui::protocol::ViewWire;
    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    assert_eq!(c.hello(&credential).await["type"], "welcome");
    c.until("view").await;
    let agent = ClientId {
        name: "agent".into(),
        version: "1".into(),
    };
    core.client_seen(Transport::Http, &agent, "2025-06-18");
    core.client_toolsets(Transport::Http, &agent, "core,apps".into());
    let view = loop {
        let v = c.until("view").await;
        if v["view"]["clients"][0]["toolsets"] == "core,apps" {
            break v;
        }
    };
    let wire: ViewWire = serde_json::from_value(view["view"].clone()).unwrap();
    let shown = wire.into_view("<token file>".into());
    assert_eq!(shown.clients.len(), 1);
    assert_eq!(shown.clients[0].name, "agent");
    assert_eq!(shown.clients[0].toolsets, "core,apps");
    ch.stop().await;
    sim.stop().await;
}

/// Issue 31, item 6: a change of access or settings made from a control centre is the
/// person's act on record, naming the terminal (here the serving process's own): origin
/// `tui`, decided by key. Widening is kept as a destructive record (never dropped by the cap).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_and_settings_changes_are_audited_as_the_persons_acts() {
    use spock_tui::mcp::events::{DecidedBy, Transport};
    use spock_tui::mcp::registry::Level;
    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    let welcome = c.hello(&credential).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    let you = welcome["you"].as_str().unwrap().to_string();
    c.until("view").await;
    c.send(json!({"type": "access", "change": {"change": "set_group", "group": "settings", "on": true}}))
        .await;
    c.until("notice").await;
    c.send(json!({"type": "access", "change": {"change": "set_enabled", "tool": "android_get_battery_info", "on": false}}))
        .await;
    c.until("notice").await;
    c.send(json!({"type": "setting", "field": "history_size", "value": 321}))
        .await;
    c.until("notice").await;
    let recs = core.audit.recent(50);
    let find = |tool: &str, needle: &str| {
        recs.iter()
            .find(|r| r.tool == tool && r.arguments.to_string().contains(needle))
            .unwrap_or_else(|| panic!("no {tool} record with {needle}: {recs:#?}"))
            .clone()
    };
    let group = find("control_access", "settings");
    let off = find("control_access", "android_get_battery_info");
    let size = find("control_setting", "321");
    for r in [&group, &off, &size] {
        assert_eq!(r.transport, Transport::Tui, "{r:?}");
        let d = r.decision.expect("decided");
        assert!(d.approved && d.by == DecidedBy::Key, "{r:?}");
        assert_eq!(r.decider.as_deref(), Some(you.as_str()), "{r:?}");
    }
    assert_eq!(group.level, Level::Destructive, "widening: {group:?}");
    assert_ne!(off.level, Level::Destructive, "narrowing: {off:?}");
    c.send(json!({"type": "detach"})).await;
    ch.stop().await;
    sim.stop().await;
}

/// Issue 44: a control centre's History holds what the trail's records are about, not the
/// records; the details of an entry it preloaded over the attach channel show what the trail
/// holds, exactly as before: a password as the trail keeps it («password»), binary content and
/// long arguments as the trail stored them, a denial with how it was decided, control
/// characters escaped. (The snapshot was taken before the preload changed.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preloaded_entries_show_the_trails_details_as_before() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use spock_tui::audit::AuditRecord;
    use spock_tui::tui::event::Event;
    use spock_tui::tui::history::Preloaded;
    use spock_tui::tui::state::State;

    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let records = [
        json!({"time": "2026-11-30T20:00:00.125Z", "client": "claude-code/1.0.3",
               "transport": "http", "device": "emulator-5554",
               "tool": "android_input_text_into_element", "level": "safe_action",
               "arguments": {"selector": {"viewId": "login_password"}, "text": "«password»"},
               "outcome": "ok", "result": {"typed": 10, "verified": true}, "durationMs": 120}),
        json!({"time": "2026-11-30T20:00:01.500Z", "client": "agent/2",
               "transport": "stdio", "device": "emulator-5554",
               "tool": "android_take_screenshot", "level": "read_only", "arguments": {},
               "outcome": "ok", "durationMs": 340,
               "result": {"content": [{"type": "image", "mimeType": "image/png", "data": image}],
                          "width": 1, "height": 1}}),
        json!({"time": "2026-11-30T20:00:02Z", "client": "spock-tui/0.1.0",
               "transport": "http", "device": "emulator-5554",
               "tool": "android_uninstall_app", "level": "destructive",
               "arguments": {"packageName": "com.example.shop"}, "outcome": "denied",
               "error": "denied: the confirmation timed out", "durationMs": 60000,
               "decision": {"approved": false, "by": "timeout"}}),
        json!({"time": "2026-11-30T20:00:03Z", "client": "unknown", "transport": "stdio",
               "tool": "android_input_text", "level": "safe_action",
               "arguments": {"text": format!("\u{1b}[31mred\u{7} {}", "é".repeat(9000))},
               "outcome": "error", "error": "no focused field", "durationMs": 4}),
    ];
    for r in records {
        core.audit
            .append(serde_json::from_value::<AuditRecord>(r).unwrap());
    }
    let (duplex, credential) = ch.in_process();
    let (r, w) = tokio::io::split(duplex);
    let c = spock_tui::tui::attach::connect_io(Box::new(r), Box::new(w), credential)
        .await
        .unwrap();
    let source = Preloaded {
        records: c.history,
        source: "the trail".into(),
    };
    let registry = spock_tui::mcp::tools::catalogue();
    let mut s = State::with_source(&registry, c.view.into_view("<token>".into()), &source);
    s.tz = chrono::Utc.fix();
    s.size = (100, 70);
    let press = |s: &mut State, k: KeyCode| {
        s.update(Event::Key(KeyEvent::new(k, KeyModifiers::NONE)));
    };
    press(&mut s, KeyCode::Char('4'));
    let mut shown = Vec::new();
    for _ in 0..s.history.len() {
        press(&mut s, KeyCode::Enter);
        let mut terminal = Terminal::new(TestBackend::new(100, 70)).unwrap();
        terminal
            .draw(|f| spock_tui::tui::frame::draw(f, &s))
            .unwrap();
        shown.push(terminal.backend().to_string());
        press(&mut s, KeyCode::Esc);
        press(&mut s, KeyCode::Down);
    }
    insta::assert_snapshot!("preloaded_details", shown.join("\n"));
    ch.stop().await;
    sim.stop().await;
}

/// A preload of several lines (each under the chunk size) arrives whole, oldest first, with
/// every record's result kept for History's search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preload_of_many_lines_arrives_whole_and_in_order() {
    use spock_tui::audit::{AuditRecord, Level, Transport};
    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let before = core.audit.recent(usize::MAX).len();
    for n in 0..3000u64 {
        let mut r = AuditRecord::new(
            "android_get_screen",
            Level::ReadOnly,
            Transport::Http,
            json!({"n": n}),
        );
        r.result = Some(json!({"text": format!("row {n} {}", "x".repeat(1000))}));
        core.audit.append(r);
    }
    let (duplex, credential) = ch.in_process();
    let (r, w) = tokio::io::split(duplex);
    let c = spock_tui::tui::attach::connect_io(Box::new(r), Box::new(w), credential)
        .await
        .unwrap();
    assert_eq!(c.history.len(), before + 3000);
    let ours: Vec<_> = c.history.iter().skip(before).collect();
    for (n, e) in ours.iter().enumerate() {
        assert_eq!(e.arguments, json!({"n": n}));
        let result = e.finished.as_ref().unwrap().result.text();
        assert!(result.contains(&format!("row {n} x")), "{result}");
    }
    let seqs: Vec<u64> = c.history.iter().filter_map(|e| e.audit_seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "oldest first");
    ch.stop().await;
    sim.stop().await;
}

/// The client checks the server holds the credential before it shows or sends anything: a
/// process at the socket that answers the hello with a wrong proof (or with a welcome, no
/// proof at all) gets no proof of the client's, and the client says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_impostor_at_the_socket_gets_nothing_from_the_client() {
    use spock_tui::tui::attach::AttachError;
    for answer in ["wrong proof", "welcome"] {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (cr, cw) = tokio::io::split(client);
        let (sr, mut sw) = tokio::io::split(server);
        let impostor = tokio::spawn(async move {
            let mut r = BufReader::new(sr);
            let mut hello = String::new();
            r.read_line(&mut hello).await.unwrap();
            let hello: Value = serde_json::from_str(&hello).unwrap();
            assert_eq!(hello["type"], "hello");
            assert!(hello.get("credential").is_none(), "{hello}");
            let line = if answer == "welcome" {
                json!({"type": "welcome", "protocol_version": PROTOCOL_VERSION, "server_version": "x",
                       "server_pid": 1, "you": "you", "arming_ms": 0, "history_size": 10, "demo": false})
            } else {
                let mine = proof::nonce().unwrap();
                // A proof under another credential: what a process without the file can make.
                let p = proof::prove(
                    "a guess",
                    Role::Server,
                    hello["nonce"].as_str().unwrap(),
                    &mine,
                );
                json!({"type": "challenge", "nonce": mine, "proof": p})
            };
            sw.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            // Whatever the client sends next: it must send nothing.
            let mut rest = String::new();
            let _ = tokio::time::timeout(Duration::from_secs(2), r.read_line(&mut rest)).await;
            rest
        });
        let got = spock_tui::tui::attach::connect_io(
            Box::new(cr),
            Box::new(cw),
            "the real credential".into(),
        )
        .await;
        match got {
            Err(e @ AttachError::Impostor(_)) => {
                assert!(e.to_string().contains("did not prove"), "{e}")
            }
            Err(e) => panic!("{answer}: another error: {e}"),
            Ok(_) => panic!("{answer}: attached to an impostor"),
        }
        let sent = impostor.await.unwrap();
        assert!(
            !sent.contains("prove"),
            "{answer}: the client answered: {sent}"
        );
    }
}
