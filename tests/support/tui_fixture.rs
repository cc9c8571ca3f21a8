//! Shared by the control-centre tests (`crate::support::tui_fixture`): a small, stable tool registry,
//! a core view, a state with fixed clocks, event builders, and rendering to a `TestBackend`.
#![allow(dead_code)]
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use spock_tui::mcp::ServerEvent;
use spock_tui::mcp::confirm::{Ask, ConfirmRequest, Confirmer};
use spock_tui::mcp::core::{ClientSeen, Endpoints};
use spock_tui::mcp::events::{ClientId, Decision, Outcome, Transport};
use spock_tui::mcp::registry::{Level, Meta, Registry};
use spock_tui::mcp::result::ToolError;
use spock_tui::mcp::server::Ctx;
use spock_tui::mcp::toolsets::Toolset;
use spock_tui::protocol::{CoreView, ServerStatus};
use spock_tui::tui::event::{AskEnded, Event, Pending};
use spock_tui::tui::state::State;
use spock_tui::tui::update::Effect;

#[derive(Deserialize, JsonSchema)]
pub struct Uninstall {
    /// Package to remove, e.g. com.example.app.
    pub package_name: String,
    /// Device serial; default the selected device.
    pub serial: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct Tap {
    pub x: u32,
    pub y: u32,
    pub serial: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct Shot {
    pub serial: Option<String>,
}

/// Four tools in three levels, declared the way the real catalogue declares them, so these
/// tests do not change every time a tool family lands.
pub fn registry() -> Registry {
    let mut tools = vec![
        Meta {
            name: "android_uninstall_app",
            title: "Uninstall app",
            level: Level::Destructive,
            toolset: Toolset::Apps,
            description: "Uninstalls an app and its data from the device. Asks a person first.",
        }
        .def(|_c: Ctx, _a: Uninstall| async { Ok::<_, ToolError>(json!({})) }),
        Meta {
            name: "android_tap",
            title: "Tap",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Taps a point on the screen, in pixels.",
        }
        .def(|_c: Ctx, _a: Tap| async { Ok::<_, ToolError>(json!({})) }),
        Meta {
            name: "android_take_screenshot",
            title: "Take screenshot",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "Captures the screen as PNG.",
        }
        .def(|_c: Ctx, _a: Shot| async { Ok::<_, ToolError>(json!({})) }),
    ];
    tools.extend(
        spock_tui::mcp::tools::catalogue()
            .all()
            .iter()
            .filter(|t| t.name == "spock_update_settings")
            .cloned(),
    );
    Registry::new(tools)
}

pub fn view() -> CoreView {
    CoreView {
        endpoints: Endpoints {
            http: Some("http://127.0.0.1:8765/mcp".into()),
            sse: Some("http://127.0.0.1:8765/sse".into()),
            stdio: Some("unix:/run/user/1000/spock-tui/mcp.sock".into()),
            http_note: None,
        },
        clients: Vec::new(),
        enabled: [
            "android_uninstall_app",
            "android_tap",
            "android_take_screenshot",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        access: Default::default(),
        allow_all: false,
        history_size: 10_000,
        audit_warning: None,
        trail: Default::default(),
        confirm_timeout_secs: 60,
        confirm_via_client: false,
        port: 8765,
        bind: "127.0.0.1".into(),
        responder: true,
        config_file: "/home/dev/.config/spock-tui/config.toml".into(), // self-contained: not read
        exe: "/usr/local/bin/spock-tui".into(),
        descriptor: "/run/user/1000/spock-tui/endpoint.json".into(),
        token: "tok-for-tests".into(),
        leases: Vec::new(),
        connected: Vec::new(),
        seen_devices: Vec::new(),
        apps_seen: Default::default(),
        own_tools: Vec::new(),
    }
}

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 9, 26, 53)
        .single()
        .unwrap()
}

/// The control centre's state with what the loop does around it for confirmations, as the
/// attach link does in the product: it holds the core's requests (the state holds plain data),
/// tells the state what became of them before each event (decided elsewhere, withdrawn, timed
/// out, the client's claim), and carries the state's decisions (`Effect::Decide`) to them.
pub struct Console {
    pub state: State,
    held: std::collections::HashMap<u64, ConfirmRequest>,
    /// The client's claim last told to the state, by request.
    told: std::collections::HashMap<u64, (bool, String)>,
}

impl std::ops::Deref for Console {
    type Target = State;
    fn deref(&self) -> &State {
        &self.state
    }
}

impl std::ops::DerefMut for Console {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.state
    }
}

