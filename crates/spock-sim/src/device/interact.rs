//! What the user's touches and keys do: hit-testing the current screen, focusing text fields,
//! launching from the home screen, and following the scenario's transitions (tap, long press,
//! swipe, pinch), including the ones that crash the app.
use super::logcat::Buffer;
use super::state::{SYSTEM_SERVER_PID, State, split_log_line};
use crate::scenario::{Transition, Trigger};
use crate::touch::Gesture;

impl State {
    /// Fires a transition whose trigger matched and whose `when` held: its `set` (all or
    /// nothing: a failed statement stops it), its log lines, then the crash, the next screen,
    /// or (with no `to`) the same screen re-rendered. `item` is the table row the tapped node
    /// was repeated for.
    pub(crate) fn fire(&mut self, t: &Transition, item: Option<(String, usize)>) {
        let pkg = self.foreground().0;
        let item = item.as_ref().map(|(t, i)| (t.as_str(), *i));
        if !t.set.is_empty() {
            if !self.apply_set(&pkg, t, item) {
                return;
            }
            self.refresh_app(&pkg);
        }
        let lines = self.logcat_lines(&pkg, t, item);
        if !t.crash {
            for l in &lines {
                let (level, tag, msg) = split_log_line(l);
                let pid = self.ensure_process(&pkg).0;
                self.log_line(pid, level, &tag, &msg, Buffer::Main);
            }
        }
        if t.crash {
            self.crash(&pkg, &lines);
        } else if let Some(to) = &t.to {
            self.show_screen(to);
        }
    }

    fn transitions_from(&self, screen: &str) -> Vec<Transition> {
        self.scenario
            .transitions
            .iter()
            .filter(|t| t.from == screen)
            .cloned()
            .collect()
    }

    /// `input tap`: focus an editable node, launch from the home screen, or follow a transition.
    /// (x, y) is a point on the screen as it is turned now.
    pub fn tap(&mut self, x: i32, y: i32, long: bool) {
        self.input_event();
        self.selected_all = false;
        self.cursor_back = 0;
        let (x, y) = self.display().screen_to_layout(x, y);
        let Some(top) = self.top() else { return };
        let screen = top.screen.clone();
        let ui = &top.ui;
        let Some(hit) = ui.deepest_at(x, y) else {
            return;
        };
        let target = ui
            .ancestor_where(hit, |n| {
                n.is_editable() || if long { n.long_clickable } else { n.clickable }
            })
            .unwrap_or(hit);
        if screen == self.home.id {
            let n = ui.node(target).cloned().unwrap_or_default();
            let hit_node = ui.node(hit).cloned().unwrap_or_default();
            let label_pkg = self.installed.values().find(|a| {
                let l = &a.spec.label;
                [
                    &n.text,
                    &n.content_desc,
                    &hit_node.text,
                    &hit_node.content_desc,
                ]
                .iter()
                .any(|t| !t.is_empty() && *t == l)
            });
            if let Some(pkg) = label_pkg.map(|a| a.spec.package.clone()) {
                self.launch(&pkg);
                return;
            }
        }
        if ui.node(target).is_some_and(|n| n.is_editable())
            && let Some(e) = self.top_mut()
        {
            e.ui.set_focus(target);
        }
        let (ui, rows) = match self.top() {
            Some(t) => (t.ui.clone(), t.rows.clone()),
            None => return,
        };
        for t in self.transitions_from(&screen) {
            let m = match (&t.trigger, long) {
                (Trigger::Tap(m), false) | (Trigger::LongPress(m), true) => m,
                _ => continue,
            };
            let Some(hit) = ui.nodes().iter().enumerate().position(|(i, n)| {
                matches(m, n) && (ui.is_within(i, target) || ui.is_within(target, i))
            }) else {
                continue;
            };
            // The row the tapped node (or the node matched) was repeated for, if any.
            let item = rows
                .get(target)
                .cloned()
                .flatten()
                .or_else(|| rows.get(hit).cloned().flatten());
            let at = item.as_ref().map(|(t, i)| (t.as_str(), *i));
            if self.guard_holds(&t, at) {
                self.fire(&t, item);
                return;
            }
        }
    }

    pub fn swipe(&mut self, from: (i32, i32), to: (i32, i32)) {
        self.input_event();
        let disp = self.display();
        let (from, to) = (
            disp.screen_to_layout(from.0, from.1),
            disp.screen_to_layout(to.0, to.1),
        );
        let Some(top) = self.top() else { return };
        let screen = top.screen.clone();
        let ui = top.ui.clone();
        let dir = crate::touch::direction((to.0 - from.0) as f32, (to.1 - from.1) as f32);
        let start = ui.deepest_at(from.0, from.1);
        for t in self.transitions_from(&screen) {
            let Trigger::Swipe(m) = &t.trigger else {
                continue;
            };
            if m.direction.as_deref().is_some_and(|d| d != dir) {
                continue;
            }
            let node_check =
                m.text.is_some() || m.resource_id.is_some() || m.content_desc.is_some();
            let ok = !node_check
                || start.is_some_and(|s| {
                    ui.nodes()
                        .iter()
                        .enumerate()
                        .any(|(i, n)| matches(m, n) && ui.is_within(s, i))
                });
            if ok && self.guard_holds(&t, None) {
                self.fire(&t, None);
                return;
            }
        }
    }

