//! Key names for `android_press_key`: every key code Android defines, the names agents try
//! first (BACKSPACE, DELETE, UP, PAGEUP, END, ESC, …), and the closest names when neither fits.
//!
//! The table is Android's own (the native label table that `KeyEvent.keyCodeFromString`
//! reads; sources in `tests/fixtures/SOURCES.md`): index = key code, `UNKNOWN` (0) to `F24`
//! (337). The virtual device keeps its own copy (`spock_sim::shell::keycodes`), as a phone and
//! this client each have theirs. Neither is checked against the other (a slip copied into both
//! would pass): each is checked, entry by entry, against the `KEYCODE_*` constants of an
//! Android 16 `KeyEvent.java` (`tests/fixtures/aosp/keyevent-keycodes.tsv`).

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

/// Names agents reach for first (keyboard and browser names), and the Android key they mean.
/// `HOME` stays Android's Home button; the text-cursor Home is `MOVE_HOME`.
const ALIASES: &[(&str, &str)] = &[
    ("BACKSPACE", "DEL"),
    ("BKSP", "DEL"),
    ("DELETE", "FORWARD_DEL"),
    ("FORWARD_DELETE", "FORWARD_DEL"),
    ("UP", "DPAD_UP"),
    ("DOWN", "DPAD_DOWN"),
    ("LEFT", "DPAD_LEFT"),
    ("RIGHT", "DPAD_RIGHT"),
    ("ARROW_UP", "DPAD_UP"),
    ("ARROW_DOWN", "DPAD_DOWN"),
    ("ARROW_LEFT", "DPAD_LEFT"),
    ("ARROW_RIGHT", "DPAD_RIGHT"),
    ("UP_ARROW", "DPAD_UP"),
    ("DOWN_ARROW", "DPAD_DOWN"),
    ("LEFT_ARROW", "DPAD_LEFT"),
    ("RIGHT_ARROW", "DPAD_RIGHT"),
    ("CENTER", "DPAD_CENTER"),
    ("PGUP", "PAGE_UP"),
    ("PGDN", "PAGE_DOWN"),
    ("PGDOWN", "PAGE_DOWN"),
    ("END", "MOVE_END"),
    ("ESC", "ESCAPE"),
    ("RETURN", "ENTER"),
    ("INS", "INSERT"),
    ("RECENTS", "APP_SWITCH"),
    ("OVERVIEW", "APP_SWITCH"),
    ("SHIFT", "SHIFT_LEFT"),
    ("CTRL", "CTRL_LEFT"),
    ("CONTROL", "CTRL_LEFT"),
    ("ALT", "ALT_LEFT"),
    ("META", "META_LEFT"),
    ("PRINT_SCREEN", "SYSRQ"),
    ("SPACEBAR", "SPACE"),
    ("MUTE_VOLUME", "VOLUME_MUTE"),
];

/// A key as it will be pressed: its code (what the device is sent: every `input` build knows
/// numbers) and its Android name for the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: u16,
    pub name: Option<&'static str>,
}

impl Key {
    /// `KEYCODE_MOVE_END`, or the bare number for a code Android does not name.
    pub fn label(&self) -> String {
        self.name
            .map_or_else(|| self.code.to_string(), |n| format!("KEYCODE_{n}"))
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| *c != '_').collect()
}

fn named(i: usize) -> Key {
    Key {
        code: i as u16,
        name: Some(NAMES[i]),
    }
}

/// Finds a key by number (below 1000, named or not), Android name (any case, with or without
/// `KEYCODE_`, `-`/space for `_`, or without the underscores: `PAGEUP`), or alias.
pub fn lookup(s: &str) -> Option<Key> {
    let t = s.trim();
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) {
        let code = t.parse::<u16>().ok().filter(|n| *n < 1000)?;
        return Some(Key {
            code,
            name: NAMES.get(code as usize).copied().filter(|_| code > 0),
        });
    }
    if !t.is_ascii() || t.len() > 64 {
        return None;
    }
    let upper = t.to_ascii_uppercase().replace(['-', ' '], "_");
    let name = upper.strip_prefix("KEYCODE_").unwrap_or(&upper);
    if name.is_empty() || name == "UNKNOWN" {
        return None;
    }
    if let Some(i) = NAMES.iter().position(|n| *n == name) {
        return Some(named(i));
    }
    let canon = |alias: &str| ALIASES.iter().find(|(a, _)| *a == alias).map(|(_, n)| *n);
    let squashed = squash(name);
    let target = canon(name).or_else(|| {
        ALIASES
            .iter()
            .find(|(a, _)| squash(a) == squashed)
            .map(|(_, n)| *n)
    });
    if let Some(t) = target {
        return NAMES.iter().position(|n| *n == t).map(named);
    }
    NAMES
        .iter()
        .position(|n| squash(n) == squashed && *n != "UNKNOWN")
        .map(named)
}

/// Edits between two names, a swap of neighbours counting as one (`ENTRE` → `ENTER`).
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Longer than any key name by far: nothing is near it, and comparing it with every name
/// would cost time in proportion to its length (a 1 MB "key" took 26 s of CPU).
const MAX_NAME: usize = 64;