impl Console {
    pub fn new(state: State) -> Console {
        Console {
            state,
            held: Default::default(),
            told: Default::default(),
        }
    }

    /// A request from the core reaches this control centre.
    pub fn confirm(&mut self, req: ConfirmRequest) -> Vec<Effect> {
        let p = Pending {
            id: req.id,
            ask: req.ask.clone(),
            deadline: req.deadline,
            timeout: req.timeout,
            client_says: None,
            gone: None,
        };
        self.held.insert(req.id, req);
        self.update(Event::Confirm(p))
    }

    pub fn update(&mut self, ev: Event) -> Vec<Effect> {
        self.sync();
        let fx = self.state.update(ev);
        for e in &fx {
            if let Effect::Decide { call_id, approve } = e
                && let Some(r) = self.held.remove(call_id)
            {
                r.answer(*approve);
            }
        }
        fx
    }

    /// What became of the held requests, told to the state as the link tells it.
    fn sync(&mut self) {
        let ids: Vec<u64> = self.held.keys().copied().collect();
        for id in ids {
            let r = &self.held[&id];
            if let Some(said) = r.client_says()
                && self.told.get(&id) != Some(&said)
            {
                self.told.insert(id, said.clone());
                self.state.update(Event::ClientSaid {
                    id,
                    approved: said.0,
                    by: said.1,
                });
            }
            let r = &self.held[&id];
            if r.is_abandoned() {
                let gone = AskEnded {
                    decided: r.decided_elsewhere(),
                    why: r.withdrawn_why(),
                };
                self.held.remove(&id);
                self.state.update(Event::ConfirmGone { id, gone });
            }
        }
    }
}

/// [`state`] with the confirmation loop around it.
pub fn console() -> Console {
    Console::new(state())
}

pub fn state() -> State {
    let mut s = State::new(&registry(), view());
    s.server = ServerStatus::Running;
    s.wall = t0() + chrono::Duration::seconds(30);
    s.tz = Utc.fix();
    s.size = (80, 24);
    s
}

use chrono::Offset as _;

pub fn client(name: &str) -> Option<ClientId> {
    Some(ClientId {
        name: name.into(),
        version: "1.0.3".into(),
    })
}

pub fn started(
    id: u64,
    secs: i64,
    tool: &str,
    level: Level,
    device: Option<&str>,
    args: Value,
) -> Event {
    Event::Server(ServerEvent::CallStarted {
        call_id: id,
        at: t0() + chrono::Duration::seconds(secs),
        tool: tool.into(),
        level,
        transport: Transport::Stdio,
        client: client("claude-code"),
        device: device.map(str::to_string),
        arguments: args,
        person: false,
    })
}

pub fn finished(
    id: u64,
    tool: &str,
    outcome: Outcome,
    ms: u64,
    decision: Option<Decision>,
    result: Value,
) -> Event {
    Event::Server(ServerEvent::CallFinished {
        call_id: id,
        tool: tool.into(),
        outcome,
        duration: Duration::from_millis(ms),
        decision,
        device: None,
        result,
        images: Vec::new(),
        record: id,
    })
}

pub fn seen(name: &str, transport: Transport) -> ClientSeen {
    ClientSeen {
        name: name.into(),
        version: "2.1.0".into(),
        transport,
        protocol: "2025-11-25".into(),
        first_seen: t0(),
        last_seen: t0(),
        calls: 4,
        toolsets: "core".into(),
    }
}

