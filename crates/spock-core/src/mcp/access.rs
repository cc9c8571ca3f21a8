//! Tool access: what may be *attempted*. Confirmation decides what actually runs.
//!
//! Stored as what is off (a tool added later is on), except the host groups that cannot be
//! undone by unticking a box, which are stored as what was allowed (a group added later starts
//! off). Every call is checked as it arrives, so revoking takes effect mid-session.
//! `--allow-all` lifts the switches for this process only; it never lifts a confirmation.
use std::sync::RwLock;

pub use crate::model::{AccessSettings, DEFAULT_DEVICE, DeviceAccess, DeviceBranch};

use super::registry::{AppTarget, Branch, HostGroup, Level, ToolDef};
use super::result::{ErrorKind, ToolError};

#[derive(Debug)]
pub struct Access {
    settings: RwLock<AccessSettings>,
    allow_all: bool,
    /// Where a person changes it, named in refusals.
    where_: String,
}

impl Access {
    pub fn new(settings: AccessSettings, allow_all: bool, where_: String) -> Self {
        Access {
            settings: RwLock::new(settings),
            allow_all,
            where_,
        }
    }

    pub fn allow_all(&self) -> bool {
        self.allow_all
    }

    pub fn settings(&self) -> AccessSettings {
        self.settings.read().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn replace(&self, new: AccessSettings) {
        if let Ok(mut s) = self.settings.write() {
            *s = new;
        }
    }

    /// Whether the stored switches allow the tool (ignoring `--allow-all`).
    pub fn stored_allows(&self, tool: &ToolDef) -> bool {
        let s = self.settings();
        !s.disabled.contains(tool.name) && tool.group.is_none_or(|g| g.on_in(&s))
    }

    pub fn allows(&self, tool: &ToolDef) -> bool {
        self.allow_all || self.stored_allows(tool)
    }

    /// The refusal for a call, or `Ok` when it may be attempted.
    pub fn check(&self, tool: &ToolDef) -> Result<(), ToolError> {
        if self.allows(tool) {
            return Ok(());
        }
        let s = self.settings();
        let (switch, message) = match tool.group {
            Some(g) if !g.on_in(&s) => (
                if g.starts_on() {
                    format!("access.disabled_groups -= \"{}\"", g.key())
                } else {
                    format!("access.allowed_groups += \"{}\"", g.key())
                },
                format!(
                    "{} is refused: the host group \"{}\" ({}) is off. A person can turn it on in \
                     the control centre (Settings → Tool access) or in {}.",
                    tool.name,
                    g.key(),
                    g.label(),
                    self.where_
                ),
            ),
            _ => (
                format!("access.disabled -= \"{}\"", tool.name),
                format!(
                    "{} is turned off. A person can turn it on in the control centre (Settings → \
                     Tool access) or in {} (access.disabled).",
                    tool.name, self.where_
                ),
            ),
        };
        Err(ToolError::new(ErrorKind::Disabled, message)
            .with_details(serde_json::json!({ "tool": tool.name, "setting": switch })))
    }

    /// What applies to the device with identity `identity`, read under the lock (no copy of
    /// the whole settings: this runs before every device command of a call).
    fn device_rule(&self, identity: Option<&str>) -> (DeviceAccess, DeviceBranch) {
        // A writer that panicked left the settings as they were: still the person's.
        self.settings
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .device(identity)
    }

    /// Whether the device tree says anything (an empty tree allows every device everything).
    pub fn has_device_rules(&self) -> bool {
        !self.allow_all
            && !self
                .settings
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .devices
                .is_empty()
    }

    /// The device (identity `identity`) has its Interact limited to some apps: agents' actions
    /// on it run one at a time ([`super::claims::Target::Screen`]).
    pub fn limits_apps(&self, identity: Option<&str>) -> bool {
        self.has_device_rules() && self.device_rule(identity).0.apps.is_some()
    }

    /// The device tree denies `tool` on every device: its branch is off in every entry and in
    /// the default for devices not seen yet. Such a tool is not listed (a tool some device still
    /// allows stays listed and is refused per call; a tool switched off stays listed, as ever).
    pub fn denied_on_every_device(&self, tool: &ToolDef) -> bool {
        if !self.has_device_rules() || tool.branch == Branch::Host {
            return false;
        }
        let s = self.settings();
        let default = s.devices.get(DEFAULT_DEVICE).cloned().unwrap_or_default();
        std::iter::once(&default)
            .chain(s.devices.values())
            .all(|d| match tool.branch {
                Branch::Inspect => !d.inspect,
                _ => !d.interact,
            })
    }

    /// A call of `tool` on `device` (identity `identity`, `None` when it has not said): refused
    /// when the device's branch for the tool is off, or when its Interact is limited to some
    /// apps and the tool cannot name the app it acts on (unless the entry allows that).
    pub fn check_device(
        &self,
        tool: &ToolDef,
        device: &str,
        identity: Option<&str>,
    ) -> Result<(), ToolError> {
        if self.allow_all || tool.branch == Branch::Host {
            return Ok(());
        }
        let (rule, branch) = self.device_rule(identity);
        let (on, key) = match tool.branch {
            Branch::Inspect => (rule.inspect, "inspect"),
            _ => (rule.interact, "interact"),
        };
        if !on {
            return Err(self.refused_on(tool.name, tool.branch, device, &branch, key, ""));
        }
        // An element action finds its element by reading the screen (and says what it found):
        // a device that may not be looked at is driven blind or not at all.
        if tool.branch == Branch::Interact && tool.reads_too && !rule.inspect {
            let mut e = self.refused_on(tool.name, Branch::Inspect, device, &branch, "inspect", "");
            e.message.push_str(&format!(
                " {} also reads the device (its answer shows what is there), which Inspect covers.",
                tool.name
            ));
            return Err(e);
        }
        if tool.branch == Branch::Interact
            && rule.apps.is_some()
            && !rule.raw
            && matches!(tool.app_target, AppTarget::Raw)
        {
            return Err(self.refused_on(
                tool.name,
                tool.branch,
                device,
                &branch,
                "raw",
                &format!(
                    " ({} cannot name the app it acts on, and Interact here is limited to {})",
                    tool.name,
                    list(rule.apps.as_ref())
                ),
            ));
        }
        Ok(())
    }

    /// `tool` reads the device besides acting on it (it sends the screen back): its Inspect.
    pub fn check_inspect(
        &self,
        tool: &str,
        device: &str,
        identity: Option<&str>,
    ) -> Result<(), ToolError> {
        if self.allow_all {
            return Ok(());
        }
        let (rule, branch) = self.device_rule(identity);
        if rule.inspect {
            return Ok(());
        }
        let mut e = self.refused_on(tool, Branch::Inspect, device, &branch, "inspect", "");
        e.message
            .push_str(" returnScreen reads the screen: call it without returnScreen.");
        Err(e)
    }

    /// An action of `tool` on `package`'s app on `device`: refused when the device's Interact
    /// is limited to apps that do not include it. `None`: the call names no app, which counts
    /// as what cannot name its app.
    pub fn check_app(
        &self,
        tool: &str,
        device: &str,
        identity: Option<&str>,
        package: Option<&str>,
    ) -> Result<(), ToolError> {
        if self.allow_all {
            return Ok(());
        }
        let (rule, branch) = self.device_rule(identity);
        let Some(apps) = &rule.apps else {
            return Ok(());
        };
        match package {
            Some(p) if apps.contains(p) => Ok(()),
            None if rule.raw => Ok(()),
            Some(p) => Err(self.refused_on(
                tool,
                Branch::Interact,
                device,
                &branch,
                "apps",
                &format!(" ({p} is not among the apps allowed: {})", list(Some(apps))),
            )),
            None => Err(self.refused_on(
                tool,
                Branch::Interact,
                device,
                &branch,
                "raw",
                &format!(
                    " (the call names no app, and Interact here is limited to {})",
                    list(Some(apps))
                ),
            )),
        }
    }

    fn refused_on(
        &self,
        tool: &str,
        on: Branch,
        device: &str,
        branch: &DeviceBranch,
        key: &str,
        why: &str,
    ) -> ToolError {
        let (entry, whose) = match branch {
            DeviceBranch::Own(id) => (
                format!("access.devices.\"{id}\""),
                "this device".to_string(),
            ),
            DeviceBranch::Default => (
                format!("access.devices.{DEFAULT_DEVICE}"),
                "devices without an entry of their own".to_string(),
            ),
            DeviceBranch::Unknown => (
                "access.devices".to_string(),
                "a device that has not said which phone it is (every entry applies)".to_string(),
            ),
        };
        let what = match key {
            "inspect" | "interact" => format!("{} is off for {whose}", on.label()),
            _ => format!("{} is limited for {whose}{why}", on.label()),
        };
        let setting = format!("{entry}.{key}");
        ToolError::new(
            ErrorKind::Disabled,
            format!(
                "{tool} is refused on {device}: {what}. A person can change it in the control \
                 centre (Settings → Tool access) or in {} ({setting}).",
                self.where_
            ),
        )
        .with_details(serde_json::json!({
            "tool": tool,
            "device": device,
            "branch": on.label(),
            "setting": setting,
        }))
    }

    pub fn set_enabled(&self, tool: &ToolDef, on: bool) {
        if let Ok(mut s) = self.settings.write() {
            if let Some(g) = tool.group
                && on
            {
                s.allowed_groups.insert(g.key().to_string());
                s.disabled_groups.remove(g.key());
            }
            if on {
                s.disabled.remove(tool.name);
            } else {
                s.disabled.insert(tool.name.to_string());
            }
        }
    }

    /// Turns one device's Inspect (`interact: false`) or Interact on or off; an entry is made
    /// for a device that has none (from the default), named `label` when given.
    pub fn set_device(&self, device: &str, interact: bool, on: bool, label: Option<String>) {
        if let Ok(mut s) = self.settings.write() {
            let entry = entry(&mut s, device, label);
            if interact {
                entry.interact = on;
            } else {
                entry.inspect = on;
            }
        }
    }

    /// Limits one device's Interact to `apps` (`None`: any app); an entry is made for a device
    /// that has none (from the default), named `label` when given.
    pub fn set_device_apps(&self, device: &str, apps: Option<Vec<String>>, label: Option<String>) {
        if let Ok(mut s) = self.settings.write() {
            entry(&mut s, device, label).apps = apps.map(|a| a.into_iter().collect());
        }
    }

    pub fn set_group(&self, group: HostGroup, on: bool) {
        if let Ok(mut s) = self.settings.write() {
            let (key, starts_on) = (group.key().to_string(), group.starts_on());
            match (starts_on, on) {
                (true, true) => s.disabled_groups.remove(&key),
                (true, false) => s.disabled_groups.insert(key),
                (false, true) => s.allowed_groups.insert(key),
                (false, false) => s.allowed_groups.remove(&key),
            };
        }
    }

    /// "Enable all": every tool on, every host group allowed.
    pub fn enable_all(&self) {
        if let Ok(mut s) = self.settings.write() {
            s.disabled.clear();
            s.disabled_groups.clear();
            s.allowed_groups = HostGroup::ALL
                .iter()
                .filter(|g| !g.starts_on())
                .map(|g| g.key().to_string())
                .collect();
        }
    }

    /// "Read-only only": everything that is not read-only off, host groups off.
    pub fn read_only_only(&self, tools: &[ToolDef]) {
        if let Ok(mut s) = self.settings.write() {
            s.disabled = tools
                .iter()
                .filter(|t| t.level != Level::ReadOnly)
                .map(|t| t.name.to_string())
                .collect();
            s.allowed_groups.clear();
        }
    }
}

/// `device`'s own entry, made from the default when it has none, named `label` when given.
fn entry<'a>(
    s: &'a mut AccessSettings,
    device: &str,
    label: Option<String>,
) -> &'a mut DeviceAccess {
    let default = s.devices.get(DEFAULT_DEVICE).cloned().unwrap_or_default();
    let entry = s
        .devices
        .entry(device.to_string())
        .or_insert_with(|| DeviceAccess {
            label: None,
            ..default
        });
    if label.is_some() && device != DEFAULT_DEVICE {
        entry.label = label;
    }
    entry
}

