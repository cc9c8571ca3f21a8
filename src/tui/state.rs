//! The control centre's state: plain data, owned by the loop, changed only by `update()`
//! (in `update.rs`) and read by the pure draw functions in `ui`. `layer()` is the one place
//! that says who has the keyboard.
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use chrono::{DateTime, FixedOffset, Offset as _, Utc};
use tokio::time::Instant;

use super::batch::BatchView;
use super::event::DeviceRow;
use super::history::{History, HistorySource, SessionOnly};
use super::input::LineInput;
use super::keymap::Keymap;
use super::nav::guard::NavGuard;
use super::prompt::Prompt;
use super::tab::ScreenId;
use crate::mcp::registry::{Level, Registry};
use crate::protocol::{CoreView, ServerStatus, SettingField};

pub use super::catalogue::{Param, ToolInfo, catalogue};

/// Who has the keyboard, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Confirm,
    /// A small yes/no question of our own (delete a task? enable the host groups too?).
    Prompt,
    Help,
    /// The message log: every recent footer message, in full.
    Messages,
    Input,
    /// The batch task editor.
    Editor,
    Picker,
    Details,
    Screen(ScreenId),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ToolStat {
    pub calls: u64,
    pub running: u32,
}

/// Which confirmation button has focus. Deny is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Button {
    #[default]
    Deny,
    Approve,
}

/// How long approval keys are ignored after a confirmation first appears on screen.
pub const CONFIRM_ARMING: Duration = Duration::from_millis(600);
/// How long a withdrawn (or timed-out) request stays on screen, saying so, before the next.
pub const WITHDRAWN_HOLD: Duration = Duration::from_millis(1500);
/// How often the loop redraws while a short countdown (arming, withdrawal) is on screen.
pub const FAST_TICK: Duration = Duration::from_millis(100);

/// What binds a key to the request the person saw: when a frame first showed the request in
/// front, whether its arguments have been scrolled to the end, and the notice left by a
/// request that went away under the person's finger. The durations are settable for tests.
#[derive(Debug, Clone)]
pub struct ConfirmGate {
    /// Approval keys read before `shown + arming` are ignored.
    pub arming: Duration,
    /// How long [`Withdrawn`] holds the keyboard.
    pub hold: Duration,
    /// The request in front (by id) and the time the first frame showing it was drawn.
    pub shown: Option<(u64, Instant)>,
    /// Which of the front request's rows (wrapped at `seen_width`) a frame has drawn. Approval
    /// waits until every row has been on screen: jumping to the end skips the rows between.
    pub seen: Vec<bool>,
    pub seen_width: u16,
    pub withdrawn: Option<Withdrawn>,
    /// With a terminal (not in the state's own tests): `shown` is when the terminal answered
    /// the fence written after the first frame showing the request, not when that frame was
    /// written; over a slow link the two are a round trip apart.
    pub fence: Option<Fence>,
}

/// Fences written after frames and answers read back (`ESC [ 5 n`, `ESC [ 0 n`). A terminal
/// answers in order, so the n-th answer belongs to the n-th fence.
#[derive(Debug, Clone, Default)]
pub struct Fence {
    pub sent: u64,
    pub answered: u64,
    /// The request a fence was written for, the fence's number and when it was written.
    pub waiting: Option<(u64, u64, Instant)>,
    /// The terminal has answered a fence (`Some(true)`), or has left one unanswered for
    /// [`FENCE_GIVE_UP`] without ever answering (`Some(false)`: requests arm from the frame).
    pub answers: Option<bool>,
    /// The loop writes a fence after this frame (the request in front is new on screen).
    pub wanted: Option<u64>,
}

/// A terminal that has never answered a fence and leaves one this long unanswered does not
/// answer status queries: from then on requests arm from when their frame is written.
pub const FENCE_GIVE_UP: Duration = Duration::from_secs(10);

impl Default for ConfirmGate {
    fn default() -> Self {
        ConfirmGate {
            arming: CONFIRM_ARMING,
            hold: WITHDRAWN_HOLD,
            shown: None,
            seen: Vec::new(),
            seen_width: 0,
            withdrawn: None,
            fence: None,
        }
    }
}

/// The request on screen went away by itself (its client withdrew it, or it timed out): the
/// modal says so until `until`, and keys do nothing to any call meanwhile.
#[derive(Debug, Clone)]
pub struct Withdrawn {
    pub tool: String,
    pub client: String,
    pub timed_out: bool,
    /// Another terminal answered it: approved or not, and which terminal.
    pub decided: Option<(bool, String)>,
    /// Why the server withdrew it (the device was leased by another client meanwhile).
    pub why: Option<String>,
    pub until: Instant,
}