pub fn ask(tool: &'static str, args: Value, reason: Option<&str>) -> Ask {
    Ask {
        call_id: 41,
        tool,
        title: if tool == "android_uninstall_app" {
            "Uninstall app"
        } else {
            "Run an adb command"
        },
        level: Level::Destructive,
        client: client("claude-code"),
        transport: Transport::Stdio,
        via: None,
        verified: spock_core::model::Verified::client(
            Transport::Stdio,
            Some("stdio#1".into()),
            spock_core::model::Peer {
                pid: Some(4242),
                uid: Some(1000),
                parent_pid: Some(4200),
                parent_name: Some("/usr/bin/node".into()),
                addr: None,
            },
        ),
        device: Some("emulator-5554".into()),
        device_model: None,
        arguments: args,
        reason: reason.map(str::to_string),
    }
}

/// The control centre's side of a `Confirmer`: asks in a task, hands back the request.
pub struct Asker {
    pub confirmer: std::sync::Arc<Confirmer>,
    rx: tokio::sync::mpsc::Receiver<ConfirmRequest>,
}

impl Asker {
    pub fn new(timeout: Duration) -> Asker {
        let confirmer = std::sync::Arc::new(Confirmer::new(timeout));
        let rx = confirmer.attach();
        Asker { confirmer, rx }
    }

    pub async fn ask(&mut self, a: Ask) -> (ConfirmRequest, tokio::task::JoinHandle<Decision>) {
        let c = self.confirmer.clone();
        let handle = tokio::spawn(async move { c.ask(a).await });
        let req = self.rx.recv().await.expect("a request");
        (req, handle)
    }

    /// An uninstall of `package` asked, with no reason, as an agent's call would be.
    pub async fn uninstall(
        &mut self,
        package: &str,
    ) -> (ConfirmRequest, tokio::task::JoinHandle<Decision>) {
        self.ask(ask(
            "android_uninstall_app",
            json!({ "package_name": package }),
            None,
        ))
        .await
    }
}

/// Draw the whole frame at `w`×`h` (the state learns the size, as on a resize).
pub fn render(s: &mut State, w: u16, h: u16) -> String {
    s.size = (w, h);
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| spock_tui::tui::frame::draw(f, s))
        .unwrap();
    // As the loop does: a confirmation on this frame has now been shown.
    s.frame_drawn(s.now);
    terminal.backend().to_string()
}

/// A person looks at the confirmation in front: a frame shows it and the arming time passes,
/// so its keys count.
pub fn look(s: &mut State) {
    s.frame_drawn(s.now);
    s.now += s.gate.arming;
}

pub fn key(c: char) -> Event {
    Event::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(c),
        crossterm::event::KeyModifiers::NONE,
    ))
}

pub fn code(k: crossterm::event::KeyCode) -> Event {
    Event::Key(crossterm::event::KeyEvent::new(
        k,
        crossterm::event::KeyModifiers::NONE,
    ))
}

/// A rendered screen's rows without the frame: what a person reads, row after row.
pub fn rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| {
            l.trim_matches('"')
                .trim_matches(|c| c == '│' || c == ' ')
                .to_string()
        })
        .collect()
}

/// An agent's `spock_navigate`, answered the way the loop answers it.
pub async fn nav(s: &mut State, screen: &str, select: Option<&str>) -> Result<(), String> {
    let link = std::sync::Arc::new(spock_tui::mcp::navigation::UiLink::default());
    let mut rx = link.attach();
    let l = link.clone();
    let (screen, select) = (screen.to_string(), select.map(str::to_string));
    let asker = tokio::spawn(async move { l.navigate(screen, select).await });
    let req = rx.recv().await.unwrap();
    for fx in s.update(Event::Navigate(req)) {
        if let spock_tui::tui::update::Effect::NavReply(req, r) = fx {
            match r {
                Ok(()) => req.applied(),
                Err(e) => req.refused(e),
            }
        }
    }
    asker.await.unwrap()
}
