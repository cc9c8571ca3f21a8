//! The audit trail survives SIGKILL: a child process (this test binary re-executed with
//! `--exact crash_child` and an environment variable) appends 1,000 records and is killed
//! part-way; reopening must give back every record it had flushed, in order, with contiguous
//! sequence numbers, and lose at most the torn last line.
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;
use spock_tui::audit::{Audit, AuditRecord, Level, Outcome, Transport};

const DIR_VAR: &str = "SPOCK_AUDIT_CRASH_DIR";
const TOTAL: u64 = 1000;
const FLUSH_EVERY: u64 = 50;

/// Runs only when re-executed by `audit_survives_sigkill`; otherwise it returns at once.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(DIR_VAR) else {
        return;
    };
    let audit = Audit::open(std::path::Path::new(&dir), 5000).expect("open");
    for n in 1..=TOTAL {
        let mut r = AuditRecord::new(
            "android_run_adb_command",
            Level::Destructive,
            Transport::Stdio,
            json!({ "command": format!("echo {n}"), "reason": "crash test", "pad": "x".repeat(300) }),
        );
        r.outcome = Outcome::Ok;
        r.result = Some(json!({ "stdout": format!("{n}\n") }));
        audit.append(r);
        if n % FLUSH_EVERY == 0 {
            audit.flush_blocking().expect("flush");
            println!("flushed {n}");
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    println!("done");
}

#[test]
fn audit_survives_sigkill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exe = std::env::current_exe().expect("current exe");
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "crash_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(DIR_VAR, dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn child");
    let stdout = child.stdout.take().expect("stdout");
    let mut flushed = 0;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("line");
        if let Some(n) = line
            .strip_prefix("flushed ")
            .and_then(|n| n.parse::<u64>().ok())
        {
            flushed = n;
            if n >= 300 {
                break;
            }
        }
    }
    // Keep writing a little past the last flush, so the kill lands among unflushed writes.
    std::thread::sleep(std::time::Duration::from_millis(37));
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert!(!status.success(), "the child finished before it was killed");
    assert!(flushed >= 300, "child never reported a flush");

    let audit = Audit::open(dir.path(), 5000).expect("reopen");
    let report = audit.load_report();
    assert_eq!(report.skipped_corrupt, 0, "{report:?}");
    let seqs: Vec<u64> = audit.snapshot().iter().map(|r| r.seq).collect();
    assert!(
        seqs.len() as u64 >= flushed,
        "lost flushed records: {} < {flushed}",
        seqs.len()
    );
    assert!(
        (seqs.len() as u64) < TOTAL,
        "the kill did not interrupt the writes"
    );
    assert_eq!(
        seqs,
        (1..=seqs.len() as u64).collect::<Vec<_>>(),
        "not contiguous from 1"
    );
    for r in audit.snapshot() {
        assert_eq!(
            r.result.as_ref().expect("result")["stdout"],
            format!("{}\n", r.seq)
        );
    }
    // Appending after the crash continues the sequence on a clean line.
    let next = audit.append(AuditRecord::new(
        "t",
        Level::ReadOnly,
        Transport::Tui,
        json!({}),
    ));
    assert_eq!(next, seqs.len() as u64 + 1);
    audit.flush_blocking().expect("flush");
    drop(audit);
    let again = Audit::open(dir.path(), 5000).expect("reopen again");
    assert!(!again.load_report().torn_tail);
    assert_eq!(again.snapshot().len(), seqs.len() + 1);
}
