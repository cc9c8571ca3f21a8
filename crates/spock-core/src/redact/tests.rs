//! Redaction on the real captures in `tests/fixtures/`: the defaults change nothing there,
//! and secrets spliced into real lines are hidden without disturbing the rest of the line.
mod blind;
use serde_json::{Value, json};

use super::*;

use crate::testdata::{fixture, fixture_files};

#[test]
fn defaults_leave_every_real_capture_unchanged() {
    let r = Redactor::with_defaults();
    assert_eq!(r.rule_names().len(), default_rules().len());
    let files = fixture_files("");
    assert!(files.len() >= 20, "fixtures not found: {}", files.len());
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).expect("read")).into_owned();
        let out = r.redact_str(&text, Audience::Agent);
        assert!(
            matches!(out, Cow::Borrowed(_)),
            "defaults changed {}",
            f.display()
        );
    }
}

#[test]
fn secrets_spliced_into_a_real_logcat_line_are_hidden() {
    let log = fixture("misc/logcat-threadtime-crash-wsa.txt");
    let line = log
        .lines()
        .find(|l| l.contains("FATAL EXCEPTION"))
        .expect("crash line");
    let r = Redactor::with_defaults();
    let cases = [
        (
            " Authorization: Bearer ya29.A0ARrdaM-abc_DEF123",
            "Bearer «redacted:bearer»",
        ),
        (
            " POST /login password=hunter2&user=bob",
            "password=«redacted:password»&user=bob",
        ),
        (
            " GET https://api.example.com/v1?id=3&access_token=abcDEF123",
            "&access_token=«redacted:query-secret»",
        ),
        (
            " url=https://bob:s3cr3t@example.com/x",
            "https://bob:«redacted:url-credentials»@example.com/x",
        ),
        (
            " key AKIAIOSFODNN7EXAMPLE used",
            "key «redacted:aws-access-key-id» used",
        ),
        (
            " aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key=«redacted:aws-secret-key»",
        ),
    ];
    for (secret, want) in cases {
        let input = format!("{line}{secret}");
        let out = r.redact_str(&input, Audience::Agent);
        assert!(out.starts_with(line), "the real part changed: {out}");
        assert!(out.ends_with(want), "{secret:?} became {out:?}");
        // The person at the terminal sees the original.
        assert_eq!(r.redact_str(&input, Audience::Person), input);
    }
}

#[test]
fn everywhere_rules_hide_values_from_the_person_too() {
    let rules = vec![
        RedactionRule {
            name: "imei".into(),
            pattern: r"\b\d{15}\b".into(),
            scope: Scope::Everywhere,
        },
        RedactionRule {
            name: "email".into(),
            pattern: r"[\w.*]+@gmail\.com".into(),
            scope: Scope::AgentOnly,
        },
    ];
    let r = Redactor::new(&rules).expect("rules");
    let s = "imei 490154203237518 for abha**2@gmail.com";
    assert_eq!(
        r.redact_str(s, Audience::Person),
        "imei «redacted:imei» for abha**2@gmail.com"
    );
    assert_eq!(
        r.redact_str(s, Audience::Agent),
        "imei «redacted:imei» for «redacted:email»"
    );
}

#[test]
fn bad_rules_are_typed_errors() {
    let bad = RedactionRule {
        name: "x".into(),
        pattern: "(".into(),
        scope: Scope::AgentOnly,
    };
    assert!(matches!(
        Redactor::new(&[bad]),
        Err(RedactError::BadPattern { .. })
    ));
    let unnamed = RedactionRule {
        name: "a b".into(),
        pattern: "x".into(),
        scope: Scope::AgentOnly,
    };
    assert!(matches!(
        Redactor::new(&[unnamed]),
        Err(RedactError::BadName(_))
    ));
    let parsed: RedactionRule =
        serde_json::from_value(json!({"name": "n", "pattern": "p"})).expect("rule");
    assert_eq!(parsed.scope, Scope::AgentOnly);
}

/// The nodes of a uiautomator dump as JSON objects (`text`, `resource-id`, `password`).
fn ui_nodes(xml: &str) -> Value {
    let doc = roxmltree::Document::parse(xml).expect("xml");
    let nodes: Vec<Value> = doc
        .descendants()
        .filter(|n| n.has_tag_name("node"))
        .map(|n| {
            json!({
                "text": n.attribute("text").unwrap_or(""),
                "resourceId": n.attribute("resource-id").unwrap_or(""),
                "contentDesc": n.attribute("content-desc").unwrap_or(""),
                "password": n.attribute("password") == Some("true"),
            })
        })
        .collect();
    json!({ "nodes": nodes })
}

