//! spock-tui's per-call overhead: a read-only tool through the whole call pipeline (access,
//! audit, events, parsing) against the raw adb round trips of the same device commands, both
//! against the same virtual device behind the in-process adb-server front door.
//! Overhead = tool − raw. Run: `cargo bench --bench overhead`.
#[path = "../tests/support/virtual_core.rs"]
mod virtual_core;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use spock_tui::config::Config;
use spock_tui::mcp::events::Transport;
use spock_tui::mcp::server::{CallRequest, Origin};
use spock_tui::sim::device::SimDevice;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let tmp = tempfile::tempdir().expect("tmp");
    let (core, _sim) = rt
        .block_on(virtual_core::core_on_virtual_device(
            tmp.path(),
            Config::default_config(),
            false,
            SimDevice::demo(),
        ))
        .expect("core");
    let serial = rt.block_on(core.devices.list()).expect("devices")[0]
        .serial
        .clone();
    let dev = core.devices.device(&serial);
    let t = Duration::from_secs(10);
    let origin = Origin {
        transport: Transport::Stdio,
        client: None,
        session: None,
    };
    let mut g = c.benchmark_group("per-call");
    g.sample_size(60);
    // What android_get_current_activity sends: the device listing plus two dumps, concurrently.
    g.bench_function("raw adb: current activity commands", |b| {
        b.iter(|| {
            rt.block_on(async {
                core.devices.list().await.expect("list");
                let (a, w) = tokio::join!(
                    dev.shell("dumpsys activity activities", t),
                    dev.shell("dumpsys window", t)
                );
                (a.expect("a"), w.expect("w"))
            })
        })
    });
    g.bench_function("tool: android_get_current_activity", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = CallRequest::new(origin.clone(), "android_get_current_activity", json!({}))
                    .run(&core)
                    .await
                    .expect("tool");
                assert!(r.result.is_ok());
            })
        })
    });
    g.bench_function("raw adb: ui tree commands", |b| {
        b.iter(|| {
            rt.block_on(async {
                core.devices.list().await.expect("list");
                dev.shell("uiautomator dump /dev/tty", t)
                    .await
                    .expect("dump")
            })
        })
    });
    g.bench_function("tool: android_get_ui_tree", |b| {
        b.iter(|| {
            rt.block_on(async {
                let r = CallRequest::new(origin.clone(), "android_get_ui_tree", json!({}))
                    .run(&core)
                    .await
                    .expect("tool");
                assert!(r.result.is_ok());
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
