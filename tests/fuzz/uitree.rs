//! Fuzzing the uiautomator parser and everything that reads its tree (JSON and compact
//! rendering, window filters, the accessibility audit, selectors). Inputs: arbitrary text,
//! the real captures in `tests/fixtures/uiautomator/` damaged byte by byte, and generated
//! dumps with hostile attributes and deep nesting. Property: every case finishes within
//! `CASE_TIMEOUT` on its own thread without a panic. 256 cases per property by default;
//! `SPOCK_FUZZ_CASES=N` for a longer run.
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use spock_tui::uitree::{self, Selector, TreeOptions, WindowFilter, WindowName};

const CASE_TIMEOUT: Duration = Duration::from_secs(10);

fn cases() -> u32 {
    std::env::var("SPOCK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn config() -> Config {
    Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    }
}

fn captures() -> Vec<String> {
    let paths: Vec<PathBuf> = spock_tui::testdata::fixture_files("uiautomator")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    assert!(
        paths.len() >= 13,
        "uiautomator captures missing: {}",
        paths.len()
    );
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("fixture"))
        .collect()
}

/// Parse and use the tree every way a tool does, on a thread of its own: a panic or a case
/// slower than the timeout fails the property.
fn exercise(xml: String) -> Result<bool, TestCaseError> {
    let (tx, rx) = mpsc::channel();
    let shown: String = xml.chars().take(300).collect();
    std::thread::spawn(move || {
        let parsed = std::panic::catch_unwind(|| {
            let Ok(tree) = uitree::parse(&xml) else {
                return false;
            };
            for opts in [
                TreeOptions::default(),
                TreeOptions {
                    compact: true,
                    ..TreeOptions::default()
                },
                TreeOptions {
                    interactive_only: true,
                    include_invisible: true,
                    max_depth: 2,
                    max_nodes: 5,
                    window: Some(WindowFilter::Named(WindowName::Active)),
                    ..TreeOptions::default()
                },
                TreeOptions {
                    window: Some(WindowFilter::Index(u32::MAX)),
                    ..TreeOptions::default()
                },
            ] {
                let _ = tree.to_json(opts).to_string();
            }
            for dpi in [0, 420, u32::MAX] {
                let _ = uitree::audit(&tree, dpi);
            }
            for q in ["OK", "", "n0", "\u{0}", "Settings"] {
                let _ = tree.resolve_query(q);
                let sel = Selector::query(q);
                let _ = tree.find(&sel);
                let _ = tree.resolve(&sel);
                let _ = tree.closest(&sel, 3);
            }
            // As the tools do: labels only for actionable nodes (on every node of a deep
            // chain this harness would be cubic, where the product is not).
            for n in tree.nodes().iter().filter(|n| n.is_actionable()).take(64) {
                let _ = tree.interactive_ancestor(n.id);
                let _ = tree.absorbed_labels(n);
            }
            true
        });
        let _ = tx.send(parsed.is_ok().then_some(parsed.unwrap_or(false)));
    });
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(Some(parsed)) => Ok(parsed),
        Ok(None) => Err(TestCaseError::fail(format!("panicked on {shown:?}"))),
        Err(_) => Err(TestCaseError::fail(format!(
            "no result within {CASE_TIMEOUT:?} on {shown:?}"
        ))),
    }
}

#[test]
fn arbitrary_text_never_panics() {
    let mut runner = TestRunner::new(config());
    let text = prop_oneof![
        "\\PC{0,400}",
        prop::collection::vec(any::<u8>(), 0..600)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        "(<[a-z/!?]{0,6}( [a-z-]{1,8}=\"[^\"]{0,12}\")*/?>){0,30}",
    ];
    runner
        .run(&text, |t| exercise(t).map(|_| ()))
        .expect("arbitrary text");
    eprintln!("arbitrary_text_never_panics: {} cases", cases());
}

