//! System services answered the way Android 14's own shell commands answer: `dumpsys gfxinfo`
//! (frame counts that follow what was done to each app), `cmd uimode night` (a dark theme kept
//! in `Settings.Secure`) and `pm trim-caches` (its size argument read as `Long.parseLong`).
use spock_sim::device::SimDevice;

use super::sh;

/// The number after `label: ` on the first line that starts with it.
fn field(dump: &str, label: &str) -> String {
    dump.lines()
        .find_map(|l| l.strip_prefix(label)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("no {label:?} in\n{dump}"))
        .to_string()
}

async fn frames(dev: &SimDevice, package: &str) -> u32 {
    let r = sh(dev, &format!("dumpsys gfxinfo {package}")).await;
    assert_eq!(r.code, 0, "{}", r.err);
    field(&r.text(), "Total frames rendered").parse().unwrap()
}

#[tokio::test]
async fn gfxinfo_counts_what_the_app_in_front_drew() {
    let dev = SimDevice::demo();
    let shop = "com.example.shop";
    let r = sh(&dev, "dumpsys gfxinfo com.example.shop").await;
    assert_eq!(
        (r.code, r.text().as_str()),
        (0, "No process found for: com.example.shop\n")
    );
    assert!(
        sh(&dev, "dumpsys -l")
            .await
            .text()
            .contains("\n  gfxinfo\n")
    );

    sh(
        &dev,
        "monkey -p com.example.shop -c android.intent.category.LAUNCHER 1",
    )
    .await;
    let pid = sh(&dev, "pidof com.example.shop").await.text();
    let dump = sh(&dev, "dumpsys gfxinfo com.example.shop").await.text();
    let header = format!(
        "Applications Graphics Acceleration Info:\nUptime: {u} Realtime: {u}\n\n\
         ** Graphics info for pid {pid} [com.example.shop] **\n\nStats since: ",
        u = field(&dump, "Uptime").split(' ').next().unwrap(),
        pid = pid.trim(),
    );
    assert!(dump.starts_with(&header), "{dump}");
    // The launch: a new window, its first frame slow on the UI thread.
    assert_eq!(field(&dump, "Total frames rendered"), "16");
    assert_eq!(field(&dump, "Janky frames"), "1 (6.25%)");
    assert_eq!(field(&dump, "Janky frames (legacy)"), "1 (6.25%)");
    assert_eq!(field(&dump, "Number Slow UI thread"), "1");
    assert_eq!(field(&dump, "Number Frame deadline missed"), "1");
    assert_eq!(field(&dump, "50th percentile"), "6ms");
    assert_eq!(field(&dump, "99th percentile"), "27ms");
    assert!(dump.contains("\nHISTOGRAM: 5ms=5 6ms=4 7ms=3 8ms=2 9ms=1 10ms=0 "));
    assert!(dump.contains(" 133ms=0 150ms=0 200ms=0 "), "{dump}");
    assert!(
        dump.contains(
            "\tcom.example.shop/com.example.shop.MainActivity/android.view.ViewRootImpl@"
        )
    );
    assert!(
        !dump.contains("---PROFILEDATA---"),
        "framestats only when asked"
    );

    // Taps, text and keys in front: 6 frames each; focusing a field changes no screen.
    for _ in 0..3 {
        sh(&dev, "input tap 540 635").await;
    }
    assert_eq!(frames(&dev, shop).await, 16 + 3 * 6);
    sh(&dev, "input text hello").await;
    sh(&dev, "input keyevent KEYCODE_A").await;
    assert_eq!(frames(&dev, shop).await, 16 + 5 * 6);

    // In the background the shop draws nothing; the launcher in front does.
    sh(&dev, "input keyevent KEYCODE_HOME").await;
    let launcher = "com.google.android.apps.nexuslauncher";
    let home_before = frames(&dev, launcher).await;
    sh(&dev, "input tap 800 1500").await;
    sh(&dev, "input swipe 800 1500 200 1500").await;
    assert_eq!(frames(&dev, shop).await, 16 + 5 * 6);
    assert_eq!(frames(&dev, launcher).await, home_before + 2 * 6);

    // Back in front (a warm start): the window's frames again.
    sh(&dev, "am start -n com.example.shop/.MainActivity").await;
    assert_eq!(frames(&dev, shop).await, 16 + 5 * 6 + 16);

    // framestats: the window's own summary, then its last frames between the markers.
    let stats = sh(&dev, "dumpsys gfxinfo com.example.shop framestats")
        .await
        .text();
    assert!(
        stats.contains("\nWindow: com.example.shop/com.example.shop.MainActivity\nStats since: ")
    );
    let block = stats
        .split("---PROFILEDATA---\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no PROFILEDATA in {stats}"));
    let mut lines = block.lines();
    assert_eq!(
        lines.next(),
        Some(
            "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,\
             AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,\
             FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,\
             FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,\
             SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,"
        )
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 62, "one row a frame");
    assert!(
        rows.iter().all(|r| r.matches(',').count() == 23),
        "{rows:?}"
    );
    assert!(stats.contains("\n---PROFILEDATA---\n\n"));

    // reset: this dump still shows the counts, the next one counts from zero.
    let r = sh(&dev, "dumpsys gfxinfo com.example.shop reset").await;
    assert_eq!(r.code, 0);
    assert_eq!(field(&r.text(), "Total frames rendered"), "62");
    let zero = sh(&dev, "dumpsys gfxinfo com.example.shop").await.text();
    assert_eq!(field(&zero, "Total frames rendered"), "0");
    assert_eq!(field(&zero, "Janky frames"), "0 (0.00%)");
    assert_eq!(field(&zero, "Number Slow UI thread"), "0");
    assert_eq!(
        field(&zero, "50th percentile"),
        "4950ms",
        "as hwui has it with no frames"
    );
    sh(&dev, "input tap 540 635").await;
    assert_eq!(frames(&dev, shop).await, 6);

    // The counts live in the process: a stopped app has none.
    sh(&dev, "am force-stop com.example.shop").await;
    let r = sh(&dev, "dumpsys gfxinfo com.example.shop").await;
    assert_eq!(r.text(), "No process found for: com.example.shop\n");
}

