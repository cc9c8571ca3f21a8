//! Secrets on the person's own screen (issue 16): text typed into a password field is never
//! drawn, not even while the call is still running; typing into whatever is focused is judged
//! by the focused field; and a task made from History's marked calls replays the real value
//! (or refuses, when it is no longer kept), never the placeholder.
//!
//! Against a real core on the in-process demo device. A call is held on the device (its
//! `input` command never answers) so its Activity row and details stay live while frames are
//! drawn from every event the control centre receives.
use crate::support::device_rig;
use crate::support::tui_fixture;

use std::time::Duration;

use crossterm::event::KeyCode;
use device_rig::{Rig, rig_with, stdio_call};
use serde_json::{Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::ServerEvent;
use spock_tui::sim::faults::FaultCommand;
use spock_tui::tui::event::Event;
use spock_tui::tui::state::{Layer, State};
use tokio_util::sync::CancellationToken;
use tui_fixture::{code, key, render, state};

const SECRET: &str = "hunter2xyz";

/// Frames drawn while a call ran and after it ended.
struct Frames {
    running: Vec<String>,
    done: Vec<String>,
}

impl Frames {
    fn all(&self) -> impl Iterator<Item = &String> {
        self.running.iter().chain(&self.done)
    }
}

async fn login_screen(rig: &Rig) {
    let d = stdio_call(
        &rig.core,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    assert!(d.result.is_ok(), "{:?}", d.result);
}

async fn focus(rig: &Rig, view_id: &str) {
    let d = stdio_call(
        &rig.core,
        "android_tap_element",
        json!({"selector": {"viewId": view_id}}),
    )
    .await;
    assert!(d.result.is_ok(), "{:?}", d.result);
}

/// What `android_find_ui_element` says of the element with `view_id`.
async fn found(rig: &Rig, view_id: &str) -> Value {
    let d = stdio_call(
        &rig.core,
        "android_find_ui_element",
        json!({"selector": {"viewId": view_id}}),
    )
    .await;
    d.result.expect("find").json
}

/// Runs `tool` while `hang` never answers on the device, drawing the Activity screen with the
/// call's details open after every event and every 50 ms, until it ends: cancelled once
/// `enough(frame, frames drawn while it ran)` holds for a frame of the running call.
async fn held_call(
    rig: &Rig,
    tool: &str,
    args: Value,
    hang: &str,
    enough: impl Fn(&str, usize) -> bool,
) -> Frames {
    let mut events = rig.core.subscribe();
    let faults = rig.faults();
    faults.apply(&FaultCommand::Hang {
        command: hang.into(),
    });
    let cancel = CancellationToken::new();
    let call = {
        let (core, tool, cancel) = (rig.core.clone(), tool.to_string(), cancel.clone());
        tokio::spawn(async move {
            spock_tui::mcp::server::CallRequest::new(device_rig::origin(), &tool, args)
                .cancel(cancel)
                .run(&core)
                .await
        })
    };
    let mut s: State = state();
    s.update(key('3'));
    let mut frames = Frames {
        running: Vec::new(),
        done: Vec::new(),
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let mut finished = false;
    while !finished {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the call never ended"
        );
        while let Ok(ev) = events.try_recv() {
            finished |= matches!(ev, ServerEvent::CallFinished { .. });
            s.update(Event::Server(ev));
        }
        if s.history.live_len() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        if s.layer() != Layer::Details {
            s.update(code(KeyCode::Enter));
        }
        let frame = render(&mut s, 160, 50);
        let running = s.history.running() > 0;
        if running {
            if enough(&frame, frames.running.len() + 1) {
                cancel.cancel();
            }
            frames.running.push(frame);
        } else {
            frames.done.push(frame);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    faults.apply(&FaultCommand::Clear);
    let _ = call.await;
    // The row as History keeps it once the call has ended.
    frames.done.push(render(&mut s, 160, 50));
    frames
}

fn never_drawn(frames: &Frames, secret: &str) {
    assert!(!frames.running.is_empty(), "no frame of the running call");
    for f in frames.all() {
        assert!(!f.contains(secret), "the secret is on screen:\n{f}");
    }
    assert!(
        frames.running.iter().all(|f| f.contains("«password»")),
        "a running frame does not say «password»:\n{}",
        frames.running[0]
    );
}

fn audit_text_of(rig: &Rig, tool: &str) -> Value {
    let recs = rig.core.audit.recent(50);
    let r = recs
        .iter()
        .rev()
        .find(|r| r.tool == tool)
        .unwrap_or_else(|| panic!("{tool} is not on record"));
    r.arguments["text"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_being_typed_is_never_drawn_while_the_call_runs() {
    let rig = rig_with(false, Config::default_config()).await;
    login_screen(&rig).await;
    // By the element tool: the call is held at its tap on the field.
    let frames = held_call(
        &rig,
        "android_input_text_into_element",
        json!({"selector": {"viewId": "login_password"}, "text": SECRET}),
        "input",
        |_, n| n >= 10,
    )
    .await;
    never_drawn(&frames, SECRET);
    // Into the focused field: held at `input text`, after the focused field was looked up.
    focus(&rig, "login_password").await;
    let frames = held_call(
        &rig,
        "android_input_text",
        json!({"text": SECRET}),
        "input",
        |_, n| n >= 10,
    )
    .await;
    never_drawn(&frames, SECRET);
    assert_eq!(audit_text_of(&rig, "android_input_text"), "«password»");
}

/// Every event the core sent so far, applied to a control centre on Activity.
fn drawn(events: &mut tokio::sync::broadcast::Receiver<ServerEvent>, s: &mut State) -> String {
    while let Ok(ev) = events.try_recv() {
        s.update(Event::Server(ev));
    }
    render(s, 160, 50)
}

/// Typing into whatever is focused types first (no dump before it) and withholds the text
/// until a read shows where it went: the call's settle dump when it asks for one...
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_for_a_plain_field_is_shown_once_the_settle_dump_shows_the_field() {
    let rig = rig_with(false, Config::default_config()).await;
    login_screen(&rig).await;
    focus(&rig, "login_email").await;
    let typed = "bob_example";
    // Held at `input`: nothing has read the screen since the tap, so nothing is shown yet.
    let frames = held_call(
        &rig,
        "android_input_text",
        json!({"text": typed}),
        "input",
        |_, n| n >= 10,
    )
    .await;
    never_drawn(&frames, typed);
    let d = stdio_call(
        &rig.core,
        "android_input_text",
        json!({"text": "_again", "returnScreen": "tree"}),
    )
    .await;
    assert!(d.result.is_ok(), "{:?}", d.result);
    assert_eq!(audit_text_of(&rig, "android_input_text"), "_again");
    assert!(!d.typed_password);
}

/// ...or, without one, the next read any call takes: History shows it then (the audit record,
/// written when the call ended, keeps «password»).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_for_a_plain_field_is_shown_after_the_next_read() {
    let rig = rig_with(false, Config::default_config()).await;
    login_screen(&rig).await;
    focus(&rig, "login_email").await;
    let mut events = rig.core.subscribe();
    let mut s: State = state();
    s.update(key('3'));
    let typed = "bob_example";
    let d = stdio_call(&rig.core, "android_input_text", json!({"text": typed})).await;
    assert!(d.result.is_ok() && d.typed_password, "{:?}", d.result);
    let frame = drawn(&mut events, &mut s);
    assert!(
        !frame.contains(typed) && frame.contains("«password»"),
        "{frame}"
    );
    let d = stdio_call(&rig.core, "android_get_ui_tree", json!({})).await;
    assert!(d.result.is_ok(), "{:?}", d.result);
    let frame = drawn(&mut events, &mut s);
    assert!(
        frame.contains(typed),
        "the plain text was not shown:\n{frame}"
    );
    assert_eq!(audit_text_of(&rig, "android_input_text"), "«password»");
}

/// Into a password field, typed first too: the read after it keeps it «password» for good,
/// and a later read showing the same characters elsewhere does not undo that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_typed_into_a_focused_password_field_stays_hidden_after_reads() {
    let rig = rig_with(false, Config::default_config()).await;
    login_screen(&rig).await;
    focus(&rig, "login_password").await;
    let mut events = rig.core.subscribe();
    let mut s: State = state();
    s.update(key('3'));
    let d = stdio_call(
        &rig.core,
        "android_input_text",
        json!({"text": SECRET, "returnScreen": "tree"}),
    )
    .await;
    assert!(d.result.is_ok() && d.typed_password, "{:?}", d.result);
    let into_password = d.call_id;
    focus(&rig, "login_email").await;
    let d = stdio_call(&rig.core, "android_input_text", json!({"text": SECRET})).await;
    assert!(d.result.is_ok(), "{:?}", d.result);
    let into_email = d.call_id;
    let d = stdio_call(&rig.core, "android_get_ui_tree", json!({})).await;
    assert!(d.result.is_ok(), "{:?}", d.result);
    // The second text went into a plain field and is shown; the first stays «password».
    let mut shown = Vec::new();
    while let Ok(ev) = events.try_recv() {
        if let ServerEvent::CallArguments { call_id, .. } = &ev {
            shown.push(*call_id);
        }
        s.update(Event::Server(ev));
    }
    assert_eq!(shown, vec![into_email], "only the e-mail's text is shown");
    assert_ne!(into_password, into_email);
    let recs = rig.core.audit.recent(50);
    let typed: Vec<_> = recs
        .iter()
        .filter(|r| r.tool == "android_input_text")
        .map(|r| r.arguments["text"].clone())
        .collect();
    assert_eq!(typed, vec![json!("«password»"), json!("«password»")]);
    let frame = render(&mut s, 160, 50);
    assert!(frame.contains("«password»"), "{frame}");
}

mod from_history {
    use std::os::unix::fs::PermissionsExt;

    use spock_tui::batch::StepOutcome;
    use spock_tui::protocol::{BatchCmd, BatchReply, ServerMsg};
    use spock_tui::transport::control::batch_io::BatchLink;
    use spock_tui::tui::update::Effect;
    use tokio::sync::mpsc;

    use super::*;

    /// The person marks the newest call in History and makes a task of it with `b`.
    fn mark_newest_and_make_a_task(s: &mut State, name: &str) -> BatchCmd {
        s.update(key('4'));
        s.update(key(' '));
        s.update(key('b'));
        for c in name.chars() {
            s.update(key(c));
        }
        s.update(code(KeyCode::Enter))
            .into_iter()
            .find_map(|e| match e {
                Effect::Batch(c) => Some(c),
                _ => None,
            })
            .expect("a task is asked for")
    }

    async fn saved(
        link: &BatchLink,
        rx: &mut mpsc::UnboundedReceiver<ServerMsg>,
        cmd: BatchCmd,
    ) -> (spock_tui::batch::Task, String) {
        link.perform(cmd);
        let wait = async {
            loop {
                if let Some(ServerMsg::BatchReply { reply }) = rx.recv().await {
                    return reply;
                }
            }
        };
        match tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .expect("a reply")
        {
            BatchReply::Saved { task, note } => (task, note),
            other => panic!("{other:?}"),
        }
    }

    /// Saves the task History asked for, with every value still kept, and reads it back as an
    /// agent would: the secret is not in it.
    async fn kept_task(
        rig: &Rig,
        link: &BatchLink,
        rx: &mut mpsc::UnboundedReceiver<ServerMsg>,
        cmd: BatchCmd,
    ) -> (spock_tui::batch::Task, Value) {
        let (task, note) = saved(link, rx, cmd).await;
        assert!(!note.contains("no longer"), "{note}");
        let got = stdio_call(&rig.core, "android_batch_get", json!({"id": task.id})).await;
        let got = got.result.expect("get").json;
        assert!(!got.to_string().contains(SECRET), "{got}");
        (task, got)
    }

    /// Runs a saved task as an agent would and waits for its record.
    async fn run(rig: &Rig, id: &str) -> spock_tui::batch::RunLog {
        let d = stdio_call(&rig.core, "android_batch_run", json!({"id": id})).await;
        let run_id = d.result.expect("started").json["runId"]
            .as_str()
            .unwrap()
            .to_string();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let rec = rig.core.batch().unwrap().history_get(&run_id).expect("run");
            if rec.state != spock_tui::batch::RunState::Processing {
                return rec;
            }
            assert!(tokio::time::Instant::now() < deadline, "{rec:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// How many characters the password field holds, read off the device's own screen
    /// (uiautomator shows a password field's characters as bullets).
    fn password_field_len(rig: &Rig) -> usize {
        field_text(rig, "login_password").chars().count()
    }

    /// A field's text, read off the device's own screen.
    fn field_text(rig: &Rig, id: &str) -> String {
        let tree = spock_tui::uitree::parse(&rig.dev.ui_xml()).expect("a dump");
        let n = tree
            .nodes()
            .iter()
            .find(|n| n.resource_id == id)
            .expect("the field");
        n.text.clone()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_made_from_history_replays_the_typed_password_or_refuses() {
        let rig = rig_with(false, Config::default_config()).await;
        login_screen(&rig).await;
        let mut events = rig.core.subscribe();
        let typed = stdio_call(
            &rig.core,
            "android_input_text_into_element",
            json!({"selector": {"viewId": "login_password"}, "text": SECRET}),
        )
        .await;
        assert!(
            typed.typed_password && typed.result.is_ok(),
            "{:?}",
            typed.result
        );
        let mut s = state();
        while let Ok(ev) = events.try_recv() {
            s.update(Event::Server(ev));
        }
        let cmd = mark_newest_and_make_a_task(&mut s, "login again");
        let BatchCmd::FromCalls { calls, .. } = &cmd else {
            panic!("{cmd:?}")
        };
        assert_eq!(
            calls[0].arguments["text"], "«password»",
            "History holds only the placeholder"
        );
        assert_eq!(calls[0].audit_seq, Some(typed.record));

        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = BatchLink::spawn(&rig.core, &tx);
        // The value is in the task's private part only: not in its record, not in what a
        // tool returns, not in the audit trail.
        let (task, got) = kept_task(&rig, &link, &mut rx, cmd).await;
        assert!(got.to_string().contains("«password»"), "{got}");
        let data = rig.core.paths.batch_dir();
        let task_file =
            std::fs::read_to_string(data.join("tasks").join(format!("{}.json", task.id))).unwrap();
        assert!(!task_file.contains(SECRET));
        let store = data.join("history-private").join("typed.json");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            (mode(&store), mode(store.parent().unwrap())),
            (0o600, 0o700)
        );
        assert!(std::fs::read_to_string(&store).unwrap().contains(SECRET));
        let audit = std::fs::read_to_string(rig.core.paths.audit_dir().join("audit.jsonl"))
            .unwrap_or_default();
        assert!(
            !audit.contains(SECRET),
            "the audit trail holds the password"
        );

        // Replayed: the real ten characters are typed again (the field shows 20 bullets),
        // and the run's record still says «password».
        let before = password_field_len(&rig);
        assert_eq!(before, SECRET.len());
        let rec = run(&rig, &task.id).await;
        assert_eq!(rec.steps[0].outcome, StepOutcome::Ok, "{rec:?}");
        assert_eq!(rec.steps[0].arguments["text"], "«password»");
        assert_eq!(password_field_len(&rig), before + SECRET.len(), "{rec:?}");

        // A kept password is typed into a password field or nowhere: with the e-mail field
        // focused, the task's step is refused and the e-mail field stays empty.
        let d = stdio_call(
            &rig.core,
            "android_tap_element",
            json!({"selector": {"viewId": "login_email"}}),
        )
        .await;
        assert!(d.result.is_ok());
        // The element tool taps the field it names, so make the step type into the focused one.
        let mut t = rig.core.batch().unwrap().get(&task.id).unwrap();
        t.steps[0].tool = "android_input_text".into();
        t.steps[0].arguments = json!({"text": "«password»"});
        t.id = "focused_one".into();
        rig.core.batch().unwrap().save(t).unwrap();
        let rec = run(&rig, "focused_one").await;
        assert_eq!(rec.steps[0].outcome, StepOutcome::Refused, "{rec:?}");
        let email = found(&rig, "login_email").await;
        assert!(!email.to_string().contains(SECRET), "{email}");

        // No longer kept: History is one record long now, so the next password typed drops
        // the first one's value; a task made from the first call says so and refuses to run.
        std::sync::Arc::make_mut(&mut rig.core.config.write().unwrap())
            .history
            .size = 1;
        let second = stdio_call(
            &rig.core,
            "android_input_text_into_element",
            json!({"selector": {"viewId": "login_password"}, "text": "other1"}),
        )
        .await;
        assert!(second.typed_password);
        assert_eq!(rig.core.batch().unwrap().typed_value(typed.record), None);
        let BatchCmd::FromCalls { name, mut calls } = mark_newest_and_make_a_task(&mut s, "stale")
        else {
            panic!()
        };
        calls[0].audit_seq = Some(typed.record);
        let (stale, note) = saved(&link, &mut rx, BatchCmd::FromCalls { name, calls }).await;
        assert!(note.contains("no longer kept"), "{note}");
        let before = password_field_len(&rig);
        let rec = run(&rig, &stale.id).await;
        assert_eq!(rec.steps[0].outcome, StepOutcome::Refused, "{rec:?}");
        assert!(
            rec.steps[0]
                .error
                .as_deref()
                .unwrap_or("")
                .contains("no longer"),
            "{rec:?}"
        );
        assert_eq!(password_field_len(&rig), before, "something was typed");
    }

    fn email_text(rig: &Rig) -> String {
        field_text(rig, "login_email")
    }

    /// A form filled in one call: the password's text is withheld on its own (the e-mail's is
    /// shown), History keeps the form's real fields privately, the task made from it fills the
    /// form again, and a kept password never goes where the agent could read it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_form_filled_in_one_call_keeps_its_password_field_by_field() {
        let rig = rig_with(false, Config::default_config()).await;
        login_screen(&rig).await;
        let mut events = rig.core.subscribe();
        let args = json!({"element": "login_email", "text": "bob@example.com",
                          "fields": [{"element": "login_password", "text": SECRET}]});
        let typed = stdio_call(&rig.core, "android_input_text_into_element", args).await;
        let out = typed.result.as_ref().expect("filled").json.clone();
        assert!(typed.typed_password, "{out}");
        assert_eq!(out["verified"], true, "{out}");
        assert!(!out.to_string().contains(SECRET), "{out}");
        assert_eq!(email_text(&rig), "bob@example.com");
        assert_eq!(password_field_len(&rig), SECRET.len());
        // The record: the e-mail as typed, the password as «password».
        let audit = std::fs::read_to_string(rig.core.paths.audit_dir().join("audit.jsonl"))
            .unwrap_or_default();
        assert!(
            !audit.contains(SECRET),
            "the audit trail holds the password"
        );
        let recs = rig.core.audit.recent(50);
        let rec = &recs
            .iter()
            .rev()
            .find(|r| r.tool == "android_input_text_into_element")
            .expect("on record")
            .arguments;
        assert_eq!(rec["text"], "bob@example.com", "{rec}");
        assert_eq!(rec["fields"][0]["text"], "«password»", "{rec}");
        // Every event the person's screen got: the e-mail shown, the password never.
        let mut s = state();
        let mut shown_email = false;
        while let Ok(ev) = events.try_recv() {
            let text = format!("{ev:?}");
            assert!(!text.contains(SECRET), "{text}");
            shown_email |= text.contains("bob@example.com");
            s.update(Event::Server(ev));
        }
        assert!(shown_email, "the plain field's text is shown");

        // A task made from History fills both fields again.
        let cmd = mark_newest_and_make_a_task(&mut s, "fill again");
        let (tx, mut rx) = mpsc::unbounded_channel();
        let link = BatchLink::spawn(&rig.core, &tx);
        let (task, _) = kept_task(&rig, &link, &mut rx, cmd).await;
        let rec = run(&rig, &task.id).await;
        assert_eq!(rec.steps[0].outcome, StepOutcome::Ok, "{rec:?}");
        assert_eq!(rec.steps[0].arguments["fields"][0]["text"], "«password»");
        assert_eq!(password_field_len(&rig), 2 * SECRET.len());
        assert_eq!(email_text(&rig), "bob@example.combob@example.com");

        // The same kept password pointed at the e-mail field (the task edited with its private
        // part left in place): refused before anything is typed.
        let mut t = rig.core.batch().unwrap().get(&task.id).unwrap();
        t.steps[0].arguments = json!({"element": "login_password", "text": "x",
                                      "fields": [{"element": "login_email", "text": "«password»"}]});
        t.steps[0].private = Some(json!({"fields": [{"element": "login_email", "text": SECRET}]}));
        t.id = "swapped".into();
        rig.core.batch().unwrap().save(t).unwrap();
        let before = (password_field_len(&rig), email_text(&rig));
        let rec = run(&rig, "swapped").await;
        assert_eq!(rec.steps[0].outcome, StepOutcome::Refused, "{rec:?}");
        let why = rec.steps[0].error.as_deref().unwrap_or("");
        assert!(why.contains("kept password"), "{why}");
        assert_eq!(
            (password_field_len(&rig), email_text(&rig)),
            before,
            "something was typed"
        );
    }

    /// The demo with a clickable view laid over the password field (a show-password button
    /// grown over it, a web page's decoy): a tap on the field lands on the view and leaves the
    /// focus where it was.
    fn covered_password_field() -> spock_tui::sim::device::SimDevice {
        device_rig::demo_with_login(|xml| {
            let field = xml.find(r#"resource-id="login_password""#).unwrap();
            let end = field + xml[field..].find(" />").unwrap();
            let overlay = r#"><node index="0" text="" resource-id="pw_overlay" class="android.view.View" package="com.example.shop" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[80,760][1000,910]" /></node>"#;
            format!("{}{overlay}{}", &xml[..end], &xml[end + 3..])
        })
    }

    /// A kept password goes in only once the screen shows the password field focused: with the
    /// tap on it landing elsewhere and the e-mail field focused, the step is refused before a
    /// character is typed, and the e-mail field never holds the password.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_kept_password_is_never_typed_into_the_field_that_kept_the_focus() {
        let rig =
            device_rig::rig_on(covered_password_field(), false, Config::default_config()).await;
        login_screen(&rig).await;
        // The e-mail field holds text and keeps the focus.
        let d = stdio_call(
            &rig.core,
            "android_input_text_into_element",
            json!({"element": "login_email", "text": "bob@example.com"}),
        )
        .await;
        assert!(d.result.is_ok(), "{:?}", d.result);
        // The password field holds something, so a step that clears it has keys to send.
        rig.dev.with_state(|st| {
            let ui = &mut st.top_mut().expect("the login screen").ui;
            let pw = ui
                .nodes()
                .iter()
                .position(|n| n.resource_id == "login_password");
            ui.set_text(pw.expect("the field"), "•••");
        });
        let read = stdio_call(&rig.core, "android_get_ui_tree", json!({"compact": true})).await;
        assert!(read.result.is_ok());
        for (id, args) in [
            (
                "single",
                json!({"element": "login_password", "text": "«password»", "clear": true}),
            ),
            (
                "form",
                json!({"element": "login_email", "text": "bob@example.com",
                            "fields": [{"element": "login_password", "text": "«password»"}]}),
            ),
        ] {
            let mut step =
                spock_tui::batch::Step::new("android_input_text_into_element", args.clone());
            step.private = Some(match id {
                "single" => json!({"text": SECRET}),
                _ => json!({"fields": [{"element": "login_password", "text": SECRET}]}),
            });
            let task = spock_tui::batch::Task::new(
                Some(id.into()),
                id,
                vec![step],
                spock_tui::batch::Source::History,
            );
            rig.core.batch().unwrap().save(task).unwrap();
            let rec = run(&rig, id).await;
            assert_eq!(rec.steps[0].outcome, StepOutcome::Refused, "{id}: {rec:?}");
            let why = rec.steps[0].error.as_deref().unwrap_or("");
            assert!(
                why.contains("focused field is no password field"),
                "{id}: {why}"
            );
            // Neither typed into nor cleared.
            assert_eq!(
                email_text(&rig),
                "bob@example.com",
                "{id}: the e-mail field was touched"
            );
            assert_eq!(password_field_len(&rig), 3, "{id}");
        }
    }
}

/// The attack on typing first: a password typed into the focused password field with no read
/// after it, then the same characters typed into a plain field, then a read. The read shows a
/// focused plain field holding them, but something was sent after the first text (the tap),
/// so only the second text is shown: the first stays «password».
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_after_focus_moved_never_shows_an_earlier_text() {
    let rig = rig_with(false, Config::default_config()).await;
    login_screen(&rig).await;
    let email = found(&rig, "login_email").await;
    let bounds = &email["matches"][0]["bounds"];
    let (x, y) = (
        (bounds[0].as_i64().unwrap() + bounds[2].as_i64().unwrap()) / 2,
        (bounds[1].as_i64().unwrap() + bounds[3].as_i64().unwrap()) / 2,
    );
    focus(&rig, "login_password").await;
    let mut events = rig.core.subscribe();
    let first = stdio_call(&rig.core, "android_input_text", json!({"text": SECRET})).await;
    assert!(first.result.is_ok(), "{:?}", first.result);
    // Focus moved by a tap at a point: no read of the screen in between.
    let tap = stdio_call(&rig.core, "android_tap", json!({"x": x, "y": y})).await;
    assert!(tap.result.is_ok(), "{:?}", tap.result);
    let second = stdio_call(&rig.core, "android_input_text", json!({"text": SECRET})).await;
    assert!(second.result.is_ok(), "{:?}", second.result);
    let d = stdio_call(&rig.core, "android_get_ui_tree", json!({})).await;
    assert!(d.result.is_ok(), "{:?}", d.result);
    let mut shown = Vec::new();
    while let Ok(ev) = events.try_recv() {
        if let ServerEvent::CallArguments { call_id, .. } = ev {
            shown.push(call_id);
        }
    }
    assert_eq!(
        shown,
        vec![second.call_id],
        "the first call's text was shown"
    );
}
