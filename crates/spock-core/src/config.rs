//! Configuration: an embedded default TOML merged under the user's file (unknown keys are an
//! error naming the key), and the directories everything lives in.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::AccessSettings;
use crate::redact::RedactionRule;

pub mod lock;
pub mod paths;
pub mod private;
pub mod token;

pub use paths::Paths;

pub const DEFAULT_TOML: &str = include_str!("../../../assets/default-config.toml");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub safety: SafetyConfig,
    pub access: AccessSettings,
    pub history: HistoryConfig,
    pub audit: AuditConfig,
    pub device: DeviceConfig,
    pub redaction: RedactionConfig,
    pub batch: BatchConfig,
    #[serde(default)]
    pub confirm: ConfirmConfig,
}

/// `[confirm]`: who else may answer a destructive call's confirmation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmConfig {
    /// Ask through the MCP client (elicitation) when no control centre is attached. It trusts
    /// the client to show the request to a person.
    #[serde(default)]
    pub via_client: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub port: u16,
    pub bind: String,
    pub max_body_bytes: usize,
    pub max_sessions: usize,
    pub handshake_timeout_secs: u64,
    pub session_idle_secs: u64,
    pub write_timeout_secs: u64,
    /// Toolsets advertised to every client besides `core` (`["apps"]`, `["all"]`).
    #[serde(default)]
    pub toolsets: Vec<String>,
    /// The agent's door (SECURITY.md): a directory of its own, outside the private runtime
    /// directory, with an MCP socket and descriptor for `agent_group`. Empty: no door.
    #[serde(default)]
    pub agent_dir: String,
    #[serde(default)]
    pub agent_group: String,
}

