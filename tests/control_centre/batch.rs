//! The Batch screen as data: its snapshots at 80×24 and 200×60 (empty, with tasks, running,
//! recording, the editor showing an error) and `update()` for its keys — run, cancel, delete
//! behind a y/n prompt, record with a name, edit in place, and a task from calls marked in
//! History — with the layer order confirmation > prompt > help > input/editor > screen.
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use spock_tui::batch::{
    BatchStatus, Recording, RunState, RunSummary, RunnerState, Source, Step, Task,
};
use spock_tui::mcp::events::{Outcome, Transport};
use spock_tui::mcp::registry::Level;
use spock_tui::protocol::{BatchCmd, BatchData, BatchReply, RunRow};
use spock_tui::tui::State;
use spock_tui::tui::event::Event;
use spock_tui::tui::screen::ScreenId;
use spock_tui::tui::state::{InputTarget, Layer};
use spock_tui::tui::update::Effect;
use tui_fixture::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

fn snap(name: &str, s: &mut State) {
    for (w, h) in SIZES {
        let text = render(s, w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
}

fn stamp(secs: i64) -> String {
    (t0() + chrono::Duration::seconds(secs)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn task(id: &str, name: &str, source: Source, steps: usize) -> Task {
    Task {
        id: id.into(),
        name: name.into(),
        description: None,
        steps: (0..steps)
            .map(|i| Step::new("android_tap", json!({"x": 100 + i, "y": 200})))
            .collect(),
        created_at: stamp(0),
        updated_at: stamp(0),
        source,
    }
}

fn run(id: &str, task: &Task, state: RunState, secs: i64, ran: usize, ok: usize) -> RunRow {
    let stopped = (state == RunState::Failed).then(|| {
        format!(
            "step {} (android_tap) error: no device is connected (adb devices lists none)",
            ok + 1
        )
    });
    RunRow {
        stopped: stopped.clone(),
        summary: RunSummary {
            run_id: id.into(),
            task_id: Some(task.id.clone()),
            task_name: task.name.clone(),
            state,
            started_at: stamp(secs),
            finished_at: (state != RunState::Processing).then(|| stamp(secs + 4)),
            total_steps: task.steps.len(),
            steps_run: ran,
            stopped_reason: stopped.clone(),
            stopped_at_step: None,
            failed_steps: Vec::new(),
        },
        ok,
    }
}

fn tasks() -> Vec<Task> {
    vec![
        task("login", "Shop login", Source::Recorded, 3),
        task("smoke", "Smoke test", Source::Manual, 5),
        task("from_history", "Replay of Tuesday", Source::History, 2),
    ]
}

fn data() -> BatchData {
    let t = tasks();
    BatchData {
        runs: vec![
            run("run_2", &t[1], RunState::Failed, -60, 3, 2),
            run("run_1", &t[0], RunState::Succeeded, -300, 3, 3),
            run("run_0", &t[0], RunState::Cancelled, -900, 1, 1),
        ],
        tasks: t,
        ..BatchData::default()
    }
}

fn running() -> BatchData {
    let mut d = data();
    let smoke = d.tasks[1].clone();
    d.runs
        .insert(0, run("run_3", &smoke, RunState::Processing, 0, 1, 1));
    d.status = BatchStatus {
        state: RunnerState::Running,
        current_task_id: Some("smoke".into()),
        current_run_id: Some("run_3".into()),
        current_step_index: 1,
        total_steps: 5,
        last_run: None,
    };
    d.current_tool = Some("android_tap".into());
    d
}

fn recording(d: &mut BatchData) {
    d.recording = Some(Recording {
        name: "checkout flow".into(),
        started_at: stamp(0),
        steps: vec![
            Step::new("android_tap", json!({"x": 1, "y": 2})),
            Step::new("android_take_screenshot", json!({})),
        ],
    });
}

fn on_batch(d: BatchData) -> State {
    let mut s = state();
    s.update(key('6'));
    s.update(Event::Batch(d));
    s
}

fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

fn typed(s: &mut State, text: &str) {
    for c in text.chars() {
        s.update(key(c));
    }
}

fn batch_cmds(fx: Vec<Effect>) -> Vec<BatchCmd> {
    fx.into_iter()
        .filter_map(|e| match e {
            Effect::Batch(c) => Some(c),
            _ => None,
        })
        .collect()
}

// --- snapshots ---

#[test]
fn empty_store() {
    snap("batch_empty", &mut on_batch(BatchData::default()));
}

#[test]
fn with_tasks_and_runs() {
    let mut s = on_batch(data());
    s.update(key('j'));
    snap("batch_tasks", &mut s);
}

#[test]
fn running_shows_step_and_tool() {
    let mut s = on_batch(running());
    let text = render(&mut s, 80, 24);
    assert!(text.contains("step 2/5 · android_tap"), "{text}");
    snap("batch_running", &mut s);
}

#[test]
fn recording_shows_everywhere() {
    let mut d = data();
    recording(&mut d);
    let mut s = on_batch(d);
    snap("batch_recording", &mut s);
    for screen in ['1', '2', '3', '4', '5'] {
        s.update(key(screen));
        assert!(render(&mut s, 200, 60).contains("● REC 2 steps"));
        assert!(render(&mut s, 80, 24).contains("● REC 2"));
    }
}

#[test]
fn editor_with_an_error() {
    let mut s = on_batch(data());
    s.update(key('e'));
    // Break the JSON at the start of line 2: a stray character before `"id"`.
    s.update(code(KeyCode::Down));
    s.update(code(KeyCode::Home));
    s.update(key('@'));
    s.update(ctrl('s'));
    let err = s
        .batch
        .editor
        .as_ref()
        .and_then(|e| e.error.clone())
        .unwrap();
    assert_eq!(err.at.map(|(l, _)| l), Some(2), "{err:?}");
    snap("batch_editor_error", &mut s);
}

#[test]
fn delete_prompt() {
    let mut s = on_batch(data());
    s.update(key('d'));
    snap("batch_delete_prompt", &mut s);
}

// --- update() ---

#[test]
fn run_and_cancel_name_the_right_ids() {
    let mut s = on_batch(data());
    s.update(key('j'));
    let fx = batch_cmds(s.update(key('r')));
    assert_eq!(
        fx,
        [BatchCmd::Run {
            task_id: "smoke".into()
        }]
    );
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::Run {
            task_id: "smoke".into()
        }]
    );
    // Nothing is running: cancel says so and asks nothing of the loop.
    assert!(batch_cmds(s.update(key('x'))).is_empty());
    assert!(s.notice().unwrap().contains("no run"));
    s.update(Event::Batch(running()));
    assert_eq!(
        batch_cmds(s.update(key('x'))),
        [BatchCmd::Cancel {
            run_id: "run_3".into()
        }]
    );
    // The selected task going away takes the selection with it: no other task takes its
    // place under Enter.
    s.update(key('G'));
    let mut d = data();
    d.tasks.truncate(1);
    s.update(Event::Batch(d));
    assert!(s.batch.selected().is_none());
    assert!(batch_cmds(s.update(code(KeyCode::Enter))).is_empty());
}

#[test]
fn delete_asks_first_and_the_prompt_has_the_keyboard() {
    let mut s = on_batch(data());
    s.update(key('d'));
    assert_eq!(s.layer(), Layer::Prompt);
    assert!(s.prompt.as_ref().unwrap().question().contains("Shop login"));
    // Neither screen keys, help nor quit get through.
    for k in ['1', '?', 'q'] {
        assert!(batch_cmds(s.update(key(k))).is_empty());
    }
    assert!(!s.quit && !s.help);
    assert_eq!(s.screen, ScreenId::BATCH);
    assert!(batch_cmds(s.update(key('n'))).is_empty());
    assert_eq!(s.layer(), Layer::Screen(ScreenId::BATCH));
    s.update(key('d'));
    assert!(batch_cmds(s.update(code(KeyCode::Esc))).is_empty());
    s.update(key('d'));
    assert_eq!(
        batch_cmds(s.update(key('y'))),
        [BatchCmd::Delete {
            task_id: "login".into()
        }]
    );
    // An empty list has nothing to delete, run or edit.
    let mut s = on_batch(BatchData::default());
    for k in ['d', 'r', 'e'] {
        assert!(batch_cmds(s.update(key(k))).is_empty());
        assert_eq!(s.layer(), Layer::Screen(ScreenId::BATCH));
    }
}

#[test]
fn record_asks_a_name_then_stops_into_a_task() {
    let mut s = on_batch(data());
    s.update(key('m'));
    assert_eq!(s.layer(), Layer::Input);
    assert!(matches!(s.input, Some((InputTarget::RecordingName, _))));
    // An empty name starts nothing.
    assert!(batch_cmds(s.update(code(KeyCode::Enter))).is_empty());
    s.update(key('m'));
    typed(&mut s, "checkout flow");
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::StartRecording {
            name: "checkout flow".into()
        }]
    );
    let mut d = data();
    recording(&mut d);
    s.update(Event::Batch(d));
    assert_eq!(batch_cmds(s.update(key('m'))), [BatchCmd::StopRecording]);
    // The saved recording is selected once the list holds it.
    let saved = task("rec_1", "checkout flow", Source::Recorded, 2);
    s.update(Event::BatchReply(BatchReply::Saved {
        task: saved.clone(),
        note: "recording saved".into(),
    }));
    let mut d = data();
    d.tasks.insert(0, saved);
    s.update(Event::Batch(d));
    assert_eq!(s.batch.selected().map(|t| t.id.as_str()), Some("rec_1"));
}

