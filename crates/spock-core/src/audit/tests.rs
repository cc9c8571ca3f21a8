//! Audit store behaviour: read-back repair, rotation under a cap, the hash chain, permissions, search, subscribe.
use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::*;

fn rec(tool: &str, n: u64) -> AuditRecord {
    let mut r = AuditRecord::new(tool, Level::ReadOnly, Transport::Http, json!({ "n": n }));
    r.result = Some(json!({ "text": format!("result {n}") }));
    r
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn appends_survive_reopen_and_seq_continues() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    for n in 0..5 {
        assert_eq!(audit.append(rec("android_tap", n)), n + 1);
    }
    audit.flush_blocking().expect("flush");
    drop(audit);
    let audit = Audit::open(dir.path(), 100).expect("reopen");
    assert_eq!(audit.snapshot().len(), 5);
    assert_eq!(audit.append(rec("android_tap", 5)), 6);
    assert_eq!(
        audit.recent(2).iter().map(|r| r.seq).collect::<Vec<_>>(),
        vec![5, 6]
    );
}

#[test]
fn file_and_dir_are_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("state");
    let audit = Audit::open(&sub, 10).expect("open");
    audit.append(rec("t", 0));
    audit.flush_blocking().expect("flush");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode(&sub), 0o700);
    assert_eq!(mode(audit.path()), 0o600);
}

#[test]
fn torn_tail_and_corrupt_middle_cost_only_those_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    for n in 0..4 {
        audit.append(rec("t", n));
    }
    audit.flush_blocking().expect("flush");
    let path = audit.path().to_path_buf();
    drop(audit);
    // Damage: a garbage line in the middle, and half a record at the end.
    let mut all = lines(&path);
    all.insert(2, "{not json".into());
    let torn = &all[3][..all[3].len() / 2].to_string();
    let mut text = all.join("\n") + "\n";
    text.push_str(torn);
    std::fs::write(&path, text).expect("write");

    let audit = Audit::open(dir.path(), 100).expect("reopen");
    let r = audit.load_report();
    assert_eq!((r.loaded, r.skipped_corrupt, r.torn_tail), (4, 1, true));
    assert_eq!(
        audit.snapshot().iter().map(|r| r.seq).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    // The torn half-line was cut off, so the next record starts on a line of its own.
    assert_eq!(audit.append(rec("t", 9)), 5);
    audit.flush_blocking().expect("flush");
    drop(audit);
    let audit = Audit::open(dir.path(), 100).expect("reopen again");
    let r = audit.load_report();
    assert_eq!((r.loaded, r.torn_tail), (5, false));
}

#[test]
fn a_tail_missing_only_its_newline_is_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let line = serde_json::to_string(&AuditRecord {
        seq: 7,
        ..rec("t", 0)
    })
    .expect("json");
    std::fs::write(dir.path().join("audit.jsonl"), &line).expect("write");
    let audit = Audit::open(dir.path(), 10).expect("open");
    assert_eq!(audit.snapshot().len(), 1);
    assert_eq!(audit.append(rec("t", 1)), 8);
    audit.flush_blocking().expect("flush");
    assert_eq!(lines(audit.path()).len(), 2);
}

fn small() -> Limits {
    Limits {
        rotate_bytes: 2000,
        max_total_bytes: 1_000_000,
    }
}

#[test]
fn the_live_file_rotates_and_no_record_is_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open_with(dir.path(), 10, small()).expect("open");
    for n in 0..60 {
        audit.append(rec("t", n));
    }
    audit.flush_blocking().expect("flush");
    let files = trail_files(dir.path()).expect("files");
    assert!(files.len() > 3, "{files:?}");
    assert_eq!(files.last(), Some(&dir.path().join("audit.jsonl")));
    assert_eq!(files[0], dir.path().join("audit.1.jsonl"));
    let v = verify(dir.path()).expect("verify");
    assert_eq!((v.records, v.broken), (60, None));
    // Every record is still read back, across the files, in order.
    let seqs: Vec<u64> = audit.recent(60).iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=60).collect::<Vec<_>>());
    assert_eq!(audit.snapshot().len(), 10);
    drop(audit);
    // Reopening continues the chain and the sequence.
    let audit = Audit::open_with(dir.path(), 10, small()).expect("reopen");
    assert_eq!(audit.append(rec("t", 60)), 61);
    audit.flush_blocking().expect("flush");
    let v = verify(dir.path()).expect("verify");
    assert_eq!((v.records, v.broken), (61, None));
}

#[test]
fn only_the_oldest_rotated_file_goes_and_only_over_the_cap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let limits = Limits {
        rotate_bytes: 2000,
        max_total_bytes: 8000,
    };
    let audit = Audit::open_with(dir.path(), 10, limits).expect("open");
    for n in 0..200 {
        audit.append(rec("t", n));
    }
    audit.flush_blocking().expect("flush");
    let files = trail_files(dir.path()).expect("files");
    let total: u64 = files
        .iter()
        .map(|p| std::fs::metadata(p).expect("stat").len())
        .sum();
    assert!(total <= 8000 + 2000, "{total}");
    assert!(!dir.path().join("audit.1.jsonl").exists());
    // What is left chains intact from the oldest file kept.
    let v = verify(dir.path()).expect("verify");
    assert_eq!(v.broken, None);
    assert!(audit.usage().bytes <= audit.usage().max_bytes + 2000);
}

