use tokio::io::duplex;

use super::*;
use crate::cli::placeholder::PlaceholderTarget;

#[test]
fn modes_parse_like_strtoul_base_0() {
    assert_eq!(parse_mode("0777"), 0o777);
    assert_eq!(parse_mode("33188"), 33188); // adb sends the st_mode in decimal
    assert_eq!(parse_mode("0x1ff"), 0x1ff);
    assert_eq!(parse_mode("0X1FF"), 0x1ff);
    assert_eq!(parse_mode("0644junk"), 0o644);
    assert_eq!(parse_mode("08"), 0); // 8 is not an octal digit
    assert_eq!(parse_mode(" 420"), 420);
    assert_eq!(parse_mode(""), 0);
    assert_eq!(parse_mode("rw-r--r--"), 0);
    assert_eq!(parse_mode("99999999999999999999999"), u32::MAX); // saturates, never panics
}

fn request(id: &[u8; 4], path: &str) -> Vec<u8> {
    let mut v = id.to_vec();
    v.extend_from_slice(&(path.len() as u32).to_le_bytes());
    v.extend_from_slice(path.as_bytes());
    v
}

/// Run a whole session: write `input`, close, collect every byte the service sent.
async fn session(target: Arc<dyn Target>, input: Vec<u8>) -> Vec<u8> {
    let (mut client, server) = duplex(1 << 20);
    let task = tokio::spawn(serve(target, server));
    client.write_all(&input).await.unwrap();
    client.shutdown().await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    task.await.unwrap().unwrap();
    out
}

fn target() -> Arc<dyn Target> {
    Arc::new(PlaceholderTarget::new("sim-1", "Pixel 7"))
}

#[tokio::test]
async fn send_with_missing_parents_then_recv_and_stat() {
    let t = target();
    let payload: Vec<u8> = (0..150_000u32).map(|i| (i % 251) as u8).collect();
    let mut input = request(b"SEND", "/sdcard/a/b/f.bin,0640");
    for chunk in payload.chunks(SYNC_DATA_MAX as usize) {
        input.extend_from_slice(b"DATA");
        input.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        input.extend_from_slice(chunk);
    }
    // adb_client's DONE: a u64 mtime.
    input.extend_from_slice(b"DONE");
    input.extend_from_slice(&1_700_000_123u64.to_le_bytes());
    input.extend_from_slice(&request(b"STAT", "/sdcard/a/b/f.bin"));
    input.extend_from_slice(&request(b"QUIT", ""));
    let out = session(t.clone(), input).await;
    assert_eq!(&out[..8], b"OKAY\0\0\0\0");
    assert_eq!(&out[8..12], b"STAT");
    assert_eq!(
        u32::from_le_bytes(out[12..16].try_into().unwrap()),
        0o100640
    );
    assert_eq!(u32::from_le_bytes(out[16..20].try_into().unwrap()), 150_000);
    assert_eq!(
        u32::from_le_bytes(out[20..24].try_into().unwrap()),
        1_700_000_123
    );
    assert_eq!(out.len(), 24);

    let out = session(t, request(b"RECV", "/sdcard/a/b/f.bin")).await;
    let mut got = Vec::new();
    let mut rest = &out[..];
    loop {
        let (id, len) = (
            &rest[..4],
            u32::from_le_bytes(rest[4..8].try_into().unwrap()) as usize,
        );
        rest = &rest[8..];
        if id == b"DONE" {
            break;
        }
        assert_eq!(id, b"DATA");
        assert!(len <= SYNC_DATA_MAX as usize);
        got.extend_from_slice(&rest[..len]);
        rest = &rest[len..];
    }
    assert_eq!(got, payload);
}

#[tokio::test]
async fn stat_v2_reports_errno_and_list_v2_has_dot_entries() {
    let t = target();
    let mut input = request(b"STA2", "/nope");
    input.extend_from_slice(&request(b"LIS2", "/data/local"));
    let out = session(t, input).await;
    assert_eq!(&out[..4], b"STA2");
    assert_eq!(u32::from_le_bytes(out[4..8].try_into().unwrap()), 2); // ENOENT
    assert!(out[8..72].iter().all(|b| *b == 0));
    let list = &out[72..];
    assert_eq!(&list[..4], b"DNT2");
    let name_len = u32::from_le_bytes(list[72..76].try_into().unwrap()) as usize;
    assert_eq!(&list[76..76 + name_len], b".");
    assert!(list.windows(3).any(|w| w == b"tmp"));
    assert_eq!(&list[list.len() - 76..list.len() - 72], b"DONE");
}

#[tokio::test]
async fn failures_use_the_phone_wording_and_end_the_session() {
    let fail_text = |out: &[u8]| {
        assert_eq!(&out[..4], b"FAIL", "{out:?}");
        let len = u32::from_le_bytes(out[4..8].try_into().unwrap()) as usize;
        String::from_utf8(out[8..8 + len].to_vec()).unwrap()
    };
    let mut input = request(b"RECV", "/sdcard/missing");
    input.extend_from_slice(&request(b"STAT", "/")); // never answered: FAIL ends the session
    let out = session(target(), input).await;
    assert_eq!(fail_text(&out), "open failed: No such file or directory");
    assert_eq!(
        out.len(),
        8 + "open failed: No such file or directory".len()
    );

    let out = session(target(), request(b"RECV", "/sdcard")).await;
    assert_eq!(fail_text(&out), "read failed: Is a directory");

    let out = session(target(), request(b"SEND", "/sdcard/x")).await;
    assert_eq!(fail_text(&out), "missing , in ID_SEND");

    let mut input = request(b"SEND", "/sdcard/x,0644");
    input.extend_from_slice(b"DATA");
    input.extend_from_slice(&(SYNC_DATA_MAX + 1).to_le_bytes());
    assert_eq!(
        fail_text(&session(target(), input).await),
        "oversize data message"
    );

    let mut input = request(b"SEND", "/sdcard,0644");
    input.extend_from_slice(b"DONE\0\0\0\0");
    assert_eq!(
        fail_text(&session(target(), input).await),
        "couldn't create file: Is a directory"
    );

    assert_eq!(
        fail_text(&session(target(), request(b"ZZZZ", "")).await),
        "unknown command 5a5a5a5a"
    );
    let long = "/".repeat(2000);
    assert_eq!(
        fail_text(&session(target(), request(b"STAT", &long)).await),
        "path too long"
    );
}

#[tokio::test]
async fn truncated_requests_end_quietly() {
    // Half a header, then EOF: an error return, never a panic or a hang.
    let (mut client, server) = duplex(1024);
    let task = tokio::spawn(serve(target(), server));
    client.write_all(b"STAT\x10\x00").await.unwrap();
    drop(client);
    assert!(task.await.unwrap().is_err());
}
