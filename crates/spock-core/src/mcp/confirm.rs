//! Confirmation of destructive calls. A request carries its own reply channel; whoever asked
//! awaits the answer. No responder, a dropped responder, a timeout or an error all mean "no":
//! nothing is ever waved through. One client may have at most [`MAX_WAITING_PER_CLIENT`] calls
//! waiting at once; more are refused before anyone is asked, so a person is never buried under
//! one agent's queue.
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::events::{ClientId, DecidedBy, Decision, Transport};
use super::registry::Level;

/// One destructive call waiting for a person: what the core asked, and how long it waits.
#[derive(Debug)]
pub struct ConfirmRequest {
    pub id: u64,
    pub ask: Ask,
    pub deadline: Instant,
    pub timeout: Duration,
    reply: oneshot::Sender<Decision>,
}

impl ConfirmRequest {
    /// Answer it. An answer after the deadline is ignored by the asker.
    pub fn answer(self, approved: bool) {
        let _ = self.reply.send(Decision {
            approved,
            by: DecidedBy::Key,
        });
    }
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
    /// True once the asker has stopped waiting (timeout, cancellation).
    pub fn is_abandoned(&self) -> bool {
        self.reply.is_closed()
    }
}

/// What the core knows about a call when it asks.
#[derive(Debug, Clone)]
pub struct Ask {
    pub call_id: u64,
    pub tool: &'static str,
    pub title: &'static str,
    pub level: Level,
    pub client: Option<ClientId>,
    pub transport: Transport,
    /// `ssh from 10.0.0.5:51234` when a stdio client's relay runs under sshd.
    pub via: Option<String>,
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

#[derive(Debug)]
pub struct Confirmer {
    responder: Mutex<Option<mpsc::Sender<ConfirmRequest>>>,
    timeout_ms: AtomicU64,
    next_id: AtomicU64,
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

impl Confirmer {
    pub fn new(timeout: Duration) -> Self {
        Confirmer {
            responder: Mutex::new(None),
            timeout_ms: AtomicU64::new(timeout.as_millis() as u64),
            next_id: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
        }
    }

    /// Ask for a client, as the call pipeline does: refused at once, before anyone is asked,
    /// when that client already has [`MAX_WAITING_PER_CLIENT`] calls waiting. A client is who
    /// it said it was (`name/version`; one "unknown" for those that did not say). The control
    /// centre's own calls are the person's, and are not counted.
    pub async fn ask_for_client(&self, ask: Ask) -> Result<Decision, TooManyWaiting> {
        let _place = if ask.transport == Transport::Tui {
            None
        } else {
            let client = ask
                .client
                .as_ref()
                .map(|c| format!("{}/{}", c.name, c.version))
                .unwrap_or_else(|| "unknown".into());
            Some(self.take_place(client)?)
        };
        Ok(self.ask(ask).await)
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

    /// Become the one who answers (the control centre). Replaces any previous responder.
    pub fn attach(&self) -> mpsc::Receiver<ConfirmRequest> {
        let (tx, rx) = mpsc::channel(64);
        if let Ok(mut slot) = self.responder.lock() {
            *slot = Some(tx);
        }
        rx
    }

    pub fn detach(&self) {
        if let Ok(mut slot) = self.responder.lock() {
            *slot = None;
        }
    }

    pub fn has_responder(&self) -> bool {
        self.responder
            .lock()
            .map(|s| s.as_ref().is_some_and(|tx| !tx.is_closed()))
            .unwrap_or(false)
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.load(Ordering::Relaxed))
    }

    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout_ms
            .store(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    /// Ask, and wait for the answer or the default denial. Not limited per client: the call
    /// pipeline uses [`Confirmer::ask_for_client`].
    pub async fn ask(&self, ask: Ask) -> Decision {
        let responder = self.responder.lock().ok().and_then(|s| s.clone());
        let Some(responder) = responder else {
            return Decision::deny(DecidedBy::NoResponder);
        };
        let timeout = self.timeout();
        let (reply, answer) = oneshot::channel();
        let request = ConfirmRequest {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            ask,
            deadline: Instant::now() + timeout,
            timeout,
            reply,
        };
        if responder.try_send(request).is_err() {
            // Full queue or a closed control centre: nobody can answer in time.
            return Decision::deny(DecidedBy::NoResponder);
        }
        match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(decision)) => decision,
            Ok(Err(_)) => Decision::deny(DecidedBy::Dropped),
            Err(_) => Decision::deny(DecidedBy::Timeout),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask() -> Ask {
        Ask {
            call_id: 1,
            tool: "android_uninstall_app",
            title: "Uninstall app",
            level: Level::Destructive,
            client: None,
            transport: Transport::Http,
            via: None,
            device: None,
            device_model: None,
            arguments: Value::Null,
            reason: None,
        }
    }

    #[tokio::test]
    async fn no_responder_denies() {
        let c = Confirmer::new(Duration::from_secs(5));
        assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::NoResponder));
    }

    #[tokio::test]
    async fn dropped_request_denies() {
        let c = Confirmer::new(Duration::from_secs(5));
        let mut rx = c.attach();
        let t = tokio::spawn(async move { drop(rx.recv().await) });
        assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::Dropped));
        t.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn silence_times_out_to_denied() {
        let c = Confirmer::new(Duration::from_secs(60));
        let mut rx = c.attach();
        let keep = tokio::spawn(async move { rx.recv().await });
        assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::Timeout));
        drop(keep);
    }

    #[tokio::test]
    async fn key_answer_is_returned() {
        let c = Confirmer::new(Duration::from_secs(5));
        let mut rx = c.attach();
        tokio::spawn(async move {
            if let Some(req) = rx.recv().await {
                req.answer(true)
            }
        });
        assert_eq!(
            c.ask(ask()).await,
            Decision {
                approved: true,
                by: DecidedBy::Key
            }
        );
    }

    #[tokio::test]
    async fn a_fourth_waiting_call_from_one_client_is_refused_before_asking() {
        let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(60)));
        let mut rx = c.attach();
        let from = |name: &str, transport| Ask {
            client: Some(ClientId {
                name: name.into(),
                version: "1".into(),
            }),
            transport,
            ..ask()
        };
        let (mut asked, mut shown) = (Vec::new(), Vec::new());
        for _ in 0..MAX_WAITING_PER_CLIENT {
            let (c, a) = (c.clone(), from("agent", Transport::Http));
            asked.push(tokio::spawn(async move { c.ask_for_client(a).await }));
            shown.push(rx.recv().await.expect("shown"));
        }
        let refused = c.ask_for_client(from("agent", Transport::Http)).await;
        assert_eq!(
            refused,
            Err(TooManyWaiting {
                client: "agent/1".into(),
                waiting: MAX_WAITING_PER_CLIENT
            })
        );
        assert!(rx.try_recv().is_err(), "the refused call was shown");
        // The person's own calls and other clients are not held back by it.
        for a in [
            from("agent", Transport::Tui),
            from("other", Transport::Stdio),
        ] {
            let c2 = c.clone();
            let t = tokio::spawn(async move { c2.ask_for_client(a).await });
            rx.recv().await.expect("shown").answer(false);
            assert!(t.await.unwrap().is_ok());
        }
        // An answer frees the place.
        shown.pop().expect("one").answer(false);
        assert!(asked.pop().expect("one").await.unwrap().is_ok());
        let (c2, a) = (c.clone(), from("agent", Transport::Http));
        let again = tokio::spawn(async move { c2.ask_for_client(a).await });
        rx.recv().await.expect("shown again").answer(false);
        assert!(again.await.unwrap().is_ok());
    }
}
