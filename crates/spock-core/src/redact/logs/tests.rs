//! A private key logged one logcat entry per line, spliced among the lines of the real
//! captures: hidden whole, whichever lines are fetched; the real lines are left alone.
use std::borrow::Cow;

use super::super::{Audience, Redactor};
use super::LogRef;
use crate::device::parse::logcat::{Filter, LogLine, LogTime, parse_threadtime};
use crate::testdata::{fixture, fixture_files};

/// A throwaway RSA key made for this test (`openssl genpkey -algorithm RSA`), never used.
const TEST_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIICeQIBADANBgkqhkiG9w0BAQEFAASCAmMwggJfAgEAAoGBAJT4GSbaBBQNkWcp
PREFvLNk4qy95DKNVzKCljdEV4vATIzqgoHpK8B9tr/PWKEjT+4IscjugeaN6nZd
OBU6eMjhYmUSqoBIdiNpnlDOucK0Y9qQoC4ThHrD+m/v/j1SmArH1fWr0KZ0amw3
RWFe/bngeZBBCz1wO6Gq2MD3RQhZAgMBAAECgYEAlC4tpq3avK+6YOluaw5P5AqI
R9gjs/1QLVgkYBlFFChWfR2Qb/UmpjTmoel4eeEMUvSnE/3bjSDBhre3X7ZoCbVQ
lf1U32UUnS1XLnwfU6H1RSs+cnfSGn+wZIO1oPV6+VEROUvjBL5ky0WYfSu1Ai9V
rlk8grk0GQMcwVlNxAECQQDFXtJNpa3g6zAvuD6EOL7QOs4gj7AVnU5ZncptEIvQ
6kbySU0aebiUw1LFVsiMeiA4BOPPljO8uAWjdfZTqrQZAkEAwTiRFtSIaZWzf9A0
6f7EGKcXqropmZMAVPzd2vqOOOFw4WQfatyb63mKM/ENX9hwbmRUq+kut9SfTptI
h7F+QQJBAJbwD/aPmKzkT6J+zViCqPJHtnFSUYAGH/AK6s6Dk9k+AOmzQwLXSWCD
C16dIpvDnbYZjzqmjIRrWuyJ/so3RqkCQQCPB5GXZdJo3lEWfwh8YoPEgAQr9EyR
C1lGkDymOa0H/BH0NopvL0kYIUslsf2lgnGPtiNbcmyL1g/rP1WMZN5BAkEAg0Vt
lLdj08ur44OLxM2Xry+m79Q8f5QHtHpwM1LJgSGuVb5eD3bo6L4Wv1Echf83wmME
9iORGbd4pVEum4dcXg==
-----END PRIVATE KEY-----";

const MARKER: &str = "«redacted:private-key»";

fn refs(lines: &[LogLine]) -> Vec<LogRef<'_>> {
    lines.iter().map(LogRef::from).collect()
}

fn shown(lines: &[LogLine], audience: Audience) -> Vec<LogLine> {
    let r = Redactor::with_defaults();
    let msgs = r.redact_log(&refs(lines), audience);
    lines
        .iter()
        .zip(msgs)
        .map(|(l, m)| LogLine {
            message: m.into_owned(),
            ..l.clone()
        })
        .collect()
}

/// The real capture with the key logged in its middle, as `stamp` says (each line's time).
fn spliced(stamp: impl Fn(usize) -> String) -> String {
    let real = fixture("misc/logcat-threadtime-crash-wsa.txt");
    let lines: Vec<&str> = real.lines().collect();
    let mid = lines.len() / 2;
    let mut out = lines[..mid].join("\n");
    out.push('\n');
    for (i, k) in TEST_KEY.lines().enumerate() {
        out.push_str(&format!("{}  4242  4242 D KeyStore: {k}\n", stamp(i)));
    }
    out.push_str(&lines[mid..].join("\n"));
    out.push('\n');
    out
}

fn body_lines() -> Vec<&'static str> {
    TEST_KEY
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .collect()
}

/// No line shown holds any part of the key, and every key line shows the marker.
fn assert_hidden(shown: &[LogLine]) {
    for l in shown {
        for b in body_lines() {
            assert!(!l.message.contains(b), "body line shown: {l:?}");
            assert!(!l.message.contains(&b[..12]), "body fragment shown: {l:?}");
        }
        assert!(!l.message.contains("BEGIN PRIVATE"), "{l:?}");
    }
    let n = shown.iter().filter(|l| l.tag == "KeyStore").count();
    assert!(n > 0);
    assert!(
        shown
            .iter()
            .filter(|l| l.tag == "KeyStore")
            .all(|l| l.message == MARKER),
        "{shown:?}"
    );
}

