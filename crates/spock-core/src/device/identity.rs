//! Who a device is, whatever name reaches it. The same phone reached as `127.0.0.1:5555` and
//! `localhost:5555`, or through a second adb server, is one device; a different phone that
//! takes an address while a call waits is another. Its identity is its build fingerprint with
//! its own serial number (`ro.serialno`, else `ro.boot.serialno`), which survives a reboot;
//! where the shell may not read the serial (newer builds), the kernel's boot id stands in for
//! it (new at every boot). Devices whose identities collide (emulators of one image, phones
//! that all report `0123456789ABCDEF`) are held together; one whose identity cannot be read has
//! none ([`of`] is `None`).
use std::time::Duration;

use super::{Device, DeviceError};

/// Where Linux keeps the boot id.
pub const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

/// An identity from what the device said; `None` when it says too little to tell it apart.
pub fn of(
    fingerprint: Option<&str>,
    serial: Option<&str>,
    boot_id: Option<&str>,
) -> Option<String> {
    let fingerprint = fingerprint.map(str::trim).filter(|s| !s.is_empty())?;
    let serial = serial
        .map(str::trim)
        .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("unknown"));
    match (serial, boot_id.and_then(boot_id_of)) {
        (Some(s), _) => Some(format!("{fingerprint} serial {s}")),
        (None, Some(b)) => Some(format!("{fingerprint} boot {b}")),
        (None, None) => None,
    }
}

/// A boot id as the kernel prints it (a UUID), or `None` for anything else.
pub fn boot_id_of(out: &str) -> Option<String> {
    let id = out.trim();
    let ok = id.len() == 36 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    ok.then(|| id.to_ascii_lowercase())
}

/// What a device says about itself right now, read through the handle's own connection.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Live {
    pub identity: Option<String>,
    /// `ro.product.model`, for showing the person which phone it is.
    pub model: Option<String>,
}

const READ: &str = "getprop ro.build.fingerprint; getprop ro.serialno; getprop ro.boot.serialno; \
                    getprop ro.product.model; cat /proc/sys/kernel/random/boot_id";

/// Asks the device who it is now (one shell command), for a call pinned to it: before the
/// person is asked (what the modal names) and again after the yes (still the same phone).
pub async fn read_live(dev: &Device, timeout: Duration) -> Result<Live, DeviceError> {
    let out = dev.shell(READ, timeout).await?;
    Ok(parse_live(&out.stdout_text()))
}

fn parse_live(out: &str) -> Live {
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let at = |i: usize| lines.get(i).copied().filter(|s| !s.is_empty());
    let serial = at(1).or(at(2));
    Live {
        identity: of(at(0), serial, at(4)),
        model: at(3).map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serial_wins_the_boot_id_stands_in_and_too_little_is_none() {
        let fp = Some("google/husky/husky:16/CP1A/1:user/release-keys");
        let boot = Some("0c3f4b9e-1d2a-4e5f-8a7b-9c0d1e2f3a4b\n");
        assert_eq!(
            of(fp, Some("EMULATOR29X0X11X0"), boot).as_deref(),
            Some("google/husky/husky:16/CP1A/1:user/release-keys serial EMULATOR29X0X11X0")
        );
        // A reboot changes the boot id, not an identity that has a serial.
        assert_eq!(
            of(fp, Some("X"), boot),
            of(fp, Some("X"), Some("ffffffff-1d2a-4e5f-8a7b-9c0d1e2f3a4b"))
        );
        assert!(
            of(fp, None, boot)
                .unwrap()
                .ends_with("boot 0c3f4b9e-1d2a-4e5f-8a7b-9c0d1e2f3a4b")
        );
        assert_eq!(of(fp, Some("unknown"), None), None);
        assert_eq!(of(None, Some("X"), boot), None);
        assert_eq!(of(fp, None, Some("cat: permission denied")), None);
    }

    #[test]
    fn a_live_read_in_order_with_missing_lines() {
        let live = parse_live("fp/1\n\nR58M123\nPixel 7\nA0000000-0000-4000-8000-000000000001\n");
        assert_eq!(live.identity.as_deref(), Some("fp/1 serial R58M123"));
        assert_eq!(live.model.as_deref(), Some("Pixel 7"));
        // No serial readable, no boot id printed (cat refused): no identity.
        assert_eq!(parse_live("fp/1\n\n\nPixel 7\n").identity, None);
    }
}
