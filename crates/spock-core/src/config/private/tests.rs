use super::*;
use std::os::unix::fs::{PermissionsExt, symlink};

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

/// The uid `nobody` has on Debian; any uid that is not ours does.
const NOBODY: u32 = 65534;

fn chown(p: &Path, uid: u32) -> bool {
    std::os::unix::fs::lchown(p, Some(uid), None).is_ok()
}

#[test]
fn a_planted_symlink_at_a_file_is_refused_and_its_target_untouched() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("private");
    private_dir(&dir).unwrap();
    let victim = t.path().join("victim");
    std::fs::write(&victim, b"precious\nbytes").unwrap();
    let link = dir.join("secret");
    symlink(&victim, &link).unwrap();
    for e in [
        write_atomic(&link, b"new").unwrap_err(),
        open(&link, Open::Append).unwrap_err(),
        open(&link, Open::Write).unwrap_err(),
        open(&link, Open::ReadWrite).unwrap_err(),
        read(&link).unwrap_err(),
    ] {
        assert_eq!(problem(&e), Some(&Problem::Symlink), "{e}");
        assert!(e.to_string().contains(&link.display().to_string()), "{e}");
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious\nbytes");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_planted_symlink_at_a_directory_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let elsewhere = t.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).unwrap();
    let link = t.path().join("private");
    symlink(&elsewhere, &link).unwrap();
    let e = private_dir(&link).unwrap_err();
    assert_eq!(problem(&e), Some(&Problem::Symlink), "{e}");
    let e = write_atomic(&link.join("token"), b"x").unwrap_err();
    assert_eq!(problem(&e), Some(&Problem::Symlink), "{e}");
    assert_eq!(
        mode(&elsewhere),
        0o755,
        "the link's target was not chmodded"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn loose_modes_are_fixed() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("private");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let f = dir.join("config.toml");
    std::fs::write(&f, b"x").unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(read(&f).unwrap(), b"x");
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&f), 0o600);
    write_atomic(&dir.join("new"), b"y").unwrap();
    assert_eq!(mode(&dir.join("new")), 0o600);
}

#[test]
fn someone_elses_file_or_directory_is_refused_untouched() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("private");
    private_dir(&dir).unwrap();
    let f = dir.join("audit.jsonl");
    std::fs::write(&f, b"theirs").unwrap();
    if !chown(&f, NOBODY) {
        eprintln!("not root: cannot make a file someone else's; skipped");
        return;
    }
    for e in [
        read(&f).unwrap_err(),
        open(&f, Open::Append).unwrap_err(),
        write_atomic(&f, b"ours").unwrap_err(),
    ] {
        assert!(
            matches!(
                problem(&e),
                Some(Problem::ForeignOwner { owner: NOBODY, .. })
            ),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&f).unwrap(), b"theirs");
    assert!(chown(&dir, NOBODY));
    let e = private_dir(&dir).unwrap_err();
    assert!(
        matches!(problem(&e), Some(Problem::ForeignOwner { .. })),
        "{e}"
    );
}

#[test]
fn a_planted_temp_name_is_not_followed() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("private");
    private_dir(&dir).unwrap();
    let victim = t.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let tmp = dir.join(format!(".token.{}.tmp", std::process::id()));
    symlink(&victim, &tmp).unwrap();
    write_atomic(&dir.join("token"), b"fresh").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(std::fs::read(dir.join("token")).unwrap(), b"fresh");
    assert!(!tmp.exists() && std::fs::symlink_metadata(&tmp).is_err());
}

#[test]
fn a_fifo_is_refused_without_hanging() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("private");
    private_dir(&dir).unwrap();
    let f = dir.join("token");
    let c = CString::new(f.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = read(&f).unwrap_err();
    assert_eq!(problem(&e), Some(&Problem::NotFile), "{e}");
}
