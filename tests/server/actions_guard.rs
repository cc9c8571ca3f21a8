//! Hostile arguments to the safe-action tools are refused before any device is touched.
//!
//! Every case runs through the real call pipeline of a Core whose only adb server is a closed
//! port: a tool that reached for the device first would answer with a device error ("adb server
//! … is unreachable"), so a refusal here proves the check ran before the device layer.
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use spock_tui::app::{self, Options};
use spock_tui::config::{Config, Paths};
use spock_tui::device::AdbEndpoint;
use spock_tui::mcp::Core;
use spock_tui::mcp::events::Transport;
use spock_tui::mcp::logbuf::LogBuffer;
use spock_tui::mcp::result::ErrorKind;
use spock_tui::mcp::server::{CallRequest, Origin};

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

struct Env {
    core: Arc<Core>,
    project: PathBuf,
    outside: PathBuf,
    _dir: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("shop");
    std::fs::create_dir_all(project.join("app")).unwrap();
    std::fs::write(project.join("settings.gradle.kts"), "include(\":app\")\n").unwrap();
    std::fs::write(project.join("ok.txt"), "ok").unwrap();
    let outside = dir.path().join("secret.txt");
    std::fs::write(&outside, "not yours").unwrap();
    std::os::unix::fs::symlink(&outside, project.join("link.txt")).unwrap();
    let core = app::build_core(Options {
        paths: Paths::under(&dir.path().join("home")),
        config: Config::default_config(),
        allow_all: false,
        logs: LogBuffer::new(100),
        adb: vec![AdbEndpoint::local(closed_port())],
        projects: vec![project.clone()],
        autostart_adb: false,
        adb_explicit: true,
    })
    .expect("core");
    Env {
        project: project.canonicalize().unwrap(),
        outside,
        core,
        _dir: dir,
    }
}

async fn run(core: &Arc<Core>, tool: &str, args: Value) -> Result<Value, (ErrorKind, String)> {
    let origin = Origin {
        transport: Transport::Stdio,
        client: None,
        session: None,
    };
    let outcome = CallRequest::new(origin, tool, args)
        .run(core)
        .await
        .unwrap_or_else(|| panic!("{tool} is not registered"));
    outcome
        .result
        .map(|o| o.json)
        .map_err(|e| (e.kind, e.message))
}

