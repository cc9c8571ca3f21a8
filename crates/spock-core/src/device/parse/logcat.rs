//! `logcat -v threadtime` lines, the filter `android_get_logcat` applies on top of what
//! logcat itself filtered, and Java crash blocks (`FATAL EXCEPTION`).
//!
//! Format: `MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message` (`-v year` adds `YYYY-`).
//! `--------- beginning of <buffer>` markers are skipped on purpose; any other line that
//! does not match is a continuation of the previous message and is appended to it.
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogLine {
    /// `MM-DD` (or `YYYY-MM-DD`).
    pub date: String,
    /// `HH:MM:SS.mmm`.
    pub time: String,
    pub pid: u32,
    pub tid: u32,
    /// V D I W E F (A is shown as F).
    pub level: char,
    pub tag: String,
    pub message: String,
}

/// A comparable timestamp; the year is ignored when one side lacks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub struct LogTime {
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    micros: u32,
}

impl LogTime {
    /// `01-22 17:04:10.194`, `2024-01-22 17:04:10.194` or `01-22 17:04:10.194123`.
    pub fn parse(s: &str) -> Option<LogTime> {
        let (date, time) = s.trim().split_once(' ')?;
        let mut d = date.rsplit('-');
        let day = d.next()?.parse().ok()?;
        let month = d.next()?.parse().ok()?;
        let (hms, frac) = time.trim().split_once('.').unwrap_or((time.trim(), "0"));
        let mut t = hms.split(':');
        let (hour, minute, second) = (
            t.next()?.parse().ok()?,
            t.next()?.parse().ok()?,
            t.next()?.parse().ok()?,
        );
        let digits: String = frac.chars().take(6).collect();
        let micros = format!("{digits:0<6}").parse().ok()?;
        Some(LogTime {
            month,
            day,
            hour,
            minute,
            second,
            micros,
        })
    }
}

impl LogLine {
    pub fn timestamp(&self) -> Option<LogTime> {
        LogTime::parse(&format!("{} {}", self.date, self.time))
    }
}

fn level_rank(c: char) -> u8 {
    match c.to_ascii_uppercase() {
        'V' => 0,
        'D' => 1,
        'I' => 2,
        'W' => 3,
        'E' => 4,
        'F' | 'A' => 5,
        'S' => 6,
        _ => 0,
    }
}

fn parse_line(line: &str) -> Option<LogLine> {
    let mut it = line.split_whitespace();
    let date = it.next()?;
    let time = it.next()?;
    let digits =
        |s: &str, seps: &[char]| s.chars().all(|c| c.is_ascii_digit() || seps.contains(&c));
    if !date.contains('-')
        || !digits(date, &['-'])
        || !time.contains(':')
        || !digits(time, &[':', '.'])
    {
        return None;
    }
    let pid = it.next()?.parse().ok()?;
    let tid = it.next()?.parse().ok()?;
    let lvl = it.next()?;
    let mut chars = lvl.chars();
    let level = chars
        .next()
        .filter(|c| "VDIWEFA".contains(*c) && chars.next().is_none())?;
    // The tag is padded and may hold spaces or colons; the message starts after the first ": ".
    let at = line.find(&format!(" {lvl} "))? + 3;
    let rest = &line[at..];
    let (tag, message) = match rest.split_once(": ") {
        Some((t, m)) => (t, m),
        None => (rest.trim_end().strip_suffix(':').unwrap_or(rest), ""),
    };
    Some(LogLine {
        date: date.to_string(),
        time: time.to_string(),
        pid,
        tid,
        level: if level == 'A' { 'F' } else { level },
        tag: tag.trim().to_string(),
        message: message.trim_end_matches('\r').to_string(),
    })
}