#[test]
fn editor_checks_keeps_the_text_and_saves() {
    let mut s = on_batch(data());
    s.update(key('e'));
    assert_eq!(s.layer(), Layer::Editor);
    let original = s.batch.editor.as_ref().unwrap().content();
    assert!(original.contains("\"id\": \"login\""), "{original}");
    // Keys are text here: q does not quit, 6 does not switch screens.
    for _ in 0..50 {
        s.update(code(KeyCode::Down));
    }
    s.update(code(KeyCode::End));
    typed(&mut s, "q6");
    assert!(!s.quit);
    s.update(ctrl('s'));
    let ed = s.batch.editor.as_ref().unwrap();
    let err = ed.error.clone().unwrap();
    assert!(err.at.is_some(), "{err:?}");
    assert!(ed.content().ends_with("}q6"), "the text survives the error");
    assert!(!ed.saving);
    // Fix it and rename: Ctrl-S hands the checked task to the loop and waits.
    s.update(code(KeyCode::Backspace));
    s.update(code(KeyCode::Backspace));
    let text = s.batch.editor.as_ref().unwrap().content();
    let mut ed = spock_tui::tui::batch::Editor::new(
        Some("login".into()),
        &text.replace("Shop login", "Shop login v2"),
    );
    ed.error = None;
    s.batch.editor = Some(ed);
    let cmds = batch_cmds(s.update(ctrl('s')));
    let [BatchCmd::Save { task }] = &cmds[..] else {
        panic!("{cmds:?}")
    };
    assert_eq!(
        (task.id.as_str(), task.name.as_str()),
        ("login", "Shop login v2")
    );
    assert!(s.batch.editor.as_ref().unwrap().saving);
    // The store refusing it puts the reason in the editor, text intact.
    s.update(Event::BatchReply(BatchReply::Failed {
        save: true,
        message: "disk full".into(),
    }));
    let ed = s.batch.editor.as_ref().unwrap();
    assert_eq!(
        ed.error.as_ref().map(|e| e.message.as_str()),
        Some("disk full")
    );
    assert!(ed.content().contains("Shop login v2"));
    s.update(ctrl('s'));
    s.update(Event::BatchReply(BatchReply::Saved {
        task: task.clone(),
        note: "saved".into(),
    }));
    assert!(s.batch.editor.is_none());
    // Esc throws an edit away without a command.
    s.update(key('n'));
    assert!(s.batch.editor.as_ref().unwrap().original.is_none());
    assert!(batch_cmds(s.update(code(KeyCode::Esc))).is_empty());
    assert_eq!(s.layer(), Layer::Screen(ScreenId::BATCH));
}

