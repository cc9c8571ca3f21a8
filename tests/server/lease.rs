//! Device leases in the one call pipeline, in-process against the virtual device: another
//! client's destructive call on a leased device is refused before any confirmation is asked;
//! reads pass; the control centre's calls pass; a batch run acts as the client that started it.
use std::time::Duration;

use serde_json::{Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::Core;
use spock_tui::mcp::events::{ClientId, Outcome, Transport};
use spock_tui::mcp::lease::Session;
use spock_tui::mcp::server::{CallOutcome, CallRequest, Origin};

use crate::support::device_rig;
use device_rig::rig_with;

fn agent(name: &str, conn: u64) -> Origin {
    Origin {
        transport: Transport::Stdio,
        client: Some(ClientId {
            name: name.into(),
            version: "1".into(),
        }),
        session: Some(Session::connection(Transport::Stdio, conn)),
    }
}

async fn run(core: &std::sync::Arc<Core>, origin: &Origin, tool: &str, args: Value) -> CallOutcome {
    CallRequest::new(origin.clone(), tool, args)
        .run(core)
        .await
        .expect("known tool")
}

fn error(done: &CallOutcome) -> String {
    match &done.result {
        Ok(out) => panic!("expected an error, got {}", out.json),
        Err(e) => e.message.clone(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_clients_actions_are_refused_before_anyone_is_asked() {
    let mut cfg = Config::default_config();
    // Were it asked, the question would be left unanswered: denied after 2 s, not refused.
    cfg.safety.confirm_timeout_secs = 2;
    let r = rig_with(true, cfg).await;
    let (a, b) = (agent("agent-a", 9001), agent("agent-b", 9002));
    let taken = run(&r.core, &a, "android_lease_device", json!({})).await;
    assert_eq!(taken.outcome, Outcome::Ok, "{:?}", taken.result);

    // A person is at the keyboard and would approve anything: nothing must reach them.
    let mut asks = r.core.confirmer.attach();
    let refused = run(
        &r.core,
        &b,
        "android_clear_app_data",
        json!({"packageName": "com.example.shop"}),
    )
    .await;
    assert_eq!(refused.outcome, Outcome::Refused);
    assert!(refused.decision.is_none());
    let msg = error(&refused);
    assert!(msg.contains("agent-a/1 (stdio#9001)"), "{msg}");
    assert!(msg.contains("s left"), "{msg}");
    assert!(asks.try_recv().is_err(), "a confirmation was asked");
    // A safe action: refused the same way. A read: runs.
    let tap = run(&r.core, &b, "android_tap", json!({"x": 10, "y": 10})).await;
    assert_eq!(tap.outcome, Outcome::Refused, "{:?}", tap.result);
    let home = r.dev.screen_id();
    let launch = json!({"packageName": "com.example.shop"});
    let launched = run(&r.core, &b, "android_launch_app", launch.clone()).await;
    assert_eq!(launched.outcome, Outcome::Refused, "{:?}", launched.result);
    assert_eq!(
        r.dev.screen_id(),
        home,
        "the refused launch reached the device"
    );
    let read = run(&r.core, &b, "android_get_battery_info", json!({})).await;
    assert_eq!(read.outcome, Outcome::Ok, "{:?}", read.result);
    // The holder acts; so does the person at the control centre (no client connection).
    let own = run(&r.core, &a, "android_tap", json!({"x": 10, "y": 10})).await;
    assert_eq!(own.outcome, Outcome::Ok, "{:?}", own.result);
    let launched = run(&r.core, &a, "android_launch_app", launch).await;
    assert_eq!(launched.outcome, Outcome::Ok, "{:?}", launched.result);
    assert_ne!(r.dev.screen_id(), home);
    let person = Origin {
        transport: Transport::Tui,
        client: None,
        session: None,
    };
    let tui = run(&r.core, &person, "android_tap", json!({"x": 10, "y": 10})).await;
    assert_eq!(tui.outcome, Outcome::Ok, "{:?}", tui.result);
    r.core.confirmer.detach();
}

/// Batch steps run as the client that started the run: its lease lets them through, another's
/// stops them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_steps_act_as_the_client_that_started_the_run() {
    let r = rig_with(true, Config::default_config()).await;
    let (a, b) = (agent("agent-a", 9101), agent("agent-b", 9102));
    let taken = run(&r.core, &a, "android_lease_device", json!({})).await;
    assert_eq!(taken.outcome, Outcome::Ok, "{:?}", taken.result);
    let steps = json!({"steps": [{"tool": "android_tap", "arguments": {"x": 10, "y": 10}}]});
    let mut outcomes = Vec::new();
    for who in [&a, &b] {
        let started = run(&r.core, who, "android_batch_run_inline", steps.clone()).await;
        let run_id = match &started.result {
            Ok(out) => out.json["runId"].as_str().expect("runId").to_string(),
            Err(e) => panic!("{e}"),
        };
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        let step = loop {
            let found = r.core.audit.recent(50).into_iter().find(|rec| {
                rec.batch_run.as_deref() == Some(run_id.as_str()) && rec.tool == "android_tap"
            });
            if let Some(rec) = found {
                break rec;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "run {run_id} never ran its step"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        // The run ends after its step (its closing record): only then may the next start.
        while r.core.batch().unwrap().status().current_run_id.as_deref() == Some(run_id.as_str()) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "run {run_id} never ended"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        outcomes.push((step.outcome, step.error.clone()));
    }
    assert_eq!(outcomes[0].0, Outcome::Ok, "{:?}", outcomes[0]);
    assert_eq!(outcomes[1].0, Outcome::Refused, "{:?}", outcomes[1]);
    assert!(
        outcomes[1].1.as_deref().unwrap_or("").contains("agent-a/1"),
        "{:?}",
        outcomes[1]
    );
}
