//! Legacy (2025-era) HTTP sessions: rmcp ends a session after an idle keep-alive. Its
//! `initialize` parameters are kept here so the client's next request restores it instead of
//! meeting "session not found" — a configured client never finds its session silently gone.
//! Bounded: past `cap` entries the oldest is forgotten. A `DELETE` (the client ending its
//! session on purpose) is passed on to `on_end`: the session's device leases end with it.
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
use tokio::sync::Mutex;

#[derive(Debug, Default)]
struct Inner {
    map: HashMap<String, SessionState>,
    order: VecDeque<String>,
}

type OnEnd = Arc<dyn Fn(&str) + Send + Sync>;

pub struct ParkedSessions {
    inner: Mutex<Inner>,
    cap: usize,
    on_end: Option<OnEnd>,
}

impl std::fmt::Debug for ParkedSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParkedSessions")
            .field("cap", &self.cap)
            .finish()
    }
}

impl ParkedSessions {
    pub fn new(cap: usize) -> Self {
        ParkedSessions {
            inner: Mutex::new(Inner::default()),
            cap: cap.max(1),
            on_end: None,
        }
    }

    /// Called with the session id when a client ends its session (`DELETE`).
    pub fn on_end(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_end = Some(Arc::new(f));
        self
    }
}

#[async_trait::async_trait]
impl SessionStore for ParkedSessions {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        Ok(self.inner.lock().await.map.get(id).cloned())
    }
    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let mut inner = self.inner.lock().await;
        if inner.map.insert(id.to_string(), state.clone()).is_none() {
            inner.order.push_back(id.to_string());
        }
        while inner.map.len() > self.cap {
            match inner.order.pop_front() {
                Some(old) => {
                    inner.map.remove(&old);
                }
                None => break,
            }
        }
        Ok(())
    }
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        let mut inner = self.inner.lock().await;
        inner.map.remove(id);
        inner.order.retain(|x| x != id);
        drop(inner);
        if let Some(f) = &self.on_end {
            f(id);
        }
        Ok(())
    }
}
