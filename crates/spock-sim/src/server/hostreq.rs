//! Host smart-socket requests: framing (`%04x` length + payload, `OKAY`/`FAIL` replies) and
//! what the adb server answers for its own `host:` services, in its exact formats.
use bytes::{BufMut, Bytes, BytesMut};

use crate::services::ServedDevice;

/// A request's payload as it arrived after its 4-hex-digit length.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FramingError {
    #[error("request length {0:?} is not 4 hex digits")]
    BadLength([u8; 4]),
}

pub fn parse_length(raw: [u8; 4]) -> Result<usize, FramingError> {
    let text = std::str::from_utf8(&raw).map_err(|_| FramingError::BadLength(raw))?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(FramingError::BadLength(raw));
    }
    usize::from_str_radix(text, 16).map_err(|_| FramingError::BadLength(raw))
}

/// `OKAY` followed by a length-prefixed payload, as `SendOkay(fd, s)` writes it.
pub fn okay_with(payload: &str) -> Bytes {
    let mut out = BytesMut::with_capacity(8 + payload.len());
    out.put_slice(b"OKAY");
    out.put_slice(format!("{:04x}", payload.len()).as_bytes());
    out.put_slice(payload.as_bytes());
    out.freeze()
}

/// A length-prefixed payload without status (track-devices updates).
pub fn framed(payload: &str) -> Bytes {
    Bytes::from(format!("{:04x}{payload}", payload.len()))
}

pub fn fail(message: &str) -> Bytes {
    Bytes::from(format!("FAIL{:04x}{message}", message.len()))
}

pub fn state_name(device: &ServedDevice) -> &'static str {
    if device.faults.is_offline() {
        "offline"
    } else {
        "device"
    }
}

/// adb's `append_transport_info` with `sanitize`: anything not alphanumeric becomes `_`.
fn sanitize(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The `host:devices` / `host:devices-l` payload, formatted as adb's `append_transport`:
/// short is `serial\tstate\n`; long is `%-22s %s` then ` product:… model:… device:…`
/// (empty values omitted, model sanitized) and ` transport_id:N`.
pub fn device_list(devices: &[ServedDevice], long: bool) -> String {
    let mut out = String::new();
    for (i, d) in devices.iter().enumerate() {
        let serial = if d.identity.serial.is_empty() {
            "(no serial number)"
        } else {
            &d.identity.serial
        };
        let state = state_name(d);
        if long {
            out.push_str(&format!("{serial:<22} {state}"));
            for (key, value, clean) in [
                ("product:", &d.identity.product, false),
                ("model:", &d.identity.model, true),
                ("device:", &d.identity.device, false),
            ] {
                if !value.is_empty() {
                    out.push(' ');
                    out.push_str(key);
                    out.push_str(&if clean {
                        sanitize(value)
                    } else {
                        value.clone()
                    });
                }
            }
            out.push_str(&format!(" transport_id:{}", i + 1));
        } else {
            out.push_str(&format!("{serial}\t{state}"));
        }
        out.push('\n');
    }
    out
}

/// Which device a `host:transport…`, `host-serial:…` or `host:tport:…` request means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Any,
    Serial(String),
    TransportId(u64),
}

/// Pick the device, with adb's error wording (`acquire_one_transport`).
pub fn select(devices: &[ServedDevice], selector: &Selector) -> Result<usize, String> {
    let index = match selector {
        Selector::Any => match devices.len() {
            0 => return Err("no devices/emulators found".to_owned()),
            1 => 0,
            _ => return Err("more than one device/emulator".to_owned()),
        },
        Selector::Serial(s) => devices
            .iter()
            .position(|d| d.identity.serial == *s)
            .ok_or_else(|| format!("device '{s}' not found"))?,
        Selector::TransportId(id) => usize::try_from(*id)
            .ok()
            .and_then(|id| id.checked_sub(1))
            .filter(|i| *i < devices.len())
            .ok_or_else(|| format!("no device with transport id '{id}'"))?,
    };
    match devices.get(index) {
        Some(d) if d.faults.is_offline() => Err("device offline".to_owned()),
        Some(_) => Ok(index),
        None => Err("no devices/emulators found".to_owned()),
    }
}

