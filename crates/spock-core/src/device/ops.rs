//! What a [`Device`] does: shell (exit code, separate stderr), exec (byte-exact), long-running
//! commands, and file transfer. Every call runs under the caller's timeout, resolution of the
//! device and feature discovery included, and each opens its own adb connection.
use std::time::Duration;

use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use super::devices::{Device, Target};
use super::error::{DeviceError, bounded};
use super::record::Recorded;
use super::shell::{self, RunningShell, ShellOutput};
use super::sync::{self, RemoteStat};
use super::wire::Conn;

/// How a command is named in a timeout message: enough to recognise, never a wall of text,
/// and never what it types. The message outlives the call (a device's "not answering" reason
/// in every listing), where the call's own hiding of its typed text ([`crate::mcp::scrub`])
/// does not reach; a typing command (`input text …`, and the key presses for accented letters
/// it is joined with by `&&`) is named by its first word pair only.
fn short(cmd: &str) -> String {
    if cmd.contains("input text ")
        || cmd.starts_with("input keycombination ") && cmd.contains(" && ")
    {
        return "input text …".into();
    }
    let mut s: String = cmd.chars().take(60).collect();
    if s.len() < cmd.len() {
        s.push('…');
    }
    s
}

/// See [`Device::sending`].
struct Sent<'a> {
    dev: &'a Device,
    changes: bool,
}

impl Drop for Sent<'_> {
    fn drop(&mut self) {
        if self.changes {
            self.dev.inner.screens.bump(self.dev.serial());
        }
    }
}

impl Device {
    /// Opens `service` on the device `t` names; a refusal names what exists instead.
    async fn open_on(&self, t: &Target, service: &str) -> Result<Conn, DeviceError> {
        match t.server.open_device(&t.raw, t.transport_id, service).await {
            Ok(c) => Ok(c),
            Err(e) => Err(self.explain(e).await),
        }
    }

    /// Opens a shell for `cmd`: v2 when the device has `shell_v2`, else legacy + sentinel.
    async fn open_shell(&self, t: &Target, cmd: &str) -> Result<(Conn, bool, String), DeviceError> {
        let v2 = self.has_feature(t, "shell_v2").await?;
        let sentinel = shell::new_sentinel();
        let c = self.open_on(t, &shell::service(cmd, v2, &sentinel)).await?;
        Ok((c, v2, sentinel))
    }

    /// Runs `body` on this device under `timeout`: resolves it, tells a broken server from a
    /// broken device, and records whether the device answered (for listings).
    pub(crate) async fn call<T, F, Fut>(
        &self,
        what: &str,
        timeout: Duration,
        body: F,
    ) -> Result<T, DeviceError>
    where
        F: FnOnce(Target) -> Fut,
        Fut: Future<Output = Result<T, DeviceError>>,
    {
        let id = std::sync::OnceLock::new();
        let r = bounded(what, timeout, async {
            let t = self.resolve().await?;
            let _ = id.set(t.id());
            let server = t.server.clone();
            let raw = t.raw.clone();
            let transport_id = t.transport_id;
            match body(t).await {
                Err(e @ (DeviceError::Lost { .. } | DeviceError::Io(_))) => {
                    let t = Target {
                        server,
                        raw,
                        transport_id,
                    };
                    Err(self.classify_break(&t, e).await)
                }
                other => other,
            }
        })
        .await;
        if let Some(id) = id.get() {
            self.inner.note_outcome(id, &r);
        }
        r
    }

    pub async fn shell(&self, cmd: &str, timeout: Duration) -> Result<ShellOutput, DeviceError> {
        self.shell_with_cancel(cmd, timeout, CancellationToken::new())
            .await
    }

