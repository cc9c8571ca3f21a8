//! The virtual device's answers shaped like the public captures in `tests/fixtures/public/`
//! (real devices' outputs other projects published): for the same command, the same section
//! headers, columns and key formats. Values differ (another device, another moment); the
//! shape is what a parser depends on.
//!
//! The Android 9 captures (an emulator's bugreport) are compared with a device set to that
//! capture's build: the demo apps on SDK 28, with the capture's own property listing as the
//! base of `getprop`. The sim writes every other output in its one Android 13/14 layout
//! whatever the SDK, so what changed since Android 9 (`TaskRecord{…}`, the whole
//! `NetworkInfo` in `ni{…}`, the package keys added in 11) is not compared: only what both
//! releases print alike. Every capture is compared or named in [`NOT_COMPARED`] with why.
use std::path::{Path, PathBuf};

use regex::Regex;
use spock_sim::device::SimDevice;

use super::{fixtures_dir, sh};

/// Captures with no comparison here, and why (path under `tests/fixtures/public/`).
const NOT_COMPARED: &[(&str, &str)] = &[
    (
        "dumpsys_activity/ldplayer_utf16_dumpsys_activity.txt",
        "UTF-16 written by a Windows redirect, not what a device sends; the Android 9 dump of \
         the same command is compared",
    ),
    (
        "dumpsys_input/nvidia_shield_tv_input.txt",
        "a TV with no touchscreen in the pre-Android 12 layout; the sim is a phone whose \
         touchscreen section is compared with the three phone and tablet dumps",
    ),
    (
        "dumpsys_netstats/emu_a9_netstats.txt",
        "the sim has no netstats service (`Can't find service: netstats`) and the client \
         never runs the command",
    ),
    (
        "getevent/ldplayer_getevent_raw.txt",
        "plain `getevent` streams events until interrupted; the listing (`getevent -lp`) is \
         what the client reads and is compared",
    ),
    (
        "ps/twoyi_xiaomi_a16_ps_ef_app_sandbox.txt",
        "toybox `ps -ef` (UID PID PPID C STIME TTY TIME CMD); the sim answers `ps -ef` with \
         `ps -A`'s columns (USER PID PPID VSZ RSS WCHAN ADDR S NAME), a known difference",
    ),
];

/// The comparisons, by capture.
const COMPARED: &[&str] = &[
    "am_start_W/encapp_readme_aloha_am_start_W.txt",
    "dumpsys_activity/emu_a9_activity_critical.txt",
    "dumpsys_connectivity/emu_a9_connectivity.txt",
    "dumpsys_input/honor_phone_input.txt",
    "dumpsys_input/vivo_pad_input_touching.txt",
    "dumpsys_input/vivo_pad_mt6991_input.txt",
    "dumpsys_package/emu_a9_package_all.txt",
    "dumpsys_window/emu_a9_window.txt",
    "getevent/vivo_pad_getevent_lp.txt",
    "getprop/emu_a9_getprop.txt",
    "logcat_threadtime/vivo_pad_system_log.txt",
];

fn public_dir() -> PathBuf {
    fixtures_dir().join("public")
}

