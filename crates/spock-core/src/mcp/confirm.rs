//! Confirmation of destructive calls. A request carries its own reply slot; whoever asked
//! awaits the answer. No responder, a dropped request, a timeout or an error all mean "no":
//! nothing is ever waved through. Several responders may be attached at once (the in-process
//! control centre and any number of `spock-tui attach` ones): each gets its own copy of every
//! request, the first answer wins, and the others hear who decided ([`Notice`]). A responder
//! that attaches while requests wait is shown them. With nobody attached a request is denied at
//! once, unless `safety.wait_for_attach` is on: then it waits, up to the timeout, for someone
//! to attach and answer. One client may have at most [`MAX_WAITING_PER_CLIENT`] calls waiting
//! at once; more are refused before anyone is asked, so a person is never buried under one
//! agent's queue.
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;

use super::events::{ClientId, DecidedBy, Decision, Transport};

use crate::model::{Level, Verified};

mod request;

use request::Slot;
pub use request::{Answered, ConfirmRequest};

/// What the core knows about a call when it asks.
#[derive(Debug, Clone)]
pub struct Ask {
    pub call_id: u64,
    pub tool: &'static str,
    pub title: &'static str,
    pub level: Level,
    /// A claim: the name and version the client gave (`clientInfo`), never checked.
    pub client: Option<ClientId>,
    pub transport: Transport,
    /// A claim: `ssh from 10.0.0.5:51234`, from the relay's `SSH_CONNECTION`, which the
    /// agent's side sets.
    pub via: Option<String>,
    /// What the server verified about who asks (see [`crate::model::who`]).
    pub verified: Verified,
    /// The device the call was resolved and pinned to, as the person is shown it (the full
    /// `serial@host:port` where several adb servers are combined); None for calls on no device.
    pub device: Option<String>,
    /// That device's model, when known.
    pub device_model: Option<String>,
    pub arguments: Value,
    pub reason: Option<String>,
}

/// How many of one client's calls may wait for the person at once.
pub const MAX_WAITING_PER_CLIENT: usize = 3;

/// A call refused because its client already has [`MAX_WAITING_PER_CLIENT`] waiting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "too many calls waiting for approval: {waiting} from {client} already wait for the person at \
     the keyboard; wait for their answers before asking again"
)]
pub struct TooManyWaiting {
    pub client: String,
    pub waiting: usize,
}

/// Who answers: the in-process control centre has [`ResponderId::LOCAL`]; each attached one
/// its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResponderId(u64);

impl ResponderId {
    pub const LOCAL: ResponderId = ResponderId(0);
}

/// How a request ended, told to every responder (an attached control centre closes its modal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Decided {
        call_id: u64,
        approved: bool,
        by: String,
    },
    Withdrawn {
        call_id: u64,
        timed_out: bool,
        /// Why the server withdrew it, when it was not the client leaving or the timeout
        /// (another client leased the device meanwhile).
        why: Option<String>,
    },
    /// The calling client answered while a person held the request: shown to the person as
    /// the client's claim; it decides nothing (a client's no still denies: then `Decided`).
    ClientSaid {
        call_id: u64,
        approved: bool,
        by: String,
    },
}

#[derive(Debug)]
struct Responder {
    id: ResponderId,
    label: Arc<str>,
    /// What its answers are recorded as: the serving process's keyboard, or an attached one.
    kind: DecidedBy,
    tx: mpsc::Sender<ConfirmRequest>,
}

#[derive(Debug)]
struct Pending {
    ask: Ask,
    deadline: Instant,
    timeout: Duration,
    slot: Arc<Slot>,
}

/// Responders and waiting requests under one lock: a responder attaching while a request is
/// asked gets it exactly once.
#[derive(Debug, Default)]
struct Inner {
    responders: Vec<Responder>,
    pending: BTreeMap<u64, Pending>,
}

impl Inner {
    fn offer(&mut self, id: u64, p: &Pending, to: Option<ResponderId>) -> usize {
        let mut delivered = 0;
        self.responders.retain(|r| !r.tx.is_closed());
        for r in self
            .responders
            .iter()
            .filter(|r| to.is_none_or(|t| t == r.id))
        {
            let copy = p
                .slot
                .copy(id, &p.ask, p.deadline, p.timeout, (&r.label, r.kind));
            // A full queue: this responder cannot answer in time; the copy is dropped.
            if r.tx.try_send(copy).is_ok() {
                delivered += 1;
            }
        }
        delivered
    }
}

