//! The device's log buffers (main, system, crash) and `logcat` output in the real
//! `threadtime` format (`MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message`, see
//! `fixtures/misc/logcat-threadtime-crash-wsa.txt`), with the filters tools use:
//! `TAG:LEVEL` specs, `*:S`, `-s`, `-t N`, `--pid`, `-b`.
use chrono::{DateTime, Local};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Buffer {
    Main,
    System,
    Crash,
}

impl Buffer {
    pub fn name(self) -> &'static str {
        match self {
            Buffer::Main => "main",
            Buffer::System => "system",
            Buffer::Crash => "crash",
        }
    }
}

#[derive(Debug, Clone)]
pub struct LogEntry {
    pub at: DateTime<Local>,
    pub pid: u32,
    pub tid: u32,
    pub level: char,
    pub tag: String,
    pub message: String,
    pub buffer: Buffer,
}

impl LogEntry {
    /// `-v brief`: `E/AndroidRuntime( 1810): message`.
    pub fn brief(&self) -> String {
        format!(
            "{}/{:<8}({:>5}): {}",
            self.level, self.tag, self.pid, self.message
        )
    }

    /// `-v time`: the brief line after a timestamp.
    pub fn time(&self) -> String {
        format!("{} {}", self.at.format("%m-%d %H:%M:%S%.3f"), self.brief())
    }

    pub fn raw(&self) -> String {
        self.message.clone()
    }

    pub fn threadtime(&self) -> String {
        format!(
            "{} {:>5} {:>5} {} {:<8}: {}",
            self.at.format("%m-%d %H:%M:%S%.3f"),
            self.pid,
            self.tid,
            self.level,
            self.tag,
            self.message
        )
    }
}

/// Priority order of logcat levels; `S` (silent) is above everything.
pub fn priority(level: char) -> u8 {
    match level.to_ascii_uppercase() {
        'V' => 2,
        'D' => 3,
        'I' => 4,
        'W' => 5,
        'E' => 6,
        'F' | 'A' => 7,
        'S' => 8,
        _ => 0,
    }
}

/// A parsed `logcat` filter expression list (`ShopApp:I *:S`).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    specs: Vec<(String, u8)>,
}

impl Filter {
    /// Adds one `TAG[:LEVEL]` spec; `None` if the level is not a logcat priority.
    pub fn add(&mut self, spec: &str) -> Option<()> {
        let (tag, level) = match spec.rsplit_once(':') {
            Some((t, l)) => {
                let mut chars = l.chars();
                let c = chars.next()?;
                if chars.next().is_some() || priority(c) == 0 {
                    return None;
                }
                (t.to_string(), priority(c))
            }
            None => (spec.to_string(), priority('V')),
        };
        self.specs.push((tag, level));
        Some(())
    }

    pub fn accepts(&self, e: &LogEntry) -> bool {
        let p = priority(e.level);
        let mut wildcard = priority('V');
        for (tag, min) in &self.specs {
            if tag == &e.tag {
                return p >= *min;
            }
            if tag == "*" {
                wildcard = *min;
            }
        }
        p >= wildcard
    }
}

#[derive(Debug, Clone, Default)]
pub struct LogBuffer {
    entries: Vec<LogEntry>,
}

/// Bounded like the real ring buffers, so a long demo cannot grow without limit.
const MAX_ENTRIES: usize = 20_000;

impl LogBuffer {
    pub fn push(&mut self, e: LogEntry) {
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.drain(..MAX_ENTRIES / 10);
        }
        self.entries.push(e);
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// Renders selected entries as `logcat -d` prints them, with a `--------- beginning of
    /// <buffer>` line the first time each buffer appears.
    pub fn render(
        &self,
        from: usize,
        buffers: &[Buffer],
        filter: &Filter,
        pid: Option<u32>,
        tail: Option<usize>,
        fmt: fn(&LogEntry) -> String,
    ) -> String {
        let selected: Vec<&LogEntry> = self
            .entries
            .iter()
            .skip(from)
            .filter(|e| buffers.contains(&e.buffer))
            .filter(|e| pid.is_none_or(|p| e.pid == p))
            .filter(|e| filter.accepts(e))
            .collect();
        let start = tail.map_or(0, |n| selected.len().saturating_sub(n));
        let mut seen: Vec<Buffer> = Vec::new();
        let mut out = String::new();
        for e in &selected[start..] {
            if !seen.contains(&e.buffer) {
                seen.push(e.buffer);
                out.push_str("--------- beginning of ");
                out.push_str(e.buffer.name());
                out.push('\n');
            }
            // A message of several lines is printed a line at a time, each with the entry's
            // header, as logcat's `android_log_formatLogLine` prints it.
            if e.message.contains('\n') {
                for line in e.message.split('\n') {
                    let one = LogEntry {
                        message: line.to_string(),
                        ..(*e).clone()
                    };
                    out.push_str(&fmt(&one));
                    out.push('\n');
                }
            } else {
                out.push_str(&fmt(e));
                out.push('\n');
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(level: char, tag: &str) -> LogEntry {
        LogEntry {
            at: Local::now(),
            pid: 594,
            tid: 696,
            level,
            tag: tag.into(),
            message: "m".into(),
            buffer: Buffer::Main,
        }
    }

    #[test]
    fn threadtime_matches_fixture_layout() {
        // From logcat-threadtime-crash-wsa.txt: "01-22 17:04:08.436   594   696 D skia    : link"
        let line = entry('D', "skia").threadtime();
        assert_eq!(&line[18..], "   594   696 D skia    : m");
    }

    #[test]
    fn filters_like_logcat() {
        let mut f = Filter::default();
        f.add("ShopApp:I").unwrap();
        f.add("*:S").unwrap();
        assert!(f.accepts(&entry('I', "ShopApp")));
        assert!(!f.accepts(&entry('D', "ShopApp")));
        assert!(!f.accepts(&entry('E', "Other")));
        let mut e = Filter::default();
        e.add("*:E").unwrap();
        assert!(e.accepts(&entry('E', "AndroidRuntime")));
        assert!(!e.accepts(&entry('W', "x")));
        assert!(Filter::default().add("x:Q").is_none());
    }

    #[test]
    fn a_message_of_several_lines_prints_a_header_on_each() {
        let mut b = LogBuffer::default();
        let mut e = entry('D', "KeyStore");
        e.message = "-----BEGIN PRIVATE KEY-----\nMIIC\n-----END PRIVATE KEY-----".into();
        b.push(e);
        let out = b.render(
            0,
            &[Buffer::Main],
            &Filter::default(),
            None,
            None,
            LogEntry::threadtime,
        );
        let lines: Vec<&str> = out.lines().skip(1).collect();
        assert_eq!(lines.len(), 3, "{out}");
        for (l, m) in lines.iter().zip([
            "-----BEGIN PRIVATE KEY-----",
            "MIIC",
            "-----END PRIVATE KEY-----",
        ]) {
            assert_eq!(&l[..18], &lines[0][..18]);
            assert!(l.ends_with(&format!("D KeyStore: {m}")), "{l}");
        }
    }
}
