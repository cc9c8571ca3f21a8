//! What each app's renderer (hwui) has counted since its process started or its stats were
//! last reset: the frames `dumpsys gfxinfo` reports, kept the way hwui keeps them
//! (aosp-mirror/platform_frameworks_base `libs/hwui/ProfileData.cpp`, `JankTracker.cpp`,
//! `FrameInfo.cpp`): a histogram of frame times, jank counts by cause, and a ring of the last
//! frames' timestamps for `framestats`.
//!
//! The sim draws no real frames. An app's counts follow what was done to it, by fixed rules,
//! so that tests can count on them:
//!
//! - an input event delivered while the app is in front (a tap or long press, a swipe, a
//!   pinch, a key press, one `input text`) draws [`INPUT_FRAMES`]: 6 frames of touch feedback,
//!   all on time;
//! - a change of the window in front (a new screen, back, home, a launch) draws
//!   [`SCREEN_FRAMES`] in the app now in front: 16 frames, the window's first frame slow on
//!   the UI thread (27 ms: janky) and then its transition animation, on time;
//! - nothing is drawn while the screen is off.
//!
//! The display runs at 60 Hz (a frame interval of 16.67 ms).
use std::collections::VecDeque;

/// The frame interval at 60 Hz, in ns (`FrameInterval` in `framestats`).
pub const FRAME_INTERVAL_NS: i64 = 16_666_667;

/// (frame time, GPU time) in ms of each frame an input event draws: touch feedback.
pub const INPUT_FRAMES: &[(u32, u32)] = &[(6, 3), (8, 3), (7, 2), (6, 2), (5, 2), (6, 2)];

/// (frame time, GPU time) in ms of each frame a change of window draws: the new window's first
/// frame (its layout and first draw, slow on the UI thread), then the transition animation.
pub const SCREEN_FRAMES: &[(u32, u32)] = &[
    (27, 6),
    (9, 4),
    (8, 4),
    (8, 3),
    (7, 3),
    (7, 3),
    (7, 3),
    (6, 3),
    (6, 2),
    (6, 2),
    (6, 2),
    (5, 2),
    (5, 2),
    (5, 2),
    (5, 2),
    (5, 2),
];

/// `JANK_TYPE_NAMES` of `ProfileData.cpp`, in its order (Android 13 and later).
pub const JANK_TYPE_NAMES: [&str; 7] = [
    "Missed Vsync",
    "High input latency",
    "Slow UI thread",
    "Slow bitmap uploads",
    "Slow issue draw commands",
    "Frame deadline missed",
    "Frame deadline missed (legacy)",
];
const MISSED_VSYNC: usize = 0;
const SLOW_UI: usize = 2;
const SLOW_SYNC: usize = 3;
const SLOW_RT: usize = 4;
const MISSED_DEADLINE: usize = 5;
const MISSED_DEADLINE_LEGACY: usize = 6;

/// `FrameInfoNames` (`FrameInfo.cpp`, Android 14): the columns of a `framestats` row.
pub const FRAME_INFO_NAMES: [&str; 23] = [
    "Flags",
    "FrameTimelineVsyncId",
    "IntendedVsync",
    "Vsync",
    "InputEventId",
    "HandleInputStart",
    "AnimationStart",
    "PerformTraversalsStart",
    "DrawStart",
    "FrameDeadline",
    "FrameInterval",
    "FrameStartTime",
    "SyncQueued",
    "SyncStart",
    "IssueDrawCommandsStart",
    "SwapBuffers",
    "FrameCompleted",
    "DequeueBufferDuration",
    "QueueBufferDuration",
    "GpuCompleted",
    "SwapBuffersCompleted",
    "DisplayPresentTime",
    "CommandSubmissionCompleted",
];
// Column indexes of a row.
const INTENDED_VSYNC: usize = 2;
const VSYNC: usize = 3;
const FRAME_DEADLINE: usize = 9;
const SYNC_START: usize = 13;
const ISSUE_DRAW_COMMANDS_START: usize = 14;
const FRAME_COMPLETED: usize = 16;

/// A `framestats` row: one value per [`FRAME_INFO_NAMES`] column.
pub type FrameRow = [i64; 23];

