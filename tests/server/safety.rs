//! The safety model, in-process against the virtual device: no destructive tool reports success
//! without an approval (walking the registry, so a tool added later is covered), catastrophic
//! commands never reach a confirmation, access switches bite mid-session, `--allow-all` never
//! writes and never lifts a confirmation.
use std::time::Duration;

use serde_json::{Map, Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::Level;
use spock_tui::mcp::events::Outcome;
use spock_tui::sim::device::SimDevice;

use crate::support::device_rig;
use device_rig::{Rig, rig_with, stdio_call};

async fn rig(allow_all: bool, config: Config) -> Rig {
    rig_with(allow_all, config).await
}

/// Plausible arguments from a tool's input schema, aimed at the demo's second app.
fn args_for(schema: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    for (name, p) in &props {
        if !required.contains(name) && name != "historySize" {
            continue;
        }
        let ty = p
            .get("type")
            .and_then(|t| {
                t.as_str().map(str::to_string).or_else(|| {
                    t.as_array()
                        .and_then(|a| a.first())
                        .and_then(|v| v.as_str().map(str::to_string))
                })
            })
            .unwrap_or_default();
        let v = match (ty.as_str(), name.as_str()) {
            (_, n) if n.contains("ackage") => json!("com.example.notes"),
            (_, "permission") => json!("android.permission.POST_NOTIFICATIONS"),
            (_, "command") => json!("pm uninstall com.example.notes"),
            (_, "reason") => json!("the typed tools cannot do this in the test"),
            ("integer" | "number", _) => json!(50),
            ("boolean", _) => json!(true),
            ("array", _) => json!([]),
            ("object", _) => json!({}),
            _ => json!("spock-test"),
        };
        out.insert(name.clone(), v);
    }
    Value::Object(out)
}

/// Installed apps, each with its permission grants.
type Apps = Vec<(String, Vec<(String, bool)>)>;

/// What destructive tools could change: installed apps with their permission grants, the screen.
fn state(dev: &SimDevice) -> (Apps, String) {
    let apps = dev.with_state(|s| {
        s.installed
            .iter()
            .map(|(k, a)| {
                (
                    k.clone(),
                    a.permissions.iter().map(|(p, g)| (p.clone(), *g)).collect(),
                )
            })
            .collect()
    });
    (apps, dev.screen_id())
}

#[derive(Clone, Copy, Debug)]
enum Responder {
    Deny,
    Silent,
    None,
    Drop,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_destructive_tool_succeeds_without_approval() {
    let mut cfg = Config::default_config();
    cfg.safety.confirm_timeout_secs = 1;
    let r = rig(true, cfg).await; // --allow-all: switches lifted, confirmations are not
    let destructive: Vec<_> = r
        .core
        .registry
        .all()
        .iter()
        .filter(|t| t.level == Level::Destructive)
        .cloned()
        .collect();
    assert!(
        destructive.len() >= 6,
        "expected the destructive catalogue, got {}",
        destructive.len()
    );
    let before = state(&r.dev);
    for tool in &destructive {
        for responder in [
            Responder::Deny,
            Responder::Silent,
            Responder::None,
            Responder::Drop,
        ] {
            let mut rx = match responder {
                Responder::None => {
                    r.core.confirmer.detach();
                    None
                }
                _ => Some(r.core.confirmer.attach()),
            };
            let answering = rx.take().map(|mut rx| {
                tokio::spawn(async move {
                    let mut held = Vec::new();
                    while let Some(req) = rx.recv().await {
                        match responder {
                            Responder::Deny => req.answer(false),
                            Responder::Drop => drop(req),
                            _ => held.push(req), // silent: keep it until the timeout
                        }
                    }
                })
            });
            let args = args_for(&tool.input_schema);
            let done = stdio_call(&r.core, tool.name, args.clone()).await;
            assert!(
                done.result.is_err(),
                "{} succeeded with responder {responder:?}",
                tool.name
            );
            assert_ne!(done.outcome, Outcome::Ok);
            if let Some(d) = done.decision {
                assert!(!d.approved, "{} approved by {responder:?}", tool.name);
            }
            // malformed arguments never succeed either
            let bad = stdio_call(&r.core, tool.name, json!({"definitelyNotAField": [1, 2]})).await;
            assert!(
                bad.result.is_err(),
                "{} accepted malformed arguments",
                tool.name
            );
            r.core.confirmer.detach();
            if let Some(t) = answering {
                t.abort();
            }
        }
    }
    assert_eq!(
        state(&r.dev),
        before,
        "device state changed without an approval"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approved_destructive_call_runs() {
    let r = rig(false, Config::default_config()).await;
    let mut rx = r.core.confirmer.attach();
    let t = tokio::spawn(async move {
        let req = rx.recv().await.expect("asked");
        assert_eq!(req.ask.tool, "android_uninstall_app");
        assert_eq!(req.ask.arguments["packageName"], "com.example.notes");
        req.answer(true);
    });
    let done = stdio_call(
        &r.core,
        "android_uninstall_app",
        json!({"packageName": "com.example.notes"}),
    )
    .await;
    t.await.unwrap();
    assert!(done.result.is_ok(), "{:?}", done.result.err());
    assert!(!r.dev.is_installed("com.example.notes"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approved_permission_changes_say_what_was_done() {
    let r = rig(false, Config::default_config()).await;
    let mut rx = r.core.confirmer.attach();
    tokio::spawn(async move {
        while let Some(req) = rx.recv().await {
            req.answer(true);
        }
    });
    for (tool, said) in [
        ("android_revoke_permission", "revoked"),
        ("android_grant_permission", "granted"),
    ] {
        let done = stdio_call(
            &r.core,
            tool,
            json!({"packageName": "com.example.shop", "permission": "android.permission.POST_NOTIFICATIONS"}),
        )
        .await;
        let out = done.result.expect(tool).json;
        assert_eq!(
            out["result"],
            format!("{said} android.permission.POST_NOTIFICATIONS"),
            "{out}"
        );
    }
}

const CATASTROPHIC: &[&str] = &[
    "rm -rf /",
    "rm -rf /*",
    "rm  -rf   /",
    "rm -r -f /",
    "rm -fr /",
    "rm --recursive --force /",
    "rm -rf --no-preserve-root /",
    "'rm' \"-rf\" '/'",
    "rm${IFS}-rf${IFS}/",
    "X=/; rm -rf $X",
    "ls; rm -rf /",
    "true && rm -rf /",
    "echo | rm -rf /",
    "sh -c 'rm -rf /'",
    "su -c 'rm -rf /'",
    "su 0 rm -rf /",
    "eval 'rm -rf /'",
    "echo cm0gLXJmIC8= | base64 -d | sh",
    "busybox rm -rf /",
    "toybox rm -rf /",
    "/system/bin/rm -rf /",
    "rm -rf /system",
    "rm -rf /data",
    "rm -rf /sdcard",
    "$(echo rm) -rf /",
    "`echo rm` -rf /",
    "(rm -rf /)",
    "am broadcast -a android.intent.action.MASTER_CLEAR",
    "am broadcast -a android.intent.action.FACTORY_RESET",
    "recovery --wipe_data",
    "wipe data",
    "mkfs.ext4 /dev/block/sda1",
    "mke2fs /dev/block/mmcblk0p1",
    "make_ext4fs /dev/block/by-name/userdata",
    "dd if=/dev/zero of=/dev/block/mmcblk0",
    "dd if=/dev/zero of=/dev/block/by-name/userdata bs=1M",
    "echo --wipe_data > /cache/recovery/command",
    "reboot recovery; wipe data",
    "sh -c \"sh -c 'rm -rf /'\"",
    "cd / && rm -rf *",
];

const ORDINARY: &[&str] = &[
    "ls /sdcard",
    "dumpsys meminfo",
    "cmd package list packages",
    "rm /sdcard/tmp.txt",
    "rm -rf /sdcard/Download/x",
    "logcat -d",
    "pm list packages",
    "getprop ro.product.model",
    "input tap 10 10",
    "df -h",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catastrophic_commands_never_reach_a_confirmation() {
    let r = rig(false, Config::default_config()).await;
    let mut rx = r.core.confirmer.attach();
    for cmd in CATASTROPHIC {
        let done = stdio_call(
            &r.core,
            "android_run_adb_command",
            json!({"command": cmd, "reason": "testing the refusal list"}),
        )
        .await;
        assert_eq!(
            done.outcome,
            Outcome::Refused,
            "{cmd}: {:?}",
            done.result.as_ref().err()
        );
        assert!(done.decision.is_none(), "{cmd} was shown for confirmation");
        assert!(
            rx.try_recv().is_err(),
            "{cmd} reached the confirmation channel"
        );
    }
    assert!(CATASTROPHIC.len() >= 40);
    let answer = tokio::spawn(async move {
        let mut n = 0;
        while let Some(req) = rx.recv().await {
            req.answer(false);
            n += 1;
            if n == ORDINARY.len() {
                break;
            }
        }
        n
    });
    for cmd in ORDINARY {
        let done = stdio_call(
            &r.core,
            "android_run_adb_command",
            json!({"command": cmd, "reason": "an ordinary command"}),
        )
        .await;
        assert_eq!(
            done.outcome,
            Outcome::Denied,
            "{cmd} should have been asked (and denied)"
        );
    }
    assert_eq!(answer.await.unwrap(), ORDINARY.len());
}

/// Issue 15: what a person approves is what they can read. Arguments over 8 KB, or holding a
/// value an `everywhere` redaction rule would hide from the modal, are refused before anyone
/// is asked, saying why; just under the limit is asked as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_arguments_nobody_could_read_whole_are_refused_before_asking() {
    let mut config = Config::default_config();
    config
        .redaction
        .rules
        .push(spock_tui::redact::RedactionRule {
            name: "pin".into(),
            pattern: "PIN-[0-9]{4}".into(),
            scope: spock_tui::redact::Scope::Everywhere,
        });
    let r = rig(false, config).await;
    let mut rx = r.core.confirmer.attach();
    let padded = format!(
        "echo hello{}; pm uninstall com.example.notes",
        " ".repeat(9000)
    );
    let hidden = "echo PIN-1234; pm uninstall com.example.notes".to_string();
    for (command, why) in [(padded, "at most 8192 bytes"), (hidden, "`pin`")] {
        let done = stdio_call(
            &r.core,
            "android_run_adb_command",
            json!({"command": command, "reason": "say hello"}),
        )
        .await;
        assert_eq!(done.outcome, Outcome::Refused);
        let msg = done.result.as_ref().err().unwrap().message.clone();
        assert!(
            msg.contains(why) && msg.contains("nobody was asked"),
            "{msg}"
        );
        assert!(done.decision.is_none());
        assert!(
            rx.try_recv().is_err(),
            "it reached the confirmation channel"
        );
    }
    let answer = tokio::spawn(async move {
        let req = rx.recv().await.unwrap();
        let len = serde_json::to_string(&req.ask.arguments).unwrap().len();
        req.answer(false);
        len
    });
    let command = format!("echo {}", "a".repeat(8000));
    let done = stdio_call(
        &r.core,
        "android_run_adb_command",
        json!({"command": command, "reason": "say hello"}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Denied);
    assert!(answer.await.unwrap() > 8000);
}

/// The finding: an uninstall of `com.еxample.notes` (a Cyrillic е), of `x; pm uninstall y` or
/// of `../../x` was put to the person, and refused only after their yes. A name that can
/// never run is refused before anyone is asked; a valid one is still asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_app_tools_refuse_names_that_cannot_run_before_asking() {
    let r = rig(false, Config::default_config()).await;
    let mut rx = r.core.confirmer.attach();
    let bad = [
        (
            "android_uninstall_app",
            json!({"packageName": "com.\u{0435}xample.notes"}),
        ),
        (
            "android_uninstall_app",
            json!({"packageName": "com.example.notes; pm uninstall com.example.shop"}),
        ),
        ("android_clear_app_data", json!({"packageName": "../../x"})),
        (
            "android_clear_app_data",
            json!({"packageName": "a".repeat(3000)}),
        ),
        (
            "android_revoke_permission",
            json!({"packageName": "com.example.notes", "permission": "android.permission.CAMERA; reboot"}),
        ),
        (
            "android_revoke_permission",
            json!({"packageName": "$(reboot)", "permission": "android.permission.CAMERA"}),
        ),
    ];
    for (tool, args) in bad {
        let done = stdio_call(&r.core, tool, args.clone()).await;
        assert_eq!(
            done.outcome,
            Outcome::Refused,
            "{tool} {args}: {:?}",
            done.result.as_ref().err()
        );
        assert!(
            done.decision.is_none(),
            "{tool} {args}: a decision was taken"
        );
        assert!(
            rx.try_recv().is_err(),
            "{tool} {args}: the person was asked"
        );
    }
    let answer = tokio::spawn(async move {
        let req = rx.recv().await.unwrap();
        let tool = req.ask.tool;
        req.answer(false);
        tool
    });
    let done = stdio_call(
        &r.core,
        "android_uninstall_app",
        json!({"packageName": "com.example.notes"}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Denied);
    assert_eq!(answer.await.unwrap(), "android_uninstall_app");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_bites_mid_session_and_allow_all_writes_nothing() {
    let r = rig(false, Config::default_config()).await;
    let tool = r
        .core
        .registry
        .get("android_get_battery_info")
        .unwrap()
        .clone();
    let ok = stdio_call(&r.core, tool.name, json!({})).await;
    assert_eq!(ok.outcome, Outcome::Ok);
    r.core.access.set_enabled(&tool, false);
    let refused = stdio_call(&r.core, tool.name, json!({})).await;
    assert_eq!(refused.outcome, Outcome::Refused);
    let msg = refused.result.unwrap_err().message;
    assert!(
        msg.contains("android_get_battery_info") && msg.contains("Tool access"),
        "{msg}"
    );
    // Host groups start off.
    let s = stdio_call(&r.core, "spock_update_settings", json!({"historySize": 10})).await;
    assert_eq!(s.outcome, Outcome::Refused);

    // --allow-all: the same stored switches, lifted for this process only.
    let mut cfg = Config::default_config();
    cfg.access
        .disabled
        .insert("android_get_battery_info".into());
    let r2 = rig(true, cfg.clone()).await;
    let ran = stdio_call(&r2.core, "android_get_battery_info", json!({})).await;
    assert_eq!(ran.outcome, Outcome::Ok);
    assert!(
        r2.core
            .access
            .settings()
            .disabled
            .contains("android_get_battery_info"),
        "allow-all rewrote the setting"
    );
    assert!(
        !spock_tui::config::config_file(&r2.core.paths).exists(),
        "allow-all wrote a config file"
    );
    // ...and it never lifts a confirmation: nobody answers, so a destructive call is denied.
    let d = stdio_call(
        &r2.core,
        "android_clear_app_data",
        json!({"packageName": "com.example.notes"}),
    )
    .await;
    assert_eq!(d.outcome, Outcome::Denied);
    tokio::time::sleep(Duration::from_millis(10)).await;
}

/// Taps check their point against a screen size kept for a few seconds per device. An approved
/// shell command may change that size (`wm size WxH`): the very next tap must see the new size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_command_that_resizes_the_screen_is_seen_by_the_next_tap() {
    let r = rig(false, Config::default_config()).await;
    let tap = |x: i32, y: i32| {
        let core = r.core.clone();
        async move {
            stdio_call(&core, "android_tap", json!({"x": x, "y": y}))
                .await
                .result
        }
    };
    assert!(tap(1000, 2000).await.is_ok(), "inside the 1080x2400 panel");
    let mut rx = r.core.confirmer.attach();
    let approve = tokio::spawn(async move {
        let req = rx.recv().await.expect("asked");
        req.answer(true);
    });
    let done = stdio_call(
        &r.core,
        "android_run_adb_command",
        json!({"command": "wm size 540x1200", "reason": "test a smaller screen"}),
    )
    .await;
    approve.await.unwrap();
    assert!(done.result.is_ok(), "{:?}", done.result.err());
    let refused = tap(1000, 2000).await.expect_err("outside 540x1200 now");
    assert!(refused.message.contains("540x1200"), "{}", refused.message);
    assert!(tap(500, 1100).await.is_ok());
}

// --- "Safe" means undoable: a safe tool's call that would destroy data is destructive. ---

/// The device-side shell, as `adb shell` runs it on the virtual device.
async fn sim_sh(dev: &SimDevice, cmd: &str) -> (i32, String) {
    use spock_tui::sim::{ShellChunk, ShellIo, Target};
    let (_stdin_tx, stdin) = tokio::sync::mpsc::channel(1);
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let fut = dev.shell(cmd.to_string(), ShellIo { stdin, out: tx });
    let collect = tokio::spawn(async move {
        let mut out = Vec::new();
        while let Some(c) = rx.recv().await {
            match c {
                ShellChunk::Stdout(b) | ShellChunk::Stderr(b) => out.extend_from_slice(&b),
            }
        }
        out
    });
    let code = fut.await;
    let out = collect.await.unwrap();
    (code, String::from_utf8_lossy(&out).into_owned())
}

fn device_file(dev: &SimDevice, path: &str) -> Option<Vec<u8>> {
    dev.with_state(|s| s.fs.read(path).ok().map(|b| b.to_vec()))
}

/// A file the agent may push: in the pull directory (an allowed push source).
fn agent_file(r: &Rig, name: &str, content: &[u8]) -> String {
    let dir = r.core.paths.pull_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p.display().to_string()
}

/// Answers every confirmation with `approve` and hands back what was asked.
fn person(r: &Rig, approve: bool) -> tokio::task::JoinHandle<Vec<spock_tui::mcp::confirm::Ask>> {
    let mut rx = r.core.confirmer.attach();
    tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(req) = rx.recv().await {
            seen.push(req.ask.clone());
            req.answer(approve);
        }
        seen
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushing_over_a_users_photo_is_refused_or_asks() {
    let r = rig(false, Config::default_config()).await;
    let photo = b"\xff\xd8\xff\xe0 the user's only copy";
    r.dev.with_state(|s| {
        s.fs.write("/sdcard/DCIM/IMG_0001.jpg", 0o660, 0, photo.to_vec().into())
            .unwrap()
    });
    let src = agent_file(&r, "IMG_0001.jpg", b"agent bytes");
    // Without overwrite: refused before anyone is asked, naming the file.
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": src, "devicePath": "/sdcard/DCIM/IMG_0001.jpg"}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Refused, "{:?}", done.result);
    let msg = done.result.unwrap_err().message;
    assert!(
        msg.contains("DCIM/IMG_0001.jpg") && msg.contains("overwrite"),
        "{msg}"
    );
    assert!(done.decision.is_none());
    // Into the directory (the file keeps its name): the same file, the same refusal.
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": src, "devicePath": "/sdcard/DCIM/"}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Refused, "{:?}", done.result);
    // overwrite: true is destructive for this call: nobody to approve (headless) denies it.
    r.core.confirmer.detach();
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": src, "devicePath": "/sdcard/DCIM/IMG_0001.jpg", "overwrite": true}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Denied, "{:?}", done.result);
    assert_eq!(
        device_file(&r.dev, "/storage/emulated/0/DCIM/IMG_0001.jpg").as_deref(),
        Some(&photo[..]),
        "the photo changed without an approval"
    );
    let audited = r.core.audit.recent(1);
    assert_eq!(audited[0].level, Level::Destructive, "{:?}", audited[0]);
    // A person denies it: still the photo. The modal said which file and why.
    let p = person(&r, false);
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": src, "devicePath": "/sdcard/DCIM/IMG_0001.jpg", "overwrite": true}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Denied);
    r.core.confirmer.detach();
    let asks = p.await.unwrap();
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].level, Level::Destructive);
    let reason = asks[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("/storage/emulated/0/DCIM/IMG_0001.jpg") && reason.contains("overwrite"),
        "{reason}"
    );
    // Approved: replaced.
    let p = person(&r, true);
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": src, "devicePath": "/sdcard/DCIM/IMG_0001.jpg", "overwrite": true}),
    )
    .await;
    assert!(done.result.is_ok(), "{:?}", done.result);
    r.core.confirmer.detach();
    assert_eq!(p.await.unwrap().len(), 1);
    assert_eq!(
        device_file(&r.dev, "/storage/emulated/0/DCIM/IMG_0001.jpg").as_deref(),
        Some(&b"agent bytes"[..])
    );
    // A new file stays a safe action, with or without overwrite: nobody is asked.
    let p = person(&r, false);
    for (i, overwrite) in [false, true].into_iter().enumerate() {
        let done = stdio_call(
            &r.core,
            "android_push_file",
            json!({"localPath": src, "devicePath": format!("/sdcard/Download/new{i}.jpg"), "overwrite": overwrite}),
        )
        .await;
        assert!(done.result.is_ok(), "{:?}", done.result);
        assert!(done.decision.is_none());
    }
    r.core.confirmer.detach();
    assert!(p.await.unwrap().is_empty(), "a new file was asked about");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saving_over_a_batch_task_asks_like_deleting_it() {
    let r = rig(false, Config::default_config()).await;
    let launch =
        json!([{"tool": "android_launch_app", "arguments": {"packageName": "com.example.shop"}}]);
    let other = json!([{"tool": "android_press_key", "arguments": {"key": "HOME"}}]);
    let done = stdio_call(
        &r.core,
        "android_batch_save",
        json!({"id": "shop_login", "name": "Shop login", "steps": launch}),
    )
    .await;
    assert!(done.result.is_ok(), "{:?}", done.result);
    assert!(done.decision.is_none(), "a new task is a safe action");
    // Headless: replacing it is denied, the saved task is as it was.
    r.core.confirmer.detach();
    let done = stdio_call(
        &r.core,
        "android_batch_save",
        json!({"id": "shop_login", "name": "Hijacked", "steps": other}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Denied, "{:?}", done.result);
    let kept = r.core.batch().unwrap().get("shop_login").unwrap();
    assert_eq!(kept.name, "Shop login");
    assert_eq!(kept.steps[0].tool, "android_launch_app");
    // A person sees which task would be replaced; approved, it is.
    let p = person(&r, true);
    let done = stdio_call(
        &r.core,
        "android_batch_save",
        json!({"id": "shop_login", "name": "Shop login v2", "steps": other}),
    )
    .await;
    assert!(done.result.is_ok(), "{:?}", done.result);
    r.core.confirmer.detach();
    let asks = p.await.unwrap();
    assert_eq!(asks.len(), 1);
    let reason = asks[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("shop_login") && reason.contains("Shop login"),
        "{reason}"
    );
    assert_eq!(
        r.core.batch().unwrap().get("shop_login").unwrap().name,
        "Shop login v2"
    );
    // The finding: an id no task can have was answered "saved while this call was being
    // checked … call again", every time. It is refused as an invalid id, and nothing is saved.
    for bad in [
        "a/b",
        "",
        "with space",
        "../../../../tmp/evil",
        &"x".repeat(100),
        "\u{1b}[2J",
    ] {
        let done = stdio_call(
            &r.core,
            "android_batch_save",
            json!({"id": bad, "name": "Bad", "steps": launch}),
        )
        .await;
        let msg = done
            .result
            .as_ref()
            .err()
            .map(|e| e.message.clone())
            .unwrap_or_default();
        assert!(msg.contains("invalid id"), "{bad:?}: {msg}");
        assert!(!msg.contains("saved while"), "{bad:?}: {msg}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intents_deep_links_and_app_functions_that_delete_ask() {
    let r = rig(true, Config::default_config()).await;
    r.core.confirmer.detach(); // headless: whatever asks is denied
    for (tool, args) in [
        (
            "android_open_intent",
            json!({"action": "android.intent.action.DELETE", "data": "package:com.example.notes"}),
        ),
        (
            "android_open_intent",
            json!({"action": "android.intent.action.UNINSTALL_PACKAGE", "data": "package:com.example.notes"}),
        ),
        (
            "android_open_intent",
            json!({"action": "com.example.notes.action.CLEAR_ALL", "packageName": "com.example.notes"}),
        ),
        (
            "android_open_deep_link",
            json!({"uri": "notes://notes/all/delete"}),
        ),
        (
            "android_call_app_function",
            json!({"packageName": "com.example.notes", "functionId": "deleteNote", "arguments": {"id": "1"}}),
        ),
    ] {
        let done = stdio_call(&r.core, tool, args.clone()).await;
        assert_eq!(
            done.outcome,
            Outcome::Denied,
            "{tool} {args}: {:?}",
            done.result
        );
    }
    assert!(r.dev.is_installed("com.example.notes"));
    // Ordinary ones stay safe actions.
    for (tool, args) in [
        (
            "android_open_intent",
            json!({"action": "android.intent.action.VIEW", "data": "shop://product/42"}),
        ),
        (
            "android_open_deep_link",
            json!({"uri": "shop://product/42"}),
        ),
        (
            "android_call_app_function",
            json!({"packageName": "com.example.notes", "functionId": "createNote", "arguments": {"title": "a", "body": "b"}}),
        ),
        // Not a function the device lists: the call says so, nobody is asked.
        (
            "android_call_app_function",
            json!({"packageName": "com.example.notes", "functionId": "com.example.notes.NoteFunctions#removeAllNotes"}),
        ),
    ] {
        let done = stdio_call(&r.core, tool, args.clone()).await;
        assert!(done.decision.is_none(), "{tool} {args} asked");
        assert_ne!(done.outcome, Outcome::Denied, "{tool} {args}");
    }
}

/// An agent cannot bury the person under approvals: a fourth waiting call from one client is
/// refused before it is shown, and the others' calls are still asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_cannot_flood_the_confirmation_modal() {
    use spock_tui::mcp::events::{ClientId, Transport};
    use spock_tui::mcp::server::{CallRequest, Origin};
    let r = rig(false, Config::default_config()).await;
    let mut rx = r.core.confirmer.attach();
    let as_client = |name: &str| Origin {
        transport: Transport::Http,
        client: Some(ClientId {
            name: name.into(),
            version: "1".into(),
        }),
        session: None,
    };
    let uninstall = |origin: Origin| {
        let core = r.core.clone();
        tokio::spawn(async move {
            CallRequest::new(
                origin,
                "android_uninstall_app",
                json!({"packageName": "com.example.notes"}),
            )
            .run(&core)
            .await
            .unwrap()
        })
    };
    let mut waiting = Vec::new();
    let mut calls = Vec::new();
    for _ in 0..3 {
        calls.push(uninstall(as_client("flood")));
        waiting.push(rx.recv().await.expect("asked"));
    }
    // The fourth: refused at once, never shown.
    let fourth = uninstall(as_client("flood"));
    let done = tokio::select! {
        d = fourth => d.unwrap(),
        req = rx.recv() => panic!("a fourth call was shown: {:?}", req.map(|r| r.ask.call_id)),
    };
    assert_eq!(done.outcome, Outcome::Refused, "{:?}", done.result);
    assert!(done.decision.is_none());
    let msg = done.result.unwrap_err().message;
    assert!(msg.contains("too many calls waiting for approval"), "{msg}");
    // Another client is still asked.
    let other = uninstall(as_client("someone-else"));
    let req = rx.recv().await.expect("the other client is asked");
    assert_eq!(req.ask.client.as_ref().unwrap().name, "someone-else");
    req.answer(false);
    assert_eq!(other.await.unwrap().outcome, Outcome::Denied);
    // Once one is answered, the first client may ask again.
    waiting.pop().unwrap().answer(false);
    assert_eq!(calls.pop().unwrap().await.unwrap().outcome, Outcome::Denied);
    let again = uninstall(as_client("flood"));
    let req = rx.recv().await.expect("asked again");
    req.answer(false);
    assert_eq!(again.await.unwrap().outcome, Outcome::Denied);
    for w in waiting {
        w.answer(false);
    }
    for c in calls {
        assert_eq!(c.await.unwrap().outcome, Outcome::Denied);
    }
    assert!(r.dev.is_installed("com.example.notes"));
}

/// A link inside the allowed roots that leads out of them is followed on the device before
/// anything is transferred: pushes and pulls through it are refused, and nothing under /data is
/// read or written. The shell user can make links in /data/local/tmp (ext4/f2fs); emulated
/// storage (/sdcard) refuses them, so the /sdcard links here are planted as root or a vendor
/// image could have left them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transfers_through_device_symlinks_out_of_the_roots_are_refused() {
    let r = rig(false, Config::default_config()).await;
    r.dev.with_state(|s| {
        s.fs.mkdir("/data/system", true).unwrap();
        s.fs.write(
            "/data/system/accounts.db",
            0o600,
            0,
            b"secret".to_vec().into(),
        )
        .unwrap();
        s.fs.put_symlink("/data/system", "/storage/emulated/0/Download/sys")
            .unwrap();
        s.fs.put_symlink(
            "/data/system/accounts.db",
            "/storage/emulated/0/Download/accounts.db",
        )
        .unwrap();
    });
    // The shell user cannot make one on emulated storage, as on a phone.
    let (code, out) = sim_sh(&r.dev, "ln -s /data/system /sdcard/Download/mine").await;
    assert_ne!(code, 0, "{out}");
    for cmd in [
        "ln -s /data/system /data/local/tmp/sys",
        // dangling: the file it names does not exist yet
        "ln -s /data/system/planted.xml /data/local/tmp/planted.xml",
        "ln -s /data/system/planted.xml /data/local/tmp/sys2",
        // relative, climbing out of the allowed root
        "ln -s ../../../data/system /data/local/tmp/up",
    ] {
        let (code, out) = sim_sh(&r.dev, cmd).await;
        assert_eq!(code, 0, "{cmd}: {out}");
    }
    let (_, out) = sim_sh(&r.dev, "ls -l /sdcard/Download /data/local/tmp").await;
    assert!(
        out.contains("sys -> /data/system") && out.contains("up -> ../../../data/system"),
        "{out}"
    );
    let src = agent_file(&r, "planted.xml", b"<evil/>");
    for (tool, args) in [
        (
            "android_pull_file",
            json!({"devicePath": "/sdcard/Download/accounts.db"}),
        ),
        (
            "android_pull_file",
            json!({"devicePath": "/sdcard/Download/sys/accounts.db"}),
        ),
        (
            "android_pull_file",
            json!({"devicePath": "/data/local/tmp/sys/accounts.db"}),
        ),
        (
            "android_pull_file",
            json!({"devicePath": "/data/local/tmp/up/accounts.db"}),
        ),
        (
            "android_push_file",
            json!({"localPath": src, "devicePath": "/sdcard/Download/sys/planted.xml"}),
        ),
        (
            "android_push_file",
            json!({"localPath": src, "devicePath": "/data/local/tmp/up/"}),
        ),
        (
            "android_push_file",
            json!({"localPath": src, "devicePath": "/data/local/tmp/planted.xml"}),
        ),
        (
            "android_push_file",
            json!({"localPath": src, "devicePath": "/data/local/tmp/sys2", "overwrite": true}),
        ),
        (
            "android_push_file",
            json!({"localPath": src, "devicePath": "/sdcard/Download/accounts.db", "overwrite": true}),
        ),
    ] {
        let done = stdio_call(&r.core, tool, args.clone()).await;
        assert_eq!(
            done.outcome,
            Outcome::Refused,
            "{tool} {args}: {:?}",
            done.result
        );
        assert!(
            done.decision.is_none(),
            "{tool} {args} was shown for approval"
        );
        let msg = done.result.unwrap_err().message;
        assert!(msg.contains("/data/system"), "{tool} {args}: {msg}");
    }
    assert_eq!(
        device_file(&r.dev, "/data/system/accounts.db").as_deref(),
        Some(&b"secret"[..])
    );
    assert_eq!(device_file(&r.dev, "/data/system/planted.xml"), None);
    let pulled: Vec<_> = std::fs::read_dir(r.core.paths.pull_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        pulled,
        ["planted.xml"],
        "only the agent's own file is there"
    );
}

/// The safety documentation's table of safe tools that can be destructive for a call is the
/// registry's.
#[test]
fn the_readme_names_every_tool_that_can_escalate_and_when() {
    let readme =
        std::fs::read_to_string(spock_tui::testdata::repo_root().join("docs/safety.md")).unwrap();
    let section = readme
        .split("## When a safe action is destructive")
        .nth(1)
        .expect("docs/safety.md has the section");
    let rows: Vec<(String, String, String)> = section
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| android_") || l.starts_with("| spock_"))
        .map(|l| {
            let cells: Vec<String> = l
                .split(" | ")
                .map(|c| c.trim_matches(['|', ' ']).to_string())
                .collect();
            (cells[0].clone(), cells[1].clone(), cells[2].clone())
        })
        .collect();
    let reg = spock_tui::mcp::tools::catalogue();
    let escalating: Vec<_> = reg
        .all()
        .iter()
        .filter(|t| t.escalates_when.is_some())
        .collect();
    assert_eq!(
        rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        escalating.iter().map(|t| t.name).collect::<Vec<_>>(),
        "the README's escalation table and the registry disagree"
    );
    for (t, (_, level, when)) in escalating.iter().zip(&rows) {
        assert_eq!(t.level, Level::SafeAction, "{}", t.name);
        assert_eq!(level, "safe action");
        let declared = t.escalates_when.unwrap();
        assert!(
            when.starts_with(declared),
            "{}: README {when:?}, registry {declared:?}",
            t.name
        );
    }
}

/// Lowering the history size at run time applies at once: the audit trail's in-memory window
/// (what History and searches see) shrinks now, not at the next start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lowering_the_history_size_applies_at_once() {
    let r = rig(false, Config::default_config()).await;
    for _ in 0..30 {
        stdio_call(&r.core, "android_get_battery_info", json!({})).await;
    }
    assert!(r.core.audit.snapshot().len() >= 30);
    // The Settings screen and spock_update_settings both go through update_config.
    r.core
        .update_config(|c| c.history.size = 10)
        .expect("update");
    assert_eq!(r.core.audit.cap(), 10);
    assert_eq!(r.core.audit.snapshot().len(), 10);
    // A config.toml edited on disk (the watcher) applies at once too.
    let mut cfg = (*r.core.config()).clone();
    cfg.history.size = 5;
    r.core.adopt_config(cfg);
    assert_eq!(r.core.audit.cap(), 5);
    assert_eq!(r.core.audit.snapshot().len(), 5);
}

/// The audit trail's records as they are on disk (what a crash leaves).
fn on_disk(r: &Rig) -> Vec<Value> {
    std::fs::read_to_string(r.core.audit.path())
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a record"))
        .collect()
}

/// Issue 33, nothing in flight is lost: an approved destructive call's `started` record is on
/// disk while the call runs (before it does anything), listed as running, and its ending names
/// it; a recording open meanwhile gets one step for the call, not two; a denied call never ran
/// and has no started record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_destructive_call_is_on_disk_as_started_before_it_runs() {
    let r = rig(false, Config::default_config()).await;
    r.core
        .batch()
        .unwrap()
        .start_recording("pair")
        .expect("recording");
    let yes = person(&r, true);
    let core = r.core.clone();
    let call = tokio::spawn(async move {
        stdio_call(
            &core,
            "android_run_adb_command",
            json!({"command": "sleep 2", "reason": "a long command"}),
        )
        .await
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let started = loop {
        if let Some(s) = on_disk(&r).into_iter().find(|v| v["outcome"] == "started") {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "no started record");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        !call.is_finished(),
        "the started record came after the call"
    );
    let seq = started["seq"].as_u64().unwrap();
    assert!(r.core.sessions.started_running(seq));
    assert_eq!(started["tool"], "android_run_adb_command");
    assert_eq!(started["arguments"]["command"], "sleep 2");
    assert_eq!(started["decision"], json!({"approved": true, "by": "key"}));
    assert_eq!(started["durationMs"], 0);
    assert!(started.get("result").is_none() && started.get("started").is_none());
    let done = call.await.unwrap();
    assert_eq!(done.outcome, Outcome::Ok, "{:?}", done.result.err());
    assert!(!r.core.sessions.started_running(seq));
    let ending = on_disk(&r)
        .into_iter()
        .find(|v| v["seq"] == done.record)
        .expect("the ending on disk");
    assert_eq!(ending["started"], seq);
    assert_eq!(ending["outcome"], "ok");
    assert_eq!(ending["time"], started["time"]);
    let steps = r
        .core
        .batch()
        .unwrap()
        .recording()
        .expect("recording")
        .steps;
    assert_eq!(steps.len(), 1, "one call, one step: {steps:?}");
    // Denied: it never ran, so it has no started record.
    yes.abort();
    let _ = yes.await;
    let no = person(&r, false);
    let denied = stdio_call(
        &r.core,
        "android_run_adb_command",
        json!({"command": "echo no", "reason": "denied"}),
    )
    .await;
    assert_eq!(denied.outcome, Outcome::Denied);
    no.abort();
    let outcomes: Vec<String> = on_disk(&r)
        .iter()
        .filter(|v| v["tool"] == "android_run_adb_command")
        .map(|v| v["outcome"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(outcomes, ["started", "ok", "denied"]);
}

/// A destructive call whose task is stopped while it runs (its future dropped, no ending from
/// the pipeline) still gets an ending naming its started record: a running server never
/// leaves the pair open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_started_call_whose_task_is_dropped_is_ended_as_cancelled() {
    let r = rig(false, Config::default_config()).await;
    let _yes = person(&r, true);
    let core = r.core.clone();
    let call = tokio::spawn(async move {
        stdio_call(
            &core,
            "android_run_adb_command",
            json!({"command": "sleep 30", "reason": "a long command"}),
        )
        .await
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let seq = loop {
        if let Some(s) = r
            .core
            .audit
            .snapshot()
            .iter()
            .find(|a| a.outcome == Outcome::Started)
        {
            break s.seq;
        }
        assert!(std::time::Instant::now() < deadline, "no started record");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    call.abort();
    let _ = call.await;
    r.core.audit.flush().await.expect("flush");
    let ending = on_disk(&r)
        .into_iter()
        .find(|v| v["started"] == seq)
        .expect("an ending for the started record");
    assert_eq!(ending["outcome"], "cancelled");
    assert!(ending["error"].as_str().unwrap().contains("not known"));
    assert!(!r.core.sessions.started_running(seq));
}

/// A device switch from the control centre is the person's act: in force at once for the
/// next call, on the audit trail (turning a switch on as a widening, kept like a destructive
/// record), and saved; its refusal names the device's branch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_switch_from_the_control_centre_is_in_force_recorded_and_saved() {
    use spock_tui::protocol::AccessChange;
    use spock_tui::transport::control::commands::{self, Actor};
    let r = rig_with(false, Config::default_config()).await;
    let ok = stdio_call(&r.core, "android_take_screenshot", json!({})).await;
    assert!(ok.result.is_ok(), "{:?}", ok.result);
    let identity = demo_identity(&r).await;
    let actor = Actor::attached("test terminal");
    let off = AccessChange::SetDevice {
        device: identity.clone(),
        interact: false,
        on: false,
        label: Some("the demo phone".into()),
    };
    let what = commands::access(&r.core, &off, &actor).expect("applied");
    assert!(
        what.contains("Inspect off") && what.contains("the demo phone"),
        "{what}"
    );
    let refused = stdio_call(&r.core, "android_take_screenshot", json!({})).await;
    let e = refused.result.expect_err("Inspect is off");
    assert!(
        e.message.contains("Inspect is off") && e.message.contains(&identity),
        "{}",
        e.message
    );
    // Interact is untouched.
    let pressed = stdio_call(&r.core, "android_press_key", json!({"key": "HOME"})).await;
    assert!(pressed.result.is_ok(), "{:?}", pressed.result);
    commands::save_access(&r.core, &what).expect("saved");
    let saved = std::fs::read_to_string(spock_tui::config::config_file(&r.core.paths)).unwrap();
    assert!(
        saved.contains(&identity) && saved.contains("inspect = false"),
        "{saved}"
    );
    // Back on: a widening, recorded at the destructive level.
    let on = AccessChange::SetDevice {
        device: identity,
        interact: false,
        on: true,
        label: None,
    };
    commands::access(&r.core, &on, &actor).expect("applied");
    let rec = r.core.audit.snapshot();
    let last = rec.last().unwrap();
    assert_eq!(last.level, Level::Destructive, "{last:?}");
    let again = stdio_call(&r.core, "android_take_screenshot", json!({})).await;
    assert!(again.result.is_ok(), "{:?}", again.result);
}

/// A branch switched off while a call runs stops it at its next device command: a wait that
/// polls the screen ends refused instead of reading on until its timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoking_inspect_stops_a_wait_already_polling() {
    let r = rig_with(false, Config::default_config()).await;
    let identity = demo_identity(&r).await;
    // A rule for another phone makes the tree say something, and leaves this one allowed.
    r.core
        .access
        .set_device("another phone", false, false, None);
    let core = r.core.clone();
    let wait = tokio::spawn(async move {
        stdio_call(
            &core,
            "android_wait_for_element",
            json!({"selector": {"text": "never on any screen"}, "timeoutMs": 20000}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(!wait.is_finished(), "the wait is polling");
    r.core.access.set_device(&identity, false, false, None);
    let done = tokio::time::timeout(Duration::from_secs(15), wait)
        .await
        .expect("stopped well before its 20 s timeout")
        .unwrap();
    let e = done.result.expect_err("refused mid-call");
    assert!(e.message.contains("Inspect is off"), "{}", e.message);
}

/// An apps list set from the control centre limits Interact at once and is saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_list_from_the_control_centre_limits_interact() {
    use spock_tui::protocol::AccessChange;
    use spock_tui::transport::control::commands::{self, Actor};
    let r = rig_with(false, Config::default_config()).await;
    let identity = demo_identity(&r).await;
    let change = AccessChange::SetDeviceApps {
        device: identity.clone(),
        apps: Some(vec!["com.example.shop".into()]),
        label: None,
    };
    let what = commands::access(&r.core, &change, &Actor::attached("t")).expect("applied");
    assert!(what.contains("limited to com.example.shop"), "{what}");
    let notes = stdio_call(
        &r.core,
        "android_launch_app",
        json!({"packageName": "com.example.notes"}),
    )
    .await;
    let e = notes.result.expect_err("not in the list");
    assert!(
        e.message.contains("com.example.notes") && e.message.contains("com.example.shop"),
        "{}",
        e.message
    );
    let shop = stdio_call(
        &r.core,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    assert!(shop.result.is_ok(), "{:?}", shop.result);
    commands::save_access(&r.core, &what).expect("saved");
    let saved = std::fs::read_to_string(spock_tui::config::config_file(&r.core.paths)).unwrap();
    assert!(saved.contains("apps = [\"com.example.shop\"]"), "{saved}");
}

/// The demo device's identity, as `android_list_devices` reports it.
async fn demo_identity(r: &Rig) -> String {
    let dev = stdio_call(&r.core, "android_list_devices", json!({})).await;
    dev.result.unwrap().json["devices"][0]["identity"]
        .as_str()
        .expect("the demo device has an identity")
        .to_string()
}

/// Issue 38's race (docs/reviews/issue-38, finding 3): on a device whose Interact is limited
/// to the shop, a tap on a shop node is checked on the dump it taps from; a second call of the
/// agent stopping the shop between that dump and the tap would land the tap on the launcher's
/// Notes icon. Actions on such a device take turns, so the stop waits for the tap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_cannot_move_the_screen_under_another_on_an_app_limited_device() {
    use spock_tui::sim::faults::FaultCommand;
    let r = rig_with(false, Config::default_config()).await;
    let identity = demo_identity(&r).await;
    let shop = "com.example.shop";
    r.core
        .access
        .set_device_apps(&identity, Some(vec![shop.into()]), None);
    let ok = |o: spock_tui::mcp::server::CallOutcome| o.result.expect("allowed");
    ok(stdio_call(&r.core, "android_launch_app", json!({"packageName": shop})).await);
    ok(stdio_call(
        &r.core,
        "android_input_text_into_element",
        json!({"element": "login_email", "text": "me@example.com",
               "fields": [{"element": "login_password", "text": "hunter2"}]}),
    )
    .await);
    ok(stdio_call(
        &r.core,
        "android_tap_element",
        json!({"element": "sign_in"}),
    )
    .await);
    // A phone's pace: each reply of the device comes late, so a dump takes a while.
    r.faults().apply(&FaultCommand::Delay { ms: 300 });
    let core = r.core.clone();
    let tap = tokio::spawn(async move {
        stdio_call(
            &core,
            "android_tap_element",
            json!({"element": "Espresso Machine photo"}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(350)).await;
    let stop = stdio_call(&r.core, "android_stop_app", json!({"packageName": shop})).await;
    r.faults().apply(&FaultCommand::Clear);
    let tap = tap.await.unwrap();
    assert!(stop.result.is_ok(), "{:?}", stop.result);
    assert!(tap.result.is_ok(), "{:?}", tap.result);
    let now = ok(stdio_call(&r.core, "android_get_current_activity", json!({})).await);
    let activity = now.json["activity"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        !activity.starts_with("com.example.notes"),
        "the tap landed in an app the list leaves out: {activity}"
    );
}

/// The apps on the screens read from a device are kept by its identity, for Settings to offer
/// when the person limits its Interact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apps_on_screens_read_are_kept_by_device_identity() {
    let r = rig_with(false, Config::default_config()).await;
    let identity = demo_identity(&r).await;
    for pkg in ["com.example.shop", "com.example.notes"] {
        let launched = stdio_call(&r.core, "android_launch_app", json!({"packageName": pkg})).await;
        assert!(launched.result.is_ok(), "{:?}", launched.result);
        let tree = stdio_call(&r.core, "android_get_ui_tree", json!({})).await;
        assert!(tree.result.is_ok(), "{:?}", tree.result);
    }
    let seen = r.core.devices.apps_seen();
    let apps = seen.get(&identity).expect("kept by identity");
    assert!(
        apps.contains(&"com.example.shop".to_string())
            && apps.contains(&"com.example.notes".to_string()),
        "{seen:?}"
    );
}
