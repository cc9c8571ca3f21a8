//! Text typed into whatever field has the focus (`android_input_text`), decided afterwards.
//!
//! Typing first and reading the screen after costs nothing on the call's path: dumping the
//! screen before every typed text only to learn whether the focused field is a password field
//! cost one to two seconds on a phone. So the text is typed at once and stays withheld (as a
//! password's, everywhere) until a read of that device's screen decides it: the call's own
//! settle dump when `returnScreen` asks for one, else the next read any call takes.
//!
//! A read decides only while nothing that can change the screen was sent to the device since
//! the text was typed (the device's screen generation, [`crate::device::screens`]): a tap, a
//! key or more typing in between, from any client, and the text stays withheld for good, so a
//! focus moved elsewhere can never attribute another field's content to it. A read decides when
//! it shows a focused text field: a password field keeps the text «password» for good; a field
//! that is no password field and visibly holds the typed text shows it (what it shows is on the
//! screen anyway). A focused field that is no password field
//! but does not hold the text (a read that began before the text arrived, or focus that moved
//! on) decides nothing it could get wrong: the text stays withheld for good. A read without a
//! focused text field (the keyboard closed) leaves it waiting, for a few reads or a minute at
//! most. A kept password a batch step replays is not typed this way: it is refused anywhere
//! but a password field, so that call still reads the screen before typing.
//!
//! A text shown after its call ended updates the person's views (History, Activity); the
//! audit record written at the call's end keeps «password», the conservative side.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::TypedText;
use crate::uitree::UiTree;

/// How many reads without a focused text field a text waits through.
const READS: u8 = 3;
/// How long a text waits for a read that decides it.
const WAIT: Duration = Duration::from_secs(60);
/// The most texts waiting on one device (older ones stay withheld).
const MAX_WAITING: usize = 16;

struct Waiting {
    call_id: u64,
    /// The device's screen generation once the text was typed.
    generation: u64,
    typed: Arc<TypedText>,
    text: String,
    reads_left: u8,
    since: Instant,
}

/// Per device, the typed texts no read has decided yet.
#[derive(Default)]
pub struct AwaitingRead {
    devices: Mutex<HashMap<String, Vec<Waiting>>>,
}

/// What a read made of one waiting text.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Password,
    Plain,
    /// A focused field that is no password field, without the text: never shown.
    GiveUp,
    Undecided,
}

fn verdict(tree: &UiTree, text: &str) -> Verdict {
    match tree.focused_field_is_password() {
        Some(true) => Verdict::Password,
        None => Verdict::Undecided,
        Some(false)
            if tree
                .nodes()
                .iter()
                .any(|n| n.focused && n.is_editable() && n.text.contains(text)) =>
        {
            Verdict::Plain
        }
        Some(false) => Verdict::GiveUp,
    }
}

impl AwaitingRead {
    /// `text` (slot 0 of the call `call_id`) was typed on `device` into whatever had the focus;
    /// `generation` is the device's screen generation once it was.
    pub fn typed(
        &self,
        device: &str,
        generation: u64,
        call_id: u64,
        typed: Arc<TypedText>,
        text: &str,
    ) {
        let mut map = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        let list = map.entry(device.to_string()).or_default();
        if list.len() >= MAX_WAITING {
            list.remove(0);
        }
        list.push(Waiting {
            call_id,
            generation,
            typed,
            text: text.to_string(),
            reads_left: READS,
            since: Instant::now(),
        });
    }

    /// A read of `device`'s screen (unredacted) that began at screen generation `started`,
    /// the generation being `now`: the texts it decides are settled, and those now shown are
    /// returned as (call id, the arguments to show). A read that began before a text was typed
    /// decides nothing about it.
    pub fn read(&self, device: &str, started: u64, now: u64, tree: &UiTree) -> Vec<(u64, Value)> {
        let mut map = self.devices.lock().unwrap_or_else(|p| p.into_inner());
        let Some(list) = map.get_mut(device) else {
            return Vec::new();
        };
        let mut shown = Vec::new();
        list.retain_mut(|w| {
            // Something was sent since that may have moved the focus: nothing is decided.
            if w.generation != now {
                return false;
            }
            // A dump that began before the text was typed shows the screen before it.
            if started != w.generation {
                w.reads_left = w.reads_left.saturating_sub(1);
                return w.reads_left > 0 && w.since.elapsed() < WAIT;
            }
            match verdict(tree, &w.text) {
                Verdict::Password => {
                    w.typed.settle(0, true);
                }
                Verdict::Plain => {
                    if let Some(args) = w.typed.settle(0, false) {
                        shown.push((w.call_id, args));
                    }
                }
                Verdict::GiveUp => {}
                Verdict::Undecided => {
                    w.reads_left = w.reads_left.saturating_sub(1);
                    return w.reads_left > 0 && w.since.elapsed() < WAIT;
                }
            }
            false
        });
        if list.is_empty() {
            map.remove(device);
        }
        shown
    }
}

#[cfg(test)]
mod tests;
