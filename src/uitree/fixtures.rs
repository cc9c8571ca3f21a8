//! Test-only access to the real device captures in `shared/fixtures/uiautomator/`.
//!
//! CI has `shared/` beside the repository; a developer worktree may not, so the directory is
//! resolved in one place, trying the CI layout first.

use std::path::PathBuf;

pub fn fixtures_dir() -> PathBuf {
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");
    if beside.is_dir() {
        return beside;
    }
    PathBuf::from("/work/shared/fixtures")
}

pub fn fixture(name: &str) -> String {
    let path = fixtures_dir().join("uiautomator").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every uiautomator fixture, sorted by name, so a new capture is tested without editing code.
pub fn all_fixtures() -> Vec<(String, String)> {
    let dir = fixtures_dir().join("uiautomator");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".xml"))
        .collect();
    names.sort();
    assert!(names.len() >= 13, "fixtures missing from {}", dir.display());
    names
        .into_iter()
        .map(|n| (n.clone(), fixture(&n)))
        .collect()
}
