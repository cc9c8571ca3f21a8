//! Batch tasks in-process against the virtual device: a recording replayed on a fresh device
//! ends in the same state; each step meets its own tool's checks (a destructive step with
//! nobody to approve is denied and the app stays, a disabled tool refuses), a run with any
//! step that did not end ok is never `succeeded` anywhere it is reported, runs are cancellable
//! at once (`android_batch_cancel`: a wait ends, a confirmation is withdrawn) and stop at their
//! time limit, one run at a time, and keepScreenOn restores the device's setting.
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use spock_tui::batch::runner::RUN_END_TOOL;
use spock_tui::batch::{
    BatchError, BatchStatus, RunLog, RunOptions, RunState, RunnerState, Source, Step, StepOutcome,
    Task,
};
use spock_tui::config::Config;
use spock_tui::mcp::Core;
use spock_tui::mcp::events::{Outcome, Transport};
use spock_tui::sim::device::SimDevice;

use crate::support::device_rig;
use device_rig::{Rig, origin, rig_with, stdio_call};

async fn rig() -> Rig {
    rig_with(false, Config::default_config()).await
}

async fn ok(core: &Arc<Core>, tool: &str, args: Value) -> Value {
    let done = stdio_call(core, tool, args).await;
    match done.result {
        Ok(out) => out.json,
        Err(e) => panic!("{tool}: {}", e.message),
    }
}

/// Wait for the runner to go idle, then read the run's record.
async fn finished(core: &Arc<Core>, run_id: &str) -> RunLog {
    let mut rx = core.batch().unwrap().subscribe_status();
    tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let s: BatchStatus = rx.borrow_and_update().clone();
            if s.current_run_id.as_deref() != Some(run_id) {
                break;
            }
            rx.changed().await.expect("status channel");
        }
    })
    .await
    .expect("run finished in time");
    core.batch()
        .unwrap()
        .history_get(run_id)
        .expect("run record")
}

