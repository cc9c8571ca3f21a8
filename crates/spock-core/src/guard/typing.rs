//! Text as a stock device can type it over adb, with no helper keyboard installed.
//!
//! `input text` sends each character through `KeyCharacterMap.VIRTUAL_KEYBOARD`
//! (InputShellCommand `sendText`), whose map (aosp-mirror/platform_frameworks_base
//! `data/keyboards/Virtual.kcm` @0648d2c4ce2ca4709382cc5e8bf78d07843b7373) has keys for
//! printable ASCII only. The same map gives a few more characters with Alt: `ç`/`Ç` (Alt+C),
//! `ß` (Alt+S), and five dead accents that combine with the next letter: acute (Alt+E), grave
//! (Alt+`), circumflex (Alt+I), tilde (Alt+N) and diaeresis (Alt+U). So `é` is
//! `input keycombination ALT_LEFT E` then `E`, and `É` the same then Shift+E. Everything else
//! (emoji, CJK, `å`, `ø`, …) has no key: the call is refused saying so.
use super::Refusal;
use super::quote::input_text_escape;

const ALT_LEFT: u16 = 57;
const SHIFT_LEFT: u16 = 59;
const KEY_A: u16 = 29;
const GRAVE: u16 = 68;

/// A Latin letter with an accent the virtual keyboard's dead keys make: (letter, dead key).
fn decompose(c: char) -> Option<(char, u16)> {
    // Dead keys: acute = Alt+E, grave = Alt+GRAVE, circumflex = Alt+I, tilde = Alt+N,
    // diaeresis = Alt+U.
    let (e, i, n, u) = (KEY_A + 4, KEY_A + 8, KEY_A + 13, KEY_A + 20);
    const TABLE: &[(&str, char)] = &[
        ("áéíóúýÁÉÍÓÚÝ", 'e'),
        ("àèìòùÀÈÌÒÙ", 'g'),
        ("âêîôûÂÊÎÔÛ", 'i'),
        ("ãñõÃÑÕ", 'n'),
        ("äëïöüÿÄËÏÖÜŸ", 'u'),
    ];
    const BASES: &[&str] = &[
        "aeiouyAEIOUY",
        "aeiouAEIOU",
        "aeiouAEIOU",
        "anoANO",
        "aeiouyAEIOUY",
    ];
    for ((accented, dead), bases) in TABLE.iter().zip(BASES) {
        if let Some(pos) = accented.chars().position(|x| x == c) {
            let base = bases.chars().nth(pos)?;
            let key = match dead {
                'e' => e,
                'g' => GRAVE,
                'i' => i,
                'n' => n,
                _ => u,
            };
            return Some((base, key));
        }
    }
    None
}

/// The key that types an ASCII letter, and whether it needs Shift.
fn letter_key(c: char) -> Option<(u16, bool)> {
    c.is_ascii_alphabetic().then(|| {
        (
            KEY_A + (c.to_ascii_lowercase() as u16 - 'a' as u16),
            c.is_ascii_uppercase(),
        )
    })
}

fn press(code: u16, shift: bool) -> String {
    if shift {
        format!("input keycombination {SHIFT_LEFT} {code}")
    } else {
        format!("input keyevent {code}")
    }
}

/// The key presses for one character outside ASCII, or `None` when there are none.
fn keys_for(c: char) -> Option<Vec<String>> {
    match c {
        'ç' => {
            return Some(vec![format!(
                "input keycombination {ALT_LEFT} {}",
                KEY_A + 2
            )]);
        }
        'Ç' => {
            return Some(vec![format!(
                "input keycombination {SHIFT_LEFT} {ALT_LEFT} {}",
                KEY_A + 2
            )]);
        }
        'ß' => {
            return Some(vec![format!(
                "input keycombination {ALT_LEFT} {}",
                KEY_A + 18
            )]);
        }
        _ => {}
    }
    let (base, dead) = decompose(c)?;
    let (key, shift) = letter_key(base)?;
    Some(vec![
        format!("input keycombination {ALT_LEFT} {dead}"),
        press(key, shift),
    ])
}

/// What can be typed without a helper keyboard, said when something cannot.
pub const TYPABLE: &str = "a stock device types printable ASCII with `input text`, and with \
     its virtual keyboard's Alt keys also ç Ç ß and vowels (and ñ, ý, ÿ) with an acute, grave, \
     circumflex, tilde or diaeresis; nothing else can be typed over adb without an input method \
     installed on the device for it";

