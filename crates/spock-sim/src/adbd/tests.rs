use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use super::packet::MAX_PAYLOAD;
use super::*;
use crate::cli::placeholder::PlaceholderTarget;
use crate::faults::FaultCommand;
use crate::services::shellv2;

async fn device() -> (std::net::SocketAddr, ServedDevice, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let device = ServedDevice::new(Arc::new(PlaceholderTarget::new("sim-1", "Pixel 7")));
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, device.clone(), stop.clone()));
    (addr, device, stop)
}

async fn next(s: &mut TcpStream) -> Packet {
    tokio::time::timeout(Duration::from_secs(5), Packet::read(s, MAX_PAYLOAD))
        .await
        .unwrap()
        .unwrap()
}

async fn handshake(addr: std::net::SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let cnxn = Packet::new(
        A_CNXN,
        A_VERSION,
        1024 * 1024,
        b"host::features=shell_v2,cmd\0".to_vec(),
    );
    s.write_all(&cnxn.encode()).await.unwrap();
    let reply = next(&mut s).await;
    assert_eq!(
        (reply.command, reply.arg0, reply.arg1),
        (A_CNXN, A_VERSION, MAX_PAYLOAD)
    );
    s
}

#[tokio::test]
async fn cnxn_banner_names_the_device_and_only_implemented_features() {
    let (addr, device, _stop) = device().await;
    let _ = handshake(addr).await;
    assert_eq!(
        banner(&device),
        "device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=Pixel 7;ro.product.device=emu64x;\
         features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir"
    );
}

#[tokio::test]
async fn shell_v2_stream_waits_for_okay_and_closes() {
    let (addr, _device, _stop) = device().await;
    let mut s = handshake(addr).await;
    s.write_all(&Packet::new(A_OPEN, 77, 0, b"shell,v2,raw:echo hi\0".to_vec()).encode())
        .await
        .unwrap();
    let okay = next(&mut s).await;
    assert_eq!((okay.command, okay.arg1), (A_OKAY, 77));
    let local = okay.arg0;
    let mut output = Vec::new();
    loop {
        let p = next(&mut s).await;
        match p.command {
            A_WRTE => {
                assert_eq!((p.arg0, p.arg1), (local, 77));
                output.extend_from_slice(&p.data);
                // Nothing more may arrive before our OKAY (one WRTE in flight).
                assert!(
                    tokio::time::timeout(
                        Duration::from_millis(50),
                        Packet::read(&mut s, MAX_PAYLOAD)
                    )
                    .await
                    .is_err()
                );
                s.write_all(&Packet::new(A_OKAY, 77, local, Bytes::new()).encode())
                    .await
                    .unwrap();
            }
            A_CLSE => break,
            other => panic!("unexpected {}", packet::command_name(other)),
        }
    }
    assert_eq!(
        output,
        [
            &shellv2::encode(shellv2::ID_STDOUT, b"hi\n")[..],
            &shellv2::exit_packet(0)[..]
        ]
        .concat()
    );
}

#[tokio::test]
async fn unknown_and_refused_services_get_clse() {
    let (addr, device, _stop) = device().await;
    let mut s = handshake(addr).await;
    s.write_all(&Packet::new(A_OPEN, 5, 0, b"tcpip:5555\0".to_vec()).encode())
        .await
        .unwrap();
    let p = next(&mut s).await;
    assert_eq!((p.command, p.arg0, p.arg1), (A_CLSE, 0, 5));
    device.faults.apply(&FaultCommand::Refuse);
    s.write_all(&Packet::new(A_OPEN, 6, 0, b"shell:echo\0".to_vec()).encode())
        .await
        .unwrap();
    let p = next(&mut s).await;
    assert_eq!((p.command, p.arg0, p.arg1), (A_CLSE, 0, 6));
}

#[tokio::test]
async fn garbage_closes_the_connection_but_not_the_listener() {
    let (addr, _device, _stop) = device().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: nothing\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(n, 0, "expected the connection to be closed");
    // A later, well-behaved client is still served.
    let _ = handshake(addr).await;
}

#[tokio::test]
async fn offline_holds_the_handshake_until_online() {
    let (addr, device, _stop) = device().await;
    device.faults.apply(&FaultCommand::Offline);
    let mut s = TcpStream::connect(addr).await.unwrap();
    let cnxn = Packet::new(A_CNXN, A_VERSION, MAX_PAYLOAD, b"host::\0".to_vec());
    s.write_all(&cnxn.encode()).await.unwrap();
    assert!(
        tokio::time::timeout(
            Duration::from_millis(200),
            Packet::read(&mut s, MAX_PAYLOAD)
        )
        .await
        .is_err()
    );
    device.faults.apply(&FaultCommand::Online);
    assert_eq!(next(&mut s).await.command, A_CNXN);
}

#[tokio::test]
async fn drop_after_cuts_the_connection_mid_message() {
    let (addr, device, _stop) = device().await;
    let mut s = handshake(addr).await;
    device.faults.apply(&FaultCommand::Drop { bytes: 30 });
    s.write_all(&Packet::new(A_OPEN, 1, 0, b"shell:echo hello\0".to_vec()).encode())
        .await
        .unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut all))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        all.len(),
        30,
        "24-byte OKAY then 6 bytes of the WRTE header"
    );
}
