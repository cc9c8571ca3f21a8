//! Fewer device commands per step, never a stale answer: the UI dump an action takes to settle
//! is the next read's answer only while nothing was sent to the device since, whoever sent it.
//! The demo's login and home are both `com.example.shop/.MainActivity` (one window, one focus),
//! so anything that judged "unchanged" from the activity or focus would answer home with the
//! login tree; these tests count the virtual device's `uiautomator dump` commands to see what
//! was reused.
use std::sync::Arc;

use serde_json::{Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::Core;

use crate::support::device_rig;
use device_rig::{Rig, demo_with, rig_on, rig_with, stdio_call};

async fn ok(core: &Arc<Core>, tool: &str, args: Value) -> Value {
    let done = stdio_call(core, tool, args).await;
    match done.result {
        Ok(out) => out.json,
        Err(e) => panic!("{tool}: {}", e.message),
    }
}

fn dumps(rig: &Rig) -> u64 {
    let s = rig.faults().pace.stats();
    s.commands.get("uiautomator dump").map_or(0, |t| t.count)
}

async fn on_login(rig: &Rig) {
    ok(
        &rig.core,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    assert_eq!(rig.dev.screen_id(), "login");
}

/// Types the demo account (me@example.com / hunter2) into the login screen's fields: the shop
/// refuses Sign in while they are empty or wrong.
async fn type_account(rig: &Rig) {
    let r = ok(
        &rig.core,
        "android_input_text_into_element",
        json!({"element": "login_email", "text": "me@example.com",
               "fields": [{"element": "login_password", "text": "hunter2"}]}),
    )
    .await;
    assert_eq!(r["verified"], true, "{r}");
}

/// On the login screen, read with `android_get_ui_tree` (the counts zeroed after it), then
/// typed into with `args`.
async fn typed_after_a_read(args: Value) -> (Rig, Value) {
    let rig = rig_with(false, Config::default_config()).await;
    on_login(&rig).await;
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    rig.faults().pace.reset_stats();
    let r = ok(&rig.core, "android_input_text_into_element", args).await;
    (rig, r)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_screens_of_one_activity_never_answer_for_each_other() {
    let rig = rig_with(false, Config::default_config()).await;
    on_login(&rig).await;
    type_account(&rig).await;
    // Settle on the login screen: its dump is now the freshest the server holds.
    let r = ok(
        &rig.core,
        "android_perform_action",
        json!({"element": "login_email", "action": "focus", "returnScreen": "tree"}),
    )
    .await;
    assert!(r["screen"].to_string().contains("login_password"), "{r}");
    // Sign in by coordinates: same activity, same window, same focus afterwards.
    let (x, y) = (540, 1075);
    ok(&rig.core, "android_tap", json!({"x": x, "y": y})).await;
    assert_eq!(rig.dev.screen_id(), "home");
    let act = ok(&rig.core, "android_get_current_activity", json!({})).await;
    assert!(act.to_string().contains("MainActivity"), "{act}");
    let tree = ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    let shown = tree.to_string();
    assert!(
        shown.contains("Espresso Machine") && !shown.contains("login_password"),
        "home must be read from the device, not the login dump: {shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_settle_dump_is_the_next_read_once_and_only_while_nothing_was_sent() {
    let rig = rig_with(false, Config::default_config()).await;
    on_login(&rig).await;
    type_account(&rig).await;
    ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "Sign in", "returnScreen": "tree"}),
    )
    .await;
    assert_eq!(rig.dev.screen_id(), "home");
    rig.faults().pace.reset_stats();

    // The next action resolves its element on the settle dump: one dump (its own settle).
    let r = ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "Espresso Machine", "returnScreen": "tree"}),
    )
    .await;
    assert_eq!(rig.dev.screen_id(), "product");
    assert!(r["screen"].to_string().contains("Add to cart"), "{r}");
    assert_eq!(dumps(&rig), 1, "resolved on the previous settle dump");

    // A read right after takes that settle dump; the read after that goes to the device.
    let t = ok(
        &rig.core,
        "android_find_ui_element",
        json!({"element": "Add to cart"}),
    )
    .await;
    assert_eq!(t["count"], 1, "{t}");
    assert_eq!(dumps(&rig), 1);
    ok(
        &rig.core,
        "android_find_ui_element",
        json!({"element": "Add to cart"}),
    )
    .await;
    assert_eq!(dumps(&rig), 2, "a settle dump answers one read only");

    // Anything sent in between (here a key event from another tool) makes it stale.
    ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "Add to cart", "returnScreen": "tree"}),
    )
    .await;
    assert_eq!(rig.dev.screen_id(), "product_added");
    ok(&rig.core, "android_press_key", json!({"key": "BACK"})).await;
    let before = dumps(&rig);
    let t = ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    assert_eq!(
        dumps(&rig),
        before + 1,
        "read from the device after the key event"
    );
    assert!(!t.to_string().contains("View cart"), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_reuses_its_verification_dump_and_waits_on_no_fixed_sleep_to_settle() {
    let (rig, r) = typed_after_a_read(
        json!({"element": "login_email", "text": "me@example.com", "returnScreen": "tree"}),
    )
    .await;
    assert_eq!(r["verified"], true, "{r}");
    assert!(r["screen"].to_string().contains("me@example.com"), "{r}");
    // Resolution on the dump get_ui_tree just showed (nothing sent since), one verification
    // dump that is also the screen sent back.
    assert_eq!(dumps(&rig), 1, "{:?}", rig.faults().pace.stats());
    let r = ok(
        &rig.core,
        "android_input_text_into_element",
        json!({"element": "login_password", "text": "hunter2"}),
    )
    .await;
    assert_eq!(r["verified"], true, "{r}");
    assert_eq!(dumps(&rig), 2, "resolved on the previous verification dump");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_answers_the_next_action_but_never_another_read() {
    let rig = rig_with(false, Config::default_config()).await;
    on_login(&rig).await;
    rig.faults().pace.reset_stats();
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    assert_eq!(dumps(&rig), 2, "a second read asks the device");
    // Something sent after the read: the action resolves on a dump taken now.
    ok(&rig.core, "android_press_key", json!({"key": "BACK"})).await;
    on_login(&rig).await;
    type_account(&rig).await;
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    // Sent after the read (the same screen again): the read's dump no longer answers.
    on_login(&rig).await;
    let before = dumps(&rig);
    ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "Sign in"}),
    )
    .await;
    assert_eq!(dumps(&rig), before + 1, "stale read dump not reused");
    assert_eq!(rig.dev.screen_id(), "home");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_filled_in_one_call_is_read_back_once_and_that_read_answers_the_next_action() {
    let (rig, r) = typed_after_a_read(json!({"element": "login_email", "text": "me@example.com",
        "fields": [{"element": "login_password", "text": "hunter2"}], "returnScreen": "tree"}))
    .await;
    assert_eq!(r["verified"], true, "{r}");
    let screen = r["screen"].as_str().unwrap_or_default();
    assert!(
        screen.contains("me@example.com") && !screen.contains("hunter2"),
        "{r}"
    );
    // Both fields found on the dump the read showed; one read-back for the two.
    assert_eq!(dumps(&rig), 1, "{:?}", rig.faults().pace.stats());
    let inputs = rig.faults().pace.stats();
    let inputs = inputs.commands.get("input").map_or(0, |t| t.count);
    assert_eq!(inputs, 4, "a tap and the text for each field");
    ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "Sign in"}),
    )
    .await;
    assert_eq!(dumps(&rig), 1, "Sign in was found on the read-back");
    assert_eq!(rig.dev.screen_id(), "home");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_is_refused_whole_before_anything_is_typed() {
    let rig = rig_with(false, Config::default_config()).await;
    on_login(&rig).await;
    rig.faults().pace.reset_stats();
    for (args, why) in [
        (
            json!({"element": "login_email", "text": "a",
                   "fields": [{"element": "login_email", "text": "b"}]}),
            "same field",
        ),
        (
            json!({"element": "login_email", "text": "a", "submit": true,
                   "fields": [{"element": "login_password", "text": "b"}]}),
            "submit applies to one field",
        ),
        (
            json!({"element": "login_email", "text": "a",
                   "fields": [{"element": "nowhere_at_all", "text": "b"}]}),
            "",
        ),
        (
            json!({"element": "login_email", "text": "a",
                   "fields": (0..10).map(|_| json!({"element": "x", "text": "y"})).collect::<Vec<_>>()}),
            "at most 10 fields",
        ),
    ] {
        let done = stdio_call(&rig.core, "android_input_text_into_element", args).await;
        let e = done.result.expect_err("refused");
        assert!(e.message.contains(why), "{}", e.message);
    }
    let stats = rig.faults().pace.stats();
    assert!(!stats.commands.contains_key("input"), "{stats:?}");
    let email = spock_tui::uitree::parse(&rig.dev.ui_xml()).expect("a dump");
    assert!(
        email
            .nodes()
            .iter()
            .all(|n| n.resource_id != "login_email" || n.text.is_empty()),
        "nothing typed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_field_is_refused_before_anything_is_typed() {
    let dev = device_rig::demo_with_login(|xml| {
        let field = xml
            .find(r#"resource-id="login_password""#)
            .expect("the field");
        let end = field + xml[field..].find(" />").expect("its end");
        let node = xml[field..end].replace(r#"enabled="true""#, r#"enabled="false""#);
        format!("{}{node}{}", &xml[..field], &xml[end..])
    });
    let rig = device_rig::rig_on(dev, false, Config::default_config()).await;
    on_login(&rig).await;
    // The e-mail field has the focus: text for the disabled field would land there.
    ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "login_email"}),
    )
    .await;
    rig.faults().pace.reset_stats();
    for args in [
        json!({"element": "login_password", "text": "hunter2"}),
        json!({"element": "login_email", "text": "me@example.com",
               "fields": [{"element": "login_password", "text": "hunter2"}]}),
    ] {
        let done = stdio_call(&rig.core, "android_input_text_into_element", args).await;
        let e = done.result.expect_err("refused");
        assert!(e.message.contains("disabled"), "{}", e.message);
    }
    let stats = rig.faults().pace.stats();
    assert!(!stats.commands.contains_key("input"), "{stats:?}");
}

