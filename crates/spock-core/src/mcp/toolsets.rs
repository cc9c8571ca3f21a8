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
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Mutex, RwLock};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// One named set of tools; a new tool names one of these in its `Meta`. (Not a doc comment:
// schemars would copy it into `spock_enable_toolset`'s input schema.)
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Toolset {
    Core,
    Ui,
    Gestures,
    Apps,
    Debug,
    Files,
    Shell,
    Batch,
    Appfunctions,
    Host,
}

impl Toolset {
    pub const ALL: [Toolset; 10] = [
        Toolset::Core,
        Toolset::Ui,
        Toolset::Gestures,
        Toolset::Apps,
        Toolset::Debug,
        Toolset::Files,
        Toolset::Shell,
        Toolset::Batch,
        Toolset::Appfunctions,
        Toolset::Host,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Toolset::Core => "core",
            Toolset::Ui => "ui",
            Toolset::Gestures => "gestures",
            Toolset::Apps => "apps",
            Toolset::Debug => "debug",
            Toolset::Files => "files",
            Toolset::Shell => "shell",
            Toolset::Batch => "batch",
            Toolset::Appfunctions => "appfunctions",
            Toolset::Host => "host",
        }
    }

    /// One line, for `spock_list_toolsets`, the README and the control centre.
    pub fn purpose(self) -> &'static str {
        match self {
            Toolset::Core => {
                "The agent loop: devices, screenshot and UI tree, find/wait, tap, type into an \
                 element, swipe, keys (returnScreen settles and observes), launch, status, toolsets."
            }
            Toolset::Ui => {
                "More element work: long press, scroll, accessibility actions, assertions, \
                 accessibility audit."
            }
            Toolset::Gestures => {
                "Raw input: type into the focused field; long press, pinch, two-finger swipe, \
                 rotate at coordinates."
            }
            Toolset::Apps => {
                "Packages and apps: list and inspect, stop, restart, permissions, deep links, \
                 intents, clear data, uninstall."
            }
            Toolset::Debug => {
                "Triage: debug context, logcat, activities, fragments, processes, battery, \
                 network, device and screen facts."
            }
            Toolset::Files => "Files and recordings: push and pull files, record the screen.",
            Toolset::Shell => "A shell command on the device (android_run_adb_command).",
            Toolset::Batch => {
                "Batch tasks: store, run, inline runs, run history; keep the screen on."
            }
            Toolset::Appfunctions => "Android AppFunctions: list and call an app's functions.",
            Toolset::Host => {
                "spock-tui and the lab: device leases, projects, its own log and settings, \
                 control-centre navigation, adb server restart."
            }
        }
    }

    pub fn parse(name: &str) -> Option<Toolset> {
        Toolset::ALL.into_iter().find(|t| t.key() == name)
    }
}

/// Every set's name, for error messages.
pub fn names() -> String {
    Toolset::ALL.map(Toolset::key).join(", ")
}

/// A choice of sets: `core` is always in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection(BTreeSet<Toolset>);

impl Selection {
    pub fn core() -> Selection {
        Selection([Toolset::Core].into())
    }

    pub fn all() -> Selection {
        Selection(Toolset::ALL.into())
    }

    /// `a,b`, `all`, or empty (core only); spaces are ignored. An unknown name is an error that
    /// names the known ones.
    pub fn parse(text: &str) -> Result<Selection, String> {
        Self::from_names(text.split(','))
    }

    pub fn from_names<'a>(list: impl IntoIterator<Item = &'a str>) -> Result<Selection, String> {
        let mut sel = Selection::core();
        for n in list.into_iter().map(str::trim).filter(|n| !n.is_empty()) {
            if n == "all" {
                return Ok(Selection::all());
            }
            let t = Toolset::parse(n).ok_or_else(|| {
                format!(
                    "unknown toolset {n:?}: the toolsets are {}, or all",
                    names()
                )
            })?;
            sel.0.insert(t);
        }
        Ok(sel)
    }

    pub fn contains(&self, t: Toolset) -> bool {
        t == Toolset::Core || self.0.contains(&t)
    }

    pub fn union(&self, other: &Selection) -> Selection {
        Selection(self.0.union(&other.0).copied().collect())
    }

    pub fn insert(&mut self, t: Toolset) -> bool {
        self.0.insert(t)
    }

    pub fn is_all(&self) -> bool {
        Toolset::ALL.iter().all(|t| self.contains(*t))
    }

    pub fn iter(&self) -> impl Iterator<Item = Toolset> + '_ {
        Toolset::ALL.into_iter().filter(|t| self.contains(*t))
    }

    /// `core,apps` (or `all`), as `--toolsets` and `?toolsets=` take it.
    pub fn label(&self) -> String {
        if self.is_all() {
            return "all".into();
        }
        self.iter().map(Toolset::key).collect::<Vec<_>>().join(",")
    }
}

/// How many sessions' enabled sets are remembered; past it the oldest is forgotten (its client
/// sees only what its endpoint and the server chose, and can enable again).
const SESSIONS_CAP: usize = 4096;

#[derive(Debug, Default)]
struct Enabled {
    map: HashMap<String, Selection>,
    order: VecDeque<String>,
}

/// The server's choice and each session's enabled sets (in [`crate::mcp::core::Core`]).
#[derive(Debug, Default)]
pub struct Toolsets {
    /// From `[server] toolsets`.
    configured: RwLock<Selection>,
    /// `--toolsets` on the command line: wins over the configuration for this process.
    flag: RwLock<Option<Selection>>,
    enabled: Mutex<Enabled>,
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
