use tokio::io::duplex;

use super::*;
use crate::cli::placeholder::PlaceholderTarget;

#[test]
fn service_names_parse_like_adbd() {
    let shell = |mode, c: &str| {
        Ok(Service::Shell {
            mode,
            command: c.to_owned(),
        })
    };
    assert_eq!(
        Service::parse("shell:echo hi\0"),
        shell(ShellMode::Raw, "echo hi")
    );
    assert_eq!(
        Service::parse("shell,v2,TERM=xterm-256color,raw:ls -l"),
        shell(ShellMode::V2, "ls -l")
    );
    assert_eq!(
        Service::parse("shell,v2,raw:a:b"),
        shell(ShellMode::V2, "a:b")
    );
    assert_eq!(Service::parse("shell,raw:"), shell(ShellMode::Raw, ""));
    assert_eq!(
        Service::parse("exec:screencap '-p'"),
        Ok(Service::Exec {
            command: "screencap '-p'".into()
        })
    );
    assert_eq!(Service::parse("sync:"), Ok(Service::Sync));
    assert_eq!(Service::parse("framebuffer:"), Ok(Service::Framebuffer));
    assert_eq!(
        Service::parse("reboot:bootloader"),
        Ok(Service::Reboot {
            target: "bootloader".into()
        })
    );
    assert!(Service::parse("shellfish:x").is_err());
    assert!(Service::parse("tcpip:5555").is_err());
    assert!(Service::parse("").is_err());
}

async fn run_service(service: Service, target: Arc<dyn Target>, input: &[u8]) -> Vec<u8> {
    let (mut client, server) = duplex(1 << 20);
    let task = tokio::spawn(run(service, target, server));
    client.write_all(input).await.unwrap();
    let mut out = Vec::new();
    client.read_to_end(&mut out).await.unwrap();
    task.await.unwrap();
    out
}

fn target() -> Arc<dyn Target> {
    Arc::new(PlaceholderTarget::new("sim-1", "Pixel 7"))
}

#[tokio::test]
async fn shell_v2_separates_streams_and_ends_with_the_exit_packet() {
    let service = Service::parse("shell,v2,raw:echo out; nosuch").unwrap();
    let out = run_service(
        service,
        target(),
        &shellv2::encode(shellv2::ID_CLOSE_STDIN, b""),
    )
    .await;
    let mut d = shellv2::Decoder::default();
    d.push(&out);
    let mut packets = Vec::new();
    while let Some(p) = d.next_packet().unwrap() {
        packets.push((p.id, p.data.to_vec()));
    }
    assert_eq!(
        packets,
        vec![
            (shellv2::ID_STDOUT, b"out\n".to_vec()),
            (
                shellv2::ID_STDERR,
                b"/system/bin/sh: nosuch: inaccessible or not found\n".to_vec()
            ),
            (shellv2::ID_EXIT, vec![127]),
        ]
    );
}

#[tokio::test]
async fn shell_v2_stdin_reaches_the_command() {
    let mut input = shellv2::encode(shellv2::ID_STDIN, b"piped").to_vec();
    input.extend_from_slice(&shellv2::encode(
        shellv2::ID_WINDOW_SIZE_CHANGE,
        b"24x80,0x0\0",
    ));
    input.extend_from_slice(&shellv2::encode(shellv2::ID_CLOSE_STDIN, b""));
    let out = run_service(Service::parse("shell,v2:cat").unwrap(), target(), &input).await;
    assert_eq!(
        out,
        [
            &shellv2::encode(shellv2::ID_STDOUT, b"piped")[..],
            &shellv2::exit_packet(0)[..]
        ]
        .concat()
    );
}

#[tokio::test]
async fn raw_shell_merges_stderr_and_exec_drops_it() {
    let raw = run_service(
        Service::parse("shell:echo a; nosuch").unwrap(),
        target(),
        b"",
    )
    .await;
    assert_eq!(
        raw,
        b"a\n/system/bin/sh: nosuch: inaccessible or not found\n"
    );
    let exec = run_service(
        Service::parse("exec:echo a; nosuch").unwrap(),
        target(),
        b"",
    )
    .await;
    assert_eq!(exec, b"a\n");
}

#[tokio::test]
async fn interactive_shell_is_refused_with_a_message() {
    let out = run_service(Service::parse("shell,v2,raw:").unwrap(), target(), b"").await;
    let mut d = shellv2::Decoder::default();
    d.push(&out);
    let first = d.next_packet().unwrap().unwrap();
    assert_eq!(first.id, shellv2::ID_STDERR);
    assert!(String::from_utf8_lossy(&first.data).contains("interactive shell is not supported"));
    assert_eq!(d.next_packet().unwrap().unwrap().data.to_vec(), vec![1]);
}

#[tokio::test]
async fn garbage_v2_input_kills_the_command_without_panicking() {
    let out = run_service(
        Service::parse("shell,v2:sleep 30").unwrap(),
        target(),
        b"\x00\xff\xff\xff\xffjunk",
    )
    .await;
    assert!(
        out.is_empty(),
        "no exit packet for a killed command: {out:?}"
    );
}

#[tokio::test]
async fn framebuffer_sends_the_version_2_header_then_pixels() {
    let out = run_service(Service::Framebuffer, target(), b"").await;
    let word = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!((word(0), word(1), word(2)), (2, 32, 0)); // version 2, 32 bpp, sRGB
    assert_eq!((word(3), word(4), word(5)), (4 * 2 * 4, 4, 2)); // size, width, height
    assert_eq!((word(6), word(7), word(8), word(9)), (0, 8, 16, 8)); // red, blue
    assert_eq!((word(10), word(11), word(12), word(13)), (8, 8, 24, 8)); // green, alpha
    assert_eq!(out.len(), 56 + 32);
    assert_eq!(&out[56..60], &[0, 0x80, 0xff, 0xff]);
}

#[tokio::test]
async fn reboot_reaches_the_target_and_closes() {
    let t = Arc::new(PlaceholderTarget::new("sim-1", "Pixel 7"));
    let out = run_service(Service::parse("reboot:recovery").unwrap(), t.clone(), b"").await;
    assert!(out.is_empty());
    assert_eq!(t.reboots(), vec!["recovery".to_owned()]);
}
