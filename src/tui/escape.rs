//! Untrusted text (device output, tool arguments and results, client names) made safe to draw.
//!
//! A terminal obeys control characters wherever they appear, so a package label holding
//! `ESC ] 52 ;` could write the clipboard and a bare `ESC [ 2 J` could wipe the screen.
//! Everything that did not come from this program passes through here first: C0 controls are
//! drawn in caret notation (`^[` for ESC, `^@` for NUL, as atuin's inspector does), DEL as `^?`,
//! C1 controls and bidirectional overrides as `<U+XXXX>`, and very long lines are cut.
//!
//! A character is also named rather than drawn when the terminal may not agree with us on how
//! many cells it takes: ratatui lays a line out by its own width table, and where the terminal
//! draws the character narrower (or not at all: an unassigned code point, an emoji newer than
//! its C library) the cells ratatui believes it filled keep whatever was drawn there before.
//! In the confirmation that let a request be drawn over with an earlier one's text.

/// Longest line drawn; the rest is replaced by a count, so one 1 MB logcat line cannot stall a frame.
pub const MAX_LINE: usize = 2000;

pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn push_named(out: &mut String, c: char) {
    out.push_str(&format!("<U+{:04X}>", c as u32));
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\0'..='\x1f' => {
            out.push('^');
            out.push(char::from(b'@' + c as u8));
        }
        '\x7f' => out.push_str("^?"),
        ' '..='~' => out.push(c),
        c if is_bidi_control(c) || !drawable(c) => push_named(out, c),
        c => out.push(c),
    }
}

/// Whether a non-ASCII character is drawn as itself on the screens that list and record
/// (everywhere but the confirmation): assigned, visible on its own (no format character,
/// combining mark or separator), one or two cells wide, and from the Basic Multilingual Plane
/// or the CJK ideograph planes. Emoji and scripts outside the BMP are the ones terminals and
/// C libraries disagree on (a glibc that predates the emoji draws nothing), so they are named.
fn drawable(c: char) -> bool {
    use unicode_general_category::{GeneralCategory as G, get_general_category};
    use unicode_width::UnicodeWidthChar as _;
    let plane_ok = (c as u32) < 0x1_0000 || (0x2_0000..=0x3_FFFF).contains(&(c as u32));
    let visible = !matches!(
        get_general_category(c),
        G::Unassigned
            | G::Format
            | G::Control
            | G::PrivateUse
            | G::Surrogate
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::NonspacingMark
            | G::EnclosingMark
            | G::SpacingMark
    );
    plane_ok && visible && matches!(c.width(), Some(1 | 2))
}

/// The blocks whose characters the confirmation draws as themselves (besides printable
/// ASCII): Latin-1 and Latin Extended letters, common punctuation and currency signs, CJK
/// punctuation, kana, the unified ideographs and Hangul syllables. Every code point in them
/// has been assigned since Unicode 11 or earlier, so any terminal in use knows them.
const CONSENT_BLOCKS: &[(char, char)] = &[
    ('\u{00A1}', '\u{024F}'),
    ('\u{2010}', '\u{2027}'),
    ('\u{2030}', '\u{205E}'),
    ('\u{20A0}', '\u{20BF}'),
    ('\u{3001}', '\u{303F}'),
    ('\u{3041}', '\u{3096}'),
    ('\u{30A0}', '\u{30FF}'),
    ('\u{4E00}', '\u{9FEF}'),
    ('\u{AC00}', '\u{D7A3}'),
];

