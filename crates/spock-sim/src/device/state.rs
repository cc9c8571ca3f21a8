//! The device's mutable state and the transitions between states: installed apps and their
//! permissions, the task stack (what is on screen), processes, logs, files, settings.
//!
//! Everything here is plain data mutated under the device's one lock; shell commands and
//! gestures call these methods, and output formats live in `shell/`.
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use chrono::Local;

use super::gfx::{Draw, Renderer};
use super::logcat::{Buffer, LogBuffer, LogEntry};
use super::ui::UiTree;
use crate::fs::Fs;
use crate::scenario::expr::AppData;
use crate::scenario::{AppSpec, Scenario, ScreenSpec};
use crate::touch::{Gesture, TouchDecoder};

/// pids of the system processes that write to the log (as `ps -A` lists them).
pub const SYSTEM_SERVER_PID: u32 = 1482;
pub const ZYGOTE_PID: u32 = 912;

/// How long the device had been up when the sim started (`SystemClock.uptimeMillis()`), so
/// that uptimes look like a phone's and not like a device booted a moment ago.
const UPTIME_AT_START_MS: i64 = 3_600_000;

#[derive(Debug, Clone)]
pub struct InstalledApp {
    pub spec: AppSpec,
    pub uid: u32,
    pub permissions: BTreeMap<String, bool>,
    /// The random-looking parts of `/data/app/~~A==/pkg-B==` (stable per package).
    pub code_hash: (String, String),
}

#[derive(Debug, Clone)]
pub struct ActivityEntry {
    pub screen: String,
    pub ui: UiTree,
    /// Object hash printed in `ActivityRecord{hash u0 …}`.
    pub hash: u32,
    /// For a template screen: the table row each node (by index) was repeated for.
    pub rows: Vec<Option<(String, usize)>>,
    /// What each password field (by node index) really holds: the dump shows bullets.
    pub secrets: BTreeMap<usize, String>,
}

#[derive(Debug, Clone)]
pub struct Task {
    pub id: u32,
    pub package: String,
    pub stack: Vec<ActivityEntry>,
}

#[derive(Debug, Clone)]
pub struct Process {
    pub pid: u32,
    pub uid: u32,
    pub started: Instant,
    /// Its renderer's frame counts (`dumpsys gfxinfo`): they live and die with the process.
    pub renderer: Renderer,
}

/// A long-running shell command others can signal (`kill -2`, `pkill -INT`).
#[derive(Debug, Clone)]
pub struct Job {
    pub name: String,
    pub stop: Arc<tokio::sync::Notify>,
}

pub struct State {
    pub scenario: Arc<Scenario>,
    pub serial: String,
    pub home: ScreenSpec,
    pub installed: BTreeMap<String, InstalledApp>,
    /// Last is the foreground task; the home task is always present.
    pub tasks: Vec<Task>,
    pub processes: BTreeMap<String, Process>,
    /// The state of each running stateful app (scenario `vars` and tables), by package: it
    /// lives and dies with the app's process.
    pub app_data: BTreeMap<String, AppData>,
    pub jobs: BTreeMap<u32, Job>,
    pub next_pid: u32,
    next_task_id: u32,
    next_hash: u32,
    pub log: LogBuffer,
    pub props: BTreeMap<String, String>,
    pub settings: BTreeMap<String, String>,
    pub fs: Fs,
    pub touch: TouchDecoder,
    pub last_gesture: Option<Gesture>,
    pub stay_on: String,
    pub awake: bool,
    /// A `uiautomator dump` holds the UiAutomation bridge (one client at a time).
    pub ui_automation: bool,
    /// `wm size WxH` override (printed by `wm size`; touches stay in panel coordinates).
    pub size_override: Option<(u32, u32)>,
    /// Ctrl+A selected the focused field's whole text: the next delete clears it.
    pub selected_all: bool,
    /// A dead accent (U+0300 …) typed with Alt, waiting for the letter it goes on.
    pub dead_accent: Option<char>,
    /// Where the cursor of the focused field is: how many characters of its text come after
    /// it (0: at the end, where a tap into the field leaves it).
    pub cursor_back: usize,
    /// While a change of screen animates (`transition_ms`): the frame still on the glass (as
    /// `screencap` renders it) and when the animation ends.
    glass: Option<(UiTree, Instant)>,
    /// When the sim started: the uptime clock counts from here.
    started: Instant,
    /// How far the uptime clock is ahead of the real time since `started`: drawing takes
    /// device time (a change of screen animates for a quarter of a second), so that by the time
    /// anyone asks, the frames drawn are in the past.
    clock_ahead_ns: i64,
}

