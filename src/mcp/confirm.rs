//! Confirmation of destructive calls. A request carries its own reply channel; whoever asked
//! awaits the answer. No responder, a dropped responder, a timeout or an error all mean "no":
//! nothing is ever waved through.
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
    /// The device the call was resolved and pinned to, as the person is shown it (the full
    /// `serial@host:port` where several adb servers are combined); None for calls on no device.
    pub device: Option<String>,
    /// That device's model, when known.
    pub device_model: Option<String>,
    pub arguments: Value,
    pub reason: Option<String>,
}

#[derive(Debug)]
pub struct Confirmer {
    responder: Mutex<Option<mpsc::Sender<ConfirmRequest>>>,
    timeout_ms: AtomicU64,
    next_id: AtomicU64,
}

impl Confirmer {
    pub fn new(timeout: Duration) -> Self {
        Confirmer {
            responder: Mutex::new(None),
            timeout_ms: AtomicU64::new(timeout.as_millis() as u64),
            next_id: AtomicU64::new(1),
        }
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

    /// Ask, and wait for the answer or the default denial.
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
}
