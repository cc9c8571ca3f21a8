//! What the Batch screen does: its keys (run, cancel, edit, make, delete, record), the editor's
//! keys, the "delete task?" and name prompts, a task from calls marked in History, and what a
//! fresh snapshot or a reply from the server does to the screen's data. Everything here changes
//! plain data; the store, the runner and the recorder are reached only through [`BatchCmd`]
//! effects, which the loop carries out (the control server's `batch_io`) and answers with
//! [`BatchReply`] events and fresh [`BatchData`] snapshots.
use crate::batch::RunState;
use crate::protocol::{BatchCmd, BatchData, BatchReply, PickedCall};
use crate::tui::action::Action;
use crate::tui::batch::{Editor, EditorError, editor_json};
use crate::tui::effect::Effect;
use crate::tui::escape;
use crate::tui::input::LineInput;
use crate::tui::prompt::Prompt;
use crate::tui::state::{InputTarget, State};
use crate::tui::tab::ScreenId;

impl State {
    pub(in crate::tui) fn on_batch_data(&mut self, data: BatchData) {
        let has = |id: &str| data.tasks.iter().any(|t| t.id == id);
        // The person's own save (the editor, a recording, a task from History) is no change
        // behind their back.
        let own = self.batch.select.take_if(|id| has(id));
        if let Some(id) = own.clone() {
            self.batch.selected_id = Some(id);
            self.batch.changed = false;
        }
        let changed = self
            .batch
            .selected()
            .filter(|old| own.as_deref() != Some(old.id.as_str()))
            .and_then(|old| data.tasks.iter().find(|t| t.id == old.id && *t != old))
            .map(|t| t.name.clone());
        if let Some(name) = changed {
            self.batch.changed = true;
            if self.screen == ScreenId::BATCH {
                self.notify(format!(
                    "the selected task {:?} was changed by someone else: look before you run it",
                    escape::line(&name)
                ));
            }
        }
        // A task that went away takes the selection with it: Enter then runs nothing, rather
        // than whatever task took its row.
        if let Some(gone) = self.batch.selected_id.take_if(|id| !has(id))
            && self.screen == ScreenId::BATCH
        {
            let name = self
                .batch
                .tasks()
                .iter()
                .find(|t| t.id == gone)
                .map_or(gone.clone(), |t| t.name.clone());
            self.notify(format!(
                "task {:?} is gone: select a task (↑/↓) before running one",
                escape::line(&name)
            ));
        }
        // Nothing selected: the first task when the list was empty (no row was under the
        // person's cursor) or nobody is looking (they see it selected when they come to
        // Batch). A selection that went away on screen is not replaced: the person picks.
        if self.batch.selected_id.is_none()
            && (self.batch.tasks().is_empty() || self.screen != ScreenId::BATCH)
        {
            self.batch.selected_id = data.tasks.first().map(|t| t.id.clone());
            self.batch.changed = false;
        }
        // A run that ended without succeeding since the last snapshot (not one that had
        // already ended) says so in the footer, wherever the person is.
        let failed: Vec<String> = match &self.batch.data {
            Some(old) => data
                .runs
                .iter()
                .filter(|r| {
                    matches!(
                        r.summary.state,
                        RunState::Failed | RunState::Cancelled | RunState::TimedOut
                    ) && !old.runs.iter().any(|o| {
                        o.summary.run_id == r.summary.run_id
                            && o.summary.state != RunState::Processing
                    })
                })
                .map(|r| {
                    let how = match r.summary.state {
                        RunState::Cancelled => "was cancelled",
                        RunState::TimedOut => "timed out",
                        _ => "failed",
                    };
                    format!(
                        "batch run of {:?} {how}: {}",
                        escape::line(&r.summary.task_name),
                        r.stopped.as_deref().unwrap_or("no reason was recorded")
                    )
                })
                .collect(),
            None => Vec::new(),
        };
        for note in failed {
            self.notify(note);
        }
        self.batch.data = Some(data);
    }

    pub(in crate::tui) fn on_batch_reply(&mut self, reply: BatchReply) {
        match reply {
            BatchReply::Done(note) => self.notify(note),
            BatchReply::Saved { task, note } => {
                if self.batch.editor.as_ref().is_some_and(|e| e.saving) {
                    self.batch.editor = None;
                }
                // Whichever came first, the snapshot or this reply: the person's own save is
                // no change behind their back.
                if self.batch.selected_id.as_deref() == Some(task.id.as_str()) {
                    self.batch.changed = false;
                }
                self.batch.select = Some(task.id);
                self.notify(note);
            }
            BatchReply::Failed { save, message } => match self.batch.editor.as_mut() {
                Some(ed) if save && ed.saving => {
                    ed.saving = false;
                    ed.error = Some(EditorError { at: None, message });
                }
                _ => self.notify(message),
            },
        }
    }