/// How many frames hwui keeps for `framestats` (`JankTracker`'s `RingBuffer<FrameInfo, 120>`).
const RING: usize = 120;

// The histogram's buckets (`ProfileData.cpp`): 1 ms wide from 5 ms, 2 ms wide past 32 ms, 4 ms
// wide past 48 ms; then 50 ms wide from 150 ms ("slow frames").
const BUCKET_MIN_THRESHOLD: u32 = 5;
const BUCKET_2MS_INTERVALS: u32 = 32;
const BUCKET_4MS_INTERVALS: u32 = 48;
const SLOW_FRAME_BUCKET_INTERVAL_MS: u32 = 50;
const SLOW_FRAME_BUCKET_START_MS: u32 = 150;
const FRAME_COUNTS: usize = 57;
const SLOW_FRAME_COUNTS: usize = 97;
const GPU_FRAME_COUNTS: usize = 26;

/// `frameCountIndexForFrameTime`, without the bit twiddling.
fn frame_count_index(ms: u32) -> usize {
    if ms <= BUCKET_MIN_THRESHOLD {
        return 0;
    }
    let mut index = ms;
    if index > BUCKET_4MS_INTERVALS {
        index = (index - BUCKET_4MS_INTERVALS) / 2 + BUCKET_4MS_INTERVALS;
    }
    if index > BUCKET_2MS_INTERVALS {
        index = (index - BUCKET_2MS_INTERVALS) / 2 + BUCKET_2MS_INTERVALS;
    }
    (index - BUCKET_MIN_THRESHOLD) as usize
}

/// `frameTimeForFrameCountIndex`: the frame time a bucket is printed as.
fn frame_time_for_index(index: usize) -> u32 {
    let mut index = index as u32 + BUCKET_MIN_THRESHOLD;
    if index > BUCKET_2MS_INTERVALS {
        index += index - BUCKET_2MS_INTERVALS;
    }
    if index > BUCKET_4MS_INTERVALS {
        index += (index - BUCKET_4MS_INTERVALS) + 1;
    }
    index
}

fn slow_frame_time_for_index(index: usize) -> u32 {
    index as u32 * SLOW_FRAME_BUCKET_INTERVAL_MS + SLOW_FRAME_BUCKET_START_MS
}

/// `GPUFrameTimeForFrameCountIndex`.
fn gpu_frame_time_for_index(index: usize) -> u32 {
    if index == GPU_FRAME_COUNTS - 1 {
        4950
    } else {
        index as u32 + 1
    }
}

/// hwui's `ProfileData`: the summary `dumpsys gfxinfo` prints.
#[derive(Debug, Clone)]
pub struct ProfileData {
    /// `mStatStartTime`: the monotonic clock (ns) when counting began.
    pub stat_start_ns: i64,
    pub total: u32,
    pub janky: u32,
    pub janky_legacy: u32,
    pub jank_types: [u32; 7],
    frame_counts: [u32; FRAME_COUNTS],
    slow_frame_counts: [u32; SLOW_FRAME_COUNTS],
    gpu_frame_counts: [u32; GPU_FRAME_COUNTS],
}

impl ProfileData {
    pub fn new(now_ns: i64) -> ProfileData {
        ProfileData {
            stat_start_ns: now_ns,
            total: 0,
            janky: 0,
            janky_legacy: 0,
            jank_types: [0; 7],
            frame_counts: [0; FRAME_COUNTS],
            slow_frame_counts: [0; SLOW_FRAME_COUNTS],
            gpu_frame_counts: [0; GPU_FRAME_COUNTS],
        }
    }

    /// `reportFrame` and `reportGPUFrame`.
    fn report_frame(&mut self, ms: u32, gpu_ms: u32) {
        self.total += 1;
        let bucket = frame_count_index(ms);
        if bucket < FRAME_COUNTS {
            self.frame_counts[bucket] += 1;
        } else {
            let slow = (ms.saturating_sub(SLOW_FRAME_BUCKET_START_MS)
                / SLOW_FRAME_BUCKET_INTERVAL_MS) as usize;
            self.slow_frame_counts[slow.min(SLOW_FRAME_COUNTS - 1)] += 1;
        }
        self.gpu_frame_counts[(gpu_ms as usize).min(GPU_FRAME_COUNTS - 1)] += 1;
    }

