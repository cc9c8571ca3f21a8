//! Private state refuses what someone else on the machine planted: a symlink at the audit file
//! (with a torn last line, which the load repair used to truncate through the link), at the
//! audit directory, at a batch task file, at the token file; a private directory left 0755
//! is fixed to 0700; files owned by another uid are refused. Every refusal names the path and
//! says what is wrong, and every link target is left byte-for-byte as it was.
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use spock_tui::audit::{Audit, Limits};
use spock_tui::batch::store::Store;
use spock_tui::batch::{Source, Step, Task};
use spock_tui::config::private;
use spock_tui::config::token;

/// What an attacker would like overwritten: a torn last line invites the truncating repair.
const VICTIM: &[u8] = b"{\"someone\":\"else's\"}\n{\"half a line";

fn victim(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("victim");
    std::fs::write(&p, VICTIM).unwrap();
    p
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn says_symlink(e: &dyn std::fmt::Display, path: &Path) {
    let s = e.to_string();
    assert!(
        s.contains("symbolic link") && s.contains(&path.display().to_string()),
        "{s}"
    );
}

#[test]
fn a_symlink_at_the_audit_file_is_refused_and_its_target_not_truncated() {
    let t = tempfile::tempdir().unwrap();
    let target = victim(t.path());
    let dir = t.path().join("audit");
    private::private_dir(&dir).unwrap();
    let link = dir.join("audit.jsonl");
    symlink(&target, &link).unwrap();
    let e = Audit::open_with(&dir, 100, Limits::default())
        .err()
        .expect("refused");
    says_symlink(&e, &link);
    assert_eq!(std::fs::read(&target).unwrap(), VICTIM);
    // A rotated file planted as a link is refused too, when the trail is read back.
    std::fs::remove_file(&link).unwrap();
    symlink(&target, dir.join("audit.1.jsonl")).unwrap();
    let e = spock_tui::audit::verify(&dir).expect_err("refused");
    says_symlink(&e, &dir.join("audit.1.jsonl"));
    assert_eq!(std::fs::read(&target).unwrap(), VICTIM);
}

#[test]
fn a_symlink_at_the_audit_directory_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let elsewhere = t.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("audit.jsonl"), VICTIM).unwrap();
    let link = t.path().join("audit");
    symlink(&elsewhere, &link).unwrap();
    let e = Audit::open_with(&link, 100, Limits::default())
        .err()
        .expect("refused");
    says_symlink(&e, &link);
    assert_eq!(
        std::fs::read(elsewhere.join("audit.jsonl")).unwrap(),
        VICTIM
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 1);
}

fn task(id: &str) -> Task {
    Task::new(
        Some(id.into()),
        "Login",
        vec![Step::new("android_take_screenshot", serde_json::json!({}))],
        Source::Manual,
    )
}

#[test]
fn a_symlink_at_a_batch_task_file_is_refused_both_ways() {
    let t = tempfile::tempdir().unwrap();
    let target = victim(t.path());
    let store = Store::new(t.path().join("batch"));
    store.put_task(&task("t0")).unwrap();
    let link = store.tasks_dir().join("t1.json");
    symlink(&target, &link).unwrap();
    let e = store.put_task(&task("t1")).unwrap_err();
    says_symlink(&e, &link);
    let e = store.get_task("t1").unwrap_err();
    says_symlink(&e, &link);
    // Listing skips it (with a warning) instead of reading through it.
    let listed: Vec<String> = store
        .list_tasks()
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(listed, ["t0"]);
    assert_eq!(std::fs::read(&target).unwrap(), VICTIM);
    // The private part (values a replay types) likewise.
    let plink = store.private_dir().join("t2.json");
    private::private_dir(&store.private_dir()).unwrap();
    symlink(&target, &plink).unwrap();
    let mut secret = task("t2");
    secret.steps[0].private = Some(serde_json::json!({"text": "hunter2"}));
    let e = store.put_task(&secret).unwrap_err();
    says_symlink(&e, &plink);
    assert_eq!(std::fs::read(&target).unwrap(), VICTIM);
}

#[test]
fn a_symlink_at_the_token_file_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let target = t.path().join("attacker-token");
    std::fs::write(&target, b"0123456789abcdef\n").unwrap();
    let dir = t.path().join("config");
    private::private_dir(&dir).unwrap();
    let link = dir.join("token");
    symlink(&target, &link).unwrap();
    // Not read (the attacker's token would be accepted) and not replaced.
    let e = token::load_or_create(&link).unwrap_err();
    says_symlink(&e, &link);
    let e = token::rotate(&link).unwrap_err();
    says_symlink(&e, &link);
    assert_eq!(std::fs::read(&target).unwrap(), b"0123456789abcdef\n");
}

#[test]
fn a_0755_private_directory_is_fixed_to_0700() {
    let t = tempfile::tempdir().unwrap();
    let store = Store::new(t.path().join("batch"));
    std::fs::create_dir_all(store.tasks_dir()).unwrap();
    std::fs::set_permissions(store.tasks_dir(), std::fs::Permissions::from_mode(0o755)).unwrap();
    store.put_task(&task("t1")).unwrap();
    assert_eq!(mode(&store.tasks_dir()), 0o700);
    let audit = t.path().join("audit");
    std::fs::create_dir(&audit).unwrap();
    std::fs::set_permissions(&audit, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(audit.join("audit.jsonl"), b"").unwrap();
    std::fs::set_permissions(
        audit.join("audit.jsonl"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    drop(Audit::open_with(&audit, 100, Limits::default()).unwrap());
    assert_eq!(mode(&audit), 0o700);
    assert_eq!(mode(&audit.join("audit.jsonl")), 0o600);
}

#[test]
fn files_owned_by_another_uid_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let nobody = 65534;
    let dir = t.path().join("audit");
    private::private_dir(&dir).unwrap();
    let f = dir.join("audit.jsonl");
    std::fs::write(&f, VICTIM).unwrap();
    if std::os::unix::fs::chown(&f, Some(nobody), None).is_err() {
        eprintln!("not root: cannot give a file away; skipped");
        return;
    }
    let e = Audit::open_with(&dir, 100, Limits::default())
        .err()
        .expect("refused");
    let s = e.to_string();
    assert!(
        s.contains("owned by uid 65534") && s.contains(&f.display().to_string()),
        "{s}"
    );
    assert_eq!(std::fs::read(&f).unwrap(), VICTIM);
    let tok = t.path().join("config");
    private::private_dir(&tok).unwrap();
    std::fs::write(tok.join("token"), b"theirs\n").unwrap();
    std::os::unix::fs::chown(tok.join("token"), Some(nobody), None).unwrap();
    let e = token::load_or_create(&tok.join("token")).unwrap_err();
    assert!(e.to_string().contains("owned by uid 65534"), "{e}");
}
