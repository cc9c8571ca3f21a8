//! Real multi-touch: `input` has no verb for two fingers, so gestures are written to the
//! touchscreen node `getevent -pl` names, as Linux multi-touch protocol B (ABS_MT_SLOT,
//! ABS_MT_TRACKING_ID, ABS_MT_POSITION_X/Y, BTN_TOUCH, SYN_REPORT), scaled to its axis ranges.
//!
//! The panel does not turn with the display: points are given on the screen as it is turned
//! now (`dumpsys input` says how) and mapped back to the upright panel, inverting
//! `TouchInputMapper::rotateAndScale` (AOSP frameworks/native
//! services/inputflinger/reader/mapper/TouchInputMapper.cpp, as vendored in
//! nohajc/vendor-adb-patched @7f722c8d: "90 - swap x/y and reverse y", "270 - swap x/y and
//! reverse x").
//!
//! The whole gesture is ONE shell command line (`sendevent …; sleep 0.016; …`) so its timing
//! is the device's, not that of a round trip per frame. On a real device every `sendevent` is
//! a process start (a few ms), so a gesture takes somewhat longer than `duration`.
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{GestureOut, check_point_exact, screen_size};
use crate::device::parse::getevent::{self, InputDevice, codes};
use crate::guard::shell_quote;
use crate::mcp::ctx::Ctx;
use crate::mcp::result::ToolError;

/// Frames of a two-finger gesture: both fingers' screen positions, first frame = touch down.
pub type Path2 = Vec<[(f64, f64); 2]>;

const MIN_STEPS: u64 = 4;
const MAX_STEPS: u64 = 30;
/// Tracking ids for the two fingers (any non-negative value; the kernel does not care).
const TRACKING: [i32; 2] = [4001, 4002];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Finger {
    pub start: [i32; 2],
    pub end: [i32; 2],
}

/// The touchscreen node and its raw axis ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchScreen {
    pub path: String,
    pub x: (i32, i32),
    pub y: (i32, i32),
}

impl TouchScreen {
    /// The first direct-touch multi-touch node whose path looks like an input node.
    pub fn find(devices: &[InputDevice]) -> Option<TouchScreen> {
        devices.iter().find_map(|d| {
            let ok_path = d
                .path
                .strip_prefix("/dev/input/event")
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            if !ok_path || !d.is_touchscreen() {
                return None;
            }
            let x = d.axis("ABS_MT_POSITION_X")?;
            let y = d.axis("ABS_MT_POSITION_Y")?;
            (x.max > x.min && y.max > y.min).then(|| TouchScreen {
                path: d.path.clone(),
                x: (x.min, x.max),
                y: (y.min, y.max),
            })
        })
    }

    /// Screen pixel → raw axis value.
    pub fn raw(&self, p: (f64, f64), size: (u32, u32)) -> (i32, i32) {
        let scale = |v: f64, (lo, hi): (i32, i32), len: u32| {
            let span = f64::from(len.saturating_sub(1).max(1));
            let r = f64::from(lo) + v * f64::from(hi - lo) / span;
            r.round().clamp(f64::from(lo), f64::from(hi)) as i32
        };
        (scale(p.0, self.x, size.0), scale(p.1, self.y, size.1))
    }
}

/// A point on the screen turned by `rotation` (0..=3) → the same point on the upright panel,
/// in natural pixels (`natural` = `wm size`'s upright width and height). The inverse of
/// `rotateAndScale`: at 90° screen (x, y) is panel (W-1-y, x); at 270° it is (y, H-1-x).
pub fn screen_to_panel(p: (f64, f64), natural: (u32, u32), rotation: u8) -> (f64, f64) {
    let w = f64::from(natural.0.saturating_sub(1));
    let h = f64::from(natural.1.saturating_sub(1));
    match rotation {
        1 => (w - p.1, p.0),
        2 => (w - p.0, h - p.1),
        3 => (p.1, h - p.0),
        _ => p,
    }
}

fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

fn frames(steps: u64, at: impl Fn(f64) -> [(f64, f64); 2]) -> Path2 {
    (0..=steps).map(|i| at(i as f64 / steps as f64)).collect()
}

/// Fingers either side of (x, y) along `angle` degrees, spread apart by start → end.
pub fn pinch_paths(x: f64, y: f64, start: f64, end: f64, angle: f64, steps: u64) -> Path2 {
    let (s, c) = angle.to_radians().sin_cos();
    frames(steps, |t| {
        let h = lerp(start, end, t) / 2.0;
        [(x - h * c, y + h * s), (x + h * c, y - h * s)]
    })
}