impl Withdrawn {
    /// What became of the request, in a few words ("approved by attach pid 7").
    pub fn outcome(&self) -> String {
        match &self.decided {
            Some((approved, by)) => format!(
                "{} by {}",
                if *approved { "approved" } else { "denied" },
                super::escape::full(by)
            ),
            None if self.timed_out => "timed out: denied automatically".into(),
            None => match &self.why {
                Some(why) => format!("withdrawn by the server: {}", super::escape::full(why)),
                None => "withdrawn by the client".into(),
            },
        }
    }
}

/// Why an approval key is ignored right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// No frame has shown this request yet (or the key was read before it was drawn).
    NotShown,
    /// Armed in this much time.
    Arming(Duration),
    /// This many rows of the request have not been on screen yet.
    Scroll(u16),
    /// The terminal is too small to show the request.
    TooSmall,
    /// A withdrawn request is on screen.
    Withdrawn,
}

/// What a text input is editing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    ToolSearch,
    HistorySearch,
    Setting(SettingField),
    /// The name of a recording about to start.
    RecordingName,
    /// The name of a task made from the calls marked in History.
    TaskName,
    /// The apps a device's Interact is limited to ([`State::editing_apps`] says which device).
    DeviceApps,
    /// Settings' filter: the devices and tools whose name holds it.
    SettingsFilter,
}

/// History's multi-select filters; an empty set means "all".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub tools: BTreeSet<String>,
    pub outcomes: BTreeSet<String>,
    pub devices: BTreeSet<String>,
    pub clients: BTreeSet<String>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.outcomes.is_empty()
            && self.devices.is_empty()
            && self.clients.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    Tool,
    Outcome,
    Device,
    Client,
}

impl FilterKind {
    pub fn label(self) -> &'static str {
        match self {
            FilterKind::Tool => "tool",
            FilterKind::Outcome => "outcome",
            FilterKind::Device => "device",
            FilterKind::Client => "client",
        }
    }
}

/// The filter picker: every value seen, grouped by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picker {
    pub options: Vec<(FilterKind, String)>,
    pub cursor: usize,
}

#[derive(Debug, Clone, Default)]
pub struct StatusView {
    /// Index into `clientconfig::Client::ALL`.
    pub client: usize,
    pub http: bool,
    /// The lease `x` would break, in `core.leases`.
    pub lease: usize,
    /// Rows of the client configuration scrolled past.
    pub scroll: u16,
}

#[derive(Debug, Clone, Default)]
pub struct ToolsView {
    pub query: String,
    pub destructive_only: bool,
    pub cursor: usize,
}

/// A newest-first list whose selection follows the newest row until the person moves.
#[derive(Debug, Clone, Default)]
pub struct CallsView {
    pub selected: Option<u64>,
}

#[derive(Debug, Clone, Default)]
pub struct HistoryView {
    pub query: String,
    pub filters: Filters,
    pub selected: Option<u64>,
    /// Seqs matching the search and filters, newest first; `None` when nothing narrows.
    pub matches: Option<Vec<u64>>,
    /// Calls marked for a batch task, by seq (so oldest first when iterated).
    pub marked: BTreeSet<u64>,
}

/// How long a footer message stays; every message stays readable in the message log.
pub const NOTICE_TTL: Duration = Duration::from_secs(8);

/// Messages the log keeps, oldest dropped first.
pub const NOTICE_LOG: usize = 100;

