use serde_json::json;

use super::*;
use crate::redact::{RedactionRule, Scope};

fn typed_password(args: &Value) -> TypedText {
    // A call of a typing tool whose field was never found plain: its text is withheld.
    TypedText::of(true, args)
}

fn scrub_typed(args: &Value) -> Scrub {
    Scrub::of_call(
        &Redactor::empty(),
        args,
        &typed_password(args),
        Audience::Person,
    )
}

#[test]
fn a_typed_password_is_hidden_in_every_form_a_message_quotes_it() {
    let s = scrub_typed(&json!({"text": "hunter2 it's"}));
    for (msg, want) in [
        (
            "shell `input text 'hunter2%sit'\\''s'` on emu timed out after 2.5s",
            "shell `input text «password»` on emu timed out after 2.5s",
        ),
        ("echoed: hunter2 it's", "echoed: «password»"),
        ("json: \"hunter2 it's\"", "json: \"«password»\""),
        (
            "shell `input text 'hunter2%sit'\\''s…` on emu",
            "shell `input text «password»…` on emu",
        ),
        ("cut: hunt… and more", "cut: «password»… and more"),
        ("nothing here", "nothing here"),
    ] {
        assert_eq!(s.text(msg), want, "{msg}");
    }
}

#[test]
fn accented_letters_split_the_command_and_every_run_is_hidden() {
    let s = scrub_typed(&json!({"text": "pässwörd"}));
    let line = typing_commands("pässwörd").unwrap();
    assert_eq!(
        s.text(&format!("`{line}` failed")),
        "`input text «password»` failed"
    );
    // A message quoting one part only (a device that ran the first and failed the second).
    assert_eq!(
        s.text("`input text ssw` failed"),
        "`input text «password»` failed"
    );
}

#[test]
fn a_password_that_reads_like_its_marker_does_not_nest_markers() {
    let s = scrub_typed(&json!({"text": "password"}));
    let once = s
        .text("`input text password` failed: password")
        .into_owned();
    assert_eq!(once, "`input text «password»` failed: «password»");
    assert_eq!(s.text(&once), once, "a second pass changes nothing");
}

#[test]
fn a_text_typed_into_a_plain_field_and_short_values_are_left_alone() {
    let args = json!({"text": "hunter2"});
    let s = Scrub::of_call(
        &Redactor::empty(),
        &args,
        &TypedText::none(),
        Audience::Person,
    );
    assert!(s.is_empty());
    let s = scrub_typed(&json!({"text": "1"}));
    assert_eq!(
        s.text("exit 1: `input text 1` failed"),
        "exit 1: `input text «password»` failed"
    );
}

#[test]
fn values_rules_hide_in_arguments_are_hidden_for_the_audience_they_are_hidden_from() {
    let r = Redactor::new(&[
        RedactionRule {
            name: "apikey".into(),
            pattern: "sk_[a-z0-9]{8}".into(),
            scope: Scope::AgentOnly,
        },
        RedactionRule {
            name: "pin".into(),
            pattern: "pin (?P<secret>[0-9]{4} [0-9]{4})".into(),
            scope: Scope::Everywhere,
        },
    ])
    .unwrap();
    let args = json!({"command": "echo sk_abcd1234 pin 1234 5678", "reason": "testing"});
    let msg = "`echo sk_abcd1234 pin 1234%s5678` failed: 1234 5678";
    let person = Scrub::of_call(&r, &args, &TypedText::none(), Audience::Person);
    assert_eq!(
        person.text(msg),
        "`echo sk_abcd1234 pin «redacted:pin»` failed: «redacted:pin»"
    );
    let agent = Scrub::of_call(&r, &args, &TypedText::none(), Audience::Agent);
    assert_eq!(
        agent.text(msg),
        "`echo «redacted:apikey» pin «redacted:pin»` failed: «redacted:pin»"
    );
    let mut e = ToolError::device(msg).with_details(json!({"stderr": ["sk_abcd1234"]}));
    agent.error(&mut e);
    assert!(!e.message.contains("sk_abcd"));
    assert_eq!(e.details.unwrap()["stderr"][0], "«redacted:apikey»");
}