#[tokio::test]
async fn a_destructive_call_outranks_the_editor_and_the_prompt() {
    let mut asker = Asker::new(Duration::from_secs(60));
    let mut s = Console::new(on_batch(data()));
    s.update(key('e'));
    let (req, _h) = asker
        .ask(ask(
            "android_uninstall_app",
            json!({"package_name": "a.b"}),
            None,
        ))
        .await;
    s.confirm(req);
    assert_eq!(s.layer(), Layer::Confirm);
    look(&mut s);
    let before = s.batch.editor.as_ref().unwrap().content();
    s.update(key('n'));
    assert!(s.confirms.is_empty());
    assert_eq!(
        s.batch.editor.as_ref().unwrap().content(),
        before,
        "n went to the modal"
    );
    assert_eq!(s.layer(), Layer::Editor);
    s.update(code(KeyCode::Esc));
    s.update(key('d'));
    let (req, _h) = asker
        .ask(ask("android_uninstall_app", json!({}), None))
        .await;
    s.confirm(req);
    assert_eq!(s.layer(), Layer::Confirm);
    look(&mut s);
    assert!(
        batch_cmds(s.update(key('y'))).is_empty(),
        "y answered the modal"
    );
    assert_eq!(s.layer(), Layer::Prompt);
}

#[test]
fn marked_history_calls_become_a_task_in_order() {
    let mut s = state();
    let calls = [
        (1, "android_tap", json!({"x": 1, "y": 1})),
        (2, "android_take_screenshot", json!({})),
        (3, "android_tap", json!({"x": 3, "y": 3})),
    ];
    for (id, tool, args) in calls.clone() {
        s.update(started(id, id as i64, tool, Level::SafeAction, None, args));
        s.update(finished(id, tool, Outcome::Ok, 5, None, json!({})));
    }
    s.update(key('4'));
    assert!(batch_cmds(s.update(key('b'))).is_empty());
    assert!(s.notice().unwrap().contains("mark"));
    // Newest first on screen: mark call 3, skip 2, mark 1; unmark and re-mark 1.
    s.update(key(' '));
    s.update(key('j'));
    s.update(key('j'));
    s.update(key(' '));
    s.update(key(' '));
    s.update(key(' '));
    assert_eq!(s.history_view.marked.len(), 2);
    assert!(render(&mut s, 80, 24).contains("2 marked"));
    s.update(key('b'));
    assert!(matches!(s.input, Some((InputTarget::TaskName, _))));
    typed(&mut s, "two taps");
    let cmds = batch_cmds(s.update(code(KeyCode::Enter)));
    let [BatchCmd::FromCalls { name, calls }] = &cmds[..] else {
        panic!("{cmds:?}")
    };
    assert_eq!(name, "two taps");
    let args: Vec<_> = calls.iter().map(|c| c.arguments.clone()).collect();
    assert_eq!(args, [json!({"x": 1, "y": 1}), json!({"x": 3, "y": 3})]);
    assert!(calls.iter().all(|c| c.transport == Transport::Stdio));
    assert!(s.history_view.marked.is_empty());
}

