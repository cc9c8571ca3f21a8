//! Stateful apps on the device (the scenario's `vars`, tables, `when`, `set` and template
//! screens): rendering a screen from its app's state, re-rendering the app's screens when the
//! state changes (keeping what their text fields hold), and running a transition's condition
//! and statements against the screen it was fired from.
use super::logcat::Buffer;
use super::state::{ActivityEntry, SYSTEM_SERVER_PID, State};
use super::ui::UiTree;
use crate::scenario::expr::{AppData, Ctx, Item, Value};
use crate::scenario::{ScreenSpec, Transition};

/// The rendered dump of a screen and, for a template, the row each node was repeated for.
type Shown = (UiTree, Vec<Option<(String, usize)>>);

impl ActivityEntry {
    /// What the text field `i` holds (a password field's real text).
    pub fn field_value(&self, i: usize) -> String {
        match self.secrets.get(&i) {
            Some(s) => s.clone(),
            None => self.ui.node(i).map(|n| n.text.clone()).unwrap_or_default(),
        }
    }

    /// Puts `v` in text field `i`; a password field shows one bullet per character, as
    /// uiautomator reports it, and keeps the text itself aside.
    pub fn set_field_value(&mut self, i: usize, v: &str) {
        if self.ui.node(i).is_some_and(|n| n.password) {
            self.secrets.insert(i, v.to_string());
            let bullets: String = v.chars().map(|_| '•').collect();
            self.ui.set_text(i, &bullets);
        } else {
            self.secrets.remove(&i);
            self.ui.set_text(i, v);
        }
    }

    /// The text field with this resource id (full, or the part after `:id/`).
    pub fn field_by_id(&self, id: &str) -> Option<String> {
        let i = self.ui.nodes().iter().position(|n| {
            n.is_editable()
                && (n.resource_id == id
                    || n.resource_id
                        .rsplit_once(":id/")
                        .is_some_and(|(_, short)| short == id))
        })?;
        Some(self.field_value(i))
    }

    /// Shows a new rendering of the same screen: the text fields keep what they hold and the
    /// focus (matched by resource id, else by order among the fields without one).
    fn rerender(&mut self, (ui, rows): Shown) {
        let old: Vec<(String, String, bool)> = (0..self.ui.nodes().len())
            .filter(|&i| self.ui.node(i).is_some_and(|n| n.is_editable()))
            .map(|i| {
                let n = &self.ui.nodes()[i];
                (n.resource_id.clone(), self.field_value(i), n.focused)
            })
            .collect();
        self.ui = ui;
        self.rows = rows;
        self.secrets.clear();
        let mut unnamed = old.iter().filter(|f| f.0.is_empty());
        let fields: Vec<usize> = (0..self.ui.nodes().len())
            .filter(|&i| self.ui.node(i).is_some_and(|n| n.is_editable()))
            .collect();
        for i in fields {
            let id = self.ui.nodes()[i].resource_id.clone();
            let was = if id.is_empty() {
                unnamed.next()
            } else {
                old.iter().find(|f| f.0 == id)
            };
            if let Some((_, value, focused)) = was {
                if !value.is_empty() {
                    self.set_field_value(i, value);
                }
                if *focused {
                    self.ui.set_focus(i);
                }
            }
        }
    }
}

impl State {
    /// The app's state now: its running process's, else what a new process starts with.
    fn data_of(&self, package: &str) -> AppData {
        match self.app_data.get(package) {
            Some(d) => d.clone(),
            None => self
                .installed
                .get(package)
                .map(|a| a.spec.data.clone())
                .unwrap_or_default(),
        }
    }

    /// A warning about the scenario, in the log where a scenario's author looks.
    fn scenario_warning(&mut self, msg: &str) {
        tracing::warn!("scenario: {msg}");
        self.log_line(SYSTEM_SERVER_PID, 'W', "SimScenario", msg, Buffer::Main);
    }

    /// What `screen` shows now: its dump, or for a template its rendering from the app's state
    /// (the initial rendering, with a warning in the log, if it cannot be rendered).
    pub(crate) fn render_screen(&mut self, screen: &ScreenSpec) -> Shown {
        let Some(t) = &screen.template else {
            return ((*screen.ui).clone(), Vec::new());
        };
        let data = self.data_of(&screen.package);
        let cx = Ctx {
            data: &data,
            item: None,
            field: &|_| None,
        };
        let shown = t.render(&cx).and_then(|r| {
            UiTree::parse(&r.xml)
                .map(|ui| (ui, r.rows))
                .map_err(|e| e.message)
        });
        match shown {
            Ok(s) => s,
            Err(e) => {
                self.scenario_warning(&format!("screen {} did not render: {e}", screen.id));
                ((*screen.ui).clone(), Vec::new())
            }
        }
    }

