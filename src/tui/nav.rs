//! An agent's `spock_navigate` against the person's keys. An agent may show the person a
//! screen, but never under their fingers: while a text input, a question or any overlay is
//! open, or while the person has typed in the last [`TYPING_QUIET`], the request is not
//! carried out but offered in the footer (one key, [`Action::FollowNav`], follows it), and the
//! agent is told so. After any screen change an agent chose (a request carried out, or an offer
//! followed) keys and clicks are ignored for the confirmation's arming time, so letters typed
//! for the old screen do nothing on the new one. `spock_get_status` tells an agent which screen
//! the person is on; this is what keeps that from being a timing aid.

use tokio::time::Instant;

use super::action::Action;
use super::effect::Effect;
use super::keymap::Scope;
use super::state::{Layer, State};
use super::tab::ScreenId;
use crate::mcp::navigation::NavRequest;

pub mod guard;

pub use guard::{NavGuard, OFFER_TTL, Offer, SWITCH_PAUSE, TYPING_QUIET};

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
            Some(what) => super::screen::of(screen).select(self, what),
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
            && let Err(e) = super::screen::of(o.screen).select(self, what)
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