#[test]
fn help_lists_the_batch_keys() {
    let keymap = spock_tui::tui::keymap::Keymap::default();
    let entries = keymap.help_entries(spock_tui::tui::keymap::Scope::Screen(ScreenId::BATCH));
    let what: Vec<&str> = entries.iter().map(|(_, w)| *w).collect();
    for needle in [
        "run the selected task",
        "cancel the run",
        "delete the selected task",
        "edit the selected",
        "start recording",
    ] {
        assert!(
            what.iter().any(|w| w.contains(needle)),
            "{needle}: {what:?}"
        );
    }
    let editor = keymap.help_entries(spock_tui::tui::keymap::Scope::Editor);
    assert!(
        editor.contains(&("Ctrl-s".to_string(), "check and save the task")),
        "{editor:?}"
    );
}

// --- the loop's side, against a real core and the demo device ---

mod live {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;
    use spock_tui::app::{self, Options};
    use spock_tui::batch::{RunState, Source, Step, Task};
    use spock_tui::config::{Config, Paths};
    use spock_tui::device::AdbEndpoint;
    use spock_tui::mcp::events::{Outcome, Transport};
    use spock_tui::mcp::logbuf::LogBuffer;
    use spock_tui::protocol::{BatchCmd, BatchData, BatchReply, ServerMsg};
    use spock_tui::sim::cli::{SimOptions, start};
    use spock_tui::sim::device::SimDevice;
    use spock_tui::transport::control::batch_io::BatchLink;
    use tokio::sync::mpsc;

