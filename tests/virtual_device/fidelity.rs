//! The virtual device answers as Android's own sources say a phone does (issue 21), checked
//! through Debian's real `adb` client against the virtual device's adb-server front door:
//! `input keyevent` / `keycombination` (InputShellCommand, KeyEvent), `am start` with a
//! trailing package or `-p` and `-W` (ActivityManagerShellCommand, Intent.parseCommandArgs),
//! mksh redirections, and `cmd app_function` (AppFunctionManagerServiceShellCommand). The
//! sources and revisions are in `tests/fixtures/SOURCES.md`. Skips (saying so) without `adb`;
//! fails instead when `CI` is set.
use std::process::Command;
use std::sync::Arc;

use spock_tui::sim::Target;
use spock_tui::sim::cli::{SimHandle, SimOptions, start};
use spock_tui::sim::device::SimDevice;

use crate::support::private_adb;
use private_adb::adb_present;

struct Phone {
    rt: tokio::runtime::Runtime,
    sim: Option<SimHandle>,
    dev: SimDevice,
    port: u16,
}

struct Ran {
    code: Option<i32>,
    out: String,
    err: String,
}

impl Phone {
    fn start() -> Phone {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dev = SimDevice::demo();
        let sim = rt
            .block_on(start(SimOptions::adb_server_only(vec![
                Arc::new(dev.clone()) as Arc<dyn Target>,
            ])))
            .unwrap();
        let port = sim.adb_server.unwrap().port();
        Phone {
            rt,
            sim: Some(sim),
            dev,
            port,
        }
    }