/// Two fingers `spread` apart, across the direction of travel, moving together.
pub fn two_finger_paths(from: (f64, f64), to: (f64, f64), spread: f64, steps: u64) -> Path2 {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = dx.hypot(dy).max(1e-9);
    // Unit normal to the motion; a swipe that does not move spreads the fingers horizontally.
    let (nx, ny) = if dx.hypot(dy) < 1.0 {
        (1.0, 0.0)
    } else {
        (-dy / len, dx / len)
    };
    let h = spread / 2.0;
    frames(steps, |t| {
        let (cx, cy) = (lerp(from.0, to.0, t), lerp(from.1, to.1, t));
        [(cx - h * nx, cy - h * ny), (cx + h * nx, cy + h * ny)]
    })
}

/// Two fingers opposite each other on a circle, turning counter-clockwise for a growing angle
/// (screen y grows downwards, hence the minus).
pub fn rotate_paths(x: f64, y: f64, radius: f64, start: f64, end: f64, steps: u64) -> Path2 {
    frames(steps, |t| {
        let (s, c) = lerp(start, end, t).to_radians().sin_cos();
        [
            (x + radius * c, y - radius * s),
            (x - radius * c, y + radius * s),
        ]
    })
}

/// The single command line that performs `path` on `ts`, sleeping `step` between frames.
pub fn gesture_script(ts: &TouchScreen, size: (u32, u32), path: &Path2, step: Duration) -> String {
    let dev = shell_quote(&ts.path);
    let ev = |ty: u16, code: u16, value: i32| format!("sendevent {dev} {ty} {code} {value}");
    let abs = codes::EV_ABS;
    let mut cmds: Vec<String> = Vec::new();
    let sleep = format!("sleep {:.3}", step.as_secs_f64());
    for (i, frame) in path.iter().enumerate() {
        if i > 0 {
            cmds.push(sleep.clone());
        }
        for (slot, p) in frame.iter().enumerate() {
            let (rx, ry) = ts.raw(*p, size);
            cmds.push(ev(abs, codes::ABS_MT_SLOT, slot as i32));
            if i == 0 {
                cmds.push(ev(abs, codes::ABS_MT_TRACKING_ID, TRACKING[slot]));
            }
            cmds.push(ev(abs, codes::ABS_MT_POSITION_X, rx));
            cmds.push(ev(abs, codes::ABS_MT_POSITION_Y, ry));
        }
        if i == 0 {
            cmds.push(ev(codes::EV_KEY, codes::BTN_TOUCH, 1));
        }
        cmds.push(ev(codes::EV_SYN, codes::SYN_REPORT, 0));
    }
    for slot in 0..2 {
        cmds.push(ev(abs, codes::ABS_MT_SLOT, slot));
        cmds.push(ev(abs, codes::ABS_MT_TRACKING_ID, -1));
    }
    cmds.push(ev(codes::EV_KEY, codes::BTN_TOUCH, 0));
    cmds.push(ev(codes::EV_SYN, codes::SYN_REPORT, 0));
    cmds.join(" ; ")
}

fn steps_for(duration_ms: u64) -> u64 {
    (duration_ms / 16).clamp(MIN_STEPS, MAX_STEPS)
}

fn check_duration(d: Option<u64>, default: u64) -> Result<u64, ToolError> {
    let d = d.unwrap_or(default);
    if !(50..=10_000).contains(&d) {
        return Err(ToolError::invalid_args(format!(
            "duration {d} ms is outside 50..=10000"
        )));
    }
    Ok(d)
}

fn finite(vals: &[f64]) -> Result<(), ToolError> {
    if vals.iter().all(|v| v.is_finite() && v.abs() < 1e6) {
        Ok(())
    } else {
        Err(ToolError::invalid_args(
            "gesture numbers must be finite and below 1e6",
        ))
    }
}