/// Split a `host-serial:SERIAL:rest` / `host-transport-id:N:rest` / `host:rest` prefix.
/// Serials may contain ':' (`127.0.0.1:5555`), so known serials are matched first.
pub fn split_host_prefix<'a>(
    devices: &[ServedDevice],
    request: &'a str,
) -> Option<(Option<Selector>, &'a str)> {
    if let Some(rest) = request.strip_prefix("host:") {
        return Some((None, rest));
    }
    for prefix in ["host-usb:", "host-local:"] {
        if let Some(rest) = request.strip_prefix(prefix) {
            return Some((Some(Selector::Any), rest));
        }
    }
    if let Some(rest) = request.strip_prefix("host-transport-id:") {
        let (id, rest) = rest.split_once(':')?;
        return Some((Some(Selector::TransportId(id.parse().ok()?)), rest));
    }
    let rest = request.strip_prefix("host-serial:")?;
    for d in devices {
        if let Some(tail) = rest
            .strip_prefix(d.identity.serial.as_str())
            .and_then(|t| t.strip_prefix(':'))
        {
            return Some((Some(Selector::Serial(d.identity.serial.clone())), tail));
        }
    }
    let (serial, tail) = rest.rsplit_once(':')?;
    Some((Some(Selector::Serial(serial.to_owned())), tail))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::cli::placeholder::PlaceholderTarget;
    use crate::faults::FaultCommand;

    fn devices() -> Vec<ServedDevice> {
        vec![
            ServedDevice::new(Arc::new(PlaceholderTarget::new(
                "emulator-5554",
                "Pixel 7 Pro",
            ))),
            ServedDevice::new(Arc::new(PlaceholderTarget::new("127.0.0.1:5555", "sdk"))),
        ]
    }

    #[test]
    fn framing_round_trips_and_rejects_garbage() {
        assert_eq!(parse_length(*b"000c"), Ok(12));
        assert_eq!(parse_length(*b"FFFF"), Ok(0xffff));
        assert!(parse_length(*b"00g1").is_err());
        assert!(parse_length(*b" +12").is_err());
        assert!(parse_length([0xff, 0, 0, 0]).is_err());
        assert_eq!(&okay_with("0029")[..], b"OKAY00040029");
        assert_eq!(&fail("device offline")[..], b"FAIL000edevice offline");
    }

    #[test]
    fn device_lists_match_adb_append_transport() {
        let d = devices();
        assert_eq!(
            device_list(&d, false),
            "emulator-5554\tdevice\n127.0.0.1:5555\tdevice\n"
        );
        assert_eq!(
            device_list(&d[..1], true),
            "emulator-5554          device product:sdk_gphone64_x86_64 model:Pixel_7_Pro device:emu64x transport_id:1\n"
        );
        d[0].faults.apply(&FaultCommand::Offline);
        assert!(device_list(&d, false).starts_with("emulator-5554\toffline\n"));
    }

    #[test]
    fn selection_uses_adb_wording() {
        let d = devices();
        assert_eq!(
            select(&d, &Selector::Serial("127.0.0.1:5555".into())),
            Ok(1)
        );
        assert_eq!(
            select(&d, &Selector::Serial("nope".into())),
            Err("device 'nope' not found".into())
        );
        assert_eq!(
            select(&d, &Selector::Any),
            Err("more than one device/emulator".into())
        );
        assert_eq!(select(&d[..1], &Selector::Any), Ok(0));
        assert_eq!(select(&d, &Selector::TransportId(2)), Ok(1));
        assert!(select(&d, &Selector::TransportId(0)).is_err());
        d[1].faults.apply(&FaultCommand::Offline);
        assert_eq!(
            select(&d, &Selector::TransportId(2)),
            Err("device offline".into())
        );
    }

    #[test]
    fn host_prefixes_handle_serials_with_colons() {
        let d = devices();
        assert_eq!(
            split_host_prefix(&d, "host-serial:127.0.0.1:5555:features"),
            Some((Some(Selector::Serial("127.0.0.1:5555".into())), "features"))
        );
        assert_eq!(
            split_host_prefix(&d, "host:version"),
            Some((None, "version"))
        );
        assert_eq!(
            split_host_prefix(&d, "host-transport-id:2:get-state"),
            Some((Some(Selector::TransportId(2)), "get-state"))
        );
        assert_eq!(split_host_prefix(&d, "shell:ls"), None);
    }
}
