//! Device arrivals and departures reach the core's event channel (what the control centre and
//! any other consumer listen to), from the adb server's `host:track-devices`.
use std::time::Duration;

use spock_tui::app::{self, Listen, Server};
use spock_tui::config::Config;
use spock_tui::config::token::TokenStore;
use spock_tui::device::{DeviceEvent, DeviceState};
use spock_tui::mcp::ServerEvent;
use spock_tui::sim::device::SimDevice;
use spock_tui::sim::faults::FaultCommand;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_going_offline_and_back_is_published() {
    let tmp = tempfile::tempdir().unwrap();
    let dev = SimDevice::demo();
    let serial = dev.serial();
    let (core, sim) = app::core_on_virtual_device(tmp.path(), Config::default_config(), false, dev)
        .await
        .unwrap();
    let mut events = core.subscribe();
    let listen = Listen {
        http: "127.0.0.1:0".parse().unwrap(),
        any_host: false,
    };
    let server = Server::start(core.clone(), TokenStore::fixed("t"), &listen)
        .await
        .unwrap();
    let faults = sim.faults(&serial).unwrap();
    // the tracker's first listing announces the device
    // The tracker has seen the device once the core lists it.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while core.devices.snapshot().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the device never appeared"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    faults.apply(&FaultCommand::Offline);
    wait_for(&mut events, DeviceState::Offline).await;
    faults.apply(&FaultCommand::Online);
    wait_for(&mut events, DeviceState::Device).await;
    server.stop().await;
}

async fn wait_for(events: &mut tokio::sync::broadcast::Receiver<ServerEvent>, want: DeviceState) {
    let found = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::Device {
                    change: DeviceEvent::Changed(e) | DeviceEvent::Added(e),
                }) if e.state == want => return,
                Ok(_) => {}
                Err(e) => panic!("event channel: {e}"),
            }
        }
    })
    .await;
    assert!(
        found.is_ok(),
        "no device event with state {want:?} within 10 s"
    );
}
