//! What `host:devices-l` (and each `host:track-devices-l` update) says, as typed entries, and
//! how devices on several adb servers are named.
//!
//! Every device has a full name, `serial@host:port` ([`DeviceEntry::id`]), which is accepted
//! everywhere and always means that device, and a short name ([`DeviceEntry::serial`]): the
//! serial itself, or the full name while another server has a device with the same serial.
//!
//! The line format is adb's own (`adb/transport.cpp` `append_transport`): the serial, padded
//! with spaces to 22 columns (or a tab in the short form), the state word, then ` product:P
//! model:M device:D transport_id:N` when known. `no permissions` is two words followed by a
//! bracketed hint, and a `usb:` path may appear before `product:`.
use serde::{Serialize, Serializer};

use super::endpoint::AdbEndpoint;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceState {
    Device,
    Offline,
    Unauthorized,
    Authorizing,
    Connecting,
    NoPermissions,
    Recovery,
    Sideload,
    Bootloader,
    /// Not a word adb prints: the device's adb server is not answering, so nothing can reach
    /// the device (it stays listed, with the server's error, until the server answers again).
    Unreachable,
    Unknown(String),
}

impl DeviceState {
    /// adb's word for the state, as `adb devices` prints it.
    pub fn as_adb_word(&self) -> &str {
        match self {
            DeviceState::Device => "device",
            DeviceState::Offline => "offline",
            DeviceState::Unauthorized => "unauthorized",
            DeviceState::Authorizing => "authorizing",
            DeviceState::Connecting => "connecting",
            DeviceState::NoPermissions => "no permissions",
            DeviceState::Recovery => "recovery",
            DeviceState::Sideload => "sideload",
            DeviceState::Bootloader => "bootloader",
            DeviceState::Unreachable => "unreachable",
            DeviceState::Unknown(s) => s,
        }
    }

    pub fn from_adb_word(w: &str) -> Self {
        match w {
            "device" => DeviceState::Device,
            "offline" => DeviceState::Offline,
            "unauthorized" => DeviceState::Unauthorized,
            "authorizing" => DeviceState::Authorizing,
            "connecting" => DeviceState::Connecting,
            "no permissions" => DeviceState::NoPermissions,
            "recovery" => DeviceState::Recovery,
            "sideload" => DeviceState::Sideload,
            "bootloader" => DeviceState::Bootloader,
            other => DeviceState::Unknown(other.to_string()),
        }
    }
}

impl std::fmt::Display for DeviceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_adb_word())
    }
}

impl Serialize for DeviceState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_adb_word())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceEntry {
    /// The shortest name that is unique now: the raw serial, or `serial@host:port` while
    /// another server has a device with the same serial.
    pub serial: String,
    /// `serial@host:port`: accepted everywhere, always this device, whatever other servers do.
    pub id: String,
    pub raw_serial: String,
    pub server: AdbEndpoint,
    pub state: DeviceState,
    pub model: Option<String>,
    pub product: Option<String>,
    pub device: Option<String>,
    pub transport_id: Option<u64>,
}

/// Parses a `devices` / `devices-l` listing from `server`. Lines that are not a device (blank,
/// `List of devices attached`, `* daemon …` chatter) are skipped, never fatal.
pub fn parse_devices(text: &str, server: &AdbEndpoint) -> Vec<DeviceEntry> {
    text.lines().filter_map(|l| parse_line(l, server)).collect()
}

fn parse_line(line: &str, server: &AdbEndpoint) -> Option<DeviceEntry> {
    let line = line.trim_end_matches('\r');
    if line.trim().is_empty() || line.starts_with("List of devices") || line.starts_with('*') {
        return None;
    }
    let (serial, rest) = line.split_once([' ', '\t'])?;
    let rest = rest.trim_start();
    let (state, rest) = if let Some(r) = rest.strip_prefix("no permissions") {
        // The hint runs to a closing bracket when there is one: "(…); see [http://…]".
        let after = r.find(']').map(|i| &r[i + 1..]).unwrap_or("");
        (DeviceState::NoPermissions, after)
    } else {
        let (w, r) = rest.split_once(' ').unwrap_or((rest, ""));
        (DeviceState::from_adb_word(w), r)
    };
    let mut e = DeviceEntry {
        serial: serial.to_string(),
        id: qualified(serial, server),
        raw_serial: serial.to_string(),
        server: server.clone(),
        state,
        model: None,
        product: None,
        device: None,
        transport_id: None,
    };
    for tok in rest.split_whitespace() {
        match tok.split_once(':') {
            Some(("product", v)) => e.product = Some(v.to_string()),
            Some(("model", v)) => e.model = Some(v.to_string()),
            Some(("device", v)) => e.device = Some(v.to_string()),
            Some(("transport_id", v)) => e.transport_id = v.parse().ok(),
            _ => {}
        }
    }
    Some(e)
}