/// Checks every frame is on screen, finds the touchscreen, and runs the gesture.
async fn run(
    ctx: &Ctx,
    serial: Option<&str>,
    name: &str,
    path: Path2,
    duration_ms: u64,
) -> Result<GestureOut, ToolError> {
    let points: Vec<(i32, i32)> = path
        .iter()
        .flatten()
        .map(|p| (p.0.round() as i32, p.1.round() as i32))
        .collect();
    let dev = ctx.device(serial).await?;
    let size = screen_size(ctx, &dev).await?;
    let rotation = match ctx.sh(&dev, "dumpsys input").await {
        Ok(o) if o.success() => input_rotation(&o.stdout_text()),
        _ => 0,
    };
    let turned = if rotation % 2 == 1 {
        (size.1, size.0)
    } else {
        size
    };
    for &(x, y) in &points {
        check_point_exact(x, y, turned)?;
    }
    let listing = ctx.sh_ok(&dev, "getevent -pl").await?;
    let ts = TouchScreen::find(&getevent::parse_devices(&listing)).ok_or_else(|| {
        ToolError::device(format!(
            "`getevent -pl` on {} lists no multi-touch touchscreen (ABS_MT_POSITION_X/Y with INPUT_PROP_DIRECT)",
            dev.serial()
        ))
    })?;
    let steps = path.len().saturating_sub(1).max(1);
    let step = Duration::from_millis(duration_ms) / steps as u32;
    let panel: Path2 = path
        .iter()
        .map(|f| f.map(|p| screen_to_panel(p, size, rotation)))
        .collect();
    let script = gesture_script(&ts, size, &panel, step);
    let budget = ctx.timeout() + Duration::from_millis(duration_ms * 2) + Duration::from_secs(10);
    let out = ctx.sh_timeout(&dev, &script, budget).await?;
    if !out.success() {
        let err = out.stderr_text();
        return Err(ToolError::device(format!(
            "sendevent to {} failed on {} (exit {}): {}",
            ts.path,
            dev.serial(),
            out.exit_code,
            err.trim().lines().next().unwrap_or("")
        )));
    }
    let at = |f: usize, i: usize| {
        let p = path.get(i).map_or((0.0, 0.0), |fr| fr[f]);
        [p.0.round() as i32, p.1.round() as i32]
    };
    let last = path.len().saturating_sub(1);
    Ok(GestureOut {
        serial: dev.serial().to_string(),
        gesture: name.to_string(),
        device_node: ts.path,
        fingers: (0..2)
            .map(|f| Finger {
                start: at(f, 0),
                end: at(f, last),
            })
            .collect(),
        rotation: u32::from(rotation) * 90,
        steps,
        duration_ms,
    })
}

fn input_rotation(dump: &str) -> u8 {
    crate::device::parse::input::touch_rotation(dump).unwrap_or(0)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PinchArgs {
    pub serial: Option<String>,
    pub x: f64,
    pub y: f64,
    /// Distance between the fingers at the start, pixels.
    pub start_spread: f64,
    pub end_spread: f64,
    /// Degrees of the line between the fingers (0 = horizontal).
    pub angle: Option<f64>,
    /// Milliseconds (default 400).
    pub duration: Option<u64>,
}

pub async fn pinch(ctx: Ctx, a: PinchArgs) -> Result<GestureOut, ToolError> {
    let angle = a.angle.unwrap_or(0.0);
    finite(&[a.x, a.y, a.start_spread, a.end_spread, angle])?;
    if a.start_spread < 0.0 || a.end_spread < 0.0 || (a.start_spread - a.end_spread).abs() < 1.0 {
        return Err(ToolError::invalid_args(
            "startSpread and endSpread must be non-negative and differ (smaller end = pinch in)",
        ));
    }
    let d = check_duration(a.duration, 400)?;
    let path = pinch_paths(a.x, a.y, a.start_spread, a.end_spread, angle, steps_for(d));
    run(&ctx, a.serial.as_deref(), "pinch", path, d).await
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TwoFingerArgs {
    pub serial: Option<String>,
    pub start_x: f64,
    pub start_y: f64,
    pub end_x: f64,
    pub end_y: f64,
    /// Distance between the fingers, pixels (default 200).
    pub spread: Option<f64>,
    /// Milliseconds (default 400).
    pub duration: Option<u64>,
}

pub async fn two_finger_swipe(ctx: Ctx, a: TwoFingerArgs) -> Result<GestureOut, ToolError> {
    let spread = a.spread.unwrap_or(200.0);
    finite(&[a.start_x, a.start_y, a.end_x, a.end_y, spread])?;
    if spread <= 0.0 {
        return Err(ToolError::invalid_args("spread must be positive"));
    }
    let d = check_duration(a.duration, 400)?;
    let path = two_finger_paths(
        (a.start_x, a.start_y),
        (a.end_x, a.end_y),
        spread,
        steps_for(d),
    );
    run(&ctx, a.serial.as_deref(), "two_finger_swipe", path, d).await
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RotateArgs {
    pub serial: Option<String>,
    pub x: f64,
    pub y: f64,
    /// Pixels from the centre to each finger (default 200).
    pub radius: Option<f64>,
    pub start_angle: f64,
    pub end_angle: f64,
    /// Milliseconds (default 600).
    pub duration: Option<u64>,
}

pub async fn rotate(ctx: Ctx, a: RotateArgs) -> Result<GestureOut, ToolError> {
    let radius = a.radius.unwrap_or(200.0);
    finite(&[a.x, a.y, radius, a.start_angle, a.end_angle])?;
    if radius < 10.0 || (a.end_angle - a.start_angle).abs() > 720.0 {
        return Err(ToolError::invalid_args(
            "radius must be at least 10 px and the rotation at most 720 degrees",
        ));
    }
    let d = check_duration(a.duration, 600)?;
    let path = rotate_paths(a.x, a.y, radius, a.start_angle, a.end_angle, steps_for(d));
    run(&ctx, a.serial.as_deref(), "rotate", path, d).await
}