fn cases(project: &Path, outside: &Path) -> Vec<(&'static str, Value)> {
    let ok = "ok.txt";
    let push = |dp: &str| {
        (
            "android_push_file",
            json!({ "localPath": ok, "devicePath": dp }),
        )
    };
    let pull = |dp: &str| ("android_pull_file", json!({ "devicePath": dp }));
    let src = |lp: &str| {
        (
            "android_push_file",
            json!({ "localPath": lp, "devicePath": "/sdcard/x" }),
        )
    };
    let launch = |p: &str| ("android_launch_app", json!({ "packageName": p }));
    let extra = |k: &str, v: Value| {
        (
            "android_open_intent",
            json!({ "action": "android.intent.action.VIEW", "extras": { k: v } }),
        )
    };
    let s = |v: &str| json!({ "type": "string", "value": v });
    vec![
        // Device paths escaping the allowed roots, as written or once decoded.
        push("/sdcard/../data/data/com.example.shop/x"),
        pull("/sdcard/../data/data/com.example.shop/databases/app.db"),
        push("/storage/emulated/0/../../data"),
        pull("/storage/emulated/0/../../data/system/users/0.xml"),
        pull("/sdcard/%2e%2e/data/data/x"),
        pull("/sdcard/%252e%252e/data/data/x"),
        pull("/sdcard/..%2f..%2fdata/x"),
        push("//data//data//com.example.shop//x"),
        pull("/data/local/tmp/../../../data/x"),
        pull("/data/data/com.example.shop/shared_prefs/p.xml"),
        pull("/proc/self/environ"),
        pull("sdcard/relative.txt"),
        pull("/sdcard/x\n/data/y"),
        pull("/sdcard\\..\\data\\x"),
        pull(""),
        // Local sources outside the project and the pull directory.
        src("/etc/passwd"),
        src("../secret.txt"),
        src("link.txt"),
        src(&outside.display().to_string()),
        src(&format!("{}/../secret.txt", project.display())),
        src("/proc/self/environ"),
        // Package and permission names carrying shell syntax or options.
        launch("com.example.shop;reboot"),
        launch("com.example.$(reboot)"),
        launch("com.example.`id`"),
        launch("com.example.shop\nreboot"),
        launch("com.example.shop' ; echo '"),
        launch("-e com.example.shop"),
        (
            "android_stop_app",
            json!({ "packageName": "com.x && rm -rf /sdcard" }),
        ),
        (
            "android_grant_permission",
            json!({ "packageName": "com.example.shop", "permission": "android.permission.CAMERA;reboot" }),
        ),
        // Intent parts: extras keys, values that must be URIs, actions, data, categories.
        extra("a;b", s("x")),
        extra("$(id)", s("x")),
        extra("`id`", s("x")),
        extra("-n", s("com.x/.Evil")),
        extra("k\nx", s("x")),
        extra("k'q", s("x")),
        extra("u", json!({ "type": "uri", "value": "x\" y" })),
        (
            "android_open_intent",
            json!({ "action": "android.intent.action.VIEW;reboot" }),
        ),
        (
            "android_open_intent",
            json!({ "action": "android.intent.action.VIEW", "data": "https://x/`id`" }),
        ),
        (
            "android_open_intent",
            json!({ "action": "android.intent.action.VIEW", "categories": ["$(id)"] }),
        ),
        (
            "android_open_deep_link",
            json!({ "uri": "shop://x'$(reboot)'" }),
        ),
        // Keys and text.
        ("android_press_key", json!({ "key": "HOME; reboot" })),
        ("android_press_key", json!({ "key": "`id`" })),
        ("android_input_text", json!({ "text": "håll" })),
        ("android_input_text", json!({ "text": "a\nreboot" })),
        ("android_input_text", json!({ "text": "" })),
        (
            "android_input_text_into_element",
            json!({ "element": "Email", "text": "x\u{7}" }),
        ),
        // AppFunctions.
        (
            "android_call_app_function",
            json!({ "packageName": "com.x;reboot", "functionId": "f" }),
        ),
        (
            "android_call_app_function",
            json!({ "packageName": "com.example.notes", "functionId": "$(id)" }),
        ),
        (
            "android_call_app_function",
            json!({ "packageName": "com.example.notes", "functionId": "-x" }),
        ),
        (
            "android_list_app_functions",
            json!({ "packageNames": ["a`id`"] }),
        ),
    ]
}

#[tokio::test]
async fn hostile_inputs_are_refused_before_the_device() {
    let e = env();
    let cases = cases(&e.project, &e.outside);
    assert!(cases.len() >= 30);
    let mut failures = Vec::new();
    for (tool, args) in &cases {
        match run(&e.core, tool, args.clone()).await {
            Err((ErrorKind::Refused | ErrorKind::InvalidArguments, _)) => {}
            other => failures.push(format!("{tool} {args}: {other:?}")),
        }
    }
    assert!(
        failures.is_empty(),
        "not refused up front:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn the_same_tools_with_good_arguments_do_reach_the_device_layer() {
    // Without this, a Core that never reached any device would pass the test above.
    let e = env();
    for (tool, args) in [
        (
            "android_push_file",
            json!({ "localPath": "ok.txt", "devicePath": "/sdcard/Download/ok.txt" }),
        ),
        (
            "android_pull_file",
            json!({ "devicePath": "/storage/emulated/0/Download/ok.txt" }),
        ),
        (
            "android_launch_app",
            json!({ "packageName": "com.example.shop" }),
        ),
        (
            "android_input_text",
            json!({ "text": "it's \"a\" $HOME; ls" }),
        ),
        ("android_press_key", json!({ "key": "KEYCODE_BACK" })),
        (
            "android_call_app_function",
            json!({ "packageName": "com.example.notes", "functionId": "createNote" }),
        ),
    ] {
        match run(&e.core, tool, args.clone()).await {
            Err((ErrorKind::Device, msg)) => assert!(msg.contains("unreachable"), "{tool}: {msg}"),
            other => panic!("{tool} {args}: expected the closed adb port, got {other:?}"),
        }
    }
}
