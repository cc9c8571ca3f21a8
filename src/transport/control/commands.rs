//! What a person's command does to the core, in one place for every control centre: the
//! in-process one (`app::local`) and each attached one (the attach channel's `access`,
//! `setting`, `break_lease` and `batch` commands) call these same functions. Each returns the
//! line the person is told; the ones that touch files are blocking and run off the loop.
//! A change of access or settings is the person's act on the audit trail, like a lease they
//! broke: origin `tui`, decided by key, naming the terminal.
use serde_json::json;

use crate::audit::AuditRecord;
use crate::mcp::Core;
use crate::mcp::events::{ClientId, DecidedBy, Decision, Outcome, Transport};
use crate::mcp::registry::Level;
use crate::protocol::{AccessChange, SettingField};

/// The audit trail's name for a person's change of the access switches or host groups.
pub const ACCESS_TOOL: &str = "control_access";
/// The audit trail's name for a person's change of a setting.
pub const SETTING_TOOL: &str = "control_setting";
/// The tool name the person's rotation of the control credential is recorded under.
pub const CREDENTIAL_TOOL: &str = "control_credential";

/// Who acts: the in-process control centre, or an attached terminal (its `you` label).
#[derive(Debug, Clone)]
pub struct Actor {
    /// How the audit trail names the terminal where a record carries a plain string.
    pub label: String,
    /// How calls through the pipeline name it.
    pub client: ClientId,
    /// The terminal as the session named it (`decider` on the person's records).
    pub terminal: String,
    /// What its keypresses are recorded as: the serving process's keyboard, or attached.
    pub by: DecidedBy,
}

impl Actor {
    /// The control centre in the serving process.
    pub fn in_process() -> Actor {
        Actor {
            label: "terminal".into(),
            client: crate::mcp::server::control_centre(),
            terminal: crate::mcp::confirm::local_label(),
            by: DecidedBy::Key,
        }
    }

    /// An attached control centre, named as its decisions are (`attach pid 42 on /dev/pts/3`).
    pub fn attached(you: &str) -> Actor {
        Actor {
            label: you.to_string(),
            client: ClientId {
                name: "control centre".into(),
                version: you.to_string(),
            },
            terminal: you.to_string(),
            by: DecidedBy::Attached,
        }
    }

    /// A record of this person's own act: origin `tui`, decided by a key at this terminal.
    fn record(&self, tool: &str, level: Level, args: serde_json::Value) -> AuditRecord {
        let mut r = AuditRecord::new(tool, level, Transport::Tui, args);
        r.client = format!("{}/{}", self.client.name, self.client.version);
        r.decision = Some(Decision {
            approved: true,
            by: self.by,
        });
        r.decider = Some(self.terminal.clone());
        r
    }
}

/// Whether a change lets agents do more than before (the control centre asked first).
pub fn widens(change: &AccessChange) -> bool {
    match change {
        AccessChange::SetEnabled { on, .. }
        | AccessChange::SetGroup { on, .. }
        | AccessChange::SetDevice { on, .. } => *on,
        // A list can widen as well as narrow: recorded as a widening either way.
        AccessChange::SetDeviceApps { .. } => true,
        AccessChange::EnableAll => true,
        AccessChange::ReadOnlyOnly => false,
    }
}

/// Switch tools or host groups as `actor`; in force at once, and on the audit trail (a
/// widening as a destructive record, which the trail's cap never drops). Returns what
/// changed, for the notice [`save_access`] gives once the file is written.
pub fn access(core: &Core, change: &AccessChange, actor: &Actor) -> Result<String, String> {
    let done = apply_access(core, change);
    let level = if widens(change) {
        Level::Destructive
    } else {
        Level::SafeAction
    };
    let mut r = actor.record(ACCESS_TOOL, level, json!(change));
    match &done {
        Ok(what) => r.result = Some(json!({ "changed": what })),
        Err(e) => {
            r.outcome = Outcome::Error;
            r.error = Some(e.clone());
        }
    }
    core.audit.append(r);
    // Sessions re-read their tool lists (mcp::subscribe::ToolListWatch).
    core.emit(crate::mcp::events::ServerEvent::ServerStateChanged { running: true });
    done
}

