//! Screens uiautomator cannot read, as on a phone: one that never stays still (a video, a looping
//! animation, a spinner: `waitForIdle` gives up with "ERROR: could not get idle state.") and a
//! screen that is off ("ERROR: null root node returned by UiTestAutomationBridge."). AOSP
//! `DumpCommand` prints both on stderr and exits 0. The virtual device does the same; the tools
//! say what happened and what to do, a wait keeps polling through it, and an action that
//! happened still reports itself. And screens a screenshot cannot show: off, or an app that
//! forbids screenshots (`FLAG_SECURE`), which `screencap` captures black.
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::result::ErrorKind;
use spock_tui::sim::device::SimDevice;

use crate::support::device_rig;
use device_rig::{Rig, demo_with, rig_on, stdio_call};

/// How long the test scenario's `uiautomator dump` waits for idle before it gives up.
const IDLE_TIMEOUT_MS: u64 = 300;

/// The demo with its login screen never idle, and a short idle timeout.
fn busy_login() -> SimDevice {
    busy_login_for(IDLE_TIMEOUT_MS)
}

fn busy_login_for(idle_timeout_ms: u64) -> SimDevice {
    demo_with(
        |toml| {
            toml.replacen(
                "[device]\n",
                &format!("[device]\nidle_timeout_ms = {idle_timeout_ms}\n"),
                1,
            )
            .replacen("id = \"login\"\n", "id = \"login\"\nanimating = true\n", 1)
        },
        |login| login,
    )
}

/// A shell line on the virtual device itself, run to its end (20 s at most).
async fn shell_line(dev: &SimDevice, cmd: &str) -> spock_tui::sim::device::run::LineRun {
    dev.run_line(cmd, std::time::Duration::from_secs(20))
        .await
        .expect("shell command timed out")
}

/// A shell line on the virtual device itself: (stdout, stderr, exit code).
async fn sim_sh(dev: &SimDevice, cmd: &str) -> (String, String, i32) {
    let r = shell_line(dev, cmd).await;
    (r.text(), r.err, r.code)
}

/// A core on [`busy_login_for`], the shop launched (its busy login screen in front).
async fn launched_on_busy_login(idle_timeout_ms: u64) -> Rig {
    let r = rig_on(
        busy_login_for(idle_timeout_ms),
        false,
        Config::default_config(),
    )
    .await;
    launch_shop(&r).await;
    r
}

