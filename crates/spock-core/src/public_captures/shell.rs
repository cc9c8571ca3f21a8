//! The shell outputs: each kind (the directory a capture is in) read by the parser of the
//! command the product runs. Every capture of a kind is held to invariants found without the
//! parser (an independent scan of the same text); the values read by eye from a capture are
//! asserted in its kind's `match`. A capture the parser cannot read (UTF-16 redirected on
//! Windows, raw `getevent` without `-p`, `ps -ef` instead of `ps -A`) must come back empty or
//! `None`: never a wrong value.
use crate::device::parse::getevent::{self, InputDevice};
use crate::device::parse::{
    ActivityRef, activity, am, getprop, input, logcat, net, package, ps, window,
};
use crate::mcp::tools::gestures::TouchScreen;

use super::{EXCLUDED, SHELL_COUNT, SHELL_DIR, captures, device_text, rel};

/// A kind's check: `(file name, text as the device would hand it over)`; `true` when the file
/// also had values read by eye.
type Check = fn(&str, &str) -> bool;

/// Every kind the product reads, by directory name under `tests/fixtures/public/`.
pub const KINDS: &[(&str, Check)] = &[
    ("am_start_W", am_start_w),
    ("dumpsys_activity", dumpsys_activity),
    ("dumpsys_connectivity", dumpsys_connectivity),
    ("dumpsys_input", dumpsys_input),
    ("dumpsys_package", dumpsys_package),
    ("dumpsys_window", dumpsys_window),
    ("getevent", getevent_lp),
    ("getprop", getprop_listing),
    ("logcat_threadtime", logcat_threadtime),
    ("ps", ps_listing),
];

#[test]
fn every_public_shell_capture_is_read_right_or_refused_plainly() {
    let files = captures(SHELL_DIR);
    assert!(files.len() >= SHELL_COUNT, "captures lost: {files:?}");
    let (mut tested, mut by_eye) = (0, 0);
    for f in &files {
        let r = rel(SHELL_DIR, f);
        if EXCLUDED.iter().any(|(p, _)| *p == r) {
            continue;
        }
        let (kind, name) = r.split_once('/').expect("kind/name");
        let (_, check) = KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .unwrap_or_else(|| panic!("{r}: no test for kind {kind}"));
        tested += 1;
        by_eye += usize::from(check(name, &device_text(f)));
    }
    assert_eq!(tested + EXCLUDED.len(), files.len());
    assert!(tested >= SHELL_COUNT - EXCLUDED.len(), "{tested} tested");
    assert!(
        by_eye >= 15,
        "values read by eye for {by_eye} captures only"
    );
}

/// What every parser makes of a capture it cannot read: nothing at all.
fn nothing_read(name: &str, text: &str) {
    let stack = activity::parse_activities(text);
    assert!(stack.tasks.is_empty() && stack.resumed.is_none(), "{name}");
    assert_eq!(stack.focused_app, None, "{name}");
    assert!(!activity::is_bad_command(text), "{name}");
    assert_eq!(
        window::parse_focus(text),
        window::WindowFocus::default(),
        "{name}"
    );
    assert!(getprop::parse(text).is_empty(), "{name}");
    assert!(ps::parse(text).is_empty(), "{name}");
    assert!(logcat::parse_threadtime(text).is_empty(), "{name}");
    assert!(getevent::parse_devices(text).is_empty(), "{name}");
    assert_eq!(input::touch_rotation(text), None, "{name}");
    let c = net::parse_connectivity(text);
    assert!(
        c.networks.is_empty() && c.default_network.is_none(),
        "{name}"
    );
    assert_eq!(
        am::parse_start_w(text),
        am::StartResult::default(),
        "{name}"
    );
    assert_eq!(package::parse(text, "android"), None, "{name}");
}

