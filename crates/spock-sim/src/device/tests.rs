//! The demo shop's whole task, as the benches drive it: sign in, open a product, add it to the
//! cart (a transition to another screen of the same activity), and see the cart total change;
//! `shop` goes through everything else the shop app does.
use std::time::Duration;

use tokio::sync::mpsc;

use super::SimDevice;
use crate::{ShellChunk, ShellIo, Target};

mod shop;

async fn sh(dev: &SimDevice, cmd: &str) -> String {
    let (_stdin_tx, stdin) = mpsc::channel(1);
    let (tx, mut rx) = mpsc::channel(64);
    let fut = dev.shell(cmd.to_string(), ShellIo { stdin, out: tx });
    let code = tokio::time::timeout(Duration::from_secs(20), fut)
        .await
        .expect("shell command timed out");
    let mut out = Vec::new();
    while let Ok(ShellChunk::Stdout(b)) = rx.try_recv() {
        out.extend_from_slice(&b);
    }
    assert_eq!(code, 0, "{cmd}");
    String::from_utf8_lossy(&out).into_owned()
}

/// Tap the centre of the first node whose attributes contain `needle`.
async fn tap(dev: &SimDevice, needle: &str) {
    let xml = dev.ui_xml();
    let start = xml
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not on screen"));
    let tail = &xml[start..];
    let b = tail.find("bounds=\"[").unwrap() + 9;
    let end = tail[b..].find('"').unwrap();
    let n: Vec<i32> = tail[b..b + end - 1]
        .split([',', '[', ']'])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    sh(
        dev,
        &format!("input tap {} {}", (n[0] + n[2]) / 2, (n[1] + n[3]) / 2),
    )
    .await;
}

/// Types `email` and `password` into the login screen's fields, as a person would.
async fn fill_login(dev: &SimDevice, email: &str, password: &str) {
    for (field, text) in [("login_email", email), ("login_password", password)] {
        tap(dev, &format!("resource-id=\"{field}\"")).await;
        if !text.is_empty() {
            sh(dev, &format!("input text '{text}'")).await;
        }
    }
}

/// Fills the login screen in and taps Sign in.
async fn sign_in(dev: &SimDevice, email: &str, password: &str) {
    fill_login(dev, email, password).await;
    tap(dev, "text=\"Sign in\"").await;
}

#[tokio::test]
async fn sign_in_add_to_cart_and_the_total_changes() {
    let dev = SimDevice::demo();
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    assert_eq!(dev.screen_id(), "login");
    sign_in(&dev, "me@example.com", "hunter2").await;
    assert_eq!(dev.screen_id(), "home");

    tap(&dev, "text=\"Cart\"").await;
    let xml = dev.ui_xml();
    assert!(xml.contains("Your cart is empty") && xml.contains("Total: $0.00"));
    sh(&dev, "input keyevent KEYCODE_BACK").await;
    assert_eq!(dev.screen_id(), "home");

    tap(&dev, "text=\"Espresso Machine\"").await;
    assert_eq!(dev.screen_id(), "product");
    tap(&dev, "text=\"Add to cart\"").await;
    assert_eq!(dev.screen_id(), "product_added");
    let xml = dev.ui_xml();
    assert!(xml.contains("Added to cart") && !xml.contains("text=\"Add to cart\""));
    assert_eq!(
        dev.foreground().1,
        "com.example.shop.ProductActivity",
        "the same activity as before the tap"
    );
    assert!(
        sh(&dev, "logcat -d")
            .await
            .contains("added to cart: Espresso Machine")
    );

    tap(&dev, "resource-id=\"view_cart\"").await;
    assert_eq!(dev.screen_id(), "cart");
    let xml = dev.ui_xml();
    assert!(
        xml.contains("Total: $249.00") && !xml.contains("$0.00"),
        "{xml}"
    );
}

