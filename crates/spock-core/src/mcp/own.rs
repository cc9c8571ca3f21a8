//! The own tools loaded now: read from config.toml and `tools.d` at start and on every reload
//! (a file's change, Settings' key, `spock-tui tools reload`). A reload replaces the whole set
//! at once; a call already running keeps the declaration it started with. A file with an
//! error loads nothing and is reported with its line; the others load.
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::mcp::registry::ToolDef;
use crate::own::{FileError, OwnTool};

/// What the last load read: each file with how many tools it gave, and each file that loaded
/// nothing, with its line and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub files: Vec<(PathBuf, usize)>,
    pub errors: Vec<String>,
    pub tools: Vec<String>,
}

impl Report {
    /// One line for a person: how many tools from how many files, and the first error.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} own tool{} from {} file{}",
            self.tools.len(),
            if self.tools.len() == 1 { "" } else { "s" },
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" }
        );
        if let Some(e) = self.errors.first() {
            s.push_str(&format!(
                "; {} file{} not loaded: {e}",
                self.errors.len(),
                if self.errors.len() == 1 { "" } else { "s" }
            ));
        }
        s
    }
}

#[derive(Default)]
struct Set {
    decls: Vec<OwnTool>,
    tools: Vec<ToolDef>,
    report: Report,
    generation: u64,
    /// The `tools.d` files as they were when this set was read ([`crate::own::stamp`]).
    stamp: Vec<crate::own::Stamp>,
}

/// The loaded set, replaced whole by [`OwnTools::load`].
#[derive(Default)]
pub struct OwnTools {
    set: RwLock<Arc<Set>>,
}

impl std::fmt::Debug for OwnTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnTools")
            .field("tools", &self.current().tools.len())
            .finish()
    }
}

impl OwnTools {
    fn current(&self) -> Arc<Set> {
        self.set.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn get(&self, name: &str) -> Option<ToolDef> {
        self.current()
            .tools
            .iter()
            .find(|t| t.name == name)
            .cloned()
    }

    pub fn all(&self) -> Vec<ToolDef> {
        self.current().tools.clone()
    }

    /// Bumped by every load that changed the declarations (sessions compare it to send
    /// `list_changed`).
    pub fn generation(&self) -> u64 {
        self.current().generation
    }

    pub fn report(&self) -> Report {
        self.current().report.clone()
    }

    /// The `tools.d` files as the loaded set read them: a watcher that sees another stamp
    /// reloads, whoever loaded last (a file created and removed between two of its looks is
    /// still noticed when a command loaded it in between).
    pub fn stamp(&self) -> Vec<crate::own::Stamp> {
        self.current().stamp.clone()
    }

    /// Reads every declaration again (blocking: call it off the async runtime). `builtin`
    /// says a name is a built-in tool's. Returns the report and whether the set changed.
    pub fn load(&self, config_file: &Path, builtin: &dyn Fn(&str) -> bool) -> (Report, bool) {
        // Taken before the files are read: a change made while they are read is seen again.
        let stamp = crate::own::stamp(&crate::own::tools_dir(
            config_file.parent().unwrap_or(Path::new(".")),
        ));
        let loaded = crate::own::load(config_file, builtin);
        let report = Report {
            files: loaded.files.clone(),
            errors: loaded.errors.iter().map(FileError::to_string).collect(),
            tools: loaded.tools.iter().map(|t| t.name.clone()).collect(),
        };
        for e in &loaded.errors {
            tracing::error!("own tools: {e} (nothing from that file is loaded)");
        }
        let mut slot = self.set.write().unwrap_or_else(|p| p.into_inner());
        let changed = slot.decls != loaded.tools;
        let generation = slot.generation + u64::from(changed);
        let tools = loaded
            .tools
            .iter()
            .map(crate::mcp::tools::own::tool_of)
            .collect();
        *slot = Arc::new(Set {
            decls: loaded.tools,
            tools,
            report: report.clone(),
            generation,
            stamp,
        });
        (report, changed)
    }
}

impl crate::mcp::Core {
    /// The tool named `name`: a built-in, else an own tool loaded now.
    pub fn tool(&self, name: &str) -> Option<ToolDef> {
        match self.registry.get(name) {
            Some(t) => Some(t.clone()),
            None => self.kept::<OwnTools>().get(name),
        }
    }

    /// Every tool: the built-ins in catalogue order, then the own tools loaded now.
    pub fn all_tools(&self) -> Vec<ToolDef> {
        let mut all = self.registry.all().to_vec();
        all.extend(self.kept::<OwnTools>().all());
        all
    }

    /// The own tools (see [`OwnTools`]).
    pub fn own_tools(&self) -> Arc<OwnTools> {
        self.kept::<OwnTools>()
    }

    /// Reads the own tools' files again (blocking: off the async runtime). When the set
    /// changed, sessions are told their tool list changed.
    pub fn reload_own_tools(&self) -> Report {
        let file = crate::config::config_file(&self.paths);
        let builtin = |n: &str| self.registry.get(n).is_some();
        let (report, changed) = self.kept::<OwnTools>().load(&file, &builtin);
        if changed {
            tracing::info!("own tools: {}", report.summary());
            self.emit(crate::mcp::ServerEvent::ServerStateChanged { running: true });
        }
        report
    }
}
