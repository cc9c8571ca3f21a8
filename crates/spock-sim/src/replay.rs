//! A phone's capture served as a virtual device (`spock-tui sim --replay DIR`).
//!
//! `spock-tui doctor --capture DIR` runs, read-only, the commands the product relies on and
//! writes them with their outputs, exit codes and timings, scrubbed of what identifies the
//! person or the phone, as a [`Bundle`] (`DIR/bundle.json`). Served back, each command line
//! answers what it answered on the phone, after the time it took there (`--latency instant`
//! drops the wait): the tools that read the phone read it again, so a bug report becomes a
//! test. A command line asked several times answers its recordings in turn (the last one again
//! after that). A command the capture does not hold fails as a phone's `sh` fails on an unknown
//! command, saying so, and nothing is invented: no file, no screen image (the framebuffer is
//! black, at the size `wm size` said).
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::{
    BoxFuture, DeviceIdentity, FileStat, Framebuffer, FsError, ShellChunk, ShellIo, Target,
};

/// The bundle's format version; a newer one is refused by name.
pub const FORMAT: u32 = 1;
/// The bundle's file in its directory.
pub const FILE: &str = "bundle.json";

/// A capture of one phone.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Bundle {
    pub format: u32,
    /// spock-tui's version that captured it.
    pub captured_by: String,
    /// UTC, RFC 3339.
    pub captured_at: String,
    pub device: BundleDevice,
    /// What was replaced, by kind, and how many distinct values of each.
    pub scrubbed: Vec<Scrubbed>,
    /// What was kept as captured, in words, for the person who sends it.
    pub kept: Vec<String>,
    /// The read tools called, with their arguments and their answers (scrubbed).
    pub calls: Vec<Call>,
    /// Every device command those calls and the capture's own reads sent, in order.
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BundleDevice {
    /// The serial as scrubbed: what the replayed device calls itself.
    pub serial: String,
    pub product: String,
    pub model: String,
    pub device: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Scrubbed {
    pub kind: String,
    pub count: usize,
    /// What each became, e.g. `serial-1`.
    pub replaced_by: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Call {
    pub tool: String,
    pub arguments: serde_json::Value,
    /// The structured answer, or `null` for an error.
    pub answer: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One command as the device ran it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Command {
    /// The command line as sent (`shell,v2:` or `exec:` service body).
    pub command: String,
    /// Sent as `exec:` (stdout only, byte for byte).
    #[serde(default)]
    pub exec: bool,
    /// `None` when the command did not finish (timed out, the device went away).
    pub exit: Option<i32>,
    pub ms: u64,
    /// UTF-8 output; `stdout_base64` holds output that is not.
    #[serde(default)]
    pub stdout: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_base64: Option<String>,
    #[serde(default)]
    pub stderr: String,
    /// What the host saw instead of an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Command {
    /// The output bytes.
    pub fn stdout_bytes(&self) -> Vec<u8> {
        match &self.stdout_base64 {
            Some(b) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .unwrap_or_default(),
            None => self.stdout.as_bytes().to_vec(),
        }
    }

    /// Output as a bundle holds it: text when it is UTF-8, else base64.
    pub fn set_stdout(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                self.stdout = s.to_string();
                self.stdout_base64 = None;
            }
            Err(_) => {
                self.stdout.clear();
                self.stdout_base64 = Some(base64::engine::general_purpose::STANDARD.encode(bytes));
            }
        }
    }
}

impl Bundle {
    pub fn read(dir: &Path) -> anyhow::Result<Bundle> {
        let path = dir.join(FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
        let b: Bundle = serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{} is not a capture bundle: {e}", path.display()))?;
        if b.format != FORMAT {
            anyhow::bail!(
                "{} is a capture of format {}; this spock-tui reads format {FORMAT}",
                path.display(),
                b.format
            );
        }
        Ok(b)
    }

    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(FILE);
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(&path, text + "\n")
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))
    }
}

