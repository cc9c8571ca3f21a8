//! The keymap: which key means which [`Action`] where. One [`Keymap`] value, held by the state,
//! is the single table: key handling looks actions up in it, and the help overlay and the
//! footer hints are generated from it, so neither can disagree with the keys. It is made of
//! the keys of the layers that are not screens (below), the keys that work everywhere, a
//! number key per registered screen, and each screen's own keys (`Screen::keys`).
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;
use super::state::Layer;
use super::tab::ScreenId;

/// Where a binding applies. A layer consults its own scope, then (for screens and details)
/// `Global`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Confirm,
    Help,
    Messages,
    Input,
    Editor,
    Prompt,
    Picker,
    Details,
    Screen(ScreenId),
}

impl Scope {
    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Confirm => "Confirmation",
            Scope::Help => "Help",
            Scope::Messages => "Message log",
            Scope::Input => "Text input",
            Scope::Editor => "Task editor",
            Scope::Prompt => "Yes/no question",
            Scope::Picker => "Filter picker",
            Scope::Details => "Request details",
            Scope::Screen(s) => s.title(),
        }
    }

    /// Every scope: the screens in tab order, then the layers that are not screens.
    pub fn all() -> Vec<Scope> {
        let mut v = vec![Scope::Global];
        v.extend(ScreenId::ALL.iter().map(|s| Scope::Screen(*s)));
        v.extend([
            Scope::Details,
            Scope::Picker,
            Scope::Input,
            Scope::Editor,
            Scope::Prompt,
            Scope::Confirm,
            Scope::Help,
            Scope::Messages,
        ]);
        v
    }
}

/// A key and the action it means, without its scope (a screen's keys get their screen's).
/// `hint` > 0 puts it in the footer, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
    pub action: Action,
    pub hint: u8,
}

impl Key {
    /// Shown in the footer, at position `n` (1 first) among its scope's hints.
    pub const fn hint(self, n: u8) -> Key {
        Key { hint: n, ..self }
    }
}

pub const fn key(code: KeyCode, action: Action) -> Key {
    Key {
        code,
        mods: KeyModifiers::NONE,
        action,
        hint: 0,
    }
}

pub const fn ctrl(c: char, action: Action) -> Key {
    Key {
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
        action,
        hint: 0,
    }
}

pub const fn ch(c: char) -> KeyCode {
    KeyCode::Char(c)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    pub scope: Scope,
    pub code: KeyCode,
    pub mods: KeyModifiers,
    pub action: Action,
    /// Position among the scope's footer hints; 0: not a hint.
    pub hint: u8,
}

impl Binding {
    fn new(scope: Scope, k: Key) -> Binding {
        Binding {
            scope,
            code: k.code,
            mods: k.mods,
            action: k.action,
            hint: k.hint,
        }
    }
}

use KeyCode::{
    BackTab, Backspace, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Tab, Up,
};

/// The keys of the layers that are not screens, in the order help shows them.
const LAYERS: &[(Scope, &[Key])] = &[
    (
        Scope::Confirm,
        &[
            key(ch('y'), Action::Approve).hint(1),
            key(ch('n'), Action::Deny).hint(2),
            key(Esc, Action::Deny),
            key(Tab, Action::SwitchButton),
            key(Left, Action::SwitchButton),
            key(Right, Action::SwitchButton),
            key(Enter, Action::Press),
            key(Up, Action::Up),
            key(Down, Action::Down),
            key(PageUp, Action::PageUp),
            key(PageDown, Action::PageDown),
            key(Home, Action::Top),
            key(End, Action::Bottom),
        ],
    ),
    (
        Scope::Help,
        &[
            key(Esc, Action::Help).hint(1),
            key(ch('?'), Action::Help),
            key(ch('q'), Action::Help),
            key(Up, Action::Up),
            key(ch('k'), Action::Up),
            key(Down, Action::Down),
            key(ch('j'), Action::Down),
            key(PageUp, Action::PageUp),
            key(PageDown, Action::PageDown),
        ],
    ),
    (
        Scope::Messages,
        &[
            key(Esc, Action::Messages).hint(1),
            key(ch('l'), Action::Messages),
            key(ch('q'), Action::Messages),
            key(Up, Action::Up),
            key(ch('k'), Action::Up),
            key(Down, Action::Down),
            key(ch('j'), Action::Down),
            key(PageUp, Action::PageUp),
            key(PageDown, Action::PageDown),
        ],
    ),
    (
        Scope::Prompt,
        &[
            key(ch('y'), Action::Approve).hint(1),
            key(ch('n'), Action::Deny).hint(2),
            key(Esc, Action::Deny),
        ],
    ),
    (
        Scope::Input,
        &[
            key(Enter, Action::Submit).hint(1),
            key(Esc, Action::Cancel).hint(2),
        ],
    ),
    (
        Scope::Editor,
        &[
            ctrl('s', Action::SaveTask).hint(1),
            key(Esc, Action::Cancel).hint(2),
        ],
    ),
    (
        Scope::Picker,
        &[
            key(Up, Action::Up),
            key(ch('k'), Action::Up),
            key(Down, Action::Down),
            key(ch('j'), Action::Down),
            key(ch(' '), Action::Toggle).hint(1),
            key(Enter, Action::Toggle),
            key(ch('x'), Action::ClearFilters).hint(2),
            key(Esc, Action::Back).hint(3),
            key(ch('f'), Action::Back),
        ],
    ),
];

