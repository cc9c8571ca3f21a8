use std::time::Duration;

use super::*;
use crate::cli::placeholder::PlaceholderTarget;
use crate::faults::FaultCommand;
use crate::services::shellv2;

async fn front_door(
    serials: &[&str],
) -> (
    std::net::SocketAddr,
    Arc<Vec<ServedDevice>>,
    CancellationToken,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let devices: Arc<Vec<ServedDevice>> = Arc::new(
        serials
            .iter()
            .map(|s| ServedDevice::new(Arc::new(PlaceholderTarget::new(s, "Pixel 7"))))
            .collect(),
    );
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, devices.clone(), stop.clone()));
    (addr, devices, stop)
}

async fn request(s: &mut TcpStream, req: &str) {
    s.write_all(format!("{:04x}{req}", req.len()).as_bytes())
        .await
        .unwrap();
}

async fn read_all(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    out
}

async fn one_shot(addr: std::net::SocketAddr, req: &str) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    request(&mut s, req).await;
    String::from_utf8_lossy(&read_all(&mut s).await).into_owned()
}

#[tokio::test]
async fn host_services_answer_and_close() {
    let (addr, _devices, _stop) = front_door(&["sim-1"]).await;
    assert_eq!(one_shot(addr, "host:version").await, "OKAY00040029");
    assert_eq!(
        one_shot(addr, "host:devices").await,
        "OKAY000dsim-1\tdevice\n"
    );
    assert_eq!(
        one_shot(addr, "host-serial:sim-1:get-state").await,
        "OKAY0006device"
    );
    assert_eq!(
        one_shot(addr, "host:frobnicate").await,
        "FAIL0014unknown host service"
    );
    assert_eq!(
        one_shot(addr, "host:transport:sim-9").await,
        "FAIL0018device 'sim-9' not found"
    );
}

#[tokio::test]
async fn transport_then_features_then_shell_v2_on_one_socket() {
    let (addr, _devices, _stop) = front_door(&["sim-1", "sim-2"]).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    request(&mut s, "host:transport:sim-2").await;
    let mut okay = [0u8; 4];
    s.read_exact(&mut okay).await.unwrap();
    assert_eq!(&okay, b"OKAY");
    request(&mut s, "shell,v2,raw:exit 42").await;
    let out = read_all(&mut s).await;
    assert_eq!(out, [&b"OKAY"[..], &shellv2::exit_packet(42)[..]].concat());

    let mut s = TcpStream::connect(addr).await.unwrap();
    request(&mut s, "host:tport:serial:sim-1").await;
    let mut reply = [0u8; 12];
    s.read_exact(&mut reply).await.unwrap();
    assert_eq!(&reply, b"OKAY\x01\0\0\0\0\0\0\0");
    request(&mut s, "host:features").await;
    assert_eq!(
        String::from_utf8(read_all(&mut s).await).unwrap(),
        format!("OKAY{:04x}{FEATURES}", FEATURES.len())
    );
}

#[tokio::test]
async fn faults_show_up_as_adb_server_failures() {
    let (addr, devices, _stop) = front_door(&["sim-1"]).await;
    devices[0].faults.apply(&FaultCommand::Refuse);
    let mut s = TcpStream::connect(addr).await.unwrap();
    request(&mut s, "host:transport-any").await;
    request(&mut s, "shell:echo").await;
    assert_eq!(read_all(&mut s).await, b"OKAYFAIL0006closed");

    devices[0].faults.apply(&FaultCommand::Offline);
    assert_eq!(
        one_shot(addr, "host:transport:sim-1").await,
        "FAIL000edevice offline"
    );
    assert_eq!(
        one_shot(addr, "host:devices").await,
        "OKAY000esim-1\toffline\n"
    );
}

#[tokio::test]
async fn track_devices_pushes_state_changes() {
    let (addr, devices, _stop) = front_door(&["sim-1"]).await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    request(&mut s, "host:track-devices").await;
    let mut first = [0u8; 4 + 4 + 13];
    s.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"OKAY000dsim-1\tdevice\n");
    devices[0].faults.apply(&FaultCommand::Offline);
    let mut update = [0u8; 4 + 14];
    tokio::time::timeout(Duration::from_secs(5), s.read_exact(&mut update))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&update, b"000esim-1\toffline\n");
}

#[tokio::test]
async fn malformed_requests_close_only_that_connection() {
    let (addr, _devices, _stop) = front_door(&["sim-1"]).await;
    for garbage in [&b"zzzzhost:version"[..], b"\xff\xfe\x00\x01", b"00"] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(garbage).await.unwrap();
        let _ = s.shutdown().await;
        // Closed without a reply; unread garbage may turn the close into a reset.
        let mut out = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
            .await
            .unwrap();
        assert!(read.is_err() || out.is_empty(), "{out:?}");
    }
    // A device service without a transport is refused with a reason.
    assert!(one_shot(addr, "shell:echo").await.starts_with("FAIL"));
    assert_eq!(one_shot(addr, "host:version").await, "OKAY00040029");
}

#[tokio::test]
async fn host_kill_stops_the_front_door() {
    let (addr, _devices, stop) = front_door(&["sim-1"]).await;
    assert_eq!(one_shot(addr, "host:kill").await, "OKAY");
    assert!(stop.is_cancelled());
}
