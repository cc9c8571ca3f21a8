//! The link from the core to the control centre, for requests that need the screen
//! (`spock_navigate`). Like confirmation, each request carries its own reply channel; with no
//! control centre attached the answer is "not applied", with the reason.
use std::sync::Mutex;
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
    pub fn applied(self) {
        let _ = self.reply.send(Ok(()));
    }
    pub fn refused(self, reason: impl Into<String>) {
        let _ = self.reply.send(Err(reason.into()));
    }
}

#[derive(Debug, Default)]
pub struct UiLink {
    tx: Mutex<Option<mpsc::Sender<NavRequest>>>,
}

impl UiLink {
    pub fn attach(&self) -> mpsc::Receiver<NavRequest> {
        let (tx, rx) = mpsc::channel(16);
        if let Ok(mut slot) = self.tx.lock() {
            *slot = Some(tx);
        }
        rx
    }

    pub fn detach(&self) {
        if let Ok(mut slot) = self.tx.lock() {
            *slot = None;
        }
    }

    /// Ask the control centre to switch screens; waits up to two seconds for it to confirm.
    pub async fn navigate(&self, screen: String, select: Option<String>) -> Result<(), String> {
        let tx = self.tx.lock().ok().and_then(|s| s.clone());
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