fn am_start_w(name: &str, text: &str) -> bool {
    let r = am::parse_start_w(text);
    // Independent: the `Key: value` lines ActivityManagerShellCommand prints after waiting.
    let line = |key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix(':'))
            .map(str::trim)
    };
    assert_eq!(r.status.as_deref(), line("Status"), "{name}");
    assert_eq!(r.launch_state.as_deref(), line("LaunchState"), "{name}");
    assert_eq!(
        r.total_time_ms,
        line("TotalTime").and_then(|v| v.parse().ok())
    );
    assert_eq!(r.activity.map(|a| a.flat()).as_deref(), line("Activity"));
    match name {
        // A README's sample (the `$ adb shell …` prompt line included): the format, not proof
        // of a device. The prompt line is not mistaken for a field.
        "encapp_readme_aloha_am_start_W.txt" => {
            let r = am::parse_start_w(text);
            assert!(r.ok() && text.starts_with("$ adb shell am start -W "));
            assert_eq!(r.status.as_deref(), Some("ok"));
            assert_eq!(r.launch_state.as_deref(), Some("COLD"));
            let a = r.activity.expect("activity");
            assert_eq!(a.package, "com.facebook.alohaapps.launcher");
            assert_eq!(a.class, "com.facebook.aloha.app.home.touch.HomeActivity");
            assert_eq!((r.total_time_ms, r.wait_time_ms), (Some(1479), Some(1482)));
            assert_eq!((r.warning, r.error), (None, None));
        }
        _ => return false,
    }
    true
}

fn dumpsys_activity(name: &str, text: &str) -> bool {
    let s = activity::parse_activities(text);
    // Independent: the first `ResumedActivity:` line names the resumed activity.
    let resumed_line = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("ResumedActivity:") || l.starts_with("mResumedActivity:"));
    let comp = |r: &ActivityRef| r.component().flat();
    let from_line = resumed_line.and_then(|l| {
        let body = l.split_once("ActivityRecord{")?.1;
        body.split_whitespace()
            .find(|w| w.contains('/'))
            .map(str::to_string)
    });
    assert_eq!(s.resumed.as_ref().map(comp), from_line, "{name}: resumed");
    match name {
        "emu_a9_activity_critical.txt" => {
            let r = s.resumed.expect("resumed");
            assert_eq!(r.package, "com.jeanboy.app.training");
            assert_eq!(r.class, "com.jeanboy.app.training.ui.activity.MainActivity");
            assert_eq!((r.user, r.task_id), (Some(0), Some(12)));
            // Android 9's `TaskRecord{…}` form, top first, each with its one activity.
            let ids: Vec<i64> = s.tasks.iter().map(|t| t.id).collect();
            assert_eq!(ids, vec![12, 2]);
            let t = &s.tasks[0];
            assert_eq!(t.affinity.as_deref(), Some("com.jeanboy.app.training"));
            assert_eq!(t.activities.len(), 1);
            assert_eq!(t.activities[0].state.as_deref(), Some("RESUMED"));
            let home = &s.tasks[1];
            assert_eq!(
                home.root.as_ref().map(|c| c.flat()).as_deref(),
                Some("com.google.android.apps.nexuslauncher/.NexusLauncherActivity")
            );
            assert_eq!(home.activities[0].state.as_deref(), Some("STOPPED"));
            assert!(!activity::is_bad_command(text));
        }
        // `dumpsys activity` redirected by PowerShell: UTF-16LE with a BOM. A device never
        // sends that over adb; the product reads it as it would any bytes (lossy UTF-8) and
        // must find nothing rather than something wrong.
        "ldplayer_utf16_dumpsys_activity.txt" => {
            assert!(text.starts_with('\u{fffd}') && text.contains('\0'));
            nothing_read(name, text);
        }
        _ => return false,
    }
    true
}

fn dumpsys_window(name: &str, text: &str) -> bool {
    let f = window::parse_focus(text);
    // Independent: `mCurrentFocus=Window{hash u0 pkg/cls}` decides first when it names a
    // component.
    let focus_comp = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("mCurrentFocus=Window{"))
        .and_then(|b| {
            b.split('}')
                .next()?
                .split_whitespace()
                .find(|w| w.contains('/'))
        })
        .and_then(|c| c.split_once('/').map(|(p, _)| p.to_string()));
    if focus_comp.is_some() {
        assert_eq!(f.package, focus_comp, "{name}");
        assert_eq!(f.source.as_deref(), Some("mCurrentFocus"), "{name}");
    }
    match name {
        "emu_a9_window.txt" => {
            let w = f.current_focus.expect("mCurrentFocus");
            assert_eq!(
                w.title,
                "com.jeanboy.app.training/com.jeanboy.app.training.ui.activity.MainActivity"
            );
            assert_eq!(w.user, Some(0));
            assert_eq!(f.package.as_deref(), Some("com.jeanboy.app.training"));
            assert_eq!(
                f.activity.as_deref(),
                Some("com.jeanboy.app.training.ui.activity.MainActivity")
            );
            // `mFocusedApp=Token{… ActivityRecord{25f1806 u0 …/.ui.activity.MainActivity t12}}`
            let app = f.focused_app.expect("mFocusedApp");
            assert_eq!(
                (app.class.as_str(), app.task_id),
                (
                    "com.jeanboy.app.training.ui.activity.MainActivity",
                    Some(12)
                )
            );
        }
        _ => return false,
    }
    true
}

