//! Proven on public real captures (issue 43): every UI dump in
//! `tests/fixtures/uiautomator-public/` and every shell output in `tests/fixtures/public/<kind>/`
//! (captures other projects published, kept byte for byte with their license notice beside
//! them) goes through the product's own code: the UI tree parser, the agent's renderings, the
//! element lookup, and the parser of each command the product runs.
//!
//! The tests walk the directories, so a capture added there is tested without editing code:
//! every file is either tested by its kind (the directory it is in) or named in [`EXCLUDED`]
//! with the reason, and the counts are asserted so a lost directory fails. Values read by eye
//! from a capture are asserted per file in the kind's table; the invariants that need no eye
//! (counts, independent scans) hold for every file of the kind.
use std::path::{Path, PathBuf};

use crate::testdata::{fixture_files, fixtures_dir};

mod scan;
mod shell;
mod ui;

/// The UI dumps: `tests/fixtures/uiautomator-public/`.
const UI_DIR: &str = "uiautomator-public";
/// The shell outputs: `tests/fixtures/public/<kind>/`.
const SHELL_DIR: &str = "public";
/// How many of each there are: a directory or a capture lost fails here.
const UI_COUNT: usize = 14;
const SHELL_COUNT: usize = 16;

/// Captures that cannot be a test, each with why (path under `tests/fixtures/public/`).
const EXCLUDED: &[(&str, &str)] = &[(
    "dumpsys_netstats/emu_a9_netstats.txt",
    "the product never runs `dumpsys netstats` and has no parser for it (network facts come \
     from `ip addr`, `dumpsys connectivity` and `dumpsys wifi`), and the virtual device has no \
     netstats service to compare; kept for the redaction tests (`redact::logs`)",
)];

/// Bytes of a capture as the product would get them from the device: `stdout_text()` is a
/// lossy UTF-8 reading, so a capture that is not UTF-8 is read the same way here.
fn device_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A capture's path relative to `tests/fixtures/<dir>/`, with `/` separators.
fn rel(dir: &str, path: &Path) -> String {
    let base = fixtures_dir().join(dir);
    path.strip_prefix(&base)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The captures of `dir`: every file but the sidecars (`*.NOTICE`), `MANIFEST.tsv` and
/// `README.md`.
fn captures(dir: &str) -> Vec<PathBuf> {
    fixture_files(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            !name.is_some_and(|n| n.ends_with(".NOTICE") || n == "MANIFEST.tsv" || n == "README.md")
        })
        .collect()
}

/// The `file` column of a directory's MANIFEST.tsv, relative to the directory itself (the
/// UI dumps' manifest names them `uiautomator/<name>` as the shared manifest does).
fn manifest_files(dir: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixtures_dir().join(dir).join("MANIFEST.tsv"))
        .unwrap_or_else(|e| panic!("{dir}/MANIFEST.tsv: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let file_col = header
        .iter()
        .position(|c| *c == "file")
        .expect("file column");
    let license_col = header
        .iter()
        .position(|c| *c == "license")
        .expect("license");
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), header.len(), "{dir}/MANIFEST.tsv row {l:?}");
            assert!(!cols[license_col].trim().is_empty(), "no license in {l:?}");
            let f = cols[file_col];
            f.strip_prefix("uiautomator/")
                .filter(|_| dir == UI_DIR)
                .unwrap_or(f)
                .to_string()
        })
        .collect()
}

/// Every capture has its license notice beside it and its manifest row, and every manifest
/// row names a capture that is there; every file is tested or excluded with a reason.
#[test]
fn every_public_capture_has_its_notice_its_row_and_a_test_or_a_reason() {
    for (dir, count) in [(UI_DIR, UI_COUNT), (SHELL_DIR, SHELL_COUNT)] {
        let files = captures(dir);
        assert!(files.len() >= count, "{dir}: {files:?}");
        let mut named = manifest_files(dir);
        named.sort();
        let mut present: Vec<String> = files.iter().map(|f| rel(dir, f)).collect();
        present.sort();
        assert_eq!(named, present, "{dir}/MANIFEST.tsv rows vs files");
        for f in &files {
            let notice = PathBuf::from(format!("{}.NOTICE", f.display()));
            let text = std::fs::read_to_string(&notice)
                .unwrap_or_else(|e| panic!("{}: {e}", notice.display()));
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                text.contains(&name),
                "{} names another file",
                notice.display()
            );
        }
    }
    let shell = captures(SHELL_DIR);
    for (path, why) in EXCLUDED {
        assert!(why.len() > 40, "{path}: say why");
        assert!(
            shell.iter().any(|f| rel(SHELL_DIR, f) == *path),
            "{path} is excluded but not there"
        );
        assert!(
            !shell::KINDS
                .iter()
                .any(|(k, _)| path.starts_with(&format!("{k}/"))),
            "{path} is excluded, yet its kind has a test"
        );
    }
    for f in &shell {
        let r = rel(SHELL_DIR, f);
        let kind = r.split('/').next().unwrap_or_default();
        let tested = shell::KINDS.iter().any(|(k, _)| *k == kind);
        let excluded = EXCLUDED.iter().any(|(p, _)| *p == r);
        assert!(
            tested != excluded,
            "{r}: {}",
            if tested {
                "tested and excluded"
            } else {
                "neither tested by its kind nor excluded with a reason"
            }
        );
    }
}
