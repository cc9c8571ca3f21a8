//! Android's key code names, as `input keyevent` and `input keycombination` resolve them.
//!
//! `KeyEvent.keyCodeFromString` (frameworks/base `core/java/android/view/KeyEvent.java`) takes
//! a number, or a name with or without `KEYCODE_`, and looks the name up in the native label
//! table (frameworks/native `libs/input/InputEventLabels.cpp`, `KEYCODES_SEQUENCE`), whose order
//! is the key code. The table below is that sequence, from `UNKNOWN` (0) to `F24` (337):
//! - 0–285: aosp-mirror/platform_frameworks_base `core/java/android/view/KeyEvent.java`
//!   @401c4b1d00d6f831eb30d1853683ca525d50f192 (`LAST_KEYCODE = KEYCODE_REFRESH`);
//! - 286–312: LineageOS/android_frameworks_native `libs/input/InputEventLabels.cpp`
//!   @118cd603c455316c7cc766e02364e73034064e8a (ends at `RECENT_APPS`);
//! - 313–337 (`MACRO_1` … `F24`, Android 15 and 16): OP15InfinityX/android_frameworks_native
//!   `libs/input/InputEventLabels.cpp` @c96061f0a596f95baacb6cb2255ca2f777f312fc (its vendor
//!   additions after `F24` are left out).
//!
//! Checked against Android alone, never against the client's table: every entry against the
//! `KEYCODE_*` constants of an Android 16 `KeyEvent.java` (`tests/fixtures/aosp/
//! keyevent-keycodes.tsv`, its source in `tests/fixtures/SOURCES.md`).