fn dumpsys_connectivity(name: &str, text: &str) -> bool {
    let c = net::parse_connectivity(text);
    // Independent: one agent per `NetworkAgentInfo{` line under `Current Networks:`, and the
    // default network as printed.
    let agents = text
        .lines()
        .skip_while(|l| l.trim() != "Current Networks:")
        .skip(1)
        .take_while(|l| l.starts_with(' ') || l.is_empty())
        .filter(|l| l.trim_start().starts_with("NetworkAgentInfo{"))
        .count();
    assert_eq!(c.networks.len(), agents, "{name}");
    let default = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Active default network:"))
        .and_then(|n| n.trim().parse().ok());
    assert_eq!(c.default_network, default, "{name}");
    for n in &c.networks {
        // A type is a word such as WIFI or MOBILE[LTE], never a piece of the line's syntax.
        let ty = n.r#type.as_deref().unwrap_or_default();
        assert!(
            ty.chars()
                .all(|ch| ch.is_ascii_uppercase() || ch == '_' || ch == '[' || ch == ']')
                && !ty.ends_with("[]"),
            "{name}: type {ty:?}"
        );
    }
    match name {
        // Android 9 prints the agent's NetworkInfo whole (`ni{[type: WIFI[], state:
        // CONNECTED/CONNECTED, …]}`), not the short form of later releases.
        "emu_a9_connectivity.txt" => {
            assert_eq!(c.not_readable, None);
            assert_eq!(c.default_network, Some(101));
            assert_eq!(c.active_type.as_deref(), Some("WIFI"));
            assert_eq!(c.networks.len(), 2);
            let wifi = &c.networks[0];
            assert_eq!(wifi.network, Some(101));
            assert_eq!(
                (wifi.r#type.as_deref(), wifi.state.as_deref()),
                (Some("WIFI"), Some("CONNECTED"))
            );
            assert_eq!(wifi.interface.as_deref(), Some("wlan0"));
            assert_eq!(
                wifi.addresses,
                vec![
                    "fe80::15:b2ff:fe00:0/64",
                    "192.168.232.2/21",
                    "fec0::15:b2ff:fe00:0/64",
                    "fec0::ec81:a5bd:fb27:5045/64"
                ]
            );
            assert_eq!(wifi.dns, vec!["fec0::3", "10.0.2.3"]);
            assert_eq!(wifi.transports, vec!["WIFI"]);
            assert!(
                !wifi.validated,
                "everValidated{{false}}, no VALIDATED capability"
            );
            let cell = &c.networks[1];
            assert_eq!(
                (cell.network, cell.r#type.as_deref(), cell.state.as_deref()),
                (Some(102), Some("MOBILE[LTE]"), Some("CONNECTED"))
            );
            assert_eq!(cell.interface.as_deref(), Some("radio0"));
            assert_eq!(cell.transports, vec!["CELLULAR"]);
        }
        _ => return false,
    }
    true
}

fn dumpsys_input(name: &str, text: &str) -> bool {
    let rot = input::touch_rotation(text);
    // Independent: a numeric `orientation=` of the first internal viewport is the answer
    // (every capture here prints it ahead of the `…Orientation:` lines); with no viewport and
    // no `…Orientation:` line there is none.
    let viewport = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Viewport INTERNAL:"))
        .and_then(|l| l.split(", ").find_map(|f| f.strip_prefix("orientation=")));
    match viewport.map(str::parse::<u8>) {
        Some(Ok(v)) => assert_eq!(rot, Some(v), "{name}"),
        Some(Err(_)) => {}
        None if !text.contains("Orientation: ") => assert_eq!(rot, None, "{name}"),
        None => {}
    }
    match name {
        "honor_phone_input.txt" | "vivo_pad_mt6991_input.txt" | "vivo_pad_input_touching.txt" => {
            assert_eq!(rot, Some(0));
            // Android 14+ also prints the touchscreen's own rotation as an enum name
            // (`InputDeviceOrientation: Rotation0` on the vivo tablet): read alone, it says
            // the same.
            let own: String = text
                .lines()
                .filter(|l| l.contains("InputDeviceOrientation:"))
                .collect::<Vec<_>>()
                .join("\n");
            assert_eq!(input::touch_rotation(&own), Some(0), "{name}: {own:?}");
        }
        // A TV: no touchscreen, only an unnamed `Viewport:` in the pointer configuration.
        "nvidia_shield_tv_input.txt" => {
            assert!(text.starts_with("dumpsys input\nINPUT MANAGER (dumpsys input)"));
            assert_eq!(rot, None);
        }
        _ => return false,
    }
    true
}

fn dumpsys_package(name: &str, text: &str) -> bool {
    // Independent: each `  Package [name] (hash):` under `Packages:` and the first
    // `versionCode=` after it.
    let mut in_packages = false;
    let mut expected: Vec<(String, Option<i64>)> = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_packages = line.trim_end() == "Packages:";
            continue;
        }
        if !in_packages {
            continue;
        }
        if let Some(rest) = line.strip_prefix("  Package [") {
            let pkg = rest.split(']').next().unwrap_or_default();
            expected.push((pkg.to_string(), None));
        } else if let Some(last) = expected.last_mut()
            && last.1.is_none()
            && let Some(v) = line.trim().strip_prefix("versionCode=")
        {
            last.1 = v.split_whitespace().next().and_then(|v| v.parse().ok());
        }
    }
    for (pkg, code) in &expected {
        let info = package::parse(text, pkg).unwrap_or_else(|| panic!("{name}: {pkg}"));
        assert_eq!(&info.package, pkg);
        assert_eq!(&info.version_code, code, "{name}: {pkg}");
    }
    assert_eq!(package::parse(text, "com.example.not.installed"), None);
    match name {
        "emu_a9_package_all.txt" => {
            assert_eq!(
                expected.len(),
                110,
                "`Read completed successfully: 110 packages`"
            );
            let p = package::parse(text, "com.jeanboy.app.training").expect("the app");
            assert_eq!(p.uid, Some(10086));
            assert_eq!(
                (p.version_code, p.version_name.as_deref()),
                (Some(1), Some("1.0"))
            );
            assert_eq!((p.min_sdk, p.target_sdk), (Some(21), Some(27)));
            assert_eq!(
                p.code_path.as_deref(),
                Some("/data/app/com.jeanboy.app.training-GiM2K2Giith8rUE8lICLsg==")
            );
            assert_eq!(
                p.data_dir.as_deref(),
                Some("/data/user/0/com.jeanboy.app.training")
            );
            assert_eq!(p.first_install_time.as_deref(), Some("2019-04-09 08:23:24"));
            assert_eq!(p.last_update_time.as_deref(), Some("2019-08-15 14:35:03"));
            assert!(p.debuggable && p.flags.iter().any(|f| f == "TEST_ONLY"));
        }
        _ => return false,
    }
    true
}