#[test]
fn password_nodes_from_a_real_login_screen_are_hidden_from_agents() {
    let tree = ui_nodes(&fixture("uiautomator/rn-wdio-login-edittext.xml"));
    let r = Redactor::with_defaults();

    let mut agent = tree.clone();
    assert_eq!(r.redact_json(&mut agent, Audience::Agent), 1);
    let nodes = agent["nodes"].as_array().expect("nodes");
    let pw: Vec<&Value> = nodes.iter().filter(|n| n["password"] == true).collect();
    assert_eq!(pw.len(), 1);
    assert_eq!(pw[0]["text"], "«redacted:password»");
    assert_eq!(pw[0]["contentDesc"], "input-password");
    // The e-mail field next to it is untouched.
    assert!(
        nodes
            .iter()
            .any(|n| n["contentDesc"] == "input-email" && n["text"] == "Email")
    );

    let mut person = tree.clone();
    assert_eq!(r.redact_json(&mut person, Audience::Person), 0);
    assert_eq!(person, tree);
}

#[test]
fn redact_json_walks_nested_values_but_not_keys() {
    let r = Redactor::with_defaults();
    let mut v = json!({
        "password=x": "ok",
        "headers": [{"Authorization": "Bearer abcdefghijk123"}],
        "n": 3,
    });
    assert_eq!(r.redact_json(&mut v, Audience::Agent), 1);
    assert_eq!(v["headers"][0]["Authorization"], "Bearer «redacted:bearer»");
    assert_eq!(v["password=x"], "ok");
    // Already-redacted text is not redacted again.
    let mut again = v.clone();
    assert_eq!(r.redact_json(&mut again, Audience::Agent), 0);
}

#[test]
fn hides_from_person_names_only_everywhere_rules_that_match() {
    let r = Redactor::new(&[
        RedactionRule {
            name: "pin".into(),
            pattern: "PIN-[0-9]{4}".into(),
            scope: Scope::Everywhere,
        },
        RedactionRule {
            name: "agent".into(),
            pattern: "secret".into(),
            scope: Scope::AgentOnly,
        },
    ])
    .unwrap();
    let v = serde_json::json!({"command": "echo secret", "nested": ["PIN-1234"]});
    assert_eq!(r.hides_from_person(&v), vec!["pin"]);
    assert!(
        r.hides_from_person(&serde_json::json!({"a": "secret"}))
            .is_empty()
    );
}

#[test]
fn a_tree_redacted_for_the_agent_matches_only_what_the_agent_sees() {
    use crate::uitree::Selector;
    let xml = r#"<?xml version='1.0' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[0,0][1080,2400]"><node index="0" text="Visa •••• 4242" resource-id="android:id/summary" class="android.widget.TextView" package="p" content-desc="card •••• 4242" clickable="false" enabled="true" password="false" bounds="[63,780][1017,840]" /><node index="1" text="hunter2" resource-id="pw" class="android.widget.EditText" package="p" content-desc="" clickable="true" enabled="true" password="true" bounds="[63,900][1017,1000]" /></node></hierarchy>"#;
    let r = Redactor::with_defaults_and(&[RedactionRule {
        name: "card".into(),
        pattern: "•+ (?P<secret>[0-9]{4})".into(),
        scope: Scope::AgentOnly,
    }])
    .unwrap();
    let raw = crate::uitree::parse(xml).unwrap();
    let probe = |t: &crate::uitree::UiTree, s: Selector| t.find(&s).map(|v| v.len()).unwrap_or(0);
    let digits = || Selector {
        text_contains: Some("4242".into()),
        ..Selector::default()
    };
    let pw = || Selector {
        text_contains: Some("hunt".into()),
        ..Selector::default()
    };
    assert_eq!(probe(&raw, digits()), 1, "the fixture must hold the digits");
    let mut person = raw.clone();
    assert_eq!(r.redact_tree(&mut person, Audience::Person), 0);
    let mut agent = raw.clone();
    assert_eq!(r.redact_tree(&mut agent, Audience::Agent), 2);
    assert_eq!(probe(&agent, digits()), 0);
    assert_eq!(probe(&agent, pw()), 0);
    assert_eq!(agent.resolve_query("4242"), Vec::new());
    let visa = Selector {
        text_contains: Some("visa".into()),
        ..Selector::default()
    };
    assert_eq!(probe(&agent, visa), 1);
    let n = &agent.nodes()[1];
    assert_eq!(n.text, "Visa •••• «redacted:card»");
    assert_eq!(n.content_desc, "card •••• «redacted:card»");
    assert_eq!(agent.nodes()[2].text, "«redacted:password»");
    assert_eq!(n.bounds, raw.nodes()[1].bounds);
    // The revision shown is the hash of the tree as shown, not of the raw dump.
    assert_ne!(agent.revision(), raw.revision());
}