#[derive(Debug)]
pub struct Confirmer {
    inner: Mutex<Inner>,
    notices: broadcast::Sender<Notice>,
    wait_for_attach: Arc<AtomicBool>,
    timeout_ms: AtomicU64,
    next_id: AtomicU64,
    next_responder: AtomicU64,
    /// Calls waiting per client (see [`Confirmer::ask_for_client`]).
    waiting: Mutex<HashMap<String, usize>>,
}

/// A client's place in the queue, given back when its call is answered, however it ends.
struct Place<'a> {
    waiting: &'a Mutex<HashMap<String, usize>>,
    client: String,
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        if let Ok(mut w) = self.waiting.lock()
            && let Some(n) = w.get_mut(&self.client)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                w.remove(&self.client);
            }
        }
    }
}

/// A request just put on the waiting list ([`Confirmer::post`]).
struct Posted<'a> {
    asking: Asking<'a>,
    slot: Arc<Slot>,
    answer: oneshot::Receiver<Answered>,
    /// How many responders were offered it.
    delivered: usize,
    timeout: Duration,
}

/// A request's entry in the waiting list, removed however the asking ends (an answer, the
/// timeout, or the asker cancelled: then the responders hear it was withdrawn).
struct Asking<'a> {
    confirmer: &'a Confirmer,
    id: u64,
    call_id: u64,
    told: bool,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let why = match self.confirmer.inner.lock() {
            Ok(mut i) => i.pending.remove(&self.id).and_then(|p| p.slot.why()),
            Err(_) => None,
        };
        if !self.told {
            let _ = self.confirmer.notices.send(Notice::Withdrawn {
                call_id: self.call_id,
                timed_out: false,
                why,
            });
        }
    }
}

/// The label the in-process control centre answers as.
pub fn local_label() -> String {
    format!(
        "the control centre of the serving process (pid {})",
        std::process::id()
    )
}

impl Confirmer {
    pub fn new(timeout: Duration) -> Self {
        Confirmer {
            inner: Mutex::new(Inner::default()),
            notices: broadcast::channel(256).0,
            wait_for_attach: Arc::new(AtomicBool::new(false)),
            timeout_ms: AtomicU64::new(timeout.as_millis() as u64),
            next_id: AtomicU64::new(1),
            next_responder: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
        }
    }

    /// Ask for a client, as the call pipeline does: refused at once, before anyone is asked,
    /// when that client already has [`MAX_WAITING_PER_CLIENT`] calls waiting. A client is who
    /// it said it was (`name/version`; one "unknown" for those that did not say). The control
    /// centre's own calls are the person's, and are not counted.
    pub async fn ask_for_client(&self, ask: Ask) -> Result<Answered, TooManyWaiting> {
        let _place = self.place_for(&ask)?;
        Ok(self.ask_answered(ask).await)
    }

    /// [`Confirmer::ask_for_client`] answered by `answer` (the client's own elicitation)
    /// instead of a control centre, under the same per-client limit. The request waits in the
    /// list meanwhile, so a person who attaches is offered it; from then on only the person's
    /// answer approves: the client's yes is shown to them as a claim, and a client's no (or a
    /// failed elicitation) still denies, since a no never runs anything.
    pub async fn ask_for_client_via<F: std::future::Future<Output = Answered>>(
        &self,
        ask: &Ask,
        answer: F,
    ) -> Result<Answered, TooManyWaiting> {
        let _place = self.place_for(ask)?;
        Ok(self.ask_with_client(ask.clone(), answer).await)
    }