/// A bundle served as a device.
pub struct ReplayDevice {
    bundle: Bundle,
    /// Wait as long as the phone took.
    timing: bool,
    /// Per command line, how many times it was asked.
    asked: Mutex<HashMap<String, usize>>,
}

impl ReplayDevice {
    pub fn new(bundle: Bundle, timing: bool) -> ReplayDevice {
        ReplayDevice {
            bundle,
            timing,
            asked: Mutex::new(HashMap::new()),
        }
    }

    pub fn open(dir: &Path, timing: bool) -> anyhow::Result<ReplayDevice> {
        Ok(ReplayDevice::new(Bundle::read(dir)?, timing))
    }

    /// The recording that answers `command` now.
    fn answer(&self, command: &str) -> Option<Command> {
        let all: Vec<&Command> = self
            .bundle
            .commands
            .iter()
            .filter(|c| c.command == command && c.exit.is_some())
            .collect();
        if all.is_empty() {
            return None;
        }
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        let n = asked.entry(command.to_string()).or_insert(0);
        let pick = all[(*n).min(all.len() - 1)].clone();
        *n += 1;
        Some(pick)
    }

    /// The screen size `wm size` answered, if it was captured.
    fn screen_size(&self) -> Option<(u32, u32)> {
        let out = self
            .bundle
            .commands
            .iter()
            .find(|c| c.command.trim() == "wm size")?;
        let line = out
            .stdout
            .lines()
            .find(|l| l.starts_with("Override size:"))
            .or_else(|| out.stdout.lines().find(|l| l.starts_with("Physical size:")))?;
        let (w, h) = line.split(':').nth(1)?.trim().split_once('x')?;
        Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
    }
}

impl Target for ReplayDevice {
    fn identity(&self) -> DeviceIdentity {
        let d = &self.bundle.device;
        DeviceIdentity {
            serial: d.serial.clone(),
            product: d.product.clone(),
            model: d.model.clone(),
            device: d.device.clone(),
        }
    }

    fn shell(&self, command: String, io: ShellIo) -> BoxFuture<i32> {
        let found = self.answer(&command);
        let timing = self.timing;
        Box::pin(async move {
            let Some(c) = found else {
                let first = command.split_whitespace().next().unwrap_or("").to_string();
                let msg = format!(
                    "/system/bin/sh: {first}: not in this capture (spock-tui sim --replay \
                     answers only the commands it recorded)\n"
                );
                let _ = io.out.send(ShellChunk::Stderr(Bytes::from(msg))).await;
                return 127;
            };
            if timing && c.ms > 0 {
                tokio::time::sleep(Duration::from_millis(c.ms)).await;
            }
            let out = c.stdout_bytes();
            if !out.is_empty() {
                let _ = io.out.send(ShellChunk::Stdout(Bytes::from(out))).await;
            }
            if !c.stderr.is_empty() {
                let _ = io
                    .out
                    .send(ShellChunk::Stderr(Bytes::from(c.stderr.clone())))
                    .await;
            }
            c.exit.unwrap_or(1)
        })
    }

    fn stat(&self, _path: &str) -> Result<FileStat, FsError> {
        Err(FsError::NotFound)
    }

    fn list(&self, _path: &str) -> Result<Vec<(String, FileStat)>, FsError> {
        Err(FsError::NotFound)
    }

    fn read(&self, _path: &str) -> Result<Bytes, FsError> {
        Err(FsError::NotFound)
    }

    fn write(&self, _path: &str, _mode: u32, _mtime: u32, _data: Bytes) -> Result<(), FsError> {
        Err(FsError::ReadOnly)
    }

    fn framebuffer(&self) -> Framebuffer {
        let (width, height) = self.screen_size().unwrap_or((1, 1));
        Framebuffer {
            width,
            height,
            rgba: [0, 0, 0, 0xff].repeat((width * height) as usize),
        }
    }

    fn reboot(&self, _target: &str) {}
}

#[cfg(test)]
mod tests;
