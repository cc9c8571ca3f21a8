//! Batch tasks in-process against the virtual device: a recording replayed on a fresh device
//! ends in the same state; each step meets its own tool's checks (a destructive step with
//! nobody to approve is denied and the app stays, a disabled tool refuses), runs are
//! cancellable at once, one run at a time, and keepScreenOn restores the device's setting.
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use spock_tui::batch::{
    BatchError, BatchStatus, RunOptions, RunRecord, RunState, RunnerState, Source, Step,
    StepOutcome, Task,
};
use spock_tui::config::Config;
use spock_tui::mcp::Core;
use spock_tui::mcp::events::{Outcome, Transport};
use spock_tui::sim::device::SimDevice;

#[path = "support/device_rig.rs"]
mod device_rig;
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
async fn finished(core: &Arc<Core>, run_id: &str) -> RunRecord {
    let mut rx = core.batch.subscribe_status();
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
    core.batch.history_get(run_id).expect("run record")
}

fn task(steps: Vec<Step>) -> Task {
    Task::new(Some("t".into()), "test", steps, Source::Manual)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recording_replayed_on_a_fresh_device_reaches_the_same_state() {
    let a = rig().await;
    a.core.batch.start_recording("to the product page").unwrap();
    assert!(a.core.batch.is_recording());
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
    let recorded = a.core.batch.stop_recording().unwrap();
    assert!(!a.core.batch.is_recording());
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
        a.core.batch.get(&recorded.id).unwrap(),
        recorded,
        "saved as a normal task"
    );
    let expected = (a.dev.foreground(), a.dev.screen_id());
    assert_eq!(expected.1, "product");

    let b = rig().await;
    assert_ne!(b.dev.screen_id(), "product");
    let saved = b.core.batch.save(recorded.clone()).unwrap();
    let run_id = b
        .core
        .batch
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
    assert_eq!(linked.len(), 3);
    assert!(linked.iter().all(|r| r.transport == Transport::Batch));
    // Replaying while recording does not record the replay.
    b.core.batch.start_recording("nothing").unwrap();
    let again = b
        .core
        .batch
        .run(&b.core, recorded, origin(), RunOptions::default())
        .unwrap();
    finished(&b.core, &again).await;
    assert_eq!(
        b.core.batch.stop_recording(),
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
        .batch
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
        .batch
        .run(&r.core, task(lenient), origin(), RunOptions::default())
        .unwrap();
    let rec = finished(&r.core, &run_id).await;
    assert_eq!(rec.state, RunState::Succeeded);
    assert_eq!(rec.steps[1].outcome, StepOutcome::Denied);
    assert_eq!(rec.steps[2].outcome, StepOutcome::Ok);
    assert_eq!(
        rec.steps[2].images.len(),
        1,
        "the screenshot is kept as a file"
    );
    assert!(r.dev.is_installed("com.example.shop"));
    let zip = r.core.batch.export(&run_id, |_| {}).unwrap();
    assert_eq!(&zip[..2], b"PK");
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
        .batch
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
        .batch
        .run(
            &r.core,
            task(steps.clone()),
            origin(),
            RunOptions::default(),
        )
        .unwrap();
    assert!(matches!(
        r.core.batch.run(&r.core, task(steps), origin(), RunOptions::default()),
        Err(BatchError::Busy(id)) if id == run_id
    ));
    // Wait until the first step is done and the runner is in its pause.
    let mut rx = r.core.batch.subscribe_status();
    tokio::time::timeout(Duration::from_secs(20), async {
        while r
            .core
            .batch
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
    let status = r.core.batch.status();
    assert_eq!(status.state, RunnerState::Running);
    assert_eq!((status.current_step_index, status.total_steps), (0, 2));
    assert!(!r.core.batch.cancel("run_other"));
    let t0 = std::time::Instant::now();
    assert!(r.core.batch.cancel(&run_id));
    let rec = finished(&r.core, &run_id).await;
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "cancel waited for the pause"
    );
    assert_eq!(rec.state, RunState::Cancelled);
    assert_eq!(rec.steps[1].outcome, StepOutcome::Skipped);
    assert_eq!(r.core.batch.status(), BatchStatus::default());
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
        .batch
        .run(
            &r.core,
            task(vec![
                wait,
                Step::new("android_get_current_activity", json!({})),
            ]),
            origin(),
            RunOptions {
                keep_screen_on: true,
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
        .batch
        .run(
            &r.core,
            task(vec![Step::new(
                "android_launch_app",
                json!({"packageName": "com.example.shop"}),
            )]),
            origin(),
            RunOptions {
                keep_screen_on: true,
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
        core.batch.history().unwrap().is_empty(),
        "a run was created"
    );
    // The runner itself (a run started some other way) refuses before its first step.
    let run_id = core
        .batch
        .run(
            &core,
            task(vec![Step::new(
                "android_press_key",
                json!({"key": "HOME", "serial": a.serial()}),
            )]),
            origin(),
            RunOptions {
                keep_screen_on: true,
            },
        )
        .unwrap();
    let rec = finished(&core, &run_id).await;
    assert_eq!(rec.state, RunState::Failed, "{rec:?}");
    assert_eq!(rec.steps[0].outcome, StepOutcome::Skipped);
    assert_eq!((state(&a), state(&b)), before);
    // Naming the device (selecting it) is enough.
    *core.selected_device.write().unwrap() = Some(b.serial());
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
        .batch
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