fn list(apps: Option<&std::collections::BTreeSet<String>>) -> String {
    match apps {
        Some(a) if a.is_empty() => "no app".to_string(),
        Some(a) => a.iter().cloned().collect::<Vec<_>>().join(", "),
        None => "any app".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(entries: &[(&str, DeviceAccess)]) -> AccessSettings {
        AccessSettings {
            devices: entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            ..Default::default()
        }
    }

    fn only(apps: &[&str]) -> DeviceAccess {
        DeviceAccess {
            apps: Some(apps.iter().map(|a| a.to_string()).collect()),
            ..Default::default()
        }
    }

    /// A device that has not said which phone it is could be any of them: it gets no more than
    /// every entry allows, so hiding its identity never widens what an agent may do.
    #[test]
    fn an_unknown_device_gets_what_every_entry_allows() {
        let no_look = DeviceAccess {
            inspect: false,
            ..Default::default()
        };
        let s = settings(&[
            ("phone a", no_look.clone()),
            ("phone b", only(&["com.x", "com.y"])),
        ]);
        assert_eq!(
            s.device(Some("phone a")),
            (no_look, DeviceBranch::Own("phone a".into()))
        );
        let (other, branch) = s.device(Some("phone c"));
        assert_eq!(
            (other, branch),
            (DeviceAccess::default(), DeviceBranch::Default)
        );
        let (unknown, branch) = s.device(None);
        assert_eq!(branch, DeviceBranch::Unknown);
        assert!(!unknown.inspect && unknown.interact);
        assert_eq!(unknown.apps, only(&["com.x", "com.y"]).apps);
        // Two lists meet in what both allow.
        let s = settings(&[("a", only(&["com.x", "com.y"])), ("b", only(&["com.y"]))]);
        assert_eq!(s.device(None).0.apps, only(&["com.y"]).apps);
        // An entry named "default" is the default, not a device.
        let s = settings(&[(DEFAULT_DEVICE, only(&["com.x"]))]);
        assert_eq!(s.device(Some(DEFAULT_DEVICE)).1, DeviceBranch::Default);
    }

    #[test]
    fn an_app_list_refuses_other_apps_and_what_names_none_unless_raw() {
        let access = Access::new(settings(&[("p", only(&["com.x"]))]), false, "cfg".into());
        assert!(
            access
                .check_app("t", "dev", Some("p"), Some("com.x"))
                .is_ok()
        );
        let e = access
            .check_app("t", "dev", Some("p"), Some("com.z"))
            .unwrap_err();
        assert!(
            e.message.contains("com.z") && e.message.contains("com.x"),
            "{}",
            e.message
        );
        assert!(access.check_app("t", "dev", Some("p"), None).is_err());
        // Another device is not limited.
        assert!(
            access
                .check_app("t", "dev", Some("q"), Some("com.z"))
                .is_ok()
        );
        let raw = DeviceAccess {
            raw: true,
            ..only(&["com.x"])
        };
        let access = Access::new(settings(&[("p", raw)]), false, "cfg".into());
        assert!(access.check_app("t", "dev", Some("p"), None).is_ok());
        assert!(
            access
                .check_app("t", "dev", Some("p"), Some("com.z"))
                .is_err()
        );
        // --allow-all lifts the tree.
        let access = Access::new(settings(&[("p", only(&["com.x"]))]), true, "cfg".into());
        assert!(
            access
                .check_app("t", "dev", Some("p"), Some("com.z"))
                .is_ok()
        );
    }
}
