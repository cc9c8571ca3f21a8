//! Editing from the keyboard: text inputs (searches narrow as you type, settings apply on
//! Enter after validation, batch names on Enter), History's filter picker, and the Settings
//! rows' toggles.
use super::action::Action;
use super::effect::Effect;
use super::input::LineInput;
use super::settings::{self, Row};
use super::state::{FilterKind, InputTarget, Picker, State};
use crate::protocol::{AccessChange, SettingField};

impl State {
    pub(super) fn activate_setting(&mut self, fx: &mut Vec<Effect>) {
        match self.settings_row() {
            Some(Row::EnableAll) => self.enable_all(),
            Some(Row::ReadOnlyOnly) => fx.push(Effect::Access(AccessChange::ReadOnlyOnly)),
            Some(Row::Group(group)) => {
                let on = !settings::group_on(self, group);
                self.set_group(group, on, fx)
            }
            Some(Row::Field(f)) => {
                self.input = Some((
                    InputTarget::Setting(f),
                    LineInput::new(&settings::field_value(self, f)),
                ))
            }
            Some(Row::Tool(i)) => {
                if let Some(t) = self.tools.get(i) {
                    let on = !self.enabled(t.name);
                    fx.push(Effect::Access(AccessChange::SetEnabled {
                        tool: t.name.to_string(),
                        on,
                    }))
                }
            }
            Some(Row::Device {
                key,
                label,
                interact,
            }) => {
                let on = !settings::device_on(self, &key, interact);
                fx.push(Effect::Access(AccessChange::SetDevice {
                    device: key,
                    interact,
                    on,
                    label: Some(label),
                }))
            }
            Some(Row::DeviceHead { key, .. }) => {
                if !self.settings_expanded.remove(&key) {
                    self.settings_expanded.insert(key);
                }
            }
            Some(Row::DeviceApps { key, label }) => {
                let now = settings::device_apps(self, &key).unwrap_or_default();
                self.editing_apps = Some((key, label));
                self.input = Some((InputTarget::DeviceApps, LineInput::new(&now)));
            }
            Some(Row::Heading(_)) | None => {}
        }
    }

    pub(super) fn edit_input(&mut self, key: &crossterm::event::KeyEvent) {
        if key.code == crossterm::event::KeyCode::Tab
            && matches!(self.input, Some((InputTarget::DeviceApps, _)))
        {
            self.add_seen_app();
            return;
        }
        let Some((target, input)) = self.input.as_mut() else {
            return;
        };
        if !input.handle(key) {
            return;
        }
        // Searches narrow as you type; settings wait for Enter.
        match *target {
            InputTarget::ToolSearch => {
                self.tools_view.query = input.text.clone();
                self.tools_view.cursor = 0;
            }
            InputTarget::HistorySearch => {
                self.history_view.query = input.text.clone();
                self.history_view.selected = None;
                self.refresh_matches();
            }
            InputTarget::SettingsFilter => {
                self.settings_filter = input.text.clone();
                self.settings_cursor = self.first_selectable_setting();
            }
            InputTarget::Setting(_)
            | InputTarget::RecordingName
            | InputTarget::TaskName
            | InputTarget::DeviceApps => {}
        }
    }

    /// Tab in a device's apps list: the next app seen on that device and not in the list yet
    /// is added (the person picks from what was on its screens instead of typing names).
    fn add_seen_app(&mut self) {
        let Some((key, _)) = &self.editing_apps else {
            return;
        };
        let Some((_, input)) = &self.input else {
            return;
        };
        let Some(next) = settings::next_seen_app(self, key, &input.text) else {
            return;
        };
        let typed: Vec<&str> = input
            .text
            .split([',', ' '])
            .filter(|a| !a.is_empty())
            .collect();
        let text = if typed.is_empty() {
            next
        } else {
            format!("{}, {next}", typed.join(", "))
        };
        if let Some((_, input)) = self.input.as_mut() {
            *input = LineInput::new(&text);
        }
    }

