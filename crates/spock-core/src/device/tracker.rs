//! Background watchers: one `host:track-devices-l` stream per adb server. Each update is a
//! complete listing, so it simply replaces that server's devices in the table (which publishes
//! the differences as events).
//!
//! A stream can go quiet for two reasons: nothing changed, or the server stopped answering
//! (`kill -STOP`, a wedged server, a dead network: the connection stays open). So while the
//! stream is quiet a liveness probe (`host:version`, on its own connection, bounded by
//! [`Timeouts::probe`](super::Timeouts)) runs every probe period. A lost stream or an
//! unanswered probe marks the server down (its devices stay listed, unreachable) and the
//! watcher reconnects with capped exponential backoff; a call addressing one of its devices may
//! ring the doorbell ([`Server::wake`]) to cut a backoff short. Nothing here ever starts an adb
//! server.
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::devices::Inner;
use super::error::{DeviceError, bounded};
use super::listing::parse_devices;
use super::wire::{MAX_HOST_REPLY, Server};

const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How long a failed watch waits for a stop that may be on its way before it reports the
/// server down.
const STOP_GRACE: Duration = Duration::from_millis(200);
/// However often the doorbell rings, attempts are at least this far apart.
const MIN_GAP: Duration = Duration::from_millis(200);

pub(crate) fn spawn(inner: Weak<Inner>, server: Arc<Server>, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let started = Instant::now();
            match inner.upgrade() {
                Some(i) => i.begin_attempt(&server.ep),
                None => return,
            }
            let result = tokio::select! {
                r = watch(&inner, &server, &mut backoff) => r,
                _ = stop.cancelled() => return,
            };
            if result.is_err() {
                // A connection that ends as the process stops (Ctrl-C reaches the terminal's
                // whole process group) is not the server's trouble: give the stop a moment to
                // arrive before saying the server is down.
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(STOP_GRACE) => {}
                }
            }
            let Some(strong) = inner.upgrade() else {
                return;
            };
            if let Err(e) = result {
                tracing::debug!(server = %server.ep, "device tracking lost: {e}");
                strong.mark_down(&server.ep, as_server_error(&server, e));
            }
            drop(strong);
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = server.wake.notified() => {
                    let since = started.elapsed();
                    if since < MIN_GAP {
                        tokio::time::sleep(MIN_GAP - since).await;
                    }
                }
                _ = stop.cancelled() => return,
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    });
}

/// Whatever ended the watch, said as the server's trouble (one wording for one cause).
fn as_server_error(server: &Server, e: DeviceError) -> DeviceError {
    let detail = match e {
        DeviceError::ServerUnreachable { .. } => return e,
        DeviceError::Timeout { what, after } => format!("no answer to {what} within {after:?}"),
        DeviceError::Io(m) if m.contains("closed the connection") => {
            "it closed the connection (stopped or restarted)".to_string()
        }
        other => other.to_string(),
    };
    DeviceError::ServerUnreachable {
        server: server.ep.to_string(),
        detail,
    }
}

/// Follows one tracking connection until it fails. Only returns Ok when `Devices` is gone.
async fn watch(
    inner: &Weak<Inner>,
    server: &Server,
    backoff: &mut Duration,
) -> Result<(), DeviceError> {
    let (host, probe) = match inner.upgrade() {
        Some(i) => (i.timeouts.host, i.timeouts.probe),
        None => return Ok(()),
    };
    let what = format!("tracking devices on adb server {}", server.ep);
    let mut c = bounded("the device tracking request", host, async {
        let mut c = server.connect_quiet().await?;
        match c.request("host:track-devices-l").await {
            Ok(()) => Ok(c),
            // Servers older than adb 1.0.39 only know the short form.
            Err(DeviceError::Adb(_)) => {
                let mut c = server.connect_quiet().await?;
                c.request("host:track-devices").await?;
                Ok(c)
            }
            Err(e) => Err(e),
        }
    })
    .await?;
    *backoff = FIRST_BACKOFF;
    let reader = async {
        loop {
            // No timeout here: the server speaks only when something changes.
            let block = c.read_block(MAX_HOST_REPLY, &what).await?;
            let Some(i) = inner.upgrade() else {
                return Ok(());
            };
            i.set_tracked_devices(
                &server.ep,
                parse_devices(&String::from_utf8_lossy(&block), &server.ep),
            );
        }
    };
    // Runs beside the reader (never cancelling it mid-block) and ends only on a failed probe.
    let prober = async {
        loop {
            tokio::time::sleep(probe).await;
            if let Err(e) = bounded(
                "host:version",
                probe,
                server.host_query_quiet("host:version"),
            )
            .await
            {
                return Err(match e {
                    DeviceError::Timeout { after, .. } => DeviceError::ServerUnreachable {
                        server: server.ep.to_string(),
                        detail: format!(
                            "it stopped answering: no reply to host:version within {after:?}"
                        ),
                    },
                    other => other,
                });
            }
        }
    };
    tokio::select! {
        r = reader => r,
        e = prober => e,
    }
}