/// Every key code name; the index is the code.
#[rustfmt::skip]
pub const NAMES: &[&str] = &[
    "UNKNOWN", "SOFT_LEFT", "SOFT_RIGHT", "HOME", "BACK", "CALL", "ENDCALL", "0", "1", "2", "3",
    "4", "5", "6", "7", "8", "9", "STAR", "POUND", "DPAD_UP", "DPAD_DOWN", "DPAD_LEFT",
    "DPAD_RIGHT", "DPAD_CENTER", "VOLUME_UP", "VOLUME_DOWN", "POWER", "CAMERA", "CLEAR", "A", "B",
    "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S", "T", "U",
    "V", "W", "X", "Y", "Z", "COMMA", "PERIOD", "ALT_LEFT", "ALT_RIGHT", "SHIFT_LEFT",
    "SHIFT_RIGHT", "TAB", "SPACE", "SYM", "EXPLORER", "ENVELOPE", "ENTER", "DEL", "GRAVE",
    "MINUS", "EQUALS", "LEFT_BRACKET", "RIGHT_BRACKET", "BACKSLASH", "SEMICOLON", "APOSTROPHE",
    "SLASH", "AT", "NUM", "HEADSETHOOK", "FOCUS", "PLUS", "MENU", "NOTIFICATION", "SEARCH",
    "MEDIA_PLAY_PAUSE", "MEDIA_STOP", "MEDIA_NEXT", "MEDIA_PREVIOUS", "MEDIA_REWIND",
    "MEDIA_FAST_FORWARD", "MUTE", "PAGE_UP", "PAGE_DOWN", "PICTSYMBOLS", "SWITCH_CHARSET",
    "BUTTON_A", "BUTTON_B", "BUTTON_C", "BUTTON_X", "BUTTON_Y", "BUTTON_Z", "BUTTON_L1",
    "BUTTON_R1", "BUTTON_L2", "BUTTON_R2", "BUTTON_THUMBL", "BUTTON_THUMBR", "BUTTON_START",
    "BUTTON_SELECT", "BUTTON_MODE", "ESCAPE", "FORWARD_DEL", "CTRL_LEFT", "CTRL_RIGHT",
    "CAPS_LOCK", "SCROLL_LOCK", "META_LEFT", "META_RIGHT", "FUNCTION", "SYSRQ", "BREAK",
    "MOVE_HOME", "MOVE_END", "INSERT", "FORWARD", "MEDIA_PLAY", "MEDIA_PAUSE", "MEDIA_CLOSE",
    "MEDIA_EJECT", "MEDIA_RECORD", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10",
    "F11", "F12", "NUM_LOCK", "NUMPAD_0", "NUMPAD_1", "NUMPAD_2", "NUMPAD_3", "NUMPAD_4",
    "NUMPAD_5", "NUMPAD_6", "NUMPAD_7", "NUMPAD_8", "NUMPAD_9", "NUMPAD_DIVIDE",
    "NUMPAD_MULTIPLY", "NUMPAD_SUBTRACT", "NUMPAD_ADD", "NUMPAD_DOT", "NUMPAD_COMMA",
    "NUMPAD_ENTER", "NUMPAD_EQUALS", "NUMPAD_LEFT_PAREN", "NUMPAD_RIGHT_PAREN", "VOLUME_MUTE",
    "INFO", "CHANNEL_UP", "CHANNEL_DOWN", "ZOOM_IN", "ZOOM_OUT", "TV", "WINDOW", "GUIDE", "DVR",
    "BOOKMARK", "CAPTIONS", "SETTINGS", "TV_POWER", "TV_INPUT", "STB_POWER", "STB_INPUT",
    "AVR_POWER", "AVR_INPUT", "PROG_RED", "PROG_GREEN", "PROG_YELLOW", "PROG_BLUE", "APP_SWITCH",
    "BUTTON_1", "BUTTON_2", "BUTTON_3", "BUTTON_4", "BUTTON_5", "BUTTON_6", "BUTTON_7",
    "BUTTON_8", "BUTTON_9", "BUTTON_10", "BUTTON_11", "BUTTON_12", "BUTTON_13", "BUTTON_14",
    "BUTTON_15", "BUTTON_16", "LANGUAGE_SWITCH", "MANNER_MODE", "3D_MODE", "CONTACTS", "CALENDAR",
    "MUSIC", "CALCULATOR", "ZENKAKU_HANKAKU", "EISU", "MUHENKAN", "HENKAN", "KATAKANA_HIRAGANA",
    "YEN", "RO", "KANA", "ASSIST", "BRIGHTNESS_DOWN", "BRIGHTNESS_UP", "MEDIA_AUDIO_TRACK",
    "SLEEP", "WAKEUP", "PAIRING", "MEDIA_TOP_MENU", "11", "12", "LAST_CHANNEL", "TV_DATA_SERVICE",
    "VOICE_ASSIST", "TV_RADIO_SERVICE", "TV_TELETEXT", "TV_NUMBER_ENTRY", "TV_TERRESTRIAL_ANALOG",
    "TV_TERRESTRIAL_DIGITAL", "TV_SATELLITE", "TV_SATELLITE_BS", "TV_SATELLITE_CS",
    "TV_SATELLITE_SERVICE", "TV_NETWORK", "TV_ANTENNA_CABLE", "TV_INPUT_HDMI_1",
    "TV_INPUT_HDMI_2", "TV_INPUT_HDMI_3", "TV_INPUT_HDMI_4", "TV_INPUT_COMPOSITE_1",
    "TV_INPUT_COMPOSITE_2", "TV_INPUT_COMPONENT_1", "TV_INPUT_COMPONENT_2", "TV_INPUT_VGA_1",
    "TV_AUDIO_DESCRIPTION", "TV_AUDIO_DESCRIPTION_MIX_UP", "TV_AUDIO_DESCRIPTION_MIX_DOWN",
    "TV_ZOOM_MODE", "TV_CONTENTS_MENU", "TV_MEDIA_CONTEXT_MENU", "TV_TIMER_PROGRAMMING", "HELP",
    "NAVIGATE_PREVIOUS", "NAVIGATE_NEXT", "NAVIGATE_IN", "NAVIGATE_OUT", "STEM_PRIMARY", "STEM_1",
    "STEM_2", "STEM_3", "DPAD_UP_LEFT", "DPAD_DOWN_LEFT", "DPAD_UP_RIGHT", "DPAD_DOWN_RIGHT",
    "MEDIA_SKIP_FORWARD", "MEDIA_SKIP_BACKWARD", "MEDIA_STEP_FORWARD", "MEDIA_STEP_BACKWARD",
    "SOFT_SLEEP", "CUT", "COPY", "PASTE", "SYSTEM_NAVIGATION_UP", "SYSTEM_NAVIGATION_DOWN",
    "SYSTEM_NAVIGATION_LEFT", "SYSTEM_NAVIGATION_RIGHT", "ALL_APPS", "REFRESH", "THUMBS_UP",
    "THUMBS_DOWN", "PROFILE_SWITCH", "VIDEO_APP_1", "VIDEO_APP_2", "VIDEO_APP_3", "VIDEO_APP_4",
    "VIDEO_APP_5", "VIDEO_APP_6", "VIDEO_APP_7", "VIDEO_APP_8", "FEATURED_APP_1",
    "FEATURED_APP_2", "FEATURED_APP_3", "FEATURED_APP_4", "DEMO_APP_1", "DEMO_APP_2",
    "DEMO_APP_3", "DEMO_APP_4", "KEYBOARD_BACKLIGHT_DOWN", "KEYBOARD_BACKLIGHT_UP",
    "KEYBOARD_BACKLIGHT_TOGGLE", "STYLUS_BUTTON_PRIMARY", "STYLUS_BUTTON_SECONDARY",
    "STYLUS_BUTTON_TERTIARY", "STYLUS_BUTTON_TAIL", "RECENT_APPS", "MACRO_1", "MACRO_2",
    "MACRO_3", "MACRO_4", "EMOJI_PICKER", "SCREENSHOT", "DICTATE", "NEW", "CLOSE",
    "DO_NOT_DISTURB", "PRINT", "LOCK", "FULLSCREEN", "F13", "F14", "F15", "F16", "F17", "F18",
    "F19", "F20", "F21", "F22", "F23", "F24",
];

