//! Which device a call that names no `serial` means: each client session's own selection
//! (`android_select_device`), never one value for everybody. One client selecting a device must
//! not redirect another client's next call, so a selection is kept under the session key that
//! leases and enabled toolsets use ([`super::lease::Session::key`]): a stdio or legacy-SSE
//! connection, or a 2025-era HTTP session (which survives being parked). The control centre's
//! own calls (the person's) have a selection of their own. A stateless 2026-07-28 request has
//! no session, so it has no selection: with several devices attached it must name a serial.
//! A selection ends with its session.
use std::collections::HashMap;
use std::sync::Mutex;

use super::ctx::Origin;

/// The key the person's own calls (the control centre, its batch runs) select under.
const PERSON: &str = "control centre";

/// Whose selection a call uses: `None` for a stateless request, which has none.
fn key_of(origin: &Origin) -> Option<String> {
    match &origin.session {
        None => Some(PERSON.to_string()),
        Some(s) if s.is_stateless() => None,
        Some(s) => Some(s.key().to_string()),
    }
}

/// Why a selection cannot be kept for this caller.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a stateless request (MCP 2026-07-28 with no session) keeps no selection: name the device \
     with `serial` in each call instead"
)]
pub struct NoSession;

#[derive(Debug, Default)]
pub struct Selections {
    by_session: Mutex<HashMap<String, String>>,
}

impl Selections {
    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, String>) -> R) -> R {
        let mut m = self
            .by_session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut m)
    }

    /// The device (full name) this caller selected, if any.
    pub fn get(&self, origin: &Origin) -> Option<String> {
        let key = key_of(origin)?;
        self.with(|m| m.get(&key).cloned())
    }

    /// Select `device` for this caller; returns what it had selected before.
    pub fn set(&self, origin: &Origin, device: String) -> Result<Option<String>, NoSession> {
        let key = key_of(origin).ok_or(NoSession)?;
        Ok(self.with(|m| m.insert(key, device)))
    }

    /// The session `key` ended: its selection goes with it.
    pub fn session_ended(&self, key: &str) {
        self.with(|m| m.remove(key));
    }

    /// Whether any caller has `device` selected (the control centre marks such devices).
    pub fn selected_by_anyone(&self, device: &str) -> bool {
        self.with(|m| m.values().any(|d| d == device))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::events::Transport;
    use crate::mcp::lease::Session;

    fn origin(session: Option<Session>) -> Origin {
        Origin {
            transport: Transport::Stdio,
            client: None,
            session,
        }
    }

    #[test]
    fn each_session_keeps_its_own_selection() {
        let s = Selections::default();
        let a = origin(Some(Session::connection(Transport::Stdio, 1)));
        let b = origin(Some(Session::connection(Transport::Stdio, 2)));
        assert_eq!(s.set(&a, "sim-1@x".into()), Ok(None));
        assert_eq!(s.get(&b), None, "A's selection is not B's");
        assert_eq!(s.set(&b, "sim-2@x".into()), Ok(None));
        assert_eq!(s.get(&a).as_deref(), Some("sim-1@x"));
        assert_eq!(s.get(&b).as_deref(), Some("sim-2@x"));
        // The person's own selection is neither.
        assert_eq!(s.get(&origin(None)), None);
        s.session_ended(Session::connection(Transport::Stdio, 1).key());
        assert_eq!(s.get(&a), None);
        assert!(s.selected_by_anyone("sim-2@x"));
        assert!(!s.selected_by_anyone("sim-1@x"));
    }

    #[test]
    fn a_stateless_request_has_no_selection() {
        let s = Selections::default();
        let st = origin(Some(Session::stateless(&None)));
        assert_eq!(s.set(&st, "sim-1@x".into()), Err(NoSession));
        assert_eq!(s.get(&st), None);
    }
}
