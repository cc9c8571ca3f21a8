//! The writer's anchors, sent to a TCP collector in the test, and the trail checked against
//! them; the state file that keeps sequence numbers from going back.
use std::io::Read as _;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use super::*;
use crate::audit::anchor::{Anchor, Reason, Target};

/// A collector: every byte any connection sends, and its address.
fn collector() -> (String, Arc<Mutex<Vec<u8>>>) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr").to_string();
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut c) = conn else { return };
            let g = g.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = c.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    g.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            });
        }
    });
    (addr, got)
}

/// RFC 6587 octet-counted frames, each parsed as an anchor.
fn frames(bytes: &[u8]) -> Vec<Anchor> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(sp) = rest.iter().position(|&b| b == b' ') {
        let len: usize = std::str::from_utf8(&rest[..sp])
            .unwrap()
            .parse()
            .expect("a length");
        let msg = &rest[sp + 1..sp + 1 + len];
        out.push(anchor::parse_line(std::str::from_utf8(msg).unwrap()).expect("an anchor"));
        rest = &rest[sp + 1 + len..];
    }
    out
}

fn wait_for(got: &Arc<Mutex<Vec<u8>>>, reason: Reason) -> Vec<Anchor> {
    for _ in 0..200 {
        let a = frames(&got.lock().unwrap());
        if a.iter().any(|a| a.reason == reason) {
            return a;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no {reason:?} anchor: {:?}", frames(&got.lock().unwrap()));
}

fn destructive(n: u64) -> AuditRecord {
    AuditRecord::new(
        "android_run_adb_command",
        Level::Destructive,
        Transport::Http,
        json!({ "n": n }),
    )
}

#[test]
fn the_writer_anchors_start_kept_records_and_stop_and_verify_checks_against_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (addr, got) = collector();
    let audit = Audit::open_anchored(
        dir.path(),
        100,
        Limits::default(),
        Target::Tcp(addr.clone()),
        None,
    )
    .expect("open");
    audit.append(rec("t", 1));
    audit.append(destructive(2));
    audit.append(rec("t", 3));
    audit.flush_blocking().expect("flush");
    drop(audit);
    let anchors = wait_for(&got, Reason::Stop);
    let seen: Vec<(Reason, u64)> = anchors.iter().map(|a| (a.reason, a.seq)).collect();
    assert_eq!(seen.first(), Some(&(Reason::Start, 0)), "{seen:?}");
    assert!(seen.contains(&(Reason::Record, 2)), "{seen:?}");
    assert_eq!(seen.last(), Some(&(Reason::Stop, 3)), "{seen:?}");
    assert_eq!(anchors[0].hash, GENESIS);
    assert!(
        anchors
            .iter()
            .all(|a| a.trail == anchor::trail_id(dir.path()))
    );

    let v = verify_anchored(dir.path(), &anchors).expect("verify");
    let r = v.anchors.expect("a report");
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert_eq!(r.highest, Some(3));

    // The newest record deleted: the chain alone still holds, the anchors do not.
    let path = dir.path().join("audit.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<&str> = text.lines().take(2).collect();
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    assert!(verify(dir.path()).unwrap().broken.is_none());
    let r = verify_anchored(dir.path(), &anchors)
        .unwrap()
        .anchors
        .unwrap();
    assert!(
        r.tampered.iter().any(|t| t.contains("ends at seq 2")),
        "{:?}",
        r.tampered
    );
}

#[test]
fn anchors_of_other_trails_in_the_same_log_are_passed_over() {
    let dir = tempfile::tempdir().expect("tempdir");
    let other = Anchor {
        trail: "someone-else".into(),
        run: "r".into(),
        seq: 99,
        hash: "a".repeat(64),
        time: String::new(),
        reason: Reason::Tick,
        cap: None,
        first: None,
        outcome: None,
    };
    let v = verify_anchored(dir.path(), &[other]).unwrap();
    let r = v.anchors.unwrap();
    assert_eq!((r.anchors, r.foreign), (0, 1));
    assert!(r.tampered.is_empty());
}

#[test]
fn sequence_numbers_never_go_back_after_the_newest_records_are_deleted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    for n in 0..4 {
        audit.append(rec("t", n));
    }
    audit.flush_blocking().expect("flush");
    drop(audit);
    std::fs::write(dir.path().join("audit.jsonl"), b"").unwrap();
    let audit = Audit::open(dir.path(), 100).expect("reopen");
    let report = audit.load_report();
    assert_eq!((report.file_seq, report.state_seq), (0, Some(4)));
    assert!(
        report.resumed().contains("records 1..=4 are missing"),
        "{}",
        report.resumed()
    );
    assert_eq!(audit.append(rec("t", 5)), 5);
}

#[test]
fn sequence_numbers_continue_from_the_rotated_file_when_the_live_one_is_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open(dir.path(), 100).expect("open");
    for n in 0..3 {
        audit.append(rec("t", n));
    }
    audit.flush_blocking().expect("flush");
    drop(audit);
    std::fs::rename(
        dir.path().join("audit.jsonl"),
        dir.path().join("audit.1.jsonl"),
    )
    .unwrap();
    std::fs::remove_file(dir.path().join(head::STATE_FILE)).unwrap();
    let audit = Audit::open(dir.path(), 100).expect("reopen");
    assert_eq!(audit.append(rec("t", 3)), 4);
    audit.flush_blocking().expect("flush");
    assert!(verify(dir.path()).unwrap().broken.is_none());
}