#[tokio::test]
async fn gfxinfo_finds_a_process_by_pid_and_dumps_all_without_an_argument() {
    let dev = SimDevice::demo();
    sh(&dev, "am start -n com.example.notes/.NotesActivity").await;
    let pid = sh(&dev, "pidof com.example.notes").await.text();
    let by_pid = sh(&dev, &format!("dumpsys gfxinfo {}", pid.trim()))
        .await
        .text();
    assert!(by_pid.contains(&format!(
        "** Graphics info for pid {} [com.example.notes] **",
        pid.trim()
    )));
    assert_eq!(by_pid.matches("** Graphics info for pid").count(), 1);
    let all = sh(&dev, "dumpsys gfxinfo").await.text();
    assert_eq!(all.matches("** Graphics info for pid").count(), 2, "{all}");
    assert!(all.contains("[com.google.android.apps.nexuslauncher] **"));
    assert!(
        all.contains("---PROFILEDATA---"),
        "no argument dumps the frames too"
    );
    let r = sh(&dev, "dumpsys gfxinfo 99999").await;
    assert_eq!(r.text(), "No process found for: 99999\n");
}

#[tokio::test]
async fn night_mode_persists_and_agrees_with_settings() {
    let dev = SimDevice::demo();
    let night = |dev: &SimDevice| {
        let dev = dev.clone();
        async move { sh(&dev, "cmd uimode night").await.text() }
    };
    let setting = |dev: &SimDevice, key: &'static str| {
        let dev = dev.clone();
        async move { sh(&dev, &format!("settings get secure {key}")).await.text() }
    };
    assert!(sh(&dev, "cmd -l").await.text().contains("\n  uimode\n"));
    assert_eq!(night(&dev).await, "Night mode: no\n");
    assert_eq!(setting(&dev, "ui_night_mode").await, "1\n");

    let r = sh(&dev, "cmd uimode night yes").await;
    assert_eq!((r.code, r.text().as_str()), (0, "Night mode: yes\n"));
    assert_eq!(night(&dev).await, "Night mode: yes\n", "the mode stays");
    assert_eq!(setting(&dev, "ui_night_mode").await, "2\n");

    assert_eq!(
        sh(&dev, "cmd uimode night auto").await.text(),
        "Night mode: auto\n"
    );
    assert_eq!(setting(&dev, "ui_night_mode").await, "0\n");
    let r = sh(&dev, "cmd uimode night custom_bedtime").await;
    assert_eq!(r.text(), "Night mode: custom_bedtime\n");
    assert_eq!(setting(&dev, "ui_night_mode").await, "3\n");
    assert_eq!(setting(&dev, "ui_night_mode_custom_type").await, "1\n");

    // A mode it does not know changes nothing.
    let r = sh(&dev, "cmd uimode night maybe").await;
    assert_eq!(r.code, 255);
    assert_eq!(r.text(), "");
    assert_eq!(
        r.err,
        "Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or 'custom_bedtime'\n"
    );
    assert_eq!(night(&dev).await, "Night mode: custom_bedtime\n");

    // The setting is where the mode lives: written there, it is the mode.
    sh(&dev, "settings put secure ui_night_mode 1").await;
    assert_eq!(night(&dev).await, "Night mode: no\n");

    let help = sh(&dev, "cmd uimode").await;
    assert_eq!(help.code, 255);
    assert!(
        help.text()
            .starts_with("UiModeManager service (uimode) commands:\n")
    );
}

#[tokio::test]
async fn trim_caches_takes_a_size_and_refuses_what_it_cannot_read() {
    let dev = SimDevice::demo();
    for ok in [
        "pm trim-caches 999G",
        "pm trim-caches 10k",
        "pm trim-caches 1048576",
        "pm trim-caches 5G false",
        "cmd package trim-caches 512M internal",
    ] {
        let r = sh(&dev, ok).await;
        assert_eq!(
            (r.code, r.text().as_str(), r.err.as_str()),
            (0, "", ""),
            "{ok}"
        );
    }
    for (bad, code, err) in [
        ("pm trim-caches", 1, "Error: no size specified\n"),
        ("pm trim-caches 12X", 1, "Invalid suffix: X\n"),
        (
            "pm trim-caches lotsG",
            1,
            "Error: expected number at: lots\n",
        ),
        ("pm trim-caches 1.5G", 1, "Error: expected number at: 1.5\n"),
        (
            "cmd package trim-caches G",
            1,
            "Error: expected number at: \n",
        ),
    ] {
        let r = sh(&dev, bad).await;
        assert_eq!(
            (r.code, r.err.as_str(), r.text().as_str()),
            (code, err, ""),
            "{bad}"
        );
    }
}