    /// `adb -s SERIAL shell CMD` through the real adb client.
    fn sh(&self, cmd: &str) -> Ran {
        let o = Command::new("adb")
            .args(["-P", &self.port.to_string(), "-s", &self.dev.serial()])
            .args(["shell", cmd])
            .env("ADB_EMU", "0")
            .output()
            .unwrap();
        Ran {
            code: o.status.code(),
            out: String::from_utf8_lossy(&o.stdout).into_owned(),
            err: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// The focused field's text, from a fresh uiautomator dump.
    fn field_text(&self, id: &str) -> String {
        let xml = self.sh("uiautomator dump /dev/tty").out;
        let at = xml
            .find(&format!("resource-id=\"{id}\""))
            .unwrap_or_else(|| panic!("{id} not on screen: {xml}"));
        let node_start = xml[..at].rfind("<node").unwrap();
        let node = &xml[node_start..];
        let t = node.find(" text=\"").unwrap() + 7;
        node[t..t + node[t..].find('"').unwrap()].to_string()
    }
}

impl Drop for Phone {
    fn drop(&mut self) {
        if let Some(s) = self.sim.take() {
            self.rt.block_on(s.stop());
        }
    }
}

#[test]
fn every_aosp_key_name_is_known_and_combinations_type_as_a_keyboard_does() {
    if !adb_present() {
        return;
    }
    let p = Phone::start();
    // Every name KeyEvent.keyCodeFromString resolves, with and without KEYCODE_ (one line).
    let names = spock_tui::sim::shell::keycodes::NAMES;
    let all: Vec<String> = names
        .iter()
        .skip(1)
        .filter(|n| {
            ![
                "POWER",
                "SLEEP",
                "SOFT_SLEEP",
                "WAKEUP",
                "HOME",
                "BACK",
                "ESCAPE",
            ]
            .contains(n)
        })
        .map(|n| format!("KEYCODE_{n}"))
        .collect();
    let r = p.sh(&format!("input keyevent {}", all.join(" ")));
    assert_eq!((r.code, r.err.as_str()), (Some(0), ""), "{}", r.out);
    for named in [
        "PAGE_UP",
        "PAGE_DOWN",
        "MOVE_HOME",
        "MOVE_END",
        "FORWARD_DEL",
        "F24",
    ] {
        let r = p.sh(&format!("input keyevent {named}"));
        assert_eq!((r.code, r.err.as_str()), (Some(0), ""), "{named}");
    }
    // keycombination: modifiers apply to the keys after them; unknown names and single keys are
    // IllegalArgumentExceptions (exit 255), as runKeyCombination throws them.
    p.sh("am start -n com.example.shop/.MainActivity");
    let login = p.sh("uiautomator dump /dev/tty").out;
    assert!(login.contains("login_email"), "{login}");
    let xml = login;
    let at = xml.find("resource-id=\"login_email\"").unwrap();
    let b = &xml[at..];
    let bounds = &b[b.find("bounds=\"[").unwrap() + 9..];
    let nums: Vec<i32> = bounds
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(4)
        .map(|s| s.parse().unwrap())
        .collect();
    p.sh(&format!(
        "input tap {} {}",
        (nums[0] + nums[2]) / 2,
        (nums[1] + nums[3]) / 2
    ));
    p.sh("input text abc");
    let r = p.sh("input keycombination KEYCODE_SHIFT_LEFT KEYCODE_D");
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert_eq!(p.field_text("login_email"), "abcD");
    p.sh("input keycombination SHIFT_LEFT 2");
    assert_eq!(
        p.field_text("login_email"),
        "abcD",
        "`2` is key code 2 (SOFT_RIGHT)"
    );
    p.sh("input keycombination SHIFT_LEFT KEYCODE_2");
    assert_eq!(p.field_text("login_email"), "abcD@");
    p.sh("input keycombination CTRL_LEFT A && input keyevent DEL");
    assert_eq!(
        p.field_text("login_email"),
        "",
        "Ctrl+A then Delete empties it"
    );
    let r = p.sh("input keycombination CTRL_LEFT NOPE");
    assert_eq!(r.code, Some(255));
    assert!(
        r.err
            .contains("java.lang.IllegalArgumentException: Unknown keycode: NOPE"),
        "{}",
        r.err
    );
    let r = p.sh("input keycombination KEYCODE_A");
    assert!(
        r.err
            .contains("keycombination requires at least 2 keycodes"),
        "{}",
        r.err
    );
}

#[test]
fn am_start_takes_a_trailing_package_and_prints_as_aosp_does() {
    if !adb_present() {
        return;
    }
    let p = Phone::start();
    // The argument after the options is a package (no `:` or `/`), so the deep link keeps its
    // data and goes to that package.
    let r = p.sh("am start -W -a android.intent.action.VIEW -d shop://product/42 com.example.shop");
    assert_eq!(r.code, Some(0), "{}{}", r.out, r.err);
    assert!(
        r.out.starts_with(
            "Starting: Intent { act=android.intent.action.VIEW dat=shop://product/42 pkg=com.example.shop }\n\
             Status: ok\nLaunchState: COLD\nActivity: com.example.shop/.ProductActivity\n"
        ),
        "{}",
        r.out
    );
    assert!(r.out.ends_with("Complete\n"), "{}", r.out);
    // -p is the same; another package cannot handle the link.
    let r =
        p.sh("am start -W -a android.intent.action.VIEW -d shop://product/7 -p com.example.notes");
    assert_eq!(r.code, Some(0), "runStartActivity returns 0 either way");
    assert!(
        r.out.contains("Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=shop://product/7 flg=0x10000000 pkg=com.example.notes }"),
        "with -W the error is on stdout: {} / {}",
        r.out,
        r.err
    );
    // Without -W errors go to stderr; a bare package launches its launcher activity.
    let r = p.sh("am start -n com.example.shop/.Nope");
    assert!(r.err.contains("Error type 3\nError: Activity class {com.example.shop/com.example.shop.Nope} does not exist."), "{}", r.err);
    let r = p.sh("am start -W com.example.notes");
    assert!(
        r.out.contains("Activity: com.example.notes/.NotesActivity"),
        "{}",
        r.out
    );
    let r = p.sh("am start -W com.example.notes");
    assert!(
        r.out.contains("Warning: Activity not started, intent has been delivered to currently running top-most instance.\nStatus: ok"),
        "{}",
        r.out
    );
}

#[test]
fn redirections_follow_mksh() {
    if !adb_present() {
        return;
    }
    let p = Phone::start();
    let r = p.sh("echo to-err >&2; echo to-out");
    assert_eq!(
        (r.code, r.out.as_str(), r.err.as_str()),
        (Some(0), "to-out\n", "to-err\n")
    );
    let r = p.sh("ls /nope 2>&1");
    assert!(
        r.out.contains("No such file") && r.err.is_empty(),
        "{} / {}",
        r.out,
        r.err
    );
    let r = p.sh("ls /nope 2>/dev/null; echo $?");
    assert!(r.err.is_empty(), "{}", r.err);
    // Left to right: `> f 2>&1` sends both to f; `2>&1 > f` sends only stdout there.
    p.sh("ls /data/local/tmp /nope > /data/local/tmp/both 2>&1");
    let both = p.sh("cat /data/local/tmp/both").out;
    assert!(both.contains("No such file"), "{both}");
    let r = p.sh("ls /nope 2>&1 > /data/local/tmp/out");
    assert!(r.out.contains("No such file"), "{}", r.out);
    assert_eq!(p.sh("cat /data/local/tmp/out").out, "");
}

#[test]
fn app_functions_list_as_appsearch_documents() {
    if !adb_present() {
        return;
    }
    let p = Phone::start();
    let r = p.sh("cmd app_function list-app-functions");
    let v: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    let doc = &v["com.example.notes"][0];
    assert_eq!(
        doc["AppFunctionStaticMetadata-com.example.notes"]["schemaName"],
        serde_json::json!(["createNote"])
    );
    assert_eq!(
        doc["AppFunctionRuntimeMetadata-com.example.notes"]["AppFunctionRuntimeMetadata-com.example.notes"]
            ["enabled"],
        serde_json::json!([0])
    );
    let r = p.sh("cmd app_function execute-app-function --package com.example.notes --function searchNotes --parameters '{\"query\":\"milk\"}' --brief-yaml");
    assert_eq!(
        r.out,
        "androidAppfunctionsReturnValue:\n- 1 note matches \"milk\": Groceries\n"
    );
    let r = p.sh("cmd app_function execute-app-function --package com.example.notes --function nope --parameters '{}'");
    assert_eq!(r.code, Some(255));
    assert!(
        r.out.starts_with("Error executing app function: "),
        "{}",
        r.out
    );
}

/// The PNG's width and height, from its IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[1..4], b"PNG", "not a PNG");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

#[test]
fn the_display_rotates_as_wm_and_settings_say_and_multi_touch_follows() {
    use spock_tui::device::parse::{getevent, input};
    use spock_tui::mcp::tools::gestures::{
        TouchScreen, gesture_script, pinch_paths, screen_to_panel,
    };
    use spock_tui::sim::touch::Gesture;

    if !adb_present() {
        return;
    }
    let p = Phone::start();
    // Upright, auto-rotate off, by default.
    assert_eq!(p.sh("wm user-rotation").out, "lock 0\n");
    assert_eq!(p.sh("wm size").out, "Physical size: 1080x2400\n");
    let ts = TouchScreen::find(&getevent::parse_devices(&p.sh("getevent -pl").out)).unwrap();

    // `settings put system user_rotation` turns the display while auto-rotate is off;
    // `wm user-rotation lock N` writes the same settings (WindowManagerShellCommand).
    for (how, rotation) in [
        (
            "settings put system accelerometer_rotation 0; settings put system user_rotation 1",
            1u8,
        ),
        ("wm user-rotation lock 3", 3),
    ] {
        let r = p.sh(how);
        assert_eq!(r.code, Some(0), "{how}: {}", r.err);
        assert_eq!(p.sh("wm user-rotation").out, format!("lock {rotation}\n"));
        assert_eq!(
            p.sh("settings get system user_rotation").out.trim(),
            rotation.to_string()
        );
        assert_eq!(
            input::touch_rotation(&p.sh("dumpsys input").out),
            Some(rotation)
        );
        let window = p.sh("dumpsys window").out;
        assert!(
            window.contains(&format!("\n  mRotation={rotation}\n")),
            "{window}"
        );
        assert!(
            window.contains(" land "),
            "landscape configuration: {window}"
        );
        // `wm size` stays the natural size, as on a phone; the screen itself turns.
        assert_eq!(p.sh("wm size").out, "Physical size: 1080x2400\n");
        let dump = p.sh("uiautomator dump /dev/tty").out;
        assert!(
            dump.contains(&format!("<hierarchy rotation=\"{rotation}\"")),
            "{dump}"
        );
        assert!(dump.contains("bounds=\"[0,0][2400,1080]\""), "{dump}");
        let png = Command::new("adb")
            .args(["-P", &p.port.to_string(), "-s", &p.dev.serial()])
            .args(["exec-out", "screencap", "-p"])
            .env("ADB_EMU", "0")
            .output()
            .unwrap()
            .stdout;
        assert_eq!(png_size(&png), (2400, 1080));

        // A pinch at a landscape screen point: mapped to the upright panel the way the core
        // does, written with sendevent, decoded by the device at that same screen point.
        let (x, y) = (1800.0, 300.0);
        let path: Vec<[(f64, f64); 2]> = pinch_paths(x, y, 600.0, 150.0, 0.0, 8)
            .into_iter()
            .map(|f| f.map(|pt| screen_to_panel(pt, (1080, 2400), rotation)))
            .collect();
        let script = gesture_script(&ts, (1080, 2400), &path, std::time::Duration::ZERO);
        let r = p.sh(&script);
        assert_eq!(r.code, Some(0), "{}", r.err);
        match p.dev.last_gesture() {
            Some(Gesture::Pinch {
                start_spread,
                end_spread,
                center,
            }) => {
                assert!((start_spread - 600).abs() <= 2, "{start_spread}");
                assert!((end_spread - 150).abs() <= 2, "{end_spread}");
                assert!(
                    (center.0 - 1800).abs() <= 1 && (center.1 - 300).abs() <= 1,
                    "rotation {rotation}: pinch seen at {center:?}, not (1800, 300)"
                );
            }
            g => panic!("rotation {rotation}: not a pinch: {g:?}"),
        }
    }
    // Free: auto-rotate on; with no accelerometer the display is upright again.
    assert_eq!(p.sh("wm user-rotation free").code, Some(0));
    assert_eq!(p.sh("wm user-rotation").out, "free\n");
    assert_eq!(input::touch_rotation(&p.sh("dumpsys input").out), Some(0));
    let r = p.sh("wm user-rotation lock 4");
    assert_eq!(r.code, Some(255));
    assert!(
        r.err.contains("Rotation argument, 4 is invalid"),
        "{}",
        r.err
    );
}
