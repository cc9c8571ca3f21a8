//! An agent's `spock_navigate` against the person's keys. An agent may show the person a
//! screen, but never under their fingers: while a text input, a question or any overlay is
//! open, or while the person has typed in the last [`TYPING_QUIET`], the request is not
//! carried out but offered in the footer (one key, [`Action::FollowNav`], follows it), and the
//! agent is told so. After any screen change an agent chose (a request carried out, or an offer
//! followed) keys and clicks are ignored for the confirmation's arming time, so letters typed
//! for the old screen do nothing on the new one. `spock_get_status` tells an agent which screen
//! the person is on; this is what keeps that from being a timing aid.
use std::time::Duration;

use tokio::time::Instant;

use super::action::Action;
use super::keymap::Scope;
use super::screen::ScreenId;
use super::state::{Layer, State};
use super::update::Effect;
use crate::mcp::uilink::NavRequest;

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

impl State {
    /// The offer still standing at `self.now`, if any.
    pub fn nav_offer(&self) -> Option<&Offer> {
        self.nav.offer.as_ref().filter(|o| self.now < o.until)
    }

    /// Why an agent may not switch the screen now, if it may not.
    fn nav_busy(&self) -> Option<&'static str> {
        if !matches!(self.layer(), Layer::Screen(_)) {
            return Some("a text input, question or overlay is open on the person's screen");
        }
        match self.nav.last_key {
            Some(k) if self.now.saturating_duration_since(k) < self.nav.quiet => {
                Some("the person is typing")
            }
            _ => None,
        }
    }

    /// An agent's `spock_navigate`: carried out when the person is not busy, else offered.
    pub(super) fn navigate(&mut self, req: NavRequest) -> Effect {
        let Some(screen) = ScreenId::from_name(&req.screen.to_ascii_lowercase()) else {
            let reason = format!("unknown screen {:?}", req.screen);
            return Effect::NavReply(req, Err(reason));
        };
        if let Some(why) = self.nav_busy() {
            let same = self
                .nav_offer()
                .filter(|o| o.screen == screen && o.select == req.select)
                .map(|o| o.since);
            self.nav.offer = Some(Offer {
                screen,
                select: req.select.clone(),
                until: self.now + OFFER_TTL,
                since: same.unwrap_or(self.now),
            });
            let key = self.follow_key();
            self.notify(format!(
                "an agent asks to show {}: {key} shows it",
                screen.title()
            ));
            let reason =
                format!("not switched: {why}; offered to them in the footer ({key} follows it)");
            return Effect::NavReply(req, Err(reason));
        }
        let result = match req.select.as_deref() {
            None => Ok(()),
            Some(what) => screen.select(self, what),
        };
        if result.is_ok() {
            self.agent_go(screen);
            self.notify(format!(
                "an agent switched to {}; keys wait a moment",
                screen.title()
            ));
        }
        Effect::NavReply(req, result)
    }

    /// The person's key (read at `at`) for the offer in the footer.
    pub(super) fn follow_offer(&mut self, at: Instant) {
        let Some(o) = self.nav_offer().cloned() else {
            self.nav.offer = None;
            self.notify("no agent asked to show a screen");
            return;
        };
        if at < o.since + self.gate.arming {
            self.notify(format!(
                "the offer just changed to {}: read it, then press the key again",
                o.screen.title()
            ));
            return;
        }
        self.nav.offer = None;
        if let Some(what) = o.select.as_deref()
            && let Err(e) = o.screen.select(self, what)
        {
            self.notify(format!(
                "showing {} without the selection: {e}",
                o.screen.title()
            ));
        }
        self.agent_go(o.screen);
    }

    /// A screen change an agent chose: the keys after it wait out the arming time.
    fn agent_go(&mut self, screen: ScreenId) {
        self.go(screen);
        self.nav.offer = None;
        self.nav.armed_until = Some(self.now + SWITCH_PAUSE.max(self.gate.arming));
    }

    fn follow_key(&self) -> String {
        self.keymap
            .first_key(Scope::Global, Action::FollowNav)
            .unwrap_or_else(|| "(unbound)".into())
    }
}