    /// `findPercentile`: with no frames it is the last slow bucket, 4950 ms, as on a phone.
    pub fn percentile(&self, percentile: u32) -> u32 {
        let pos = i64::from(percentile) * i64::from(self.total) / 100;
        let mut remaining = i64::from(self.total) - pos;
        for i in (0..SLOW_FRAME_COUNTS).rev() {
            remaining -= i64::from(self.slow_frame_counts[i]);
            if remaining <= 0 {
                return slow_frame_time_for_index(i);
            }
        }
        for i in (0..FRAME_COUNTS).rev() {
            remaining -= i64::from(self.frame_counts[i]);
            if remaining <= 0 {
                return frame_time_for_index(i);
            }
        }
        0
    }

    /// `findGPUPercentile`.
    pub fn gpu_percentile(&self, percentile: u32) -> u32 {
        let total: i64 = self.gpu_frame_counts.iter().map(|&c| i64::from(c)).sum();
        let pos = i64::from(percentile) * total / 100;
        let mut remaining = total - pos;
        for i in (0..GPU_FRAME_COUNTS).rev() {
            remaining -= i64::from(self.gpu_frame_counts[i]);
            if remaining <= 0 {
                return gpu_frame_time_for_index(i);
            }
        }
        0
    }

    /// `ProfileData::dump` as it writes to the dump's file descriptor, byte for byte: every
    /// line starts with its `\n`, and a `\n` ends the whole.
    pub fn dump(&self) -> String {
        let pct = |n: u32| {
            if self.total == 0 {
                0.0f32
            } else {
                n as f32 / self.total as f32 * 100.0f32
            }
        };
        let mut s = String::new();
        s.push_str(&format!("\nStats since: {}ns", self.stat_start_ns));
        s.push_str(&format!("\nTotal frames rendered: {}", self.total));
        s.push_str(&format!(
            "\nJanky frames: {} ({:.2}%)",
            self.janky,
            pct(self.janky)
        ));
        s.push_str(&format!(
            "\nJanky frames (legacy): {} ({:.2}%)",
            self.janky_legacy,
            pct(self.janky_legacy)
        ));
        for p in [50, 90, 95, 99] {
            s.push_str(&format!("\n{p}th percentile: {}ms", self.percentile(p)));
        }
        for (name, n) in JANK_TYPE_NAMES.iter().zip(self.jank_types) {
            s.push_str(&format!("\nNumber {name}: {n}"));
        }
        s.push_str("\nHISTOGRAM:");
        for (i, n) in self.frame_counts.iter().enumerate() {
            s.push_str(&format!(" {}ms={n}", frame_time_for_index(i)));
        }
        for (i, n) in self.slow_frame_counts.iter().enumerate() {
            s.push_str(&format!(" {}ms={n}", slow_frame_time_for_index(i)));
        }
        for p in [50, 90, 95, 99] {
            s.push_str(&format!(
                "\n{p}th gpu percentile: {}ms",
                self.gpu_percentile(p)
            ));
        }
        s.push_str("\nGPU HISTOGRAM:");
        for (i, n) in self.gpu_frame_counts.iter().enumerate() {
            s.push_str(&format!(" {}ms={n}", gpu_frame_time_for_index(i)));
        }
        s.push('\n');
        s
    }
}

/// What a change in the app drew (see the module's rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draw {
    /// An input event delivered to the app in front.
    Input,
    /// A new window in front.
    Screen,
}

/// One app process's renderer: its summary and its last frames.
#[derive(Debug, Clone)]
pub struct Renderer {
    pub data: ProfileData,
    frames: VecDeque<FrameRow>,
    /// Where the next frame's vsync may start (frames never overlap).
    next_vsync_ns: i64,
    next_vsync_id: i64,
    next_input_id: i64,
}

