//! Shell and exec over an open device stream.
//!
//! Shell v2 (`shell,v2,raw:CMD`) frames everything as packets of one id byte, a little-endian
//! u32 length and the data: stdin=0, stdout=1, stderr=2, exit=3 (one byte), close-stdin=4,
//! window-size=5. We close stdin at once (commands get EOF, as with `adb shell cmd </dev/null`)
//! and read until the exit packet. Devices without the `shell_v2` feature get plain `shell:`,
//! where stdout and stderr arrive merged and the exit code is recovered from a sentinel echoed
//! after the command. `exec:CMD` is the byte-exact path (no PTY, no framing) for binary output.
use bytes::{Bytes, BytesMut};
use serde::Serialize;
use tokio::task::JoinHandle;

use super::error::DeviceError;
use super::wire::Conn;

const ID_STDOUT: u8 = 1;
const ID_STDERR: u8 = 2;
const ID_EXIT: u8 = 3;
const ID_CLOSE_STDIN: u8 = 4;
/// adbd never sends packets anywhere near this; a bigger length means a broken stream.
const MAX_PACKET: usize = 16 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShellOutput {
    pub exit_code: i32,
    #[serde(serialize_with = "lossy")]
    pub stdout: Bytes,
    #[serde(serialize_with = "lossy")]
    pub stderr: Bytes,
}

fn lossy<S: serde::Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(b))
}

impl ShellOutput {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    pub fn success(&self) -> bool {
        self.exit_code == 0
    }
}

/// The service line for `cmd`, v2 or legacy. The legacy one runs the command in a subshell so
/// an `exit` inside it cannot skip the sentinel, and puts the sentinel on its own line so a
/// trailing `&` or comment in `cmd` cannot swallow it.
pub(crate) fn service(cmd: &str, v2: bool, sentinel: &str) -> String {
    if v2 {
        format!("shell,v2,raw:{cmd}")
    } else {
        format!("shell:({cmd}\n); echo \"{sentinel}$?\"")
    }
}

pub(crate) fn new_sentinel() -> String {
    format!("__SPOCK_EXIT_{}_", uuid::Uuid::new_v4().simple())
}

/// Reads a shell v2 stream to its exit packet, keeping at most `cap` bytes of output.
pub(crate) async fn read_v2(
    c: &mut Conn,
    serial: &str,
    cap: usize,
) -> Result<ShellOutput, DeviceError> {
    let close = [ID_CLOSE_STDIN, 0, 0, 0, 0];
    c.write_all(&close, "shell")
        .await
        .map_err(|_| lost(serial))?;
    let (mut out, mut err) = (BytesMut::new(), BytesMut::new());
    loop {
        let mut head = [0u8; 5];
        c.read_exact(&mut head, "shell")
            .await
            .map_err(|_| lost(serial))?;
        let [id, l0, l1, l2, l3] = head;
        let len = u32::from_le_bytes([l0, l1, l2, l3]) as usize;
        if len > MAX_PACKET {
            return Err(DeviceError::Protocol(format!(
                "shell v2 packet of {len} bytes"
            )));
        }
        let mut data = vec![0u8; len];
        c.read_exact(&mut data, "shell")
            .await
            .map_err(|_| lost(serial))?;
        match id {
            ID_STDOUT | ID_STDERR => {
                if out.len() + err.len() + len > cap {
                    return Err(DeviceError::TooLarge { limit: cap as u64 });
                }
                if id == ID_STDOUT {
                    out.extend_from_slice(&data)
                } else {
                    err.extend_from_slice(&data)
                }
            }
            ID_EXIT => {
                let code = *data.first().ok_or_else(|| {
                    DeviceError::Protocol("shell v2 exit packet without a code".into())
                })?;
                return Ok(ShellOutput {
                    exit_code: code.into(),
                    stdout: out.freeze(),
                    stderr: err.freeze(),
                });
            }
            // Window-size and anything newer: not ours to act on.
            _ => {}
        }
    }
}