/// A key code the way `KeyEvent.keyCodeFromString` finds it: a number that is a valid code, or
/// a name (exact case) with or without `KEYCODE_`. `None` is `KEYCODE_UNKNOWN`.
pub fn from_string(s: &str) -> Option<u32> {
    if let Ok(n) = s.parse::<u32>() {
        // A number that is no key code falls through to the name lookup, which fails.
        return (n > 0 && (n as usize) < NAMES.len()).then_some(n);
    }
    let name = s.strip_prefix("KEYCODE_").unwrap_or(s);
    NAMES
        .iter()
        .position(|n| *n == name)
        .filter(|&i| i > 0)
        .map(|i| i as u32)
}

/// The label of a code (`KEYCODE_…`), as `KeyEvent.keyCodeToString` prints it.
pub fn label(code: u32) -> String {
    NAMES
        .get(code as usize)
        .map_or_else(|| code.to_string(), |n| format!("KEYCODE_{n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `KEYCODE_*` name and value of every constant in AOSP's `KeyEvent.java`.
    const KEYEVENT: &str = include_str!("../../../../tests/fixtures/aosp/keyevent-keycodes.tsv");

    #[test]
    fn every_key_is_the_one_android_s_keyevent_defines() {
        let mut rows = 0;
        for line in KEYEVENT.lines() {
            let (name, code) = line.split_once('\t').expect("NAME<TAB>CODE");
            let code: u32 = code.parse().expect(line);
            rows += 1;
            assert_eq!(label(code), name, "{line}");
            let want = (code > 0).then_some(code);
            assert_eq!(from_string(name), want, "{line}");
            let bare = name.strip_prefix("KEYCODE_").unwrap();
            if bare.parse::<u32>().is_err() {
                assert_eq!(from_string(bare), want, "{line}");
            }
        }
        // Nothing here that Android lacks: the table is exactly Android's, code for code.
        assert_eq!(NAMES.len(), rows);
        assert_eq!(rows, 338);
    }

    #[test]
    fn names_sit_at_their_aosp_codes() {
        for (name, code) in [
            ("HOME", 3),
            ("0", 7),
            ("A", 29),
            ("ENTER", 66),
            ("DEL", 67),
            ("PAGE_UP", 92),
            ("PAGE_DOWN", 93),
            ("ESCAPE", 111),
            ("FORWARD_DEL", 112),
            ("MOVE_HOME", 122),
            ("MOVE_END", 123),
            ("APP_SWITCH", 187),
            ("3D_MODE", 206),
            ("WAKEUP", 224),
            ("11", 227),
            ("REFRESH", 285),
            ("RECENT_APPS", 312),
            ("F24", 337),
        ] {
            assert_eq!(NAMES[code], name);
            if name.parse::<u32>().is_err() {
                assert_eq!(from_string(name), Some(code as u32), "{name}");
            }
            assert_eq!(from_string(&format!("KEYCODE_{name}")), Some(code as u32));
        }
        // A number is a code, not a digit key; names are case-sensitive, as on a phone.
        assert_eq!(from_string("5"), Some(5));
        assert_eq!(from_string("11"), Some(11));
        assert_eq!(from_string("0"), None);
        assert_eq!(from_string("home"), None);
        assert_eq!(from_string("UNKNOWN"), None);
        assert_eq!(from_string("9999"), None);
        assert_eq!(label(123), "KEYCODE_MOVE_END");
    }
}