/// `getevent -lp` lists devices; `getevent` alone streams raw events the product cannot use
/// to find the touchscreen.
fn getevent_lp(name: &str, text: &str) -> bool {
    let devs = getevent::parse_devices(text);
    let adds = text
        .lines()
        .filter(|l| l.starts_with("add device "))
        .count();
    assert_eq!(devs.len(), adds, "{name}");
    let screen = TouchScreen::find(&devs);
    if adds == 0 {
        assert_eq!(screen, None, "{name}");
    }
    match name {
        "vivo_pad_getevent_lp.txt" => {
            assert_eq!(devs.len(), 8);
            let names: Vec<&str> = devs.iter().filter_map(|d| d.name.as_deref()).collect();
            assert_eq!(names.len(), 8);
            assert_eq!(names[1], "vivo_ts");
            let ts = screen.expect("touchscreen");
            assert_eq!(ts.path, "/dev/input/event6");
            assert_eq!((ts.x, ts.y), ((0, 20639), (0, 30959)));
            let d: &InputDevice = &devs[1];
            assert_eq!(d.axis("ABS_MT_SLOT").map(|a| a.max), Some(9));
            assert_eq!(d.axis("ABS_MT_TRACKING_ID").map(|a| a.max), Some(65535));
            // The pen is direct too, but single-touch (ABS_X/Y); the fingerprint area has MT
            // axes but no INPUT_PROP_DIRECT: neither is taken for the screen.
            assert_eq!(devs[2].name.as_deref(), Some("vivo_ts_pen"));
            assert!(!devs[2].is_touchscreen() && devs[2].axis("ABS_X").is_some());
            assert!(!devs[3].is_touchscreen() && devs[3].input_props.is_empty());
        }
        // Raw `getevent`: `/dev/input/event2: 0003 0035 00000268` lines, no device listing.
        "ldplayer_getevent_raw.txt" => {
            assert!(text.contains("/dev/input/event2: 0003 0035 "));
            nothing_read(name, text);
        }
        _ => return false,
    }
    true
}

