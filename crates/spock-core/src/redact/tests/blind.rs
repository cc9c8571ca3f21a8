//! Blind edits (issue 32): fragments of a hidden value in editable fields, the held-field
//! memory fed by any tree and kept across restarts, and the proof on every real capture that
//! nothing outside an editable field changes.
use crate::redact::*;
use crate::uitree::UiTree;

fn fnkey() -> Redactor {
    Redactor::with_defaults_and(&[
        RedactionRule {
            name: "fnkey".into(),
            pattern: "fn-[0-9a-f]{12}".into(),
            scope: Scope::AgentOnly,
        },
        RedactionRule {
            name: "apikey".into(),
            pattern: r"\bsk_[0-9a-f]{10}\b".into(),
            scope: Scope::AgentOnly,
        },
    ])
    .unwrap()
}

/// A screen with `field` in an editable field (`p:id/key`) and `line` in a plain text line.
fn screen(field: &str, line: &str) -> UiTree {
    let xml = format!(
        r#"<?xml version='1.0' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[0,0][1080,2400]"><node index="0" text="{field}" resource-id="p:id/key" class="android.widget.EditText" package="p" content-desc="" clickable="true" enabled="true" password="false" bounds="[63,780][1017,840]" /><node index="1" text="{line}" resource-id="p:id/note" class="android.widget.TextView" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[63,900][1017,1000]" /></node></hierarchy>"#
    );
    crate::uitree::parse(&xml).unwrap()
}

/// (field, line) as an agent is shown them.
fn shown(r: &Redactor, field: &str, line: &str) -> (String, String) {
    let mut t = screen(field, line);
    r.redact_tree(&mut t, Audience::Agent);
    (t.nodes()[1].text.clone(), t.nodes()[2].text.clone())
}

/// The finding: a key typed out of band, never read whole, then cut by one DEL, showed 11 of
/// its 12 characters. A fragment of a rule's shape in an editable field shows the marker; the
/// same text in a plain line is judged as before.
#[test]
fn a_fragment_of_a_rules_shape_in_a_field_shows_its_marker() {
    let hidden = [
        ("fn-0123456789a", "fnkey"),   // DEL at the end
        ("n-0123456789ab", "fnkey"),   // MOVE_HOME, FORWARD_DEL
        ("n-0123456789a", "fnkey"),    // one from each end
        ("fn-01234x56789ab", "fnkey"), // one inserted: no longer a match
        ("fn-01234", "fnkey"),         // a prefix of half its length
        ("0123456789ab", "fnkey"),     // the key without its head
        ("sk_4b1d9e0c7aZ", "apikey"),  // one typed after a word-bounded key
        ("sk_4b1d9e0c7", "apikey"),
        ("AKIAIOSFODNN7EXAMPL", "aws-access-key-id"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjg",
            "jwt",
        ),
    ];
    for (text, rule) in hidden {
        let (field, line) = shown(&fnkey(), text, text);
        assert_eq!(field, format!("«redacted:{rule}»"), "{text}");
        assert_eq!(line, fnkey().redact_str(text, Audience::Agent), "{text}");
        let mut p = screen(text, text);
        fnkey().redact_tree(&mut p, Audience::Person);
        assert_eq!(
            p.nodes()[1].text,
            text,
            "the person sees the field as it is"
        );
    }
    let shown_as_is = [
        "fn-0123",                        // under half the key's length
        "12345678",                       // as long, but mostly what the key lacks
        "bob@example.com",                // no default rule's shape
        "alice.smith",                    // a bearer token's alphabet, without `Bearer`
        "bob@example.combob@example.com", // dots, not a JWT
        "Password",                       // `password=`'s head, none of its secret
        "hunter2",                        // a password's value has no shape of its own
        "Search products",
        "+1 (555) 010-0199",
        "",
    ];
    for text in shown_as_is {
        let (field, _) = shown(&fnkey(), text, "");
        assert_eq!(field, text, "{text}");
    }
}