async fn launch_shop(r: &Rig) {
    call(
        r,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await
    .expect("launched");
}

async fn call(
    r: &Rig,
    tool: &str,
    args: Value,
) -> Result<Value, spock_tui::mcp::result::ToolError> {
    stdio_call(&r.core, tool, args).await.result.map(|o| o.json)
}

/// `details.reason` of a tool error.
fn reason(e: &spock_tui::mcp::result::ToolError) -> Option<&str> {
    e.details.as_ref()?.get("reason")?.as_str()
}

/// How many commands of `kind` the virtual device has run.
fn count(r: &Rig, kind: &str) -> u64 {
    r.faults()
        .pace
        .stats()
        .commands
        .get(kind)
        .map_or(0, |t| t.count)
}

fn dumps(r: &Rig) -> u64 {
    count(r, "uiautomator dump")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_virtual_device_answers_as_uiautomator_does_on_a_screen_that_never_stops() {
    let dev = busy_login();
    let (_, _, code) = sim_sh(&dev, "am start -W com.example.shop").await;
    assert_eq!(code, 0);
    let t = Instant::now();
    let (out, err, code) = sim_sh(&dev, "uiautomator dump /dev/tty").await;
    // It waited for idle until its timeout, then gave up: no hierarchy, exit 0.
    assert!(t.elapsed() >= Duration::from_millis(IDLE_TIMEOUT_MS));
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("", "ERROR: could not get idle state.\n", 0)
    );
    // The screen itself is there: a screenshot works.
    let (png, _, code) = sim_sh(&dev, "screencap -p").await;
    assert_eq!(code, 0);
    assert!(png.len() > 1000);

    // Off: no window to read.
    sim_sh(&dev, "input keyevent KEYCODE_HOME").await;
    sim_sh(&dev, "input keyevent SLEEP").await;
    let (out, err, code) = sim_sh(&dev, "uiautomator dump /dev/tty").await;
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        (
            "",
            "ERROR: null root node returned by UiTestAutomationBridge.\n",
            0
        )
    );
    sim_sh(&dev, "input keyevent WAKEUP").await;
    let (out, _, _) = sim_sh(&dev, "uiautomator dump /dev/tty").await;
    assert!(out.contains("<hierarchy"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screen_that_never_stops_gets_a_plain_error_and_the_action_still_reports_itself() {
    let r = rig_on(busy_login(), false, Config::default_config()).await;
    // The launch happened; only the screen it settled on could not be read.
    let launched = call(
        &r,
        "android_launch_app",
        json!({"packageName": "com.example.shop", "returnScreen": "tree"}),
    )
    .await
    .expect("the launch itself succeeds");
    assert_eq!(launched["package"], "com.example.shop", "{launched}");
    let why = launched["screenError"].as_str().unwrap_or_default();
    assert!(why.contains("never stayed still"), "{launched}");
    assert!(launched.get("screen").is_none(), "{launched}");

    let e = call(&r, "android_get_ui_tree", json!({}))
        .await
        .expect_err("nothing to read");
    assert_eq!(e.kind, ErrorKind::Device);
    assert!(
        e.message.contains("never stayed still") && e.message.contains("android_take_screenshot"),
        "{}",
        e.message
    );
    assert_eq!(reason(&e), Some("not_idle"));
    // An element action cannot find its element either, and says why, with nothing sent.
    let before = count(&r, "input");
    let e = call(&r, "android_tap_element", json!({"element": "Sign in"}))
        .await
        .expect_err("no tree to find it on");
    assert!(e.message.contains("never stayed still"), "{}", e.message);
    let after = count(&r, "input");
    assert_eq!(before, after, "nothing was tapped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_keeps_polling_through_a_screen_it_cannot_read_and_says_so() {
    let r = launched_on_busy_login(IDLE_TIMEOUT_MS).await;
    let e = call(
        &r,
        "android_wait_for_element",
        json!({"element": "Sign in", "timeoutMs": 700}),
    )
    .await
    .expect_err("never readable");
    assert_eq!(e.kind, ErrorKind::Timeout, "{}", e.message);
    let details = e.details.clone().unwrap_or_default();
    let (polls, unread) = (details["polls"].as_u64(), details["unread"].as_u64());
    assert!(
        polls >= Some(2),
        "it polled again after the first unreadable screen: {details}"
    );
    assert_eq!(polls, unread, "{details}");
    assert!(e.message.contains("never stayed still"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screen_that_is_off_is_asked_twice_then_named() {
    let r = rig_on(SimDevice::demo(), false, Config::default_config()).await;
    sim_sh(&r.dev, "input keyevent SLEEP").await;
    let before = dumps(&r);
    let e = call(&r, "android_get_ui_tree", json!({}))
        .await
        .expect_err("no window");
    assert_eq!(dumps(&r) - before, 2, "asked once more after a null root");
    assert!(
        e.message.contains("no window to read") && e.message.contains("WAKEUP"),
        "{}",
        e.message
    );
    assert_eq!(reason(&e), Some("no_window"));
    sim_sh(&r.dev, "input keyevent WAKEUP").await;
    let tree = call(&r, "android_get_ui_tree", json!({}))
        .await
        .expect("awake again");
    assert!(tree.to_string().contains("Shop"), "{tree}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_that_needs_the_tree_is_withheld_with_the_reason() {
    let r = launched_on_busy_login(IDLE_TIMEOUT_MS).await;
    assert!(
        r.core
            .redactor
            .has_rules_for(spock_tui::redact::Audience::Agent),
        "the default rules hide something from agents"
    );
    let e = call(&r, "android_take_screenshot", json!({}))
        .await
        .expect_err("withheld");
    assert!(
        e.message.contains("withheld") && e.message.contains("never stayed still"),
        "{}",
        e.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_virtual_device_lets_one_ui_automation_connect_at_a_time() {
    let dev = busy_login();
    sim_sh(&dev, "am start -W com.example.shop").await;
    let first = {
        let dev = dev.clone();
        tokio::spawn(async move { sim_sh(&dev, "uiautomator dump /dev/tty").await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (out, err, code) = sim_sh(&dev, "uiautomator dump /dev/tty").await;
    assert_eq!((out.as_str(), code), ("", 1), "{err}");
    assert!(
        err.starts_with("java.lang.IllegalStateException: UiAutomationService ")
            && err.contains("already registered!"),
        "{err}"
    );
    let (_, err, _) = first.await.expect("first dump");
    assert_eq!(err, "ERROR: could not get idle state.\n");
    // A dump dropped while it waits lets go of the bridge too.
    let dropped = {
        let dev = dev.clone();
        tokio::spawn(async move { sim_sh(&dev, "uiautomator dump /dev/tty").await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    dropped.abort();
    let _ = dropped.await;
    sim_sh(&dev, "input keyevent KEYCODE_HOME").await;
    let (out, err, code) = sim_sh(&dev, "uiautomator dump /dev/tty").await;
    assert!(code == 0 && out.contains("<hierarchy"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_reads_at_once_take_turns_instead_of_colliding() {
    // Longer than the retry's pause, so a collision would still be there when asked again.
    let r = launched_on_busy_login(1500).await;
    let (a, b) = tokio::join!(
        call(&r, "android_get_ui_tree", json!({})),
        call(&r, "android_get_ui_tree", json!({}))
    );
    for e in [a.expect_err("not idle"), b.expect_err("not idle")] {
        assert_eq!(reason(&e), Some("not_idle"), "{}", e.message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_ui_automation_holding_the_bridge_is_named() {
    let r = launched_on_busy_login(3000).await;
    // Another tool's dump holds the bridge (it waits for an idle that never comes).
    let other = {
        let dev = r.dev.clone();
        tokio::spawn(async move { sim_sh(&dev, "uiautomator dump /dev/tty").await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let before = dumps(&r);
    let e = call(&r, "android_get_ui_tree", json!({}))
        .await
        .expect_err("the bridge is taken");
    assert_eq!(dumps(&r) - before, 2, "asked once more");
    assert_eq!(reason(&e), Some("automation_busy"));
    assert!(e.message.contains("another UI automation"), "{}", e.message);
    other.abort();
}

/// The demo with its login screen protected (`FLAG_SECURE`).
fn secure_login() -> SimDevice {
    demo_with(
        |toml| toml.replacen("id = \"login\"\n", "id = \"login\"\nsecure = true\n", 1),
        |login| login,
    )
}

/// Whether every pixel of a PNG is opaque black.
fn png_all_black(png: &[u8]) -> bool {
    let img = image::load_from_memory(png).expect("a PNG").to_rgba8();
    img.pixels().all(|p| p.0 == [0, 0, 0, 255])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_virtual_device_captures_a_protected_or_dark_screen_black() {
    let dev = secure_login();
    let shot = shell_line(&dev, "screencap -p").await;
    assert!(!png_all_black(&shot.out), "the launcher shows");
    shell_line(&dev, "am start -W com.example.shop").await;
    let shot = shell_line(&dev, "screencap -p").await;
    assert!(
        png_all_black(&shot.out),
        "a FLAG_SECURE window is captured black"
    );
    let raw = shell_line(&dev, "screencap").await;
    assert_eq!(raw.out.len(), 16 + 1080 * 2400 * 4);
    assert!(raw.out[16..].chunks_exact(4).all(|p| p == [0, 0, 0, 255]));
    // uiautomator still reads it.
    let (out, _, _) = sim_sh(&dev, "uiautomator dump /dev/tty").await;
    assert!(out.contains("login_email"), "{out}");

    shell_line(&dev, "input keyevent KEYCODE_HOME").await;
    let shot = shell_line(&dev, "screencap -p").await;
    assert!(!png_all_black(&shot.out));
    shell_line(&dev, "input keyevent SLEEP").await;
    let shot = shell_line(&dev, "screencap -p").await;
    assert!(png_all_black(&shot.out), "the screen off is black");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_black_screenshot_says_why_it_may_be_black() {
    let r = rig_on(secure_login(), false, Config::default_config()).await;
    let home = call(&r, "android_take_screenshot", json!({}))
        .await
        .expect("the launcher");
    assert!(home.get("warning").is_none(), "{home}");
    // An action's screenshot says so too (in screenError: the tree itself came back).
    let launched = call(
        &r,
        "android_launch_app",
        json!({"packageName": "com.example.shop", "returnScreen": "both"}),
    )
    .await
    .expect("launched");
    let said = launched["screenError"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("screenshot: ") && said.contains("black"),
        "{launched}"
    );
    assert!(
        launched["screen"]
            .as_str()
            .is_some_and(|s| s.contains("login_email")),
        "{launched}"
    );
    let shot = call(&r, "android_take_screenshot", json!({}))
        .await
        .expect("a black image is still an image");
    let warning = shot["warning"].as_str().unwrap_or_default();
    assert!(
        warning.contains("black") && warning.contains("FLAG_SECURE") && warning.contains("WAKEUP"),
        "{shot}"
    );
    // The tree is there all the same.
    let tree = call(&r, "android_get_ui_tree", json!({}))
        .await
        .expect("readable");
    assert!(tree.to_string().contains("login_email"), "{tree}");
}
