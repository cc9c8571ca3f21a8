//! The real device captures that tests and benches read: `tests/fixtures/` at the repository
//! root, with `tests/fixtures/SOURCES.md` saying where each came from. Resolved here and only
//! here, from the repository root (the first directory up from this crate that holds
//! `Cargo.lock`), so splitting the crate into a Cargo workspace changes nothing for callers.
//! Nothing outside the repository is ever read.
use std::path::{Path, PathBuf};

/// The repository root: this crate's directory or the workspace root above it.
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
        .to_path_buf()
}

/// `tests/fixtures/` under the repository root.
pub fn fixtures_dir() -> PathBuf {
    let dir = repo_root().join("tests").join("fixtures");
    assert!(
        dir.join("SOURCES.md").is_file(),
        "{} is missing: the captures belong to the repository",
        dir.display()
    );
    dir
}

/// One capture by its path under `tests/fixtures/`, e.g. `uiautomator/compose-music-home.xml`.
pub fn fixture(rel: &str) -> String {
    let path = fixtures_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every capture under `tests/fixtures/<sub>` (recursively; `SOURCES.md` excluded), sorted, so
/// a new capture is tested without editing code. `sub` may be empty for all of them.
pub fn fixture_files(sub: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n != "SOURCES.md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&fixtures_dir().join(sub), &mut out);
    out.sort();
    out
}