/// The keys that work everywhere before the screens' number keys…
const GLOBAL_BEFORE: &[Key] = &[
    key(ch('?'), Action::Help).hint(1),
    key(ch('l'), Action::Messages),
    key(ch('q'), Action::Quit).hint(2),
    ctrl('c', Action::Quit),
    key(Tab, Action::NextScreen),
    key(BackTab, Action::PrevScreen),
];

/// …and after them.
const GLOBAL_AFTER: &[Key] = &[
    key(ch('s'), Action::ServerStartStop),
    key(ch('R'), Action::ServerRestart),
    key(ch('o'), Action::FollowNav),
    key(Up, Action::Up),
    key(ch('k'), Action::Up),
    key(Down, Action::Down),
    key(ch('j'), Action::Down),
    key(PageUp, Action::PageUp),
    key(PageDown, Action::PageDown),
    key(Home, Action::Top),
    key(ch('g'), Action::Top),
    key(End, Action::Bottom),
    key(ch('G'), Action::Bottom),
];

/// Request details (over any screen).
const DETAILS: &[Key] = &[
    key(Esc, Action::Back).hint(1),
    key(Backspace, Action::Back),
    key(ch('c'), Action::CopyRequest).hint(2),
    key(ch('C'), Action::CopyResponse).hint(3),
    key(ch('w'), Action::SaveImage).hint(4),
];

/// The live keymap. [`Default`] is the built-in one; [`rebind`](Keymap::rebind) and
/// [`unbind`](Keymap::unbind) change it, and help and the footer follow.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Default for Keymap {
    fn default() -> Keymap {
        let mut b = Vec::new();
        for (scope, keys) in LAYERS {
            b.extend(keys.iter().map(|k| Binding::new(*scope, *k)));
        }
        b.extend(
            GLOBAL_BEFORE
                .iter()
                .map(|k| Binding::new(Scope::Global, *k)),
        );
        for (i, s) in ScreenId::ALL.iter().enumerate().take(9) {
            let digit = char::from(b'1' + i as u8);
            b.push(Binding::new(Scope::Global, key(ch(digit), Action::Go(*s))));
        }
        b.extend(GLOBAL_AFTER.iter().map(|k| Binding::new(Scope::Global, *k)));
        for s in ScreenId::ALL {
            b.extend(
                screens::of(*s)
                    .iter()
                    .map(|k| Binding::new(Scope::Screen(*s), *k)),
            );
        }
        b.extend(DETAILS.iter().map(|k| Binding::new(Scope::Details, *k)));
        Keymap { bindings: b }
    }
}

/// The scopes a layer consults, most specific first.
pub fn scopes(layer: Layer) -> Vec<Scope> {
    match layer {
        Layer::Confirm => vec![Scope::Confirm],
        Layer::Help => vec![Scope::Help],
        Layer::Messages => vec![Scope::Messages],
        Layer::Prompt => vec![Scope::Prompt],
        Layer::Input => vec![Scope::Input],
        Layer::Editor => vec![Scope::Editor],
        Layer::Picker => vec![Scope::Picker],
        Layer::Details => vec![Scope::Details, Scope::Global],
        Layer::Screen(s) => vec![Scope::Screen(s), Scope::Global],
    }
}

