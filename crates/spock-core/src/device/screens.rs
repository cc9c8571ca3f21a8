//! Which UI dump may answer a later read without asking the device again.
//!
//! On a phone `uiautomator dump` costs one to two seconds, and an action that settles then
//! dumps is usually followed by a read of that same screen (the next element lookup). Each
//! device has a *generation*, bumped when any command that can change the screen is sent and
//! again when it returns, from any client or tool (every device operation passes through
//! [`ScreenLog::sent`]). A dump taken to settle after an action is kept with the generation it
//! started at; a later read may use it only while the generation is unchanged, only once, and
//! only for [`MAX_AGE`]. Nothing is ever judged unchanged from the activity or the focused
//! window: two screens of one activity differ by everything the dump shows.
//!
//! A dump an agent *read* (`android_get_ui_tree`) is kept too, but it answers only the next
//! element action's resolution (the agent names an element from the tree it was just shown):
//! a second read always asks the device, so an agent polling with reads sees the screen move.
//!
//! What this cannot see: changes made on the phone without spock-tui (a person's finger,
//! another adb client, the app's own timers). [`MAX_AGE`] bounds how long such a change can go
//! unseen by the one read that reuses a dump.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Oldest settle dump a read may reuse: about one model turn.
pub const MAX_AGE: Duration = Duration::from_secs(10);

#[derive(Debug, Default)]
struct Entry {
    generation: u64,
    settled: Option<Settled>,
    /// Held while a `uiautomator dump` of this device runs: one at a time.
    dump_turn: std::sync::Arc<tokio::sync::Mutex<()>>,
}

#[derive(Debug, Clone)]
struct Settled {
    generation: u64,
    at: Instant,
    dump: String,
    /// Kept by a read: answers only an element action's resolution, never another read.
    by_read: bool,
}

/// Per-device generations and kept settle dumps, keyed by the device's name.
#[derive(Debug, Default)]
pub struct ScreenLog {
    devices: Mutex<HashMap<String, Entry>>,
}

impl ScreenLog {
    fn with<R>(&self, device: &str, f: impl FnOnce(&mut Entry) -> R) -> R {
        let mut map = self.devices.lock().unwrap_or_else(|e| e.into_inner());
        f(map.entry(device.to_string()).or_default())
    }

    /// A command is being sent (or has returned): when it may change the screen, every kept
    /// dump of this device stops being an answer.
    pub fn sent(&self, device: &str, command: &str) {
        if may_change_screen(command) {
            self.bump(device);
        }
    }

    pub fn bump(&self, device: &str) {
        self.with(device, |e| {
            e.generation += 1;
            e.settled = None;
        });
    }

    /// The lock a `uiautomator dump` of `device` holds while it runs (entries are never
    /// dropped, so every caller gets the same one).
    pub fn dump_turn(&self, device: &str) -> std::sync::Arc<tokio::sync::Mutex<()>> {
        self.with(device, |e| e.dump_turn.clone())
    }

    pub fn generation(&self, device: &str) -> u64 {
        self.with(device, |e| e.generation)
    }

    /// Keep a settle dump that started at `generation`; refused when anything was sent since.
    pub fn keep(&self, device: &str, generation: u64, dump: String) {
        self.keep_as(device, generation, dump, false);
    }

    /// Keep the dump a read showed the agent, for the next element action's resolution only.
    pub fn keep_read(&self, device: &str, generation: u64, dump: String) {
        self.keep_as(device, generation, dump, true);
    }

    fn keep_as(&self, device: &str, generation: u64, dump: String, by_read: bool) {
        self.with(device, |e| {
            if e.generation == generation {
                e.settled = Some(Settled {
                    generation,
                    at: Instant::now(),
                    dump,
                    by_read,
                });
            }
        });
    }

    /// The kept settle dump, when it still answers for the screen; it stays kept (the same
    /// action sending back the screen it just verified). A read's dump is not one.
    pub fn peek(&self, device: &str) -> Option<String> {
        self.with(device, |e| {
            current(e).filter(|s| !s.by_read).map(|s| s.dump.clone())
        })
    }

    /// The kept settle dump, for one read: it is gone afterwards, so a read after that asks
    /// again. A dump kept by a read never answers a read.
    pub fn take(&self, device: &str) -> Option<String> {
        self.take_if(device, false)
    }

    /// The kept settle dump, for one read the agent is shown (`android_get_ui_tree`): from then
    /// on it is that read's dump, answering only the next element action's resolution (the
    /// agent names an element from it), with the generation and age it was taken at. A dump
    /// kept by a read never answers a read.
    pub fn take_shown(&self, device: &str) -> Option<String> {
        self.with(device, |e| {
            let dump = current(e).filter(|s| !s.by_read).map(|s| s.dump.clone());
            if let (Some(_), Some(s)) = (&dump, e.settled.as_mut()) {
                s.by_read = true;
            }
            dump
        })
    }

    /// The kept dump (a settle dump or the one a read showed), for one element action to
    /// resolve its element on; it is gone afterwards.
    pub fn take_for_action(&self, device: &str) -> Option<String> {
        self.take_if(device, true)
    }