    async fn next_batch(
        rx: &mut mpsc::UnboundedReceiver<ServerMsg>,
        what: &str,
        ok: impl Fn(&BatchData) -> bool,
    ) -> BatchData {
        let wait = async {
            loop {
                if let Some(ServerMsg::Batch { data }) = rx.recv().await
                    && ok(&data)
                {
                    return data;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .unwrap_or_else(|_| panic!("no snapshot with {what}"))
    }

    async fn next_reply(rx: &mut mpsc::UnboundedReceiver<ServerMsg>) -> BatchReply {
        let wait = async {
            loop {
                if let Some(ServerMsg::BatchReply { reply }) = rx.recv().await {
                    return reply;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .expect("a reply")
    }

    /// A core on `tmp` whose one adb server is 127.0.0.1:`port` (nothing listens on port 1).
    fn core_on(tmp: &tempfile::TempDir, port: u16) -> Arc<spock_tui::mcp::Core> {
        app::build_core(Options {
            paths: Paths::under(tmp.path()),
            config: Config::default_config(),
            allow_all: false,
            logs: LogBuffer::new(100),
            adb: vec![AdbEndpoint::new("127.0.0.1", port)],
            projects: vec![],
            autostart_adb: false,
            adb_explicit: true,
        })
        .expect("core")
    }

    /// One gate: the person's own save and delete on the Batch screen are calls through the
    /// pipeline (origin `tui`, audited like an agent's, saves included), the person's y is the
    /// approval (nothing is asked again: with a control centre attached that never answers,
    /// the delete still goes through at once), and access switches, which govern agents, do
    /// not stop the person (both tools switched off here).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_persons_own_save_and_delete_go_through_the_pipeline() {
        let tmp = tempfile::tempdir().expect("tmp");
        let core = core_on(&tmp, 1);
        for tool in ["android_batch_save", "android_batch_delete"] {
            core.access
                .set_enabled(core.registry.get(tool).expect("tool"), false);
        }
        // A modal nobody answers: were the pipeline to ask, the delete would hang and time out.
        let mut asks = core.confirmer.attach();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = BatchLink::spawn(&core, &tx);
        next_batch(&mut rx, "an empty store", |_| true).await;
        let t = Task::new(
            Some("mine".into()),
            "Mine",
            vec![Step::new("android_press_key", json!({"key": "HOME"}))],
            Source::Manual,
        );
        link.perform(BatchCmd::Save { task: t });
        let reply = next_reply(&mut rx).await;
        assert!(
            matches!(&reply, BatchReply::Saved { task, .. } if task.id == "mine"),
            "{reply:?}"
        );
        link.perform(BatchCmd::Delete {
            task_id: "mine".into(),
        });
        let reply = next_reply(&mut rx).await;
        assert!(matches!(&reply, BatchReply::Done(_)), "{reply:?}");
        assert!(asks.try_recv().is_err(), "the person was asked again");
        let recs = core.audit.recent(20);
        for tool in ["android_batch_save", "android_batch_delete"] {
            // The call's ending (a destructive one also has its `started` record before it).
            let r = recs
                .iter()
                .find(|r| r.tool == tool && r.outcome != Outcome::Started)
                .unwrap_or_else(|| panic!("{tool} is not on record: {recs:?}"));
            assert_eq!(r.transport, Transport::Tui, "{r:?}");
            assert!(r.client.starts_with("control centre/"), "{r:?}");
            assert_eq!(r.outcome, Outcome::Ok, "{r:?}");
            assert_eq!(r.arguments["id"], "mine");
        }
        let delete = recs
            .iter()
            .find(|r| r.tool == "android_batch_delete" && r.outcome != Outcome::Started)
            .unwrap();
        assert!(delete.decision.is_some_and(|d| d.approved));
        // Its started record came first, and the ending names it.
        let started = recs
            .iter()
            .find(|r| r.tool == "android_batch_delete" && r.outcome == Outcome::Started)
            .expect("a started record");
        assert_eq!(delete.started, Some(started.seq));
        assert!(core.batch().unwrap().get("mine").is_err(), "deleted");
    }

    /// A task the person makes (History's marked calls) is stored through the pipeline as the
    /// person's call: on the audit trail as the control centre's, never replacing a task.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_persons_new_tasks_go_through_the_pipeline() {
        let tmp = tempfile::tempdir().expect("tmp");
        let core = core_on(&tmp, 1);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = BatchLink::spawn(&core, &tx);
        next_batch(&mut rx, "an empty store", |_| true).await;
        let picked = spock_tui::protocol::PickedCall {
            tool: "android_press_key".into(),
            level: spock_tui::mcp::registry::Level::SafeAction,
            transport: Transport::Http,
            arguments: json!({"key": "HOME"}),
            audit_seq: None,
        };
        link.perform(BatchCmd::FromCalls {
            name: "from history".into(),
            calls: vec![picked],
        });
        let reply = next_reply(&mut rx).await;
        let BatchReply::Saved { task, .. } = &reply else {
            panic!("{reply:?}")
        };
        assert_eq!(
            task.source,
            Source::History,
            "the task keeps where it came from"
        );
        assert_eq!(task.steps.len(), 1);
        let recs = core.audit.recent(20);
        let r = recs
            .iter()
            .find(|r| r.tool == "android_batch_store")
            .unwrap_or_else(|| panic!("the new task is not on record: {recs:?}"));
        assert_eq!(r.transport, Transport::Tui, "{r:?}");
        assert!(r.client.starts_with("control centre/"), "{r:?}");
        assert_eq!(r.outcome, Outcome::Ok, "{r:?}");
        assert_eq!(r.arguments["task"]["id"], task.id.as_str());
        // The same tool never replaces a task that exists.
        let again = spock_tui::mcp::server::CallRequest::person(
            spock_tui::mcp::server::control_centre(),
            spock_tui::mcp::tools::batch::store_new_task_tool(),
            json!({ "task": task }),
        )
        .run(&core)
        .await
        .expect("a declaration runs");
        assert!(again.result.is_err(), "an existing task was replaced");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn snapshots_follow_recording_saving_and_a_run() {
        let sim = start(SimOptions::adb_server_only(vec![Arc::new(
            SimDevice::demo(),
        )]))
        .await
        .expect("sim");
        let port = sim.adb_server.expect("adb server").port();
        let tmp = tempfile::tempdir().expect("tmp");
        let core = core_on(&tmp, port);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = BatchLink::spawn(&core, &tx);
        let first = next_batch(&mut rx, "an empty store", |_| true).await;
        assert!(first.tasks.is_empty() && first.runs.is_empty() && first.recording.is_none());

        link.perform(BatchCmd::StartRecording {
            name: "tour".into(),
        });
        assert!(matches!(next_reply(&mut rx).await, BatchReply::Done(_)));
        next_batch(&mut rx, "the recording", |d| d.recording.is_some()).await;
        // What the pipeline offers the recorder shows up once a call finishes.
        let args = json!({"packageName": "com.example.shop"});
        for o in core.observers() {
            o.finished(&spock_tui::mcp::observe::FinishedCall {
                tool: "android_launch_app",
                args: &args,
                private: None,
                transport: Transport::Stdio,
                outcome: Outcome::Ok,
                record: 1,
                batch_run: None,
            });
        }
        link.perform(BatchCmd::StopRecording);
        let BatchReply::Saved { task, .. } = next_reply(&mut rx).await else {
            panic!("the recording was not saved")
        };
        assert_eq!((task.source, task.steps.len()), (Source::Recorded, 1));
        let d = next_batch(&mut rx, "the recorded task", |d| d.tasks.len() == 1).await;
        assert!(d.recording.is_none());

        // A task saved by hand, then run as the person would: it succeeds, both steps ok.
        let t = Task::new(
            Some("shop".into()),
            "Shop",
            vec![
                Step::new(
                    "android_launch_app",
                    json!({"packageName": "com.example.shop"}),
                ),
                Step::new(
                    "android_open_deep_link",
                    json!({"uri": "shop://product/42"}),
                ),
            ],
            Source::Manual,
        );
        link.perform(BatchCmd::Save { task: t });
        assert!(matches!(
            next_reply(&mut rx).await,
            BatchReply::Saved { .. }
        ));
        link.perform(BatchCmd::Run {
            task_id: "shop".into(),
        });
        let reply = next_reply(&mut rx).await;
        assert!(
            matches!(&reply, BatchReply::Done(n) if n.contains("started")),
            "{reply:?}"
        );
        let d = next_batch(&mut rx, "a finished run", |d| {
            d.runs
                .first()
                .is_some_and(|r| r.summary.state != RunState::Processing)
        })
        .await;
        let r = &d.runs[0];
        assert_eq!(r.summary.state, RunState::Succeeded, "{r:?}");
        assert_eq!((r.ok, r.summary.total_steps), (2, 2));

        // Deleting goes through; a second delete reports the task is gone.
        link.perform(BatchCmd::Delete {
            task_id: "shop".into(),
        });
        assert!(matches!(next_reply(&mut rx).await, BatchReply::Done(_)));
        link.perform(BatchCmd::Delete {
            task_id: "shop".into(),
        });
        let reply = next_reply(&mut rx).await;
        assert!(
            matches!(&reply, BatchReply::Failed { save: false, message } if message.contains("not found")),
            "{reply:?}"
        );
        // Both deletes are on record, as the person's approved destructive calls: each a
        // started record and its ending, which names it.
        let deletes: Vec<_> = core
            .audit
            .recent(50)
            .into_iter()
            .filter(|r| r.tool == "android_batch_delete")
            .collect();
        assert_eq!(deletes.len(), 4, "{deletes:?}");
        assert_eq!(deletes[0].outcome, Outcome::Started);
        assert_eq!(deletes[1].started, Some(deletes[0].seq));
        assert_eq!(deletes[2].outcome, Outcome::Started);
        assert_eq!(deletes[3].started, Some(deletes[2].seq));
        let deletes: Vec<_> = deletes
            .into_iter()
            .filter(|r| r.outcome != Outcome::Started)
            .collect();
        assert!(deletes.iter().all(|r| r.transport == Transport::Tui
            && r.arguments["id"] == "shop"
            && r.decision.is_some_and(|d| d.approved)));
        assert_eq!(
            (deletes[0].outcome, deletes[1].outcome),
            (Outcome::Ok, Outcome::Error)
        );
        // Nothing runs now: cancelling says so.
        link.perform(BatchCmd::Cancel {
            run_id: "run_x".into(),
        });
        assert!(matches!(
            next_reply(&mut rx).await,
            BatchReply::Failed { .. }
        ));
    }

    /// The person's `x` on the Batch screen is android_batch_cancel through the pipeline, as
    /// the person's call (audited, origin `tui`; access switches, which govern agents, do not
    /// stop it): the run stops in its pause and the screen shows it `cancelled`, by whom and
    /// where.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_persons_cancel_goes_through_the_pipeline() {
        let sim = start(SimOptions::adb_server_only(vec![Arc::new(
            SimDevice::demo(),
        )]))
        .await
        .expect("sim");
        let port = sim.adb_server.expect("adb server").port();
        let tmp = tempfile::tempdir().expect("tmp");
        let core = core_on(&tmp, port);
        core.access.set_enabled(
            core.registry.get("android_batch_cancel").expect("tool"),
            false,
        );
        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = BatchLink::spawn(&core, &tx);
        next_batch(&mut rx, "an empty store", |_| true).await;
        let mut pause = Step::new("android_press_key", json!({"key": "HOME"}));
        pause.wait_ms = Some(60_000);
        let t = Task::new(
            Some("slow".into()),
            "Slow",
            vec![pause, Step::new("android_take_screenshot", json!({}))],
            Source::Manual,
        );
        core.batch().unwrap().save(t).expect("saved");
        link.perform(BatchCmd::Run {
            task_id: "slow".into(),
        });
        assert!(matches!(next_reply(&mut rx).await, BatchReply::Done(_)));
        let d = next_batch(&mut rx, "the run in its pause", |d| {
            d.runs.first().is_some_and(|r| r.summary.steps_run == 1)
                && d.status.current_run_id.is_some()
        })
        .await;
        let run_id = d.status.current_run_id.clone().unwrap();
        link.perform(BatchCmd::Cancel {
            run_id: run_id.clone(),
        });
        let reply = next_reply(&mut rx).await;
        assert!(
            matches!(&reply, BatchReply::Done(n) if n.contains("cancelled by the person at the control centre at step 2")),
            "{reply:?}"
        );
        let d = next_batch(&mut rx, "the cancelled run", |d| {
            d.runs
                .first()
                .is_some_and(|r| r.summary.state != RunState::Processing)
        })
        .await;
        let r = &d.runs[0];
        assert_eq!(r.summary.state, RunState::Cancelled, "{r:?}");
        assert_eq!(r.summary.stopped_at_step, Some(1));
        assert!(
            r.stopped
                .as_deref()
                .is_some_and(|w| w.contains("step 2 (android_take_screenshot)"))
        );
        let recs = core.audit.recent(50);
        let c = recs
            .iter()
            .find(|r| r.tool == "android_batch_cancel")
            .unwrap_or_else(|| panic!("the cancel is not on record: {recs:?}"));
        assert_eq!(
            (c.transport, c.outcome),
            (Transport::Tui, Outcome::Ok),
            "{c:?}"
        );
        assert!(c.client.starts_with("control centre/"), "{c:?}");
        assert_eq!(c.arguments["runId"], run_id.as_str());
    }
}

#[test]
fn a_failed_run_shows_its_step_and_error_and_says_so() {
    let mut s = on_batch(running());
    let mut d = running();
    let smoke = d.tasks[1].clone();
    d.runs[0] = run("run_3", &smoke, RunState::Failed, 0, 2, 1);
    d.status = BatchStatus::default();
    s.update(Event::Batch(d.clone()));
    // On the Batch screen, under the run: the failed step and the error.
    let screen = render(&mut s, 80, 24);
    assert!(
        screen.contains("↳ step 2 (android_tap) error: no device is connected"),
        "{screen}"
    );
    // In the footer (and the message log), wherever the person is.
    let note = s.notice().unwrap_or("").to_string();
    assert!(
        note.contains("\"Smoke test\" failed: step 2 (android_tap) error: no device"),
        "{note}"
    );
    // A run that had already failed is not reported again.
    s.notices.clear();
    s.update(Event::Batch(d));
    assert_eq!(s.notice(), None);
}

/// A run stopped by its time limit or cancelled shows so, with why under its line, and says so
/// in the footer; while a run is in progress the footer offers the cancel key from the keymap.
#[test]
fn timed_out_and_cancelled_runs_say_why() {
    let mut s = on_batch(running());
    let footer = render(&mut s, 80, 24);
    let last = footer.lines().last().unwrap_or("").to_string();
    assert!(
        last.contains(" x ") && last.contains("cancel run"),
        "{last}"
    );
    let mut d = running();
    let smoke = d.tasks[1].clone();
    let mut r = run("run_3", &smoke, RunState::TimedOut, 0, 2, 2);
    r.stopped = Some("stopped by its time limit of 600 s at step 3 (android_tap)".into());
    d.runs[0] = r;
    d.status = BatchStatus::default();
    s.update(Event::Batch(d));
    let screen = render(&mut s, 80, 24);
    assert!(screen.contains("timed out"), "{screen}");
    assert!(
        screen.contains("↳ stopped by its time limit of 600 s"),
        "{screen}"
    );
    let note = s.notice().unwrap_or("").to_string();
    assert!(
        note.contains("\"Smoke test\" timed out: stopped by its time limit"),
        "{note}"
    );
}

/// Issue 31, item 7: the cursor is on a task, not a row. The agent saves `sm0ke-cleanup`,
/// which sorts where `smoke` was; Enter still runs `smoke`. A task that goes away takes the
/// selection with it: Enter then runs nothing until the person picks a task.
#[test]
fn the_cursor_follows_the_task_not_the_row() {
    let smoke = task("smoke", "smoke", Source::Manual, 2);
    let mut s = on_batch(BatchData {
        tasks: vec![smoke.clone()],
        ..BatchData::default()
    });
    assert_eq!(s.batch.selected().map(|t| t.id.as_str()), Some("smoke"));
    let agents = task("agent_1", "sm0ke-cleanup", Source::Manual, 1);
    s.update(Event::Batch(BatchData {
        tasks: vec![agents.clone(), smoke.clone()],
        ..BatchData::default()
    }));
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::Run {
            task_id: "smoke".into()
        }]
    );
    // The drawn cursor (reversed) is on the same task Enter runs.
    assert_eq!(reversed_rows(&mut s), ["smoke"]);
    // Deleted by the agent: Enter runs nothing (not the task that took its row).
    s.update(Event::Batch(BatchData {
        tasks: vec![agents],
        ..BatchData::default()
    }));
    assert!(batch_cmds(s.update(code(KeyCode::Enter))).is_empty());
    assert!(
        s.notice().unwrap_or("").contains("select"),
        "{:?}",
        s.notice()
    );
    // Moving picks a task again.
    s.update(key('j'));
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::Run {
            task_id: "agent_1".into()
        }]
    );
}