/// A scroll waits on no fixed sleep: the dump after its swipe (which waits for the fling to
/// stop on a phone) is the one `returnScreen` sends back, and its container is found on the
/// screen a read just showed, even when that read was answered by the last settle dump.
/// Scrolling to an element already in view sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scroll_dumps_once_after_its_swipe_and_that_dump_is_the_screen_sent_back() {
    let rig = rig_with(false, Config::default_config()).await;
    on_login(&rig).await;
    type_account(&rig).await;
    ok(
        &rig.core,
        "android_tap_element",
        json!({"element": "sign_in"}),
    )
    .await;
    assert_eq!(rig.dev.screen_id(), "home");
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    rig.faults().pace.reset_stats();
    let r = ok(
        &rig.core,
        "android_scroll",
        json!({"direction": "forward", "returnScreen": "tree"}),
    )
    .await;
    assert!(r["screen"].to_string().contains("Espresso Machine"), "{r}");
    let stats = rig.faults().pace.stats();
    assert_eq!(dumps(&rig), 1, "{stats:?}");
    assert_eq!(stats.commands["input"].count, 1, "{stats:?}");
    // A read of that screen is answered by the scroll's dump and, shown to the agent, answers
    // the next scroll's lookup: read and scroll, one dump (after the swipe).
    rig.faults().pace.reset_stats();
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    assert_eq!(dumps(&rig), 0);
    ok(
        &rig.core,
        "android_scroll",
        json!({"direction": "forward", "returnScreen": "tree"}),
    )
    .await;
    assert_eq!(dumps(&rig), 1, "{:?}", rig.faults().pace.stats());
    // A second read asks the device.
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    ok(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
    assert_eq!(dumps(&rig), 2, "{:?}", rig.faults().pace.stats());
    // Scrolling to what is in view resolves on the scroll's kept dump and sends no swipe;
    // its own returnScreen is one dump.
    rig.faults().pace.reset_stats();
    let r = ok(
        &rig.core,
        "android_scroll_to_element",
        json!({"element": "Travel Mug", "returnScreen": "tree"}),
    )
    .await;
    assert_eq!(r["scrolls"], 0, "{r}");
    let stats = rig.faults().pace.stats();
    assert!(!stats.commands.contains_key("input"), "{stats:?}");
    assert_eq!(dumps(&rig), 1, "{stats:?}");
}

