//! One shell line on a virtual device itself (no adb in between), as the front doors run it.
//! Included with `#[path]` by the tests that drive the device directly.
#![allow(dead_code)]
use std::time::Duration;

use spock_tui::sim::device::SimDevice;
use spock_tui::sim::{ShellChunk, ShellIo, Target};

/// What a command printed and its exit code.
pub struct Run {
    pub code: i32,
    pub out: Vec<u8>,
    pub err: String,
}

impl Run {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.out).into_owned()
    }
}

/// Runs `cmd` to its end (20 s at most) and collects stdout and stderr apart.
pub async fn sh(dev: &SimDevice, cmd: &str) -> Run {
    let (_stdin_tx, stdin) = tokio::sync::mpsc::channel(1);
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let fut = dev.shell(cmd.to_string(), ShellIo { stdin, out: tx });
    let collect = tokio::spawn(async move {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        while let Some(c) = rx.recv().await {
            match c {
                ShellChunk::Stdout(b) => out.extend_from_slice(&b),
                ShellChunk::Stderr(b) => err.extend_from_slice(&b),
            }
        }
        (out, err)
    });
    let code = tokio::time::timeout(Duration::from_secs(20), fut)
        .await
        .expect("shell command timed out");
    let (out, err) = collect.await.expect("output collected");
    Run {
        code,
        out,
        err: String::from_utf8_lossy(&err).into_owned(),
    }
}