/// The task names on rows drawn reversed (the selection), at 80×24.
fn reversed_rows(s: &mut State) -> Vec<String> {
    use ratatui::style::Modifier;
    s.size = (80, 24);
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|f| spock_tui::tui::frame::draw(f, s))
        .unwrap();
    let buf = terminal.backend().buffer();
    let mut out = Vec::new();
    for y in 0..buf.area.height {
        let row: Vec<_> = (0..buf.area.width).map(|x| &buf[(x, y)]).collect();
        let text: String = row
            .iter()
            .filter(|c| c.modifier.contains(Modifier::REVERSED))
            .map(|c| c.symbol())
            .collect();
        if let Some(name) = text.split_whitespace().next()
            && (name == "smoke" || name == "sm0ke-cleanup")
        {
            out.push(name.to_string());
        }
    }
    out
}

/// The first task to show up in an empty list is selected (no row was under the cursor); a
/// selection that went away on screen is not replaced by a newcomer.
#[test]
fn a_first_task_is_selected_but_a_lost_selection_is_not_replaced() {
    let mut s = on_batch(BatchData::default());
    assert!(s.batch.selected().is_none());
    let smoke = task("smoke", "smoke", Source::Manual, 2);
    s.update(Event::Batch(BatchData {
        tasks: vec![smoke.clone()],
        ..BatchData::default()
    }));
    assert_eq!(s.batch.selected().map(|t| t.id.as_str()), Some("smoke"));
    let other = task("other", "other", Source::Manual, 1);
    s.update(Event::Batch(BatchData {
        tasks: vec![other.clone()],
        ..BatchData::default()
    }));
    assert!(s.batch.selected().is_none());
    let newcomer = task("agent_2", "a-newcomer", Source::Manual, 1);
    s.update(Event::Batch(BatchData {
        tasks: vec![newcomer, other],
        ..BatchData::default()
    }));
    assert!(s.batch.selected().is_none());
    assert!(batch_cmds(s.update(code(KeyCode::Enter))).is_empty());
}