fn capture(rel: &str) -> String {
    let path = public_dir().join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

fn all_captures(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("public captures").flatten() {
        let p = entry.path();
        if p.is_dir() {
            all_captures(&p, base, out);
            continue;
        }
        let rel = p
            .strip_prefix(base)
            .expect("under")
            .to_string_lossy()
            .replace('\\', "/");
        if !rel.ends_with(".NOTICE") && rel != "MANIFEST.tsv" && rel != "README.md" {
            out.push(rel);
        }
    }
}

#[test]
fn every_public_capture_is_compared_or_says_why_not() {
    let mut all = Vec::new();
    all_captures(&public_dir(), &public_dir(), &mut all);
    assert!(all.len() >= 16, "captures lost: {all:?}");
    for f in &all {
        let compared = COMPARED.contains(&f.as_str());
        let not = NOT_COMPARED.iter().any(|(p, why)| p == f && why.len() > 40);
        assert!(compared != not, "{f}: compared {compared}, excused {not}");
    }
    assert_eq!(COMPARED.len() + NOT_COMPARED.len(), all.len());
}

/// The demo apps on the Android 9 emulator the bugreport captures came from, its property
/// listing as the base of `getprop`.
fn android9_emulator() -> SimDevice {
    let fixtures = fixtures_dir();
    let root = fixtures
        .parent()
        .and_then(Path::parent)
        .expect("repository root");
    let demo_dir = root.join("assets").join("demo");
    let toml = std::fs::read_to_string(demo_dir.join("demo.toml")).expect("demo.toml");
    let device = format!(
        "[device]\nmodel = \"Android SDK built for x86\"\nmanufacturer = \"Google\"\n\
         device = \"generic_x86\"\nsdk = 28\nrelease = \"9\"\nwidth = 1080\nheight = 1920\n\
         density = 420\ngetprop = {:?}\nhome = \"launcher\"\n",
        public_dir()
            .join("getprop/emu_a9_getprop.txt")
            .display()
            .to_string()
    );
    let start = toml.find("[device]\n").expect("[device]");
    let end = start + toml[start..].find("\n[[").expect("after [device]") + 1;
    let toml = format!("{}{device}\n{}", &toml[..start], &toml[end..]);
    SimDevice::from_scenario_str(&toml, &demo_dir).expect("scenario")
}

/// The demo shop app launched, so activity and window have something in front.
async fn shop_in_front(dev: &SimDevice) {
    let r = sh(dev, "am start -W -n com.example.shop/.MainActivity").await;
    assert_eq!(r.code, 0, "{}", r.err);
}

/// `[key]: [value]` lines.
fn props(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(|l| {
            let (k, v) = l
                .strip_prefix('[')
                .and_then(|r| r.split_once("]: ["))
                .unwrap_or_else(|| panic!("not a property line: {l:?}"));
            (
                k.to_string(),
                v.strip_suffix(']').expect("closed").to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn getprop_at_the_captures_build_is_its_listing() {
    let real = props(&capture("getprop/emu_a9_getprop.txt"));
    let dev = android9_emulator();
    let sim = props(&sh(&dev, "getprop").await.text());
    // Both sorted by key, one `[key]: [value]` a line.
    for (name, p) in [("capture", &real), ("sim", &sim)] {
        assert!(p.windows(2).all(|w| w[0].0 < w[1].0), "{name} not sorted");
    }
    let get = |p: &[(String, String)], k: &str| {
        p.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())
    };
    for k in [
        "ro.product.model",
        "ro.product.manufacturer",
        "ro.product.device",
        "ro.build.version.sdk",
        "ro.build.version.release",
        "ro.build.id",
        "ro.product.cpu.abi",
    ] {
        assert_eq!(get(&sim, k), get(&real, k), "{k}");
    }
    assert_eq!(get(&sim, "ro.build.version.sdk").as_deref(), Some("28"));
    // Every key of the capture is there. The sim writes its identity over the base and adds
    // two keys this build lacks: `ro.build.version.release_or_codename` (Android 11+, written
    // whatever the SDK) and `ro.sf.lcd_density` (a phone's; the emulator has
    // `qemu.sf.lcd_density`).
    let keys = |p: &[(String, String)]| p.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    let (real_keys, sim_keys) = (keys(&real), keys(&sim));
    let missing: Vec<_> = real_keys.iter().filter(|k| !sim_keys.contains(k)).collect();
    let added: Vec<_> = sim_keys.iter().filter(|k| !real_keys.contains(k)).collect();
    assert!(missing.is_empty(), "{missing:?}");
    assert_eq!(
        added,
        ["ro.build.version.release_or_codename", "ro.sf.lcd_density"]
    );
    // The fingerprint's fields: brand/name/device:release/id/incremental:type/tags.
    let shape = Regex::new(r"^[^/]+/[^/]+/[^/:]+:[^/]+/[^/]+/[^/:]+:[a-z]+/[a-z-]+$").unwrap();
    for p in [&real, &sim] {
        let fp = get(p, "ro.build.fingerprint").expect("fingerprint");
        assert!(shape.is_match(&fp), "{fp}");
        assert!(fp.contains(":9/PSR1.180720.075/5124027:user/"), "{fp}");
    }
}

#[tokio::test]
async fn logcat_threadtime_has_the_captures_columns() {
    let real = capture("logcat_threadtime/vivo_pad_system_log.txt");
    let dev = SimDevice::demo();
    shop_in_front(&dev).await;
    let sim = sh(&dev, "logcat -d -v threadtime").await.text();
    // `MM-DD HH:MM:SS.mmm` `%5d %5d` `L` `%-8s: ` as AOSP's logprint writes it.
    let line = Regex::new(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] .{8,}?: ").unwrap();
    let columns = Regex::new(r"^ [ \d]{5} [ \d]{5} [VDIWEF]$").unwrap();
    for (name, text) in [("capture", &real), ("sim", &sim)] {
        assert!(
            text.starts_with("--------- beginning of system\n"),
            "{name}"
        );
        let mut n = 0;
        for l in text
            .lines()
            .filter(|l| !l.starts_with("--------- beginning of "))
        {
            assert!(line.is_match(l), "{name}: {l:?}");
            // PID and TID right-aligned in five columns each: the level is at column 31.
            assert!(columns.is_match(&l[18..32]), "{name}: {l:?}");
            n += 1;
        }
        assert!(n > 3, "{name}: {n} lines");
    }
}

/// The shapes of `getevent -lp` lines, read off the capture.
const GETEVENT_LINES: &[&str] = &[
    r"^add device \d+: /dev/input/event\d+$",
    r#"^  name:     ".*"$"#,
    r"^  events:$",
    r"^    [A-Z]+ +\([0-9a-f]{4}\): \S",
    r"^ {16}\S",
    r"^  input props:$",
    r"^    (INPUT_PROP_[A-Z_]+|<none>)$",
];

#[tokio::test]
async fn getevent_lp_lists_devices_as_the_capture_does() {
    let real = capture("getevent/vivo_pad_getevent_lp.txt");
    let dev = SimDevice::demo();
    let sim = sh(&dev, "getevent -lp").await.text();
    let shapes: Vec<Regex> = GETEVENT_LINES
        .iter()
        .map(|r| Regex::new(r).unwrap())
        .collect();
    let axis = Regex::new(concat!(
        r"^(    ABS \(0003\): | {16})(ABS_[A-Z_]+) +: value -?\d+, min -?\d+, max -?\d+, ",
        r"fuzz -?\d+, flat -?\d+, resolution -?\d+$"
    ))
    .unwrap();
    for (name, text) in [("capture", &real), ("sim", &sim)] {
        let mut axes = 0;
        // The capture pads every code to 22 columns, the last one too; the sim does not
        // write the trailing spaces. Parsers split on whitespace either way.
        for l in text.lines().map(str::trim_end) {
            assert!(shapes.iter().any(|s| s.is_match(l)), "{name}: {l:?}");
            if let Some(c) = axis.captures(l) {
                // Axis names padded to 22 columns: `: value` at column 38.
                assert_eq!(l.find(": value"), Some(38), "{name}: {l:?}");
                assert!(c[2].len() <= 22);
                axes += 1;
            }
        }
        assert!(axes >= 6, "{name}: {axes} axes");
        for ax in [
            "ABS_MT_SLOT",
            "ABS_MT_POSITION_X",
            "ABS_MT_POSITION_Y",
            "ABS_MT_TRACKING_ID",
        ] {
            assert!(text.contains(&format!(" {ax:<22}: value ")), "{name}: {ax}");
        }
        assert!(
            text.contains("  input props:\n    INPUT_PROP_DIRECT\n"),
            "{name}"
        );
    }
}

/// Top-level headers in order, numbers blanked (`Input Reader State (Nums of device: 7):`).
fn headers(text: &str) -> Vec<String> {
    let digits = Regex::new(r"\d+").unwrap();
    text.lines()
        .filter(|l| !l.starts_with(' ') && !l.trim().is_empty())
        .map(|l| digits.replace_all(l.trim_end(), "N").into_owned())
        .collect()
}

/// The field names of a `Viewport INTERNAL:` line, in order.
fn viewport_fields(text: &str) -> Vec<String> {
    let l = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Viewport INTERNAL: "))
        .expect("internal viewport");
    let field = Regex::new(r"(?:: |, )([a-zA-Z]+)=").unwrap();
    field.captures_iter(l).map(|c| c[1].to_string()).collect()
}

#[tokio::test]
async fn dumpsys_input_has_the_captures_sections_and_viewport() {
    let dev = SimDevice::demo();
    let sim = sh(&dev, "dumpsys input").await.text();
    let sim_headers = headers(&sim);
    assert!(sim_headers.len() >= 4, "{sim_headers:?}");
    for rel in [
        "dumpsys_input/honor_phone_input.txt",
        "dumpsys_input/vivo_pad_input_touching.txt",
        "dumpsys_input/vivo_pad_mt6991_input.txt",
    ] {
        let real = capture(rel);
        // The sim's sections are the capture's, in the capture's order (it leaves out some).
        let real_headers = headers(&real);
        let mut at = 0;
        for h in &sim_headers {
            let pos = real_headers[at..]
                .iter()
                .position(|r| r == h)
                .unwrap_or_else(|| panic!("{rel}: {h:?} missing or out of order"));
            at += pos + 1;
        }
        assert_eq!(viewport_fields(&sim), viewport_fields(&real), "{rel}");
    }
    assert_eq!(
        viewport_fields(&sim),
        [
            "displayId",
            "uniqueId",
            "port",
            "orientation",
            "logicalFrame",
            "physicalFrame",
            "deviceSize",
            "isActive"
        ]
    );
}

#[tokio::test]
async fn am_start_w_prints_the_captures_lines() {
    let real = capture("am_start_W/encapp_readme_aloha_am_start_W.txt");
    let dev = SimDevice::demo();
    let sim = sh(&dev, "am start -W -n com.example.shop/.MainActivity")
        .await
        .text();
    // The line keys, in order (the capture's `$ adb shell …` prompt line left out).
    let keys = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with('$'))
            .map(|l| l.split(':').next().unwrap_or(l).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&sim), keys(&real), "{sim}");
    assert_eq!(
        keys(&real),
        [
            "Starting",
            "Status",
            "LaunchState",
            "Activity",
            "TotalTime",
            "WaitTime",
            "Complete"
        ]
    );
    let intent = Regex::new(r"^Starting: Intent \{ (.* )?cmp=[\w.]+/[\w.]+ (.* )?\}$").unwrap();
    for t in [&real, &sim] {
        let first = t.lines().find(|l| l.starts_with("Starting")).unwrap();
        assert!(intent.is_match(first), "{first}");
        assert!(t.contains("\nStatus: ok\nLaunchState: COLD\n"), "{t}");
    }
}

#[tokio::test]
async fn dumpsys_activity_and_window_name_the_front_app_as_the_capture_does() {
    let dev = android9_emulator();
    shop_in_front(&dev).await;
    let real = capture("dumpsys_activity/emu_a9_activity_critical.txt");
    let sim = sh(&dev, "dumpsys activity activities").await.text();
    let hist = Regex::new(r"^ +\* Hist +#0: ActivityRecord\{[0-9a-f]+ u0 [\w.]+/[\w.]+").unwrap();
    let resumed =
        Regex::new(r"^  ResumedActivity: ActivityRecord\{[0-9a-f]+ u0 [\w.]+/\.[\w.]+").unwrap();
    for (name, t) in [("capture", &real), ("sim", &sim)] {
        let mut lines = t.lines();
        assert_eq!(
            lines.next(),
            Some("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)"),
            "{name}"
        );
        assert_eq!(
            lines.next(),
            Some("Display #0 (activities from top to bottom):"),
            "{name}"
        );
        assert!(t.lines().any(|l| hist.is_match(l)), "{name}: * Hist");
        assert!(
            t.lines().any(|l| resumed.is_match(l)),
            "{name}: ResumedActivity"
        );
        assert!(
            t.lines().any(|l| l
                .trim_start()
                .starts_with("state=RESUMED stopped=false delayedResume=false finishing=false")),
            "{name}: state line"
        );
    }

    let real = capture("dumpsys_window/emu_a9_window.txt");
    let sim = sh(&dev, "dumpsys window").await.text();
    let focus =
        Regex::new(r"(?m)^  mCurrentFocus=Window\{[0-9a-f]+ u0 ([\w.]+)/([\w.]+)\}$").unwrap();
    for (name, t) in [("capture", &real), ("sim", &sim)] {
        let c = focus
            .captures(t)
            .unwrap_or_else(|| panic!("{name}: mCurrentFocus"));
        // The window title is the full class name, not the `.Short` form.
        assert!(c[2].starts_with(&c[1]), "{name}: {}", &c[0]);
        assert!(t.contains("\n  mFocusedApp="), "{name}");
    }
    assert!(
        sim.contains("mCurrentFocus=Window{")
            && sim.contains("com.example.shop/com.example.shop.MainActivity}")
    );
}

#[tokio::test]
async fn dumpsys_connectivity_has_the_captures_default_network_and_agents() {
    let real = capture("dumpsys_connectivity/emu_a9_connectivity.txt");
    let dev = android9_emulator();
    let sim = sh(&dev, "dumpsys connectivity").await.text();
    let default = Regex::new(r"(?m)^Active default network: (\d+)$").unwrap();
    for (name, t) in [("capture", &real), ("sim", &sim)] {
        let n = default.captures(t).unwrap_or_else(|| panic!("{name}"))[1].to_string();
        assert!(
            t.contains("\nCurrent Networks:\n  NetworkAgentInfo{"),
            "{name}"
        );
        // The default network's agent: its number, Wi-Fi on wlan0, the emulator's SSID.
        let agent = t
            .split("NetworkAgentInfo{")
            .skip(1)
            .find(|a| a.contains(&format!("network{{{n}}}")))
            .unwrap_or_else(|| panic!("{name}: no agent for network {n}"));
        for part in [
            "InterfaceName: wlan0 LinkAddresses: [",
            "DnsAddresses: [",
            "Transports: WIFI Capabilities: ",
            "SSID: \"AndroidWifi\"",
        ] {
            assert!(agent.contains(part), "{name}: {part}");
        }
    }
}

/// The `key=` lines of one `Package [pkg]` block, in order, with the line shape of each
/// value (digits and hex blanked).
fn package_keys(text: &str, pkg: &str) -> Vec<(String, String)> {
    let head = format!("  Package [{pkg}] (");
    let start = text
        .lines()
        .skip_while(|l| l.trim_end() != "Packages:")
        .position(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no {head}"));
    let num = Regex::new(r"\d+").unwrap();
    text.lines()
        .skip_while(|l| l.trim_end() != "Packages:")
        .skip(start + 1)
        .take_while(|l| l.starts_with("    "))
        .filter(|l| !l.starts_with("     "))
        .filter_map(|l| {
            let (k, v) = l.trim().split_once('=')?;
            Some((k.to_string(), num.replace_all(v, "N").into_owned()))
        })
        .collect()
}

#[tokio::test]
async fn dumpsys_package_has_the_captures_keys_in_its_order() {
    let real_text = capture("dumpsys_package/emu_a9_package_all.txt");
    let real = package_keys(&real_text, "com.jeanboy.app.training");
    let dev = android9_emulator();
    let sim = package_keys(
        &sh(&dev, "dumpsys package com.example.shop").await.text(),
        "com.example.shop",
    );
    let real_names: Vec<&str> = real.iter().map(|(k, _)| k.as_str()).collect();
    let shared: Vec<&(String, String)> = sim
        .iter()
        .filter(|(k, _)| real_names.contains(&k.as_str()))
        .collect();
    // The keys both print, in the same order and with values of the same shape.
    let order: Vec<&str> = shared.iter().map(|(k, _)| k.as_str()).collect();
    let real_order: Vec<&str> = real_names
        .iter()
        .copied()
        .filter(|k| order.contains(k))
        .collect();
    assert_eq!(order, real_order);
    for key in [
        "userId",
        "codePath",
        "versionCode",
        "versionName",
        "flags",
        "dataDir",
        "timeStamp",
        "firstInstallTime",
        "lastUpdateTime",
        "pkgFlags",
    ] {
        assert!(order.contains(&key), "{key} not in both");
    }
    let shape = |p: &[(String, String)], k: &str| {
        p.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    for k in [
        "versionCode",
        "userId",
        "firstInstallTime",
        "lastUpdateTime",
    ] {
        assert_eq!(shape(&sim, k), shape(&real, k), "{k}");
    }
    assert_eq!(shape(&sim, "versionCode"), "N minSdk=N targetSdk=N");
    // What the sim prints that this capture does not: the package-visibility keys of Android
    // 11+ (written whatever the SDK) and the installer (the capture's app has none).
    let extra: Vec<&str> = sim
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !real_names.contains(k))
        .collect();
    assert_eq!(
        extra,
        ["forceQueryable", "queriesPackages", "installerPackageName"]
    );
}
