//! Toolsets: named groups of tools, so a client's `tools/list` carries the agent loop (`core`)
//! and whatever else was chosen, not all seventy tools. Each tool's declaration names its set
//! ([`crate::mcp::registry::Meta::toolset`]); this module owns the sets, what each client
//! sees, and the per-session sets enabled with `spock_enable_toolset`.
//!
//! What a client sees is `core`, plus the server's choice (`--toolsets`, `[server] toolsets`),
//! plus what its endpoint asked for (`/mcp?toolsets=…`, `spock-tui relay --toolsets …`), plus
//! (2025-era sessions only) the sets it enabled in its session. A 2026-07-28 request has no
//! session: its list may not change as a side effect of another request, so it can only widen
//! through its endpoint. Toolsets decide what is listed and callable directly; they never touch
//! the access switches or confirmations.
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, RwLock};

pub use crate::model::toolset::{Selection, Toolset, names};

/// How many sessions' enabled sets are remembered; past it the oldest is forgotten (its client
/// sees only what its endpoint and the server chose, and can enable again).
const SESSIONS_CAP: usize = 4096;

#[derive(Debug, Default)]
struct Enabled {
    map: HashMap<String, Selection>,
    order: VecDeque<String>,
}

/// How many clients' enabled sets are remembered across restarts.
const REMEMBERED_CAP: usize = 256;

/// The server's choice and each session's enabled sets (in [`crate::mcp::core::Core`]).
#[derive(Debug, Default)]
pub struct Toolsets {
    /// From `[server] toolsets`.
    configured: RwLock<Selection>,
    /// `--toolsets` on the command line: wins over the configuration for this process.
    flag: RwLock<Option<Selection>>,
    enabled: Mutex<Enabled>,
    /// The sets each client enabled, by who it is ([`Toolsets::identity`]), kept in a file so a
    /// client whose relay reconnects after a restart (and replays its initialize) keeps them.
    remembered: Mutex<Remembered>,
}

#[derive(Debug, Default)]
struct Remembered {
    file: Option<std::path::PathBuf>,
    /// Identity → set names, oldest first.
    list: Vec<(String, Vec<String>)>,
}

impl Toolsets {
    pub fn new(configured: Selection) -> Toolsets {
        Toolsets {
            configured: RwLock::new(configured),
            ..Default::default()
        }
    }

