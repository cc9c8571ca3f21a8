//! Keys as the virtual keyboard types them: `input keyevent` presses and
//! `input keycombination`, with the characters of the virtual keyboard map, its Alt keys and
//! dead accents.
use super::super::{Ctx, keycodes};
use super::bad;

/// The character a key types on the virtual keyboard (`KeyCharacterMap.VIRTUAL_KEYBOARD`:
/// aosp-mirror/platform_frameworks_base `data/keyboards/Virtual.kcm`
/// @0648d2c4ce2ca4709382cc5e8bf78d07843b7373), with or without shift.
fn key_char(code: u32, shift: bool) -> Option<char> {
    const DIGITS_SHIFTED: &[u8; 10] = b")!@#$%^&*(";
    Some(match code {
        7..=16 if shift => DIGITS_SHIFTED[(code - 7) as usize] as char,
        7..=16 => (b'0' + (code - 7) as u8) as char,
        29..=54 if shift => (b'A' + (code - 29) as u8) as char,
        29..=54 => (b'a' + (code - 29) as u8) as char,
        144..=153 => (b'0' + (code - 144) as u8) as char,
        17 => '*',
        18 => '#',
        62 => ' ',
        77 => '@',
        81 => '+',
        154 => '/',
        155 => '*',
        156 => '-',
        157 => '+',
        158 => '.',
        159 => ',',
        161 => '=',
        162 => '(',
        163 => ')',
        _ => {
            let (plain, shifted) = match code {
                55 => (',', '<'),
                56 => ('.', '>'),
                68 => ('`', '~'),
                69 => ('-', '_'),
                70 => ('=', '+'),
                71 => ('[', '{'),
                72 => (']', '}'),
                73 => ('\\', '|'),
                74 => (';', ':'),
                75 => ('\'', '"'),
                76 => ('/', '?'),
                _ => return None,
            };
            if shift { shifted } else { plain }
        }
    })
}

/// What a key types with Alt on the virtual keyboard (`Virtual.kcm`): ç Ç ß, or a dead accent
/// (a combining mark) that goes on the next letter.
fn alt_char(code: u32, shift: bool) -> Option<char> {
    Some(match (code, shift) {
        (31, false) => 'ç',
        (31, true) => 'Ç',
        (47, false) => 'ß',
        (33, false) => '\u{0301}',
        (37, false) | (13, true) => '\u{0302}',
        (42, false) | (68, true) => '\u{0303}',
        (49, false) => '\u{0308}',
        (68, false) => '\u{0300}',
        _ => return None,
    })
}

/// What one key does on the sim: navigation, power, deleting, or typing its character.
pub(super) fn press(ctx: &mut Ctx, code: u32, meta: Meta) {
    // The key reaches the app in front, except the ones the system keeps (home, recents,
    // power, sleep, wake).
    if !matches!(code, 3 | 26 | 187 | 223 | 224 | 276) {
        ctx.st.input_event();
    }
    if meta.alt {
        match alt_char(code, meta.shift) {
            Some(c @ '\u{0300}'..='\u{036f}') => ctx.st.dead_accent = Some(c),
            Some(c) => ctx.st.type_text(&c.to_string()),
            None => {}
        }
        return;
    }
    match code {
        3 => ctx.st.go_home(),
        4 | 111 => ctx.st.back(),
        67 => ctx.st.delete_char(),
        112 => ctx.st.forward_delete_char(),
        21 | 22 | 122 | 123 if ctx.st.move_cursor(code) => {}
        26 => ctx.st.awake = !ctx.st.awake,
        223 | 276 => ctx.st.awake = false,
        224 => ctx.st.awake = true,
        _ if meta.ctrl => {}
        _ => {
            if let Some(c) = key_char(code, meta.shift) {
                ctx.st.type_text(&c.to_string());
            }
        }
    }
}

/// The modifiers held during a key combination (`InputShellCommand.MODIFIER`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Meta {
    shift: bool,
    ctrl: bool,
    alt: bool,
}

/// `input keycombination [-t ms] <key> <key> ...`, as `runKeyCombination` in
/// aosp-mirror/platform_frameworks_base
/// `services/core/java/com/android/server/input/InputShellCommand.java`
/// @017cf35b7fa9d3a164cb6e2f067ca7effae9b370: every name must resolve, at least two keys,
/// the modifiers pressed first apply to the keys after them.
pub(super) fn key_combination(ctx: &mut Ctx, params: &[&str]) -> i32 {
    let mut rest = params;
    if rest.first() == Some(&"-t") {
        match rest.get(1).map(|t| t.parse::<i64>()) {
            Some(Ok(_)) => rest = &rest[2..],
            _ => return bad(ctx, "keycombination"),
        }
    }
    let mut codes = Vec::new();
    for k in rest {
        match keycodes::from_string(k) {
            Some(c) => codes.push(c),
            None => return exception(ctx, "keycombination", &format!("Unknown keycode: {k}")),
        }
    }
    if codes.len() < 2 {
        return exception(
            ctx,
            "keycombination",
            "keycombination requires at least 2 keycodes",
        );
    }
    let mut meta = Meta::default();
    for code in codes {
        match code {
            59 | 60 => meta.shift = true,
            113 | 114 => meta.ctrl = true,
            57 | 58 => meta.alt = true,
            117 | 118 => {}
            29 if meta.ctrl => {
                ctx.st.input_event();
                ctx.st.select_all();
            }
            _ => press(ctx, code, meta),
        }
    }
    0
}

/// An `IllegalArgumentException` out of a shell command, the way `ShellCommand.exec` reports
/// it: on stderr, exit status 255.
fn exception(ctx: &mut Ctx, cmd: &str, msg: &str) -> i32 {
    ctx.errln(&format!("Exception occurred while executing '{cmd}':"));
    ctx.errln(&format!("java.lang.IllegalArgumentException: {msg}"));
    255
}
