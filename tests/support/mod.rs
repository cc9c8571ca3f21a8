//! Helpers the test binaries share, one module each, declared once here and reached as
//! `crate::support::<name>` (each binary includes this file with `#[path]`).
pub mod device_rig;
pub mod private_adb;
pub mod program;
pub mod tui_fixture;
pub mod virtual_core;
