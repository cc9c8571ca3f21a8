//! The one event enum the loop waits on: terminal input, server events, confirmation and
//! navigation requests, server lifecycle reports, device lists, batch snapshots and replies,
//! and the slow tick. Also the
//! plain-data snapshots of the core the state is refreshed from, so `update()` never locks.

use crossterm::event::{KeyEvent, MouseEvent};

use crate::mcp::ServerEvent;
use crate::mcp::confirm::ConfirmRequest;
use crate::mcp::uilink::NavRequest;
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
    Sync(CoreView),
    Confirm(ConfirmRequest),
    Navigate(NavRequest),
    ServerStatus(ServerStatus),
    /// The server's History preload again, after the attach link reconnected.
    History(super::history::Preloaded),
    Devices(Vec<DeviceRow>),
    /// Tasks, runs, the runner's position and the recording, read from `core.batch`.
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
