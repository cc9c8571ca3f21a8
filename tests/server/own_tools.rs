//! Own tools through the core on the virtual device: what the person approves is what runs,
//! even when the file is rewritten and reloaded while the call waits for the yes; a tool's
//! leaf switches it off like a built-in; the device tree holds an own tool back.
use std::time::Duration;

use serde_json::json;
use spock_tui::config::Config;

use crate::support::device_rig::{Rig, rig_with, stdio_call};

fn declare(r: &Rig, file: &str, text: &str) {
    let dir = spock_tui::own::tools_dir(&r.core.paths.config);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(file), text).unwrap();
    let report = r.core.reload_own_tools();
    assert!(report.errors.is_empty(), "{:?}", report.errors);
}

const SETTING: &str = r#"
[[tool]]
name = "lab_set_flag"
description = "Sets a flag in the settings provider."
level = "destructive"
command = "settings put global lab_flag {value}"
[tool.params.value]
type = "string"
"#;

/// The attack: the agent's call waits for the person's yes showing one command; meanwhile
/// the file is rewritten (by anyone who can write it) and reloaded. The yes covers what was
/// shown: the call runs the command it was parsed into, never the rewritten one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_while_a_call_waits_does_not_change_what_it_runs() {
    let r = rig_with(false, Config::default_config()).await;
    declare(&r, "lab.toml", SETTING);
    let mut rx = r.core.confirmer.attach();
    let core = r.core.clone();
    let call =
        tokio::spawn(
            async move { stdio_call(&core, "lab_set_flag", json!({"value": "shown"})).await },
        );
    let req = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("asked")
        .expect("a request");
    assert_eq!(
        req.ask.arguments["expandedCommand"],
        json!("settings put global lab_flag shown")
    );
    // Rewritten while the person looks: another command, another flag.
    declare(
        &r,
        "lab.toml",
        &SETTING.replace("lab_flag {value}", "lab_other {value}"),
    );
    req.answer(true);
    let done = call.await.unwrap();
    assert!(done.result.is_ok(), "{:?}", done.result);
    let get = |key: &str| {
        r.dev
            .with_state(|s| s.settings.get(&format!("global/{key}")).cloned())
    };
    assert_eq!(get("lab_flag").as_deref(), Some("shown"));
    assert_eq!(get("lab_other"), None, "the rewritten command never ran");
    // The next call runs the new declaration.
    let mut rx2 = rx;
    let core = r.core.clone();
    let next =
        tokio::spawn(
            async move { stdio_call(&core, "lab_set_flag", json!({"value": "later"})).await },
        );
    let req = rx2.recv().await.expect("asked again");
    assert_eq!(
        req.ask.arguments["expandedCommand"],
        json!("settings put global lab_other later")
    );
    req.answer(true);
    assert!(next.await.unwrap().result.is_ok());
}

/// Each own tool is a leaf of the access tree, and the device tree holds it back like any
/// tool of its branch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_own_tool_is_a_leaf_and_the_device_tree_holds_it() {
    let r = rig_with(false, Config::default_config()).await;
    declare(
        &r,
        "read.toml",
        r#"
[[tool]]
name = "lab_flag"
description = "Reads a flag."
level = "read-only"
command = "settings get global {key}"
output = "lines"
[tool.params.key]
type = "string"
pattern = "[a-z_]+"
"#,
    );
    let ok = stdio_call(&r.core, "lab_flag", json!({"key": "adb_enabled"})).await;
    assert!(ok.result.is_ok(), "{:?}", ok.result);
    let tool = r.core.tool("lab_flag").expect("loaded");
    r.core.access.set_enabled(&tool, false);
    let off = stdio_call(&r.core, "lab_flag", json!({"key": "adb_enabled"})).await;
    let e = off.result.expect_err("switched off");
    assert!(e.message.contains("lab_flag"), "{}", e.message);
    r.core.access.set_enabled(&tool, true);
    let identity = {
        let dev = stdio_call(&r.core, "android_list_devices", json!({})).await;
        dev.result.unwrap().json["devices"][0]["identity"]
            .as_str()
            .unwrap()
            .to_string()
    };
    r.core.access.set_device(&identity, false, false, None);
    let held = stdio_call(&r.core, "lab_flag", json!({"key": "adb_enabled"})).await;
    let e = held.result.expect_err("Inspect is off");
    assert!(e.message.contains("Inspect is off"), "{}", e.message);
}

/// Finding 1 of the black-box attack (docs/reviews/issue-39): a key=value reading split a
/// secret from the text a redaction rule recognises. The output is redacted as text first,
/// so the structured answer (and the record) hide it as the raw text would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_value_reading_keeps_what_redaction_hides() {
    let mut cfg = Config::default_config();
    cfg.redaction.rules = toml::from_str::<toml::Table>(
        r#"rules = [{ name = "pin", pattern = "pin: [0-9]+", scope = "everywhere" }]"#,
    )
    .ok()
    .and_then(|t| t.get("rules").cloned())
    .and_then(|r| r.try_into().ok())
    .expect("a rule");
    let r = rig_with(false, cfg).await;
    let put = r
        .dev
        .run_line(
            "echo 'password: hunter2xyz' > /sdcard/Download/creds.txt; echo 'pin: 2342' >> /sdcard/Download/creds.txt",
            Duration::from_secs(5),
        )
        .await
        .expect("ran");
    assert_eq!(put.code, 0);
    declare(
        &r,
        "creds.toml",
        r#"
[[tool]]
name = "lab_creds"
description = "Reads a key=value file."
level = "read-only"
command = "cat /sdcard/Download/{file}"
output = "kv"
separator = ":"
[tool.params.file]
type = "string"
pattern = "[a-z]+\\.txt"
"#,
    );
    let out = stdio_call(&r.core, "lab_creds", json!({"file": "creds.txt"})).await;
    let json = out.result.expect("ran").json.to_string();
    assert!(!json.contains("hunter2xyz"), "{json}");
    assert!(!json.contains("2342"), "{json}");
}
