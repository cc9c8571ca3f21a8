//! The one event enum the loop waits on: terminal input, server events, confirmation and
//! navigation requests, server lifecycle reports, device lists, batch snapshots and replies,
//! and the slow tick. Also the
//! plain-data snapshots of the core the state is refreshed from, so `update()` never locks.

use crossterm::event::{KeyEvent, MouseEvent};

use crate::mcp::ServerEvent;
use crate::mcp::confirm::Ask;
use crate::mcp::navigation::NavRequest;
use crate::protocol::{BatchData, BatchReply, CoreView, ServerStatus};

#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    /// A key with the time the input thread read it: a key read before the frame that first
    /// showed a confirmation cannot answer it. (`Key` counts as read when it is handled.)
    KeyAt(KeyEvent, tokio::time::Instant),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// The terminal answered a fence, read at this time: every frame written before that
    /// fence is on the person's screen, and every key read before it was typed before.
    Fence(tokio::time::Instant),
    Server(ServerEvent),
    /// The event channel overflowed and this many events were lost.
    Lagged(u64),
    Sync(Box<CoreView>),
    /// A destructive call waits for this person (plain data: the answer goes out as
    /// `Effect::Decide`, never through the state).
    Confirm(Pending),
    /// A waiting request went away: decided in another terminal, or withdrawn.
    ConfirmGone {
        id: u64,
        gone: AskEnded,
    },
    /// The calling client answered a waiting request (a claim, shown as one).
    ClientSaid {
        id: u64,
        approved: bool,
        by: String,
    },
    Navigate(NavRequest),
    ServerStatus(ServerStatus),
    /// The server's History preload again, after the attach link reconnected.
    History(super::history::Preloaded),
    /// The devices, and each adb server that is down with why (shown when none is listed).
    Devices(Vec<DeviceRow>, Vec<String>),
    /// Tasks, runs, the runner's position and the recording, read from `core.batch()`.
    Batch(BatchData),
    /// How a batch command the person gave went.
    BatchReply(BatchReply),
    /// A line for the footer (an effect's result: copied, saved, an error).
    Notice(String),
    Tick,
    /// Ctrl-C from a signal, SIGTERM, SIGHUP.
    Quit,
}

/// A device as the device layer reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRow {
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, …
    pub state: String,
    pub model: Option<String>,
    pub selected: bool,
}

/// A destructive call waiting for this person, as plain data: what the modal shows and what
/// decides when a key may answer it. The state never holds the request's answer slot: a
/// decision leaves `update` as [`super::effect::Effect::Decide`], and the loop (the attach link)
/// carries it to the server.
#[derive(Debug, Clone)]
pub struct Pending {
    pub id: u64,
    pub ask: Ask,
    pub deadline: tokio::time::Instant,
    pub timeout: std::time::Duration,
    /// What the calling client answered while this waits: a claim, shown as one.
    pub client_says: Option<(bool, String)>,
    /// Set when the request went away.
    pub gone: Option<AskEnded>,
}

/// How a waiting request went away: decided in another terminal (how, by whom), or withdrawn
/// by the server (why, when it said).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskEnded {
    pub decided: Option<(bool, String)>,
    pub why: Option<String>,
}
