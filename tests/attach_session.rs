//! The attach channel's session as `spock-tui`'s own control centre reaches it: over the
//! in-process duplex (`ControlChannel::in_process`), speaking the same protocol lines as any
//! attached terminal. A client of another protocol version is refused naming both; the MCP
//! token does not attach; the initial sync never carries the token or the credential; a
//! command changes the core; an approval for a call that is not waiting is refused.
#[path = "support/virtual_core.rs"]
mod virtual_core;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use spock_tui::app::{self, ControlChannel, Listen};
use spock_tui::config::Config;
use spock_tui::config::token::TokenStore;
use spock_tui::sim::device::SimDevice;
use spock_tui::transport::control::proto::PROTOCOL_VERSION;

const TOKEN: &str = "mcp-token-never-on-the-attach-wire";

struct Line {
    r: BufReader<tokio::io::ReadHalf<DuplexStream>>,
    w: tokio::io::WriteHalf<DuplexStream>,
    seen: Vec<String>,
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
        },
        credential,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_another_version_or_with_the_mcp_token_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (_core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    c.send(json!({"type": "hello", "protocol_version": 1, "credential": credential, "pid": 1}))
        .await;
    let m = c.recv().await.unwrap();
    assert_eq!(m["code"], "protocol_version", "{m}");
    let text = m["message"].as_str().unwrap();
    assert!(
        text.contains(&format!("speaks attach protocol {PROTOCOL_VERSION}"))
            && text.contains("client speaks 1"),
        "{text}"
    );
    assert!(c.recv().await.is_none(), "the connection stays open");

    let (mut c, _) = open(&ch);
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "credential": TOKEN, "pid": 1}))
        .await;
    let m = c.recv().await.unwrap();
    assert_eq!(m["code"], "unauthorized", "{m}");
    assert!(c.recv().await.is_none());
    ch.stop().await;
    sim.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sync_carries_no_secret_and_commands_reach_the_core() {
    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "credential": credential, "pid": 1}))
        .await;
    let welcome = c.recv().await.unwrap();
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
    use spock_tui::transport::control::proto::ViewWire;
    let tmp = tempfile::tempdir().unwrap();
    let (core, ch, sim) = channel(tmp.path()).await;
    let (mut c, credential) = open(&ch);
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "credential": credential, "pid": 1}))
        .await;
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
    c.send(json!({"type": "hello", "protocol_version": PROTOCOL_VERSION, "credential": credential, "pid": 1}))
        .await;
    let welcome = c.until("welcome").await;
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