    /// Keys on the Batch screen; false when the action is not the screen's.
    pub(in crate::tui) fn act_batch(&mut self, action: Action, fx: &mut Vec<Effect>) -> bool {
        let len = self.batch.tasks().len();
        match action {
            Action::RunTask => match self.batch.selected() {
                Some(t) if self.batch.changed => {
                    let name = escape::line(&t.name);
                    self.batch.changed = false;
                    self.notify(format!(
                        "task {name:?} changed since you selected it (e shows it); \
                         Enter again runs it as it is now"
                    ));
                }
                Some(t) => fx.push(Effect::Batch(BatchCmd::Run {
                    task_id: t.id.clone(),
                })),
                None if len == 0 => self.notify("no task to run: record one or press n"),
                None => self.notify("no task is selected: select one (↑/↓) to run it"),
            },
            Action::CancelRun => match self.batch.running() {
                Some(id) => fx.push(Effect::Batch(BatchCmd::Cancel {
                    run_id: id.to_string(),
                })),
                None => self.notify("no run is in progress"),
            },
            Action::DeleteTask => match self.batch.selected() {
                Some(t) => {
                    self.prompt = Some(Prompt::DeleteTask {
                        id: t.id.clone(),
                        name: t.name.clone(),
                    })
                }
                None => self.notify("no task to delete"),
            },
            Action::EditTask => match self.batch.selected() {
                Some(t) => {
                    self.batch.editor = Some(Editor::new(Some(t.id.clone()), &editor_json(t)))
                }
                None => self.notify("no task to edit: press n for a new one"),
            },
            Action::NewTask => {
                let tool = self
                    .tool("android_take_screenshot")
                    .or_else(|| self.tools.first())
                    .map_or("android_take_screenshot", |t| t.name);
                let json = format!(
                    "{{\n  \"name\": \"New task\",\n  \"steps\": [\n    {{ \"tool\": \"{tool}\", \"arguments\": {{}} }}\n  ]\n}}"
                );
                self.batch.editor = Some(Editor::new(None, &json));
            }
            Action::ToggleRecording => {
                if self.batch.recording().is_some() {
                    fx.push(Effect::Batch(BatchCmd::StopRecording));
                } else {
                    self.input = Some((InputTarget::RecordingName, LineInput::default()));
                }
            }
            a => {
                // With nothing selected, a move selects the first task (the last for End).
                let p = match self.batch.cursor() {
                    Some(pos) => self.moved(a, pos, len),
                    None => self
                        .moved(a, 0, len)
                        .map(|p| if a == Action::Bottom { p } else { 0 }),
                };
                let Some(p) = p else {
                    return false;
                };
                self.batch.selected_id = self.batch.tasks().get(p).map(|t| t.id.clone());
                self.batch.changed = false;
            }
        }
        true
    }

    /// Editor keys: Ctrl-S checks and saves, Esc throws the edit away; the rest is typing.
    pub(in crate::tui) fn act_editor(&mut self, action: Action, fx: &mut Vec<Effect>) {
        match action {
            Action::Cancel => {
                self.batch.editor = None;
                self.notify("edit cancelled; nothing saved");
            }
            Action::SaveTask => {
                let Some(ed) = self.batch.editor.as_mut() else {
                    return;
                };
                match crate::batch::task::validate_json(&ed.content(), &self.registry) {
                    Ok(task) => {
                        ed.error = None;
                        ed.saving = true;
                        fx.push(Effect::Batch(BatchCmd::Save { task }));
                    }
                    Err((line, col, message)) => {
                        ed.error = Some(EditorError {
                            at: Some((line, col)),
                            message,
                        })
                    }
                }
            }
            _ => {}
        }
    }

    pub(in crate::tui) fn edit_editor(&mut self, key: crossterm::event::KeyEvent) {
        if let Some(ed) = self.batch.editor.as_mut() {
            ed.text.input(key);
        }
    }

    /// History: mark or unmark the selected call for a task.
    pub(in crate::tui) fn toggle_mark(&mut self) {
        if let Some(seq) = self.history_seq_at(self.history_cursor())
            && !self.history_view.marked.remove(&seq)
        {
            self.history_view.marked.insert(seq);
        }
    }

    /// History: ask for the name of a task made from the marked calls.
    pub(in crate::tui) fn task_from_marked(&mut self) {
        if self.marked_calls().is_empty() {
            self.notify("mark calls with Space first");
        } else {
            self.input = Some((InputTarget::TaskName, LineInput::default()));
        }
    }

    /// The marked calls still in the history, oldest first (the order they ran in).
    pub fn marked_calls(&self) -> Vec<PickedCall> {
        self.history_view
            .marked
            .iter()
            .filter_map(|seq| self.history.get(*seq))
            .map(|r| PickedCall {
                tool: r.tool.clone(),
                level: r.level,
                transport: r.transport,
                arguments: r.arguments.clone(),
                audit_seq: r.audit_seq,
            })
            .collect()
    }

    /// Enter in a batch text input: the recording's or the new task's name.
    pub(in crate::tui) fn submit_batch_name(
        &mut self,
        target: InputTarget,
        text: &str,
        fx: &mut Vec<Effect>,
    ) {
        let name = text.trim().to_string();
        if name.is_empty() {
            self.notify("a name is needed; nothing was started or saved");
            return;
        }
        match target {
            InputTarget::RecordingName => fx.push(Effect::Batch(BatchCmd::StartRecording { name })),
            InputTarget::TaskName => {
                let calls = self.marked_calls();
                self.history_view.marked.clear();
                fx.push(Effect::Batch(BatchCmd::FromCalls { name, calls }));
            }
            _ => {}
        }
    }
}
