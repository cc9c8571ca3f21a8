//! `android_drag`: press, hold, move, release, for what a swipe cannot do (moving a list item,
//! a map pin, a slider thumb held before it moves).
//!
//! Two ways to the device, as InputShellCommand offers them: `input draganddrop x1 y1 x2 y2 ms`
//! (Android 12 and later: DOWN, hold for the long-press timeout, MOVE over `ms`, UP), and for an
//! explicit hold time or an older `input`, the same sequence as `input motionevent DOWN/MOVE/UP`
//! with `sleep` between. The result says which one ran (`performedAs`).
use schemars::JsonSchema;
use serde::Deserialize;

use super::{ActionOut, ReturnScreen, check_point, checked_device, finish, input_held};
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::WithImages;
use crate::mcp::result::ToolError;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DragArgs {
    pub serial: Option<String>,
    pub start_x: i32,
    pub start_y: i32,
    pub end_x: i32,
    pub end_y: i32,
    /// Hold before moving, in ms (0–10000). Unset: the device's long-press timeout, through
    /// `input draganddrop`.
    pub hold_ms: Option<u64>,
    /// The move, in ms (default 500, 10–10000).
    pub duration_ms: Option<u64>,
    pub return_screen: Option<ReturnScreen>,
}

/// MOVE events along the way (the last at the end point), one `input` process each.
const STEPS: i32 = 8;

/// DOWN, hold, MOVE in steps, UP, as one shell line of `input motionevent`.
pub fn motion_script(from: (i32, i32), to: (i32, i32), hold_ms: u64, move_ms: u64) -> String {
    let secs = |ms: u64| format!("{}.{:03}", ms / 1000, ms % 1000);
    let mut parts = vec![format!("input motionevent DOWN {} {}", from.0, from.1)];
    if hold_ms > 0 {
        parts.push(format!("sleep {}", secs(hold_ms)));
    }
    let pause = move_ms / STEPS as u64;
    for i in 1..=STEPS {
        let x = from.0 + (to.0 - from.0) * i / STEPS;
        let y = from.1 + (to.1 - from.1) * i / STEPS;
        parts.push(format!("input motionevent MOVE {x} {y}"));
        if pause > 0 && i < STEPS {
            parts.push(format!("sleep {}", secs(pause)));
        }
    }
    parts.push(format!("input motionevent UP {} {}", to.0, to.1));
    parts.join("; ")
}

/// What an `input` without `draganddrop` prints (InputShellCommand's `handleDefaultCommands`
/// before Android 12, or an `input` that lists no such command).
fn unsupported(text: &str) -> bool {
    text.contains("Unknown command") || text.contains("Error: Unknown")
}

pub async fn drag(ctx: Ctx, a: DragArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let (from, to) = ((a.start_x, a.start_y), (a.end_x, a.end_y));
    let (dev, _) = checked_device(&ctx, a.serial.as_deref(), &[from, to], check_point).await?;
    let move_ms = a.duration_ms.unwrap_or(500).clamp(10, 10_000);
    let mut via = "draganddrop";
    let budget_ms = move_ms + a.hold_ms.unwrap_or(1_000).min(10_000);
    let tried = if a.hold_ms.is_none() {
        let cmd = format!(
            "input draganddrop {} {} {} {} {move_ms}",
            from.0, from.1, to.0, to.1
        );
        let budget = ctx.timeout() + std::time::Duration::from_millis(budget_ms);
        let out = ctx.sh_timeout(&dev, &cmd, budget).await?;
        let text = format!("{}\n{}", out.stdout_text(), out.stderr_text());
        if out.success() && !unsupported(&text) {
            true
        } else if unsupported(&text) {
            false
        } else {
            return Err(ToolError::device(format!(
                "`{cmd}` failed on {} (exit {}): {}",
                dev.serial(),
                out.exit_code,
                text.trim().lines().next().unwrap_or("")
            )));
        }
    } else {
        false
    };
    if !tried {
        via = "motionevent";
        let hold = a.hold_ms.unwrap_or(600).min(10_000);
        let script = motion_script(from, to, hold, move_ms);
        input_held(&ctx, &dev, &script, hold + move_ms).await?;
    }
    let mut out = ActionOut::new(dev.serial(), "drag", via);
    out.point = Some([from.0, from.1]);
    finish(&ctx, &dev, out, a.return_screen).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_motion_script_holds_then_moves_in_steps() {
        let s = motion_script((100, 200), (100, 1000), 700, 400);
        assert!(s.starts_with("input motionevent DOWN 100 200; sleep 0.700; input motionevent MOVE 100 300; sleep 0.050;"), "{s}");
        assert!(
            s.ends_with("input motionevent MOVE 100 1000; input motionevent UP 100 1000"),
            "{s}"
        );
        assert_eq!(s.matches("MOVE").count(), STEPS as usize);
        assert!(!motion_script((0, 0), (8, 8), 0, 0).contains("sleep"));
        assert!(unsupported("Error: Unknown command: draganddrop"));
    }
}