#[test]
fn anchors_reach_a_unix_datagram_socket_as_syslog_reads_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sock_path = dir.path().join("log");
    let sock = std::os::unix::net::UnixDatagram::bind(&sock_path).expect("bind");
    sock.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .expect("timeout");
    let trail = dir.path().join("trail");
    let audit = Audit::open_anchored(&trail, 10, Limits::default(), Target::Unix(sock_path), None)
        .expect("open");
    audit.append(destructive(1));
    audit.flush_blocking().expect("flush");
    let mut buf = [0u8; 2048];
    let mut got = Vec::new();
    while got.len() < 2 {
        let n = sock.recv(&mut buf).expect("an anchor");
        got.push(anchor::parse_line(std::str::from_utf8(&buf[..n]).unwrap()).expect("parses"));
    }
    assert_eq!((got[0].reason, got[0].seq), (Reason::Start, 0));
    assert_eq!((got[1].reason, got[1].seq), (Reason::Record, 1));
}

/// A trail over its 1 MiB cap, anchored to a collector: 800 records of 2 KB, every 50th a
/// destructive one, so the writer rotates, deletes its oldest files at the cap and copies their
/// kept records to the kept file.
fn capped_trail() -> (tempfile::TempDir, Arc<Mutex<Vec<u8>>>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (addr, got) = collector();
    let audit = Audit::open_anchored(
        dir.path(),
        100,
        Limits::total_mb(1),
        Target::Tcp(addr),
        None,
    )
    .expect("open");
    let pad = "x".repeat(2000);
    for n in 0..800u64 {
        let mut r = if n % 50 == 7 {
            destructive(n)
        } else {
            rec("android_get_screen", n)
        };
        r.arguments = json!({ "n": n, "pad": pad });
        audit.append(r);
    }
    audit.flush_blocking().expect("flush");
    // Every anchor sent by now has arrived once the last cap anchor (naming today's oldest) has.
    let oldest = verify(dir.path())
        .unwrap()
        .starts_after_deleted
        .expect("a cap deletion");
    for _ in 0..200 {
        if frames(&got.lock().unwrap())
            .iter()
            .any(|a| a.reason == Reason::Cap && a.first == Some(oldest))
        {
            return (dir, got);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("no cap anchor naming seq {oldest}");
}

/// Verify believes the writer's own deletion at the cap and no other.
#[test]
fn a_deletion_at_the_cap_is_told_from_one_by_hand_and_the_kept_file_is_checked() {
    let (dir, got) = capped_trail();
    let anchors = frames(&got.lock().unwrap());
    let cap = anchors.iter().rfind(|a| a.reason == Reason::Cap).unwrap();
    assert_eq!(cap.cap, Some(1024 * 1024));
    let start = anchors.iter().find(|a| a.reason == Reason::Start).unwrap();
    assert_eq!(start.cap, Some(1024 * 1024));
    let v = verify_anchored(dir.path(), &anchors).unwrap();
    let r = v.anchors.clone().unwrap();
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("deleted at the size cap")),
        "{:?}",
        r.notes
    );
    let kept = std::fs::read_to_string(dir.path().join(KEPT_FILE)).expect("kept file");
    assert!(kept.lines().count() >= 2, "{kept}");

    // The oldest rotated file deleted by hand: no cap deletion accounts for the new start.
    let oldest = trail_files(dir.path()).unwrap().remove(0);
    std::fs::remove_file(&oldest).unwrap();
    let r = verify_anchored(dir.path(), &anchors)
        .unwrap()
        .anchors
        .unwrap();
    assert!(
        r.tampered.iter().any(|t| t.contains("deleted by hand")),
        "{:?}",
        r.tampered
    );
}