    fn take_if(&self, device: &str, read_ok: bool) -> Option<String> {
        self.with(device, |e| {
            let dump = current(e)
                .filter(|s| read_ok || !s.by_read)
                .map(|s| s.dump.clone());
            e.settled = None;
            dump
        })
    }
}

fn current(e: &Entry) -> Option<&Settled> {
    e.settled
        .as_ref()
        .filter(|s| s.generation == e.generation && s.at.elapsed() <= MAX_AGE)
}

/// Whether a shell line may change what is on screen. Only one plain command from a short list
/// of readers counts as not: anything with shell syntax (`;`, `&&`, pipes, redirection,
/// substitution, quotes) or any other command is assumed to change it.
pub fn may_change_screen(command: &str) -> bool {
    if command.chars().any(|c| {
        matches!(
            c,
            ';' | '&' | '|' | '<' | '>' | '$' | '`' | '\n' | '(' | ')' | '\'' | '"' | '\\'
        )
    }) {
        return true;
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    let word = |i: usize| words.get(i).copied().unwrap_or("");
    let read_only = match word(0) {
        "uiautomator" => word(1) == "dump",
        "screencap" | "dumpsys" | "getprop" | "ps" | "pidof" | "cat" | "ls" | "stat" | "id"
        | "logcat" | "realpath" | "readlink" | "getevent" => true,
        // `wm size` reads, `wm size 1080x1920` sets.
        "wm" => matches!(word(1), "size" | "density") && words.len() == 2,
        "pm" => matches!(word(1), "list" | "path" | "dump"),
        "cmd" => word(1) == "package" && matches!(word(2), "list" | "resolve-activity"),
        "settings" => word(1) == "get",
        _ => false,
    };
    !read_only
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_readers_leave_the_screen_alone() {
        for cmd in [
            "uiautomator dump /dev/tty",
            "screencap -p",
            "dumpsys window",
            "wm size",
            "pm list packages -3",
            "getprop ro.product.model",
        ] {
            assert!(!may_change_screen(cmd), "{cmd}");
        }
        for cmd in [
            "input tap 1 2",
            "am start -W -n a/.B",
            "wm size 1080x1920",
            "uiautomator dump /dev/tty; input tap 1 2",
            "dumpsys window && input keyevent 4",
            "cat /x > /sdcard/y",
            "settings put system a 1",
            "monkey -p com.example.shop 1",
            "",
        ] {
            assert!(may_change_screen(cmd), "{cmd}");
        }
    }

    #[test]
    fn a_kept_dump_answers_one_read_while_nothing_was_sent() {
        let log = ScreenLog::default();
        let g = log.generation("d");
        log.keep("d", g, "login".into());
        assert_eq!(log.peek("d").as_deref(), Some("login"));
        assert_eq!(log.take("d").as_deref(), Some("login"));
        assert_eq!(log.take("d"), None, "once");

        log.keep("d", g, "login".into());
        log.sent("d", "dumpsys window");
        assert!(log.peek("d").is_some(), "a reader changes nothing");
        log.sent("d", "input tap 540 1075");
        assert_eq!(log.take("d"), None, "a tap since: stale");

        // A dump that started before a command was sent is never kept.
        let g = log.generation("d");
        log.sent("d", "input keyevent 4");
        log.keep("d", g, "old".into());
        assert_eq!(log.take("d"), None);
        // Devices are apart.
        let g = log.generation("e");
        log.keep("e", g, "other".into());
        assert_eq!(log.take("d"), None);
        assert_eq!(log.take("e").as_deref(), Some("other"));
    }

    #[test]
    fn a_read_dump_answers_one_action_and_never_another_read() {
        let log = ScreenLog::default();
        let g = log.generation("d");
        log.keep_read("d", g, "login".into());
        assert_eq!(log.peek("d"), None, "not a settle dump");
        assert_eq!(log.take("d"), None, "a second read asks the device");
        log.keep_read("d", g, "login".into());
        assert_eq!(log.take_for_action("d").as_deref(), Some("login"));
        assert_eq!(log.take_for_action("d"), None, "once");
        log.keep_read("d", g, "login".into());
        log.sent("d", "input tap 1 2");
        assert_eq!(log.take_for_action("d"), None, "a tap since: stale");
        // A settle dump answers an action's resolution too.
        let g = log.generation("d");
        log.keep("d", g, "home".into());
        assert_eq!(log.take_for_action("d").as_deref(), Some("home"));
    }

    #[test]
    fn a_settle_dump_shown_by_a_read_then_answers_one_action_only() {
        let log = ScreenLog::default();
        let g = log.generation("d");
        log.keep("d", g, "home".into());
        assert_eq!(log.take_shown("d").as_deref(), Some("home"));
        assert_eq!(log.take_shown("d"), None, "never a second read");
        assert_eq!(log.peek("d"), None, "nor a settle's answer");
        assert_eq!(log.take_for_action("d").as_deref(), Some("home"));
        assert_eq!(log.take_for_action("d"), None, "once");
        // A read's own dump is not shown again (the read dumps and keeps its own), and a tap
        // since leaves nothing.
        log.keep_read("d", g, "home".into());
        assert_eq!(log.take_shown("d"), None);
        log.keep("d", g, "home".into());
        log.sent("d", "input tap 1 2");
        assert_eq!(log.take_shown("d"), None);
    }
}
