//! What stands between an agent's navigation and the person's keys, as plain data the state
//! holds: when the person last typed, the pause after an agent's switch, the offer in the
//! footer. How a request is met is `nav.rs`.
use std::time::Duration;

use tokio::time::Instant;

use crate::tui::tab::ScreenId;

/// Keys this recent mean the person is typing: an agent's navigation waits as an offer.
pub const TYPING_QUIET: Duration = Duration::from_secs(3);
/// How long an offer stays in the footer.
pub const OFFER_TTL: Duration = Duration::from_secs(30);
/// After an agent changed the screen, keys count again only once the person has pressed none
/// for this long: a burst typed for the old screen (however it is timed against the switch)
/// is eaten whole, up to its Enter, and the person looks up before anything acts.
pub const SWITCH_PAUSE: Duration = Duration::from_millis(1500);

/// What stands between an agent's navigation and the person's keys. Plain data.
#[derive(Debug, Clone)]
pub struct NavGuard {
    /// When the person last pressed a key (as the input thread read it).
    pub last_key: Option<Instant>,
    /// Keys and clicks read before this are ignored: an agent chose the screen just now (each
    /// key held back pushes it on by [`SWITCH_PAUSE`]).
    pub armed_until: Option<Instant>,
    /// The newest navigation not carried out, offered in the footer.
    pub offer: Option<Offer>,
    pub quiet: Duration,
}

impl Default for NavGuard {
    fn default() -> Self {
        NavGuard {
            last_key: None,
            armed_until: None,
            offer: None,
            quiet: TYPING_QUIET,
        }
    }
}

/// A screen an agent asked for while the person was busy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub screen: ScreenId,
    pub select: Option<String>,
    pub until: Instant,
    /// When this offer (screen and selection) was put in the footer: the follow key counts
    /// only once it has been there for the arming time, so an offer swapped under the
    /// person's finger is not followed.
    pub since: Instant,
}

impl NavGuard {
    /// Whether a key or click read at `at` lands in the pause after an agent's switch; one
    /// that does extends the pause, so only a key after the person stopped typing counts.
    pub fn holds(&mut self, at: Instant) -> bool {
        let held = self.armed_until.is_some_and(|until| at < until);
        if held {
            self.armed_until = Some(at + SWITCH_PAUSE);
        }
        held
    }
}