/// The image an agent gets from a call.
async fn image(core: &Arc<Core>, tool: &str, args: Value) -> Vec<u8> {
    let done = stdio_call(core, tool, args).await;
    match done.result {
        Ok(mut out) => {
            assert_eq!(out.images.len(), 1, "{tool}: {}", out.json);
            out.images.remove(0).data
        }
        Err(e) => panic!("{tool}: {}", e.message),
    }
}

/// The attack: on a phone a change of screen animates; `uiautomator dump` waits for it to end,
/// `screencap` does not. An agent that leaves a screen holding what redaction hides from it
/// (here "Welcome back", an agent-only rule) and asks for a screenshot at once would, if the
/// capture ran alongside the dump, get the frame of the screen it left with the blackout
/// placed from the screen it arrived on: nowhere. Both ways of asking get the settled screen,
/// the same image a screenshot taken long after gives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_after_an_animated_change_of_screen_is_the_settled_screen() {
    let mut config = Config::default_config();
    config
        .redaction
        .rules
        .push(spock_tui::redact::RedactionRule {
            name: "greeting".into(),
            pattern: "Welcome back".into(),
            scope: spock_tui::redact::Scope::AgentOnly,
        });
    let animated = || {
        demo_with(
            |toml| toml.replacen("[device]\n", "[device]\ntransition_ms = 1200\n", 1),
            |xml| xml,
        )
    };
    for (way, returned) in [
        ("returnScreen both", true),
        ("a screenshot right after", false),
    ] {
        let rig = rig_on(animated(), false, config.clone()).await;
        on_login(&rig).await;
        type_account(&rig).await;
        // The launch's own animation is waited out by a read.
        let login = ok(&rig.core, "android_get_ui_tree", json!({})).await;
        assert!(
            login.to_string().contains("«redacted:greeting»"),
            "hidden from the agent: {login}"
        );
        let shot = if returned {
            image(
                &rig.core,
                "android_tap_element",
                json!({"element": "sign_in", "returnScreen": "both"}),
            )
            .await
        } else {
            ok(
                &rig.core,
                "android_tap_element",
                json!({"element": "sign_in"}),
            )
            .await;
            image(&rig.core, "android_take_screenshot", json!({})).await
        };
        assert_eq!(rig.dev.screen_id(), "home");
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let settled = image(&rig.core, "android_take_screenshot", json!({})).await;
        assert!(
            shot == settled,
            "{way}: the image is not the settled home screen (the login frame, greeting unhidden?)"
        );
    }
}