impl ServerConfig {
    /// [`Self::toolsets`] as a selection (`validate` refuses an unknown name).
    pub fn toolset_selection(&self) -> crate::model::toolset::Selection {
        crate::model::toolset::Selection::from_names(self.toolsets.iter().map(String::as_str))
            .unwrap_or_else(|_| crate::model::toolset::Selection::core())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafetyConfig {
    pub confirm_timeout_secs: u64,
    /// With no control centre attached, a destructive call waits (up to the timeout) for one
    /// to attach (`spock-tui attach`) instead of being denied at once.
    #[serde(default)]
    pub wait_for_attach: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryConfig {
    pub size: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditConfig {
    /// The whole audit trail (live and rotated files) in MiB; read at start.
    pub max_total_mb: u64,
    /// Where the chain's head is anchored: `auto`, `off`, `unix:/PATH` or `tcp:HOST:PORT`
    /// (`crate::audit::anchor::Target`); read at start.
    #[serde(default = "AuditConfig::default_anchor")]
    pub anchor: String,
    /// A log the anchors can be read back from (the collector's file, when this user may read
    /// it): at start the trail continues after the last anchored seq, and the trail is
    /// verified against it in the background (Status shows the result). Empty: none.
    #[serde(default)]
    pub anchor_source: String,
}

impl AuditConfig {
    fn default_anchor() -> String {
        "auto".into()
    }

    /// [`Self::anchor_source`], when set.
    pub fn anchor_source(&self) -> Option<std::path::PathBuf> {
        let s = self.anchor_source.trim();
        (!s.is_empty()).then(|| std::path::PathBuf::from(s))
    }

    /// [`Self::anchor`] parsed (`validate` refuses one that does not parse).
    pub fn anchor_target(&self) -> crate::audit::anchor::Target {
        crate::audit::anchor::Target::parse(&self.anchor)
            .unwrap_or(crate::audit::anchor::Target::Off)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    pub adb: Vec<String>,
    pub command_timeout_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchConfig {
    /// Every batch run stops (`timed_out`) after this many seconds; a run may ask for less
    /// (`timeLimitSecs`), never more. Read when a run starts.
    pub max_run_secs: u64,
}

/// The largest `batch.max_run_secs` accepted: a day.
pub const MAX_BATCH_RUN_SECS: u64 = 86_400;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionConfig {
    pub rules: Vec<RedactionRule>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

impl Config {
    /// The built-in default alone.
    pub fn default_config() -> Config {
        // The embedded default is covered by a test; an error here is a build defect.
        toml::from_str(DEFAULT_TOML).unwrap_or_else(|e| panic!("embedded default config: {e}"))
    }

    /// Merge `user` (TOML text from `path`) over the default and validate it.
    pub fn from_user_toml(user: &str, path: &str) -> Result<Config, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_string(),
            message,
        };
        let mut base: toml::Table =
            toml::from_str(DEFAULT_TOML).map_err(|e| invalid(e.to_string()))?;
        let mut over: toml::Table = toml::from_str(user).map_err(|e| invalid(e.to_string()))?;
        // Own tools (`[[tool]]`) are read by `crate::own`, which reports their errors itself:
        // a broken tool never stops the settings from loading.
        over.remove(OWN_TOOLS_KEY);
        merge(&mut base, over, "").map_err(invalid)?;
        let cfg: Config = toml::Value::Table(base)
            .try_into()
            .map_err(|e: toml::de::Error| invalid(e.to_string()))?;
        cfg.validate().map_err(invalid)?;
        Ok(cfg)
    }

    /// Load `path` if it exists, else the default.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        match private::read_to_string(path) {
            Ok(text) => Config::from_user_toml(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default_config()),
            Err(source) => Err(ConfigError::Read {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Write the configuration (settings changed from the control centre or a tool): only what
    /// differs from the built-in default, and every key the file already held, so the file
    /// says what the person chose and a later default still reaches everything else.
    pub fn save(&self, path: &Path) -> Result<(), ConfigError> {
        let write = |source| ConfigError::Write {
            path: path.display().to_string(),
            source,
        };
        let invalid = |message: String| ConfigError::Invalid {
            path: path.display().to_string(),
            message,
        };
        let held: toml::Table = private::read_to_string(path)
            .ok()
            .and_then(|text| toml::from_str(&text).ok())
            .unwrap_or_default();
        let default: toml::Table =
            toml::from_str(DEFAULT_TOML).map_err(|e| invalid(e.to_string()))?;
        let full = toml::Table::try_from(self).map_err(|e| invalid(e.to_string()))?;
        let mut out = chosen(full, &default, &held);
        // The person's own tools stay as they wrote them.
        if let Some(tools) = held.get(OWN_TOOLS_KEY) {
            out.insert(OWN_TOOLS_KEY.into(), tools.clone());
        }
        let text = toml::to_string_pretty(&out).map_err(|e| invalid(e.to_string()))?;
        if let Some(dir) = path.parent() {
            paths::private_dir(dir).map_err(write)?;
        }
        paths::write_atomic(path, text.as_bytes()).map_err(write)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.server.max_sessions == 0 {
            return Err("server.max_sessions must be at least 1".into());
        }
        if self.safety.confirm_timeout_secs == 0 || self.safety.confirm_timeout_secs > 3600 {
            return Err("safety.confirm_timeout_secs must be between 1 and 3600".into());
        }
        if self.history.size == 0 || self.history.size > 1_000_000 {
            return Err("history.size must be between 1 and 1000000".into());
        }
        if self.audit.max_total_mb == 0 || self.audit.max_total_mb > 1024 * 1024 {
            return Err("audit.max_total_mb must be between 1 and 1048576".into());
        }
        crate::audit::anchor::Target::parse(&self.audit.anchor)?;
        if self.server.write_timeout_secs == 0 || self.server.write_timeout_secs > 3600 {
            return Err("server.write_timeout_secs must be between 1 and 3600".into());
        }
        if self.server.max_body_bytes < 1024 {
            return Err("server.max_body_bytes must be at least 1024".into());
        }
        if self.batch.max_run_secs == 0 || self.batch.max_run_secs > MAX_BATCH_RUN_SECS {
            return Err(format!(
                "batch.max_run_secs must be between 1 and {MAX_BATCH_RUN_SECS}"
            ));
        }
        crate::redact::Redactor::new(&self.redaction.rules)
            .map_err(|e| format!("redaction.rules: {e}"))?;
        crate::model::toolset::Selection::from_names(
            self.server.toolsets.iter().map(String::as_str),
        )
        .map_err(|e| format!("server.toolsets: {e}"))?;
        Ok(())
    }
}

/// The part of `full` worth writing: values that differ from `default`, and keys `held` has.
fn chosen(full: toml::Table, default: &toml::Table, held: &toml::Table) -> toml::Table {
    let empty = toml::Table::new();
    let mut out = toml::Table::new();
    for (key, value) in full {
        match (value, default.get(&key)) {
            (toml::Value::Table(t), Some(toml::Value::Table(d))) => {
                let h = held
                    .get(&key)
                    .and_then(toml::Value::as_table)
                    .unwrap_or(&empty);
                let sub = chosen(t, d, h);
                if !sub.is_empty() {
                    out.insert(key, toml::Value::Table(sub));
                }
            }
            (v, d) => {
                if d != Some(&v) || held.contains_key(&key) {
                    out.insert(key, v);
                }
            }
        }
    }
    out
}

/// The key of own tools' declarations in config.toml (`[[tool]]`, see `crate::own`).
pub const OWN_TOOLS_KEY: &str = "tool";

/// Tables whose keys are the person's own names rather than settings.
const OPEN_TABLES: [&str; 1] = ["access.devices"];

/// Deep-merge `over` into `base`; a key `base` does not have is an error naming it.
fn merge(base: &mut toml::Table, over: toml::Table, prefix: &str) -> Result<(), String> {
    for (key, value) in over {
        let name = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (base.get_mut(&key), value) {
            (None, _) => return Err(format!("unknown key `{name}`")),
            // Keyed by what the person names (device identities): any key, each entry's own
            // fields checked when it is read.
            (Some(slot @ toml::Value::Table(_)), v @ toml::Value::Table(_))
                if OPEN_TABLES.contains(&name.as_str()) =>
            {
                *slot = v
            }
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o, &name)?,
            (Some(slot), v) => *slot = v,
        }
    }
    Ok(())
}

/// Where the user's config file is.
pub fn config_file(paths: &Paths) -> PathBuf {
    paths.config.join("config.toml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_parses_and_validates() {
        let c = Config::default_config();
        assert_eq!(c.server.bind, "127.0.0.1");
        assert!(c.validate().is_ok());
    }

    #[test]
    fn user_file_merges_over_default() {
        let c = Config::from_user_toml(
            "[server]\nport = 9000\n[access]\ndisabled = [\"android_tap\"]\n",
            "u.toml",
        )
        .unwrap();
        assert_eq!(c.server.port, 9000);
        assert_eq!(c.server.bind, "127.0.0.1");
        assert!(c.access.disabled.contains("android_tap"));
    }

    #[test]
    fn unknown_key_is_named() {
        let e = Config::from_user_toml("[server]\nprot = 1\n", "u.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("server.prot"), "{e}");
        let e = Config::from_user_toml("[nope]\n", "u.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`nope`"), "{e}");
    }

    #[test]
    fn invalid_values_are_refused() {
        let e = Config::from_user_toml("[safety]\nconfirm_timeout_secs = 0\n", "u.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("confirm_timeout_secs"), "{e}");
        for bad in ["0", "86401"] {
            let e = Config::from_user_toml(&format!("[batch]\nmax_run_secs = {bad}\n"), "u.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains("batch.max_run_secs"), "{e}");
        }
        let c = Config::from_user_toml("[batch]\nmax_run_secs = 30\n", "u.toml").unwrap();
        assert_eq!(c.batch.max_run_secs, 30);
        assert_eq!(Config::default_config().batch.max_run_secs, 600);
    }

    #[test]
    fn save_writes_only_what_was_chosen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        // A key the person wrote stays, even when it equals the default.
        std::fs::write(&path, "[safety]\nconfirm_timeout_secs = 60\n").unwrap();
        let mut c = Config::load(&path).unwrap();
        c.history.size = 77;
        c.access.disabled.insert("android_tap".into());
        c.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let table: toml::Table = toml::from_str(&text).unwrap();
        let keys: Vec<String> = table
            .iter()
            .flat_map(|(k, v)| {
                v.as_table()
                    .into_iter()
                    .flat_map(move |t| t.keys().map(move |s| format!("{k}.{s}")))
            })
            .collect();
        assert_eq!(
            keys,
            [
                "access.disabled",
                "history.size",
                "safety.confirm_timeout_secs"
            ],
            "{text}"
        );
        assert_eq!(Config::load(&path).unwrap(), c);
    }

    #[test]
    fn save_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c/config.toml");
        let mut c = Config::default_config();
        c.history.size = 77;
        c.save(&path).unwrap();
        assert_eq!(Config::load(&path).unwrap(), c);
    }
}
