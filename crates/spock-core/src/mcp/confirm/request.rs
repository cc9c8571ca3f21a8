//! One destructive call as a responder holds it: what was asked, its deadline, and the shared
//! answer slot. Every responder (the in-process control centre, each attached one) gets its
//! own [`ConfirmRequest`] over the same slot: the first answer takes the slot, the others see
//! their copy abandoned and who decided. When the last copy is dropped unanswered the asker
//! hears "dropped" (no), unless the confirmer waits for someone to attach.
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use super::Ask;
use crate::mcp::events::{DecidedBy, Decision};

/// An answer and the terminal it came from (`None` for the defaults: timeout, no responder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    pub decision: Decision,
    pub decider: Option<String>,
}

impl Answered {
    pub fn default_no(by: DecidedBy) -> Answered {
        Answered {
            decision: Decision::deny(by),
            decider: None,
        }
    }
}

/// The one answer all copies of a request share.
#[derive(Debug)]
pub(super) struct Slot {
    reply: Mutex<Option<oneshot::Sender<Answered>>>,
    holders: AtomicUsize,
    /// Who answered and how, once someone has.
    decided: Mutex<Option<(bool, String)>>,
    /// What the calling client answered while a person held the request (approval through
    /// the client, `[confirm] via_client`): a claim shown to the person, deciding nothing.
    client_said: Mutex<Option<(bool, String)>>,
    /// The confirmer waits for someone to attach: a request nobody holds is not dropped.
    keep_unheld: Arc<AtomicBool>,
    /// Why the server withdrew it (see [`super::Confirmer::withdraw_because`]).
    why: Mutex<Option<String>>,
}

impl Slot {
    pub(super) fn new(reply: oneshot::Sender<Answered>, keep_unheld: Arc<AtomicBool>) -> Slot {
        Slot {
            reply: Mutex::new(Some(reply)),
            holders: AtomicUsize::new(0),
            decided: Mutex::new(None),
            client_said: Mutex::new(None),
            keep_unheld,
            why: Mutex::new(None),
        }
    }

    pub(super) fn set_why(&self, why: String) {
        if let Ok(mut w) = self.why.lock() {
            *w = Some(why);
        }
    }

    pub(super) fn why(&self) -> Option<String> {
        self.why.lock().ok().and_then(|w| w.clone())
    }

    /// A copy for one responder, answering as `by`.
    pub(super) fn copy(
        self: &Arc<Slot>,
        id: u64,
        ask: &Ask,
        deadline: Instant,
        timeout: Duration,
        (by, kind): (&Arc<str>, DecidedBy),
    ) -> ConfirmRequest {
        self.holders.fetch_add(1, Ordering::SeqCst);
        ConfirmRequest {
            id,
            ask: ask.clone(),
            deadline,
            timeout,
            slot: self.clone(),
            by: by.clone(),
            kind,
        }
    }

    /// First answer wins; later ones (and answers after the asker left) do nothing.
    fn answer(&self, approved: bool, by: &str, kind: DecidedBy) -> bool {
        self.settle(Answered {
            decision: Decision { approved, by: kind },
            decider: Some(by.to_string()),
        })
    }

    /// Any answer, a person's or the client's: the first one wins.
    pub(super) fn settle(&self, a: Answered) -> bool {
        let Some(tx) = self.reply.lock().ok().and_then(|mut r| r.take()) else {
            return false;
        };
        if let Ok(mut d) = self.decided.lock() {
            let by = a.decider.clone().unwrap_or_else(|| "unknown".into());
            *d = Some((a.decision.approved, by));
        }
        tx.send(a).is_ok()
    }

    /// Whether some responder (a person's control centre) holds a copy now.
    pub(super) fn held(&self) -> bool {
        self.holders.load(Ordering::SeqCst) > 0
    }

    pub(super) fn note_client(&self, approved: bool, by: &str) {
        if let Ok(mut c) = self.client_said.lock() {
            *c = Some((approved, by.to_string()));
        }
    }

    fn closed(&self) -> bool {
        self.reply
            .lock()
            .map(|r| r.as_ref().is_none_or(|tx| tx.is_closed()))
            .unwrap_or(true)
    }
}

/// One destructive call waiting for a person, as one responder holds it.
#[derive(Debug)]
pub struct ConfirmRequest {
    pub id: u64,
    pub ask: Ask,
    pub deadline: Instant,
    pub timeout: Duration,
    slot: Arc<Slot>,
    /// The terminal that answers through this copy, as the audit and the others are told.
    by: Arc<str>,
    /// Whether that terminal is the serving process's keyboard or an attached one.
    kind: DecidedBy,
}

impl ConfirmRequest {
    /// Answer it. An answer after the deadline, or after another terminal decided, is ignored.
    pub fn answer(self, approved: bool) {
        self.slot.answer(approved, &self.by, self.kind);
    }

    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// True once the asker has stopped waiting (timeout, cancellation) or another terminal
    /// decided.
    pub fn is_abandoned(&self) -> bool {
        self.slot.closed()
    }

    /// Why the server withdrew it, when it did (the device was leased meanwhile).
    pub fn withdrawn_why(&self) -> Option<String> {
        self.slot.why()
    }

    /// How and by whom it was decided, when another terminal answered it.
    pub fn decided_elsewhere(&self) -> Option<(bool, String)> {
        self.slot
            .decided
            .lock()
            .ok()
            .and_then(|d| d.clone())
            .filter(|(_, by)| **by != *self.by)
    }

    /// What the calling client answered while this waited for a person: a claim, shown as one
    /// (approval through the client, `[confirm] via_client`); only a person's answer runs it.
    pub fn client_says(&self) -> Option<(bool, String)> {
        self.slot.client_said.lock().ok().and_then(|c| c.clone())
    }
}

impl Drop for ConfirmRequest {
    fn drop(&mut self) {
        let last = self.slot.holders.fetch_sub(1, Ordering::SeqCst) == 1;
        if last
            && !self.slot.keep_unheld.load(Ordering::Relaxed)
            && let Ok(mut r) = self.slot.reply.lock()
        {
            // Nobody holds it any more: the asker hears "dropped" (no) at once.
            r.take();
        }
    }
}
