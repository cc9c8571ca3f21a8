//! The terminal control centre: watches and steers the MCP server from the keyboard (and the
//! mouse) while both transports run in background tasks.
//!
//! The shape follows STYLE.md: one [`event::Event`] enum merged into one loop (`attach`), which
//! drains everything queued and draws once, only when something changed; the state is plain
//! data (`state`), changed only by `State::update` (`update`, `dispatch`), which returns the
//! [`effect::Effect`]s the loop performs (answering a confirmation is one: the state never
//! holds a channel); drawing is a pure function of `&State`, put together in `frame`. Each
//! tab is a [`screen::Screen`] in its own folder under `screen/` (what its actions do, how it
//! draws, its footer hints), named by a plain [`tab::ScreenId`] (the tab order is
//! `ScreenId::ALL`); what screens and layers share to draw with is `ui`. The intents are
//! [`action::Action`]s; the live keymap (`keymap`, every scope's keys, the screens' included)
//! is the key handling, the help overlay and the footer hints at once; `State::layer()` is the
//! one function that decides who has the keyboard; `gate` decides when a key may approve the
//! confirmation on screen; `nav` keeps an agent's `spock_navigate` from taking the person's
//! keys. The Batch screen's data is in `batch`, its server side (reading `core.batch()`,
//! carrying out commands) in the control server's `batch_io`. Untrusted text is escaped
//! (`escape`) before it is drawn; clipboard and notifications are plain escapes (`osc`); raw
//! mode, the alternate screen, the mouse and the input thread are `terminal`. The loop is
//! always a client of the attach channel
//! (`transport::control`): of a server in another process (`spock-tui attach`), or of this
//! process's own over an in-process duplex (`spock-tui`, wired in `app::local`). Nothing here
//! sees the command line: `app` hands the loop what it needs.
pub mod action;
pub mod attach;
pub mod batch;
pub mod catalogue;
pub mod dispatch;
pub mod edit;
pub mod effect;
pub mod escape;
pub mod event;
pub mod frame;
pub mod gate;
pub mod history;
pub mod images;
pub mod input;
pub mod keymap;
pub mod nav;
pub mod osc;
pub mod prompt;
pub mod screen;
pub mod settings;
pub mod state;
pub mod tab;
pub mod terminal;
pub mod ui;
pub mod update;

pub use effect::Effect;
pub use event::{DeviceRow, Event};
pub use history::{CallEntry, HistorySource, SessionOnly};
pub use screen::{Screen, ScreenId};
pub use state::{Layer, State};