pub fn parse_threadtime(text: &str) -> Vec<LogLine> {
    let mut out: Vec<LogLine> = Vec::new();
    for line in text.lines() {
        if line.starts_with("--------- ") || line.trim().is_empty() {
            continue;
        }
        match parse_line(line) {
            Some(l) => out.push(l),
            None => {
                if let Some(prev) = out.last_mut() {
                    prev.message.push('\n');
                    prev.message.push_str(line.trim_end_matches('\r'));
                }
            }
        }
    }
    out
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Lowest level kept (V D I W E F).
    pub min_level: Option<char>,
    /// Exact tag.
    pub tag: Option<String>,
    pub pid: Option<u32>,
    /// Lines at or after this time.
    pub since: Option<LogTime>,
    /// Case-insensitive substring of the tag or message.
    pub contains: Option<String>,
}

impl Filter {
    pub fn matches(&self, l: &LogLine) -> bool {
        if self
            .min_level
            .is_some_and(|m| level_rank(l.level) < level_rank(m))
        {
            return false;
        }
        if self.tag.as_deref().is_some_and(|t| t != l.tag) || self.pid.is_some_and(|p| p != l.pid) {
            return false;
        }
        if let Some(since) = self.since
            && l.timestamp().is_none_or(|t| t < since)
        {
            return false;
        }
        if let Some(needle) = &self.contains {
            let needle = needle.to_lowercase();
            return l.message.to_lowercase().contains(&needle)
                || l.tag.to_lowercase().contains(&needle);
        }
        true
    }
}

/// One `FATAL EXCEPTION` block from AndroidRuntime.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Crash {
    /// `MM-DD HH:MM:SS.mmm` of the first line.
    pub time: String,
    pub thread: Option<String>,
    pub process: Option<String>,
    pub pid: Option<u32>,
    /// The exception line, e.g. `java.lang.IllegalStateException: ...`.
    pub exception: Option<String>,
    /// Further lines of the exception message before the first frame.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub message: Vec<String>,
    /// `Caused by:` / `Suppressed:` lines, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
    /// `at ...` frames without the `at `, in order (causes' frames follow the top ones).
    pub frames: Vec<String>,
}