/// The finding: an agent flooded the trail with large read-only calls until the size cap
/// deleted the oldest files, a denied uninstall with them, and `audit verify` still said
/// "intact". Each argument string is kept to 16 KiB (with its size and digest); a file the cap
/// deletes leaves its destructive, denied and refused records in `audit.kept.jsonl`, where a
/// restart finds them; verify says where the trail starts.
#[test]
fn a_flood_past_the_cap_cannot_take_the_kept_records_with_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let limits = Limits {
        rotate_bytes: 2000,
        max_total_bytes: 8000,
    };
    let audit = Audit::open_with(dir.path(), 10, limits).expect("open");
    let mut denied = rec("android_uninstall_app", 0);
    denied.outcome = Outcome::Denied;
    audit.append(denied);
    let mut big = rec("spock_get_logs", 1);
    big.arguments = serde_json::json!({"contains": "x y ".repeat(3 * 1024 * 1024)});
    audit.append(big);
    for n in 0..300 {
        audit.append(rec("android_get_screen", n));
    }
    audit.flush_blocking().expect("flush");
    assert!(
        !dir.path().join("audit.1.jsonl").exists(),
        "the cap deleted nothing"
    );
    let trail: u64 = trail_files(dir.path())
        .expect("files")
        .iter()
        .map(|p| std::fs::metadata(p).expect("stat").len())
        .sum();
    assert!(
        trail < 8000 + 2000 + 4096,
        "{trail}: the big argument was kept whole"
    );
    let kept = std::fs::read_to_string(dir.path().join(KEPT_FILE)).expect("kept file");
    assert!(
        kept.contains("android_uninstall_app") && kept.contains(r#""seq":1,"#),
        "{kept}"
    );
    let v = verify(dir.path()).expect("verify");
    assert_eq!(v.broken, None);
    assert!(v.starts_after_deleted.is_some_and(|s| s > 2), "{v:?}");
    drop(audit);
    let audit = Audit::open_with(dir.path(), 10, limits).expect("reopen");
    let mut seen = Vec::new();
    audit
        .visit_recent(10, |r| seen.push(r.tool))
        .expect("visit");
    assert_eq!(seen[0], "android_uninstall_app", "{seen:?}");
}

#[test]
fn near_the_cap_warns() {
    let u = Usage {
        bytes: 89,
        max_bytes: 100,
    };
    assert_eq!(u.warning(), None);
    let u = Usage {
        bytes: 90,
        max_bytes: 100,
    };
    assert!(u.warning().expect("warning").contains("90%"));
}

#[test]
fn destructive_denied_and_refused_records_stay_within_reach_of_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open_with(dir.path(), 50, small()).expect("open");
    let mut overwrite = rec("android_push_file", 0);
    overwrite.level = Level::Destructive;
    audit.append(overwrite);
    let mut denied = rec("android_uninstall_app", 0);
    denied.outcome = Outcome::Denied;
    audit.append(denied);
    for n in 0..2000 {
        audit.append(rec("android_get_screen", n));
    }
    let mut seen = Vec::new();
    audit
        .visit_recent(50, |r| seen.push((r.seq, r.tool)))
        .expect("visit");
    assert_eq!(seen.len(), 52);
    assert_eq!(seen[0], (1, "android_push_file".to_string()));
    assert_eq!(seen[1], (2, "android_uninstall_app".to_string()));
    assert_eq!(seen[2].0, 1953);
    drop(audit);
    // And after a restart, from the rotated files.
    let audit = Audit::open_with(dir.path(), 50, small()).expect("reopen");
    let mut seen = Vec::new();
    audit.visit_recent(50, |r| seen.push(r.seq)).expect("visit");
    assert_eq!(&seen[..3], &[1, 2, 1953]);
}

#[test]
fn search_matches_tool_arguments_and_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    audit.append(rec("android_tap", 1));
    let mut r = rec("android_run_adb_command", 2);
    r.arguments = json!({ "command": "dumpsys battery", "reason": "check" });
    r.outcome = Outcome::Error;
    r.error = Some("device offline".into());
    audit.append(r);
    assert_eq!(audit.search("TAP").len(), 1);
    assert_eq!(audit.search("dumpsys").len(), 1);
    assert_eq!(audit.search("result 1").len(), 1);
    assert_eq!(audit.search("offline").len(), 1);
    assert_eq!(audit.search("").len(), 2);
    assert!(audit.search("nothing like this").is_empty());
}

#[tokio::test]
async fn subscribers_see_new_records_and_images_are_scrubbed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    let mut rx = audit.subscribe();
    let mut r = rec("android_take_screenshot", 0);
    let data = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, vec![0u8; 8192]);
    r.result =
        Some(json!({ "content": [{ "type": "image", "data": data, "mimeType": "image/png" }] }));
    audit.append(r);
    let got = rx.recv().await.expect("record");
    assert_eq!(got.seq, 1);
    let image = &got.result.as_ref().expect("result")["content"][0];
    assert_eq!(image["omitted"], "image/png");
    assert_eq!(image["bytes"], 8192);
    audit.flush().await.expect("flush");
    let text = std::fs::read_to_string(audit.path()).expect("read");
    assert!(text.len() < 1024, "image bytes reached the file");
}

