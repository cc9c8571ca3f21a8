//! Coordinate fallbacks (tap, long press, swipe, drag, key, text) and real multi-touch gestures
//! (pinch, two-finger swipe, rotate). Their descriptions send agents to the element tools
//! first: a coordinate read off a screenshot breaks on any other screen. Coordinates outside
//! the screen (`wm size`) are refused, and text reaches `input text` only through
//! `guard::input_text_escape`, so the device shell never interprets it.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::acted::{ActionOut, ReturnScreen, finish};
use super::inspect::refused;
use crate::device::Device;
use crate::device::parse::wm;
use crate::guard;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;
use crate::mcp::typed_text::after_read::AwaitingRead;

mod drag;
mod multitouch;

pub use multitouch::{
    Finger, Path2, TouchScreen, gesture_script, pinch_paths, rotate_paths, screen_to_panel,
    two_finger_paths,
};

/// How a single-finger press is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GestureKind {
    Tap,
    /// Hold for this many ms.
    LongPress(u64),
}

impl GestureKind {
    pub fn label(self) -> &'static str {
        match self {
            GestureKind::Tap => "tap",
            GestureKind::LongPress(_) => "long_press",
        }
    }
}

/// `input swipe`; a swipe that does not move is how `input` long-presses.
pub fn swipe_cmd(from: (i32, i32), to: (i32, i32), ms: u64) -> String {
    format!("input swipe {} {} {} {} {ms}", from.0, from.1, to.0, to.1)
}

/// Runs an `input` command that holds for `hold_ms`, adding that time to the timeout (a
/// 10-second long press must not be cut off by a shorter command timeout).
pub async fn input_held(ctx: &Ctx, dev: &Device, cmd: &str, hold_ms: u64) -> Result<(), ToolError> {
    let budget = ctx.timeout() + std::time::Duration::from_millis(hold_ms);
    let out = ctx.sh_timeout(dev, cmd, budget).await?;
    if out.success() {
        return Ok(());
    }
    let err = format!("{}\n{}", out.stderr_text(), out.stdout_text());
    Err(ToolError::device(format!(
        "`{cmd}` failed on {} (exit {}): {}",
        dev.serial(),
        out.exit_code,
        err.trim().lines().next().unwrap_or("")
    )))
}

/// The shell line that types `text` (`input text` for ASCII, the virtual keyboard's dead keys
/// for accented letters), or why the text cannot be typed.
pub fn check_text(text: &str) -> Result<String, ToolError> {
    guard::typing_commands(text).map_err(refused)
}

/// `KEYCODE_…` or a number, for `input keyevent`.
pub fn check_key(key: &str) -> Result<guard::keycodes::Key, ToolError> {
    guard::keycode(key).map_err(refused)
}

/// Refuses a point outside a `width`×`height` screen. `wm size` gives the display's natural
/// (upright) size while `input` takes points in the current orientation, so a point that fits
/// the screen either way round is accepted: a landscape app's (2000, 500) on a 1080×2400 phone
/// is a real point, (2000, 2000) is on no screen.
pub fn check_point(x: i32, y: i32, size: (u32, u32)) -> Result<(), ToolError> {
    check(x, y, size, true)
}

/// Points that must fit the screen as it is turned now (`size` already in the current
/// orientation): multi-touch gestures read the display rotation, so there is no guessing.
pub fn check_point_exact(x: i32, y: i32, size: (u32, u32)) -> Result<(), ToolError> {
    check(x, y, size, false)
}

fn check(x: i32, y: i32, size: (u32, u32), turned_ok: bool) -> Result<(), ToolError> {
    let (w, h) = (i64::from(size.0), i64::from(size.1));
    let (x, y) = (i64::from(x), i64::from(y));
    let inside = |w: i64, h: i64| (0..w).contains(&x) && (0..h).contains(&y);
    if inside(w, h) || (turned_ok && inside(h, w)) {
        return Ok(());
    }
    let turned = if turned_ok {
        format!(" upright, or to ({}, {}) turned to landscape", h - 1, w - 1)
    } else {
        " (the screen as it is turned now)".to_string()
    };
    Err(ToolError::refused(format!(
        "({x}, {y}) is outside the {w}x{h} screen; coordinates run from (0, 0) to ({}, {}){turned}",
        w - 1,
        h - 1,
    )))
}

/// The screen size apps see (`wm size`: the override when one is set), kept for a few seconds
/// per device so a run of taps does not start a `wm` process on the device for each.
pub async fn screen_size(ctx: &Ctx, dev: &Device) -> Result<(u32, u32), ToolError> {
    if let Some(size) = ctx.core.devices.screen_size(dev.serial()) {
        return Ok(size);
    }
    let text = ctx.sh_ok(dev, "wm size").await?;
    let size = wm::parse_size(&text)
        .effective
        .map(|s| (s.width, s.height))
        .ok_or_else(|| {
            ToolError::device(format!("`wm size` on {} printed no size", dev.serial()))
        })?;
    ctx.core.devices.remember_screen_size(dev.serial(), size);
    Ok(size)
}

