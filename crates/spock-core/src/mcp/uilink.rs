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

/// The control centres that can switch screens: the in-process one (`attach`) and attached
/// ones (`attach_remote`, each by id). A request goes to the newest that is still listening.
#[derive(Debug, Default)]
pub struct UiLink {
    txs: Mutex<Vec<(u64, mpsc::Sender<NavRequest>)>>,
    next: AtomicU64,
    local: Mutex<Option<u64>>,
}

impl UiLink {
    pub fn attach(&self) -> mpsc::Receiver<NavRequest> {
        let (id, rx) = self.attach_remote();
        if let Ok(mut l) = self.local.lock() {
            *l = Some(id);
        }
        rx
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
        if let Ok(mut txs) = self.txs.lock() {
            txs.retain(|(i, _)| *i != id);
        }
    }

    /// Ask the control centre to switch screens; waits up to two seconds for it to confirm.
    pub async fn navigate(&self, screen: String, select: Option<String>) -> Result<(), String> {
        let tx = self.txs.lock().ok().and_then(|txs| {
            txs.iter()
                .rev()
                .find(|(_, t)| !t.is_closed())
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
