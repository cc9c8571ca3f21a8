//! The control centre's styles: what every part draws with, a leaf (the state's own widgets,
//! such as the Batch editor, use it too).
use ratatui::style::{Color, Modifier, Style};

pub const ACCENT: Color = Color::Cyan;

pub fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

pub fn selected() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

/// The recording indicator (the tab bar, the Batch screen).
pub fn rec_style() -> Style {
    Style::new()
        .fg(Color::White)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD)
}