/// Up to five Android names nearest to an unknown one: containing it, or a few edits away.
pub fn closest(s: &str) -> Vec<&'static str> {
    if s.len() > MAX_NAME {
        return Vec::new();
    }
    let upper = s.trim().to_ascii_uppercase().replace(['-', ' '], "_");
    let name = upper.strip_prefix("KEYCODE_").unwrap_or(&upper);
    let sq = squash(name);
    if sq.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &'static str)> = NAMES
        .iter()
        .skip(1)
        .chain(ALIASES.iter().map(|(a, _)| a))
        .filter_map(|n| {
            let ns = squash(n);
            let d = distance(&sq, &ns);
            let contains = sq.len() >= 3 && (ns.contains(&sq) || sq.contains(&ns) && ns.len() >= 3);
            let near = d <= (sq.len() / 3).max(1);
            (contains || near).then_some((if contains { d.min(1) } else { d }, *n))
        })
        .collect();
    scored.sort_by_key(|(d, n)| (*d, n.len()));
    let mut out: Vec<&'static str> = Vec::new();
    for (_, n) in scored {
        // An alias is shown as the name it stands for.
        let n = ALIASES.iter().find(|(a, _)| *a == n).map_or(n, |(_, c)| *c);
        if !out.contains(&n) {
            out.push(n);
        }
        if out.len() == 5 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(s: &str) -> Option<&'static str> {
        lookup(s).and_then(|k| k.name)
    }

    #[test]
    fn every_name_is_the_code_android_s_keyevent_gives_it() {
        let table = crate::testdata::fixture("aosp/keyevent-keycodes.tsv");
        let mut rows = 0;
        for line in table.lines() {
            let (constant, code) = line.split_once('\t').expect("NAME<TAB>CODE");
            let code: usize = code.parse().expect(line);
            let name = constant.strip_prefix("KEYCODE_").expect(line);
            rows += 1;
            assert_eq!(NAMES.get(code), Some(&name), "{line}");
            if code > 0 {
                let key = lookup(constant).expect(line);
                assert_eq!(
                    (key.code as usize, key.label()),
                    (code, constant.to_string())
                );
            }
        }
        // Every entry of the table was compared: nothing in it that Android does not define.
        assert_eq!(NAMES.len(), rows);
    }

    #[test]
    fn the_names_agents_try_first_are_keys() {
        for (asked, meant) in [
            ("BACKSPACE", "DEL"),
            ("Backspace", "DEL"),
            ("DELETE", "FORWARD_DEL"),
            ("delete", "FORWARD_DEL"),
            ("UP", "DPAD_UP"),
            ("down", "DPAD_DOWN"),
            ("ArrowLeft", "DPAD_LEFT"),
            ("RIGHT", "DPAD_RIGHT"),
            ("PAGE_UP", "PAGE_UP"),
            ("PageDown", "PAGE_DOWN"),
            ("pgup", "PAGE_UP"),
            ("END", "MOVE_END"),
            ("MOVE_HOME", "MOVE_HOME"),
            ("ESCAPE", "ESCAPE"),
            ("Esc", "ESCAPE"),
            ("TAB", "TAB"),
            ("ENTER", "ENTER"),
            ("Return", "ENTER"),
            ("KEYCODE_ENTER", "ENTER"),
            ("keycode_move_end", "MOVE_END"),
            ("HOME", "HOME"),
            ("volume-up", "VOLUME_UP"),
            ("VOLUMEUP", "VOLUME_UP"),
            ("3D_MODE", "3D_MODE"),
            ("KEYCODE_11", "11"),
            ("RECENT_APPS", "RECENT_APPS"),
            ("F24", "F24"),
        ] {
            assert_eq!(name_of(asked), Some(meant), "{asked}");
        }
    }

    #[test]
    fn every_android_name_resolves_to_its_code() {
        for (i, n) in NAMES.iter().enumerate().skip(1) {
            let k = lookup(&format!("KEYCODE_{n}")).unwrap();
            assert_eq!(k.code as usize, i, "{n}");
            if n.parse::<u16>().is_err() {
                assert_eq!(lookup(n).unwrap().code as usize, i, "{n}");
            }
        }
        // A number is the code itself, named when Android names it.
        assert_eq!(lookup("66").unwrap().label(), "KEYCODE_ENTER");
        assert_eq!(lookup("900").unwrap().label(), "900");
        for bad in [
            "",
            "UNKNOWN",
            "KEYCODE_",
            "1000",
            "HOME; reboot",
            "FROB",
            "ÉCHAP",
        ] {
            assert_eq!(lookup(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_name_far_longer_than_any_key_is_compared_with_none() {
        let long = "A".repeat(1_000_000);
        let t = std::time::Instant::now();
        assert!(closest(&long).is_empty());
        assert!(lookup(&long).is_none());
        // A bound a thousand times the work it does now, only to catch the quadratic path.
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn an_unknown_name_lists_the_closest() {
        assert!(
            closest("PAGEUPP").contains(&"PAGE_UP"),
            "{:?}",
            closest("PAGEUPP")
        );
        assert!(
            closest("ENTRE").contains(&"ENTER"),
            "{:?}",
            closest("ENTRE")
        );
        assert!(
            closest("VOLUME").contains(&"VOLUME_UP"),
            "{:?}",
            closest("VOLUME")
        );
        assert!(
            closest("BAKSPACE").contains(&"DEL"),
            "{:?}",
            closest("BAKSPACE")
        );
        assert!(closest("zzzzzzzzzz").is_empty());
    }
}
