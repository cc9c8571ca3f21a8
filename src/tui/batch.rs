//! The Batch screen's data, as the state holds it: saved tasks, run history, the live run,
//! recording, and the in-place JSON editor. Plain data; what the screen's keys do with it is
//! `screen/batch/act.rs`, how it is drawn `screen/batch/draw.rs`.
use ratatui_textarea::TextArea;

use crate::batch::{Recording, RunnerState, Task};
use crate::protocol::BatchData;

/// Where `validate_json` (or the store) found a problem; `at` is 1-based (line, column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorError {
    pub at: Option<(usize, usize)>,
    pub message: String,
}

/// The in-place editor: the task's pretty JSON in a text area that has the keyboard.
#[derive(Debug, Clone)]
pub struct Editor {
    /// The id of the task being edited; `None` for a new one.
    pub original: Option<String>,
    pub text: TextArea<'static>,
    pub error: Option<EditorError>,
    /// A save is on its way to the store; the editor closes when it lands.
    pub saving: bool,
}

impl Editor {
    pub fn new(original: Option<String>, json: &str) -> Editor {
        let mut text = TextArea::new(json.lines().map(str::to_string).collect());
        text.set_line_number_style(super::ui::style::dim());
        text.set_cursor_line_style(ratatui::style::Style::new());
        Editor {
            original,
            text,
            error: None,
            saving: false,
        }
    }

    pub fn content(&self) -> String {
        self.text.lines().join("\n")
    }
}

/// The Batch screen's state. The selection is a task id, not a row: the list is sorted by
/// name and anyone may save or delete tasks, so a row can change its task between the frame
/// the person read and their Enter; an id cannot. A task saved again under the same id by
/// someone else is held back from the next Enter (`changed`).
#[derive(Debug, Clone, Default)]
pub struct BatchView {
    /// `None` until the loop first reads the store.
    pub data: Option<BatchData>,
    /// The selected task's id; `None` when nothing is selected (the task went away).
    pub selected_id: Option<String>,
    /// Select this task when it shows up in the list (after a save).
    pub select: Option<String>,
    /// The selected task was saved again by someone else since it was selected: the next
    /// Enter says so instead of running it.
    pub changed: bool,
    pub editor: Option<Editor>,
}

impl BatchView {
    pub fn tasks(&self) -> &[Task] {
        self.data.as_ref().map_or(&[], |d| d.tasks.as_slice())
    }

    /// The row the selected task is drawn on.
    pub fn cursor(&self) -> Option<usize> {
        let id = self.selected_id.as_deref()?;
        self.tasks().iter().position(|t| t.id == id)
    }

    pub fn selected(&self) -> Option<&Task> {
        self.cursor().map(|i| &self.tasks()[i])
    }

    pub fn recording(&self) -> Option<&Recording> {
        self.data.as_ref()?.recording.as_ref()
    }

    /// The run in progress, if any: its id.
    pub fn running(&self) -> Option<&str> {
        let st = &self.data.as_ref()?.status;
        (st.state == RunnerState::Running)
            .then_some(st.current_run_id.as_deref())
            .flatten()
    }
}

/// Pretty JSON for the editor. serde already escapes C0 controls inside strings; C1 controls
/// and bidirectional overrides (legal in JSON strings, dangerous on a terminal) are written
/// as `\uXXXX` too, which is the same JSON.
pub fn editor_json(task: &Task) -> String {
    let raw = serde_json::to_string_pretty(task).unwrap_or_default();
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        let bidi = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}');
        if ('\u{80}'..='\u{9f}').contains(&c) || bidi {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