/// Sets each entry's short name (`serial`): raw, unless the same raw serial is on more than one
/// server, in which case every one of them is called by its full name `raw@host:port`.
pub fn qualify(entries: &mut [DeviceEntry]) {
    let servers_of = |raw: &str, all: &[DeviceEntry]| {
        let mut s: Vec<&AdbEndpoint> = all
            .iter()
            .filter(|e| e.raw_serial == raw)
            .map(|e| &e.server)
            .collect();
        s.dedup();
        s.len()
    };
    let counts: Vec<usize> = entries
        .iter()
        .map(|e| servers_of(&e.raw_serial, entries))
        .collect();
    for (e, n) in entries.iter_mut().zip(counts) {
        e.id = qualified(&e.raw_serial, &e.server);
        e.serial = if n > 1 {
            qualified(&e.raw_serial, &e.server)
        } else {
            e.raw_serial.clone()
        };
    }
}

pub fn qualified(raw: &str, server: &AdbEndpoint) -> String {
    format!("{raw}@{server}")
}

/// Splits `raw@host:port` when the suffix is one of `servers`; serials may contain `@`
/// themselves, so only a known server suffix counts.
pub fn split_qualified<'a>(
    name: &'a str,
    servers: &[AdbEndpoint],
) -> Option<(&'a str, AdbEndpoint)> {
    let (raw, suffix) = name.rsplit_once('@')?;
    servers
        .iter()
        .find(|s| s.to_string() == suffix)
        .map(|s| (raw, s.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep() -> AdbEndpoint {
        AdbEndpoint::local(5037)
    }

    // Lines as adb 29–35 print them (`%-22s %s` + " product:… model:… device:… transport_id:…").
    #[test]
    fn parses_adb_long_listing() {
        let text = "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 device:emu64x transport_id:1\n\
                    0A141FDD40091D         unauthorized usb:1-1 transport_id:3\n\
                    R58M12ABCDE            no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:4\n\
                    192.168.1.7:5555       offline transport_id:5\n";
        let d = parse_devices(text, &ep());
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].serial, "emulator-5554");
        assert_eq!(d[0].state, DeviceState::Device);
        assert_eq!(d[0].model.as_deref(), Some("sdk_gphone64_x86_64"));
        assert_eq!(d[0].device.as_deref(), Some("emu64x"));
        assert_eq!(d[0].transport_id, Some(1));
        assert_eq!(d[1].state, DeviceState::Unauthorized);
        assert_eq!(d[1].model, None);
        assert_eq!(d[2].state, DeviceState::NoPermissions);
        assert_eq!(d[2].transport_id, Some(4));
        assert_eq!(d[3].serial, "192.168.1.7:5555");
        assert_eq!(d[3].state, DeviceState::Offline);
    }

    #[test]
    fn parses_short_listing_and_skips_chatter() {
        let text = "List of devices attached\nabc\tdevice\nxyz\trecovery\n\n* daemon started\n";
        let d = parse_devices(text, &ep());
        assert_eq!(
            d.iter().map(|e| e.serial.as_str()).collect::<Vec<_>>(),
            ["abc", "xyz"]
        );
        assert_eq!(d[1].state, DeviceState::Recovery);
        assert_eq!(
            serde_json::to_string(&DeviceState::NoPermissions).unwrap(),
            "\"no permissions\""
        );
    }

    #[test]
    fn qualifies_only_colliding_serials() {
        let a = AdbEndpoint::new("lab1", 5037);
        let b = AdbEndpoint::new("lab2", 5037);
        let mut all = parse_devices("s1 device\nsame device\n", &a);
        all.extend(parse_devices("same device\ns2 device\n", &b));
        qualify(&mut all);
        let names: Vec<&str> = all.iter().map(|e| e.serial.as_str()).collect();
        assert_eq!(names, ["s1", "same@lab1:5037", "same@lab2:5037", "s2"]);
        let ids: Vec<&str> = all.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "s1@lab1:5037",
                "same@lab1:5037",
                "same@lab2:5037",
                "s2@lab2:5037"
            ],
            "every device has its full name, colliding or not"
        );
        let servers = [a.clone(), b.clone()];
        assert_eq!(
            split_qualified("same@lab2:5037", &servers),
            Some(("same", b))
        );
        assert_eq!(split_qualified("user@host", &servers), None);
    }
}
