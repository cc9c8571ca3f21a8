//! TODO: tui
