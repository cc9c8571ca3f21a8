//! The demo shop's whole task, as the benches drive it: sign in, open a product, add it to the
//! cart (a transition to another screen of the same activity), and see the cart total change.
use std::time::Duration;

use tokio::sync::mpsc;

use super::SimDevice;
use crate::{ShellChunk, ShellIo, Target};

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

#[tokio::test]
async fn sign_in_add_to_cart_and_the_total_changes() {
    let dev = SimDevice::demo();
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    assert_eq!(dev.screen_id(), "login");
    tap(&dev, "resource-id=\"login_email\"").await;
    sh(&dev, "input text me@example.com").await;
    tap(&dev, "resource-id=\"login_password\"").await;
    sh(&dev, "input text hunter2").await;
    tap(&dev, "text=\"Sign in\"").await;
    assert_eq!(dev.screen_id(), "home");

    tap(&dev, "text=\"Cart\"").await;
    assert!(dev.ui_xml().contains("Total: $268.00"));
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
    assert_eq!(dev.screen_id(), "cart_added");
    let xml = dev.ui_xml();
    assert!(xml.contains("Total: $517.00") && !xml.contains("$268.00"));
}