/// Reads a legacy `shell:` stream to EOF and splits off the sentinel's exit code.
pub(crate) async fn read_legacy(
    c: &mut Conn,
    serial: &str,
    sentinel: &str,
    cap: usize,
) -> Result<ShellOutput, DeviceError> {
    let all = c
        .read_to_end_capped(cap.saturating_add(sentinel.len() + 8), "shell")
        .await?;
    split_sentinel(&all, sentinel).ok_or_else(|| lost(serial))
}

pub(crate) fn split_sentinel(all: &Bytes, sentinel: &str) -> Option<ShellOutput> {
    let at = find_last(all, sentinel.as_bytes())?;
    let tail = all.get(at + sentinel.len()..)?;
    let code = std::str::from_utf8(tail).ok()?.trim().parse::<i32>().ok()?;
    Some(ShellOutput {
        exit_code: code,
        stdout: all.slice(..at),
        stderr: Bytes::new(),
    })
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (0..=hay.len() - needle.len())
        .rev()
        .find(|&i| hay.get(i..i + needle.len()) == Some(needle))
}

fn lost(serial: &str) -> DeviceError {
    DeviceError::Lost {
        serial: serial.to_string(),
        what: "a shell command (no exit status came back)".into(),
    }
}

/// A command left running on the device (e.g. `screenrecord`). Its output is collected in the
/// background; dropping the handle closes the stream, which hangs up the remote command.
pub struct RunningShell {
    serial: String,
    task: Option<JoinHandle<Result<ShellOutput, DeviceError>>>,
}

impl RunningShell {
    pub(crate) fn start(
        serial: String,
        mut c: Conn,
        v2: bool,
        sentinel: String,
        cap: usize,
    ) -> Self {
        let s = serial.clone();
        let task = tokio::spawn(async move {
            if v2 {
                read_v2(&mut c, &s, cap).await
            } else {
                read_legacy(&mut c, &s, &sentinel, cap).await
            }
        });
        RunningShell {
            serial,
            task: Some(task),
        }
    }

    pub fn serial(&self) -> &str {
        &self.serial
    }

    pub fn is_finished(&self) -> bool {
        self.task.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Waits for the command to end. A timeout leaves it running, so the caller may stop it
    /// (e.g. `pkill -INT screenrecord`) and wait again.
    pub async fn wait(&mut self, timeout: std::time::Duration) -> Result<ShellOutput, DeviceError> {
        let Some(task) = self.task.as_mut() else {
            return Err(DeviceError::Protocol(
                "this command was already waited for".into(),
            ));
        };
        let joined = tokio::time::timeout(timeout, task).await.map_err(|_| {
            DeviceError::timeout(format!("waiting for a command on {}", self.serial), timeout)
        })?;
        self.task = None;
        joined.map_err(|e| DeviceError::Io(format!("shell reader task failed: {e}")))?
    }
}

impl Drop for RunningShell {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_sentinel_yields_exit_code_and_clean_stdout() {
        let s = "__SPOCK_EXIT_x_";
        let all = Bytes::from_static(b"hello\nno newline__SPOCK_EXIT_x_3\n");
        let o = split_sentinel(&all, s).unwrap();
        assert_eq!(o.exit_code, 3);
        assert_eq!(&o.stdout[..], b"hello\nno newline");
        // Old PTY-backed shells end lines with \r\n.
        let o = split_sentinel(&Bytes::from_static(b"a\r\n__SPOCK_EXIT_x_0\r\n"), s).unwrap();
        assert_eq!((o.exit_code, &o.stdout[..]), (0, &b"a\r\n"[..]));
        assert!(split_sentinel(&Bytes::from_static(b"cut off mid-outp"), s).is_none());
    }

    #[test]
    fn service_lines() {
        assert_eq!(service("ls -l", true, "S"), "shell,v2,raw:ls -l");
        assert_eq!(
            service("exit 3", false, "S"),
            "shell:(exit 3\n); echo \"S$?\""
        );
    }
}