async fn checked_device(
    ctx: &Ctx,
    serial: Option<&str>,
    points: &[(i32, i32)],
    check: fn(i32, i32, (u32, u32)) -> Result<(), ToolError>,
) -> Result<(Device, (u32, u32)), ToolError> {
    let dev = ctx.device(serial).await?;
    let size = screen_size(ctx, &dev).await?;
    for &(x, y) in points {
        check(x, y, size)?;
    }
    Ok((dev, size))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PointArgs {
    pub serial: Option<String>,
    pub x: i32,
    pub y: i32,
    /// Long press hold time in ms (default 1000).
    pub duration_ms: Option<u64>,
    pub return_screen: Option<ReturnScreen>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SwipeArgs {
    pub serial: Option<String>,
    pub start_x: i32,
    pub start_y: i32,
    pub end_x: i32,
    pub end_y: i32,
    /// Default 300 ms.
    pub duration_ms: Option<u64>,
    pub return_screen: Option<ReturnScreen>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct KeyArgs {
    pub serial: Option<String>,
    /// Android key name, KEYCODE_ optional (DEL, PAGE_DOWN, MOVE_END…), a common name (DELETE,
    /// ESC, END…) or a key code.
    pub key: String,
    #[serde(default)]
    pub long_press: bool,
    pub return_screen: Option<ReturnScreen>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TextArgs {
    pub serial: Option<String>,
    /// ASCII text, typed exactly into the focused field.
    pub text: String,
    pub return_screen: Option<ReturnScreen>,
}

async fn point(
    ctx: Ctx,
    a: PointArgs,
    kind: GestureKind,
) -> Result<WithImages<ActionOut>, ToolError> {
    let (dev, _) = checked_device(&ctx, a.serial.as_deref(), &[(a.x, a.y)], check_point).await?;
    let hold = a.duration_ms.unwrap_or(1000).clamp(500, 10_000);
    let (cmd, hold) = match kind {
        GestureKind::Tap => (format!("input tap {} {}", a.x, a.y), 0),
        GestureKind::LongPress(_) => (swipe_cmd((a.x, a.y), (a.x, a.y), hold), hold),
    };
    input_held(&ctx, &dev, &cmd, hold).await?;
    let mut out = ActionOut::new(dev.serial(), kind.label(), kind.label());
    out.point = Some([a.x, a.y]);
    finish(&ctx, &dev, out, a.return_screen).await
}

async fn swipe(ctx: Ctx, a: SwipeArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let (from, to) = ((a.start_x, a.start_y), (a.end_x, a.end_y));
    let (dev, _) = checked_device(&ctx, a.serial.as_deref(), &[from, to], check_point).await?;
    let ms = a.duration_ms.unwrap_or(300).clamp(10, 10_000);
    input_held(&ctx, &dev, &swipe_cmd(from, to, ms), ms).await?;
    let mut out = ActionOut::new(dev.serial(), "swipe", "swipe");
    out.point = Some([from.0, from.1]);
    finish(&ctx, &dev, out, a.return_screen).await
}

async fn key(ctx: Ctx, a: KeyArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let code = check_key(&a.key)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    let long = if a.long_press { "--longpress " } else { "" };
    ctx.sh_ok(&dev, &format!("input keyevent {long}{}", code.code))
        .await?;
    let out = ActionOut::new(dev.serial(), &format!("press_key {}", code.label()), "keys");
    finish(&ctx, &dev, out, a.return_screen).await
}

async fn text(ctx: Ctx, a: TextArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let word = check_text(&a.text)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    // The text goes into whatever is focused. A kept password (a batch step's) goes only into
    // a password field, so that is read first; any other text is typed at once and stays
    // «password» everywhere until a read of the screen shows the field was no password field
    // (`typed_text::after_read`): this call's settle dump, or the next read.
    if ctx.typed.is_kept(0) {
        ctx.typing_into(super::acted::focused_is_password(&ctx, &dev).await)?;
        ctx.sh_ok(&dev, &word).await?;
    } else {
        ctx.sh_ok(&dev, &word).await?;
        ctx.core.kept::<AwaitingRead>().typed(
            dev.serial(),
            dev.screen_generation(),
            ctx.call_id,
            ctx.typed.clone(),
            &a.text,
        );
    }
    let out = ActionOut::new(dev.serial(), "input_text", "text");
    finish(&ctx, &dev, out, a.return_screen).await
}

/// What a multi-touch gesture reports.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GestureOut {
    pub serial: String,
    pub gesture: String,
    /// The touchscreen node written to, from `getevent -pl`.
    pub device_node: String,
    /// Each finger's start and end point in screen pixels.
    pub fingers: Vec<Finger>,
    /// Display rotation the points were mapped to the touch panel with (0, 90, 180, 270);
    /// `dumpsys input` that does not report it counts as 0.
    pub rotation: u32,
    pub steps: usize,
    pub duration_ms: u64,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_tap",
            title: "Tap at coordinates",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Fallback: tap screen pixels. Prefer android_tap_element, which survives \
                          other screen sizes.",
        }
        .def(|ctx: Ctx, a: PointArgs| point(ctx, a, GestureKind::Tap)),
        Meta {
            name: "android_long_press",
            title: "Long-press at coordinates",
            level: Level::SafeAction,
            toolset: Toolset::Gestures,
            description: "Fallback: long-press screen pixels (durationMs, default 1000). Prefer android_long_press_element.",
        }
        .def(|ctx: Ctx, a: PointArgs| point(ctx, a, GestureKind::LongPress(0))),
        Meta {
            name: "android_swipe",
            title: "Swipe",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Fallback: swipe between screen pixels. Prefer android_scroll / android_scroll_to_element (the `ui` toolset).",
        }
        .def(swipe),
        Meta {
            name: "android_drag",
            title: "Drag",
            level: Level::SafeAction,
            toolset: Toolset::Gestures,
            description: "Press at (startX, startY), hold, move to (endX, endY) over durationMs, release: moves a list item, \
                          a pin or a held slider, where a swipe would scroll. holdMs sets the hold (default: the device's \
                          long-press time, via `input draganddrop`).",
        }
        .def(drag::drag),
        Meta {
            name: "android_press_key",
            title: "Press key",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Press a key: BACK, HOME, ENTER, TAB, BACKSPACE, arrows, any Android key name or number.",
        }
        .def(key),
        Meta {
            name: "android_input_text",
            title: "Type text",
            level: Level::SafeAction,
            toolset: Toolset::Gestures,
            description: "Type text exactly into the focused field: ASCII, plus the accented letters and ç ß the device's \
                          virtual keyboard has. Prefer android_input_text_into_element, which focuses and verifies the field.",
        }
        .def(text)
        .typing_text(),
        Meta {
            name: "android_pinch",
            title: "Pinch",
            level: Level::SafeAction,
            toolset: Toolset::Gestures,
            description: "Two-finger pinch around (x, y) from startSpread to endSpread pixels (in < out), at angle degrees, over duration ms.",
        }
        .def(multitouch::pinch),
        Meta {
            name: "android_two_finger_swipe",
            title: "Two-finger swipe",
            level: Level::SafeAction,
            toolset: Toolset::Gestures,
            description: "Two fingers spread pixels apart moving together from (startX, startY) to (endX, endY) over duration ms.",
        }
        .def(multitouch::two_finger_swipe),
        Meta {
            name: "android_rotate_gesture",
            title: "Rotate gesture",
            level: Level::SafeAction,
            toolset: Toolset::Gestures,
            description: "Two fingers on a circle of radius around (x, y) turning from startAngle to endAngle degrees \
                          (counter-clockwise positive) over duration ms.",
        }
        .def(multitouch::rotate),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_off_the_screen_are_refused() {
        let size = (1080, 2400);
        // Upright, and turned to landscape (wm size still says 1080x2400).
        for ok in [(0, 0), (1079, 2399), (540, 1200), (2399, 1079), (2000, 500)] {
            assert!(check_point(ok.0, ok.1, size).is_ok(), "{ok:?}");
        }
        for bad in [
            (-1, 0),
            (5, 2400),
            (2400, 5),
            (1080, 1080),
            (2000, 2000),
            (i32::MIN, i32::MAX),
        ] {
            assert!(check_point(bad.0, bad.1, size).is_err(), "{bad:?}");
        }
        // Multi-touch knows the rotation: the size given is the turned one, and exact.
        assert!(check_point_exact(1079, 2399, size).is_ok());
        let e = check_point_exact(2000, 500, size).unwrap_err();
        assert!(e.message.contains("turned now"), "{}", e.message);
        assert!(check_point_exact(2000, 500, (2400, 1080)).is_ok());
    }

    #[test]
    fn text_and_keys_reach_the_shell_as_one_inert_word() {
        assert_eq!(
            check_text("it's \"a\" $HOME; ls").unwrap(),
            "input text 'it'\\''s%s\"a\"%s$HOME;%sls'"
        );
        assert!(check_text("naïve").is_ok(), "ï has a dead key");
        assert!(check_text("smørrebrød").is_err());
        assert_eq!(check_key("back").unwrap().label(), "KEYCODE_BACK");
        assert_eq!(check_key("Backspace").unwrap().code, 67);
        let e = check_key("PAGEUPP").unwrap_err();
        assert!(e.message.contains("PAGE_UP"), "{}", e.message);
        assert!(check_key("HOME; reboot").is_err());
        assert_eq!(swipe_cmd((1, 2), (1, 2), 1000), "input swipe 1 2 1 2 1000");
    }
}
