use super::*;

/// Every tool a capture calls is a read in this build's catalogue: a capture changes nothing
/// on the phone (the capture checks it again before each call).
#[test]
fn a_capture_calls_only_read_tools() {
    let catalogue = spock_core::mcp::tools::catalogue();
    for (tool, _) in reads(Some("com.example.shop")) {
        let def = catalogue
            .get(tool)
            .unwrap_or_else(|| panic!("{tool} is not in the catalogue"));
        assert_eq!(def.level, Level::ReadOnly, "{tool}");
    }
}

/// A real login screen (WebdriverIO's React Native demo) as a build that reports a password
/// field's text would dump it: the bundle keeps bullets, one per character, and the rest.
#[test]
fn a_password_fields_text_is_masked_in_the_raw_dump() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/uiautomator/rn-wdio-login-edittext.xml");
    let xml = std::fs::read_to_string(path).expect("fixture");
    let planted = xml.replacen("text=\"Password\"", "text=\"Hunt&#51;r-XYZ\"", 1);
    assert_ne!(planted, xml, "the fixture has the password field");
    let masked = password_fields_masked(&planted);
    assert!(
        !masked.contains("Hunt") && masked.contains("text=\"••••••••••\""),
        "{masked}"
    );
    let tree = spock_core::uitree::parse(&masked).expect("still parses");
    let pw = tree.nodes().iter().find(|n| n.password).expect("the field");
    assert_eq!(pw.text, "••••••••••");
    assert!(
        tree.nodes().iter().any(|n| n.text == "Email"),
        "the rest is kept"
    );
}
