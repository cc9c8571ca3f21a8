//! Intents, and the keymap that produces them. [`BINDINGS`] is the single table: key handling
//! looks actions up in it and the help overlay and footer hints are generated from it, so the
//! help can never disagree with the keys.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::state::{Layer, Screen};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    Messages,
    NextScreen,
    PrevScreen,
    Go(Screen),
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Back,
    Search,
    ToggleDestructiveOnly,
    ServerStartStop,
    ServerRestart,
    CopyConfig,
    NextClient,
    PrevClient,
    ToggleConfigKind,
    Toggle,
    EnableAll,
    ReadOnlyOnly,
    CopyRequest,
    CopyResponse,
    SaveImage,
    Filter,
    ClearFilters,
    Approve,
    Deny,
    SwitchButton,
    Press,
    Submit,
    Cancel,
    RunTask,
    CancelRun,
    DeleteTask,
    EditTask,
    NewTask,
    Record,
    SaveTask,
    Mark,
    TaskFromMarked,
    BreakLease,
    NextLease,
}

impl Action {
    pub fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit (stops the server)",
            Action::Help => "show / hide this help",
            Action::Messages => "message log: recent footer messages in full",
            Action::NextScreen => "next screen",
            Action::PrevScreen => "previous screen",
            Action::Go(Screen::Status) => "Status",
            Action::Go(Screen::Tools) => "Tools",
            Action::Go(Screen::Activity) => "Activity",
            Action::Go(Screen::History) => "History",
            Action::Go(Screen::Settings) => "Settings",
            Action::Go(Screen::Batch) => "Batch",
            Action::Up => "move up",
            Action::Down => "move down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "newest / first",
            Action::Bottom => "oldest / last",
            Action::Open => "open / edit / toggle",
            Action::Back => "back",
            Action::Search => "search",
            Action::ToggleDestructiveOnly => "destructive only on/off",
            Action::ServerStartStop => "start / stop the server",
            Action::ServerRestart => "restart the server",
            Action::CopyConfig => "copy client configuration (OSC 52)",
            Action::NextClient => "next client format",
            Action::PrevClient => "previous client format",
            Action::ToggleConfigKind => "stdio / HTTP configuration",
            Action::Toggle => "toggle",
            Action::EnableAll => "Enable all",
            Action::ReadOnlyOnly => "Read-only only",
            Action::CopyRequest => "copy request (OSC 52)",
            Action::CopyResponse => "copy response (OSC 52)",
            Action::SaveImage => "save images to files",
            Action::Filter => "filter by tool, outcome, device, client",
            Action::ClearFilters => "clear search and filters",
            Action::Approve => "approve",
            Action::Deny => "deny",
            Action::SwitchButton => "switch button",
            Action::Press => "press the focused button",
            Action::Submit => "accept",
            Action::Cancel => "cancel",
            Action::RunTask => "run the selected task",
            Action::CancelRun => "cancel the run in progress",
            Action::DeleteTask => "delete the selected task (asks first)",
            Action::EditTask => "edit the selected task's JSON in place",
            Action::NewTask => "new task in the editor",
            Action::Record => "start recording (asks a name) / stop and save it",
            Action::SaveTask => "check and save the task",
            Action::Mark => "mark / unmark the call for a batch task",
            Action::TaskFromMarked => "make a batch task from the marked calls",
            Action::BreakLease => "break a device lease (asks first)",
            Action::NextLease => "next device lease",
        }
    }
}

/// Where a binding applies. A layer consults its own scope, then (for screens) `Global`.
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
    Screen(Screen),
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
}

#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub scope: Scope,
    pub code: KeyCode,
    pub mods: KeyModifiers,
    pub action: Action,
}

const fn b(scope: Scope, code: KeyCode, action: Action) -> Binding {
    Binding {
        scope,
        code,
        mods: KeyModifiers::NONE,
        action,
    }
}

const fn ctrl(scope: Scope, c: char, action: Action) -> Binding {
    Binding {
        scope,
        code: KeyCode::Char(c),
        mods: KeyModifiers::CONTROL,
        action,
    }
}

use KeyCode::{
    BackTab, Backspace, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Tab, Up,
};
const fn ch(c: char) -> KeyCode {
    KeyCode::Char(c)
}
const G: Scope = Scope::Global;
const ST: Scope = Scope::Screen(Screen::Status);
const TO: Scope = Scope::Screen(Screen::Tools);
const AC: Scope = Scope::Screen(Screen::Activity);
const HI: Scope = Scope::Screen(Screen::History);
const SE: Scope = Scope::Screen(Screen::Settings);
const BA: Scope = Scope::Screen(Screen::Batch);
const DE: Scope = Scope::Details;

