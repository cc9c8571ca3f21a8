//! Device arrivals and departures reach the core's event channel (what the control centre and
//! any other consumer listen to), from the adb server's `host:track-devices`; so does a token
//! rotated on disk.
use crate::support::virtual_core;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use spock_tui::app::{Listen, Server};
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
    let (core, sim) =
        virtual_core::core_on_virtual_device(tmp.path(), Config::default_config(), false, dev)
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_token_reaches_the_descriptor_and_the_control_centre_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (core, _sim) = virtual_core::core_on_virtual_device(
        tmp.path(),
        Config::default_config(),
        false,
        SimDevice::demo(),
    )
    .await
    .unwrap();
    let token_file = core.paths.token_file();
    let tokens = TokenStore::open(&token_file).unwrap();
    let listen = Listen {
        http: "127.0.0.1:0".parse().unwrap(),
        any_host: false,
    };
    let server = Server::start(core.clone(), tokens.clone(), &listen)
        .await
        .unwrap();
    let mut events = core.subscribe();
    // Once HTTP answers, its task has announced itself: only the rotation's event is still to come.
    let addr = server.http_addr.expect("HTTP listens");
    let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
    conn.write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    conn.read_to_end(&mut answer).await.unwrap();
    assert!(answer.starts_with(b"HTTP/1.1 "), "{answer:?}");
    while events.try_recv().is_ok() {}
    // What `spock-tui token rotate` does, from another process.
    let new = spock_tui::config::token::rotate(&token_file).unwrap();
    // The control centre re-reads the token (and the endpoints) on a server event.
    let told = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match events.recv().await {
                Ok(ServerEvent::ServerStateChanged { running: true }) => return,
                Ok(_) => {}
                Err(e) => panic!("event channel: {e}"),
            }
        }
    })
    .await;
    assert!(told.is_ok(), "no server event after the rotation");
    assert_eq!(tokens.token(), new);
    let text = std::fs::read_to_string(core.paths.endpoint_file()).unwrap();
    let d: spock_tui::transport::socket::Descriptor = serde_json::from_str(&text).unwrap();
    assert_eq!(d.token, new, "the descriptor carries the new token");
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

/// A screenshot's image reaches the control centre as a typed field of `CallFinished`, beside a
/// result JSON that holds no image (no magic key), and the control centre's details find it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_finishes_with_its_image_beside_the_json() {
    let tmp = tempfile::tempdir().unwrap();
    let (core, _sim) = virtual_core::core_on_virtual_device(
        tmp.path(),
        Config::default_config(),
        false,
        SimDevice::demo(),
    )
    .await
    .unwrap();
    let mut events = core.subscribe();
    let origin = spock_tui::mcp::server::Origin {
        transport: spock_tui::mcp::events::Transport::Stdio,
        client: None,
        session: None,
    };
    let out = spock_tui::mcp::server::CallRequest::new(
        origin,
        "android_take_screenshot",
        serde_json::json!({"format": "png", "maxSize": 0}),
    )
    .run(&core)
    .await;
    let out = out.expect("the tool exists");
    assert_eq!(out.outcome, spock_tui::mcp::events::Outcome::Ok);
    let (result, images) = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(ServerEvent::CallFinished { result, images, .. }) = events.recv().await {
                return (result, images);
            }
        }
    })
    .await
    .expect("no CallFinished");
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].mime, "image/png");
    assert!(images[0].data.starts_with(b"\x89PNG"));
    let text = result.to_string();
    assert!(
        !text.contains("_images") && !text.contains("iVBOR"),
        "{text}"
    );
    let found = spock_tui::tui::images::of_call(&images, &result);
    assert_eq!(found.len(), 1);
    assert!(found[0].dimensions.is_some_and(|(w, h)| w > 0 && h > 0));
}
