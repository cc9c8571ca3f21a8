//! `getprop`: the `[key]: [value]` listing, and the handful of build properties tools report.
//!
//! A value may contain newlines (getprop prints them raw), so a line that opens a value
//! without closing it continues on the following lines until one ends with `]`.
use std::collections::BTreeMap;

use serde::Serialize;

pub fn parse(text: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    // (key, value so far) of a value still open across lines
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some((key, mut value)) = open.take() {
            value.push('\n');
            if let Some(done) = line.strip_suffix(']') {
                value.push_str(done);
                map.insert(key, value);
            } else {
                value.push_str(line);
                open = Some((key, value));
            }
            continue;
        }
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let Some((key, value)) = rest.split_once("]: [") else {
            continue;
        };
        match value.strip_suffix(']') {
            Some(v) => {
                map.insert(key.to_string(), v.to_string());
            }
            None => open = Some((key.to_string(), value.to_string())),
        }
    }
    // A value never closed (truncated output) is still worth keeping as printed.
    if let Some((key, value)) = open {
        map.insert(key, value);
    }
    map
}

/// The build facts `android_get_device_info` reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceProps {
    pub model: Option<String>,
    pub manufacturer: Option<String>,
    pub brand: Option<String>,
    pub device: Option<String>,
    /// Android release, e.g. "14".
    pub release: Option<String>,
    pub sdk: Option<u32>,
    /// Primary ABI.
    pub abi: Option<String>,
    /// All supported ABIs, preferred first.
    pub abis: Vec<String>,
    pub fingerprint: Option<String>,
    /// "user", "userdebug" or "eng".
    pub build_type: Option<String>,
    /// The device's own serial number (`ro.serialno`, else `ro.boot.serialno`), when the shell
    /// may read it: newer builds keep it from the shell, so it is often absent.
    pub serialno: Option<String>,
}

impl DeviceProps {
    pub fn from_map(map: &BTreeMap<String, String>) -> DeviceProps {
        // Older and vendor builds fill only some partitions' copies; the first non-empty wins.
        let get = |keys: &[&str]| {
            keys.iter()
                .filter_map(|k| map.get(*k))
                .map(|v| v.trim())
                .find(|v| !v.is_empty())
                .map(str::to_string)
        };
        let abis = get(&["ro.product.cpu.abilist", "ro.system.product.cpu.abilist"])
            .map(|l| {
                l.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        DeviceProps {
            model: get(&[
                "ro.product.model",
                "ro.product.system.model",
                "ro.product.vendor.model",
            ]),
            manufacturer: get(&[
                "ro.product.manufacturer",
                "ro.product.system.manufacturer",
                "ro.product.vendor.manufacturer",
            ]),
            brand: get(&[
                "ro.product.brand",
                "ro.product.system.brand",
                "ro.product.vendor.brand",
            ]),
            device: get(&[
                "ro.product.device",
                "ro.product.system.device",
                "ro.product.vendor.device",
            ]),
            release: get(&[
                "ro.build.version.release",
                "ro.build.version.release_or_codename",
            ]),
            sdk: get(&["ro.build.version.sdk"]).and_then(|s| s.parse().ok()),
            abi: get(&["ro.product.cpu.abi"]),
            abis,
            fingerprint: get(&["ro.build.fingerprint", "ro.system.build.fingerprint"]),
            build_type: get(&["ro.build.type", "ro.system.build.type"]),
            serialno: get(&["ro.serialno", "ro.boot.serialno"]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn pixel8pro_every_line_parsed() {
        let text = fixture("getprop/pixel8pro-husky.txt");
        let map = parse(&text);
        assert_eq!(
            map.len(),
            text.lines().filter(|l| l.starts_with('[')).count()
        );
        assert_eq!(map["ro.product.cpu.abilist32"], "");
        assert_eq!(map["bluetooth.device.class_of_device"], "90,66,12");
        assert!(!map.contains_key("ro.serialno"));
    }

    #[test]
    fn pixel8pro_device_props() {
        let props = DeviceProps::from_map(&parse(&fixture("getprop/pixel8pro-husky.txt")));
        assert_eq!(props.model.as_deref(), Some("Pixel 8 Pro"));
        assert_eq!(props.manufacturer.as_deref(), Some("Google"));
        assert_eq!(props.brand.as_deref(), Some("google"));
        assert_eq!(props.device.as_deref(), Some("husky"));
        assert_eq!(props.release.as_deref(), Some("16"));
        assert_eq!(props.sdk, Some(36));
        assert_eq!(props.abi.as_deref(), Some("arm64-v8a"));
        assert_eq!(props.abis, vec!["arm64-v8a"]);
        assert_eq!(
            props.fingerprint.as_deref(),
            Some("google/husky/husky:16/CP1A.260405.005/15001963:user/release-keys")
        );
        assert_eq!(props.build_type.as_deref(), Some("user"));
        // The capture has no serial: the shell could not read it.
        assert_eq!(props.serialno, None);
    }

    #[test]
    fn emulator_serial_number() {
        let text = fixture("getprop/emu-a9-sdk_gphone_x86.txt");
        let props = DeviceProps::from_map(&parse(&text));
        assert_eq!(props.serialno.as_deref(), Some("EMULATOR29X0X11X0"));
    }

    #[test]
    fn multi_line_value_and_truncation() {
        let text = "[a]: [one]\n[motd]: [line 1\nline 2\nend]\n[b]: [two]\n[cut]: [half";
        let map = parse(text);
        assert_eq!(map["motd"], "line 1\nline 2\nend");
        assert_eq!(map["b"], "two");
        assert_eq!(map["cut"], "half");
        assert_eq!(DeviceProps::from_map(&map), DeviceProps::default());
    }
}