    /// Like [`Self::shell`]; cancelling drops the connection, which hangs up the command.
    pub async fn shell_with_cancel(
        &self,
        cmd: &str,
        timeout: Duration,
        cancel: CancellationToken,
    ) -> Result<ShellOutput, DeviceError> {
        let cap = self.inner.opts.shell_output_cap;
        let what = format!("shell `{}` on {}", short(cmd), self.serial());
        let _sent = self.sending(cmd);
        let started = std::time::Instant::now();
        let run = self.call(&what, timeout, |t| async move {
            let (mut c, v2, sentinel) = self.open_shell(&t, cmd).await?;
            if v2 {
                shell::read_v2(&mut c, &self.name_for_errors(), cap).await
            } else {
                shell::read_legacy(&mut c, &self.name_for_errors(), &sentinel, cap).await
            }
        });
        let r = tokio::select! {
            r = run => r,
            _ = cancel.cancelled() => Err(DeviceError::Cancelled),
        };
        self.record(cmd, false, started, || match &r {
            Ok(o) => Ok((o.exit_code, o.stdout.to_vec(), o.stderr.to_vec())),
            Err(e) => Err(e.to_string()),
        });
        r
    }

    /// While a capture records ([`super::Devices::record_to`]): `cmd` and what `answer` says
    /// came back (exit code, stdout, stderr; or the error), with the time since `started`.
    /// Without a recorder, `answer` is never called.
    fn record(
        &self,
        cmd: &str,
        exec: bool,
        started: std::time::Instant,
        answer: impl FnOnce() -> Result<(i32, Vec<u8>, Vec<u8>), String>,
    ) {
        let Some(rec) = self.inner.recorder.get() else {
            return;
        };
        let (exit, stdout, stderr, error) = match answer() {
            Ok((code, out, err)) => (Some(code), out, err, None),
            Err(e) => (None, Vec::new(), Vec::new(), Some(e)),
        };
        rec.push(Recorded {
            device: self.serial().to_string(),
            command: cmd.to_string(),
            exec,
            exit,
            stdout,
            stderr,
            took: started.elapsed(),
            error,
        });
    }