    /// What the server advertises to every client (besides what each asks for).
    pub fn base(&self) -> Selection {
        if let Some(Some(f)) = self.flag.read().ok().map(|f| f.clone()) {
            return f;
        }
        self.configured
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|_| Selection::core())
    }

    pub fn set_flag(&self, sel: Option<Selection>) {
        if let Ok(mut f) = self.flag.write() {
            *f = sel;
        }
    }

    pub fn set_configured(&self, sel: Selection) {
        if let Ok(mut c) = self.configured.write() {
            *c = sel;
        }
    }

    /// What a call's session is listed: the server's choice, what its endpoint asked for, and
    /// (not for a stateless request) what it enabled. No session is the person's own call:
    /// everything.
    pub fn for_session(&self, session: Option<&super::lease::Session>) -> Selection {
        let Some(s) = session else {
            return Selection::all();
        };
        let sel = self.base().union(s.toolsets());
        if s.is_stateless() {
            sel
        } else {
            sel.union(&self.enabled(s.key()))
        }
    }

    /// The sets a session enabled (empty for none).
    pub fn enabled(&self, session_key: &str) -> Selection {
        self.enabled
            .lock()
            .ok()
            .and_then(|e| e.map.get(session_key).cloned())
            .unwrap_or_default()
    }

    /// Enable `t` for the session; true when it was not on before.
    pub fn enable(&self, session_key: &str, t: Toolset) -> bool {
        let Ok(mut e) = self.enabled.lock() else {
            return false;
        };
        if !e.map.contains_key(session_key) {
            e.order.push_back(session_key.to_string());
        }
        let added = e.map.entry(session_key.to_string()).or_default().insert(t);
        while e.map.len() > SESSIONS_CAP {
            match e.order.pop_front() {
                Some(old) => {
                    e.map.remove(&old);
                }
                None => break,
            }
        }
        added
    }

    /// Who a session's client is, for remembering what it enabled across a restart: its
    /// transport and name, and for stdio the relay's process (which outlives the server's
    /// restart and reconnects). `None` for a client that gave no name, or a stateless request.
    pub fn identity(
        session: &super::lease::Session,
        client: Option<&crate::model::ClientId>,
    ) -> Option<String> {
        let c = client?;
        if session.is_stateless() {
            return None;
        }
        let pid = session
            .peer()
            .and_then(|p| p.pid)
            .map(|p| format!(" relay {p}"))
            .unwrap_or_default();
        Some(format!(
            "{}{pid} {}/{}",
            session.label().split(['#', ' ']).next().unwrap_or(""),
            c.name,
            c.version
        ))
    }

    /// Remember what clients enabled in `file` (read now; written on each change).
    pub fn remember_in(&self, file: std::path::PathBuf) {
        let list = crate::config::private::read_to_string(&file)
            .ok()
            .and_then(|t| serde_json::from_str::<Vec<(String, Vec<String>)>>(&t).ok())
            .unwrap_or_default();
        if let Ok(mut r) = self.remembered.lock() {
            *r = Remembered {
                file: Some(file),
                list,
            };
        }
    }

    /// [`Self::enable`], remembered for `identity` too (written off the runtime).
    pub fn enable_remembered(&self, session_key: &str, identity: Option<&str>, t: Toolset) -> bool {
        let added = self.enable(session_key, t);
        let Some(id) = identity else {
            return added;
        };
        let Ok(mut r) = self.remembered.lock() else {
            return added;
        };
        let mut sets = match r.list.iter().position(|(k, _)| k == id) {
            Some(i) => r.list.remove(i).1,
            None => Vec::new(),
        };
        if !sets.iter().any(|s| s == t.key()) {
            sets.push(t.key().to_string());
        }
        r.list.push((id.to_string(), sets));
        let over = r.list.len().saturating_sub(REMEMBERED_CAP);
        r.list.drain(..over);
        if let Some(file) = r.file.clone() {
            let text = serde_json::to_string(&r.list).unwrap_or_default();
            // A small file, written atomically; not on the async runtime's threads.
            let write = move || {
                let dir = file.parent().map(crate::config::paths::private_dir);
                if let Err(e) = dir
                    .unwrap_or(Ok(()))
                    .and_then(|()| crate::config::paths::write_atomic(&file, text.as_bytes()))
                {
                    tracing::warn!(error = %e, "the enabled toolsets were not saved");
                }
            };
            match tokio::runtime::Handle::try_current() {
                Ok(h) => drop(h.spawn_blocking(write)),
                Err(_) => write(),
            }
        }
        added
    }

    /// Enables for `session_key` what `identity` enabled before (a restart in between).
    /// Returns the sets restored.
    pub fn restore(&self, session_key: &str, identity: &str) -> Vec<Toolset> {
        let sets: Vec<Toolset> = self
            .remembered
            .lock()
            .ok()
            .and_then(|r| {
                r.list
                    .iter()
                    .find(|(k, _)| k == identity)
                    .map(|(_, v)| v.iter().filter_map(|n| Toolset::parse(n)).collect())
            })
            .unwrap_or_default();
        for t in &sets {
            self.enable(session_key, *t);
        }
        sets
    }

    /// The session is over (its connection closed, or its client ended it).
    pub fn session_ended(&self, session_key: &str) {
        if let Ok(mut e) = self.enabled.lock()
            && e.map.remove(session_key).is_some()
        {
            e.order.retain(|k| k != session_key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_parse_and_always_hold_core() {
        assert_eq!(Selection::parse("").unwrap(), Selection::core());
        let s = Selection::parse(" apps, files ").unwrap();
        assert!(
            s.contains(Toolset::Core) && s.contains(Toolset::Apps) && s.contains(Toolset::Files)
        );
        assert!(!s.contains(Toolset::Shell));
        assert_eq!(s.label(), "core,apps,files");
        assert!(Selection::parse("apps,all").unwrap().is_all());
        assert_eq!(Selection::all().label(), "all");
        let e = Selection::parse("apps,sudo").unwrap_err();
        assert!(e.contains("\"sudo\"") && e.contains("appfunctions"), "{e}");
    }

    #[test]
    fn a_session_enables_sets_until_it_ends() {
        let t = Toolsets::new(Selection::core());
        assert!(t.enable("stdio#1", Toolset::Apps));
        assert!(!t.enable("stdio#1", Toolset::Apps), "already on");
        assert!(t.enabled("stdio#1").contains(Toolset::Apps));
        assert!(!t.enabled("stdio#2").contains(Toolset::Apps), "per session");
        t.session_ended("stdio#1");
        assert!(!t.enabled("stdio#1").contains(Toolset::Apps));
    }

    #[test]
    fn the_flag_wins_over_the_configuration() {
        let t = Toolsets::new(Selection::parse("apps").unwrap());
        assert!(t.base().contains(Toolset::Apps));
        t.set_flag(Some(Selection::parse("files").unwrap()));
        assert!(t.base().contains(Toolset::Files) && !t.base().contains(Toolset::Apps));
    }
}