#[test]
fn damaged_real_captures_never_panic() {
    let caps = captures();
    let n = caps.len();
    let mut runner = TestRunner::new(config());
    let parsed = std::cell::Cell::new(0u32);
    let edits = (
        0..n,
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0u8..4,
                prop::sample::select(
                    &[
                        "<",
                        ">",
                        "\"",
                        "&",
                        "&#0;",
                        "]",
                        "[",
                        "-",
                        "99999999999",
                        "\u{202e}",
                        "<node",
                        "</node>",
                        "bounds=\"",
                        "\0",
                        "\n",
                    ][..],
                ),
            ),
            1..8,
        ),
    );
    runner
        .run(&edits, |(which, edits)| {
            let mut text = caps[which].clone();
            for (at, op, piece) in edits {
                let mut i = at.index(text.len().max(1));
                while i > 0 && !text.is_char_boundary(i) {
                    i -= 1;
                }
                match op {
                    0 => text.insert_str(i, piece),
                    1 => {
                        let end = (i + 40).min(text.len());
                        let end = (end..=text.len())
                            .find(|e| text.is_char_boundary(*e))
                            .unwrap_or(text.len());
                        text.replace_range(i..end, "");
                    }
                    2 => text.truncate(i),
                    _ => {
                        // Rewrite a number: bounds, indices, sizes.
                        if let Some(p) = text[i..].find(|c: char| c.is_ascii_digit()) {
                            text.replace_range(i + p..i + p + 1, piece);
                        }
                    }
                }
            }
            if exercise(text)? {
                parsed.set(parsed.get() + 1);
            }
            Ok(())
        })
        .expect("damaged captures");
    eprintln!(
        "damaged_real_captures_never_panic: {} cases over {n} captures, {} still parsed",
        cases(),
        parsed.get()
    );
}

fn attr_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[^\"<&]{0,16}",
        Just("[0,0][0,0]".to_string()),
        (any::<i64>(), any::<i64>(), any::<i64>(), any::<i64>())
            .prop_map(|(a, b, c, d)| format!("[{a},{b}][{c},{d}]")),
        Just("[2147483647,2147483647][-2147483648,-2147483648]".to_string()),
        Just("true".to_string()),
        Just("&#x202e;&#x1b;[2J".to_string()),
    ]
}

/// Generated dumps: real attribute names with hostile values, several windows, deep chains.
#[test]
fn generated_dumps_never_panic() {
    const NAMES: &[&str] = &[
        "index",
        "text",
        "resource-id",
        "class",
        "package",
        "content-desc",
        "checkable",
        "checked",
        "clickable",
        "enabled",
        "focusable",
        "focused",
        "scrollable",
        "long-clickable",
        "password",
        "selected",
        "bounds",
        "visible-to-user",
        "drawing-order",
        "hint",
        "display-id",
    ];
    let node = prop::collection::vec((prop::sample::select(NAMES), attr_value()), 0..10);
    let dump = (
        prop::collection::vec(node, 1..40),
        1usize..4,
        0usize..3000,
        any::<bool>(),
    );
    let mut runner = TestRunner::new(config());
    runner
        .run(&dump, |(nodes, windows, depth, clickable)| {
            let mut xml = String::from("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>");
            for w in 0..windows {
                xml.push_str("<hierarchy rotation=\"0\">");
                for (i, attrs) in nodes.iter().enumerate() {
                    xml.push_str("<node");
                    let mut seen = std::collections::BTreeSet::new();
                    for (k, v) in attrs {
                        if seen.insert(*k) {
                            xml.push_str(&format!(" {k}=\"{v}\""));
                        }
                    }
                    // Nest the first node of the first window `depth` deep.
                    if w == 0 && i == 0 {
                        xml.push('>');
                        let link = if clickable {
                            "<node class=\"d\" clickable=\"true\" text=\"t\">"
                        } else {
                            "<node class=\"d\" text=\"t\">"
                        };
                        xml.push_str(&link.repeat(depth));
                        xml.push_str(&"</node>".repeat(depth));
                        xml.push_str("</node>");
                    } else {
                        xml.push_str("/>");
                    }
                }
                xml.push_str("</hierarchy>");
            }
            xml.push_str("UI hierchary dumped to: /dev/tty");
            exercise(xml).map(|_| ())
        })
        .expect("generated dumps");
    eprintln!("generated_dumps_never_panic: {} cases", cases());
}