/// Every tree the server reads feeds the memory, whoever it was for: a field the person's
/// view (or a settle dump) saw whole stays hidden from agents when cut below any shape.
#[test]
fn a_field_seen_whole_in_any_tree_stays_hidden() {
    let r = fnkey();
    assert!(
        !r.observe(&screen("fn-0123456789ab", "")),
        "no file: nothing to write"
    );
    let (field, _) = shown(&r, "fn-0", "");
    assert_eq!(field, "«redacted:fnkey»");
    // Another redactor (another run, no file) never saw it.
    assert_eq!(shown(&fnkey(), "fn-0", "").0, "fn-0");
    // A plain line is not remembered.
    let r = fnkey();
    r.observe(&screen("", "fn-0123456789ab"));
    assert_eq!(shown(&r, "fn-0", "fn-0"), ("fn-0".into(), "fn-0".into()));
}

#[test]
fn the_memory_outlives_a_restart_in_a_private_file_without_values() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("data")
        .join("redact")
        .join("held-fields.json");
    let mut r = fnkey();
    r.keep_held_in(&path).unwrap();
    assert!(r.observe(&screen("fn-0123456789ab", "")));
    r.save_held().unwrap();
    assert!(!r.observe(&screen("fn-0123456789ab", "")), "nothing new");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    let raw = std::fs::read_to_string(&path).unwrap();
    for clear in ["0123", "p:id/key", "\"p\""] {
        assert!(!raw.contains(clear), "{clear} in {raw}");
    }
    assert!(raw.contains("«redacted:fnkey»"), "{raw}");
    // The next run reads it.
    let mut again = fnkey();
    again.keep_held_in(&path).unwrap();
    assert_eq!(shown(&again, "fn-0", "").0, "«redacted:fnkey»");
    // A rule no longer configured hides nothing any more.
    let mut fewer = Redactor::with_defaults();
    fewer.keep_held_in(&path).unwrap();
    assert_eq!(shown(&fewer, "fn-0", "").0, "fn-0");
    // An unreadable file is a clear error, not a fresh start.
    std::fs::write(&path, "{not json").unwrap();
    let err = fnkey().keep_held_in(&path).unwrap_err().to_string();
    assert!(
        err.contains("held-fields.json") && err.contains("remove it"),
        "{err}"
    );
}

/// Non-editable text is judged as before on every real capture (the public ones included):
/// the fragment shapes and the memory change nothing outside editable fields, and nothing in
/// the captures' own editable fields either.
#[test]
fn nothing_outside_an_editable_field_changes_on_any_real_capture() {
    let mut files = crate::testdata::fixture_files("uiautomator");
    files.extend(crate::testdata::fixture_files("uiautomator-public"));
    let files: Vec<_> = files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    assert!(files.len() >= 27, "captures missing: {}", files.len());
    let mut fields = 0;
    for f in files {
        let xml = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        let Ok(raw) = crate::uitree::parse(&xml) else {
            continue;
        };
        // Before: the rules alone; after: the same redactor having seen the tree first.
        let r = fnkey();
        let before: Vec<_> = raw
            .nodes()
            .iter()
            .map(|n| r.redact_str(&n.text, Audience::Agent).into_owned())
            .collect();
        r.observe(&raw);
        let mut agent = raw.clone();
        r.redact_tree(&mut agent, Audience::Agent);
        for ((n, a), b) in raw.nodes().iter().zip(agent.nodes()).zip(&before) {
            if n.password {
                continue;
            }
            fields += usize::from(n.is_editable() && !n.text.is_empty());
            assert_eq!(&a.text, b, "{} changed {:?}", f.display(), n.text);
        }
    }
    assert!(fields >= 2, "editable fields with text judged: {fields}");
}

/// A screenshot blacks out what the tree hides: a field holding a fragment or known to have
/// held a value, never a plain line (`mcp::tools::screen::hidden_regions`).
#[test]
fn a_screenshot_hides_the_fields_the_tree_hides() {
    let r = fnkey();
    let t = screen("fn-0123456789a", "fn-0123456789a");
    assert!(r.hides_field(&t.nodes()[1]) && !r.hides_field(&t.nodes()[2]));
    let t = screen("fn-0", "");
    assert!(!r.hides_field(&t.nodes()[1]));
    r.observe(&screen("fn-0123456789ab", ""));
    assert!(r.hides_field(&t.nodes()[1]));
    let regions = crate::mcp::tools::screen::hidden_regions(&r, &t);
    assert_eq!(regions, vec![(63, 780, 1017, 840)]);
}
