//! Screen capture tools: `screencap` (PNG or raw), `uiautomator dump` (the current screen's XML
//! served as the scenario wrote it, then the real, misspelt trailer), and `screenrecord`,
//! which runs until SIGINT or its time limit and leaves a small MP4 file.
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;

use super::{Ctx, Output};
use crate::device::Inner;
use crate::device::state::Job;
use crate::screencap;

fn screen_png(ctx: &Ctx) -> Vec<u8> {
    if ctx.st.top().is_none() {
        return Vec::new();
    }
    screencap::png_of(&ctx.st.glass_image())
}

pub fn screencap(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut png = false;
    let mut file: Option<String> = None;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => png = true,
            "-d" => {
                it.next();
            }
            "-j" | "-a" => {}
            "-h" => {
                ctx.errln("usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the physical display ID to capture (default: 0)\nIf FILENAME ends with .png it will be saved as a png.\nIf FILENAME is not given, the results will be printed to stdout.");
                return 0;
            }
            _ => file = Some(a.clone()),
        }
    }
    let bytes = if png || file.as_deref().is_some_and(|f| f.ends_with(".png")) {
        screen_png(ctx)
    } else {
        // Raw: width, height, format (1 = RGBA_8888), dataspace, then pixels.
        let (w, h) = ctx.st.display().size();
        let img = ctx.st.glass_image();
        let mut raw = Vec::with_capacity(16 + img.as_raw().len());
        for v in [w, h, 1, 0] {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        raw.extend_from_slice(img.as_raw());
        raw
    };
    match file {
        None => {
            ctx.out.extend_from_slice(&bytes);
            0
        }
        Some(f) => match ctx.st.fs.write(&f, 0o660, 0, Bytes::from(bytes)) {
            Ok(()) => 0,
            Err(e) => {
                ctx.errln(&format!("Error opening file: {f} ({e})"));
                1
            }
        },
    }
}

pub fn uiautomator(ctx: &mut Ctx, args: &[String]) -> i32 {
    if args.get(1).map(String::as_str) != Some("dump") {
        ctx.errln("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n    runtest <class spec> [options]\n\ndump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n      [file]: the location where the dumped XML should be stored, default is\n      /sdcard/window_dump.xml\n\nevents: prints out accessibility events until terminated");
        return 1;
    }
    let file = args
        .iter()
        .skip(2)
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| "/sdcard/window_dump.xml".into());
    // AOSP `DumpCommand.run`: both failures print to stderr and return, so the exit code is 0
    // and nothing is written. The screen off gives no active window to read; a screen that
    // never stops moving times out in `waitForIdle` (the caller waited that out).
    if !ctx.st.awake {
        ctx.errln("ERROR: null root node returned by UiTestAutomationBridge.");
        return 0;
    }
    if ctx.st.screen_animating() {
        ctx.errln("ERROR: could not get idle state.");
        return 0;
    }
    let xml = ctx
        .st
        .top()
        .map(|e| ctx.st.display().dump_xml(e.ui.xml()))
        .unwrap_or_default();
    if file == "/dev/tty" || file == "/dev/stdout" {
        ctx.out(&xml);
    } else if let Err(e) = ctx
        .st
        .fs
        .write(&file, 0o660, 0, Bytes::from(xml.into_bytes()))
    {
        ctx.errln(&format!("ERROR: could not write to {file}: {e}"));
        return 1;
    }
    // "hierchary" is how uiautomator spells it.
    ctx.outln(&format!("UI hierchary dumped to: {file}"));
    0
}

/// Removes the job from the process table however `screenrecord` ends (dropped = SIGHUP).
struct JobGuard {
    inner: Arc<Inner>,
    pid: u32,
}

impl Drop for JobGuard {
    fn drop(&mut self) {
        self.inner.lock().jobs.remove(&self.pid);
    }
}