/// The task under the cursor saved again by someone else (same id, other steps): the next
/// Enter says so and runs nothing; the one after runs it as it is now. The person's own save
/// (the editor) is not such a change.
#[test]
fn a_task_changed_under_the_cursor_is_not_run_on_the_next_enter() {
    let smoke = task("smoke", "smoke", Source::Manual, 2);
    let mut s = on_batch(BatchData {
        tasks: vec![smoke.clone()],
        ..BatchData::default()
    });
    let mut swapped = smoke.clone();
    swapped.steps[1] = Step::new("android_uninstall_app", json!({"package_name": "com.x"}));
    s.update(Event::Batch(BatchData {
        tasks: vec![swapped.clone()],
        ..BatchData::default()
    }));
    assert!(batch_cmds(s.update(code(KeyCode::Enter))).is_empty());
    assert!(
        s.notice().unwrap_or("").contains("changed"),
        "{:?}",
        s.notice()
    );
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::Run {
            task_id: "smoke".into()
        }]
    );
    // The person's own save of the selected task: Enter runs it at once.
    let mut edited = swapped.clone();
    edited.steps.pop();
    s.update(Event::BatchReply(BatchReply::Saved {
        task: edited.clone(),
        note: "saved".into(),
    }));
    s.update(Event::Batch(BatchData {
        tasks: vec![edited.clone()],
        ..BatchData::default()
    }));
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::Run {
            task_id: "smoke".into()
        }]
    );
    // The snapshot may come before the reply: still the person's own save.
    let mut again = edited;
    again.name = "smoke (renamed)".into();
    s.update(Event::Batch(BatchData {
        tasks: vec![again.clone()],
        ..BatchData::default()
    }));
    s.update(Event::BatchReply(BatchReply::Saved {
        task: again,
        note: "saved".into(),
    }));
    assert_eq!(
        batch_cmds(s.update(code(KeyCode::Enter))),
        [BatchCmd::Run {
            task_id: "smoke".into()
        }]
    );
}
