//! Untrusted text (device output, tool arguments and results, client names) made safe to draw.
//!
//! A terminal obeys control characters wherever they appear, so a package label holding
//! `ESC ] 52 ;` could write the clipboard and a bare `ESC [ 2 J` could wipe the screen.
//! Everything that did not come from this program passes through here first: C0 controls are
//! drawn in caret notation (`^[` for ESC, `^@` for NUL, as atuin's inspector does), DEL as `^?`,
//! C1 controls and bidirectional overrides as `<U+XXXX>`, and very long lines are cut.

/// Longest line drawn; the rest is replaced by a count, so one 1 MB logcat line cannot stall a frame.
pub const MAX_LINE: usize = 2000;

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\0'..='\x1f' => {
            out.push('^');
            out.push(char::from(b'@' + c as u8));
        }
        '\x7f' => out.push_str("^?"),
        '\u{80}'..='\u{9f}' => out.push_str(&format!("<U+{:04X}>", c as u32)),
        c if is_bidi_control(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
        c => out.push(c),
    }
}

/// One line: every control character (newlines included) made visible, cut at [`MAX_LINE`].
pub fn line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_LINE + 16));
    for (n, c) in s.chars().enumerate() {
        if n >= MAX_LINE {
            let rest = s.chars().count() - n;
            out.push_str(&format!("… (+{rest} chars)"));
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// Characters that draw as nothing or as a blank and so could hide text from a reader:
/// Unicode spaces other than ` `, zero-width and joiner characters, soft hyphen, variation
/// selectors, the BOM, Unicode tags (used to smuggle text) and our own `␠` marker.
fn is_invisible(c: char) -> bool {
    (c.is_whitespace() && c != ' ')
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{206F}'
            | '\u{2420}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Runs of at least this many spaces are drawn as `␠×N`.
pub const SPACE_RUN: usize = 2;

/// Every character of `s`, nothing cut: what a person approves. Controls as in [`line`],
/// invisible characters as `<U+XXXX>`, and each run of [`SPACE_RUN`] or more spaces as
/// `␠×N`, so 2,100 spaces cannot push the rest of a command out of sight.
pub fn full(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut spaces = 0usize;
    let flush = |out: &mut String, n: &mut usize| {
        match *n {
            0 => {}
            n if n >= SPACE_RUN => out.push_str(&format!("␠×{n}")),
            n => out.extend(std::iter::repeat_n(' ', n)),
        }
        *n = 0;
    };
    for c in s.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        flush(&mut out, &mut spaces);
        match c {
            '\0'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' => push_escaped(&mut out, c),
            c if is_bidi_control(c) || is_invisible(c) => {
                out.push_str(&format!("<U+{:04X}>", c as u32))
            }
            c => out.push(c),
        }
    }
    flush(&mut out, &mut spaces);
    out
}

/// Several lines: split on `\n` (a trailing `\r` dropped), each escaped with [`line`].
pub fn lines(s: &str) -> Vec<String> {
    s.split('\n')
        .map(|l| line(l.strip_suffix('\r').unwrap_or(l)))
        .collect()
}

/// Escaped and shortened to at most `max` characters for a table cell.
pub fn cell(s: &str, max: usize) -> String {
    let escaped = line(s);
    if escaped.chars().count() <= max {
        return escaped;
    }
    let mut out: String = escaped.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_caret_notation() {
        assert_eq!(line("a\0b"), "a^@b");
        assert_eq!(line("\x1b[2J"), "^[[2J");
        assert_eq!(line("x\ty\r\n"), "x^Iy^M^J");
        assert_eq!(line("del\x7f"), "del^?");
    }

    #[test]
    fn c1_and_bidi_are_named() {
        assert_eq!(line("a\u{9b}31m"), "a<U+009B>31m");
        assert_eq!(line("abc\u{202E}def"), "abc<U+202E>def");
    }

    #[test]
    fn osc52_payload_cannot_reach_the_terminal() {
        let evil = "\x1b]52;c;ZXZpbA==\x07";
        let safe = line(evil);
        assert!(!safe.contains('\x1b') && !safe.contains('\x07'), "{safe}");
        assert_eq!(safe, "^[]52;c;ZXZpbA==^G");
    }

    #[test]
    fn long_lines_are_cut() {
        let long = "x".repeat(MAX_LINE + 500);
        let out = line(&long);
        assert!(
            out.ends_with("… (+500 chars)"),
            "{}",
            &out[out.len() - 20..]
        );
        assert_eq!(cell("abcdef", 4), "abc…");
        assert_eq!(cell("ab\x1b", 10), "ab^[");
    }

    #[test]
    fn full_hides_nothing() {
        let padded = format!("echo hello{}; pm uninstall com.x", " ".repeat(2100));
        assert_eq!(full(&padded), "echo hello␠×2100; pm uninstall com.x");
        assert_eq!(full("a b"), "a b");
        assert_eq!(
            full("a\u{200B}b\u{00A0}c\u{E0041}"),
            "a<U+200B>b<U+00A0>c<U+E0041>"
        );
        assert_eq!(full("x\x1b[2J\u{202E}"), "x^[[2J<U+202E>");
        assert_eq!(full("fake ␠×9"), "fake <U+2420>×9");
        let long = "y".repeat(MAX_LINE * 3);
        assert_eq!(full(&long), long, "nothing is cut");
    }

    #[test]
    fn lines_split_and_escape_each() {
        assert_eq!(
            lines("a\r\nb\x1b"),
            vec!["a".to_string(), "b^[".to_string()]
        );
    }
}
