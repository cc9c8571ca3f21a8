//! On a real React Native login screen (WebdriverIO's demo app), with the field the text went
//! into focused and holding what the field would hold.
use serde_json::json;

use super::*;
use crate::mcp::typed_text::{PASSWORD_PLACEHOLDER, Target};

const LOGIN: &str =
    include_str!("../../../../../../tests/fixtures/uiautomator/rn-wdio-login-edittext.xml");

/// The login screen with the field whose content-desc is `desc` focused and holding `text`.
fn typed_into(desc: &str, text: &str) -> UiTree {
    let marker = format!("content-desc=\"{desc}\"");
    let hint = if desc.ends_with("password") {
        "Password"
    } else {
        "Email"
    };
    // The capture is one line: each node is a `<node` segment of it.
    let xml = LOGIN
        .split("<node")
        .map(|l| {
            if l.contains(&marker) {
                l.replace("focused=\"false\"", "focused=\"true\"").replacen(
                    &format!("text=\"{hint}\""),
                    &format!("text=\"{text}\""),
                    1,
                )
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("<node");
    crate::uitree::parse(&xml).expect("the fixture parses")
}

/// The screen generation the tests type and read at.
const GEN: u64 = 4;

fn login() -> UiTree {
    crate::uitree::parse(LOGIN).expect("the fixture parses")
}

fn waiting(a: &AwaitingRead, call: u64, text: &str) -> Arc<TypedText> {
    let t = Arc::new(TypedText::of(true, &json!({"text": text})));
    a.typed("dev", GEN, call, t.clone(), text);
    t
}

#[test]
fn a_read_showing_a_focused_plain_field_that_holds_the_text_shows_it() {
    let a = AwaitingRead::default();
    let t = waiting(&a, 7, "bob@example.com");
    // Another device's read decides nothing here.
    assert!(
        a.read(
            "other",
            GEN,
            GEN,
            &typed_into("input-email", "bob@example.com")
        )
        .is_empty()
    );
    assert!(t.withholds());
    let shown = a.read(
        "dev",
        GEN,
        GEN,
        &typed_into("input-email", "bob@example.com"),
    );
    assert_eq!(shown, vec![(7, json!({"text": "bob@example.com"}))]);
    assert_eq!(t.target(0), Target::Plain);
    // Decided once: a later read does not show it again.
    assert!(
        a.read(
            "dev",
            GEN,
            GEN,
            &typed_into("input-email", "bob@example.com")
        )
        .is_empty()
    );
}

#[test]
fn a_focused_password_field_keeps_the_text_hidden_for_good() {
    let a = AwaitingRead::default();
    let t = waiting(&a, 1, "hunter2");
    // A password field shows dots, never the text: its flag decides.
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-password", "•••••••"))
            .is_empty()
    );
    assert_eq!(t.target(0), Target::Password);
    let mut args = json!({"text": "hunter2"});
    t.hide_withheld(&mut args);
    assert_eq!(args["text"], PASSWORD_PLACEHOLDER);
    // Even a later screen showing the same text in a plain field does not undo it.
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-email", "hunter2"))
            .is_empty()
    );
    assert!(t.withholds());
}

#[test]
fn a_plain_field_without_the_text_gives_up_and_no_field_waits() {
    let a = AwaitingRead::default();
    let t = waiting(&a, 1, "hunter2");
    // No focused text field: undecided, still waiting.
    assert!(a.read("dev", GEN, GEN, &login()).is_empty());
    assert_eq!(t.target(0), Target::Unknown);
    // A focused plain field that does not hold the text (focus moved on): withheld for good.
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-email", "someone"))
            .is_empty()
    );
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-email", "hunter2"))
            .is_empty()
    );
    assert_eq!(t.target(0), Target::Unknown);
    assert!(t.withholds());
}

#[test]
fn a_text_waits_a_few_reads_at_most() {
    let a = AwaitingRead::default();
    let t = waiting(&a, 1, "abc");
    for _ in 0..READS {
        assert!(a.read("dev", GEN, GEN, &login()).is_empty());
    }
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-email", "abc"))
            .is_empty()
    );
    assert_eq!(t.target(0), Target::Unknown, "it stopped waiting");
}

/// A tap, a key or more typing after the text (the generation moved): no read decides it,
/// whatever the screen shows then.
#[test]
fn anything_sent_after_the_text_leaves_it_withheld() {
    let a = AwaitingRead::default();
    let t = waiting(&a, 1, "hunter2");
    assert!(
        a.read(
            "dev",
            GEN + 2,
            GEN + 2,
            &typed_into("input-email", "hunter2")
        )
        .is_empty()
    );
    assert_eq!(t.target(0), Target::Unknown);
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-email", "hunter2"))
            .is_empty(),
        "it stopped waiting"
    );
}

/// A dump that began before the text was typed (it shows the screen before the text went
/// anywhere) decides nothing about it, whatever field it shows.
#[test]
fn a_read_that_began_before_the_text_decides_nothing() {
    let a = AwaitingRead::default();
    let t = waiting(&a, 1, "7351");
    assert!(
        a.read(
            "dev",
            GEN - 2,
            GEN,
            &typed_into("input-email", "0000 7351 9999")
        )
        .is_empty()
    );
    assert_eq!(t.target(0), Target::Unknown);
    // A read that began after decides.
    assert!(
        a.read("dev", GEN, GEN, &typed_into("input-password", "••••"))
            .is_empty()
    );
    assert_eq!(t.target(0), Target::Password);
}
