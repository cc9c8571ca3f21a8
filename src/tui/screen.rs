//! The control centre's screens (the tabs): the [`Screen`] trait each implements, and
//! [`of`], which finds a screen's implementation from its [`ScreenId`].
//!
//! A screen's name, title and place in the tab order are its [`ScreenId`] (`tab.rs`, plain data
//! the state, the keymap and the actions carry), its keys are its scope in the keymap
//! (`keymap.rs`, beside every other scope's); what it draws (a pure function of `&State`), what
//! it does with the actions it accepts, which hints are worth showing now, and, optionally, its
//! list's geometry for the mouse and what `spock_navigate`'s `select` means on it are its
//! `impl Screen` here, under `screen/`. So the screens stand above the state they read and
//! change, and nothing below them imports them.
//!
//! Adding a screen touches four files: its own under `screen/` (a unit struct and its
//! `impl Screen`), its line in `SCREENS` here, its [`ScreenId`] in `tab.rs` (and its place in
//! `ScreenId::ALL`) and its keys in `keymap.rs`. The tab bar, the number key (`1`…`9`),
//! Tab/Shift-Tab, the help overlay, the footer and the mouse pick it up from there. Agents
//! reach it with `spock_navigate` only once its name is also in the core's vocabulary
//! (`mcp::navigation::SCREENS`, a separate, deliberate decision that `tests/control_centre/update.rs` checks).
//! A screen with state of its own adds a field to `State`.
pub mod activity;
pub mod batch;
pub mod history;
pub mod settings;
pub mod status;
pub mod tools;

mod kit;

pub use super::tab::ScreenId;
pub use kit::Screen;

/// Every screen, in tab order.
pub const ALL: &[ScreenId] = ScreenId::ALL;

/// Every screen's implementation (in any order: [`ScreenId::ALL`] orders the tabs).
const SCREENS: &[&dyn Screen] = &[
    &status::Status,
    &tools::Tools,
    &activity::Activity,
    &history::History,
    &settings::Settings,
    &batch::Batch,
];

/// The implementation of screen `id`.
pub fn of(id: ScreenId) -> &'static dyn Screen {
    SCREENS
        .iter()
        .copied()
        .find(|s| s.id() == id)
        // Unreachable: every id has its screen (the tests below check it).
        .unwrap_or(SCREENS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_screen_has_its_implementation_once() {
        for id in ALL {
            let found: Vec<_> = SCREENS.iter().filter(|s| s.id() == *id).collect();
            assert_eq!(found.len(), 1, "{id:?}");
            assert_eq!(of(*id).id(), *id);
        }
        assert_eq!(SCREENS.len(), ALL.len());
    }
}
