//! `dumpsys gfxinfo [PACKAGE|PID] [framestats] [reset]`: what each app's renderer has counted
//! (the counts themselves are kept in `device/gfx.rs`), in the layout Android 14 writes it
//! (aosp-mirror/platform_frameworks_base):
//!
//! - `ActivityManagerService.dumpGraphicsHardwareUsage`: `No process found for: ARG` when no
//!   process matches (exit 0), else the `Applications Graphics Acceleration Info:` header and
//!   `** Graphics info for pid N [process] **` before each process;
//! - `ThreadedRenderer.handleDumpGfxInfo` in the app: hwui's process-wide `ProfileData::dump`
//!   and the `Pipeline=` line (`RenderThread::dumpGraphicsMemory`), then
//!   `WindowManagerGlobal.dumpGfxInfo`: `Profile data in ms:`, each window, `View hierarchy:`
//!   and the totals. `framestats` adds, under each window, that window's summary (`Window:`)
//!   and its last frames between `---PROFILEDATA---` lines (`JankTracker::dumpFrames`).
//!   `reset` prints the counts, then sets them to zero (`RenderProxy::dumpGraphicsMemory`
//!   resets after it dumps), so the next dump counts from there.
//!
//! With no argument every app process is dumped, with its frames (`dumpArgsToFlags`: no
//! arguments is `FLAG_DUMP_ALL`). The sim keeps one window per app (the top activity of its
//! task) and no GPU memory: the caches and gralloc buffer lists a phone prints after the
//! `Pipeline=` line are left out.
use super::super::Ctx;
use crate::device::gfx::{FRAME_INFO_NAMES, Renderer};
use crate::device::state::State;

/// hwui's pipeline on a Pixel 7 (`debug.hwui.renderer=skiavk`).
const PIPELINE: &str = "Skia (Vulkan)";

/// One window of an app, as `WindowManagerGlobal` names it.
struct Window {
    /// `mWindowAttributes.getTitle()`: `package/fully.qualified.Activity`.
    title: String,
    /// `ViewRootImpl`'s identity hash.
    hash: u32,
    /// `getHostVisibility()`: `View.VISIBLE` (0) in front, `View.GONE` (8) behind.
    visibility: u32,
    views: usize,
}

/// The app's window: the top activity of its task, if it has one.
fn window_of(st: &State, package: &str) -> Option<Window> {
    let front = st.tasks.last().map(|t| t.package.as_str());
    let task = st.tasks.iter().find(|t| t.package == package)?;
    let entry = task.stack.last()?;
    let activity = st
        .screen_spec(&entry.screen)
        .map(|s| s.activity.clone())
        .unwrap_or_default();
    let visible = st.awake && front == Some(package);
    Some(Window {
        title: format!("{package}/{activity}"),
        hash: entry.hash ^ 0x00a5_3c96,
        visibility: if visible { 0 } else { 8 },
        views: entry.ui.nodes().len(),
    })
}

pub fn gfxinfo(ctx: &mut Ctx, args: &[String]) -> i32 {
    // `ProcessList.collectProcessesLOSP`: a first argument that is not an option names a
    // process (by pid or by name); none, or an option, means every process.
    let mut procs: Vec<(String, u32)> = ctx
        .st
        .processes
        .iter()
        .map(|(name, p)| (name.clone(), p.pid))
        .collect();
    // Most recently started first, as AMS walks its LRU list from the end.
    procs.sort_by_key(|(_, pid)| std::cmp::Reverse(*pid));
    if let Some(first) = args.first().filter(|a| !a.starts_with('-')) {
        let pid = first.parse::<u32>().ok();
        procs.retain(|(name, p)| Some(*p) == pid || name == first);
        if procs.is_empty() {
            ctx.outln(&format!("No process found for: {first}"));
            return 0;
        }
    }
    // `dumpArgsToFlags`: the whole argument list, the package included.
    let mut framestats = args.is_empty();
    let mut reset = false;
    for a in args {
        match a.as_str() {
            "framestats" => framestats = true,
            "reset" => reset = true,
            "-a" => framestats = true,
            _ => {}
        }
    }
    let uptime_ms = ctx.st.uptime_ns() / 1_000_000;
    ctx.outln("Applications Graphics Acceleration Info:");
    // The sim's phone never sleeps: the clock that counts sleep agrees with the one that
    // does not.
    ctx.outln(&format!("Uptime: {uptime_ms} Realtime: {uptime_ms}"));
    for (name, pid) in procs {
        let text = process_dump(ctx.st, &name, pid, framestats);
        ctx.out(&text);
        if reset {
            let now = ctx.st.uptime_ns();
            if let Some(p) = ctx.st.processes.get_mut(&name) {
                p.renderer.reset(now);
            }
        }
    }
    0
}

/// What one app writes into the dump.
fn process_dump(st: &State, name: &str, pid: u32, framestats: bool) -> String {
    let Some(renderer) = st.processes.get(name).map(|p| &p.renderer) else {
        return String::new();
    };
    let mut o = format!("\n** Graphics info for pid {pid} [{name}] **\n");
    o.push_str(&renderer.data.dump());
    o.push_str(&format!("\nPipeline={PIPELINE}\n\n"));
    let windows: Vec<Window> = window_of(st, name).into_iter().collect();
    o.push_str("Profile data in ms:\n");
    for w in &windows {
        o.push_str(&format!(
            "\n\t{}/android.view.ViewRootImpl@{:x} (visibility={})",
            w.title, w.hash, w.visibility
        ));
        if framestats {
            frames(&mut o, &w.title, renderer);
        }
    }
    o.push_str("\nView hierarchy:\n\n");
    let (mut views, mut used, mut capacity) = (0, 0.0f32, 0.0f32);
    for w in &windows {
        let (u, c) = render_node_bytes(w.views);
        o.push_str(&format!(
            "  {}/android.view.ViewRootImpl@{:x}\n  {} views, {:.2} kB of render nodes",
            w.title,
            w.hash,
            w.views,
            u / 1024.0
        ));
        o.push_str("\n\n");
        views += w.views;
        used += u;
        capacity += c;
    }
    o.push_str(&format!(
        "\nTotal {:<15}: {}\n",
        "ViewRootImpl",
        windows.len()
    ));
    o.push_str(&format!("Total {:<15}: {views}\n", "attached Views"));
    o.push_str(&format!(
        "Total {:<15}: {:.2} kB (used) / {:.2} kB (capacity)\n\n",
        "RenderNode",
        used / 1024.0,
        capacity / 1024.0
    ));
    o
}

/// A window's summary and frames (`CanvasContext::dumpFrames`: `JankTracker::dumpStats`, then
/// `dumpFrames`).
fn frames(o: &mut String, title: &str, renderer: &Renderer) {
    o.push_str(&format!("\nWindow: {title}"));
    o.push_str(&renderer.data.dump());
    o.push('\n');
    o.push_str("\n\n---PROFILEDATA---\n");
    for name in FRAME_INFO_NAMES {
        o.push_str(name);
        o.push(',');
    }
    for row in renderer.frames() {
        o.push('\n');
        for v in row {
            o.push_str(&format!("{v},"));
        }
    }
    o.push_str("\n---PROFILEDATA---\n\n");
}

/// The render nodes' memory for a window of `views` views: (used, allocated) bytes. A model,
/// not a measurement: about 1.2 kB a view, allocated in 4 kB steps.
fn render_node_bytes(views: usize) -> (f32, f32) {
    let used = views * 1180 + 2048;
    let capacity = used.div_ceil(4096) * 4096;
    (used as f32, capacity as f32)
}