    pub(super) fn act_input(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let Some((target, input)) = self.input.take() else {
            return;
        };
        match (target, action) {
            (InputTarget::Setting(f), Action::Submit) => match parse_setting(f, &input.text) {
                Ok(v) => fx.push(Effect::Setting(f, v)),
                Err(e) => self.notify(e),
            },
            (InputTarget::DeviceApps, Action::Submit) => {
                let Some((device, label)) = self.editing_apps.take() else {
                    return;
                };
                match settings::parse_apps(&input.text) {
                    Ok(apps) => fx.push(Effect::Access(AccessChange::SetDeviceApps {
                        device,
                        apps,
                        label: Some(label),
                    })),
                    Err(e) => self.notify(e),
                }
            }
            (InputTarget::DeviceApps, _) => self.editing_apps = None,
            (InputTarget::RecordingName | InputTarget::TaskName, Action::Submit) => {
                self.submit_batch_name(target, &input.text, fx)
            }
            (InputTarget::ToolSearch, Action::Cancel) => self.tools_view.query.clear(),
            (InputTarget::SettingsFilter, Action::Cancel) => self.settings_filter.clear(),
            (InputTarget::HistorySearch, Action::Cancel) => {
                self.history_view.query.clear();
                self.refresh_matches();
            }
            _ => {}
        }
    }

    pub(super) fn open_picker(&mut self) {
        let mut options = Vec::new();
        let mut add = |k: FilterKind, v: String| {
            if !options.contains(&(k, v.clone())) {
                options.push((k, v));
            }
        };
        let mut recs: Vec<_> = self.history.newest_first().collect();
        recs.sort_by(|a, b| a.tool.cmp(&b.tool));
        for r in &recs {
            add(FilterKind::Tool, r.tool.clone());
        }
        for o in [
            "ok",
            "error",
            "denied",
            "refused",
            "cancelled",
            "timeout",
            "running",
            crate::tui::history::INTERRUPTED,
        ] {
            add(FilterKind::Outcome, o.to_string());
        }
        for r in &recs {
            add(FilterKind::Device, r.device_label().to_string());
        }
        for r in &recs {
            add(FilterKind::Client, r.client_label());
        }
        self.picker = Some(Picker { options, cursor: 0 });
    }

    pub(super) fn act_picker(&mut self, action: Action) {
        let Some(p) = self.picker.as_mut() else {
            return;
        };
        match action {
            Action::Up => p.cursor = p.cursor.saturating_sub(1),
            Action::Down => p.cursor = (p.cursor + 1).min(p.options.len().saturating_sub(1)),
            Action::Toggle => {
                if let Some((kind, value)) = p.options.get(p.cursor).cloned() {
                    let f = &mut self.history_view.filters;
                    let set = match kind {
                        FilterKind::Tool => &mut f.tools,
                        FilterKind::Outcome => &mut f.outcomes,
                        FilterKind::Device => &mut f.devices,
                        FilterKind::Client => &mut f.clients,
                    };
                    if !set.remove(&value) {
                        set.insert(value);
                    }
                    self.history_view.selected = None;
                    self.refresh_matches();
                }
            }
            Action::ClearFilters => {
                self.history_view.filters = Default::default();
                self.refresh_matches();
            }
            Action::Back => self.picker = None,
            _ => {}
        }
    }
}

fn parse_setting(f: SettingField, text: &str) -> Result<u64, String> {
    let v: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{}: {text:?} is not a number", f.label()))?;
    let (lo, hi) = match f {
        SettingField::HistorySize => (1, 1_000_000),
        SettingField::ConfirmTimeout => (1, 3600),
        SettingField::Port => (0, 65535),
    };
    if v < lo || v > hi {
        return Err(format!("{} must be between {lo} and {hi}", f.label()));
    }
    Ok(v)
}
