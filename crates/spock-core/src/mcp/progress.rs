//! `notifications/progress` for long tools: the [`crate::progress`] sink of a `tools/call`
//! that carries a `progressToken`. Updates are at most one every [`MIN_GAP`] (~4 a second)
//! and their progress always grows. Both eras define progress alike; on 2026-07-28 the
//! updates travel on the call's own response stream.
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};

/// The least time between two updates of one call.
pub const MIN_GAP: Duration = Duration::from_millis(250);

#[derive(Debug, Default)]
struct Sent {
    at: Option<Instant>,
    progress: f64,
}

/// Where one call's progress goes.
pub struct Reporter {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    sent: Mutex<Sent>,
}

impl Reporter {
    /// The sink for one call's token.
    pub fn sink(peer: Peer<RoleServer>, token: ProgressToken) -> Arc<dyn crate::progress::Sink> {
        Arc::new(Reporter {
            peer,
            token,
            sent: Mutex::default(),
        })
    }
}

/// Whether an update may go now: [`MIN_GAP`] after the last, with more progress.
fn due(sent: &Sent, now: Instant, progress: f64) -> bool {
    match sent.at {
        None => true,
        Some(at) => now.duration_since(at) >= MIN_GAP && progress > sent.progress,
    }
}

impl crate::progress::Sink for Reporter {
    fn due(&self, progress: f64) -> bool {
        self.sent
            .lock()
            .is_ok_and(|s| due(&s, Instant::now(), progress))
    }

    fn send(&self, progress: f64, total: Option<f64>, message: String) {
        let Ok(mut sent) = self.sent.lock() else {
            return;
        };
        let now = Instant::now();
        if !due(&sent, now, progress) {
            return;
        }
        sent.at = Some(now);
        sent.progress = progress;
        drop(sent);
        let mut param = ProgressNotificationParam::new(self.token.clone(), progress);
        param.total = total;
        param.message = Some(message);
        let peer = self.peer.clone();
        tokio::spawn(async move {
            let _ = peer.notify_progress(param).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_one_update_a_quarter_second_and_always_growing() {
        let t0 = Instant::now();
        let mut s = Sent::default();
        assert!(due(&s, t0, 1.0));
        s = Sent {
            at: Some(t0),
            progress: 1.0,
        };
        assert!(!due(&s, t0 + Duration::from_millis(100), 2.0));
        assert!(!due(&s, t0 + Duration::from_millis(300), 1.0));
        assert!(due(&s, t0 + Duration::from_millis(300), 2.0));
    }
}
