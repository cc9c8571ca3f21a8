//! Quoting for device command lines, and the escaping `input text` needs on top of it.
//!
//! `adb shell <cmd>` hands the string to the device's `sh -c`, so one layer of POSIX quoting
//! makes any argument arrive as exactly one argv entry. Every tool builds its command line
//! from [`shell_quote`] (or [`shell_join`]) rather than `format!` with raw values.
use super::Refusal;

/// Quotes one argument for the device shell, single-quote style (`'` becomes `'\''`).
/// Words made only of characters no shell treats specially are left bare, so audit entries
/// stay readable (`pm list packages`, not `'pm' 'list' 'packages'`).
pub fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_@%+:,./-".contains(c));
    if plain {
        return arg.to_string();
    }
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// Quotes each argument and joins them with spaces.
pub fn shell_join<S: AsRef<str>>(args: &[S]) -> String {
    args.iter()
        .map(|a| shell_quote(a.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Escapes `text` for `input text`, returning one shell word to put after `input text `.
///
/// `input text` turns `%s` into a space (and nothing else), and the device shell would split
/// on spaces and expand `$`, quotes and `;`. So spaces become `%s` and the result is
/// single-quoted: `it's "a" $HOME; ls` is typed exactly. Refused, with the reason: empty
/// text; a literal `%s` (input always turns it into a space, so it cannot be typed in one
/// call); control characters (press a key for Enter or Tab instead); and non-ASCII, because
/// `input text` goes through the virtual keyboard's key map, which has no keys for it.
pub fn input_text_escape(text: &str) -> Result<String, Refusal> {
    if text.is_empty() {
        return Err(Refusal::new("input-text-empty", "there is no text to type"));
    }
    if let Some(c) = text.chars().find(|c| !c.is_ascii()) {
        return Err(Refusal::new(
            "input-text-non-ascii",
            format!(
                "`input text` can only type ASCII; {c:?} (U+{:04X}) has no key on the virtual keyboard: {}",
                c as u32,
                super::typing::TYPABLE
            ),
        ));
    }
    if text.chars().any(|c| c.is_ascii_control()) {
        return Err(Refusal::new(
            "input-text-control",
            "the text contains a control character (newline, tab, …); type the text and use \
             android_press_key for Enter or Tab",
        ));
    }
    if text.contains("%s") {
        return Err(Refusal::new(
            "input-text-percent-s",
            "`input text` always turns `%s` into a space; type the text in two calls split between `%` and `s`",
        ));
    }
    Ok(shell_quote(&text.replace(' ', "%s")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_bare_and_others_are_quoted() {
        assert_eq!(shell_quote("com.example.app"), "com.example.app");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
        assert_eq!(
            shell_join(&["am", "start", "-d", "x y"]),
            "am start -d 'x y'"
        );
    }

    #[test]
    fn input_text_turns_spaces_into_percent_s_and_quotes() {
        assert_eq!(input_text_escape("a b").as_deref(), Ok("a%sb"));
        assert_eq!(input_text_escape("100%").as_deref(), Ok("100%"));
        assert_eq!(input_text_escape("x;y").as_deref(), Ok("'x;y'"));
        assert_eq!(
            input_text_escape("50%s off").map_err(|r| r.rule),
            Err("input-text-percent-s")
        );
        assert_eq!(
            input_text_escape("héllo").map_err(|r| r.rule),
            Err("input-text-non-ascii")
        );
        assert_eq!(
            input_text_escape("a\nb").map_err(|r| r.rule),
            Err("input-text-control")
        );
        assert_eq!(
            input_text_escape("").map_err(|r| r.rule),
            Err("input-text-empty")
        );
    }
}