/// Every key binding, in the order help shows them.
pub const BINDINGS: &[Binding] = &[
    b(Scope::Confirm, ch('y'), Action::Approve),
    b(Scope::Confirm, ch('n'), Action::Deny),
    b(Scope::Confirm, Esc, Action::Deny),
    b(Scope::Confirm, Tab, Action::SwitchButton),
    b(Scope::Confirm, Left, Action::SwitchButton),
    b(Scope::Confirm, Right, Action::SwitchButton),
    b(Scope::Confirm, Enter, Action::Press),
    b(Scope::Confirm, Up, Action::Up),
    b(Scope::Confirm, Down, Action::Down),
    b(Scope::Confirm, PageUp, Action::PageUp),
    b(Scope::Confirm, PageDown, Action::PageDown),
    b(Scope::Confirm, Home, Action::Top),
    b(Scope::Confirm, End, Action::Bottom),
    b(Scope::Help, Esc, Action::Help),
    b(Scope::Help, ch('?'), Action::Help),
    b(Scope::Help, ch('q'), Action::Help),
    b(Scope::Help, Up, Action::Up),
    b(Scope::Help, ch('k'), Action::Up),
    b(Scope::Help, Down, Action::Down),
    b(Scope::Help, ch('j'), Action::Down),
    b(Scope::Help, PageUp, Action::PageUp),
    b(Scope::Help, PageDown, Action::PageDown),
    b(Scope::Messages, Esc, Action::Messages),
    b(Scope::Messages, ch('l'), Action::Messages),
    b(Scope::Messages, ch('q'), Action::Messages),
    b(Scope::Messages, Up, Action::Up),
    b(Scope::Messages, ch('k'), Action::Up),
    b(Scope::Messages, Down, Action::Down),
    b(Scope::Messages, ch('j'), Action::Down),
    b(Scope::Messages, PageUp, Action::PageUp),
    b(Scope::Messages, PageDown, Action::PageDown),
    b(Scope::Prompt, ch('y'), Action::Approve),
    b(Scope::Prompt, ch('n'), Action::Deny),
    b(Scope::Prompt, Esc, Action::Deny),
    b(Scope::Input, Enter, Action::Submit),
    b(Scope::Input, Esc, Action::Cancel),
    ctrl(Scope::Editor, 's', Action::SaveTask),
    b(Scope::Editor, Esc, Action::Cancel),
    b(Scope::Picker, Up, Action::Up),
    b(Scope::Picker, ch('k'), Action::Up),
    b(Scope::Picker, Down, Action::Down),
    b(Scope::Picker, ch('j'), Action::Down),
    b(Scope::Picker, ch(' '), Action::Toggle),
    b(Scope::Picker, Enter, Action::Toggle),
    b(Scope::Picker, ch('x'), Action::ClearFilters),
    b(Scope::Picker, Esc, Action::Back),
    b(Scope::Picker, ch('f'), Action::Back),
    b(G, ch('?'), Action::Help),
    b(G, ch('l'), Action::Messages),
    b(G, ch('q'), Action::Quit),
    ctrl(G, 'c', Action::Quit),
    b(G, Tab, Action::NextScreen),
    b(G, BackTab, Action::PrevScreen),
    b(G, ch('1'), Action::Go(Screen::Status)),
    b(G, ch('2'), Action::Go(Screen::Tools)),
    b(G, ch('3'), Action::Go(Screen::Activity)),
    b(G, ch('4'), Action::Go(Screen::History)),
    b(G, ch('5'), Action::Go(Screen::Settings)),
    b(G, ch('6'), Action::Go(Screen::Batch)),
    b(G, ch('s'), Action::ServerStartStop),
    b(G, ch('R'), Action::ServerRestart),
    b(G, Up, Action::Up),
    b(G, ch('k'), Action::Up),
    b(G, Down, Action::Down),
    b(G, ch('j'), Action::Down),
    b(G, PageUp, Action::PageUp),
    b(G, PageDown, Action::PageDown),
    b(G, Home, Action::Top),
    b(G, ch('g'), Action::Top),
    b(G, End, Action::Bottom),
    b(G, ch('G'), Action::Bottom),
    b(ST, ch('y'), Action::CopyConfig),
    b(ST, ch('t'), Action::ToggleConfigKind),
    b(ST, Right, Action::NextClient),
    b(ST, Left, Action::PrevClient),
    b(ST, ch('x'), Action::BreakLease),
    b(ST, ch('L'), Action::NextLease),
    b(TO, ch('/'), Action::Search),
    b(TO, ch('d'), Action::ToggleDestructiveOnly),
    b(TO, Esc, Action::ClearFilters),
    b(AC, Enter, Action::Open),
    b(HI, Enter, Action::Open),
    b(HI, ch('/'), Action::Search),
    b(HI, ch('f'), Action::Filter),
    b(HI, ch('x'), Action::ClearFilters),
    b(HI, Esc, Action::ClearFilters),
    b(HI, ch(' '), Action::Mark),
    b(HI, ch('b'), Action::TaskFromMarked),
    b(SE, Enter, Action::Open),
    b(SE, ch(' '), Action::Toggle),
    b(SE, ch('a'), Action::EnableAll),
    b(SE, ch('r'), Action::ReadOnlyOnly),
    b(BA, Enter, Action::RunTask),
    b(BA, ch('r'), Action::RunTask),
    b(BA, ch('x'), Action::CancelRun),
    b(BA, ch('e'), Action::EditTask),
    b(BA, ch('n'), Action::NewTask),
    b(BA, ch('d'), Action::DeleteTask),
    b(BA, KeyCode::Delete, Action::DeleteTask),
    b(BA, ch('m'), Action::Record),
    b(DE, Esc, Action::Back),
    b(DE, Backspace, Action::Back),
    b(DE, ch('c'), Action::CopyRequest),
    b(DE, ch('C'), Action::CopyResponse),
    b(DE, ch('w'), Action::SaveImage),
];