fn same_key(b: &Binding, key: &KeyEvent) -> bool {
    // Shift is part of the character for letters and symbols ('R', '?').
    let mods = key.modifiers - KeyModifiers::SHIFT;
    b.code == key.code && b.mods == mods
}

impl Keymap {
    /// Every binding, in the order help shows them within a scope.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The action a key means in `layer`, if any.
    pub fn lookup(&self, layer: Layer, key: &KeyEvent) -> Option<Action> {
        scopes(layer).iter().find_map(|scope| {
            self.bindings
                .iter()
                .find(|b| b.scope == *scope && same_key(b, key))
                .map(|b| b.action)
        })
    }

    /// One help line per (scope, action): all its keys joined, and what it does. A screen's
    /// repeat of a key that works everywhere (kept for its footer) is listed once, there.
    pub fn help_entries(&self, scope: Scope) -> Vec<(String, &'static str)> {
        let mut out: Vec<(Action, Vec<String>)> = Vec::new();
        for bnd in self.bindings.iter().filter(|b| b.scope == scope) {
            if matches!(scope, Scope::Screen(_)) && self.is_global_repeat(bnd) {
                continue;
            }
            let label = key_label(bnd.code, bnd.mods);
            match out.iter_mut().find(|(a, _)| *a == bnd.action) {
                Some((_, keys)) => keys.push(label),
                None => out.push((bnd.action, vec![label])),
            }
        }
        out.into_iter()
            .map(|(a, keys)| (keys.join(" "), a.describe()))
            .collect()
    }

    fn is_global_repeat(&self, b: &Binding) -> bool {
        self.bindings.iter().any(|g| {
            g.scope == Scope::Global && g.code == b.code && g.mods == b.mods && g.action == b.action
        })
    }

    /// The first key bound to `action` in `scope`.
    pub fn first_key(&self, scope: Scope, action: Action) -> Option<String> {
        self.bindings
            .iter()
            .find(|b| b.scope == scope && b.action == action)
            .map(|b| key_label(b.code, b.mods))
    }

    /// The footer's hints for `layer`: per scope it consults (most specific first), the
    /// actions whose bindings are marked as hints, in hint order, each with its first key in
    /// that scope. Layers that are not screens or details show only their own keys.
    pub fn hints(&self, layer: Layer) -> Vec<(Scope, Action, String)> {
        let mut out = Vec::new();
        for scope in scopes(layer) {
            let mut marked: Vec<&Binding> = self
                .bindings
                .iter()
                .filter(|b| b.scope == scope && b.hint > 0)
                .collect();
            marked.sort_by_key(|b| b.hint);
            for b in marked {
                if out.iter().any(|(s, a, _)| *s == scope && *a == b.action) {
                    continue;
                }
                if let Some(k) = self.first_key(scope, b.action) {
                    out.push((scope, b.action, k));
                }
            }
        }
        out
    }

    /// Bind `code`+`mods` to `action` in `scope` instead of the keys it had there (the first
    /// of which gives the new key its place and hint); a binding of that key to something
    /// else in that scope goes.
    pub fn rebind(&mut self, scope: Scope, action: Action, code: KeyCode, mods: KeyModifiers) {
        let gone = |b: &Binding| {
            b.scope == scope && (b.action == action || (b.code == code && b.mods == mods))
        };
        let first = self
            .bindings
            .iter()
            .position(|b| b.scope == scope && b.action == action);
        let hint = first.map_or(0, |i| self.bindings[i].hint);
        // Where the first old key was, counted among the bindings that stay.
        let at = match first {
            Some(i) => self.bindings[..i].iter().filter(|b| !gone(b)).count(),
            None => self.bindings.len(),
        };
        self.bindings.retain(|b| !gone(b));
        let at = at.min(self.bindings.len());
        self.bindings.insert(
            at,
            Binding {
                scope,
                code,
                mods,
                action,
                hint,
            },
        );
    }

    /// No key means `action` in `scope` any more.
    pub fn unbind(&mut self, scope: Scope, action: Action) {
        self.bindings
            .retain(|b| !(b.scope == scope && b.action == action));
    }
}

