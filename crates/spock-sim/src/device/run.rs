//! One shell line run on the device itself to its end, with no adb in between, as the front
//! doors run it: what tests and tools that hold a [`SimDevice`] use to drive it directly.
use std::time::Duration;

use super::SimDevice;
use crate::{ShellChunk, ShellIo, Target};

/// What a line printed, apart, and its exit code.
#[derive(Debug, Clone)]
pub struct LineRun {
    pub code: i32,
    pub out: Vec<u8>,
    pub err: String,
}

impl LineRun {
    /// Its standard output as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.out).into_owned()
    }
}

impl SimDevice {
    /// Runs `line` with no standard input and collects what it prints; `None` when it did not
    /// end within `limit`.
    pub async fn run_line(&self, line: &str, limit: Duration) -> Option<LineRun> {
        let (_stdin_tx, stdin) = tokio::sync::mpsc::channel(1);
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        let ran = self.shell(line.to_string(), ShellIo { stdin, out: tx });
        let collect = async move {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            while let Some(c) = rx.recv().await {
                match c {
                    ShellChunk::Stdout(b) => out.extend_from_slice(&b),
                    ShellChunk::Stderr(b) => err.extend_from_slice(&b),
                }
            }
            (out, err)
        };
        let (code, (out, err)) = tokio::time::timeout(limit, async { tokio::join!(ran, collect) })
            .await
            .ok()?;
        Some(LineRun {
            code,
            out,
            err: String::from_utf8_lossy(&err).into_owned(),
        })
    }
}