impl Renderer {
    /// A renderer that starts counting at `now_ns` (the process's start). `seed` makes its
    /// vsync and input event ids differ between processes.
    pub fn new(now_ns: i64, seed: u32) -> Renderer {
        Renderer {
            data: ProfileData::new(now_ns),
            frames: VecDeque::new(),
            next_vsync_ns: 0,
            next_vsync_id: 3_000_000 + i64::from(seed % 1000) * 1000,
            next_input_id: 0x1a2b_0000 + i64::from(seed % 0x1_0000),
        }
    }

    /// The last frames drawn (at most 120), oldest first.
    pub fn frames(&self) -> impl Iterator<Item = &FrameRow> {
        self.frames.iter()
    }

    /// When the last frame drawn has ended (ns): the next one starts no earlier.
    pub fn busy_until(&self) -> i64 {
        self.next_vsync_ns
    }

    /// `JankTracker::reset`: counting starts again at `now_ns` and the frames are dropped.
    pub fn reset(&mut self, now_ns: i64) {
        self.data = ProfileData::new(now_ns);
        self.frames.clear();
    }

    /// Draws what `what` draws, the first frame on the first vsync from `now_ns`.
    pub fn draw(&mut self, now_ns: i64, what: Draw) {
        let frames = match what {
            Draw::Input => INPUT_FRAMES,
            Draw::Screen => SCREEN_FRAMES,
        };
        let aligned = (now_ns + FRAME_INTERVAL_NS - 1) / FRAME_INTERVAL_NS * FRAME_INTERVAL_NS;
        let mut t = aligned.max(self.next_vsync_ns);
        for (i, &(ms, gpu_ms)) in frames.iter().enumerate() {
            let (flags, input_id) = match (what, i) {
                // FrameInfoFlags::WindowVisibilityChanged on a new window's first frame.
                (Draw::Screen, 0) => (1, 0),
                (Draw::Input, 0) => {
                    self.next_input_id += 0x31;
                    (0, self.next_input_id)
                }
                _ => (0, 0),
            };
            self.next_vsync_id += 1;
            let row = frame_row(t, ms, gpu_ms, flags, self.next_vsync_id, input_id);
            self.finish_frame(&row, ms, gpu_ms);
            if self.frames.len() == RING {
                self.frames.pop_front();
            }
            self.frames.push_back(row);
            let d = i64::from(ms) * 1_000_000;
            t += (d + FRAME_INTERVAL_NS - 1) / FRAME_INTERVAL_NS * FRAME_INTERVAL_NS;
        }
        self.next_vsync_ns = t;
    }

    /// `JankTracker::finishFrame`: the frame counts; past its interval it is janky by the
    /// legacy rule, past its deadline janky, with the causes whose stage took too long.
    fn finish_frame(&mut self, row: &FrameRow, ms: u32, gpu_ms: u32) {
        let d = &mut self.data;
        d.report_frame(ms, gpu_ms);
        let total = row[FRAME_COMPLETED] - row[INTENDED_VSYNC];
        if total > FRAME_INTERVAL_NS {
            d.janky_legacy += 1;
            d.jank_types[MISSED_DEADLINE_LEGACY] += 1;
        }
        if row[FRAME_COMPLETED] <= row[FRAME_DEADLINE] {
            return;
        }
        d.janky += 1;
        d.jank_types[MISSED_DEADLINE] += 1;
        // `COMPARISONS`: (cause, threshold, from, to).
        let checks = [
            (MISSED_VSYNC, 1, INTENDED_VSYNC, VSYNC),
            (SLOW_UI, FRAME_INTERVAL_NS / 2, VSYNC, SYNC_START),
            (
                SLOW_SYNC,
                FRAME_INTERVAL_NS / 5,
                SYNC_START,
                ISSUE_DRAW_COMMANDS_START,
            ),
            (
                SLOW_RT,
                FRAME_INTERVAL_NS * 3 / 4,
                ISSUE_DRAW_COMMANDS_START,
                FRAME_COMPLETED,
            ),
        ];
        for (cause, threshold, from, to) in checks {
            if row[to] - row[from] >= threshold {
                d.jank_types[cause] += 1;
            }
        }
    }
}