pub fn crashes(lines: &[LogLine]) -> Vec<Crash> {
    let mut out: Vec<Crash> = Vec::new();
    // pid of the AndroidRuntime block being read
    let mut open: Option<u32> = None;
    for l in lines {
        let is_rt = l.tag == "AndroidRuntime";
        if is_rt && let Some(thread) = l.message.strip_prefix("FATAL EXCEPTION:") {
            out.push(Crash {
                time: format!("{} {}", l.date, l.time),
                thread: Some(thread.trim().to_string()),
                ..Default::default()
            });
            open = Some(l.pid);
            continue;
        }
        if !is_rt || open != Some(l.pid) {
            open = None;
            continue;
        }
        let Some(c) = out.last_mut() else { continue };
        for m in l.message.lines() {
            let m = m.trim();
            if let Some(p) = m.strip_prefix("Process: ") {
                let (name, pid) = p.split_once(", PID: ").unwrap_or((p, ""));
                c.process = Some(name.to_string());
                c.pid = pid.trim().parse().ok();
            } else if let Some(f) = m.strip_prefix("at ") {
                c.frames.push(f.to_string());
            } else if m.starts_with("Caused by:") || m.starts_with("Suppressed:") {
                c.causes.push(m.to_string());
            } else if m.starts_with("...") && m.ends_with("more") {
            } else if c.exception.is_none() {
                c.exception = Some(m.to_string());
            } else if c.frames.is_empty() {
                c.message.push(m.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    fn wsa() -> Vec<LogLine> {
        parse_threadtime(&fixture("misc/logcat-threadtime-crash-wsa.txt"))
    }

    #[test]
    fn wsa_lines() {
        let text = fixture("misc/logcat-threadtime-crash-wsa.txt");
        let lines = wsa();
        assert_eq!(
            lines.len(),
            text.lines().count() - 1,
            "all but the buffer marker"
        );
        let first = &lines[0];
        assert_eq!(
            (first.date.as_str(), first.time.as_str()),
            ("01-22", "17:04:08.436")
        );
        assert_eq!((first.pid, first.tid, first.level), (594, 696, 'D'));
        assert_eq!(first.tag, "skia");
        assert_eq!(first.message, "link failed but did not provide an info log");
        let p = lines.iter().find(|l| l.tag == "Process").unwrap();
        assert_eq!(p.message, "Sending signal. PID: 1810 SIG: 9");
        let jni = lines.iter().find(|l| l.tag == "InputManager-JNI").unwrap();
        assert!(jni.message.starts_with("Input channel object '77227e7"));
        let arabic = lines
            .iter()
            .find(|l| l.message.starts_with("JSON input"))
            .unwrap();
        assert_eq!(arabic.message, "JSON input: 'عربة'");
    }

    #[test]
    fn wsa_filters() {
        let lines = wsa();
        let errors = Filter {
            min_level: Some('E'),
            ..Default::default()
        };
        let n = lines.iter().filter(|l| errors.matches(l)).count();
        assert_eq!(n, lines.iter().filter(|l| l.level == 'E').count());
        assert!(n > 25);
        let app = Filter {
            pid: Some(1810),
            tag: Some("TextToSpeech".into()),
            ..Default::default()
        };
        assert_eq!(lines.iter().filter(|l| app.matches(l)).count(), 3);
        let since = Filter {
            since: LogTime::parse("01-22 17:04:10.250"),
            ..Default::default()
        };
        let after: Vec<_> = lines.iter().filter(|l| since.matches(l)).collect();
        assert_eq!(after[0].tag, "Zygote");
        let word = Filter {
            contains: Some("fatal exception".into()),
            ..Default::default()
        };
        assert_eq!(lines.iter().filter(|l| word.matches(l)).count(), 1);
    }

    #[test]
    fn wsa_crash_block() {
        let c = crashes(&wsa());
        assert_eq!(c.len(), 1);
        let c = &c[0];
        assert_eq!(c.time, "01-22 17:04:10.194");
        assert_eq!(c.thread.as_deref(), Some("main"));
        assert_eq!(
            c.process.as_deref(),
            Some("dev.bayan_ibrahim.my_dictionary")
        );
        assert_eq!(c.pid, Some(1810));
        assert!(c.exception.as_deref().unwrap().starts_with(
            "kotlinx.serialization.json.internal.JsonDecodingException: Unexpected JSON token at offset 0"
        ));
        assert_eq!(c.message, vec!["JSON input: 'عربة'"]);
        assert_eq!(c.frames.len(), 24);
        assert_eq!(
            c.frames[0],
            "kotlinx.serialization.json.internal.JsonExceptionsKt.JsonDecodingException(JsonExceptions.kt:24)"
        );
        assert_eq!(c.frames[23], "java.lang.Thread.run(Thread.java:1012)");
        assert_eq!(c.causes.len(), 1);
        assert!(c.causes[0].starts_with(
            "Suppressed: kotlinx.coroutines.internal.DiagnosticCoroutineContextException"
        ));
    }

    #[test]
    fn odd_lines() {
        let text = "--------- beginning of main\n\
                    2024-01-22 17:04:08.436   594   696 A libc    : Fatal signal 6\n\
                    continued line\n\
                    01-22 17:04:08.437   594   696 I empty:\n\
                    garbage 1 2 3\n";
        let l = parse_threadtime(text);
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].level, 'F');
        assert_eq!(l[0].message, "Fatal signal 6\ncontinued line");
        assert_eq!(
            (l[1].tag.as_str(), l[1].message.as_str()),
            ("empty", "\ngarbage 1 2 3")
        );
        assert!(parse_threadtime("").is_empty());
        assert!(LogTime::parse("01-22 17:04:08.5") > LogTime::parse("01-22 17:04:08.436"));
        assert!(LogTime::parse("junk").is_none());
    }
}