fn hash_of(s: &str, salt: u32) -> u32 {
    // FNV-1a: stable, so outputs do not change between runs.
    let mut h: u32 = 0x811c_9dc5 ^ salt;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

pub(crate) fn code_hash(pkg: &str) -> (String, String) {
    use base64::Engine;
    // 16 bytes in URL-safe base64 with padding, like `~~l18Y0fK-TquRtpFh0UqNSA==`.
    let enc = |salt: u32| {
        let mut x = Vec::with_capacity(16);
        for i in 0..4 {
            x.extend_from_slice(&hash_of(pkg, salt + i).to_le_bytes());
        }
        base64::engine::general_purpose::URL_SAFE.encode(&x)
    };
    (enc(10), enc(20))
}

impl State {
    /// The display rotation (0..=3) the settings give: `user_rotation` while
    /// `accelerometer_rotation` is off; upright otherwise (there is no accelerometer).
    pub fn rotation(&self) -> u8 {
        if self
            .settings
            .get("system/accelerometer_rotation")
            .map(String::as_str)
            == Some("1")
        {
            return 0;
        }
        self.settings
            .get("system/user_rotation")
            .and_then(|v| v.trim().parse::<u8>().ok())
            .filter(|r| *r < 4)
            .unwrap_or(0)
    }

    pub fn display(&self) -> super::display::Display {
        let d = &self.scenario.device;
        super::display::Display {
            natural: (d.width, d.height),
            rotation: self.rotation(),
        }
    }

    pub fn new(scenario: Arc<Scenario>, serial: String, home: ScreenSpec) -> State {
        let d = &scenario.device;
        let props = super::props::build(scenario.getprop_base.as_deref(), d, &serial);
        let mut st = State {
            serial,
            home,
            installed: BTreeMap::new(),
            tasks: Vec::new(),
            processes: BTreeMap::new(),
            app_data: BTreeMap::new(),
            jobs: BTreeMap::new(),
            next_pid: 4120,
            next_task_id: 2,
            next_hash: 0x1f72345,
            log: LogBuffer::default(),
            props,
            settings: BTreeMap::new(),
            fs: Fs::default(),
            touch: TouchDecoder::new(d.width as i32 - 1, d.height as i32 - 1, d.width, d.height),
            last_gesture: None,
            stay_on: "false".into(),
            awake: true,
            ui_automation: false,
            size_override: None,
            selected_all: false,
            dead_accent: None,
            cursor_back: 0,
            glass: None,
            started: Instant::now(),
            clock_ahead_ns: 0,
            scenario: scenario.clone(),
        };
        // Linux's boot id: new at every boot, the same through every connection to the device.
        st.fs.put_system_file(
            "/proc/sys/kernel/random/boot_id",
            bytes::Bytes::from(format!("{}\n", boot_id(&st.serial))),
        );
        for (i, a) in scenario.apps.iter().enumerate() {
            st.installed.insert(
                a.package.clone(),
                InstalledApp {
                    spec: a.clone(),
                    uid: 10150 + i as u32,
                    permissions: a.permissions.clone(),
                    code_hash: code_hash(&a.package),
                },
            );
        }
        for (k, v) in [
            ("system/screen_off_timeout", "60000"),
            ("global/stay_on_while_plugged_in", "0"),
            ("global/adb_enabled", "1"),
            ("global/airplane_mode_on", "0"),
            (
                "secure/default_input_method",
                "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME",
            ),
            ("system/font_scale", "1.0"),
            // Auto-rotate off, upright (the virtual device has no accelerometer to turn it).
            ("system/accelerometer_rotation", "0"),
            ("system/user_rotation", "0"),
            // Dark theme off (`UiModeManager.MODE_NIGHT_NO`), as `cmd uimode night` reads it.
            ("secure/ui_night_mode", "1"),
        ] {
            st.settings.insert(k.into(), v.into());
        }
        let home_screen = st.home.clone();
        let home_task = st.new_task(&home_screen.package);
        st.tasks.push(home_task);
        st.push_screen_entry(&home_screen);
        st.ensure_process(&home_screen.package.clone());
        for l in scenario.logcat.clone() {
            let pid = st.pid_of_or_system(&l.tag);
            let level = l.level.chars().next().unwrap_or('I');
            st.log_line(pid, level, &l.tag, &l.message, Buffer::Main);
        }
        st
    }

    /// The monotonic clock in ns (`SystemClock.uptimeMillis()` × 10⁶, hwui's `systemTime`).
    pub fn uptime_ns(&self) -> i64 {
        let since = i64::try_from(self.started.elapsed().as_nanos()).unwrap_or(i64::MAX / 2);
        UPTIME_AT_START_MS * 1_000_000 + since + self.clock_ahead_ns
    }

    /// The app in front draws what `what` draws (`device/gfx.rs`): nothing with the screen off
    /// or when it has no process.
    pub fn draw(&mut self, what: Draw) {
        if !self.awake {
            return;
        }
        let now = self.uptime_ns();
        let pkg = self.foreground().0;
        if let Some(p) = self.processes.get_mut(&pkg) {
            p.renderer.draw(now, what);
            self.clock_ahead_ns += (p.renderer.busy_until() - now).max(0);
        }
    }

    /// An input event is delivered to the app in front: it draws its feedback.
    pub fn input_event(&mut self) {
        self.draw(Draw::Input);
    }

    /// A command ran: when the window in front is another than `top_before` (the
    /// `ActivityRecord` hash of the one in front before it), the app now in front draws it.
    pub fn drew_after(&mut self, top_before: Option<u32>) {
        if self.top().map(|e| e.hash) != top_before {
            self.draw(Draw::Screen);
        }
    }

    fn pid_of_or_system(&self, _tag: &str) -> u32 {
        SYSTEM_SERVER_PID
    }

    pub fn next_hash(&mut self) -> u32 {
        self.next_hash = self
            .next_hash
            .wrapping_mul(1_103_515_245)
            .wrapping_add(12345)
            & 0x0fff_ffff;
        self.next_hash | 0x0100_0000
    }

    fn new_task(&mut self, package: &str) -> Task {
        self.next_task_id += 1;
        Task {
            id: self.next_task_id,
            package: package.to_string(),
            stack: Vec::new(),
        }
    }

    pub fn screen_spec(&self, id: &str) -> Option<&ScreenSpec> {
        if id == self.home.id {
            return Some(&self.home);
        }
        self.scenario.screen(id)
    }

    /// The foreground screen as the display shows it once settled (rotation applied).
    fn screen_tree(&self) -> Option<UiTree> {
        self.top().map(|e| self.display().screen_tree(&e.ui))
    }

    /// What `screencap` sees: the frame before a change of screen while it still animates,
    /// else the settled screen.
    pub fn frame_tree(&self) -> Option<UiTree> {
        match &self.glass {
            Some((tree, until)) if Instant::now() < *until => Some(tree.clone()),
            _ => self.screen_tree(),
        }
    }

    /// What `screencap` and the framebuffer show: the frame on the glass, black with the screen
    /// off or a `secure` screen in front (`FLAG_SECURE`), empty (transparent) with no screen.
    pub fn glass_image(&self) -> image::RgbaImage {
        let (w, h) = self.display().size();
        if !self.awake || self.top_spec().is_some_and(|s| s.secure) {
            return crate::screencap::black(w, h);
        }
        match self.frame_tree() {
            Some(t) => crate::screencap::render(&t, w, h),
            None => image::RgbaImage::new(w, h),
        }
    }

    /// Whether the foreground screen never goes idle (`animating` in its scenario).
    pub fn screen_animating(&self) -> bool {
        self.top_spec().is_some_and(|s| s.animating)
    }

    /// The scenario's description of the foreground screen.
    fn top_spec(&self) -> Option<&ScreenSpec> {
        self.top().and_then(|e| self.screen_spec(&e.screen))
    }

    /// How long until the running change of screen has ended (`None`: nothing animates).
    pub fn settling_left(&self) -> Option<std::time::Duration> {
        let (_, until) = self.glass.as_ref()?;
        until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    }

    /// A command ran: when it changed the foreground screen (`before` is the screen id it
    /// started on, `frame` what was on the glass then) and the scenario animates changes, the
    /// old frame stays on the glass for `transition_ms`.
    pub fn screen_changed_from(&mut self, before: Option<&str>, frame: Option<UiTree>) {
        let ms = self.scenario.device.transition_ms;
        let now = self.top().map(|e| e.screen.as_str());
        if ms == 0 || now == before {
            return;
        }
        if let Some(frame) = frame {
            let until = Instant::now() + std::time::Duration::from_millis(ms);
            self.glass = Some((frame, until));
        }
    }

    pub fn top(&self) -> Option<&ActivityEntry> {
        self.tasks.last().and_then(|t| t.stack.last())
    }

    pub fn top_mut(&mut self) -> Option<&mut ActivityEntry> {
        self.tasks.last_mut().and_then(|t| t.stack.last_mut())
    }

    /// (package, activity) in the foreground.
    pub fn foreground(&self) -> (String, String) {
        match self.top().and_then(|e| self.screen_spec(&e.screen)) {
            Some(s) => (s.package.clone(), s.activity.clone()),
            None => (self.home.package.clone(), self.home.activity.clone()),
        }
    }

    pub fn log_line(&mut self, pid: u32, level: char, tag: &str, msg: &str, buffer: Buffer) {
        self.log.push(LogEntry {
            at: Local::now(),
            pid,
            tid: pid,
            level,
            tag: tag.to_string(),
            message: msg.to_string(),
            buffer,
        });
    }

    /// Starts the app's process if it is not running; returns (pid, was_cold).
    pub fn ensure_process(&mut self, package: &str) -> (u32, bool) {
        if let Some(p) = self.processes.get(package) {
            return (p.pid, false);
        }
        let uid = self.installed.get(package).map_or(10000, |a| a.uid);
        let pid = self.next_pid;
        self.next_pid += 1 + (pid % 7);
        let now = self.uptime_ns();
        self.processes.insert(
            package.to_string(),
            Process {
                pid,
                uid,
                started: Instant::now(),
                renderer: Renderer::new(now, pid),
            },
        );
        // A new process starts from the app's declared state.
        let data = self.installed.get(package).map(|a| a.spec.data.clone());
        self.app_data
            .insert(package.to_string(), data.unwrap_or_default());
        let msg = format!(
            "Start proc {pid}:{package}/u0a{} for top-activity {{{package}}}",
            uid.saturating_sub(10000)
        );
        self.log_line(
            SYSTEM_SERVER_PID,
            'I',
            "ActivityManager",
            &msg,
            Buffer::System,
        );
        (pid, true)
    }

    fn push_screen_entry(&mut self, screen: &ScreenSpec) {
        let hash = self.next_hash();
        let (ui, rows) = self.render_screen(screen);
        let entry = ActivityEntry {
            screen: screen.id.clone(),
            ui,
            hash,
            rows,
            secrets: BTreeMap::new(),
        };
        if let Some(t) = self.tasks.last_mut() {
            t.stack.push(entry);
        }
    }

    fn bring_task_to_front(&mut self, package: &str) -> bool {
        match self.tasks.iter().position(|t| t.package == package) {
            Some(i) => {
                let t = self.tasks.remove(i);
                self.tasks.push(t);
                true
            }
            None => false,
        }
    }

    /// Shows `screen`: in its app's task (new activity on top, or the same activity replaced).
    pub fn show_screen(&mut self, screen_id: &str) -> Option<()> {
        let screen = self.screen_spec(screen_id)?.clone();
        self.ensure_process(&screen.package);
        if !self.bring_task_to_front(&screen.package) {
            let t = self.new_task(&screen.package);
            self.tasks.push(t);
        }
        let same_activity = self
            .top()
            .and_then(|e| self.screen_spec(&e.screen))
            .is_some_and(|s| s.activity == screen.activity);
        if same_activity && let Some(t) = self.tasks.last_mut() {
            t.stack.pop();
        }
        self.push_screen_entry(&screen);
        let (pkg, act) = (screen.package.clone(), screen.activity.clone());
        let msg = format!(
            "START u0 {{cmp={}}} from uid 2000",
            short_component(&pkg, &act)
        );
        self.log_line(
            SYSTEM_SERVER_PID,
            'I',
            "ActivityTaskManager",
            &msg,
            Buffer::System,
        );
        Some(())
    }

    /// The screen an app opens on: its `first_screen`, else a screen of its launcher activity.
    pub fn entry_screen(&self, package: &str) -> Option<String> {
        let app = self.installed.get(package)?;
        if let Some(s) = &app.spec.first_screen {
            return Some(s.clone());
        }
        if package == self.home.package {
            return Some(self.home.id.clone());
        }
        let launcher = app.spec.launcher.as_deref()?;
        self.scenario
            .screens
            .iter()
            .find(|s| s.package == package && s.activity == launcher)
            .map(|s| s.id.clone())
    }

    /// Launches an app as the launcher would. Returns whether its process was started cold.
    pub fn launch(&mut self, package: &str) -> Option<bool> {
        let cold = !self.processes.contains_key(package);
        if self.bring_task_to_front(package) && !cold {
            return Some(false);
        }
        // A task whose process died restarts from its entry screen.
        self.tasks.retain(|t| t.package != package);
        let screen = self.entry_screen(package)?;
        self.show_screen(&screen)?;
        Some(cold)
    }

    pub fn go_home(&mut self) {
        let home = self.home.package.clone();
        if !self.bring_task_to_front(&home) {
            let t = self.new_task(&home);
            self.tasks.push(t);
            let h = self.home.clone();
            self.push_screen_entry(&h);
        }
    }

    pub fn back(&mut self) {
        let home = self.home.package.clone();
        let Some(t) = self.tasks.last_mut() else {
            return;
        };
        if t.package == home {
            return;
        }
        t.stack.pop();
        if t.stack.is_empty() {
            self.tasks.pop();
        }
        if self.tasks.is_empty() {
            self.go_home();
        }
    }

    pub fn force_stop(&mut self, package: &str) {
        if package == self.home.package {
            return;
        }
        self.processes.remove(package);
        self.app_data.remove(package);
        self.tasks.retain(|t| t.package != package);
        if self.tasks.is_empty() {
            self.go_home();
        }
    }

    /// Appends a FATAL EXCEPTION block (real AndroidRuntime layout) and kills the app.
    pub fn crash(&mut self, package: &str, lines: &[String]) {
        let (pid, _) = self.ensure_process(package);
        let (_, activity) = self.foreground();
        let default = [
            "E AndroidRuntime: FATAL EXCEPTION: main".to_string(),
            format!("E AndroidRuntime: Process: {package}, PID: {pid}"),
            "E AndroidRuntime: java.lang.RuntimeException: Crash me".to_string(),
            format!("E AndroidRuntime: \tat {activity}.onCrashClicked(SettingsActivity.kt:42)"),
            "E AndroidRuntime: \tat android.view.View.performClick(View.java:7659)".to_string(),
            "E AndroidRuntime: \tat android.os.Handler.handleCallback(Handler.java:959)"
                .to_string(),
            "E AndroidRuntime: \tat android.os.Looper.loop(Looper.java:317)".to_string(),
            "E AndroidRuntime: \tat android.app.ActivityThread.main(ActivityThread.java:8705)"
                .to_string(),
        ];
        let mut body: Vec<String> = if lines.is_empty() {
            default.to_vec()
        } else {
            lines.to_vec()
        };
        // A scenario may give only the first line; a real block always names the process.
        if !body.iter().any(|l| l.contains("Process: ")) {
            body.insert(
                1.min(body.len()),
                format!("E AndroidRuntime: Process: {package}, PID: {pid}"),
            );
        }
        for l in &body {
            let (level, tag, msg) = split_log_line(l);
            self.log_line(pid, level, &tag, &msg, Buffer::Crash);
        }
        let comp = short_component(package, &activity);
        self.log_line(
            SYSTEM_SERVER_PID,
            'W',
            "ActivityTaskManager",
            &format!("  Force finishing activity {comp}"),
            Buffer::System,
        );
        self.log_line(
            pid,
            'I',
            "Process ",
            &format!("Sending signal. PID: {pid} SIG: 9"),
            Buffer::Main,
        );
        self.log_line(
            SYSTEM_SERVER_PID,
            'I',
            "ActivityManager",
            &format!("Process {package} (pid {pid}) has died: fg  TOP "),
            Buffer::System,
        );
        self.log_line(
            ZYGOTE_PID,
            'I',
            "Zygote  ",
            &format!("Process {pid} exited due to signal 9 (Killed)"),
            Buffer::Main,
        );
        self.processes.remove(package);
        self.app_data.remove(package);
        self.tasks.retain(|t| t.package != package);
        self.go_home();
    }

    pub fn clear_data(&mut self, package: &str) -> bool {
        let Some(app) = self.installed.get_mut(package) else {
            return false;
        };
        app.permissions = app.spec.permissions.clone();
        self.force_stop(package);
        true
    }

    pub fn uninstall(&mut self, package: &str) -> bool {
        if !self.installed.contains_key(package) || package == self.home.package {
            return false;
        }
        self.force_stop(package);
        self.installed.remove(package);
        true
    }
}

/// `"E AndroidRuntime: FATAL EXCEPTION: main"` → (`E`, `AndroidRuntime`, `FATAL …`).
pub fn split_log_line(l: &str) -> (char, String, String) {
    let mut chars = l.chars();
    let level = chars.next().unwrap_or('I');
    let rest = l.get(level.len_utf8()..).unwrap_or("").trim_start();
    match rest.split_once(": ") {
        Some((tag, msg)) if "VDIWEF".contains(level) => (level, tag.to_string(), msg.to_string()),
        _ => ('I', "SimDevice".into(), l.to_string()),
    }
}

/// `com.example.shop/.LoginActivity`, as ActivityManager abbreviates components.
pub fn short_component(package: &str, activity: &str) -> String {
    match activity.strip_prefix(package) {
        Some(rest) if rest.starts_with('.') => format!("{package}/{rest}"),
        _ => format!("{package}/{activity}"),
    }
}

/// A random UUID, as `/proc/sys/kernel/random/boot_id` prints it (the std hasher's per-process
/// random keys are the randomness: the sim has no random number crate).
fn boot_id(serial: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut words = [0u64; 2];
    for (i, w) in words.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write(serial.as_bytes());
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        *w = h.finish();
    }
    let hex = format!("{:016x}{:016x}", words[0], words[1]);
    format!(
        "{}-{}-4{}-a{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}
