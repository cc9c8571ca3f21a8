//! The link from the core to the control centre, for requests that need the screen
//! (`spock_navigate`). Like confirmation, each request carries its own reply channel; with no
//! control centre attached the answer is "not applied", with the reason.
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

/// Screens an agent may ask for (002_… navigate, adapted to the control centre).
pub const SCREENS: [&str; 6] = [
    "status", "tools", "activity", "history", "settings", "batch",
];

#[derive(Debug)]
pub struct NavRequest {
    pub screen: String,
    /// A tool name, a call id (as text) or a device serial to select on arrival.
    pub select: Option<String>,
    reply: oneshot::Sender<Result<(), String>>,
}

impl NavRequest {
    /// A request answered through the returned receiver: an attached control centre mirrors
    /// the server's request with one, and sends its answer back over the attach channel.
    pub fn new(
        screen: String,
        select: Option<String>,
    ) -> (NavRequest, oneshot::Receiver<Result<(), String>>) {
        let (reply, rx) = oneshot::channel();
        (
            NavRequest {
                screen,
                select,
                reply,
            },
            rx,
        )
    }
    pub fn applied(self) {
        let _ = self.reply.send(Ok(()));
    }
    pub fn refused(self, reason: impl Into<String>) {
        let _ = self.reply.send(Err(reason.into()));
    }
}

/// The control centres that can switch screens: the serving process's own (`attach_local`)
/// and attached ones (`attach_remote`, each by id). A request goes to the serving process's
/// own control centre while it listens (in `spock-tui` an agent's request switches the
/// terminal that serves it, not whichever terminal attached last); otherwise (headless
/// `serve`) to the newest attached one that is still listening. One screen switches, never
/// every attached one: a navigation is a request to show something, not a broadcast.
#[derive(Debug, Default)]
pub struct UiLink {
    txs: Mutex<Vec<(u64, mpsc::Sender<NavRequest>)>>,
    next: AtomicU64,
    local: Mutex<Option<u64>>,
}

impl UiLink {
    pub fn attach(&self) -> mpsc::Receiver<NavRequest> {
        self.attach_local().1
    }

    /// The serving process's own control centre: requests go to it first while it listens;
    /// [`UiLink::detach_id`] (or [`UiLink::detach`]) when it stops.
    pub fn attach_local(&self) -> (u64, mpsc::Receiver<NavRequest>) {
        let (id, rx) = self.attach_remote();
        if let Ok(mut l) = self.local.lock() {
            *l = Some(id);
        }
        (id, rx)
    }

    /// An attached control centre; [`UiLink::detach_id`] when it leaves.
    pub fn attach_remote(&self) -> (u64, mpsc::Receiver<NavRequest>) {
        let (tx, rx) = mpsc::channel(16);
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut txs) = self.txs.lock() {
            txs.retain(|(_, t)| !t.is_closed());
            txs.push((id, tx));
        }
        (id, rx)
    }

    /// The in-process control centre stopped.
    pub fn detach(&self) {
        let id = self.local.lock().ok().and_then(|mut l| l.take());
        if let Some(id) = id {
            self.detach_id(id);
        }
    }

    pub fn detach_id(&self, id: u64) {
        if let Ok(mut l) = self.local.lock()
            && *l == Some(id)
        {
            *l = None;
        }
        if let Ok(mut txs) = self.txs.lock() {
            txs.retain(|(i, _)| *i != id);
        }
    }

    /// Ask the control centre to switch screens; waits up to two seconds for it to confirm.
    pub async fn navigate(&self, screen: String, select: Option<String>) -> Result<(), String> {
        let local = self.local.lock().ok().and_then(|l| *l);
        let tx = self.txs.lock().ok().and_then(|txs| {
            let open = |(_, t): &&(u64, mpsc::Sender<NavRequest>)| !t.is_closed();
            txs.iter()
                .filter(|(i, _)| Some(*i) == local)
                .find(open)
                .or_else(|| txs.iter().rev().find(open))
                .map(|(_, t)| t.clone())
        });
        let Some(tx) = tx else {
            return Err(
                "no control centre is running (headless serve): there is no screen to switch"
                    .into(),
            );
        };
        let (reply, rx) = oneshot::channel();
        tx.try_send(NavRequest {
            screen,
            select,
            reply,
        })
        .map_err(|_| "the control centre is not accepting requests".to_string())?;
        match tokio::time::timeout(Duration::from_secs(2), rx).await {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => Err("the control centre closed the request without an answer".into()),
            Err(_) => Err("the control centre did not confirm within two seconds".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers the first request on `rx` and says it got it.
    fn answer(mut rx: mpsc::Receiver<NavRequest>) -> tokio::task::JoinHandle<bool> {
        tokio::spawn(async move {
            match rx.recv().await {
                Some(r) => {
                    r.applied();
                    true
                }
                None => false,
            }
        })
    }

    #[tokio::test]
    async fn the_serving_terminal_gets_the_request_not_the_newest_attached() {
        let ui = UiLink::default();
        let (local, local_rx) = ui.attach_local();
        let (_a, a_rx) = ui.attach_remote();
        let (_b, b_rx) = ui.attach_remote();
        let (got_local, got_a, got_b) = (answer(local_rx), answer(a_rx), answer(b_rx));
        ui.navigate("tools".into(), None).await.unwrap();
        let got_local = tokio::time::timeout(Duration::from_secs(10), got_local).await;
        assert!(
            got_local.is_ok_and(|g| g.unwrap()),
            "the serving terminal did not get the request"
        );
        // The attached ones got nothing: their channels close unanswered when the link goes.
        ui.detach_id(local);
        drop(ui);
        assert!(!got_a.await.unwrap() && !got_b.await.unwrap());
    }

    #[tokio::test]
    async fn without_a_serving_terminal_the_newest_attached_one_gets_it() {
        let ui = UiLink::default();
        let (local, local_rx) = ui.attach_local();
        drop(local_rx);
        let (_a, a_rx) = ui.attach_remote();
        let (_b, b_rx) = ui.attach_remote();
        let got_b = answer(b_rx);
        ui.navigate("history".into(), None).await.unwrap();
        assert!(got_b.await.unwrap());
        ui.detach_id(local);
        assert!(ui.local.lock().unwrap().is_none());
        drop(a_rx);
    }
}
