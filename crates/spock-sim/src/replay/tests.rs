use tokio::sync::mpsc;

use super::*;

fn cmd(line: &str, out: &str, exit: i32) -> Command {
    Command {
        command: line.into(),
        exec: false,
        exit: Some(exit),
        ms: 0,
        stdout: out.into(),
        stdout_base64: None,
        stderr: String::new(),
        error: None,
    }
}

fn bundle(commands: Vec<Command>) -> Bundle {
    Bundle {
        format: FORMAT,
        captured_by: "test".into(),
        captured_at: "2026-12-02T00:00:00Z".into(),
        device: BundleDevice {
            serial: "serial-1".into(),
            product: "p".into(),
            model: "m".into(),
            device: "d".into(),
        },
        scrubbed: Vec::new(),
        kept: Vec::new(),
        calls: Vec::new(),
        commands,
    }
}

/// Runs `line` on `dev`: (stdout, stderr, exit).
async fn run(dev: &ReplayDevice, line: &str) -> (String, String, i32) {
    let (_tx, stdin) = mpsc::channel(1);
    let (out, mut rx) = mpsc::channel(16);
    let code = dev.shell(line.into(), ShellIo { stdin, out }).await;
    let (mut o, mut e) = (Vec::new(), Vec::new());
    while let Ok(c) = rx.try_recv() {
        match c {
            ShellChunk::Stdout(b) => o.extend_from_slice(&b),
            ShellChunk::Stderr(b) => e.extend_from_slice(&b),
        }
    }
    (
        String::from_utf8(o).unwrap(),
        String::from_utf8(e).unwrap(),
        code,
    )
}

#[tokio::test]
async fn each_command_answers_its_recordings_in_turn_and_nothing_else() {
    let mut failing = cmd("pm path com.x", "", 1);
    failing.stderr = "not found\n".into();
    let unfinished = Command {
        exit: None,
        error: Some("timed out".into()),
        ..cmd("uiautomator dump /dev/tty", "", 0)
    };
    let dev = ReplayDevice::new(
        bundle(vec![
            cmd("getprop ro.product.model", "Pixel 7\n", 0),
            cmd("dumpsys battery", "level: 50\n", 0),
            cmd("dumpsys battery", "level: 49\n", 0),
            failing,
            unfinished,
        ]),
        false,
    );
    assert_eq!(run(&dev, "getprop ro.product.model").await.0, "Pixel 7\n");
    assert_eq!(run(&dev, "dumpsys battery").await.0, "level: 50\n");
    assert_eq!(run(&dev, "dumpsys battery").await.0, "level: 49\n");
    assert_eq!(
        run(&dev, "dumpsys battery").await.0,
        "level: 49\n",
        "the last again"
    );
    assert_eq!(
        run(&dev, "pm path com.x").await,
        (String::new(), "not found\n".into(), 1)
    );
    // Not captured, or never finished on the phone: said, never made up.
    for line in ["input tap 1 2", "uiautomator dump /dev/tty"] {
        let (o, e, code) = run(&dev, line).await;
        assert_eq!((o.as_str(), code), ("", 127), "{line}");
        assert!(e.contains("not in this capture"), "{e}");
    }
    assert_eq!(dev.identity().serial, "serial-1");
}

#[tokio::test(start_paused = true)]
async fn a_command_takes_as_long_as_it_took_on_the_phone_unless_told_not_to() {
    let mut slow = cmd("uiautomator dump /dev/tty", "<hierarchy/>", 0);
    slow.ms = 1500;
    let timed = ReplayDevice::new(bundle(vec![slow.clone()]), true);
    let t = tokio::time::Instant::now();
    run(&timed, "uiautomator dump /dev/tty").await;
    assert_eq!(t.elapsed(), Duration::from_millis(1500));
    let instant = ReplayDevice::new(bundle(vec![slow]), false);
    let t = tokio::time::Instant::now();
    run(&instant, "uiautomator dump /dev/tty").await;
    assert_eq!(t.elapsed(), Duration::ZERO);
}

#[test]
fn output_that_is_not_utf8_round_trips_and_the_format_is_checked() {
    let mut c = cmd("screencap", "", 0);
    c.set_stdout(&[0x89, b'P', b'N', b'G', 0xff]);
    assert_eq!(c.stdout_bytes(), vec![0x89, b'P', b'N', b'G', 0xff]);
    c.set_stdout(b"text");
    assert_eq!(
        (c.stdout.as_str(), c.stdout_base64.is_none()),
        ("text", true)
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut b = bundle(vec![c, cmd("wm size", "Physical size: 1080x2400\n", 0)]);
    b.write(tmp.path()).unwrap();
    assert_eq!(Bundle::read(tmp.path()).unwrap(), b);
    let dev = ReplayDevice::new(b.clone(), false);
    let fb = dev.framebuffer();
    assert_eq!(
        (fb.width, fb.height, fb.rgba.len()),
        (1080, 2400, 1080 * 2400 * 4)
    );
    b.format = FORMAT + 1;
    b.write(tmp.path()).unwrap();
    let e = Bundle::read(tmp.path()).unwrap_err().to_string();
    assert!(e.contains("format 2"), "{e}");
}
