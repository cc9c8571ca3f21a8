//! System properties for `getprop`: a base set (a real capture named by the scenario, or the
//! built-in Pixel-like set below), then the scenario's identity written over it.
//!
//! Output is `[key]: [value]` sorted by key, exactly as `fixtures/getprop/pixel8pro-husky.txt`.
//! The built-in keys are real Android property names; their values describe the scenario's
//! device, not any capture.
use std::collections::BTreeMap;

use crate::scenario::DeviceSpec;

/// Parses `getprop` output (`[key]: [value]` a line); other lines are skipped.
pub fn parse_getprop(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|l| {
            let l = l.strip_prefix('[')?;
            let (k, v) = l.split_once("]: [")?;
            Some((k.to_string(), v.strip_suffix(']')?.to_string()))
        })
        .collect()
}

const BUILTIN: &[(&str, &str)] = &[
    ("dalvik.vm.heapsize", "512m"),
    ("gsm.sim.state", "ABSENT"),
    ("init.svc.adbd", "running"),
    ("net.bt.name", "Android"),
    ("persist.sys.locale", "en-US"),
    ("persist.sys.timezone", "Etc/UTC"),
    ("persist.sys.usb.config", "adb"),
    ("ro.boot.hardware", "panther"),
    ("ro.boot.verifiedbootstate", "green"),
    ("ro.bootloader", "cloudripper-1.0-10817346"),
    ("ro.build.characteristics", "nosdcard"),
    ("ro.build.display.id", "UQ1A.240205.002"),
    ("ro.build.host", "abfarm-release"),
    ("ro.build.id", "UQ1A.240205.002"),
    ("ro.build.tags", "release-keys"),
    ("ro.build.type", "user"),
    ("ro.build.user", "android-build"),
    ("ro.build.version.codename", "REL"),
    ("ro.build.version.incremental", "11224170"),
    ("ro.build.version.security_patch", "2024-02-05"),
    ("ro.debuggable", "0"),
    ("ro.hardware", "panther"),
    ("ro.product.board", "panther"),
    ("ro.product.brand", "google"),
    ("ro.product.cpu.abi", "arm64-v8a"),
    ("ro.product.cpu.abilist", "arm64-v8a,armeabi-v7a,armeabi"),
    ("ro.product.locale", "en-US"),
    ("ro.secure", "1"),
    ("ro.serialno", ""),
    ("service.bootanim.exit", "1"),
    ("sys.boot_completed", "1"),
    ("sys.usb.config", "adb"),
    ("sys.usb.state", "adb"),
];

pub fn build(base: Option<&str>, d: &DeviceSpec, serial: &str) -> BTreeMap<String, String> {
    let mut p = match base {
        Some(text) => parse_getprop(text),
        None => BUILTIN
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    let sdk = d.sdk.to_string();
    let fingerprint = format!(
        "google/{0}/{0}:{1}/{2}/{3}:user/release-keys",
        d.device,
        d.release,
        p.get("ro.build.id").cloned().unwrap_or_default(),
        p.get("ro.build.version.incremental")
            .cloned()
            .unwrap_or_default()
    );
    let mut set = |k: &str, v: &str| {
        p.insert(k.to_string(), v.to_string());
    };
    set("ro.product.model", &d.model);
    set("ro.product.vendor.model", &d.model);
    set("ro.product.manufacturer", &d.manufacturer);
    set("ro.product.device", &d.device);
    set("ro.product.name", &d.device);
    set("ro.build.product", &d.device);
    set("ro.build.version.sdk", &sdk);
    set("ro.build.version.release", &d.release);
    set("ro.build.version.release_or_codename", &d.release);
    set("ro.build.fingerprint", &fingerprint);
    set("ro.sf.lcd_density", &d.density.to_string());
    set("ro.serialno", serial);
    p
}

pub fn render(props: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (k, v) in props {
        out.push_str(&format!("[{k}]: [{v}]\n"));
    }
    out
}