#[test]
fn a_key_logged_one_entry_per_line_is_hidden_whole() {
    let text = spliced(|_| "01-22 17:04:10.500".into());
    let all = parse_threadtime(&text);
    let agent = shown(&all, Audience::Agent);
    assert_hidden(&agent);
    // Every other line is as captured; the person sees the key (the rule is agent_only).
    for (a, b) in all.iter().zip(&agent) {
        if a.tag != "KeyStore" {
            assert_eq!(a, b);
        }
    }
    assert_eq!(shown(&all, Audience::Person), all);
}

#[test]
fn no_filter_returns_a_body_line() {
    let text = spliced(|_| "01-22 17:04:10.500".into());
    let agent = shown(&parse_threadtime(&text), Audience::Agent);
    let body = body_lines();
    let filters = [
        Filter {
            contains: Some(body[3][10..30].to_string()),
            ..Default::default()
        },
        Filter {
            tag: Some("KeyStore".into()),
            ..Default::default()
        },
        Filter {
            since: LogTime::parse("01-22 17:04:10.500"),
            ..Default::default()
        },
    ];
    for f in filters {
        let kept: Vec<LogLine> = agent.iter().filter(|l| f.matches(l)).cloned().collect();
        for l in &kept {
            for b in &body {
                assert!(!l.message.contains(b), "{f:?} returned {l:?}");
            }
        }
    }
    // `lines`: every tail, down to one line.
    for n in 1..agent.len() {
        for l in &agent[agent.len() - n..] {
            for b in &body {
                assert!(!l.message.contains(b), "tail {n} returned {l:?}");
            }
        }
    }
}

#[test]
fn a_key_logged_over_two_timestamps_is_hidden_whole() {
    // One `Log.d` per line, crossing a millisecond after the fourth line.
    let text = spliced(|i| {
        if i < 4 {
            "01-22 17:04:10.500".into()
        } else {
            "01-22 17:04:10.501".into()
        }
    });
    assert_hidden(&shown(&parse_threadtime(&text), Audience::Agent));
    // And a millisecond each.
    let text = spliced(|i| format!("01-22 17:04:10.{:03}", 500 + i));
    assert_hidden(&shown(&parse_threadtime(&text), Audience::Agent));
}

#[test]
fn body_lines_whose_begin_was_not_fetched_are_hidden() {
    let text = spliced(|_| "01-22 17:04:10.500".into());
    let all = parse_threadtime(&text);
    let begin = all
        .iter()
        .position(|l| l.message.contains("BEGIN PRIVATE"))
        .expect("begin");
    // logcat -t N cut the window anywhere inside the key.
    for cut in begin + 1..begin + TEST_KEY.lines().count() {
        let window = &all[cut..];
        let agent = shown(window, Audience::Agent);
        for l in &agent {
            for b in body_lines() {
                assert!(!l.message.contains(b), "window from {cut}: {l:?}");
            }
        }
        // The real lines after the key are left alone.
        for (a, b) in window.iter().zip(&agent) {
            if a.tag != "KeyStore" {
                assert_eq!(a, b);
            }
        }
    }
}

#[test]
fn a_rule_matching_across_lines_marks_each_line_it_covers() {
    let r = Redactor::with_defaults();
    let lines: Vec<&str> =
        "boot ok\nkey: -----BEGIN PRIVATE KEY-----\nMIIC\n-----END PRIVATE KEY----- done"
            .split('\n')
            .collect();
    let out = r.redact_lines(&lines, Audience::Agent);
    assert_eq!(
        out,
        vec![
            Cow::Borrowed("boot ok"),
            Cow::Owned(format!("key: {MARKER}")),
            Cow::Owned(MARKER.to_string()),
            Cow::Owned(format!("{MARKER} done")),
        ]
    );
    assert!(matches!(out[0], Cow::Borrowed(_)));
}

/// The real logcat captures, grouped and walked as `android_get_logcat` does: nothing changes.
#[test]
fn real_logcat_captures_are_left_alone() {
    let mut files = [fixture_files("misc"), fixture_files("public")]
        .concat()
        .into_iter()
        .filter(|f| {
            f.to_string_lossy().contains("logcat") && f.extension().is_some_and(|e| e == "txt")
        })
        .collect::<Vec<_>>();
    files.sort();
    assert!(files.len() >= 2, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).expect("capture");
        let all = parse_threadtime(&text);
        assert!(all.len() > 50, "{}", f.display());
        let r = Redactor::with_defaults();
        let out = r.redact_log(&refs(&all), Audience::Agent);
        for (l, m) in all.iter().zip(&out) {
            assert!(
                matches!(m, Cow::Borrowed(_)),
                "{}: {l:?} -> {m}",
                f.display()
            );
        }
    }
}

#[test]
fn a_match_on_a_later_line_leaves_the_earlier_lines_alone() {
    let r = Redactor::with_defaults();
    let lines = ["boot ok", "still booting", "password=hunter2"];
    let out = r.redact_lines(&lines, Audience::Agent);
    assert_eq!(
        out[..2],
        [Cow::Borrowed("boot ok"), Cow::Borrowed("still booting")]
    );
    assert_eq!(out[2], "password=«redacted:password»");
}
