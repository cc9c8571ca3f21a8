//! Kinder to an agent (issue 21): the tools accept what agents try first and say plainly what
//! happened, through the real call pipeline of a core on the demo virtual device.
use serde_json::{Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::events::Outcome;
use spock_tui::mcp::result::ErrorKind;

use crate::support::device_rig;
use device_rig::{Rig, rig_with, stdio_call};

async fn ok(r: &Rig, tool: &str, args: Value) -> Value {
    let done = stdio_call(&r.core, tool, args.clone()).await;
    match done.result {
        Ok(o) => o.json,
        Err(e) => panic!("{tool} {args}: {:?} {}", e.kind, e.message),
    }
}

async fn err(r: &Rig, tool: &str, args: Value) -> (ErrorKind, String) {
    let done = stdio_call(&r.core, tool, args.clone()).await;
    match done.result {
        Ok(o) => panic!("{tool} {args} succeeded: {}", o.json),
        Err(e) => (e.kind, e.message),
    }
}

/// A field's text on the virtual device, from its own uiautomator dump.
async fn field_text(dev: &spock_tui::sim::device::SimDevice, id: &str) -> String {
    use spock_tui::sim::{ShellChunk, ShellIo, Target};
    let (_stdin_tx, stdin) = tokio::sync::mpsc::channel(1);
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let fut = dev.shell(
        "uiautomator dump /dev/tty".into(),
        ShellIo { stdin, out: tx },
    );
    let collect = tokio::spawn(async move {
        let mut out = Vec::new();
        while let Some(c) = rx.recv().await {
            if let ShellChunk::Stdout(b) = c {
                out.extend_from_slice(&b);
            }
        }
        out
    });
    fut.await;
    let xml = String::from_utf8(collect.await.unwrap()).unwrap();
    let at = xml
        .find(&format!("resource-id=\"{id}\""))
        .expect("on screen");
    let node = &xml[xml[..at].rfind("<node").unwrap()..];
    let t = node.find(" text=\"").unwrap() + 7;
    node[t..t + node[t..].find('"').unwrap()].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn press_key_takes_the_names_agents_use_and_suggests_the_closest() {
    let r = rig_with(false, Config::default_config()).await;
    ok(
        &r,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    ok(
        &r,
        "android_input_text_into_element",
        json!({"element": "login_email", "text": "abcd"}),
    )
    .await;
    for key in ["BACKSPACE", "Backspace", "KEYCODE_DEL", "del"] {
        let out = ok(&r, "android_press_key", json!({"key": key})).await;
        assert_eq!(out["action"], "press_key KEYCODE_DEL", "{key}: {out}");
    }
    assert_eq!(field_text(&r.dev, "login_email").await, "", "four deletes");
    for (key, label) in [
        ("DELETE", "KEYCODE_FORWARD_DEL"),
        ("UP", "KEYCODE_DPAD_UP"),
        ("ArrowRight", "KEYCODE_DPAD_RIGHT"),
        ("PAGE_UP", "KEYCODE_PAGE_UP"),
        ("PageDown", "KEYCODE_PAGE_DOWN"),
        ("END", "KEYCODE_MOVE_END"),
        ("MOVE_HOME", "KEYCODE_MOVE_HOME"),
        ("ESCAPE", "KEYCODE_ESCAPE"),
        ("TAB", "KEYCODE_TAB"),
        ("ENTER", "KEYCODE_ENTER"),
        ("KEYCODE_RECENT_APPS", "KEYCODE_RECENT_APPS"),
    ] {
        let out = ok(&r, "android_press_key", json!({"key": key})).await;
        assert_eq!(out["action"], format!("press_key {label}"), "{key}");
    }
    let (kind, msg) = err(&r, "android_press_key", json!({"key": "PAGEUPP"})).await;
    assert_eq!(kind, ErrorKind::Refused);
    assert!(
        msg.contains("closest are") && msg.contains("PAGE_UP"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_reason_is_called_too_short() {
    let r = rig_with(false, Config::default_config()).await;
    let (kind, msg) = err(
        &r,
        "android_run_adb_command",
        json!({"command": "getprop", "reason": "why"}),
    )
    .await;
    assert_eq!(kind, ErrorKind::InvalidArguments);
    assert!(
        msg.contains("reason is too short (at least 5 characters)"),
        "{msg}"
    );
    let (_, msg) = err(
        &r,
        "android_run_adb_command",
        json!({"command": "getprop", "reason": "   "}),
    )
    .await;
    assert!(msg.contains("reason is required"), "{msg}");
}

/// The demo's adb server is part of the process: the restart is refused before a person is
/// asked to approve what cannot work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_refuses_an_adb_server_restart_before_asking() {
    let r = rig_with(false, Config::default_config()).await;
    r.core
        .access
        .set_group(spock_tui::mcp::registry::HostGroup::AdbServer, true);
    let mut asked = r.core.confirmer.attach();
    let done = stdio_call(&r.core, "spock_restart_adb_server", json!({})).await;
    assert_eq!(done.outcome, Outcome::Refused, "{:?}", done.result.err());
    assert!(done.decision.is_none(), "nobody was asked");
    assert!(
        asked.try_recv().is_err(),
        "no confirmation request was made"
    );
    let e = done.result.unwrap_err();
    assert!(e.message.contains("cannot be restarted"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perform_action_says_it_acted_by_gesture() {
    let r = rig_with(false, Config::default_config()).await;
    ok(
        &r,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    let out = ok(
        &r,
        "android_perform_action",
        json!({"element": "login_email", "action": "focus"}),
    )
    .await;
    assert_eq!(out["fallback"], "gesture", "{out}");
    assert!(
        out["note"].as_str().unwrap().contains("by gesture"),
        "{out}"
    );
    // The other action tools do not carry it.
    let out = ok(&r, "android_tap_element", json!({"element": "login_email"})).await;
    assert!(out.get("fallback").is_none(), "{out}");
}

/// `am start … <package>`: the deep link keeps its data and goes to the named app.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_links_and_intents_with_a_package_open_that_app() {
    let r = rig_with(false, Config::default_config()).await;
    let out = ok(
        &r,
        "android_open_deep_link",
        json!({"uri": "shop://product/42", "packageName": "com.example.shop"}),
    )
    .await;
    assert_eq!(
        out["activity"], "com.example.shop/.ProductActivity",
        "{out}"
    );
    let out = ok(
        &r,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    // A launch sends the launcher's intent for the package, so the app's task comes to the
    // front where it was (the product page the link opened).
    assert_eq!(
        out["activity"], "com.example.shop/.ProductActivity",
        "{out}"
    );
    // A link nothing in the named app handles, and a package with no launcher activity.
    for (tool, args, says) in [
        (
            "android_open_deep_link",
            json!({"uri": "shop://product/42", "packageName": "com.example.notes"}),
            "unable to resolve",
        ),
        (
            "android_launch_app",
            json!({"packageName": "com.example.missing"}),
            "com.example.missing has no launcher activity",
        ),
    ] {
        let (kind, msg) = err(&r, tool, args).await;
        assert_eq!(kind, ErrorKind::NotFound, "{tool}: {msg}");
        assert!(msg.contains(says), "{tool}: {msg}");
    }
}

/// The demo's functions carry their AppFunctions schema, so the filters find them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_function_schema_filters_find_the_demo_functions() {
    let r = rig_with(false, Config::default_config()).await;
    let ids = |v: &Value| -> Vec<String> {
        v["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["functionId"].as_str().unwrap().to_string())
            .collect()
    };
    let out = ok(
        &r,
        "android_list_app_functions",
        json!({"schemaCategory": "notes"}),
    )
    .await;
    assert_eq!(ids(&out).len(), 3, "{out}");
    let out = ok(
        &r,
        "android_list_app_functions",
        json!({"schemaName": "createNote"}),
    )
    .await;
    assert_eq!(ids(&out), vec!["createNote"], "{out}");
    let out = ok(
        &r,
        "android_list_app_functions",
        json!({"minSchemaVersion": 2}),
    )
    .await;
    assert_eq!(ids(&out), vec!["createNote"], "{out}");
    let out = ok(
        &r,
        "android_call_app_function",
        json!({"packageName": "com.example.notes", "functionId": "searchNotes", "arguments": {"query": "milk"}}),
    )
    .await;
    assert_eq!(out["result"], "1 note matches \"milk\": Groceries", "{out}");
}

/// An APK as aapt2 would lay its manifest out, zipped.
fn apk(package: &str, code: u32, name: &str) -> Vec<u8> {
    use std::io::Write;
    let mut buf = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut buf);
    let opts = zip::write::SimpleFileOptions::default();
    z.start_file("AndroidManifest.xml", opts).unwrap();
    z.write_all(&spock_tui::device::parse::apk::manifest_xml(
        package, code, name,
    ))
    .unwrap();
    z.start_file("classes.dex", opts).unwrap();
    z.write_all(b"dex\n035\0").unwrap();
    z.finish().unwrap();
    buf.into_inner()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_app_installs_new_apps_and_asks_before_replacing_one() {
    let r = rig_with(false, Config::default_config()).await;
    let pulls = r.core.paths.pull_dir();
    std::fs::create_dir_all(&pulls).unwrap();
    let put = |file: &str, bytes: Vec<u8>| {
        let p = pulls.join(file);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let v3 = put("todo-3.apk", apk("com.example.todo", 3, "1.3"));
    let mut asked = r.core.confirmer.attach();
    // A new install is a safe action: nobody is asked.
    let out = ok(&r, "android_install_app", json!({"apkPath": v3})).await;
    assert_eq!(
        (out["package"].as_str(), out["versionCode"].as_u64()),
        (Some("com.example.todo"), Some(3)),
        "{out}"
    );
    assert!(out.get("replacedVersionCode").is_none(), "{out}");
    assert!(asked.try_recv().is_err(), "a new install asks nobody");
    assert!(r.dev.is_installed("com.example.todo"));
    // Replacing it is destructive for the call: the person is asked, and says yes.
    let v4 = put("todo-4.apk", apk("com.example.todo", 4, "1.4"));
    let answer = tokio::spawn(async move {
        let req = asked.recv().await.expect("asked");
        assert_eq!(req.ask.tool, "android_install_app");
        assert!(
            req.ask.reason.as_deref().unwrap_or("").contains("replaces"),
            "{:?}",
            req.ask.reason
        );
        req.answer(true);
        asked
    });
    let done = stdio_call(&r.core, "android_install_app", json!({"apkPath": v4})).await;
    let mut asked = answer.await.unwrap();
    let out = done.result.expect("approved").json;
    assert_eq!(out["versionCode"], 4, "{out}");
    assert_eq!(out["replacedVersionCode"], 3, "{out}");
    // A downgrade is refused before anyone is asked unless allowDowngrade.
    let (kind, msg) = err(&r, "android_install_app", json!({"apkPath": v3})).await;
    assert_eq!(kind, ErrorKind::Refused, "{msg}");
    assert!(msg.contains("allowDowngrade"), "{msg}");
    assert!(asked.try_recv().is_err());
    // Only the push sources: not a file elsewhere, not a file that is no APK.
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("x.apk");
    std::fs::write(&elsewhere, apk("com.example.x", 1, "1")).unwrap();
    let (kind, _) = err(&r, "android_install_app", json!({"apkPath": elsewhere})).await;
    assert_eq!(kind, ErrorKind::Refused);
    let junk = put("junk.apk", b"not a zip".to_vec());
    let (kind, msg) = err(&r, "android_install_app", json!({"apkPath": junk})).await;
    assert_eq!(kind, ErrorKind::InvalidArguments, "{msg}");
    assert!(msg.contains("not an APK"), "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drag_uses_draganddrop_or_a_held_motion_sequence() {
    let r = rig_with(false, Config::default_config()).await;
    let out = ok(
        &r,
        "android_drag",
        json!({"startX": 540, "startY": 1500, "endX": 540, "endY": 600}),
    )
    .await;
    assert_eq!(out["performedAs"], "draganddrop", "{out}");
    let out = ok(
        &r,
        "android_drag",
        json!({"startX": 540, "startY": 1500, "endX": 540, "endY": 600, "holdMs": 300, "durationMs": 80}),
    )
    .await;
    assert_eq!(out["performedAs"], "motionevent", "{out}");
    let (kind, _) = err(
        &r,
        "android_drag",
        json!({"startX": 540, "startY": 1500, "endX": 5000, "endY": 600}),
    )
    .await;
    assert_eq!(kind, ErrorKind::Refused, "off the screen");
}

use crate::support::private_adb;

/// Through the MCP tool (a person approves it): the local adb server is restarted and the
/// device that had been attached with `adb connect` answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_restart_brings_back_devices_attached_with_adb_connect() {
    use spock_tui::sim::Target;
    use std::sync::Arc;
    if !private_adb::adb_present() {
        return;
    }
    let sim = spock_tui::sim::cli::start(spock_tui::sim::cli::SimOptions {
        devices: vec![Arc::new(spock_tui::sim::device::SimDevice::demo()) as Arc<dyn Target>],
        adb_server: None,
        adbd: vec!["127.0.0.1:0".parse().unwrap()],
        control: None,
        faults: Vec::new(),
    })
    .await
    .unwrap();
    let addr = sim.adbd[0].addr.to_string();
    let adb = private_adb::PrivateAdb::start();
    adb.connect(&addr);
    let home = tempfile::tempdir().unwrap();
    let core = spock_tui::app::build_core(spock_tui::app::Options {
        paths: spock_tui::config::Paths::under(home.path()),
        config: Config::default_config(),
        allow_all: false,
        logs: spock_tui::mcp::logbuf::LogBuffer::new(100),
        adb: vec![adb.ep()],
        projects: vec![],
        autostart_adb: true,
        adb_explicit: true,
    })
    .unwrap();
    core.access
        .set_group(spock_tui::mcp::registry::HostGroup::AdbServer, true);
    // The restart is the first call: nothing has listed the devices yet.
    let mut asked = core.confirmer.attach();
    let answer = tokio::spawn(async move {
        let req = asked.recv().await.expect("asked");
        req.answer(true);
    });
    let done = stdio_call(&core, "spock_restart_adb_server", json!({})).await;
    answer.await.unwrap();
    let out = done.result.expect("restarted").json;
    assert_eq!(out["reconnected"], json!([addr]), "{out}");
    let mut back = false;
    for _ in 0..100 {
        if stdio_call(&core, "android_get_device_info", json!({}))
            .await
            .result
            .is_ok()
        {
            back = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(back, "the device answers again after the restart: {out}");
    // Again with the device tracker running, as in the product (`app` starts it).
    core.devices.start_tracking();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let mut asked = core.confirmer.attach();
    let answer = tokio::spawn(async move {
        let req = asked.recv().await.expect("asked");
        req.answer(true);
    });
    let done = stdio_call(&core, "spock_restart_adb_server", json!({})).await;
    answer.await.unwrap();
    let out = done.result.expect("restarted again").json;
    assert_eq!(out["reconnected"], json!([addr]), "{out}");
    let mut back = false;
    for _ in 0..100 {
        let listed = stdio_call(&core, "android_list_devices", json!({})).await;
        let online = listed.result.as_ref().is_ok_and(|o| {
            o.json["devices"]
                .as_array()
                .is_some_and(|d| d.iter().any(|e| e["state"] == "device"))
        });
        if online
            && stdio_call(&core, "android_get_device_info", json!({}))
                .await
                .result
                .is_ok()
        {
            back = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        back,
        "the device answers again after a tracked restart: {out}"
    );
    sim.stop().await;
}

/// Runs `cmd` on the virtual device directly (as the person at the phone would turn it).
async fn sim_sh(dev: &spock_tui::sim::device::SimDevice, cmd: &str) {
    let ran = dev
        .run_line(cmd, std::time::Duration::from_secs(20))
        .await
        .expect("the line ended");
    assert_eq!(ran.code, 0, "{cmd}: {}", ran.err);
}

/// Rotation (issue 21): in landscape, a pinch's (x, y) is a point on the turned screen; the
/// tool reads the rotation, maps the fingers to the upright touch panel, and the device sees
/// the pinch where the agent put it. A point only the upright screen has is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pinch_in_landscape_lands_at_the_screen_point() {
    use spock_tui::sim::touch::Gesture;
    let r = rig_with(true, Config::default_config()).await;
    ok(
        &r,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    for (rotation, degrees) in [(1, 90), (3, 270), (0, 0)] {
        sim_sh(&r.dev, &format!("wm user-rotation lock {rotation}")).await;
        let (x, y) = if rotation == 0 {
            (300, 1800)
        } else {
            (1800, 300)
        };
        let out = ok(
            &r,
            "android_pinch",
            json!({"x": x, "y": y, "startSpread": 500, "endSpread": 100}),
        )
        .await;
        assert_eq!(out["rotation"], degrees, "{out}");
        match r.dev.last_gesture() {
            Some(Gesture::Pinch { center, .. }) => assert!(
                (center.0 - x).abs() <= 1 && (center.1 - y).abs() <= 1,
                "rotation {rotation}: seen at {center:?}, not ({x}, {y})"
            ),
            g => panic!("not a pinch: {g:?}"),
        }
    }
    sim_sh(&r.dev, "wm user-rotation lock 1").await;
    let (_, msg) = err(
        &r,
        "android_pinch",
        json!({"x": 300, "y": 1800, "startSpread": 500, "endSpread": 100}),
    )
    .await;
    assert!(msg.contains("outside the 2400x1080 screen"), "{msg}");
}

/// Issue 31 review: two agents install two versions of a package the device does not have,
/// at the same moment. Each is a new install (nobody asked), so neither may replace the
/// other's: one installs, the other finds the package there and is refused (it was not
/// approved as a replacement), every round, with replies slowed so the two checks overlap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_installs_of_one_new_package_never_replace_each_other() {
    let r = rig_with(false, Config::default_config()).await;
    let pulls = r.core.paths.pull_dir();
    std::fs::create_dir_all(&pulls).unwrap();
    r.faults()
        .apply(&spock_tui::sim::faults::FaultCommand::Delay { ms: 20 });
    for round in 0..3u32 {
        let pkg = format!("com.example.race{round}");
        let v1 = pulls.join(format!("race{round}-1.apk"));
        let v2 = pulls.join(format!("race{round}-2.apk"));
        std::fs::write(&v1, apk(&pkg, 1, "1")).unwrap();
        std::fs::write(&v2, apk(&pkg, 2, "2")).unwrap();
        let (x, y) = tokio::join!(
            stdio_call(&r.core, "android_install_app", json!({"apkPath": v1})),
            stdio_call(&r.core, "android_install_app", json!({"apkPath": v2})),
        );
        let ok: Vec<_> = [&x, &y]
            .into_iter()
            .filter(|o| o.outcome == Outcome::Ok)
            .collect();
        assert_eq!(ok.len(), 1, "round {round}: {x:?} {y:?}");
        let out = &ok[0].result.as_ref().unwrap().json;
        assert!(out.get("replacedVersionCode").is_none(), "{out}");
        assert_eq!(
            r.dev
                .with_state(|s| s.installed.get(&pkg).map(|a| a.spec.version_code)),
            out["versionCode"].as_u64(),
            "round {round}: the device has another version than the install that succeeded"
        );
    }
}
