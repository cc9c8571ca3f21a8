//! The repository stands on its own: no code, test, bench or script reads a file from outside
//! it, through `..` or by an absolute path of one machine. A clone with nothing beside it must
//! pass the whole test command, so this check runs first in that command and fails on the
//! first construct that would reach out.
//!
//! What it reads, per file under `src/`, `crates/` (the workspace's other packages), `tests/`,
//! `benches/`, `.ci/` and `assets/`:
//! - Rust: `include_str!`/`include_bytes!`/`#[path]` targets resolved from the file's folder;
//!   `CARGO_MANIFEST_DIR` joined with `..`.
//! - Python and shell: `parents[N]` of `__file__` and `dirname "$0"`/`..` chains, resolved from
//!   the file's folder; relative literals that start with more `..` than the file is deep.
//! - Everywhere: a home or work directory of one machine (`/home/…`, `/root/…`, `/work/…`,
//!   `/Users/…`) or the sibling `shared/` folder. A line that only shows such a path on screen
//!   says so with `self-contained: not read`.
use std::path::{Component, Path, PathBuf};

use regex::Regex;

const ALLOW: &str = "self-contained: not read";

fn root() -> PathBuf {
    spock_tui::testdata::repo_root()
}

/// `dir/rel` resolved lexically; `None` when it climbs above the repository root (`dir` is
/// relative to the root).
fn resolve_within(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut parts: Vec<String> = dir
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for c in Path::new(rel).components() {
        match c {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// The violations in one file's text; `rel` is its path from the repository root.
fn violations(rel: &Path, text: &str) -> Vec<String> {
    let dir = rel.parent().unwrap_or(Path::new(""));
    let depth = dir.components().count();
    let ext = rel.extension().and_then(|e| e.to_str()).unwrap_or("");
    let script = matches!(ext, "py" | "sh" | "");
    let host = Regex::new(r#"(^|["'\s=(:])/(home|root|work|Users)/[A-Za-z0-9_.-]"#).unwrap();
    let sibling = Regex::new(r"\.\./shared\b|\bshared/fixtures\b").unwrap();
    let include =
        Regex::new(r#"(?:include_str!|include_bytes!)\(\s*"([^"]+)"|#\[path\s*=\s*"([^"]+)""#)
            .unwrap();
    let parents = Regex::new(r"__file__\)?(?:\.resolve\(\))?\.parents\[(\d+)\]").unwrap();
    let dirname =
        Regex::new(r#"dirname\s+"?\$(?:0|\{BASH_SOURCE\[0\]\}|BASH_SOURCE)"?\s*\)"?((?:/\.\.)+)"#)
            .unwrap();
    let leading_up = Regex::new(r#"["'](\.\./(?:\.\./)*)"#).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.contains(ALLOW) {
            continue;
        }
        let at = format!("{}:{}", rel.display(), i + 1);
        if host.is_match(line) {
            out.push(format!(
                "{at}: an absolute path of one machine: {}",
                line.trim()
            ));
        }
        if sibling.is_match(line) {
            out.push(format!(
                "{at}: reads the sibling shared/ folder: {}",
                line.trim()
            ));
        }
        if ext == "rs" {
            for c in include.captures_iter(line) {
                let target = c.get(1).or(c.get(2)).unwrap().as_str();
                if resolve_within(dir, target).is_none() {
                    out.push(format!("{at}: includes {target}, outside the repository"));
                }
            }
            if line.contains("CARGO_MANIFEST_DIR") && line.contains("..") {
                out.push(format!(
                    "{at}: climbs out of CARGO_MANIFEST_DIR: {}",
                    line.trim()
                ));
            }
        }
        if script {
            for c in parents.captures_iter(line) {
                let n: usize = c[1].parse().unwrap();
                // parents[0] is the file's folder; parents[depth] is the repository root.
                if n > depth {
                    out.push(format!(
                        "{at}: parents[{n}] of a file {depth} deep leaves the repository"
                    ));
                }
            }
            for c in dirname.captures_iter(line) {
                let ups = c[1].matches("..").count();
                if ups > depth {
                    out.push(format!(
                        "{at}: dirname $0 plus {ups}×.. leaves the repository"
                    ));
                }
            }
            for c in leading_up.captures_iter(line) {
                let ups = c[1].matches("..").count();
                if ups > depth {
                    out.push(format!(
                        "{at}: a path {ups}×.. up from a file {depth} deep: {}",
                        line.trim()
                    ));
                }
            }
        }
    }
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap().to_path_buf();
        let name = e.file_name().to_string_lossy().into_owned();
        // Captures are data, snapshots are screens; dependencies and build output are not ours.
        if p.is_dir() {
            let skip = matches!(
                name.as_str(),
                "fixtures"
                    | "snapshots"
                    | "node"
                    | "node_modules"
                    | ".venv"
                    | "__pycache__"
                    | "target"
            );
            if !skip {
                walk(root, &p, out);
            }
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("rs" | "py" | "sh" | "toml" | "cfg" | "ini" | "txt" | "json" | "js" | "mjs")
        ) || rel.starts_with(".ci")
        {
            out.push(rel);
        }
    }
}

#[test]
fn no_file_is_read_from_outside_the_repository() {
    let root = root();
    let mut files = Vec::new();
    for top in ["src", "crates", "tests", "benches", ".ci", "assets"] {
        walk(&root, &root.join(top), &mut files);
    }
    for top in ["Cargo.toml", "build.rs"] {
        if root.join(top).is_file() {
            files.push(PathBuf::from(top));
        }
    }
    assert!(
        files.len() > 50,
        "only {} files found under {}",
        files.len(),
        root.display()
    );
    let this = Path::new(file!());
    let mut found = Vec::new();
    for rel in files.iter().filter(|f| !f.ends_with(this)) {
        let Ok(text) = std::fs::read_to_string(root.join(rel)) else {
            continue;
        };
        found.extend(violations(rel, &text));
    }
    assert!(
        found.is_empty(),
        "reads outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_fixtures_are_in_the_repository_with_their_sources() {
    let dir = spock_tui::testdata::fixtures_dir();
    assert!(dir.starts_with(root()), "{}", dir.display());
    let sources = std::fs::read_to_string(dir.join("SOURCES.md")).unwrap();
    let files = spock_tui::testdata::fixture_files("");
    assert!(files.len() >= 29, "{} captures", files.len());
    // Every capture is accounted for in SOURCES.md.
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(sources.contains(&name), "{name} is not in SOURCES.md");
    }
}

/// The check itself can fail: each construct that reaches out is caught, and the ordinary
/// ones that stay inside are not.
#[test]
fn the_check_catches_each_way_out() {
    let bad: &[(&str, &str)] = &[
        (
            "src/a.rs",
            r#"let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures");"#,
        ),
        ("src/a.rs", r#"PathBuf::from("/work/shared/fixtures")"#),
        (
            "src/x/a.rs",
            r#"const S: &str = include_str!("../../../other/x.toml");"#,
        ),
        ("benches/a.rs", r#"#[path = "../../elsewhere/x.rs"]"#),
        (
            "crates/spock-sim/src/device.rs",
            r#"include_str!("../../../../assets/demo/demo.toml")"#,
        ),
        (
            "tests/python/conftest.py",
            "ROOT = pathlib.Path(__file__).resolve().parents[3]",
        ),
        (".ci/run", r#"cd "$(dirname "$0")/../..""#),
        ("tests/python/t.py", r#"open("../../../data.txt")"#),
        ("tests/a.rs", r#"std::fs::read("/home/dev/captures/x.xml")"#),
        (
            "tests/a.rs",
            r#"let p = env!("CARGO_MANIFEST_DIR").to_owned() + "/..";"#,
        ),
    ];
    for (file, line) in bad {
        assert!(
            !violations(Path::new(file), line).is_empty(),
            "missed {file}: {line}"
        );
    }
    let good: &[(&str, &str)] = &[
        (
            "crates/spock-core/src/config.rs",
            r#"pub const D: &str = include_str!("../../../assets/default-config.toml");"#,
        ),
        (
            "crates/spock-sim/src/device.rs",
            r#"include_str!("../../../assets/demo/demo.toml")"#,
        ),
        (
            "benches/tui.rs",
            r#"#[path = "../tests/support/tui_fixture.rs"]"#,
        ),
        (
            "tests/python/conftest.py",
            "ROOT = pathlib.Path(__file__).resolve().parents[2]",
        ),
        (".ci/run", r#"cd "$(dirname "$0")/..""#),
        ("tests/guard.rs", r#""rm -rf /sdcard/../../data","#),
        (
            "tests/python/t.py",
            r#"for dp in ["/sdcard/../data/x", "../secret.txt"]:"#,
        ),
        ("src/a.rs", "let p = dir.join(\"uiautomator\");"),
        (
            "tests/a.rs",
            r#"config_file: "/home/dev/x.toml".into(), // self-contained: not read"#,
        ),
    ];
    for (file, line) in good {
        let v = violations(Path::new(file), line);
        assert!(v.is_empty(), "false alarm {file}: {v:?}");
    }
}