fn apply_access(core: &Core, change: &AccessChange) -> Result<String, String> {
    let onoff = |on: bool| if on { "on" } else { "off" };
    Ok(match change {
        AccessChange::SetEnabled { tool, on } => {
            let t = core
                .tool(tool)
                .ok_or_else(|| format!("no tool {tool:?} in the catalogue"))?;
            core.access.set_enabled(&t, *on);
            format!("{tool} {}", onoff(*on))
        }
        AccessChange::SetGroup { group, on } => {
            core.access.set_group(*group, *on);
            format!("host group {} {}", group.key(), onoff(*on))
        }
        AccessChange::EnableAll => {
            core.access.enable_all();
            "every tool and host group on".to_string()
        }
        AccessChange::ReadOnlyOnly => {
            core.access.read_only_only(&core.all_tools());
            "read-only tools only".to_string()
        }
        AccessChange::SetDevice {
            device,
            interact,
            on,
            label,
        } => {
            let name = label.clone().unwrap_or_else(|| device.clone());
            core.access
                .set_device(device, *interact, *on, label.clone());
            let what = if *interact { "Interact" } else { "Inspect" };
            format!("{what} {} on {name}", onoff(*on))
        }
        AccessChange::SetDeviceApps {
            device,
            apps,
            label,
        } => {
            let name = label.clone().unwrap_or_else(|| device.clone());
            core.access
                .set_device_apps(device, apps.clone(), label.clone());
            match apps {
                Some(a) => format!("Interact on {name} limited to {}", a.join(", ")),
                None => format!("Interact on {name} with any app"),
            }
        }
    })
}

/// Write the access switches to the config file (blocking).
pub fn save_access(core: &Core, what: &str) -> Result<String, String> {
    core.save_access()
        .map(|()| saved(core, what))
        .map_err(|e| format!("access changed but not saved: {e}"))
}

/// Change a setting as `actor` and save it (blocking), on the audit trail like an agent's
/// `spock_update_settings` (destructive); the config's own checks bound the value.
pub fn setting(
    core: &Core,
    field: SettingField,
    value: u64,
    actor: &Actor,
) -> Result<String, String> {
    let r = core.update_config(|c| match field {
        SettingField::HistorySize => c.history.size = value as usize,
        SettingField::ConfirmTimeout => c.safety.confirm_timeout_secs = value,
        SettingField::Port => c.server.port = value.min(u16::MAX as u64) as u16,
    });
    let mut rec = actor.record(
        SETTING_TOOL,
        Level::Destructive,
        json!({ "field": field, "value": value }),
    );
    if let Err(e) = &r {
        rec.outcome = Outcome::Error;
        rec.error = Some(e.to_string());
    }
    core.audit.append(rec);
    match r {
        Ok(_) if field == SettingField::Port => Ok(format!(
            "port {value} saved; it applies when the server restarts (R)"
        )),
        Ok(_) => Ok(saved(core, &format!("{} = {value}", field.label()))),
        Err(e) => Err(format!("not saved: {e}")),
    }
}

/// The control credential replaced (Settings' `K`), on record as the person's act. Blocking
/// (writes the file): run off the runtime.
pub fn rotate_credential(
    core: &Core,
    store: &crate::config::token::TokenStore,
    actor: &Actor,
) -> Result<String, String> {
    let r = store.rotate();
    let mut rec = actor.record(
        CREDENTIAL_TOOL,
        Level::Destructive,
        json!({ "rotated": store.path().display().to_string() }),
    );
    if let Err(e) = &r {
        rec.outcome = Outcome::Error;
        rec.error = Some(e.to_string());
    }
    core.audit.append(rec);
    match r {
        Ok(()) => Ok(format!(
            "control credential rotated ({}): terminals attached with the old one are detached \
             within 5 s and attach again only with the new one",
            store.path().display()
        )),
        Err(e) => Err(format!("the control credential was not rotated: {e}")),
    }
}

fn saved(core: &Core, what: &str) -> String {
    let file = crate::config::config_file(&core.paths);
    format!("saved {what} to {}", file.display())
}

/// Break lease `id` on `device`, on record as `actor`'s act.
pub fn break_lease(core: &Core, id: u64, device: &str, actor: &Actor) -> String {
    match crate::mcp::lease::break_lease_by(core, device, id, &actor.label, actor.by) {
        Some(l) => format!(
            "broke the lease on {device} held by {}",
            l.holder.describe()
        ),
        None => format!("the lease on {device} had already ended"),
    }
}