/// The timestamps of a frame that starts on the vsync at `t` and takes `ms`: a bit over half
/// of it on the UI thread (input, animation, traversal, draw), the rest on the render thread,
/// the GPU finishing `gpu_ms` after the commands were submitted.
fn frame_row(t: i64, ms: u32, gpu_ms: u32, flags: i64, vsync_id: i64, input_id: i64) -> FrameRow {
    let d = i64::from(ms) * 1_000_000;
    let ui = d * 55 / 100;
    let handle_input = t + 150_000;
    let animation = handle_input + if input_id != 0 { 400_000 } else { 50_000 };
    let traversals = animation + 100_000;
    let draw = (t + ui * 6 / 10).max(traversals + 50_000);
    let sync_queued = t + ui;
    let sync_start = sync_queued + 50_000;
    let issue = sync_start + 250_000;
    let completed = t + d;
    let swap = completed - 400_000;
    let submitted = swap - 100_000;
    [
        flags,
        vsync_id,
        t,
        t,
        input_id,
        handle_input,
        animation,
        traversals,
        draw,
        t + FRAME_INTERVAL_NS,
        FRAME_INTERVAL_NS,
        t,
        sync_queued,
        sync_start,
        issue,
        swap,
        completed,
        150_000,
        80_000,
        submitted + i64::from(gpu_ms) * 1_000_000,
        completed - 100_000,
        0,
        submitted,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_print_as_hwui_prints_them() {
        let times: Vec<u32> = (0..FRAME_COUNTS).map(frame_time_for_index).collect();
        assert_eq!(&times[..3], &[5, 6, 7]);
        assert_eq!(times[27], 32);
        assert_eq!(&times[28..30], &[34, 36]);
        assert_eq!(times[35], 48);
        assert_eq!(&times[36..38], &[53, 57]);
        assert_eq!(times[56], 133);
        assert_eq!(slow_frame_time_for_index(0), 150);
        assert_eq!(slow_frame_time_for_index(96), 4950);
        // A frame lands in the bucket printed as its time (or the one below it).
        for ms in [0, 5, 6, 27, 32, 33, 34, 47, 48, 50, 101, 133] {
            let printed = frame_time_for_index(frame_count_index(ms));
            assert!(printed <= ms.max(5) + 1, "{ms} ms printed as {printed}");
        }
    }

    #[test]
    fn no_frames_is_4950ms_and_a_screen_is_one_janky_frame() {
        let mut r = Renderer::new(1_000, 7);
        assert_eq!(r.data.percentile(50), 4950);
        assert_eq!(r.data.gpu_percentile(90), 4950);
        r.draw(5_000_000_000, Draw::Screen);
        let d = &r.data;
        assert_eq!(d.total, SCREEN_FRAMES.len() as u32);
        assert_eq!((d.janky, d.janky_legacy), (1, 1));
        assert_eq!(d.jank_types, [0, 0, 1, 0, 0, 1, 1]);
        assert_eq!(d.percentile(50), 6);
        assert_eq!(d.percentile(99), 27);
        r.draw(5_000_000_000, Draw::Input);
        assert_eq!(
            r.data.total,
            (SCREEN_FRAMES.len() + INPUT_FRAMES.len()) as u32
        );
        assert_eq!(r.data.janky, 1, "touch feedback is on time");
        // Frames follow one another, each on a vsync.
        let starts: Vec<i64> = r.frames().map(|f| f[INTENDED_VSYNC]).collect();
        assert!(starts.windows(2).all(|w| w[1] > w[0]), "{starts:?}");
        assert!(starts.iter().all(|s| s % FRAME_INTERVAL_NS == 0));
        r.reset(9_000_000_000);
        assert_eq!(r.data.total, 0);
        assert_eq!(r.data.stat_start_ns, 9_000_000_000);
        assert_eq!(r.frames().count(), 0);
    }

    #[test]
    fn the_ring_keeps_the_last_120_frames() {
        let mut r = Renderer::new(0, 1);
        for _ in 0..30 {
            r.draw(0, Draw::Input);
        }
        assert_eq!(r.data.total, 180);
        assert_eq!(r.frames().count(), RING);
    }
}
