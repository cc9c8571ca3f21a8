//! Terminal escapes this program writes on purpose: OSC 52 (clipboard; works over SSH and
//! inside tmux), the bell, and OSC 9 / OSC 777 desktop notifications for a confirmation the
//! person is probably not looking at. Each returns bytes; the loop writes them between frames.
use base64::Engine as _;

/// Inside tmux an escape must be wrapped to reach the outer terminal (tmux needs
/// `allow-passthrough on`; README).
fn tmux_wrap(seq: &str) -> String {
    format!("\x1bPtmux;{}\x1b\\", seq.replace('\x1b', "\x1b\x1b"))
}

/// Each escape is sent once, in the one form that works inside tmux: sending both made a
/// tmux with both options on deliver it twice.
fn with_tmux(seq: String, in_tmux: bool) -> Vec<u8> {
    if in_tmux { tmux_wrap(&seq) } else { seq }.into_bytes()
}

/// Text placed in a notification title/body: no controls, no `;` (the OSC 777 separator).
fn plain(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() || c == ';' { ' ' } else { c })
        .take(200)
        .collect()
}

/// OSC 52: put `text` on the system clipboard. Inside tmux the plain form, once: tmux with
/// `set-clipboard on` takes it into its own buffer and passes it to the outer terminal (a
/// wrapped copy as well would arrive twice).
pub fn clipboard(text: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07").into_bytes()
}

/// The bell, then OSC 9 (iTerm2, WezTerm, Windows Terminal, kitty) and OSC 777 (rxvt, foot,
/// Ghostty, VTE); a terminal that knows neither ignores them.
pub fn alert(title: &str, body: &str, in_tmux: bool) -> Vec<u8> {
    let (title, body) = (plain(title), plain(body));
    let mut out = b"\x07".to_vec();
    out.extend(with_tmux(format!("\x1b]9;{title}: {body}\x07"), in_tmux));
    out.extend(with_tmux(
        format!("\x1b]777;notify;{title};{body}\x07"),
        in_tmux,
    ));
    out
}

pub fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// This tmux's `set-clipboard` (`on`, `external`, `off`), asked of the tmux server the
/// control centre runs in. Blocking (a subprocess): call it off the runtime.
pub fn tmux_set_clipboard() -> Option<String> {
    let out = std::process::Command::new("tmux")
        .args(["show-options", "-gv", "set-clipboard"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !v.is_empty()).then_some(v)
}

/// What the footer says after a copy: where it works, and inside tmux what it needs.
/// `tmux_clipboard` is this tmux's `set-clipboard` when known.
pub fn copied(what: &str, in_tmux: bool, tmux_clipboard: Option<&str>) -> String {
    let tail = match (in_tmux, tmux_clipboard) {
        (false, _) => String::new(),
        (true, Some("on")) => ", and this tmux has set-clipboard on".into(),
        (true, Some(v)) => format!(
            "; this tmux has set-clipboard {v}, which keeps it from your terminal: \
             `set -g set-clipboard on` in ~/.tmux.conf lets it through"
        ),
        (true, None) => {
            ", and inside tmux only with `set -g set-clipboard on` in ~/.tmux.conf".into()
        }
    };
    format!(
        "sent {what} to the terminal's clipboard (OSC 52; works where the terminal allows it{tail}); it is also on screen"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_inside_tmux_says_what_tmux_needs() {
        let outside = copied("the config", false, None);
        assert!(!outside.contains("tmux"), "{outside}");
        let on = copied("the config", true, Some("on"));
        assert!(
            on.contains("has set-clipboard on") && !on.contains("~/.tmux.conf"),
            "{on}"
        );
        for v in [Some("external"), Some("off")] {
            let said = copied("the config", true, v);
            assert!(
                said.contains(&format!("set-clipboard {}", v.unwrap()))
                    && said.contains("`set -g set-clipboard on` in ~/.tmux.conf"),
                "{said}"
            );
        }
        assert!(copied("x", true, None).contains("set -g set-clipboard on"));
    }

    #[test]
    fn clipboard_is_base64_osc52() {
        let s = String::from_utf8(clipboard("hi")).unwrap();
        assert_eq!(s, "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn inside_tmux_a_notification_is_sent_once_wrapped() {
        let s = String::from_utf8(alert("spock", "ask", true)).unwrap();
        assert_eq!(
            s,
            "\x07\x1bPtmux;\x1b\x1b]9;spock: ask\x07\x1b\\\x1bPtmux;\x1b\x1b]777;notify;spock;ask\x07\x1b\\",
            "the bell, then each notification once, wrapped"
        );
    }

    #[test]
    fn alert_rings_and_strips_controls() {
        let s = String::from_utf8(alert("spock", "tool\x1b;x", false)).unwrap();
        assert!(s.starts_with('\x07'));
        assert!(s.contains("\x1b]9;spock: tool  x\x07"), "{s:?}");
        assert!(s.contains("\x1b]777;notify;spock;tool  x\x07"), "{s:?}");
    }
}
