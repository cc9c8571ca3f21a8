//! Test-only access to the real uiautomator captures in `tests/fixtures/uiautomator/`.
use crate::testdata;

pub fn fixture(name: &str) -> String {
    testdata::fixture(&format!("uiautomator/{name}"))
}

/// Every uiautomator capture, sorted by name, so a new capture is tested without editing code.
pub fn all_fixtures() -> Vec<(String, String)> {
    let names: Vec<String> = testdata::fixture_files("uiautomator")
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.len() >= 13,
        "uiautomator captures missing: {}",
        names.len()
    );
    names
        .into_iter()
        .map(|n| (n.clone(), fixture(&n)))
        .collect()
}
