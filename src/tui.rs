//! The terminal control centre: watches and steers the MCP server from the keyboard (and the
//! mouse) while both transports run in background tasks.
//!
//! The shape follows STYLE.md: one [`event::Event`] enum merged into one loop (`attach`), which
//! drains everything queued and draws once, only when something changed; the state is plain
//! data (`state`), changed only by `State::update` (`update`, `dispatch`), which returns the
//! [`update::Effect`]s the loop performs; drawing (`ui`) is a pure function of `&State`. Each
//! tab is a [`screen::Screen`] (its name, keys, drawing, actions, footer hints), registered
//! in one list (`screen::ALL`). The intents are [`action::Action`]s; the live keymap
//! (`keymap`) is the key handling, the help overlay and the footer hints at once;
//! `State::layer()` is the one function that decides who has the keyboard; `nav` keeps an
//! agent's `spock_navigate` from taking the person's keys. The Batch screen's
//! state and keys are in `batch`; its server side (reading `core.batch`, carrying out
//! commands) in `batch_io`. Untrusted text is escaped (`escape`) before it is drawn; clipboard
//! and notifications are plain escapes (`osc`); raw mode, the alternate screen, the mouse and
//! the input thread are `terminal`. The loop is always a client of the attach channel
//! (`transport::control`): of a server in another process (`spock-tui attach`), or of this
//! process's own over an in-process duplex (`spock-tui`, wired in `app::local`). Nothing here
//! sees the command line: `app` hands the loop what it needs.
pub mod action;
pub mod attach;
pub mod batch;
pub mod catalogue;
pub mod dispatch;
pub mod edit;
pub mod escape;
pub mod event;
pub mod history;
pub mod images;
pub mod input;
pub mod keymap;
pub mod leases;
pub mod nav;
pub mod osc;
pub mod prompt;
pub mod screen;
pub mod settings;
pub mod state;
pub mod terminal;
pub mod ui;
pub mod update;

pub use event::{DeviceRow, Event};
pub use history::{CallEntry, HistorySource, SessionOnly};
pub use screen::{Screen, ScreenId};
pub use state::{Layer, State};
pub use update::Effect;