    async fn ask_with_client<F: std::future::Future<Output = Answered>>(
        &self,
        ask: Ask,
        client: F,
    ) -> Answered {
        // Kept while nobody holds it: the client is asked, and a person may attach.
        let Posted {
            mut asking,
            slot,
            mut answer,
            timeout,
            ..
        } = self.post(ask, Arc::new(AtomicBool::new(true)));
        let call_id = asking.call_id;
        let client = std::pin::pin!(client);
        let mut client = Some(client);
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let (answered, notice) = loop {
            tokio::select! {
                a = &mut answer => break match a {
                    Ok(a) => {
                        let notice = Notice::Decided {
                            call_id,
                            approved: a.decision.approved,
                            by: a.decider.clone().unwrap_or_else(|| "unknown".into()),
                        };
                        (a, notice)
                    }
                    Err(_) => (
                        Answered::default_no(DecidedBy::Dropped),
                        Notice::Withdrawn { call_id, timed_out: false, why: None },
                    ),
                },
                c = async {
                    match client.as_mut() {
                        Some(c) => c.await,
                        None => std::future::pending().await,
                    }
                }, if client.is_some() =>
                {
                    client = None;
                    if c.decision.approved && slot.held() {
                        // A person holds it: the client's yes is their claim, not the answer.
                        let by = c.decider.clone().unwrap_or_else(|| "the client".into());
                        slot.note_client(true, &by);
                        let _ = self.notices.send(Notice::ClientSaid {
                            call_id,
                            approved: true,
                            by,
                        });
                        continue;
                    }
                    if c.decision.by == DecidedBy::Timeout {
                        break (c, Notice::Withdrawn { call_id, timed_out: true, why: None });
                    }
                    // The client decides (its no always; its yes while no person holds it),
                    // unless a person answered first: then the next turn takes theirs.
                    slot.settle(c);
                }
                // While the client is asked, its own timeout (the same) ends the wait, so a
                // 2026 round it expires is remembered as expired, not as answered.
                _ = &mut deadline, if client.is_none() => break (
                    Answered::default_no(DecidedBy::Timeout),
                    Notice::Withdrawn { call_id, timed_out: true, why: None },
                ),
            }
        };
        asking.told = true;
        drop(asking);
        let _ = self.notices.send(notice);
        answered
    }