/// Whether the confirmation draws a non-ASCII character as itself: from [`CONSENT_BLOCKS`],
/// visible on its own, and of one width whatever the terminal's East Asian setting (an
/// "ambiguous" character, as many accented letters, Greek and Cyrillic are, takes two cells in
/// a terminal set up for CJK and would push the rest of the line out of the box). Everything
/// else is named, so a Cyrillic letter in `com.ехample` reads `<U+0435>`, not `e`.
fn consent_drawable(c: char) -> bool {
    use unicode_width::UnicodeWidthChar as _;
    CONSENT_BLOCKS.iter().any(|(a, b)| (*a..=*b).contains(&c))
        && drawable(c)
        && !is_invisible(c)
        && c.width() == c.width_cjk()
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
/// invisible characters and any character outside printable ASCII and [`CONSENT_BLOCKS`] as
/// `<U+XXXX>`, and each run of [`SPACE_RUN`] or more spaces as `␠×N`, so 2,100 spaces cannot
/// push the rest of a command out of sight.
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
            '\0'..='\x1f' | '\x7f' => push_escaped(&mut out, c),
            ' '..='~' => out.push(c),
            c if consent_drawable(c) => out.push(c),
            c => push_named(&mut out, c),
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

/// How many characters `s` takes once escaped (what [`cell`] counts).
pub fn width(s: &str) -> usize {
    line(s).chars().count()
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
        assert_eq!(full("fake ␠×9"), "fake <U+2420><U+00D7>9");
        let long = "y".repeat(MAX_LINE * 3);
        assert_eq!(full(&long), long, "nothing is cut");
    }

    /// The finding: U+0378 (unassigned) and U+1FAE8 (an emoji newer than glibc 2.36) drew as
    /// nothing in tmux while ratatui counted them a cell each, so an earlier request's text
    /// showed through; U+1D173 (a format character outside the BMP) drew as nothing at all.
    #[test]
    fn characters_a_terminal_may_draw_differently_are_named() {
        assert_eq!(full("a\u{0378}b"), "a<U+0378>b");
        assert_eq!(full("\u{1FAE8}"), "<U+1FAE8>");
        assert_eq!(full("com.exa\u{1D173}mple"), "com.exa<U+1D173>mple");
        assert_eq!(full("not\u{1BCA0}es"), "not<U+1BCA0>es");
        assert_eq!(
            line("a\u{0378}b\u{1D173}c\u{1FAE8}"),
            "a<U+0378>b<U+1D173>c<U+1FAE8>"
        );
        // Combining marks stack on the letter before them; the confirmation names them.
        assert_eq!(full("e\u{0301}"), "e<U+0301>");
    }

    #[test]
    fn the_confirmation_names_lookalikes_and_ambiguous_widths() {
        // Cyrillic е (U+0435) is drawn like Latin e.
        assert_eq!(full("com.\u{0435}xample"), "com.<U+0435>xample");
        // Ambiguous width (two cells in a CJK-configured terminal).
        assert_eq!(full("\u{00B7}\u{00B1}"), "<U+00B7><U+00B1>");
        // Fullwidth forms look like spaced-out ASCII.
        assert_eq!(full("\u{FF50}\u{FF4D}"), "<U+FF50><U+FF4D>");
        // Scripts a person reads, of one width everywhere, stay as they are.
        assert_eq!(full("照片 テスト 사진 ¥£"), "照片 テスト 사진 ¥£");
        // The other screens draw letters of any BMP script.
        assert_eq!(line("Привет é ❤"), "Привет é ❤");
    }

    #[test]
    fn every_character_drawn_is_one_the_width_tables_agree_on() {
        use unicode_width::UnicodeWidthChar as _;
        for u in 0u32..0x11_0000 {
            let Some(c) = char::from_u32(u) else { continue };
            for shown in [full(&c.to_string()), line(&c.to_string())] {
                if shown.starts_with("<U+") || shown.starts_with('^') || shown.starts_with('␠') {
                    continue;
                }
                assert_eq!(shown, c.to_string());
                assert!(
                    matches!(c.width(), Some(1 | 2)),
                    "U+{u:04X} drawn with width {:?}",
                    c.width()
                );
            }
        }
    }

    #[test]
    fn lines_split_and_escape_each() {
        assert_eq!(
            lines("a\r\nb\x1b"),
            vec!["a".to_string(), "b^[".to_string()]
        );
    }
}