pub fn key_label(code: KeyCode, mods: KeyModifiers) -> String {
    let base = match code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "Enter".into(),
        KeyCode::Esc => "Esc".into(),
        KeyCode::Tab => "Tab".into(),
        KeyCode::BackTab => "S-Tab".into(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Home => "Home".into(),
        KeyCode::End => "End".into(),
        KeyCode::Backspace => "Bksp".into(),
        KeyCode::Delete => "Del".into(),
        other => format!("{other:?}"),
    };
    if mods.contains(KeyModifiers::CONTROL) {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

/// Each screen's own keys (its scope), in help's order; `hint` puts one in the footer.
pub mod screens {
    use super::*;
    use crossterm::event::KeyCode::*;

    /// The Status screen's.
    const STATUS: &[Key] = &[
        // Works everywhere; repeated here so Status's footer offers it.
        key(ch('s'), Action::ServerStartStop).hint(1),
        key(ch('y'), Action::CopyConfig).hint(2),
        key(ch('t'), Action::ToggleConfigKind).hint(3),
        key(Right, Action::NextClient),
        key(Left, Action::PrevClient),
        key(ch('x'), Action::BreakLease),
        key(ch('L'), Action::NextLease),
    ];

    /// The Tools screen's.
    const TOOLS: &[Key] = &[
        key(ch('/'), Action::Search).hint(1),
        key(ch('d'), Action::ToggleDestructiveOnly).hint(2),
        key(Esc, Action::ClearFilters),
    ];

    /// The Activity screen's.
    const ACTIVITY: &[Key] = &[key(Enter, Action::Open).hint(1)];

    /// The History screen's.
    const HISTORY: &[Key] = &[
        key(Enter, Action::Open).hint(1),
        key(ch('/'), Action::Search).hint(2),
        key(ch('f'), Action::Filter).hint(3),
        key(ch('x'), Action::ClearFilters),
        key(Esc, Action::ClearFilters),
        key(ch(' '), Action::Mark).hint(4),
        key(ch('b'), Action::TaskFromMarked),
    ];

    /// The Settings screen's.
    const SETTINGS: &[Key] = &[
        key(Enter, Action::Open),
        key(ch(' '), Action::Toggle).hint(1),
        key(ch('a'), Action::EnableAll).hint(2),
        key(ch('r'), Action::ReadOnlyOnly).hint(3),
        key(ch('/'), Action::Search).hint(4),
        key(ch('T'), Action::ReloadTools),
        key(ch('K'), Action::RotateCredential),
        key(Esc, Action::ClearFilters),
    ];

    /// The Batch screen's.
    const BATCH: &[Key] = &[
        key(Enter, Action::RunTask).hint(1),
        key(ch('r'), Action::RunTask),
        key(ch('x'), Action::CancelRun).hint(1),
        key(ch('e'), Action::EditTask).hint(3),
        key(ch('n'), Action::NewTask),
        key(ch('d'), Action::DeleteTask).hint(4),
        key(Delete, Action::DeleteTask),
        key(ch('m'), Action::ToggleRecording).hint(2),
    ];

    /// The keys of screen `id`.
    pub fn of(id: ScreenId) -> &'static [Key] {
        match id.name() {
            "status" => STATUS,
            "tools" => TOOLS,
            "activity" => ACTIVITY,
            "history" => HISTORY,
            "settings" => SETTINGS,
            "batch" => BATCH,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A screen's own key never hides a key that works everywhere: the person would lose that
    /// everywhere-key on one screen without being told (the message log's `l` was shadowed on
    /// Status by a lease key once).
    #[test]
    fn no_screen_key_shadows_a_global_one() {
        let map = Keymap::default();
        let global: Vec<&Binding> = map
            .bindings()
            .iter()
            .filter(|b| b.scope == Scope::Global)
            .collect();
        let mut clashes = Vec::new();
        for b in map
            .bindings()
            .iter()
            .filter(|b| matches!(b.scope, Scope::Screen(_)))
        {
            if let Some(g) = global.iter().find(|g| g.code == b.code && g.mods == b.mods)
                && g.action != b.action
            {
                clashes.push(format!(
                    "{}: {} is {:?} there but {:?} everywhere else",
                    b.scope.title(),
                    key_label(b.code, b.mods),
                    b.action,
                    g.action
                ));
            }
        }
        assert!(clashes.is_empty(), "{clashes:#?}");
    }

    #[test]
    fn every_screen_has_a_number_key() {
        let map = Keymap::default();
        for (i, s) in ScreenId::ALL.iter().enumerate() {
            assert_eq!(
                map.first_key(Scope::Global, Action::Go(*s)),
                Some((i + 1).to_string())
            );
        }
    }
}