    fn place_for(&self, ask: &Ask) -> Result<Option<Place<'_>>, TooManyWaiting> {
        if ask.transport == Transport::Tui {
            return Ok(None);
        }
        let client = ask
            .client
            .as_ref()
            .map(|c| format!("{}/{}", c.name, c.version))
            .unwrap_or_else(|| "unknown".into());
        self.take_place(client).map(Some)
    }

    fn take_place(&self, client: String) -> Result<Place<'_>, TooManyWaiting> {
        let mut w = self.waiting.lock().map_err(|_| TooManyWaiting {
            client: client.clone(),
            waiting: 0,
        })?;
        let n = w.entry(client.clone()).or_insert(0);
        if *n >= MAX_WAITING_PER_CLIENT {
            return Err(TooManyWaiting {
                client,
                waiting: *n,
            });
        }
        *n += 1;
        Ok(Place {
            waiting: &self.waiting,
            client,
        })
    }

    /// Become the in-process control centre's responder. Replaces any previous one of its own;
    /// attached control centres are not affected.
    pub fn attach(&self) -> mpsc::Receiver<ConfirmRequest> {
        self.attach_as(ResponderId::LOCAL, local_label(), DecidedBy::Key)
    }

    /// A control-centre session answers as `label` (which terminal; the audit records it),
    /// its answers recorded as `kind`: [`DecidedBy::Key`] only for the serving process's own,
    /// [`DecidedBy::Attached`] for any other process.
    pub fn attach_remote(
        &self,
        label: String,
        kind: DecidedBy,
    ) -> (ResponderId, mpsc::Receiver<ConfirmRequest>) {
        let id = ResponderId(self.next_responder.fetch_add(1, Ordering::Relaxed));
        (id, self.attach_as(id, label, kind))
    }

    fn attach_as(
        &self,
        id: ResponderId,
        label: String,
        kind: DecidedBy,
    ) -> mpsc::Receiver<ConfirmRequest> {
        let (tx, rx) = mpsc::channel(64);
        if let Ok(mut i) = self.inner.lock() {
            i.responders.retain(|r| r.id != id);
            i.responders.push(Responder {
                id,
                label: Arc::from(label),
                kind,
                tx,
            });
            // Whatever already waits is shown to the newcomer, oldest first.
            let waiting: Vec<u64> = i.pending.keys().copied().collect();
            for rid in waiting {
                if let Some(p) = i.pending.remove(&rid) {
                    i.offer(rid, &p, Some(id));
                    i.pending.insert(rid, p);
                }
            }
        }
        rx
    }

    /// The in-process control centre stops answering.
    pub fn detach(&self) {
        self.detach_responder(ResponderId::LOCAL);
    }

    pub fn detach_responder(&self, id: ResponderId) {
        if let Ok(mut i) = self.inner.lock() {
            i.responders.retain(|r| r.id != id);
        }
    }

    pub fn has_responder(&self) -> bool {
        self.responders() > 0
    }

    /// How many responders are attached (the in-process one included).
    pub fn responders(&self) -> usize {
        self.inner
            .lock()
            .map(|i| i.responders.iter().filter(|r| !r.tx.is_closed()).count())
            .unwrap_or(0)
    }

    /// How requests ended, for attached control centres.
    pub fn notices(&self) -> broadcast::Receiver<Notice> {
        self.notices.subscribe()
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout_ms
            .store(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    /// `safety.wait_for_attach`: with nobody attached, wait (up to the timeout) for someone.
    pub fn set_wait_for_attach(&self, wait: bool) {
        self.wait_for_attach.store(wait, Ordering::Relaxed);
    }

    pub fn waits_for_attach(&self) -> bool {
        self.wait_for_attach.load(Ordering::Relaxed)
    }

    /// The server withdraws call `call_id`'s waiting request, for `why` (every responder's
    /// modal says it); the asker stops waiting right after, so no answer can run it.
    pub fn withdraw_because(&self, call_id: u64, why: String) {
        if let Ok(i) = self.inner.lock() {
            for p in i.pending.values().filter(|p| p.ask.call_id == call_id) {
                p.slot.set_why(why.clone());
            }
        }
    }

    /// Ask, and wait for the answer or the default denial. Not limited per client: the call
    /// pipeline uses [`Confirmer::ask_for_client`].
    pub async fn ask(&self, ask: Ask) -> Decision {
        self.ask_answered(ask).await.decision
    }

    /// Puts `ask` on the waiting list and offers it to every responder. `keep_unheld`: whether
    /// a request nobody holds stays (see [`Slot`]).
    fn post(&self, ask: Ask, keep_unheld: Arc<AtomicBool>) -> Posted<'_> {
        let timeout = self.timeout();
        let (reply, answer) = oneshot::channel();
        let slot = Arc::new(Slot::new(reply, keep_unheld));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let call_id = ask.call_id;
        let pending = Pending {
            ask,
            deadline: Instant::now() + timeout,
            timeout,
            slot: slot.clone(),
        };
        let delivered = match self.inner.lock() {
            Ok(mut i) => {
                let n = i.offer(id, &pending, None);
                i.pending.insert(id, pending);
                n
            }
            Err(_) => 0,
        };
        Posted {
            asking: Asking {
                confirmer: self,
                id,
                call_id,
                told: false,
            },
            slot,
            answer,
            delivered,
            timeout,
        }
    }

    /// [`Confirmer::ask`], with the terminal that answered.
    pub async fn ask_answered(&self, ask: Ask) -> Answered {
        let Posted {
            mut asking,
            answer,
            delivered,
            timeout,
            ..
        } = self.post(ask, self.wait_for_attach.clone());
        let call_id = asking.call_id;
        if delivered == 0 && !self.waits_for_attach() {
            asking.told = true;
            drop(asking);
            return Answered::default_no(DecidedBy::NoResponder);
        }
        let (answered, notice) = match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(a)) => {
                let notice = Notice::Decided {
                    call_id,
                    approved: a.decision.approved,
                    by: a.decider.clone().unwrap_or_else(|| "unknown".into()),
                };
                (a, notice)
            }
            Ok(Err(_)) => (
                Answered::default_no(DecidedBy::Dropped),
                Notice::Withdrawn {
                    call_id,
                    timed_out: false,
                    why: None,
                },
            ),
            Err(_) => (
                Answered::default_no(DecidedBy::Timeout),
                Notice::Withdrawn {
                    call_id,
                    timed_out: true,
                    why: None,
                },
            ),
        };
        asking.told = true;
        drop(asking);
        let _ = self.notices.send(notice);
        answered
    }
}

#[cfg(test)]
mod tests;
