//! The destructive-call invariant under load: thousands of concurrent destructive calls
//! through the one call pipeline, in-process against the virtual device, with a responder
//! that denies every confirmation. Not one may succeed, every one must have been asked, and
//! the device must be unchanged. `SPOCK_LOAD_CALLS=N` for a bigger run (default 2,000 over
//! 64 tasks).
use crate::support::virtual_core;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use spock_tui::config::Config;
use spock_tui::mcp::events::{ClientId, DecidedBy, Outcome, Transport};
use spock_tui::mcp::server::{CallRequest, Origin};
use spock_tui::sim::device::SimDevice;

const TASKS: u64 = 64;

fn total_calls() -> u64 {
    std::env::var("SPOCK_LOAD_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

/// Destructive calls with arguments the tools accept, each aimed at something the demo
/// device really has, so a wrongful success would show in its state.
fn destructive_calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "android_uninstall_app",
            json!({"packageName": "com.example.notes"}),
        ),
        (
            "android_clear_app_data",
            json!({"packageName": "com.example.notes"}),
        ),
        (
            "android_run_adb_command",
            json!({"command": "pm uninstall com.example.notes", "reason": "load test"}),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_concurrent_destructive_calls_with_a_denying_responder_never_succeed() {
    let dev = SimDevice::demo();
    let tmp = tempfile::tempdir().expect("tmp");
    // Switches lifted (allow-all): only the confirmation stands between call and device.
    let (core, _sim) = virtual_core::core_on_virtual_device(
        tmp.path(),
        Config::default_config(),
        true,
        dev.clone(),
    )
    .await
    .expect("core");
    assert!(dev.is_installed("com.example.notes"));
    let before = dev.with_state(|s| format!("{:?}", s.installed));

    let asked = Arc::new(AtomicU64::new(0));
    let mut rx = core.confirmer.attach();
    let counter = asked.clone();
    let responder = tokio::spawn(async move {
        while let Some(req) = rx.recv().await {
            counter.fetch_add(1, Ordering::SeqCst);
            req.answer(false);
        }
    });

    let total = total_calls();
    let calls = Arc::new(destructive_calls());
    let started = std::time::Instant::now();
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        let (core, calls) = (core.clone(), calls.clone());
        tasks.push(tokio::spawn(async move {
            let mut tally = (0u64, 0u64, Vec::new()); // (denied, succeeded, other outcomes)
            let mut i = t;
            while i < total {
                let (tool, args) = &calls[(i as usize) % calls.len()];
                // One client per task: a client may have only a few calls waiting at once.
                let origin = Origin {
                    transport: Transport::Http,
                    client: Some(ClientId {
                        name: format!("load-{t}"),
                        version: "1".into(),
                    }),
                    session: None,
                };
                let done = tokio::time::timeout(
                    Duration::from_secs(30),
                    CallRequest::new(origin, *tool, args.clone()).run(&core),
                )
                .await
                .expect("a destructive call hung")
                .expect("known tool");
                match (&done.result, done.outcome) {
                    (Ok(_), _) | (_, Outcome::Ok) => tally.1 += 1,
                    (Err(_), Outcome::Denied) => {
                        let d = done.decision.expect("a denial carries its decision");
                        assert!(!d.approved);
                        assert_eq!(
                            d.by,
                            DecidedBy::Key,
                            "denied by the responder, not by chance"
                        );
                        tally.0 += 1;
                    }
                    (Err(e), other) => tally.2.push(format!("{tool}: {other:?} {}", e.message)),
                }
                i += TASKS;
            }
            tally
        }));
    }
    let (mut denied, mut succeeded, mut other) = (0u64, 0u64, Vec::new());
    for t in tasks {
        let (d, s, o) = t.await.expect("task");
        denied += d;
        succeeded += s;
        other.extend(o);
    }
    let elapsed = started.elapsed();
    core.confirmer.detach();
    responder.abort();

    assert_eq!(
        succeeded, 0,
        "a destructive call succeeded without approval"
    );
    assert!(
        other.is_empty(),
        "unexpected outcomes: {:?}",
        &other[..other.len().min(5)]
    );
    assert_eq!(denied, total);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        total,
        "every call was asked exactly once"
    );
    assert!(dev.is_installed("com.example.notes"));
    assert_eq!(
        dev.with_state(|s| format!("{:?}", s.installed)),
        before,
        "device state changed without an approval"
    );
    eprintln!(
        "{total} destructive calls over {TASKS} tasks: {denied} denied, 0 succeeded, in {elapsed:?}"
    );
}
