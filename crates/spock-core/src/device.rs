//! The device layer: adb servers, devices, and typed reads of what they print.
//!
//! One or more adb servers (`--adb HOST:PORT`, repeatable; else `ANDROID_ADB_SERVER_PORT`;
//! else 127.0.0.1:5037) are spoken to directly over the host smart-socket protocol by an async
//! client written here ([`wire`]), not through adb_client 3.2.3, whose traps were measured
//! when this layer was specified: `shell_command` returns `None` instead of the exit code,
//! `exec()` loses its output, every `ADBServer` call spawns `adb start-server` (on 5037 unless
//! the environment says otherwise), and nothing has a timeout, so a hung server would pin a
//! blocking thread forever.
//! File transfer is our own sync client too; [`sync`]'s module doc gives the reasons.
//!
//! Shape: [`Devices`] holds the servers, a table of their devices (fed by `host:devices-l` and
//! the `host:track-devices-l` watchers in [`tracker`]) and a broadcast of [`DeviceEvent`]s;
//! [`Device`] is a handle by name whose calls ([`ops`]) each open their own connection under a
//! timeout. Every device has the full name `serial@host:port`, accepted everywhere; listings
//! show the serial alone while no other server has the same one.
pub mod parse;

mod devices;
mod endpoint;
mod error;
pub mod identity;
mod listing;
mod ops;
pub mod record;
mod screencap_format;
pub mod screens;
mod shell;
mod sync;
mod tracker;
mod wire;

pub use devices::{Device, DeviceEvent, DeviceFacts, DeviceOptions, Devices, Restarted, Timeouts};
pub use endpoint::{AdbEndpoint, EndpointParseError, find_program};
pub use error::{DeviceError, NAMES_IN_MESSAGES, some as name_list};
pub use listing::{DeviceEntry, DeviceState, parse_devices};
pub use shell::{RunningShell, ShellOutput};
pub use sync::RemoteStat;

#[cfg(test)]
mod fake;
#[cfg(test)]
mod tests;