#[test]
fn recent_beyond_the_memory_window_comes_back_from_the_file() {
    let dir = tempfile::tempdir().expect("tmp");
    let audit = Audit::open(dir.path(), 5000).expect("open");
    for i in 0..2500u64 {
        let mut r = AuditRecord::new(
            "android_tap",
            Level::SafeAction,
            Transport::Stdio,
            serde_json::json!({ "i": i }),
        );
        r.result = Some(serde_json::json!({ "n": i }));
        audit.append(r);
    }
    audit.flush_blocking().expect("flush");
    assert!(
        audit.snapshot().len() <= 1000,
        "memory holds a bounded window"
    );
    let all = audit.recent(2500);
    assert_eq!(all.len(), 2500);
    assert!(
        all.windows(2).all(|w| w[1].seq == w[0].seq + 1),
        "contiguous, oldest first"
    );
    assert_eq!(all[0].result, Some(serde_json::json!({ "n": 0 })));
    assert_eq!(all[2499].arguments["i"], 2499);
    assert_eq!(audit.recent(10).len(), 10);
    let mut seen = Vec::new();
    audit
        .visit_recent(2000, |r| seen.push(r.seq))
        .expect("visit");
    assert_eq!(seen.len(), 2000);
    assert_eq!(seen.first(), Some(&501));
    assert!(seen.windows(2).all(|w| w[1] == w[0] + 1));
}

fn chained_trail(n: u64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    for i in 0..n {
        audit.append(rec("android_tap", i));
    }
    audit.flush_blocking().expect("flush");
    let path = audit.path().to_path_buf();
    drop(audit);
    (dir, path)
}

#[test]
fn each_record_carries_the_hash_of_the_line_before() {
    let (dir, path) = chained_trail(4);
    let lines = lines(&path);
    let prev = |l: &str| {
        serde_json::from_str::<serde_json::Value>(l).expect("json")["prev"]
            .as_str()
            .expect("prev")
            .to_string()
    };
    assert_eq!(prev(&lines[0]), GENESIS);
    for w in lines.windows(2) {
        assert_eq!(prev(&w[1]), chain::line_hash(w[0].as_bytes()));
    }
    let v = verify(dir.path()).expect("verify");
    assert_eq!((v.records, v.files, v.broken), (4, 1, None));
    // Reopening continues the chain from the last line on disk.
    let audit = Audit::open(dir.path(), 100).expect("reopen");
    audit.append(rec("t", 9));
    audit.flush_blocking().expect("flush");
    assert_eq!(verify(dir.path()).expect("verify").broken, None);
    assert_eq!(verify(dir.path()).expect("verify").records, 5);
}

#[test]
fn verify_names_an_altered_record() {
    let (dir, path) = chained_trail(5);
    let text = std::fs::read_to_string(&path).expect("read");
    // One byte of the third record's arguments: {"n":2} becomes {"n":7}.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[2].contains(r#""n":2"#), "{}", lines[2]);
    lines[2] = lines[2].replace(r#""n":2"#, r#""n":7"#);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let b = verify(dir.path()).expect("verify").broken.expect("a break");
    assert_eq!((b.line, b.seq), (3, Some(3)), "{b}");
    assert_eq!(b.file, path);
    assert!(b.what.contains("altered"), "{b}");
}

#[test]
fn verify_names_a_deleted_record() {
    let (dir, path) = chained_trail(5);
    let mut lines = lines(&path);
    lines.remove(2);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let b = verify(dir.path()).expect("verify").broken.expect("a break");
    assert_eq!((b.line, b.seq), (3, Some(4)), "{b}");
    assert!(b.what.contains("seq 3 is missing"), "{b}");
}

#[test]
fn a_garbled_line_is_a_break() {
    let (dir, path) = chained_trail(3);
    let mut lines = lines(&path);
    lines[1].replace_range(0..1, "x");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let b = verify(dir.path()).expect("verify").broken.expect("a break");
    assert_eq!((b.line, b.seq), (2, None), "{b}");
}

mod anchored;

/// A file planted in the trail's place, many GiB of zeros without a newline (sparse: it costs
/// its owner nothing): verify reads past it holding at most one bounded line, and says it is
/// not a record.
#[test]
fn verify_reads_past_a_huge_line_without_holding_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let audit = Audit::open(dir.path(), 10).expect("open");
    audit.append(rec("t", 1));
    audit.flush_blocking().expect("flush");
    drop(audit);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.path().join("audit.1.jsonl"))
        .unwrap();
    f.set_len(3 * super::file::MAX_LINE as u64).unwrap();
    let v = verify(dir.path()).unwrap();
    let b = v.broken.expect("a break");
    assert!(
        b.file.ends_with("audit.1.jsonl") && b.what.contains("not a valid record"),
        "{b}"
    );
}