/// A screen with `value` in an editable field (`field`) and in a plain text line (`text`).
fn screen(field: &str, text: &str) -> crate::uitree::UiTree {
    let xml = format!(
        r#"<?xml version='1.0' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[0,0][1080,2400]"><node index="0" text="{field}" resource-id="p:id/api_key" class="android.widget.EditText" package="p" content-desc="" clickable="true" enabled="true" password="false" bounds="[63,780][1017,840]" /><node index="1" text="{text}" resource-id="p:id/note" class="android.widget.TextView" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[63,900][1017,1000]" /></node></hierarchy>"#
    );
    crate::uitree::parse(&xml).unwrap()
}

fn apikey() -> Redactor {
    Redactor::with_defaults_and(&[RedactionRule {
        name: "apikey".into(),
        pattern: "sk[0-9a-f]{10}".into(),
        scope: Scope::AgentOnly,
    }])
    .unwrap()
}

/// The finding: the revision was a hash of the raw dump, so an agent could rebuild the dump
/// with a guess in place of the marker and compare offline, or type guesses and compare.
/// Two screens that differ only in what is hidden get one revision; any visible difference
/// still changes it.
#[test]
fn the_revision_shown_depends_only_on_what_is_shown() {
    let r = apikey();
    let shown = |mut t: crate::uitree::UiTree| {
        r.redact_tree(&mut t, Audience::Agent);
        t.revision().to_string()
    };
    let a = shown(screen("sk4b1d9e0c7a", "hello"));
    let b = shown(screen("sk000000000f", "hello"));
    assert_eq!(a, b, "the hidden key changed the revision");
    assert_ne!(a, shown(screen("sk4b1d9e0c7a", "hello!")));
    assert_ne!(
        screen("sk4b1d9e0c7a", "hello").revision(),
        screen("sk000000000f", "hello").revision()
    );
}

/// The finding: a field was hidden only while its whole value matched the rule, so one
/// character deleted or typed showed the rest. Once a field held a hidden value, its text
/// stays hidden from agents whatever it holds; a plain line does not (the agent cannot edit
/// it), and the person sees the field as it is.
#[test]
fn a_field_that_held_a_hidden_value_stays_hidden_when_edited() {
    let r = apikey();
    let mut t = screen("sk4b1d9e0c7a", "sk4b1d9e0c7a");
    r.redact_tree(&mut t, Audience::Agent);
    assert_eq!(t.nodes()[1].text, "«redacted:apikey»");
    // One deleted, one typed after, one inserted (shifting the end out of the match), another.
    for edited in ["sk4b1d9e0c7", "sk4b1d9e0c7aZ", "skf4b1d9e0c7a", "x"] {
        let mut t = screen(edited, edited);
        r.redact_tree(&mut t, Audience::Agent);
        assert_eq!(t.nodes()[1].text, "«redacted:apikey»", "{edited}");
        assert_eq!(
            t.nodes()[2].text,
            r.redact_str(edited, Audience::Agent),
            "a plain line is only redacted as usual"
        );
        let mut p = screen(edited, edited);
        r.redact_tree(&mut p, Audience::Person);
        assert_eq!(p.nodes()[1].text, edited);
    }
    // An empty field shows as empty; another redactor (a run without the memory's file)
    // starts afresh, where the text is too short to be judged a fragment of the key's shape
    // (`blind_tests`).
    let mut t = screen("", "");
    r.redact_tree(&mut t, Audience::Agent);
    assert_eq!(t.nodes()[1].text, "");
    let mut t = screen("sk4b1", "");
    apikey().redact_tree(&mut t, Audience::Agent);
    assert_eq!(t.nodes()[1].text, "sk4b1");
}
