//! `cmd uimode`: `UiModeManagerService.Shell` as Android 14 has it
//! (aosp-mirror/platform_frameworks_base `services/core/java/com/android/server/
//! UiModeManagerService.java`): `night [yes|no|auto|custom_schedule|custom_bedtime]` reads or
//! sets the dark theme and prints `Night mode: …`; a mode it does not know is refused on
//! stderr with exit status 255 (`return -1`). (`car` and `time` are not modelled.)
//!
//! The mode lives where the service persists it, in `Settings.Secure`: `ui_night_mode`
//! (`UiModeManager.MODE_NIGHT_AUTO` 0, `_NO` 1, `_YES` 2, `_CUSTOM` 3) and
//! `ui_night_mode_custom_type` (`MODE_NIGHT_CUSTOM_TYPE_UNKNOWN` -1, `_SCHEDULE` 0,
//! `_BEDTIME` 1), so `settings get secure ui_night_mode` always agrees with `cmd uimode night`.
use super::Ctx;

const UI_NIGHT_MODE: &str = "secure/ui_night_mode";
const UI_NIGHT_MODE_CUSTOM_TYPE: &str = "secure/ui_night_mode_custom_type";

const MODE_NIGHT_AUTO: i64 = 0;
const MODE_NIGHT_NO: i64 = 1;
const MODE_NIGHT_YES: i64 = 2;
const MODE_NIGHT_CUSTOM: i64 = 3;
const CUSTOM_TYPE_UNKNOWN: i64 = -1;
const CUSTOM_TYPE_SCHEDULE: i64 = 0;
const CUSTOM_TYPE_BEDTIME: i64 = 1;

const HELP: &str = "UiModeManager service (uimode) commands:
  help
    Print this help text.
  night [yes|no|auto|custom_schedule|custom_bedtime]
    Set or read night mode.
  car [yes|no]
    Set or read car mode.
  time [start|end] <ISO time>
    Set custom start/end schedule time (night mode must be set to custom to apply).";

/// `args[0]` is `uimode`.
pub fn uimode(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.get(1).map(String::as_str) {
        Some("night") => night(ctx, args.get(2).map(String::as_str)),
        // `ShellCommand.handleDefaultCommands`: help, or the command it does not know, on
        // stdout, and -1.
        None | Some("help") | Some("-h") => {
            ctx.outln(HELP);
            255
        }
        Some(other) => {
            ctx.outln(&format!("Unknown command: {other}"));
            255
        }
    }
}

fn setting(ctx: &Ctx, key: &str, default: i64) -> i64 {
    ctx.st
        .settings
        .get(key)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// `handleNightMode`.
fn night(ctx: &mut Ctx, mode: Option<&str>) -> i32 {
    if let Some(mode) = mode {
        // `strToNightMode` and `strToNightModeCustomType`; `setNightMode` then
        // `setNightModeCustomType` for the custom ones.
        let (mode, custom) = match mode {
            "yes" => (MODE_NIGHT_YES, CUSTOM_TYPE_UNKNOWN),
            "no" => (MODE_NIGHT_NO, CUSTOM_TYPE_UNKNOWN),
            "auto" => (MODE_NIGHT_AUTO, CUSTOM_TYPE_UNKNOWN),
            "custom_schedule" => (MODE_NIGHT_CUSTOM, CUSTOM_TYPE_SCHEDULE),
            "custom_bedtime" => (MODE_NIGHT_CUSTOM, CUSTOM_TYPE_BEDTIME),
            _ => {
                ctx.errln(
                    "Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or 'custom_bedtime'",
                );
                return 255;
            }
        };
        // `setNightModeInternal` persists only a change (`persistNightMode`).
        let current = (
            setting(ctx, UI_NIGHT_MODE, MODE_NIGHT_NO),
            setting(ctx, UI_NIGHT_MODE_CUSTOM_TYPE, CUSTOM_TYPE_UNKNOWN),
        );
        if current != (mode, custom) {
            let s = &mut ctx.st.settings;
            s.insert(UI_NIGHT_MODE.into(), mode.to_string());
            s.insert(UI_NIGHT_MODE_CUSTOM_TYPE.into(), custom.to_string());
        }
    }
    // `printCurrentNightMode`, `nightModeToStr`: the default is `config_defaultNightMode`, no.
    let shown = match (
        setting(ctx, UI_NIGHT_MODE, MODE_NIGHT_NO),
        setting(ctx, UI_NIGHT_MODE_CUSTOM_TYPE, CUSTOM_TYPE_UNKNOWN),
    ) {
        (MODE_NIGHT_YES, _) => "yes",
        (MODE_NIGHT_NO, _) => "no",
        (MODE_NIGHT_AUTO, _) => "auto",
        (MODE_NIGHT_CUSTOM, CUSTOM_TYPE_SCHEDULE) => "custom_schedule",
        (MODE_NIGHT_CUSTOM, CUSTOM_TYPE_BEDTIME) => "custom_bedtime",
        _ => "unknown",
    };
    ctx.outln(&format!("Night mode: {shown}"));
    0
}