fn task(steps: Vec<Step>) -> Task {
    Task::new(Some("t".into()), "test", steps, Source::Manual)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recording_replayed_on_a_fresh_device_reaches_the_same_state() {
    let a = rig().await;
    a.core
        .batch()
        .unwrap()
        .start_recording("to the product page")
        .unwrap();
    assert!(a.core.batch().unwrap().is_recording());
    ok(
        &a.core,
        "android_launch_app",
        json!({"packageName": "com.example.notes"}),
    )
    .await;
    // Not recorded: a failed call, a host tool, a batch tool.
    let failed = stdio_call(
        &a.core,
        "android_launch_app",
        json!({"packageName": "com.example.missing"}),
    )
    .await;
    assert!(failed.result.is_err());
    ok(&a.core, "spock_get_status", json!({})).await;
    ok(&a.core, "android_batch_list", json!({})).await;
    ok(
        &a.core,
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    ok(
        &a.core,
        "android_open_deep_link",
        json!({"uri": "shop://product/42"}),
    )
    .await;
    let recorded = a.core.batch().unwrap().stop_recording().unwrap();
    assert!(!a.core.batch().unwrap().is_recording());
    assert_eq!(recorded.source, Source::Recorded);
    let tools: Vec<&str> = recorded.steps.iter().map(|s| s.tool.as_str()).collect();
    assert_eq!(
        tools,
        [
            "android_launch_app",
            "android_launch_app",
            "android_open_deep_link"
        ]
    );
    assert_eq!(
        a.core.batch().unwrap().get(&recorded.id).unwrap(),
        recorded,
        "saved as a normal task"
    );
    let expected = (a.dev.foreground(), a.dev.screen_id());
    assert_eq!(expected.1, "product");

    let b = rig().await;
    assert_ne!(b.dev.screen_id(), "product");
    let saved = b.core.batch().unwrap().save(recorded.clone()).unwrap();
    let run_id = b
        .core
        .batch()
        .unwrap()
        .run(&b.core, saved, origin(), RunOptions::default())
        .unwrap();
    let rec = finished(&b.core, &run_id).await;
    assert_eq!(rec.state, RunState::Succeeded, "{rec:?}");
    assert_eq!(rec.task_id.as_deref(), Some(recorded.id.as_str()));
    assert!(
        rec.steps
            .iter()
            .all(|s| s.outcome == StepOutcome::Ok && s.result.is_some())
    );
    assert_eq!((b.dev.foreground(), b.dev.screen_id()), expected);
    // Each step was audited as its own call, linked to the run.
    let linked: Vec<_> = b
        .core
        .audit
        .snapshot()
        .into_iter()
        .filter(|r| r.batch_run.as_deref() == Some(run_id.as_str()))
        .collect();
    // Three steps, then the record that closes the run.
    assert_eq!(linked.len(), 4);
    assert_eq!(linked[3].tool, RUN_END_TOOL);
    assert_eq!(linked[3].outcome, Outcome::Ok);
    assert!(linked.iter().all(|r| r.transport == Transport::Batch));
    // Replaying while recording does not record the replay.
    b.core.batch().unwrap().start_recording("nothing").unwrap();
    let again = b
        .core
        .batch()
        .unwrap()
        .run(&b.core, recorded, origin(), RunOptions::default())
        .unwrap();
    finished(&b.core, &again).await;
    assert_eq!(
        b.core.batch().unwrap().stop_recording(),
        Err(BatchError::NothingRecorded)
    );
}

/// Launch the shop, uninstall it (destructive: asks), then a screenshot.
fn launch_uninstall_screenshot() -> Vec<Step> {
    vec![
        Step::new(
            "android_launch_app",
            json!({"packageName": "com.example.shop"}),
        ),
        Step::new(
            "android_uninstall_app",
            json!({"packageName": "com.example.shop"}),
        ),
        Step::new("android_take_screenshot", json!({})),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_step_with_nobody_to_approve_is_denied_and_stops_the_run() {
    let r = rig().await;
    let steps = launch_uninstall_screenshot();
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(
            &r.core,
            task(steps.clone()),
            origin(),
            RunOptions::default(),
        )
        .unwrap();
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.state, RunState::Failed);
    let outcomes: Vec<StepOutcome> = rec.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        [StepOutcome::Ok, StepOutcome::Denied, StepOutcome::Skipped]
    );
    assert!(rec.stopped_reason.unwrap_or_default().contains("step 2"));
    assert!(r.dev.is_installed("com.example.shop"));

    // stopOnError: false skips past the denial and the run carries on.
    let mut lenient = steps;
    lenient[1].stop_on_error = Some(false);
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(&r.core, task(lenient), origin(), RunOptions::default())
        .unwrap();
    let rec = finished(&r.core, &run_id).await;
    // The run went on past the denial, and it did not succeed: a step was denied.
    assert_eq!(rec.state, RunState::Failed, "{rec:?}");
    assert_eq!(rec.failed_steps, [1]);
    assert_eq!(rec.stopped_at_step, None, "nothing was left unrun");
    let why = rec.stopped_reason.clone().unwrap_or_default();
    assert!(
        why.starts_with("step 2 (android_uninstall_app) denied"),
        "{why}"
    );
    assert_eq!(rec.steps[1].outcome, StepOutcome::Denied);
    assert_eq!(rec.steps[2].outcome, StepOutcome::Ok);
    assert_eq!(
        rec.steps[2].images.len(),
        1,
        "the screenshot is kept as a file"
    );
    assert!(r.dev.is_installed("com.example.shop"));
    let zip = r.core.batch().unwrap().export(&run_id, |_| {}).unwrap();
    assert_eq!(&zip[..2], b"PK");
    assert_reported_everywhere(
        &r.core,
        &run_id,
        "failed",
        Some("step 2 (android_uninstall_app) denied"),
    )
    .await;
}

/// Every place a run's end is reported says `state` (and the reason, when given): the status'
/// `lastRun`, the history list and get, the export's run.json and the run's closing audit record.
async fn assert_reported_everywhere(
    core: &Arc<Core>,
    run_id: &str,
    state: &str,
    why: Option<&str>,
) {
    let status = ok(core, "android_batch_status", json!({})).await;
    assert_eq!(status["lastRun"]["runId"], run_id, "{status}");
    assert_eq!(status["lastRun"]["state"], state, "{status}");
    let list = ok(core, "android_batch_history_list", json!({})).await;
    let line = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["runId"] == run_id)
        .cloned()
        .unwrap();
    assert_eq!(line["state"], state, "{line}");
    let got = ok(core, "android_batch_history_get", json!({"runId": run_id})).await;
    assert_eq!(got["state"], state, "{got}");
    let exp = ok(
        core,
        "android_batch_history_export",
        json!({"runId": run_id}),
    )
    .await;
    let zip = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        exp["zipBase64"].as_str().unwrap(),
    )
    .unwrap();
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let inner: Value = serde_json::from_reader(z.by_name("run.json").unwrap()).unwrap();
    assert_eq!(inner["state"], state);
    let end: Vec<_> = core
        .audit
        .snapshot()
        .into_iter()
        .filter(|a| a.batch_run.as_deref() == Some(run_id) && a.tool == RUN_END_TOOL)
        .collect();
    assert_eq!(end.len(), 1, "one closing record");
    let outcome = match state {
        "succeeded" => Outcome::Ok,
        "failed" => Outcome::Error,
        "cancelled" => Outcome::Cancelled,
        _ => Outcome::Timeout,
    };
    assert_eq!(end[0].outcome, outcome, "{:?}", end[0]);
    assert_eq!(end[0].result.as_ref().unwrap()["state"], state);
    if let Some(why) = why {
        for said in [
            &line["stoppedReason"],
            &got["stoppedReason"],
            &inner["stoppedReason"],
        ] {
            assert!(said.as_str().is_some_and(|s| s.contains(why)), "{said}");
        }
        assert!(end[0].error.as_deref().is_some_and(|e| e.contains(why)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_tool_refuses_inside_a_batch_too() {
    let r = rig().await;
    let tool = r
        .core
        .registry
        .get("android_take_screenshot")
        .unwrap()
        .clone();
    r.core.access.set_enabled(&tool, false);
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(
            &r.core,
            task(vec![Step::new("android_take_screenshot", json!({}))]),
            origin(),
            RunOptions::default(),
        )
        .unwrap();
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.steps[0].outcome, StepOutcome::Refused);
    assert_eq!(rec.state, RunState::Failed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_at_once_and_one_run_at_a_time() {
    let r = rig().await;
    let mut first = Step::new(
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    );
    first.wait_ms = Some(20_000);
    let steps = vec![first, Step::new("android_take_screenshot", json!({}))];
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(
            &r.core,
            task(steps.clone()),
            origin(),
            RunOptions::default(),
        )
        .unwrap();
    assert!(matches!(
        r.core.batch().unwrap().run(&r.core, task(steps), origin(), RunOptions::default()),
        Err(BatchError::Busy(id)) if id == run_id
    ));
    // Wait until the first step is done and the runner is in its pause.
    let mut rx = r.core.batch().unwrap().subscribe_status();
    tokio::time::timeout(Duration::from_secs(20), async {
        while r
            .core
            .batch()
            .unwrap()
            .history_get(&run_id)
            .map(|h| h.steps.len())
            .unwrap_or(0)
            < 1
        {
            let _ = tokio::time::timeout(Duration::from_millis(50), rx.changed()).await;
        }
    })
    .await
    .unwrap();
    let status = r.core.batch().unwrap().status();
    assert_eq!(status.state, RunnerState::Running);
    assert_eq!((status.current_step_index, status.total_steps), (0, 2));
    assert!(
        r.core
            .batch()
            .unwrap()
            .cancel(Some("run_other"), "test")
            .is_err()
    );
    let t0 = std::time::Instant::now();
    assert_eq!(
        r.core.batch().unwrap().cancel(None, "test").as_deref(),
        Ok(run_id.as_str())
    );
    let rec = finished(&r.core, &run_id).await;
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "cancel waited for the pause"
    );
    assert_eq!(rec.state, RunState::Cancelled);
    assert_eq!(
        rec.stopped_at_step,
        Some(1),
        "stopped in the pause before step 2"
    );
    assert_eq!(rec.steps[1].outcome, StepOutcome::Skipped);
    let status = r.core.batch().unwrap().status();
    assert_eq!(status.state, RunnerState::Idle);
    assert_eq!(status.current_run_id, None);
    assert_eq!(status.last_run.map(|l| l.state), Some(RunState::Cancelled));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_screen_on_restores_the_previous_setting() {
    let r = rig().await;
    let key = "global/stay_on_while_plugged_in";
    let setting = |d: &SimDevice| d.with_state(|s| s.settings.get(key).cloned());
    r.dev
        .with_state(|s| s.settings.insert(key.into(), "2".into()));
    let mut wait = Step::new(
        "android_launch_app",
        json!({"packageName": "com.example.shop"}),
    );
    wait.wait_ms = Some(300);
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(
            &r.core,
            task(vec![
                wait,
                Step::new("android_get_current_activity", json!({})),
            ]),
            origin(),
            RunOptions {
                keep_screen_on: true,
                ..RunOptions::default()
            },
        )
        .unwrap();
    tokio::time::timeout(Duration::from_secs(20), async {
        while setting(&r.dev).as_deref() != Some("7") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("stay-on turned on during the run");
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.state, RunState::Succeeded, "{:?}", rec.warnings);
    assert!(rec.keep_screen_on && rec.warnings.is_empty());
    assert_eq!(setting(&r.dev).as_deref(), Some("2"));
    // Both changes went through the call pipeline: audited as the run's, from its client.
    let stay_on: Vec<_> = r
        .core
        .audit
        .recent(50)
        .into_iter()
        .filter(|a| a.tool == "android_keep_screen_on")
        .collect();
    assert_eq!(stay_on.len(), 2, "turned on, then restored: {stay_on:?}");
    for a in &stay_on {
        assert_eq!(a.batch_run.as_deref(), Some(run_id.as_str()));
        assert_eq!(a.transport, Transport::Batch);
        assert_eq!(a.outcome, Outcome::Ok, "{a:?}");
        // The device it resolved to (`serial`, or `serial@server` when servers are named).
        let serial = r.dev.serial();
        assert!(
            a.device
                .as_deref()
                .is_some_and(|d| d == serial || d.starts_with(&format!("{serial}@"))),
            "{a:?}"
        );
    }
    assert_eq!(stay_on[0].arguments["on"], true);
    assert_eq!(stay_on[1].arguments["on"], false);
}

/// keepScreenOn is a call like any other: a person who switched it off is obeyed, and the run
/// does not start its steps without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_screen_on_meets_the_access_switches() {
    let mut cfg = Config::default_config();
    cfg.access.disabled.insert("android_keep_screen_on".into());
    let r = rig_with(false, cfg).await;
    let key = "global/stay_on_while_plugged_in";
    let before = r
        .dev
        .with_state(|s| (s.settings.get(key).cloned(), s.stay_on.clone()));
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(
            &r.core,
            task(vec![Step::new(
                "android_launch_app",
                json!({"packageName": "com.example.shop"}),
            )]),
            origin(),
            RunOptions {
                keep_screen_on: true,
                ..RunOptions::default()
            },
        )
        .unwrap();
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.state, RunState::Failed, "{rec:?}");
    assert!(
        rec.stopped_reason
            .as_deref()
            .is_some_and(|w| w.contains("keepScreenOn") && w.contains("android_keep_screen_on")),
        "{:?}",
        rec.stopped_reason
    );
    assert_eq!(rec.steps[0].outcome, StepOutcome::Skipped);
    assert_ne!(r.dev.screen_id(), "login", "no step ran");
    assert_eq!(
        r.dev
            .with_state(|s| (s.settings.get(key).cloned(), s.stay_on.clone())),
        before
    );
    let refused = r.core.audit.recent(10);
    assert!(
        refused.iter().any(|a| a.tool == "android_keep_screen_on"
            && a.outcome == Outcome::Refused
            && a.batch_run.as_deref() == Some(run_id.as_str())),
        "{refused:?}"
    );
}

/// Several devices and none selected or named: which phone would stay awake? The run is refused
/// before it starts, and no device's setting changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_screen_on_with_an_ambiguous_device_refuses_to_start() {
    let (a, b) = (SimDevice::demo(), SimDevice::demo());
    let tmp = tempfile::tempdir().unwrap();
    let sim = spock_tui::sim::cli::start(spock_tui::sim::cli::SimOptions::adb_server_only(vec![
        Arc::new(a.clone()),
        Arc::new(b.clone()),
    ]))
    .await
    .unwrap();
    let addr = sim.adb_server.unwrap();
    let core = spock_tui::app::build_core(spock_tui::app::Options {
        paths: spock_tui::config::Paths::under(tmp.path()),
        config: Config::default_config(),
        allow_all: false,
        logs: spock_tui::mcp::logbuf::LogBuffer::new(100),
        adb: vec![spock_tui::device::AdbEndpoint::new(
            addr.ip().to_string(),
            addr.port(),
        )],
        projects: vec![],
        autostart_adb: false,
        adb_explicit: true,
    })
    .unwrap();
    let key = "global/stay_on_while_plugged_in";
    let state = |d: &SimDevice| d.with_state(|s| (s.settings.get(key).cloned(), s.stay_on.clone()));
    let before = (state(&a), state(&b));
    let steps =
        json!([{"tool": "android_press_key", "arguments": {"key": "HOME", "serial": a.serial()}}]);
    let done = stdio_call(
        &core,
        "android_batch_run_inline",
        json!({"steps": steps, "keepScreenOn": true}),
    )
    .await;
    let err = done.result.expect_err("refused");
    assert!(
        err.message.contains("keepScreenOn") && err.message.contains(&a.serial()),
        "{}",
        err.message
    );
    assert!(
        core.batch().unwrap().history().unwrap().is_empty(),
        "a run was created"
    );
    // The runner itself (a run started some other way) refuses before its first step.
    let run_id = core
        .batch()
        .unwrap()
        .run(
            &core,
            task(vec![Step::new(
                "android_press_key",
                json!({"key": "HOME", "serial": a.serial()}),
            )]),
            origin(),
            RunOptions {
                keep_screen_on: true,
                ..RunOptions::default()
            },
        )
        .unwrap();
    let rec = finished(&core, &run_id).await;
    assert_eq!(rec.state, RunState::Failed, "{rec:?}");
    assert_eq!(rec.steps[0].outcome, StepOutcome::Skipped);
    assert_eq!((state(&a), state(&b)), before);
    // Naming the device (selecting it) is enough.
    core.sessions.selections.set(&origin(), b.serial()).unwrap();
    let done = stdio_call(
        &core,
        "android_batch_run_inline",
        json!({"steps": steps, "keepScreenOn": true}),
    )
    .await;
    let run_id = done.result.expect("runs").json["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let rec = finished(&core, &run_id).await;
    assert_eq!(rec.state, RunState::Succeeded, "{rec:?}");
    drop(sim);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_denying_the_destructive_step_stops_the_run() {
    let r = rig().await;
    let mut asks = r.core.confirmer.attach();
    let person = tokio::spawn(async move {
        let req = asks.recv().await.expect("the step asks");
        let seen = (
            req.ask.tool,
            req.ask.arguments["packageName"].clone(),
            req.ask.transport,
        );
        req.answer(false); // the `n` key
        seen
    });
    let steps = launch_uninstall_screenshot();
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(&r.core, task(steps), origin(), RunOptions::default())
        .unwrap();
    let rec = finished(&r.core, &run_id).await;
    let (tool, pkg, transport) = person.await.unwrap();
    assert_eq!(tool, "android_uninstall_app");
    assert_eq!(pkg, "com.example.shop");
    assert_eq!(transport, Transport::Batch);
    assert_eq!(rec.state, RunState::Failed);
    let outcomes: Vec<StepOutcome> = rec.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        [StepOutcome::Ok, StepOutcome::Denied, StepOutcome::Skipped]
    );
    assert!(r.dev.is_installed("com.example.shop"));
}

/// Start `steps` inline through the tool, as an agent does; its answer.
async fn run_inline(core: &Arc<Core>, steps: Value, extra: Value) -> Value {
    let mut args = json!({ "name": "t", "steps": steps });
    if let (Value::Object(a), Value::Object(e)) = (&mut args, extra) {
        a.extend(e);
    }
    ok(core, "android_batch_run_inline", args).await
}

/// Wait until the run has recorded `n` steps (the next one is then in flight or waited for).
async fn steps_recorded(core: &Arc<Core>, run_id: &str, n: usize) {
    tokio::time::timeout(Duration::from_secs(20), async {
        while core
            .batch()
            .unwrap()
            .history_get(run_id)
            .map(|h| h.steps.len())
            .unwrap_or(0)
            < n
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("steps ran");
}

/// A step waiting in its tool (a 60 s wait for an element that never comes) is interrupted
/// by android_batch_cancel: the run ends `cancelled` at that step, the rest skipped, and the
/// cancel answers with that state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_tool_interrupts_a_waiting_step() {
    let r = rig().await;
    let started = run_inline(
        &r.core,
        json!([
            {"tool": "android_press_key", "arguments": {"key": "HOME"}},
            {"tool": "android_wait_for_element", "arguments": {"element": "never there", "timeoutMs": 60000}},
            {"tool": "android_take_screenshot", "arguments": {}},
        ]),
        json!({}),
    )
    .await;
    let run_id = started["runId"].as_str().unwrap().to_string();
    assert_eq!(
        started["timeLimitSecs"], 600,
        "the configured maximum by default"
    );
    steps_recorded(&r.core, &run_id, 1).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let t0 = std::time::Instant::now();
    let done = stdio_call(&r.core, "android_batch_cancel", json!({ "runId": run_id })).await;
    let out = done.result.expect("cancelled").json;
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "the wait was not interrupted"
    );
    assert_eq!(out["state"], "cancelled", "{out}");
    assert_eq!(out["stoppedAtStep"], 1, "{out}");
    let rec = r.core.batch().unwrap().history_get(&run_id).unwrap();
    let outcomes: Vec<StepOutcome> = rec.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        [
            StepOutcome::Ok,
            StepOutcome::Cancelled,
            StepOutcome::Skipped
        ]
    );
    assert!(rec.failed_steps.is_empty(), "{rec:?}");
    let why = rec.stopped_reason.clone().unwrap();
    assert!(
        why.contains("cancelled by an unnamed client (stdio) at step 2 (android_wait_for_element)"),
        "{why}"
    );
    assert!(
        rec.steps[1]
            .error
            .as_deref()
            .unwrap()
            .contains("cancelled by")
    );
    assert_reported_everywhere(&r.core, &run_id, "cancelled", Some("at step 2")).await;
    // The cancel itself is a call on record, a safe action.
    let audited = r.core.audit.snapshot();
    let c = audited
        .iter()
        .find(|a| a.tool == "android_batch_cancel")
        .unwrap();
    assert_eq!(
        (c.outcome, c.level),
        (Outcome::Ok, spock_tui::mcp::registry::Level::SafeAction)
    );

    // Nothing left to cancel: each says why, and none is a success.
    let again = stdio_call(&r.core, "android_batch_cancel", json!({ "runId": run_id })).await;
    let e = again.result.expect_err("not running");
    assert!(
        e.message.contains("not running") && e.message.contains("cancelled"),
        "{}",
        e.message
    );
    let idle = stdio_call(&r.core, "android_batch_cancel", json!({})).await;
    assert!(
        idle.result
            .expect_err("idle")
            .message
            .contains("no batch run is running")
    );
    let unknown = stdio_call(
        &r.core,
        "android_batch_cancel",
        json!({"runId": "run_nope"}),
    )
    .await;
    assert!(unknown.result.is_err());
}

/// A step waiting for the person's confirmation: the cancel withdraws the request (its asker
/// stops waiting, so the control centre drops the modal), a late yes runs nothing, and the run
/// ends `cancelled` at that step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_withdraws_a_pending_confirmation() {
    let r = rig().await;
    let mut asks = r.core.confirmer.attach();
    let run_id = r
        .core
        .batch()
        .unwrap()
        .run(
            &r.core,
            task(launch_uninstall_screenshot()),
            origin(),
            RunOptions::default(),
        )
        .unwrap();
    let req = tokio::time::timeout(Duration::from_secs(20), asks.recv())
        .await
        .unwrap()
        .expect("the destructive step asks");
    assert_eq!(req.ask.tool, "android_uninstall_app");
    assert!(!req.is_abandoned());
    let out = stdio_call(&r.core, "android_batch_cancel", json!({}))
        .await
        .result
        .expect("cancelled")
        .json;
    assert_eq!(out["state"], "cancelled");
    assert_eq!(out["stoppedAtStep"], 1);
    assert!(
        req.is_abandoned(),
        "the confirmation is withdrawn, not left on screen"
    );
    req.answer(true); // too late: nobody is waiting for it
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(r.dev.is_installed("com.example.shop"));
    let rec = r.core.batch().unwrap().history_get(&run_id).unwrap();
    let outcomes: Vec<StepOutcome> = rec.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        [
            StepOutcome::Ok,
            StepOutcome::Cancelled,
            StepOutcome::Skipped
        ]
    );
    let step = r
        .core
        .audit
        .snapshot()
        .into_iter()
        .find(|a| a.tool == "android_uninstall_app")
        .unwrap();
    assert_eq!(step.outcome, Outcome::Cancelled);
    assert!(
        step.error
            .as_deref()
            .is_some_and(|e| e.contains("batch run was stopped")),
        "{step:?}"
    );
}

/// The time limit: `batch.max_run_secs` caps every run (a run asking for more is told so and
/// gets the maximum), a run may ask for less, and when it runs out the run stops as a cancel
/// does, ending `timed_out` at the step it was in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn time_limit_stops_the_run_as_timed_out() {
    let mut cfg = Config::default_config();
    cfg.batch.max_run_secs = 30;
    let r = rig_with(false, cfg).await;
    let mut long = Step::new("android_press_key", json!({"key": "HOME"}));
    long.wait_ms = Some(60_000);
    let steps = json!([long, {"tool": "android_take_screenshot", "arguments": {}}]);
    let started = run_inline(&r.core, steps.clone(), json!({ "timeLimitSecs": 1 })).await;
    assert_eq!(started["timeLimitSecs"], 1);
    assert!(started.get("note").is_none());
    let run_id = started["runId"].as_str().unwrap().to_string();
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.state, RunState::TimedOut, "{rec:?}");
    assert_eq!(rec.time_limit_secs, 1);
    assert_eq!(
        rec.stopped_at_step,
        Some(1),
        "stopped in the pause before step 2"
    );
    assert_eq!(rec.steps[1].outcome, StepOutcome::Skipped);
    assert_reported_everywhere(&r.core, &run_id, "timed_out", Some("time limit of 1 s")).await;

    // More than the maximum: capped, and said so.
    let started = run_inline(&r.core, steps, json!({ "timeLimitSecs": 100000 })).await;
    assert_eq!(started["timeLimitSecs"], 30);
    assert!(
        started["note"]
            .as_str()
            .unwrap()
            .contains("batch.max_run_secs")
    );
    let run_id = started["runId"].as_str().unwrap();
    r.core
        .batch()
        .unwrap()
        .cancel(Some(run_id), "test")
        .unwrap();
    assert_eq!(finished(&r.core, run_id).await.state, RunState::Cancelled);

    // The configured maximum applies to a run that names no limit, and interrupts a step in
    // flight (here a step waiting for an element).
    let mut cfg = Config::default_config();
    cfg.batch.max_run_secs = 1;
    let r = rig_with(false, cfg).await;
    let started = run_inline(
        &r.core,
        json!([{"tool": "android_wait_for_element", "arguments": {"element": "never there", "timeoutMs": 60000}}]),
        json!({}),
    )
    .await;
    let run_id = started["runId"].as_str().unwrap().to_string();
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.state, RunState::TimedOut, "{rec:?}");
    assert_eq!(rec.stopped_at_step, Some(0));
    assert_eq!(rec.steps[0].outcome, StepOutcome::Cancelled);
    assert!(
        rec.steps[0]
            .error
            .as_deref()
            .unwrap()
            .contains("time limit")
    );
    // Zero is not a limit.
    let zero = stdio_call(
        &r.core,
        "android_batch_run_inline",
        json!({"steps": [{"tool": "android_press_key", "arguments": {"key": "HOME"}}], "timeLimitSecs": 0}),
    )
    .await;
    assert!(zero.result.is_err());
}

/// The batch documentation's table is the registry's: every batch tool, at its declared level.
#[test]
fn the_readme_batch_table_is_the_registry() {
    let readme =
        std::fs::read_to_string(spock_tui::testdata::repo_root().join("docs/batch.md")).unwrap();
    let section = readme
        .split("# Batch tasks\n")
        .nth(1)
        .expect("docs/batch.md has the section");
    let rows: Vec<(String, String)> = section
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with("| android_batch_"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").map(|c| c.trim_matches(['|', ' '])).collect();
            (cells[0].to_string(), cells[1].to_string())
        })
        .collect();
    let reg = spock_tui::mcp::tools::catalogue();
    let mut declared: Vec<(String, String)> = reg
        .all()
        .iter()
        .filter(|t| t.name.starts_with("android_batch_"))
        .map(|t| (t.name.to_string(), t.level.label().to_lowercase()))
        .collect();
    let mut listed = rows.clone();
    declared.sort();
    listed.sort();
    assert_eq!(
        listed, declared,
        "the README's batch table and the registry disagree"
    );
}