/// The shell line that types `text` into the focused field: `input text` for ASCII runs and
/// key presses for the accented letters the virtual keyboard map has, joined by `&&`.
/// Most characters one call types: escaped, they must fit one adb request (65,535 bytes),
/// and `input text` takes seconds per thousand characters on a phone.
pub const MAX_TYPED: usize = 8000;

pub fn typing_commands(text: &str) -> Result<String, Refusal> {
    let n = text.chars().count();
    if n > MAX_TYPED {
        return Err(Refusal::new(
            "input-text-too-long",
            format!(
                "the text is {n} characters; one call types at most {MAX_TYPED} (type it in parts)"
            ),
        ));
    }
    if let Some(c) = text
        .chars()
        .find(|c| !c.is_ascii() && keys_for(*c).is_none())
    {
        return Err(Refusal::new(
            "input-text-untypable",
            format!(
                "{c:?} (U+{:04X}) has no key on the device's virtual keyboard: {TYPABLE}",
                c as u32
            ),
        ));
    }
    let mut parts = Vec::new();
    let mut run = String::new();
    for c in text.chars() {
        if c.is_ascii() {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            parts.push(format!("input text {}", input_text_escape(&run)?));
            run.clear();
        }
        parts.extend(keys_for(c).unwrap_or_default());
    }
    if !run.is_empty() || parts.is_empty() {
        parts.push(format!("input text {}", input_text_escape(&run)?));
    }
    let cmd = parts.join(" && ");
    if cmd.len() > MAX_COMMAND {
        return Err(Refusal::new(
            "input-text-too-long",
            format!(
                "typing this takes a {}-byte command, over the {MAX_COMMAND} one adb request holds \
                 (letters outside ASCII take a key combination each); type it in parts",
                cmd.len()
            ),
        ));
    }
    Ok(cmd)
}

/// The longest typing command: one adb request holds 65,535 bytes, `shell:` and a margin
/// included.
const MAX_COMMAND: usize = 60_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_is_one_input_text() {
        assert_eq!(typing_commands("a b").unwrap(), "input text a%sb");
        assert_eq!(typing_commands("").unwrap_err().rule, "input-text-empty");
    }

    /// The finding: a 1 MB text reached the adb connection and came back as a device error
    /// ("adb accepts at most 65535"). It is refused as too long before anything is sent, and
    /// the longest allowed text (escaped at its worst) still fits one request.
    #[test]
    fn text_longer_than_one_request_holds_is_refused_before_the_device() {
        let e = typing_commands(&"a".repeat(1_000_000)).unwrap_err();
        assert_eq!(e.rule, "input-text-too-long");
        let worst = typing_commands(&"'".repeat(MAX_TYPED)).unwrap();
        assert!(worst.len() < 0xffff - 64, "{}", worst.len());
        // Letters outside ASCII cost a key combination each: refused by the command's size.
        let e = typing_commands(&"é".repeat(MAX_TYPED)).unwrap_err();
        assert_eq!(e.rule, "input-text-too-long");
        assert!(e.to_string().contains("type it in parts"), "{e}");
    }

    #[test]
    fn accented_letters_go_through_the_dead_keys() {
        assert_eq!(
            typing_commands("café").unwrap(),
            "input text caf && input keycombination 57 33 && input keyevent 33"
        );
        assert_eq!(
            typing_commands("Élan").unwrap(),
            "input keycombination 57 33 && input keycombination 59 33 && input text lan"
        );
        assert_eq!(
            typing_commands("ñ ç ß").unwrap(),
            "input keycombination 57 42 && input keyevent 42 && input text %s && \
             input keycombination 57 31 && input text %s && input keycombination 57 47"
        );
        assert!(typing_commands("àèìòù âêîôû äëïöüÿ ãõ ÁÇ").is_ok());
    }

    #[test]
    fn what_has_no_key_is_refused_saying_what_can_be_typed() {
        for text in ["å", "naïve 😀", "日本", "ø"] {
            let e = typing_commands(text).unwrap_err();
            assert_eq!(e.rule, "input-text-untypable", "{text}");
            assert!(e.why.contains("printable ASCII"), "{}", e.why);
            assert!(
                !e.why.contains("android_"),
                "never points at another tool: {}",
                e.why
            );
        }
    }
}