/// A footer message, as the message log keeps it.
#[derive(Debug, Clone)]
pub struct Notice {
    /// Its place among every notice given (the footer's floor compares these).
    pub serial: u64,
    pub text: String,
    pub at: Instant,
    pub wall: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub struct Details {
    pub seq: u64,
    pub scroll: u16,
}

pub struct State {
    pub screen: ScreenId,
    /// The live keymap: key handling, help and the footer read it.
    pub keymap: Keymap,
    pub size: (u16, u16),
    pub now: Instant,
    pub wall: DateTime<Utc>,
    /// Times are shown in the local zone, fixed at start so drawing reads no clock.
    pub tz: FixedOffset,
    pub demo: bool,
    /// How the server records this terminal's decisions (its welcome's `you`: the serving
    /// process's own control centre, or an attached one with its verified uid, pid and
    /// executable and its terminal); the modal says it.
    pub you: String,
    /// An attached control centre (`spock-tui attach`): `q` detaches and the server keeps
    /// serving, so quitting asks nothing.
    pub attached: bool,
    /// `NO_COLOR` is set: draw with modifiers only.
    pub no_color: bool,
    pub server: ServerStatus,
    pub core: CoreView,
    /// `None` until a device layer reports; shown as such, not as "no devices".
    pub devices: Option<Vec<DeviceRow>>,
    /// Each adb server that is down, with why and what to do (Status, when no device is listed).
    pub device_problems: Vec<String>,
    pub tools: Vec<ToolInfo>,
    /// The catalogue, so the batch editor can check a task without asking the loop.
    pub registry: Registry,
    pub stats: BTreeMap<String, ToolStat>,
    pub history: History,
    pub confirms: VecDeque<super::event::Pending>,
    pub focus: Button,
    pub confirm_scroll: u16,
    pub gate: ConfirmGate,
    /// What keeps an agent's navigation from taking the person's keys (`nav`).
    pub nav: NavGuard,
    pub help: bool,
    pub help_scroll: u16,
    pub input: Option<(InputTarget, LineInput)>,
    /// The device whose apps list the input edits: its key in the device tree and its name.
    pub editing_apps: Option<(String, String)>,
    /// Settings: the devices shown opened (by their key in the device tree), and the filter.
    pub settings_expanded: std::collections::BTreeSet<String>,
    pub settings_filter: String,
    pub picker: Option<Picker>,
    pub prompt: Option<Prompt>,
    pub status: StatusView,
    pub tools_view: ToolsView,
    pub activity: CallsView,
    pub history_view: HistoryView,
    pub settings_cursor: usize,
    pub batch: BatchView,
    pub details: Option<Details>,
    /// Footer messages, oldest first; the newest shows in the footer for `notice_ttl`.
    pub notices: VecDeque<Notice>,
    pub notice_ttl: Duration,
    /// The footer shows no message older than this: a new request in front starts a clean
    /// footer (its keys, not the last call's result).
    pub notice_floor: u64,
    /// How many notices have been given.
    pub notices_given: u64,
    /// The message log overlay is open, scrolled this far.
    pub messages: Option<u16>,
    pub lost_events: u64,
    pub quit: bool,
    /// `quit` came from `q` without asking, because the view showed no client: the serving
    /// process's loop asks its core once more before it quits ([`State::quit_unless`]).
    pub quit_unasked: bool,
}

impl State {
    pub fn new(registry: &Registry, core: CoreView) -> State {
        State::with_source(registry, core, &SessionOnly)
    }

    pub fn with_source(registry: &Registry, core: CoreView, source: &dyn HistorySource) -> State {
        let history = History::from_source(core.history_size.max(1), source);
        let mut stats: BTreeMap<String, ToolStat> = BTreeMap::new();
        for r in history.newest_first() {
            stats.entry(r.tool.clone()).or_default().calls += 1;
        }
        let mut s = State {
            screen: ScreenId::STATUS,
            keymap: Keymap::default(),
            size: (80, 24),
            now: Instant::now(),
            wall: Utc::now(),
            tz: Utc.fix(),
            demo: false,
            you: String::new(),
            attached: false,
            no_color: false,
            server: ServerStatus::Stopped,
            core,
            devices: None,
            device_problems: Vec::new(),
            tools: catalogue(registry),
            registry: registry.clone(),
            stats,
            history,
            confirms: VecDeque::new(),
            focus: Button::Deny,
            confirm_scroll: 0,
            gate: ConfirmGate::default(),
            nav: NavGuard::default(),
            help: false,
            help_scroll: 0,
            input: None,
            editing_apps: None,
            settings_expanded: Default::default(),
            settings_filter: String::new(),
            picker: None,
            prompt: None,
            status: StatusView::default(),
            tools_view: ToolsView::default(),
            activity: CallsView::default(),
            history_view: HistoryView::default(),
            settings_cursor: 0,
            batch: BatchView::default(),
            details: None,
            notices: VecDeque::new(),
            notice_ttl: NOTICE_TTL,
            notice_floor: 0,
            notices_given: 0,
            messages: None,
            lost_events: 0,
            quit: false,
            quit_unasked: false,
        };
        s.settings_cursor = s.first_selectable_setting();
        s
    }

    /// Who has the keyboard: confirmation > our own yes/no prompt > help > message log >
    /// text input > editor > picker > details > screen.
    pub fn layer(&self) -> Layer {
        if !self.confirms.is_empty() || self.gate.withdrawn.is_some() {
            Layer::Confirm
        } else if self.prompt.is_some() {
            Layer::Prompt
        } else if self.help {
            Layer::Help
        } else if self.messages.is_some() {
            Layer::Messages
        } else if self.input.is_some() {
            Layer::Input
        } else if self.batch.editor.is_some() {
            Layer::Editor
        } else if self.picker.is_some() {
            Layer::Picker
        } else if self.details.is_some() {
            Layer::Details
        } else {
            Layer::Screen(self.screen)
        }
    }

