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

#[path = "support/device_rig.rs"]
mod device_rig;
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
