use super::*;
use crate::cli::placeholder::PlaceholderTarget;

fn devices(serials: &[&str]) -> Vec<Arc<dyn Target>> {
    serials
        .iter()
        .map(|s| Arc::new(PlaceholderTarget::new(s, "Pixel 7")) as Arc<dyn Target>)
        .collect()
}

#[tokio::test]
async fn start_binds_every_door_and_reports_it_as_one_json_line() {
    let loopback: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let opts = SimOptions {
        devices: devices(&["sim-1", "sim-2"]),
        adb_server: Some(loopback),
        adbd: vec![loopback],
        control: Some(loopback),
        faults: vec![(Some("sim-2".into()), FaultCommand::Delay { ms: 5 })],
    };
    let handle = start(opts).await.unwrap();
    let line = handle.json_line();
    assert!(!line.contains('\n'));
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["adbd"].as_array().unwrap().len(), 2);
    assert_eq!(v["adbd"][1]["serial"], "sim-2");
    assert_ne!(handle.adbd[0].addr, handle.adbd[1].addr);
    assert!(v["adb_server"].as_str().unwrap().starts_with("127.0.0.1:"));
    assert!(v["control"].as_str().is_some());
    assert_eq!(handle.faults("sim-2").unwrap().snapshot().delay_ms, 5);
    assert_eq!(handle.faults("sim-1").unwrap().snapshot().delay_ms, 0);

    // The control endpoint answers one JSON line per request line.
    let mut c = tokio::net::TcpStream::connect(handle.control.unwrap())
        .await
        .unwrap();
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    c.write_all(b"{\"serial\":\"sim-1\",\"fault\":\"offline\"}\n")
        .await
        .unwrap();
    let mut reply = String::new();
    tokio::io::BufReader::new(&mut c)
        .read_line(&mut reply)
        .await
        .unwrap();
    assert!(reply.contains("\"ok\":true"), "{reply}");
    assert!(handle.faults("sim-1").unwrap().is_offline());

    let server = handle.adb_server.unwrap();
    handle.stop().await;
    assert!(tokio::net::TcpStream::connect(server).await.is_err());
}

#[tokio::test]
async fn start_refuses_bad_setups() {
    let none = SimOptions {
        devices: Vec::new(),
        adb_server: None,
        adbd: Vec::new(),
        control: None,
        faults: Vec::new(),
    };
    assert!(start(none).await.is_err());
    let dup = SimOptions::adb_server_only(devices(&["sim-1", "sim-1"]));
    let err = start(dup)
        .await
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("share the serial"), "{err}");
    let mut unknown = SimOptions::adb_server_only(devices(&["sim-1"]));
    unknown
        .faults
        .push((Some("ghost".into()), FaultCommand::Offline));
    assert!(start(unknown).await.is_err());
}

#[test]
fn cli_defaults_start_both_doors_on_loopback() {
    let args = SimArgs {
        faults: vec!["sim-1:hang=screenrecord".into()],
        ..SimArgs::default()
    };
    let opts = options_from_args(&args, devices(&["sim-1"])).unwrap();
    assert_eq!(opts.adb_server, Some(LOOPBACK_ANY_PORT));
    assert_eq!(opts.adbd, vec![LOOPBACK_ANY_PORT]);
    assert_eq!(opts.control, Some(LOOPBACK_ANY_PORT));
    assert_eq!(
        opts.faults,
        vec![(
            Some("sim-1".into()),
            FaultCommand::Hang {
                command: "screenrecord".into()
            }
        )]
    );
    let bad = SimArgs {
        faults: vec!["melt".into()],
        ..SimArgs::default()
    };
    assert!(options_from_args(&bad, devices(&["sim-1"])).is_err());
}