    /// A countdown, a running call or a footer message or offer that will expire is on
    /// screen: the loop ticks once a second, else never.
    pub fn needs_tick(&self) -> bool {
        !self.confirms.is_empty()
            || self.gate.withdrawn.is_some()
            || self.history.running() > 0
            || !self.core.leases.is_empty()
            || self.notice().is_some()
            || self.nav_offer().is_some()
    }

    /// How long the loop may wait for an event before redrawing: often while a sub-second
    /// countdown is on screen (arming, a withdrawn request), once a second while
    /// [`needs_tick`](Self::needs_tick), else never.
    pub fn tick_every(&self) -> Option<Duration> {
        let arming = self
            .confirms
            .front()
            .is_some_and(|r| match self.gate.shown {
                Some((id, at)) if id == r.id => self.now < at + self.gate.arming,
                _ => true,
            });
        if self.gate.withdrawn.is_some() || arming {
            Some(FAST_TICK)
        } else if self.needs_tick() {
            Some(Duration::from_secs(1))
        } else {
            None
        }
    }

    /// Put a message in the footer (until it expires) and in the message log.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.notices_given += 1;
        self.notices.push_back(Notice {
            serial: self.notices_given,
            text: text.into(),
            at: self.now,
            wall: self.wall,
        });
        while self.notices.len() > NOTICE_LOG {
            self.notices.pop_front();
        }
    }

    /// The footer's message: the newest, until it is `notice_ttl` old.
    pub fn notice(&self) -> Option<&str> {
        self.notices
            .back()
            .filter(|n| self.now.saturating_duration_since(n.at) < self.notice_ttl)
            .filter(|n| n.serial >= self.notice_floor)
            .map(|n| n.text.as_str())
    }

    pub fn tool(&self, name: &str) -> Option<&ToolInfo> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn enabled(&self, name: &str) -> bool {
        self.core.enabled.contains(name)
    }

    pub fn stat(&self, name: &str) -> ToolStat {
        self.stats.get(name).copied().unwrap_or_default()
    }

    /// The Tools list after search and the destructive-only filter, in display order.
    pub fn visible_tools(&self) -> Vec<&ToolInfo> {
        let q = self.tools_view.query.to_lowercase();
        self.tools
            .iter()
            .filter(|t| !self.tools_view.destructive_only || t.level == Level::Destructive)
            .filter(|t| {
                q.is_empty()
                    || t.name.to_lowercase().contains(&q)
                    || t.title.to_lowercase().contains(&q)
                    || t.description.to_lowercase().contains(&q)
            })
            .collect()
    }

    pub fn selected_tool(&self) -> Option<&ToolInfo> {
        let v = self.visible_tools();
        v.get(self.tools_view.cursor.min(v.len().saturating_sub(1)))
            .copied()
    }

    /// Seqs shown in History, newest first, and how many there are.
    pub fn history_len(&self) -> usize {
        match &self.history_view.matches {
            Some(m) => m.len(),
            None => self.history.len(),
        }
    }

    pub fn history_seq_at(&self, pos: usize) -> Option<u64> {
        match &self.history_view.matches {
            Some(m) => m.get(pos).copied(),
            None => self.history.newest_seq()?.checked_sub(pos as u64),
        }
        .filter(|s| self.history.get(*s).is_some())
    }

    pub fn history_pos_of(&self, seq: u64) -> Option<usize> {
        match &self.history_view.matches {
            Some(m) => m.binary_search_by(|x| seq.cmp(x)).ok(),
            None => self
                .history
                .newest_seq()
                .and_then(|n| n.checked_sub(seq))
                .map(|p| p as usize)
                .filter(|p| *p < self.history.len()),
        }
    }

    pub fn activity_seq_at(&self, pos: usize) -> Option<u64> {
        self.history.live_newest_first().nth(pos).map(|r| r.seq)
    }

    pub fn activity_pos_of(&self, seq: u64) -> Option<usize> {
        let newest = self.history.newest_seq()?;
        let pos = newest.checked_sub(seq)? as usize;
        (pos < self.history.live_len()).then_some(pos)
    }

    /// Position of the selection in Activity (0 when it follows the newest call).
    pub fn activity_cursor(&self) -> usize {
        self.activity
            .selected
            .and_then(|s| self.activity_pos_of(s))
            .unwrap_or(0)
    }

    pub fn history_cursor(&self) -> usize {
        self.history_view
            .selected
            .and_then(|s| self.history_pos_of(s))
            .unwrap_or(0)
    }
}

/// The first row of a page of `height` rows that shows `cursor`: scrolling by whole pages
/// keeps the offset a pure function of the cursor, so a mouse click maps back to a row.
pub fn page_offset(cursor: usize, height: usize) -> usize {
    cursor.checked_div(height).map_or(0, |page| page * height)
}