/// The scopes a layer consults, most specific first.
pub fn scopes(layer: Layer) -> &'static [Scope] {
    match layer {
        Layer::Confirm => &[Scope::Confirm],
        Layer::Help => &[Scope::Help],
        Layer::Messages => &[Scope::Messages],
        Layer::Prompt => &[Scope::Prompt],
        Layer::Input => &[Scope::Input],
        Layer::Editor => &[Scope::Editor],
        Layer::Picker => &[Scope::Picker],
        Layer::Details => &[Scope::Details, Scope::Global],
        Layer::Screen(Screen::Status) => &[ST, G],
        Layer::Screen(Screen::Tools) => &[TO, G],
        Layer::Screen(Screen::Activity) => &[AC, G],
        Layer::Screen(Screen::History) => &[HI, G],
        Layer::Screen(Screen::Settings) => &[SE, G],
        Layer::Screen(Screen::Batch) => &[BA, G],
    }
}

fn same_key(b: &Binding, key: &KeyEvent) -> bool {
    // Shift is part of the character for letters and symbols ('R', '?').
    let mods = key.modifiers - KeyModifiers::SHIFT;
    b.code == key.code && b.mods == mods
}

/// The action a key means in `layer`, if any.
pub fn lookup(layer: Layer, key: &KeyEvent) -> Option<Action> {
    scopes(layer).iter().find_map(|scope| {
        BINDINGS
            .iter()
            .find(|b| b.scope == *scope && same_key(b, key))
            .map(|b| b.action)
    })
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

/// One help line per (scope, action): all its keys joined, and what it does.
pub fn help_entries(scope: Scope) -> Vec<(String, &'static str)> {
    let mut out: Vec<(Action, Vec<String>)> = Vec::new();
    for bnd in BINDINGS.iter().filter(|b| b.scope == scope) {
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

/// The first key bound to `action` in `scope`, for footer hints.
pub fn first_key(scope: Scope, action: Action) -> Option<String> {
    BINDINGS
        .iter()
        .find(|b| b.scope == scope && b.action == action)
        .map(|b| key_label(b.code, b.mods))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A screen's own key never hides a key that works everywhere: the person would lose that
    /// everywhere-key on one screen without being told (the message log's `l` was shadowed on
    /// Status by a lease key once).
    #[test]
    fn no_screen_key_shadows_a_global_one() {
        let global: Vec<&Binding> = BINDINGS.iter().filter(|b| b.scope == G).collect();
        let mut clashes = Vec::new();
        for b in BINDINGS
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
}
