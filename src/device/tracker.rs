//! Background watchers: one `host:track-devices-l` stream per adb server. Each update is a
//! complete listing, so it simply replaces that server's devices in the table (which publishes
//! the differences as events). A lost stream marks the server down, drops its devices, and
//! reconnects with capped exponential backoff; the next good connection marks it up again.
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::devices::Inner;
use super::error::{DeviceError, bounded};
use super::listing::parse_devices;
use super::wire::{MAX_HOST_REPLY, Server};

const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

pub(crate) fn spawn(inner: Weak<Inner>, server: Arc<Server>, stop: CancellationToken) {
    tokio::spawn(async move {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let result = tokio::select! {
                r = watch(&inner, &server, &mut backoff) => r,
                _ = stop.cancelled() => return,
            };
            let Some(strong) = inner.upgrade() else {
                return;
            };
            if let Err(e) = result {
                tracing::debug!(server = %server.ep, "device tracking lost: {e}");
                strong.mark_down(&server.ep, &e.to_string());
            }
            drop(strong);
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = stop.cancelled() => return,
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    });
}

/// Follows one tracking connection until it fails. Only returns Ok when `Devices` is gone.
async fn watch(
    inner: &Weak<Inner>,
    server: &Server,
    backoff: &mut Duration,
) -> Result<(), DeviceError> {
    let host = match inner.upgrade() {
        Some(i) => i.timeouts.host,
        None => return Ok(()),
    };
    let what = format!("tracking devices on adb server {}", server.ep);
    let mut c = bounded(&what, host, async {
        let mut c = server.connect().await?;
        match c.request("host:track-devices-l").await {
            Ok(()) => Ok(c),
            // Servers older than adb 1.0.39 only know the short form.
            Err(DeviceError::Adb(_)) => {
                let mut c = server.connect().await?;
                c.request("host:track-devices").await?;
                Ok(c)
            }
            Err(e) => Err(e),
        }
    })
    .await?;
    match inner.upgrade() {
        Some(i) => i.mark_up(&server.ep),
        None => return Ok(()),
    }
    *backoff = FIRST_BACKOFF;
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
}