    /// Note a command on its way to the device; the returned guard notes it again when the
    /// command returns or is abandoned, so a dump that overlapped it is never kept.
    fn sending(&self, cmd: &str) -> Sent<'_> {
        let changes = super::screens::may_change_screen(cmd);
        if changes {
            self.inner.screens.bump(self.serial());
        }
        Sent { dev: self, changes }
    }

    /// The device's screen generation now (see [`super::screens`]).
    pub fn screen_generation(&self) -> u64 {
        self.inner.screens.generation(self.serial())
    }

    /// Keep a UI dump taken to settle after an action, started at `generation`.
    pub fn keep_settled(&self, generation: u64, dump: String) {
        self.inner.screens.keep(self.serial(), generation, dump);
    }

    /// The kept settle dump while it still answers for the screen; it stays kept.
    pub fn peek_settled(&self) -> Option<String> {
        self.inner.screens.peek(self.serial())
    }

    /// Waits for this device's turn to run `uiautomator dump`, for as long as the guard lives.
    /// Android lets one UiAutomation connect at a time: a second dump started while one runs
    /// fails with "UiAutomationService … already registered!" (two clients, or a poll and a
    /// read, would otherwise collide).
    pub async fn ui_dump_turn(&self) -> tokio::sync::OwnedMutexGuard<()> {
        self.inner
            .screens
            .dump_turn(self.serial())
            .lock_owned()
            .await
    }

    /// The kept settle dump, for one read.
    pub fn take_settled(&self) -> Option<String> {
        self.inner.screens.take(self.serial())
    }

    /// The kept settle dump, for one read the agent is shown; it then answers only the next
    /// element action's resolution ([`super::screens::ScreenLog::take_shown`]).
    pub fn take_settled_shown(&self) -> Option<String> {
        self.inner.screens.take_shown(self.serial())
    }

    /// Keep the dump a read showed the agent, for the next element action's resolution.
    pub fn keep_read(&self, generation: u64, dump: String) {
        self.inner
            .screens
            .keep_read(self.serial(), generation, dump);
    }

    /// The kept settle dump or read dump, for one element action's resolution.
    pub fn take_for_action(&self) -> Option<String> {
        self.inner.screens.take_for_action(self.serial())
    }

    /// `exec:CMD`: the command's stdout, byte for byte (no PTY, no framing, no stderr, no exit
    /// code). Fails with TooLarge as soon as more than `max_bytes` arrive.
    pub async fn exec_out(
        &self,
        cmd: &str,
        timeout: Duration,
        max_bytes: usize,
    ) -> Result<Bytes, DeviceError> {
        let what = format!("exec `{}` on {}", short(cmd), self.serial());
        let what_ = what.as_str();
        let _sent = self.sending(cmd);
        let started = std::time::Instant::now();
        let r = self
            .call(what_, timeout, |t| async move {
                let mut c = self.open_on(&t, &format!("exec:{cmd}")).await?;
                c.read_to_end_capped(max_bytes, what_).await
            })
            .await;
        self.record(cmd, true, started, || match &r {
            Ok(b) => Ok((0, b.to_vec(), Vec::new())),
            Err(e) => Err(e.to_string()),
        });
        r
    }

    /// Starts a long-running command (e.g. `screenrecord`) and returns at once; opening is
    /// bounded by the host timeout, the command itself by whoever waits on it.
    pub async fn spawn_shell(&self, cmd: &str) -> Result<RunningShell, DeviceError> {
        let what = format!("starting `{}` on {}", short(cmd), self.serial());
        let _sent = self.sending(cmd);
        let (c, v2, sentinel) = self
            .call(&what, self.inner.timeouts.host, |t| async move {
                self.open_shell(&t, cmd).await
            })
            .await?;
        Ok(RunningShell::start(
            self.name_for_errors(),
            c,
            v2,
            sentinel,
            self.inner.opts.shell_output_cap,
        ))
    }

    /// Writes `data` to `remote` with permission bits `mode` (e.g. 0o644).
    pub async fn push(
        &self,
        data: Bytes,
        remote: &str,
        mode: u32,
        timeout: Duration,
    ) -> Result<(), DeviceError> {
        let what = format!(
            "push of {} bytes to {remote} on {}",
            data.len(),
            self.serial()
        );
        // A file can change what an app shows.
        let _sent = self.sending("push");
        self.call(&what, timeout, |t| async move {
            let mut c = self.open_on(&t, "sync:").await?;
            let mtime = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as u32)
                .unwrap_or(0);
            sync::send(&mut c, &data, remote, mode, mtime).await?;
            sync::quit(&mut c).await;
            Ok(())
        })
        .await
    }

    /// Reads `remote`; TooLarge as soon as the file passes `max_bytes`, before keeping more.
    pub async fn pull(
        &self,
        remote: &str,
        max_bytes: u64,
        timeout: Duration,
    ) -> Result<Bytes, DeviceError> {
        let what = format!("pull of {remote} from {}", self.serial());
        self.call(&what, timeout, |t| async move {
            let mut c = self.open_on(&t, "sync:").await?;
            let data = sync::recv(&mut c, remote, max_bytes).await?;
            sync::quit(&mut c).await;
            Ok(data)
        })
        .await
    }

    /// `None` when nothing exists at `remote`. Uses STA2 (64-bit sizes) when the device has it.
    pub async fn stat(
        &self,
        remote: &str,
        timeout: Duration,
    ) -> Result<Option<RemoteStat>, DeviceError> {
        let what = format!("stat of {remote} on {}", self.serial());
        self.call(&what, timeout, |t| async move {
            let v2 = self.has_feature(&t, "stat_v2").await?;
            let mut c = self.open_on(&t, "sync:").await?;
            let st = sync::stat(&mut c, remote, v2).await?;
            sync::quit(&mut c).await;
            Ok(st)
        })
        .await
    }

    fn name_for_errors(&self) -> String {
        self.serial().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn a_command_is_named_short_and_a_typing_command_without_its_text() {
        assert_eq!(short("wm size"), "wm size");
        assert_eq!(short(&"x".repeat(70)), format!("{}…", "x".repeat(60)));
        let typing = crate::guard::typing_commands("hunter2 é").unwrap();
        assert_eq!(short(&typing), "input text …");
        let accent_first = crate::guard::typing_commands("éa").unwrap();
        assert_eq!(short(&accent_first), "input text …");
    }
}