    /// A recognised multi-touch gesture: logged, remembered, and applied.
    pub fn gesture(&mut self, g: Gesture) {
        self.log_line(
            SYSTEM_SERVER_PID,
            'I',
            "SimInput",
            &format!("gesture {g}"),
            Buffer::Main,
        );
        match &g {
            Gesture::Tap { x, y } => self.tap(*x, *y, false),
            Gesture::LongPress { x, y } => self.tap(*x, *y, true),
            Gesture::Swipe { from, to, .. } => self.swipe(*from, *to),
            Gesture::Pinch { .. } => {
                self.input_event();
                let dir = g.pinch_direction();
                if let Some(screen) = self.top().map(|e| e.screen.clone()) {
                    for t in self.transitions_from(&screen) {
                        let pinch = matches!(&t.trigger, Trigger::Pinch(p)
                            if p.direction.is_none() || p.direction.as_deref() == dir);
                        if pinch && self.guard_holds(&t, None) {
                            self.fire(&t, None);
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
        self.last_gesture = Some(g);
    }

    pub fn type_text(&mut self, text: &str) {
        if std::mem::take(&mut self.selected_all) {
            self.clear_field();
        }
        // A pending dead accent goes on the next letter (`KeyCharacterMap.getDeadChar`).
        let composed;
        let text = match self.dead_accent.take() {
            Some(accent) => {
                let mut chars = text.chars();
                let first = chars.next().map(|c| compose(accent, c).unwrap_or(c));
                composed = first.into_iter().chain(chars).collect::<String>();
                composed.as_str()
            }
            None => text,
        };
        let back = self.cursor_back;
        if let Some(e) = self.top_mut()
            && let Some(i) = e.ui.focused_editable()
        {
            // A password field shows bullets (`set_field_value`), never the secret.
            let value = e.field_value(i);
            let (before, after) = split_at_cursor(&value, back);
            e.set_field_value(i, &format!("{before}{text}{after}"));
        }
    }

    /// Ctrl+A in a focused field.
    pub fn select_all(&mut self) {
        self.selected_all = self
            .top()
            .is_some_and(|e| e.ui.focused_editable().is_some());
    }

    /// Deletes the focused field's whole text (a delete after Ctrl+A).
    pub fn clear_field(&mut self) {
        self.selected_all = false;
        self.cursor_back = 0;
        if let Some(e) = self.top_mut()
            && let Some(i) = e.ui.focused_editable()
        {
            e.set_field_value(i, "");
        }
    }

    /// DEL: the character before the cursor (none at the start of the field).
    pub fn delete_char(&mut self) {
        self.delete_at_cursor(false);
    }

    /// FORWARD_DEL: the character after the cursor (none at the end of the field).
    pub fn forward_delete_char(&mut self) {
        self.delete_at_cursor(true);
    }

    fn delete_at_cursor(&mut self, forward: bool) {
        if std::mem::take(&mut self.selected_all) {
            return self.clear_field();
        }
        let back = self.cursor_back;
        let Some(e) = self.top_mut() else { return };
        let Some(i) = e.ui.focused_editable() else {
            return;
        };
        let text = e.field_value(i);
        let (before, after) = split_at_cursor(&text, back);
        let (mut before, mut after) = (before.to_string(), after.to_string());
        if forward {
            if after.is_empty() {
                return;
            }
            after.remove(0);
        } else if before.pop().is_none() {
            return;
        }
        e.set_field_value(i, &format!("{before}{after}"));
        self.cursor_back = after.chars().count();
    }

    /// MOVE_HOME, MOVE_END, DPAD_LEFT and DPAD_RIGHT in a focused field: the cursor moves (a
    /// selection made with Ctrl+A collapses, as in an `EditText`). `false` when no field has
    /// the focus (the key does something else, or nothing).
    pub fn move_cursor(&mut self, code: u32) -> bool {
        let Some(len) = self.top().and_then(|e| {
            let i = e.ui.focused_editable()?;
            e.ui.node(i).map(|n| n.text.chars().count())
        }) else {
            return false;
        };
        self.selected_all = false;
        let back = self.cursor_back.min(len);
        self.cursor_back = match code {
            122 => len,
            123 => 0,
            21 => (back + 1).min(len),
            22 => back.saturating_sub(1),
            _ => back,
        };
        true
    }
}

/// `text` split at the cursor, `back` characters before its end (clamped to the text).
fn split_at_cursor(text: &str, back: usize) -> (&str, &str) {
    let n = text.chars().count();
    let at = text
        .char_indices()
        .nth(n.saturating_sub(back))
        .map_or(text.len(), |(i, _)| i);
    text.split_at(at)
}

/// A letter with a combining accent as one character: the Latin-1 letters the virtual
/// keyboard's dead keys make (acute, grave, circumflex, tilde, diaeresis).
pub fn compose(accent: char, c: char) -> Option<char> {
    let (bases, accented) = match accent {
        '\u{0301}' => ("aeiouyAEIOUY", "áéíóúýÁÉÍÓÚÝ"),
        '\u{0300}' => ("aeiouAEIOU", "àèìòùÀÈÌÒÙ"),
        '\u{0302}' => ("aeiouAEIOU", "âêîôûÂÊÎÔÛ"),
        '\u{0303}' => ("anoANO", "ãñõÃÑÕ"),
        '\u{0308}' => ("aeiouyAEIOUY", "äëïöüÿÄËÏÖÜŸ"),
        _ => return None,
    };
    bases
        .chars()
        .position(|b| b == c)
        .and_then(|i| accented.chars().nth(i))
}

fn matches(m: &crate::scenario::Matcher, n: &super::ui::UiNode) -> bool {
    let any = m.text.is_some() || m.resource_id.is_some() || m.content_desc.is_some();
    any && m.text.as_ref().is_none_or(|t| *t == n.text)
        && m.resource_id.as_ref().is_none_or(|r| {
            *r == n.resource_id
                || n.resource_id
                    .rsplit_once(":id/")
                    .is_some_and(|(_, id)| id == r)
        })
        && m.content_desc.as_ref().is_none_or(|d| *d == n.content_desc)
}
