//! Toolset names and a selection of them: plain data the configuration validates and the MCP
//! core lists by (`mcp::toolsets` owns who sees which; `config` checks `[server] toolsets`
//! without importing the core).
use std::collections::BTreeSet;

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
