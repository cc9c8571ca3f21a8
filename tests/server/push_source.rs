//! `android_push_file` reads its local source exactly once, from a handle opened inside the
//! allowed roots without following a link: a racing thread that swaps the source (or a parent
//! directory) for a symlink to a file outside never gets that file onto the device, however
//! many tries; a hard link to an outside file is refused; ordinary files still push. What
//! reached the device is read back from the virtual device's own file system.
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use spock_tui::config::Config;
use spock_tui::mcp::events::Outcome;

use crate::support::device_rig;
use device_rig::{Rig, rig_with, stdio_call};

const SECRET: &[u8] = b"SECRET from outside the roots";
const TRIES: usize = 300;

fn device_file(r: &Rig, path: &str) -> Option<Vec<u8>> {
    r.dev
        .with_state(|s| s.fs.read(path).ok().map(|b| b.to_vec()))
}

/// Swaps `at` between the regular file or directory there and a symlink to `outside` until
/// told to stop. Each state is put in place with one rename.
fn racer(at: &Path, outside: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let (at, outside) = (at.to_path_buf(), outside.to_path_buf());
    std::thread::spawn(move || {
        let link = at.with_extension("link");
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            // The real one aside, the link in its place, then back.
            let aside = at.with_extension("aside");
            if std::fs::rename(&at, &aside).is_ok() {
                std::fs::rename(&link, &at).unwrap();
                std::thread::yield_now();
                std::fs::remove_file(&at).unwrap();
                std::fs::rename(&aside, &at).unwrap();
                swaps += 1;
            }
            std::thread::yield_now();
        }
        swaps
    })
}

/// Pushes `local` to a fresh device name each try: (pushed, refused).
async fn race(r: &Rig, local: &Path, label: &str) -> (usize, usize) {
    let (mut pushed, mut refused) = (0, 0);
    for i in 0..TRIES {
        let dp = format!("/sdcard/race-{label}-{i}");
        let done = stdio_call(
            &r.core,
            "android_push_file",
            json!({"localPath": local, "devicePath": dp}),
        )
        .await;
        match device_file(r, &dp) {
            Some(bytes) => {
                assert_ne!(
                    bytes, SECRET,
                    "try {i}: the outside file reached the device"
                );
                assert_eq!(done.outcome, Outcome::Ok, "{:?}", done.result);
                pushed += 1;
            }
            None => {
                assert_ne!(done.outcome, Outcome::Ok, "{:?}", done.result);
                refused += 1;
            }
        }
    }
    (pushed, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_in_during_the_push_never_sends_the_outside_file() {
    let r = rig_with(false, Config::default_config()).await;
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().join("secret");
    std::fs::write(&outside, SECRET).unwrap();
    let pulls = r.core.paths.pull_dir();
    std::fs::create_dir_all(&pulls).unwrap();

    // The file itself swapped.
    let src = pulls.join("src.txt");
    std::fs::write(&src, b"inside").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let t = racer(&src, &outside, stop.clone());
    let (pushed, refused) = race(&r, &src, "file").await;
    stop.store(true, Ordering::Relaxed);
    let swaps = t.join().unwrap();
    eprintln!("file swap: {pushed} pushed, {refused} refused, {swaps} swaps");
    assert_eq!(pushed + refused, TRIES);

    // A parent directory swapped for a link to a directory outside holding the same name.
    let sub = pulls.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("f.txt"), b"inside too").unwrap();
    std::fs::write(outside_dir.path().join("f.txt"), SECRET).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let t = racer(&sub, outside_dir.path(), stop.clone());
    let (pushed, refused) = race(&r, &sub.join("f.txt"), "dir").await;
    stop.store(true, Ordering::Relaxed);
    let swaps = t.join().unwrap();
    eprintln!("directory swap: {pushed} pushed, {refused} refused, {swaps} swaps");
    assert_eq!(pushed + refused, TRIES);
    assert_eq!(std::fs::read(&outside).unwrap(), SECRET);
}

#[tokio::test]
async fn a_hard_link_to_an_outside_file_is_refused_and_ordinary_files_push() {
    let r = rig_with(false, Config::default_config()).await;
    let pulls = r.core.paths.pull_dir();
    std::fs::create_dir_all(&pulls).unwrap();
    // Outside the roots but on the same file system (a hard link cannot cross one).
    let outside = r.core.paths.data.join("outside-secret");
    std::fs::write(&outside, SECRET).unwrap();
    let linked = pulls.join("innocent.txt");
    std::fs::hard_link(&outside, &linked).unwrap();
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": linked, "devicePath": "/sdcard/linked.txt"}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Refused, "{:?}", done.result);
    let msg = done.result.unwrap_err().message;
    assert!(
        msg.contains("2 hard links") && msg.contains("copy it into the root"),
        "{msg}"
    );
    assert_eq!(device_file(&r, "/sdcard/linked.txt"), None);

    let plain = pulls.join("plain.txt");
    std::fs::write(&plain, b"plain bytes").unwrap();
    let done = stdio_call(
        &r.core,
        "android_push_file",
        json!({"localPath": plain, "devicePath": "/sdcard/plain.txt"}),
    )
    .await;
    assert_eq!(done.outcome, Outcome::Ok, "{:?}", done.result);
    assert_eq!(
        device_file(&r, "/sdcard/plain.txt").as_deref(),
        Some(&b"plain bytes"[..])
    );
}

/// Issue 31 review: two agents push different files to one new path at the same moment.
/// Nobody is asked (nothing is there), so the second must not replace the first's bytes:
/// exactly one push lands and the other is refused, every round, with replies slowed so the
/// two checks overlap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pushes_to_one_new_path_never_replace_each_other() {
    let r = rig_with(false, Config::default_config()).await;
    let pulls = r.core.paths.pull_dir();
    std::fs::create_dir_all(&pulls).unwrap();
    let (a, b) = (pulls.join("a.bin"), pulls.join("b.bin"));
    std::fs::write(&a, vec![b'a'; 256 * 1024]).unwrap();
    std::fs::write(&b, vec![b'b'; 256 * 1024]).unwrap();
    r.faults()
        .apply(&spock_tui::sim::faults::FaultCommand::Delay { ms: 20 });
    for round in 0..4 {
        let dp = format!("/sdcard/Download/race-{round}.bin");
        let (x, y) = tokio::join!(
            stdio_call(
                &r.core,
                "android_push_file",
                json!({"localPath": a, "devicePath": dp})
            ),
            stdio_call(
                &r.core,
                "android_push_file",
                json!({"localPath": b, "devicePath": dp})
            ),
        );
        let landed: Vec<u8> = [(&x, b'a'), (&y, b'b')]
            .iter()
            .filter(|(o, _)| o.outcome == Outcome::Ok)
            .map(|(_, c)| *c)
            .collect();
        assert_eq!(landed.len(), 1, "round {round}: {x:?} {y:?}");
        let on_device =
            device_file(&r, &dp.replace("/sdcard", "/storage/emulated/0")).expect("pushed");
        assert!(
            on_device.iter().all(|c| *c == landed[0]),
            "round {round}: the file on the device is not the one whose push succeeded"
        );
    }
}
