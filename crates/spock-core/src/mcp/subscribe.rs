//! Resource subscriptions on `android://devices` and `android://device/selected`: a device
//! arriving, leaving or changing state, an adb server going down or coming back, or another
//! device being selected sends `notifications/resources/updated` for the URIs it changes.
//! The 2025 era subscribes per session with `resources/subscribe` / `unsubscribe`
//! ([`SessionSubs`]); 2026-07-28 replaced both with `subscriptions/listen`, whose stream
//! carries the same updates ([`listen`]).
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::SubscriptionContext;
use rmcp::{Peer, RoleServer};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::core::Core;
use super::events::ServerEvent;
use super::resources::{DEVICES, SELECTED};

/// The resources a client may subscribe to.
pub const SUBSCRIBABLE: [&str; 2] = [DEVICES, SELECTED];

/// The subscribable URIs an event changes.
pub fn changed_by(event: &ServerEvent) -> &'static [&'static str] {
    match event {
        // The list changed, and with it the device used when none is named.
        ServerEvent::Device { .. } => &[DEVICES, SELECTED],
        // android_select_device.
        ServerEvent::DevicesChanged => &[SELECTED],
        _ => &[],
    }
}

/// Why a URI cannot be subscribed to.
pub fn refuse(uri: &str) -> Option<String> {
    (!SUBSCRIBABLE.contains(&uri)).then(|| {
        format!(
            "{uri} cannot be subscribed to: subscriptions are offered on {}",
            SUBSCRIBABLE.join(" and ")
        )
    })
}

/// Calls `send` with each subscribed URI an event changes, until `stop` or a failed send.
async fn watch<F, Fut>(core: &Core, stop: CancellationToken, wanted: impl Fn(&str) -> bool, send: F)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let mut rx = core.subscribe();
    loop {
        let uris: &[&str] = tokio::select! {
            _ = stop.cancelled() => return,
            r = rx.recv() => match r {
                Ok(e) => changed_by(&e),
                // Missed events: both may have changed.
                Err(broadcast::error::RecvError::Lagged(_)) => &SUBSCRIBABLE,
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        for uri in uris {
            if wanted(uri) && !send(uri.to_string()).await {
                return;
            }
        }
    }
}

/// One 2025-era session's subscriptions; its watcher starts at the first subscribe and ends
/// with the session.
#[derive(Debug, Default)]
pub struct SessionSubs {
    uris: Arc<Mutex<HashSet<String>>>,
    started: AtomicBool,
    stop: CancellationToken,
}

impl Drop for SessionSubs {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl SessionSubs {
    pub fn subscribe(
        &self,
        core: &Arc<Core>,
        peer: Peer<RoleServer>,
        uri: &str,
    ) -> Result<(), String> {
        if let Some(why) = refuse(uri) {
            return Err(why);
        }
        if let Ok(mut u) = self.uris.lock() {
            u.insert(uri.to_string());
        }
        if !self.started.swap(true, Ordering::SeqCst) {
            let (core, uris, stop) = (core.clone(), self.uris.clone(), self.stop.clone());
            tokio::spawn(async move {
                let wanted = |u: &str| uris.lock().is_ok_and(|s| s.contains(u));
                watch(&core, stop, wanted, |uri| {
                    let peer = peer.clone();
                    async move {
                        peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                            .await
                            .is_ok()
                    }
                })
                .await;
            });
        }
        Ok(())
    }

    pub fn unsubscribe(&self, uri: &str) {
        if let Ok(mut u) = self.uris.lock() {
            u.remove(uri);
        }
    }
}

/// What a 2026-07-28 `subscriptions/listen` is granted: the subscribable URIs it asked for.
pub fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut f = SubscriptionFilter::default();
    f.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|u| SUBSCRIBABLE.contains(&u.as_str()))
            .cloned()
            .collect()
    });
    f
}

/// Serves one `subscriptions/listen` stream until the client cancels it.
pub async fn listen(core: &Arc<Core>, context: SubscriptionContext) {
    let uris: HashSet<String> = context
        .accepted()
        .resource_subscriptions
        .clone()
        .unwrap_or_default()
        .into_iter()
        .collect();
    if uris.is_empty() {
        context.cancelled().await;
        return;
    }
    let sink = context.sink().clone();
    let run = watch(
        core,
        CancellationToken::new(),
        |u| uris.contains(u),
        |uri| {
            let sink = sink.clone();
            async move { sink.notify_resource_updated(uri).await.is_ok() }
        },
    );
    tokio::select! {
        _ = context.cancelled() => {}
        _ = run => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_two_device_resources_are_subscribable() {
        assert!(refuse(DEVICES).is_none() && refuse(SELECTED).is_none());
        assert!(refuse("android://project/application-id").is_some());
        let mut asked = SubscriptionFilter::default();
        asked.resource_subscriptions = Some(vec![DEVICES.into(), "file:///etc/passwd".into()]);
        assert_eq!(
            accepted(&asked).resource_subscriptions,
            Some(vec![DEVICES.to_string()])
        );
    }
}

/// A 2025-era session's `notifications/tools/list_changed` when the person changes tool
/// access (the switches, the groups, the device tree): both ways, at once, without waiting for
/// a reconnect. Started at `initialize`; ends with the session (or when the client is gone).
#[derive(Debug, Default)]
pub struct ToolListWatch {
    started: AtomicBool,
    stop: CancellationToken,
}

impl Drop for ToolListWatch {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl ToolListWatch {
    pub fn start(&self, core: &Arc<Core>, peer: Peer<RoleServer>, gone: CancellationToken) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let (core, stop) = (core.clone(), self.stop.clone());
        tokio::spawn(async move {
            let mut events = core.subscribe();
            let own = core.own_tools();
            let mut seen = (core.access.settings(), own.generation());
            loop {
                let event = tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = gone.cancelled() => return,
                    e = events.recv() => e,
                };
                match event {
                    Ok(ServerEvent::ServerStateChanged { .. })
                    | Err(broadcast::error::RecvError::Lagged(_)) => {
                        let now = (core.access.settings(), own.generation());
                        if now != seen {
                            seen = now;
                            if peer.notify_tool_list_changed().await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                    Ok(_) => {}
                }
            }
        });
    }
}
