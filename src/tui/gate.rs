//! The confirmation's gate: when a request counts as shown (a frame drew it, and over a
//! terminal that answers fences, the terminal said it displayed that frame), which of its rows
//! have been seen at the current layout, and whether a key read at a given instant may approve
//! it. Read off the modal's layout (`ui::modal`), so it stands above the drawing; the state
//! holds the gate's data (`ConfirmGate`) and nothing of this.
use tokio::time::Instant;

use super::state::{Blocked, FENCE_GIVE_UP, State};
use super::ui::modal;

impl State {
    /// The loop drew a frame at `at`: the request in front, if new, has now been seen, and
    /// its arming time starts; the rows this frame showed count as seen.
    pub fn frame_drawn(&mut self, at: Instant) {
        if self.gate.withdrawn.is_some() {
            return;
        }
        match self.confirms.front() {
            Some(r) if self.gate.shown.map(|(id, _)| id) != Some(r.id) => {
                let id = r.id;
                match self.gate.fence.as_mut() {
                    // Shown once the terminal answers the fence written after this frame.
                    Some(f) if f.answers != Some(false) => {
                        if f.waiting.map(|(w, _, _)| w) != Some(id) {
                            f.wanted = Some(id);
                        }
                    }
                    _ => self.gate.shown = Some((id, at)),
                }
            }
            Some(_) => {}
            None => {
                self.gate.shown = None;
                if let Some(f) = self.gate.fence.as_mut() {
                    f.waiting = None;
                    f.wanted = None;
                }
            }
        }
        if self.confirms.front().is_some() {
            modal::mark_seen(self);
        }
    }

    /// Whether a frame has shown request `id` (the terminal may not have confirmed it yet).
    pub fn drawn(&self, id: u64) -> bool {
        self.gate.shown.is_some_and(|(s, _)| s == id)
            || self
                .gate
                .fence
                .as_ref()
                .is_some_and(|f| f.wanted == Some(id) || f.waiting.is_some_and(|(w, _, _)| w == id))
    }

    /// The loop wrote fence number `n` after the frame that showed request `id`.
    pub fn fence_sent(&mut self, id: u64, at: Instant) {
        if let Some(f) = self.gate.fence.as_mut() {
            f.sent += 1;
            f.waiting = Some((id, f.sent, at));
            f.wanted = None;
        }
    }

    /// The terminal answered a fence, read at `at`: when it is the one written for the request
    /// in front, that request is on the person's screen from `at`, and its arming starts then.
    pub(in crate::tui) fn fence_answered(&mut self, at: Instant) {
        let front = self.confirms.front().map(|r| r.id);
        let Some(f) = self.gate.fence.as_mut() else {
            return;
        };
        f.answered += 1;
        f.answers = Some(true);
        if let Some((id, n, _)) = f.waiting
            && n <= f.answered
        {
            f.waiting = None;
            if front == Some(id) && self.gate.withdrawn.is_none() {
                self.gate.shown = Some((id, at));
            }
        }
    }

    /// A terminal that never answered a fence and leaves this one unanswered past
    /// [`FENCE_GIVE_UP`] does not answer status queries: requests arm from their frame, and
    /// the person is told.
    pub(in crate::tui) fn fence_overdue(&mut self) {
        let now = self.now;
        let Some(f) = self.gate.fence.as_mut() else {
            return;
        };
        let Some((id, _, sent)) = f.waiting else {
            return;
        };
        if f.answers.is_none() && now.saturating_duration_since(sent) >= FENCE_GIVE_UP {
            f.answers = Some(false);
            f.waiting = None;
            if self.confirms.front().map(|r| r.id) == Some(id) {
                self.gate.shown = Some((id, sent));
            }
            self.notify(
                "this terminal does not answer status queries (ESC [ 5 n): a request arms when \
                 it is drawn here, not when your screen shows it; over a slow link, wait for it",
            );
        }
    }

    /// The terminal was resized: the request in front is drawn afresh, and counts as shown
    /// (and arms) again only once the terminal shows the new frame.
    pub(in crate::tui) fn resized(&mut self, w: u16, h: u16) {
        let changed = self.size != (w, h);
        self.size = (w, h);
        if changed && self.confirms.front().is_some() && self.gate.withdrawn.is_none() {
            self.gate.shown = None;
            if let Some(f) = self.gate.fence.as_mut() {
                f.waiting = None;
            }
        }
    }

    /// Whether a key read at `at` may approve the request in front, and if not, why.
    pub fn approve_blocked(&self, at: Instant) -> Option<Blocked> {
        if self.gate.withdrawn.is_some() {
            return Some(Blocked::Withdrawn);
        }
        let front = self.confirms.front()?;
        let Some((_, shown)) = self.gate.shown.filter(|(id, _)| *id == front.id) else {
            return Some(Blocked::NotShown);
        };
        if at < shown {
            return Some(Blocked::NotShown);
        }
        let armed = shown + self.gate.arming;
        if at < armed {
            return Some(Blocked::Arming(armed - at));
        }
        if modal::too_small(self.size) {
            return Some(Blocked::TooSmall);
        }
        match modal::unseen(self) {
            0 => None,
            n => Some(Blocked::Scroll(n)),
        }
    }
}