/// A minimal ISO-BMFF file: `ftyp` + `moov` (holding an `mvhd` with the recorded duration).
/// It has no tracks or media data, so players show an empty clip; tools only check that a
/// file appeared, has a size and starts like an MP4.
pub fn tiny_mp4(duration_ms: u32) -> Vec<u8> {
    let mut ftyp = Vec::new();
    ftyp.extend_from_slice(b"isom");
    ftyp.extend_from_slice(&0x200u32.to_be_bytes());
    ftyp.extend_from_slice(b"isomiso2avc1mp41");
    let mut mvhd = vec![0u8; 4]; // version 0, flags 0
    for v in [0u32, 0, 1000, duration_ms] {
        mvhd.extend_from_slice(&v.to_be_bytes()); // ctime, mtime, timescale, duration
    }
    mvhd.extend_from_slice(&0x0001_0000u32.to_be_bytes()); // rate 1.0
    mvhd.extend_from_slice(&0x0100u16.to_be_bytes()); // volume 1.0
    mvhd.extend_from_slice(&[0u8; 10]);
    for v in [0x0001_0000u32, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] {
        mvhd.extend_from_slice(&v.to_be_bytes()); // unity matrix
    }
    mvhd.extend_from_slice(&[0u8; 24]); // pre_defined
    mvhd.extend_from_slice(&2u32.to_be_bytes()); // next_track_ID
    let mbox = |kind: &[u8; 4], body: &[u8]| {
        let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        b.extend_from_slice(kind);
        b.extend_from_slice(body);
        b
    };
    let mut out = mbox(b"ftyp", &ftyp);
    out.extend(mbox(b"moov", &mbox(b"mvhd", &mvhd)));
    out
}

pub async fn screenrecord(inner: &Arc<Inner>, args: &[String]) -> Output {
    let mut limit = 180u64;
    let mut verbose = false;
    let mut path: Option<String> = None;
    let mut it = args.iter().skip(1);
    let mut out = Output::default();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time-limit" => match it.next().and_then(|v| v.parse::<u64>().ok()) {
                Some(v) if (1..=180).contains(&v) => limit = v,
                _ => {
                    out.stderr = b"Time limit must be between 1 and 180 seconds\n".to_vec();
                    out.code = 2;
                    return out;
                }
            },
            "--size" | "--bit-rate" | "--output-format" | "--display-id" => {
                it.next();
            }
            "--verbose" => verbose = true,
            s if s.starts_with("--") => {}
            _ => path = Some(a.clone()),
        }
    }
    let Some(path) = path else {
        out.stderr = b"Must specify output file (see --help).\n".to_vec();
        out.code = 2;
        return out;
    };
    let stop = Arc::new(tokio::sync::Notify::new());
    let pid = {
        let mut st = inner.lock();
        // Fail early, as screenrecord opens its output before recording.
        if let Err(e) = st.fs.write(&path, 0o660, 0, Bytes::new()) {
            out.stderr = format!("Unable to open '{path}': {e}\n").into_bytes();
            out.code = 1;
            return out;
        }
        let pid = st.next_pid;
        st.next_pid += 1;
        st.jobs.insert(
            pid,
            Job {
                name: "screenrecord".into(),
                stop: stop.clone(),
            },
        );
        pid
    };
    let _guard = JobGuard {
        inner: inner.clone(),
        pid,
    };
    let started = Instant::now();
    tokio::select! {
        _ = stop.notified() => {}
        _ = tokio::time::sleep(Duration::from_secs(limit)) => {}
    }
    let ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
    let written = inner
        .lock()
        .fs
        .write(&path, 0o660, 0, Bytes::from(tiny_mp4(ms)));
    if let Err(e) = written {
        out.stderr = format!("Unable to write '{path}': {e}\n").into_bytes();
        out.code = 1;
    }
    if verbose {
        out.stdout = format!("Recording stopped after {}ms\n", ms).into_bytes();
    }
    out
}
