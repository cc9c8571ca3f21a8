//! The virtual device driven through `Target::shell` exactly as the front doors drive it:
//! real fixture dumps served back byte for byte, state changes from taps, typing, package
//! commands, crashes and multi-touch, and the scenario loader's refusals.
use std::time::Duration;

use bytes::Bytes;
use spock_sim::Target;
use spock_sim::device::SimDevice;
use spock_sim::touch::Gesture;

use super::fixtures_dir;

use super::{Run, sh};

/// Center of the first node whose attributes contain `needle` (as written in the dump).
fn center_of(xml: &str, needle: &str) -> (i32, i32) {
    let start = xml
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in dump"));
    let tail = &xml[start..];
    let b = tail.find("bounds=\"[").unwrap() + 9;
    let end = tail[b..].find('"').unwrap();
    let nums: Vec<i32> = tail[b..b + end - 1]
        .split([',', '[', ']'])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    ((nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2)
}

async fn dump(dev: &SimDevice) -> String {
    let r = sh(dev, "uiautomator dump /dev/tty").await;
    assert_eq!(r.code, 0);
    r.text()
}

async fn signed_in_shop() -> SimDevice {
    let dev = SimDevice::demo();
    let r = sh(
        &dev,
        "monkey -p com.example.shop -c android.intent.category.LAUNCHER 1",
    )
    .await;
    assert!(r.text().contains("Events injected: 1"), "{}", r.text());
    for (field, text) in [
        ("login_email", "me@example.com"),
        ("login_password", "hunter2"),
    ] {
        let (x, y) = center_of(&dump(&dev).await, &format!("resource-id=\"{field}\""));
        sh(&dev, &format!("input tap {x} {y}")).await;
        sh(&dev, &format!("input text {text}")).await;
    }
    let (x, y) = center_of(&dump(&dev).await, "text=\"Sign in\"");
    assert_eq!(sh(&dev, &format!("input tap {x} {y}")).await.code, 0);
    assert_eq!(dev.screen_id(), "home");
    dev
}

#[tokio::test]
async fn every_fixture_dump_is_served_back_verbatim() {
    let dir = fixtures_dir().join("uiautomator");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let toml = format!(
            "[device]\nhome = \"s\"\n[[screen]]\nid = \"s\"\npackage = \"p\"\nactivity = \".A\"\nui = {:?}\n",
            path.display().to_string()
        );
        let dev = SimDevice::from_scenario_str(&toml, &dir).unwrap();
        let want = std::fs::read(&path).unwrap();
        let r = sh(&dev, "uiautomator dump /dev/tty").await;
        let mut expected = want.clone();
        expected.extend_from_slice(b"UI hierchary dumped to: /dev/tty\n");
        assert!(r.out == expected, "{} not served verbatim", path.display());
        n += 1;
    }
    assert_eq!(n, 13);
}