/// A kept line forged from a real one (its outcome changed) disagrees with its anchor.
#[test]
fn a_kept_line_rewritten_disagrees_with_its_anchor() {
    let (dir, got) = capped_trail();
    let kept_path = dir.path().join(KEPT_FILE);
    let text = std::fs::read_to_string(&kept_path).unwrap();
    let first = text.lines().next().unwrap();
    let forged = first.replace("\"outcome\":\"ok\"", "\"outcome\":\"denied\"");
    assert_ne!(forged, first);
    std::fs::write(&kept_path, text.replacen(first, &forged, 1)).unwrap();
    let v = verify_anchored(dir.path(), &frames(&got.lock().unwrap())).unwrap();
    let r = v.anchors.unwrap();
    assert!(
        r.tampered.iter().any(|t| t.contains("forged or rewritten")),
        "{:?}",
        r.tampered
    );
}

#[test]
fn the_in_memory_kept_list_is_bounded_and_counts_what_it_let_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::open_with(dir.path(), 100, Limits::default()).expect("open");
    audit.set_kept_max(5);
    for n in 0..8 {
        audit.append(destructive(n));
    }
    audit.flush_blocking().expect("flush");
    let mut seen = Vec::new();
    audit.visit_recent(1, |r| seen.push(r.seq)).expect("visit");
    // The newest five kept records (4..=8) before the last record (8).
    assert_eq!(seen, vec![4, 5, 6, 7, 8]);
    assert_eq!(audit.trail_state().kept_out_of_memory, 3);
    // All eight are still on disk.
    let v = verify(dir.path()).unwrap();
    assert_eq!(v.records, 8);
}

#[test]
fn the_kept_file_over_its_cap_drops_only_refused_records_oldest_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(KEPT_FILE);
    let mut text = String::new();
    for n in 1..=100u64 {
        let mut r = destructive(n);
        r.seq = n;
        r.outcome = if n % 10 == 0 {
            Outcome::Ok
        } else {
            Outcome::Refused
        };
        r.arguments = json!({ "pad": "y".repeat(200) });
        text.push_str(&serde_json::to_string(&r).unwrap());
        text.push('\n');
    }
    crate::config::private::write_atomic(&path, text.as_bytes()).unwrap();
    let size = text.len() as u64;
    assert_eq!(super::file::trim_kept(&path, size).unwrap(), None);
    let upto = super::file::trim_kept(&path, size / 2)
        .unwrap()
        .expect("trimmed");
    let left = std::fs::read_to_string(&path).unwrap();
    assert!(left.len() as u64 <= size / 2 / 4 * 3, "{}", left.len());
    let seqs: Vec<u64> = left
        .lines()
        .map(|l| serde_json::from_str::<AuditRecord>(l).unwrap().seq)
        .collect();
    // Every call that ran is still there; the refused ones below `upto` are gone.
    for n in (10..=100).step_by(10) {
        assert!(seqs.contains(&n), "{seqs:?}");
    }
    assert!(
        seqs.iter().all(|&s| s % 10 == 0 || s >= upto),
        "{upto} {seqs:?}"
    );
    assert!(upto > 50, "{upto}");
    // Nothing left to drop: only calls that ran.
    let only_ran: String = left
        .lines()
        .filter(|l| l.contains("\"outcome\":\"ok\""))
        .map(|l| format!("{l}\n"))
        .collect();
    crate::config::private::write_atomic(&path, only_ran.as_bytes()).unwrap();
    assert_eq!(super::file::trim_kept(&path, 100).unwrap(), None);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), only_ran);
}
