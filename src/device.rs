//! The device layer: adb servers, devices, and typed reads of what they print.
pub mod parse;