fn getprop_listing(name: &str, text: &str) -> bool {
    let map = getprop::parse(text);
    // Independent: every one-line `[key]: [value]`.
    let mut single = 0;
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some((k, v)) = line
            .strip_prefix('[')
            .and_then(|r| r.split_once("]: ["))
            .and_then(|(k, v)| Some((k, v.strip_suffix(']')?)))
        {
            assert_eq!(map.get(k).map(String::as_str), Some(v), "{name}: [{k}]");
            single += 1;
        }
    }
    assert!(single > 0 && map.len() >= single, "{name}");
    let p = getprop::DeviceProps::from_map(&map);
    match name {
        "emu_a9_getprop.txt" => {
            assert_eq!(map.len(), 359);
            assert_eq!(p.model.as_deref(), Some("Android SDK built for x86"));
            assert_eq!(p.manufacturer.as_deref(), Some("Google"));
            assert_eq!(p.brand.as_deref(), Some("google"));
            assert_eq!(p.device.as_deref(), Some("generic_x86"));
            assert_eq!((p.release.as_deref(), p.sdk), (Some("9"), Some(28)));
            assert_eq!(p.abi.as_deref(), Some("x86"));
            assert_eq!(p.abis, vec!["x86"]);
            assert_eq!(
                p.fingerprint.as_deref(),
                Some(
                    "google/sdk_gphone_x86/generic_x86:9/PSR1.180720.075/5124027:user/release-keys"
                )
            );
            assert_eq!(p.build_type.as_deref(), Some("user"));
            assert_eq!(p.serialno.as_deref(), Some("EMULATOR29X0X11X0"));
        }
        _ => return false,
    }
    true
}

fn logcat_threadtime(name: &str, text: &str) -> bool {
    let lines = logcat::parse_threadtime(text);
    // Independent: a threadtime line is `MM-DD HH:MM:SS.mmm PID TID L TAG: …`.
    let re = regex::Regex::new(r"^(\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d\.\d+ +\d+ +\d+ [VDIWEFA] ")
        .expect("regex");
    let heads = text.lines().filter(|l| re.is_match(l)).count();
    assert_eq!(lines.len(), heads, "{name}");
    match name {
        "vivo_pad_system_log.txt" => {
            assert_eq!(
                lines.len(),
                196,
                "197 lines less `--------- beginning of system`"
            );
            let first = &lines[0];
            assert_eq!(
                (first.date.as_str(), first.time.as_str()),
                ("03-21", "10:18:28.096")
            );
            assert_eq!((first.pid, first.tid, first.level), (1739, 1739, 'D'));
            assert_eq!(first.tag, "BatteryStatsImpl");
            assert_eq!(
                first.message,
                "Reading daily items from /data/system/batterystats-daily.xml"
            );
            let last = lines.last().expect("lines");
            assert_eq!(
                (last.pid, last.tid, last.tag.as_str(), last.message.as_str()),
                (6257, 7081, "Looper", "Drained")
            );
            let count = |c: char| lines.iter().filter(|l| l.level == c).count();
            assert_eq!(
                (count('D'), count('I'), count('W'), count('E')),
                (1, 115, 62, 18)
            );
            assert!(
                logcat::crashes(&lines).is_empty(),
                "no FATAL EXCEPTION in it"
            );
        }
        _ => return false,
    }
    true
}

/// The product runs `ps -A` (header `USER PID PPID VSZ RSS WCHAN ADDR S NAME`).
fn ps_listing(name: &str, text: &str) -> bool {
    let rows = ps::parse(text);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    if header.contains(&"USER") && header.contains(&"PID") {
        assert_eq!(rows.len(), lines.count(), "{name}: a row per line");
    } else {
        assert!(
            rows.is_empty(),
            "{name}: a header it does not know reads as nothing"
        );
    }
    match name {
        // `ps -ef` from inside an app: toybox's `UID PID PPID C STIME TTY TIME CMD` header,
        // which `ps -A` never prints. Nothing is read from it, and no row is made up.
        "twoyi_xiaomi_a16_ps_ef_app_sandbox.txt" => {
            assert!(text.starts_with("UID             PID   PPID C STIME TTY"));
            nothing_read(name, text);
        }
        _ => return false,
    }
    true
}