#[tokio::test]
async fn tapping_sign_in_moves_to_home_and_typing_fills_the_focused_field() {
    let dev = SimDevice::demo();
    assert_eq!(dev.screen_id(), "launcher");
    let (x, y) = center_of(&dump(&dev).await, "text=\"Shop\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    assert_eq!(dev.screen_id(), "login");
    assert_eq!(dev.foreground().1, "com.example.shop.MainActivity");

    let xml = dump(&dev).await;
    let (x, y) = center_of(&xml, "resource-id=\"login_email\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    let r = sh(&dev, "input text 'me%sand@example.com'").await;
    assert_eq!(r.code, 0, "{}", r.err);
    let xml = dump(&dev).await;
    assert!(xml.contains("text=\"me and@example.com\" resource-id=\"login_email\""));
    assert!(xml.contains("focused=\"true\""));

    // Not the account (and no password): the app refuses and says so on the same screen.
    let (x, y) = center_of(&xml, "text=\"Sign in\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    assert_eq!(dev.screen_id(), "login");
    let xml = dump(&dev).await;
    assert!(xml.contains("text=\"Enter your email and password\" resource-id=\"login_error\""));
    let (x, y) = center_of(&xml, "resource-id=\"login_email\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    sh(&dev, "input keycombination CTRL_LEFT A").await;
    sh(&dev, "input keyevent DEL").await;
    sh(&dev, "input text me@example.com").await;
    let (x, y) = center_of(&xml, "resource-id=\"login_password\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    sh(&dev, "input text hunter2").await;
    let xml = dump(&dev).await;
    assert!(xml.contains("text=\"me@example.com\" resource-id=\"login_email\""));
    assert!(xml.contains("text=\"•••••••\" resource-id=\"login_password\""));

    let (x, y) = center_of(&xml, "text=\"Sign in\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    assert_eq!(dev.screen_id(), "home");
    let top = sh(&dev, "dumpsys activity top").await.text();
    assert!(
        top.contains("Added Fragments:\n        #0: HomeFragment{"),
        "{top}"
    );
    let acts = sh(&dev, "dumpsys activity activities").await.text();
    assert!(acts.contains("mResumedActivity: ActivityRecord{"));
    assert!(acts.contains("u0 com.example.shop/.MainActivity} t"));
    let win = sh(&dev, "dumpsys window").await.text();
    assert!(
        win.contains("mCurrentFocus=Window{")
            && win.contains("com.example.shop/com.example.shop.MainActivity}")
    );

    sh(&dev, "input keyevent KEYCODE_HOME").await;
    assert_eq!(dev.screen_id(), "launcher");
}

#[tokio::test]
async fn package_commands_change_state() {
    let dev = SimDevice::demo();
    let list = sh(&dev, "pm list packages -3 --show-versioncode")
        .await
        .text();
    assert!(list.contains("package:com.example.notes versionCode:201\n"));
    assert!(!list.contains("nexuslauncher"));
    let r = sh(&dev, "pm uninstall com.example.notes").await;
    assert_eq!((r.code, r.text().as_str()), (0, "Success\n"));
    assert!(!dev.is_installed("com.example.notes"));
    assert!(
        !sh(&dev, "pm list packages")
            .await
            .text()
            .contains("com.example.notes")
    );
    let r = sh(&dev, "pm uninstall com.example.notes").await;
    assert_eq!(
        (r.code, r.text().as_str()),
        (1, "Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
    );
    let r = sh(&dev, "dumpsys package com.example.notes").await;
    assert_eq!(r.text(), "Unable to find package: com.example.notes\n");

    let pkg = sh(&dev, "dumpsys package com.example.shop").await.text();
    assert!(pkg.contains("android.permission.POST_NOTIFICATIONS: granted=true"));
    assert!(pkg.contains("versionCode=142 minSdk=26 targetSdk=34\n    versionName=1.4.2"));
    assert!(pkg.contains("pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP DEBUGGABLE ]"));
    assert_eq!(
        sh(
            &dev,
            "pm revoke com.example.shop android.permission.POST_NOTIFICATIONS"
        )
        .await
        .code,
        0
    );
    let pkg = sh(&dev, "dumpsys package com.example.shop").await.text();
    assert!(pkg.contains("android.permission.POST_NOTIFICATIONS: granted=false"));
    sh(&dev, "pm grant com.example.shop android.permission.CAMERA").await;
    assert!(
        sh(&dev, "dumpsys package com.example.shop")
            .await
            .text()
            .contains("android.permission.CAMERA: granted=true")
    );
    let r = sh(
        &dev,
        "pm grant com.example.shop android.permission.INTERNET",
    )
    .await;
    assert_eq!(r.code, 255);
    assert!(r.err.contains("not a changeable permission type"));
    let r = sh(&dev, "pm clear com.example.shop").await;
    assert_eq!(r.text(), "Success\n");
    assert!(
        sh(&dev, "dumpsys package com.example.shop")
            .await
            .text()
            .contains("android.permission.CAMERA: granted=false")
    );
}

#[tokio::test]
async fn crash_path_writes_fatal_exception_and_kills_the_app() {
    let dev = signed_in_shop().await;
    let pid = sh(&dev, "pidof com.example.shop")
        .await
        .text()
        .trim()
        .to_string();
    assert!(!pid.is_empty());
    let (x, y) = center_of(&dump(&dev).await, "content-desc=\"Settings\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    assert_eq!(dev.screen_id(), "settings");
    let (x, y) = center_of(&dump(&dev).await, "text=\"Crash me\"");
    sh(&dev, &format!("input tap {x} {y}")).await;
    let log = sh(&dev, "logcat -d -v threadtime").await.text();
    assert!(log.contains("--------- beginning of crash\n"));
    assert!(
        log.contains(&format!(
            " {pid}  {pid} E AndroidRuntime: FATAL EXCEPTION: main\n"
        )),
        "{log}"
    );
    assert!(log.contains(&format!(
        "E AndroidRuntime: Process: com.example.shop, PID: {pid}\n"
    )));
    let errors = sh(&dev, "logcat -d '*:E'").await.text();
    assert!(
        errors
            .lines()
            .all(|l| l.starts_with("---") || l.contains(" E "))
    );
    assert_eq!(sh(&dev, "pidof com.example.shop").await.code, 1);
    assert_eq!(dev.foreground().0, "com.google.android.apps.nexuslauncher");
    let pid_only = sh(&dev, &format!("logcat -d --pid={pid} -t 3"))
        .await
        .text();
    assert_eq!(
        pid_only.lines().filter(|l| !l.starts_with("---")).count(),
        3
    );
}

#[tokio::test]
async fn sendevent_pinch_is_recognised_with_its_spread() {
    let dev = SimDevice::demo();
    let r = sh(
        &dev,
        "am start -W -a android.intent.action.VIEW -d shop://product/42",
    )
    .await;
    assert!(
        r.text().contains(
            "Status: ok\nLaunchState: COLD\nActivity: com.example.shop/.ProductActivity\nTotalTime:"
        ),
        "{}",
        r.text()
    );
    let getevent = sh(&dev, "getevent -pl").await.text();
    assert!(getevent.contains("ABS_MT_POSITION_X     : value 0, min 0, max 1079"));
    assert!(getevent.contains("INPUT_PROP_DIRECT"));
    let d = "/dev/input/event2";
    let script = [
        "3 47 0",
        "3 57 100",
        "3 53 140",
        "3 54 1200",
        "3 47 1",
        "3 57 101",
        "3 53 940",
        "3 54 1200",
        "1 330 1",
        "0 0 0",
        "3 47 0",
        "3 53 290",
        "3 47 1",
        "3 53 790",
        "0 0 0",
        "3 47 0",
        "3 53 440",
        "3 47 1",
        "3 53 640",
        "0 0 0",
        "3 47 0",
        "3 57 0xffffffff",
        "3 47 1",
        "3 57 4294967295",
        "1 330 0",
        "0 0 0",
    ]
    .iter()
    .map(|e| format!("sendevent {d} {e}"))
    .collect::<Vec<_>>()
    .join("; ");
    let r = sh(&dev, &script).await;
    assert_eq!(r.code, 0, "{}", r.err);
    match dev.last_gesture() {
        Some(g @ Gesture::Pinch { .. }) => {
            assert_eq!(g.to_string(), "pinch spread 800->200");
            assert_eq!(g.pinch_direction(), Some("in"));
        }
        g => panic!("not a pinch: {g:?}"),
    }
    let log = sh(&dev, "logcat -d -s SimInput").await.text();
    assert!(
        log.contains("I SimInput: gesture pinch spread 800->200"),
        "{log}"
    );
}

#[tokio::test]
async fn scenario_errors_name_file_line_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.xml"),
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"></hierarchy>",
    )
    .unwrap();
    let path = dir.path().join("scenario.toml");
    std::fs::write(&path, "[[screen]]\nid = \"home\"\npackage = \"p\"\nactivity = \".A\"\nui = \"a.xml\"\n\n[[transition]]\nfrom = \"home\"\ntap = { text = \"x\" }\nto = \"hom\"\n").unwrap();
    let e = SimDevice::from_scenario_file(&path)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!("{}:10:6: unknown screen \"hom\"", path.display())
    );
    std::fs::write(
        &path,
        "[[screen]]\nid = \"home\"\npackage = \"p\"\nactivity = \".A\"\nui = \"missing.xml\"\n",
    )
    .unwrap();
    let e = SimDevice::from_scenario_file(&path)
        .unwrap_err()
        .to_string();
    assert!(e.contains(":5:6: cannot read \"missing.xml\""), "{e}");
}

#[tokio::test]
async fn screencap_is_a_png_of_the_screen_size() {
    let dev = SimDevice::demo();
    let r = sh(&dev, "screencap '-p'").await;
    assert_eq!(r.code, 0);
    assert_eq!(&r.out[..8], b"\x89PNG\r\n\x1a\n");
    let img = image::load_from_memory(&r.out).unwrap();
    assert_eq!((img.width(), img.height()), (1080, 2400));
    let fb = dev.framebuffer();
    assert_eq!(fb.rgba, img.to_rgba8().into_raw());
    assert_eq!(sh(&dev, "screencap -p /sdcard/s.png").await.code, 0);
    assert_eq!(
        dev.read("/storage/emulated/0/s.png").unwrap().len(),
        r.out.len()
    );
}

#[tokio::test]
async fn unknown_commands_and_shell_basics() {
    let dev = SimDevice::demo();
    let r = sh(&dev, "frobnicate --now").await;
    assert_eq!(r.code, 127);
    assert_eq!(
        r.err,
        "/system/bin/sh: frobnicate: inaccessible or not found\n"
    );
    assert_eq!(
        sh(&dev, "getprop ro.product.model").await.text(),
        "Pixel 7\n"
    );
    assert_eq!(
        sh(&dev, "getprop ro.build.version.sdk").await.text(),
        "34\n"
    );
    assert!(
        sh(&dev, "getprop")
            .await
            .text()
            .contains("[ro.build.version.release]: [14]\n")
    );
    assert_eq!(
        sh(&dev, "wm size && wm density").await.text(),
        "Physical size: 1080x2400\nPhysical density: 420\n"
    );
    assert_eq!(
        sh(&dev, "false || echo fallback; echo $x").await.text(),
        "fallback\n$x\n"
    );
    let ps = sh(&dev, "ps -A | grep nexuslauncher").await;
    assert!(ps.text().starts_with("u0_a150 "), "{}", ps.text());
    assert_eq!(sh(&dev, "settings put global stay_on_while_plugged_in 3; settings get global stay_on_while_plugged_in").await.text(), "3\n");
    assert_eq!(sh(&dev, "settings get secure nope").await.text(), "null\n");
    assert_eq!(sh(&dev, "svc power stayon true").await.code, 0);
    // ActivityManagerShellCommand.runStartActivity exits 0 either way; without -W the error
    // goes to stderr.
    let r = sh(&dev, "am start -n com.example.shop/.Nope").await;
    assert_eq!(r.code, 0);
    assert!(r.err.contains(
        "Error: Activity class {com.example.shop/com.example.shop.Nope} does not exist."
    ));
    assert_eq!(
        sh(
            &dev,
            "cmd package resolve-activity --brief com.example.shop"
        )
        .await
        .text()
        .lines()
        .last(),
        Some("com.example.shop/.MainActivity")
    );
    // A bare package is what a launcher icon sends (`Intent.parseCommandArgs`): action MAIN,
    // category LAUNCHER, that package; it starts the launcher activity, and a package with no
    // launcher activity is "unable to resolve" with the whole intent named.
    let r = sh(&dev, "am start -W com.example.shop").await.text();
    assert!(
        r.starts_with("Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] pkg=com.example.shop }\n"),
        "{}",
        r
    );
    assert!(
        r.contains("Activity: com.example.shop/.MainActivity\n"),
        "{}",
        r
    );
    let r = sh(&dev, "am start -W com.example.missing").await.text();
    assert!(
        r.contains("Error: Activity not started, unable to resolve Intent { act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10000000 pkg=com.example.missing }\n"),
        "{}",
        r
    );
    // An action from the options drops the launcher category.
    let r = sh(
        &dev,
        "am start -a android.intent.action.VIEW com.example.shop",
    )
    .await
    .text();
    assert!(
        r.starts_with("Starting: Intent { act=android.intent.action.VIEW pkg=com.example.shop }"),
        "{}",
        r
    );
}

#[tokio::test]
async fn files_round_trip_and_shell_user_limits() {
    let dev = SimDevice::demo();
    let data = Bytes::from((0..=255u8).cycle().take(70_000).collect::<Vec<u8>>());
    dev.write(
        "/sdcard/Download/blob.bin",
        0o644,
        1_700_000_000,
        data.clone(),
    )
    .unwrap();
    assert_eq!(
        dev.read("/storage/emulated/0/Download/blob.bin").unwrap(),
        data
    );
    let r = sh(&dev, "cat /sdcard/Download/blob.bin").await;
    assert_eq!(r.out, data.to_vec());
    assert_eq!(
        sh(&dev, "stat -c %s /sdcard/Download/blob.bin")
            .await
            .text(),
        "70000\n"
    );
    assert_eq!(
        sh(&dev, "realpath /sdcard/Download").await.text(),
        "/storage/emulated/0/Download\n"
    );
    let r = sh(&dev, "ls /data/data/com.example.shop").await;
    assert_eq!(
        (r.code, r.err.as_str()),
        (1, "ls: /data/data/com.example.shop: Permission denied\n")
    );
    assert_eq!(
        sh(
            &dev,
            "mkdir -p /data/local/tmp/a/b && rm -r /data/local/tmp/a && ls /data/local/tmp"
        )
        .await
        .text(),
        ""
    );
    assert_eq!(
        sh(&dev, "uiautomator dump").await.text(),
        "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    );
    assert!(
        sh(&dev, "cat /sdcard/window_dump.xml")
            .await
            .text()
            .ends_with("</hierarchy>")
    );
}

#[tokio::test]
async fn screenrecord_stops_on_sigint_and_leaves_an_mp4() {
    let dev = SimDevice::demo();
    let rec = {
        let dev = dev.clone();
        tokio::spawn(async move { sh(&dev, "screenrecord --time-limit 30 /sdcard/rec.mp4").await })
    };
    let mut pid = String::new();
    for _ in 0..100 {
        pid = sh(&dev, "pidof screenrecord")
            .await
            .text()
            .trim()
            .to_string();
        if !pid.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!pid.is_empty());
    assert_eq!(sh(&dev, &format!("kill -2 {pid}")).await.code, 0);
    let r = rec.await.unwrap();
    assert_eq!(r.code, 0);
    let mp4 = dev.read("/sdcard/rec.mp4").unwrap();
    assert_eq!(&mp4[4..8], b"ftyp");
    assert!(mp4.windows(4).any(|w| w == b"moov"));
    assert_eq!(sh(&dev, "pidof screenrecord").await.code, 1);
}

#[tokio::test]
async fn app_functions_list_and_execute() {
    let dev = SimDevice::demo();
    let list = sh(&dev, "cmd app_function list-app-functions").await.text();
    let v: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(v["com.example.notes"].as_array().unwrap().len(), 3);
    // AppSearch documents, every property an array (AppSearchDataJsonConverter).
    let create = &v["com.example.notes"][0]["AppFunctionStaticMetadata-com.example.notes"];
    assert_eq!(create["functionId"], serde_json::json!(["createNote"]));
    assert_eq!(create["schemaCategory"], serde_json::json!(["notes"]));
    assert!(list.starts_with("{\n  \"com.example.notes\": ["), "{list}");
    let r = sh(&dev, r#"cmd app_function execute-app-function --package com.example.notes --function createNote --parameters '{"title":"Milk","body":"2L"}'"#).await;
    assert_eq!(
        r.text(),
        "{\n  \"androidAppfunctionsReturnValue\": [\n    \"Created note \\\"Milk\\\"\"\n  ]\n}\n"
    );
    let r = sh(&dev, r#"cmd app_function execute-app-function --package com.example.notes --function createNote --parameters '{"title":1}'"#).await;
    assert_eq!(r.code, 255);
    assert!(
        r.text().starts_with("Error executing app function: "),
        "{}",
        r.text()
    );
    let r = sh(
        &dev,
        "cmd app_function execute-app-function --package com.example.notes",
    )
    .await;
    assert_eq!(
        (r.code, r.text()),
        (255, "Error: --function must be specified.\n".to_string())
    );
}

/// Symbolic links as toybox makes and shows them on a phone: `ln -s` stores the target as
/// written (relative ones resolve from the link's directory), `readlink` prints it, `readlink -f`
/// and `realpath` resolve it, `ls -l` shows `name -> target`, `stat` says "symbolic link",
/// `cat` and `rm` follow or remove it, and emulated storage refuses new links.
#[tokio::test]
async fn symlinks_as_toybox_makes_and_shows_them() {
    let dev = SimDevice::demo();
    let ok = |r: Run, what: &str| {
        assert_eq!(r.code, 0, "{what}: {}", r.err);
        r.text()
    };
    ok(sh(&dev, "echo hi > /data/local/tmp/a.txt").await, "echo");
    ok(sh(&dev, "ln -s a.txt /data/local/tmp/b.txt").await, "ln -s");
    assert_eq!(
        ok(sh(&dev, "readlink /data/local/tmp/b.txt").await, "readlink"),
        "a.txt\n"
    );
    assert_eq!(
        ok(
            sh(&dev, "readlink -f /data/local/tmp/b.txt").await,
            "readlink -f"
        ),
        "/data/local/tmp/a.txt\n"
    );
    assert_eq!(
        ok(sh(&dev, "realpath /data/local/tmp/b.txt").await, "realpath"),
        "/data/local/tmp/a.txt\n"
    );
    assert_eq!(
        ok(sh(&dev, "cat /data/local/tmp/b.txt").await, "cat"),
        "hi\n"
    );
    // readlink of something that is not a link: nothing printed, exit 1 (toybox).
    let r = sh(&dev, "readlink /data/local/tmp/a.txt").await;
    assert_eq!((r.code, r.text().as_str()), (1, ""));
    // readlink -f: the last component may be missing, its directory may not.
    assert_eq!(
        ok(
            sh(&dev, "readlink -f /data/local/tmp/new.txt").await,
            "-f missing"
        ),
        "/data/local/tmp/new.txt\n"
    );
    assert_eq!(
        sh(&dev, "readlink -f /data/local/tmp/no/new.txt")
            .await
            .code,
        1
    );
    assert_eq!(
        sh(&dev, "readlink -e /data/local/tmp/new.txt").await.code,
        1
    );
    let ls = ok(sh(&dev, "ls -l /data/local/tmp").await, "ls -l");
    let line = ls
        .lines()
        .find(|l| l.ends_with("b.txt -> a.txt"))
        .unwrap_or_else(|| panic!("{ls}"));
    assert!(line.starts_with("lrwxrwxrwx"), "{line}");
    // An operand that is a link: -l shows the link itself, a trailing slash what it leads to.
    let ls = ok(sh(&dev, "ls -l /sdcard").await, "ls -l /sdcard");
    assert!(
        ls.trim_end().ends_with("/sdcard -> /storage/self/primary"),
        "{ls}"
    );
    let ls = ok(sh(&dev, "ls /sdcard/").await, "ls /sdcard/");
    assert!(ls.contains("Download"), "{ls}");
    let st = ok(sh(&dev, "stat /data/local/tmp/b.txt").await, "stat");
    assert!(
        st.contains("File: `/data/local/tmp/b.txt' -> `a.txt'"),
        "{st}"
    );
    assert!(st.contains("symbolic link"), "{st}");
    assert_eq!(
        ok(
            sh(&dev, "stat -c %F /data/local/tmp/b.txt").await,
            "stat -c"
        ),
        "symbolic link\n"
    );
    assert_eq!(
        ok(
            sh(&dev, "stat -L -c %F /data/local/tmp/b.txt").await,
            "stat -L"
        ),
        "regular file\n"
    );
    // An existing name: refused without -f, replaced with it.
    let r = sh(&dev, "ln -s x /data/local/tmp/b.txt").await;
    assert_eq!(r.code, 1);
    assert!(
        r.err.contains(
            "ln: cannot create symbolic link from 'x' to '/data/local/tmp/b.txt': File exists"
        ),
        "{}",
        r.err
    );
    ok(sh(&dev, "ln -sf x /data/local/tmp/b.txt").await, "ln -sf");
    assert_eq!(
        ok(sh(&dev, "readlink /data/local/tmp/b.txt").await, "readlink"),
        "x\n"
    );
    // Into a directory: the link takes the target's name.
    ok(sh(&dev, "mkdir /data/local/tmp/d").await, "mkdir");
    ok(
        sh(&dev, "ln -s /data/local/tmp/a.txt /data/local/tmp/d").await,
        "ln into dir",
    );
    assert_eq!(
        ok(sh(&dev, "cat /data/local/tmp/d/a.txt").await, "cat"),
        "hi\n"
    );
    // rm removes the link, not what it points to.
    ok(sh(&dev, "rm /data/local/tmp/d/a.txt").await, "rm link");
    assert_eq!(
        ok(sh(&dev, "cat /data/local/tmp/a.txt").await, "cat"),
        "hi\n"
    );
    // A loop ends in ELOOP, as the kernel's does.
    ok(sh(&dev, "ln -s l2 /data/local/tmp/l1").await, "l1");
    ok(sh(&dev, "ln -s l1 /data/local/tmp/l2").await, "l2");
    let r = sh(&dev, "cat /data/local/tmp/l1").await;
    assert_eq!(r.code, 1);
    assert!(
        r.err.contains("Too many levels of symbolic links"),
        "{}",
        r.err
    );
    // Emulated storage has no symlinks (sdcardfs / FUSE).
    let r = sh(&dev, "ln -s /data/local/tmp/a.txt /sdcard/Download/a").await;
    assert_eq!(r.code, 1);
    assert!(r.err.contains("cannot create symbolic link"), "{}", r.err);
    assert_eq!(sh(&dev, "ls /sdcard/Download/a").await.code, 1);
}
