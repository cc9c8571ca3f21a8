//! Audit store behaviour: read-back repair, compaction, permissions, search, subscribe.
use std::io::Write;
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

#[test]
fn compaction_keeps_the_most_recent_cap() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 10).expect("open");
    for n in 0..25 {
        audit.append(rec("t", n));
    }
    audit.flush_blocking().expect("flush");
    let on_disk = lines(audit.path());
    assert!(on_disk.len() <= 20, "{} lines", on_disk.len());
    assert_eq!(audit.snapshot().len(), 10);
    drop(audit);
    let audit = Audit::open(dir.path(), 10).expect("reopen");
    let seqs: Vec<u64> = audit.snapshot().iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (16..=25).collect::<Vec<_>>());
    assert!(!dir.path().join("audit.jsonl.tmp").exists());
}

#[test]
fn an_oversized_file_is_compacted_at_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut f = std::fs::File::create(dir.path().join("audit.jsonl")).expect("create");
    for n in 1..=50 {
        let line = serde_json::to_string(&AuditRecord {
            seq: n,
            ..rec("t", n)
        })
        .expect("json");
        writeln!(f, "{line}").expect("write");
    }
    drop(f);
    let audit = Audit::open(dir.path(), 10).expect("open");
    audit.flush_blocking().expect("flush");
    assert_eq!(lines(audit.path()).len(), 10);
    assert_eq!(audit.append(rec("t", 0)), 51);
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