    /// The app's state changed: every template screen of its task shows it.
    pub(crate) fn refresh_app(&mut self, package: &str) {
        let scenario = self.scenario.clone();
        let mut fresh = Vec::new();
        for (ti, t) in self.tasks.iter().enumerate() {
            for (ei, e) in t.stack.iter().enumerate() {
                if let Some(s) = scenario.screen(&e.screen)
                    && s.package == package
                    && s.template.is_some()
                {
                    fresh.push((ti, ei, s.clone()));
                }
            }
        }
        for (ti, ei, spec) in fresh {
            let shown = self.render_screen(&spec);
            if let Some(e) = self.tasks.get_mut(ti).and_then(|t| t.stack.get_mut(ei)) {
                e.rerender(shown);
            }
        }
    }

    /// Runs `f` with the foreground app's state and what the screen in front's text fields
    /// hold.
    fn with_ctx<R>(&self, data: &AppData, item: Item, f: impl FnOnce(&Ctx) -> R) -> R {
        let top = self.top();
        let field = |id: &str| top.and_then(|e| e.field_by_id(id));
        f(&Ctx {
            data,
            item,
            field: &field,
        })
    }

    /// Whether the transition's `when` holds (a condition that cannot be evaluated does not,
    /// and says why in the log).
    pub(crate) fn guard_holds(&mut self, t: &Transition, item: Item) -> bool {
        let Some(w) = &t.when else { return true };
        let pkg = self.foreground().0;
        let data = self.data_of(&pkg);
        match self.with_ctx(&data, item, |cx| w.eval(cx)) {
            Ok(v) => v.truthy(),
            Err(e) => {
                self.scenario_warning(&format!("transition from {}: when: {e}", t.from));
                false
            }
        }
    }

    /// Runs the transition's `set` statements on the app's state, all or none; `false` (and a
    /// warning in the log) when one fails.
    pub(crate) fn apply_set(&mut self, package: &str, t: &Transition, item: Item) -> bool {
        let mut data = self.data_of(package);
        let top = self.top().cloned();
        let field = |id: &str| top.as_ref().and_then(|e| e.field_by_id(id));
        for s in &t.set {
            if let Err(e) = s.exec(&mut data, item, &field) {
                self.scenario_warning(&format!("transition from {}: set: {e}", t.from));
                return false;
            }
        }
        self.app_data.insert(package.to_string(), data);
        true
    }

    /// The transition's logcat lines, filled in from the app's state (after its `set`).
    pub(crate) fn logcat_lines(
        &mut self,
        package: &str,
        t: &Transition,
        item: Item,
    ) -> Vec<String> {
        let data = self.data_of(package);
        let mut out = Vec::new();
        for l in &t.logcat {
            let line = match l.as_literal() {
                Some(s) => s.to_string(),
                None => match self.with_ctx(&data, item, |cx| l.eval(cx)) {
                    Ok(s) => s,
                    Err(e) => {
                        self.scenario_warning(&format!("transition from {}: logcat: {e}", t.from));
                        continue;
                    }
                },
            };
            out.push(line);
        }
        out
    }

    /// `am start -d URI` routed to `screen`: the part of the URI after the screen's
    /// `deep_link` goes into its `deep_link_var` (up to a `?` or `#`, without a trailing `/`),
    /// in the app's process (started if need be). `false` when the screen takes no variable.
    pub fn bind_deep_link(&mut self, screen_id: &str, uri: &str) -> bool {
        let Some(spec) = self.screen_spec(screen_id).cloned() else {
            return false;
        };
        let (Some(prefix), Some(var)) = (&spec.deep_link, &spec.deep_link_var) else {
            return false;
        };
        let rest = uri.strip_prefix(prefix.as_str()).unwrap_or("");
        let rest = rest.split(['?', '#']).next().unwrap_or("");
        let value = rest.trim_end_matches('/').to_string();
        self.ensure_process(&spec.package);
        let mut data = self.data_of(&spec.package);
        if let Err(e) = data.set_var(var, Value::Str(value)) {
            self.scenario_warning(&format!("deep link {uri}: {e}"));
            return false;
        }
        self.app_data.insert(spec.package.clone(), data);
        self.refresh_app(&spec.package);
        true
    }
}