/// A focused field edits at its cursor, as an `EditText` does: a tap leaves it at the end,
/// MOVE_HOME / MOVE_END / DPAD_LEFT / DPAD_RIGHT move it, DEL deletes the character before it
/// and FORWARD_DEL the one after it, and typing goes in at it.
#[tokio::test]
async fn a_field_edits_at_its_cursor() {
    let dev = SimDevice::demo();
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    tap(&dev, "resource-id=\"login_email\"").await;
    sh(&dev, "input text abcdef").await;
    let text = |dev: &SimDevice| {
        let xml = dev.ui_xml();
        let end = xml.find("\" resource-id=\"login_email\"").unwrap();
        let start = xml[..end].rfind("text=\"").unwrap() + 6;
        xml[start..end].to_string()
    };
    for (keys, want) in [
        ("DEL", "abcde"),
        ("MOVE_HOME FORWARD_DEL", "bcde"),
        ("DEL", "bcde"),
        ("DPAD_RIGHT DPAD_RIGHT DEL", "bde"),
        ("FORWARD_DEL", "be"),
        ("MOVE_END FORWARD_DEL", "be"),
        ("DPAD_LEFT DEL", "e"),
    ] {
        for k in keys.split(' ') {
            sh(&dev, &format!("input keyevent {k}")).await;
        }
        assert_eq!(text(&dev), want, "{keys}");
    }
    sh(&dev, "input text xy").await;
    assert_eq!(text(&dev), "xye", "typed at the cursor");
    tap(&dev, "resource-id=\"login_email\"").await;
    sh(&dev, "input text Z").await;
    assert_eq!(text(&dev), "xyeZ", "a tap puts the cursor at the end");
}

/// With `transition_ms`, a change of screen animates: `screencap` keeps showing the screen
/// that was there until it ends, and `uiautomator dump` (which waits for idle) answers only
/// once it has ended, with the new screen.
#[tokio::test]
async fn a_change_of_screen_animates_on_the_glass_and_the_dump_waits_it_out() {
    use super::{DEMO_TOML, demo_file};
    let toml = DEMO_TOML.replacen("[device]\n", "[device]\ntransition_ms = 600\n", 1);
    let scen = crate::scenario::Scenario::parse(&toml, "demo.toml", &demo_file).unwrap();
    assert_eq!(scen.device.transition_ms, 600);
    let dev = SimDevice::from_scenario(scen);
    async fn png(dev: &SimDevice) -> Vec<u8> {
        let (_stdin_tx, stdin) = mpsc::channel(1);
        let (tx, mut rx) = mpsc::channel(64);
        dev.shell("screencap -p".into(), ShellIo { stdin, out: tx })
            .await;
        let mut out = Vec::new();
        while let Ok(ShellChunk::Stdout(b)) = rx.try_recv() {
            out.extend_from_slice(&b);
        }
        out
    }
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    // Typing is no change of screen: nothing animates.
    fill_login(&dev, "me@example.com", "hunter2").await;
    let login = png(&dev).await;
    // Timed from the tap: a slow machine only makes the wait look longer.
    let t = std::time::Instant::now();
    tap(&dev, "text=\"Sign in\"").await;
    assert_eq!(dev.screen_id(), "home", "the app moved at once");
    assert!(
        png(&dev).await == login,
        "the glass still shows the login screen"
    );
    let dump = sh(&dev, "uiautomator dump /dev/tty").await;
    assert!(
        t.elapsed() >= Duration::from_millis(550),
        "the dump waited out the 600 ms transition: {:?}",
        t.elapsed()
    );
    assert!(
        !dump.contains("login_email"),
        "the dump is the settled home screen"
    );
    assert!(
        png(&dev).await != login,
        "once settled the glass shows home"
    );
    assert_eq!(dev.inner.lock().settling_left(), None);
    // Typing is no change of screen: nothing animates.
    tap(&dev, "text=\"Cart\"").await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    sh(&dev, "input keyevent KEYCODE_BACK").await;
    assert!(
        dev.inner.lock().settling_left().is_some(),
        "back is a change of screen"
    );
}
