//! Device services shared by both front doors: `shell:`, `shell,v2:`, `exec:`, `sync:`,
//! `framebuffer:`, `reboot:`.
//!
//! A front door parses the service name ([`Service::parse`]), decides whether to open it (fault
//! switches), then hands [`run`] a byte stream: a TCP socket after `OKAY` for the adb-server
//! door, one side of an in-memory pipe for an adbd stream. Services see only [`Target`].
use std::sync::Arc;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::faults::Faults;
use super::{DeviceIdentity, ShellChunk, ShellIo, Target};

pub mod shellv2;

/// Features this device advertises; only what is implemented.
pub const FEATURES: &str = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir";

/// One device as the front doors see it.
#[derive(Clone)]
pub struct ServedDevice {
    pub target: Arc<dyn Target>,
    pub faults: Arc<Faults>,
    pub identity: DeviceIdentity,
}

impl ServedDevice {
    pub fn new(target: Arc<dyn Target>) -> ServedDevice {
        let identity = target.identity();
        ServedDevice {
            target,
            faults: Arc::new(Faults::default()),
            identity,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellMode {
    /// `shell:` and `shell,raw:`: stdout and stderr merged, no exit code.
    Raw,
    /// `shell,v2…:`: framed stdout/stderr and an exit packet.
    V2,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    Shell { mode: ShellMode, command: String },
    Exec { command: String },
    Sync,
    Framebuffer,
    Reboot { target: String },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ServiceError {
    #[error("unknown service `{0}`")]
    Unknown(String),
}

impl Service {
    /// Parse a service name as adbd's `service_to_fd` does (a trailing NUL is tolerated).
    pub fn parse(name: &str) -> Result<Service, ServiceError> {
        let name = name.trim_end_matches('\0');
        if let Some(rest) = name.strip_prefix("shell") {
            // `shell:cmd`, `shell,v2,TERM=xterm,raw:cmd`: options up to the first ':'.
            if let Some((options, command)) = rest.split_once(':')
                && (options.is_empty() || options.starts_with(','))
            {
                let v2 = options.split(',').any(|o| o == "v2");
                let mode = if v2 { ShellMode::V2 } else { ShellMode::Raw };
                return Ok(Service::Shell {
                    mode,
                    command: command.to_owned(),
                });
            }
        } else if let Some(command) = name.strip_prefix("exec:") {
            return Ok(Service::Exec {
                command: command.to_owned(),
            });
        } else if name == "sync:" {
            return Ok(Service::Sync);
        } else if name == "framebuffer:" {
            return Ok(Service::Framebuffer);
        } else if let Some(target) = name.strip_prefix("reboot:") {
            return Ok(Service::Reboot {
                target: target.to_owned(),
            });
        }
        Err(ServiceError::Unknown(name.to_owned()))
    }

    /// The command line a `hang` switch is matched against.
    pub fn command_line(&self) -> Option<&str> {
        match self {
            Service::Shell { command, .. } | Service::Exec { command } => Some(command),
            _ => None,
        }
    }
}

/// Run an opened service to completion over `stream`, then close it.
pub async fn run<S>(service: Service, target: Arc<dyn Target>, stream: S)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let result = match service {
        Service::Shell {
            mode: ShellMode::V2,
            command,
        } => shell_v2(target, command, stream).await,
        Service::Shell {
            mode: ShellMode::Raw,
            command,
        } => raw(target, command, stream, true).await,
        Service::Exec { command } => raw(target, command, stream, false).await,
        Service::Sync => super::syncproto::serve(target, stream).await,
        Service::Framebuffer => framebuffer(target, stream).await,
        Service::Reboot { target: arg } => {
            target.reboot(&arg);
            let mut stream = stream;
            stream.shutdown().await
        }
    };
    if let Err(e) = result {
        tracing::debug!("service ended with an i/o error: {e}");
    }
}

/// Hold a service for the device time its latency profile charged (nothing when instant).
pub async fn paced(pause: std::time::Duration) {
    if !pause.is_zero() {
        tokio::time::sleep(pause).await;
    }
}

/// The `hang` switch: the service is open but never answers; it ends when the client leaves.
pub async fn hang<S: AsyncRead + Unpin>(mut stream: S) {
    let mut sink = [0u8; 4096];
    while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
}

const INTERACTIVE_REFUSED: &str =
    "spock-tui virtual device: interactive shell is not supported; pass a command\n";

async fn raw<S>(
    target: Arc<dyn Target>,
    command: String,
    stream: S,
    merge_stderr: bool,
) -> std::io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut rd, mut wr) = tokio::io::split(stream);
    if command.trim().is_empty() {
        wr.write_all(INTERACTIVE_REFUSED.as_bytes()).await?;
        return wr.shutdown().await;
    }
    let (stdin_tx, stdin_rx) = mpsc::channel::<Bytes>(16);
    // Raw streams have no close-stdin message: end of input only closes stdin.
    let input = tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = rd.read(&mut buf).await {
            if stdin_tx
                .send(Bytes::copy_from_slice(&buf[..n]))
                .await
                .is_err()
            {
                break;
            }
        }
    });
    let (_killed_tx, killed_rx) = oneshot::channel::<()>();
    let result = pump_command(
        target,
        command,
        stdin_rx,
        killed_rx,
        |chunk| match chunk {
            ShellChunk::Stdout(b) => Some(b),
            ShellChunk::Stderr(b) if merge_stderr => Some(b),
            ShellChunk::Stderr(_) => None,
        },
        &mut wr,
    )
    .await;
    input.abort();
    result?;
    wr.shutdown().await
}

async fn shell_v2<S>(target: Arc<dyn Target>, command: String, stream: S) -> std::io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut rd, mut wr) = tokio::io::split(stream);
    if command.trim().is_empty() {
        wr.write_all(&shellv2::encode(
            shellv2::ID_STDERR,
            INTERACTIVE_REFUSED.as_bytes(),
        ))
        .await?;
        wr.write_all(&shellv2::exit_packet(1)).await?;
        return wr.shutdown().await;
    }
    let (stdin_tx, stdin_rx) = mpsc::channel::<Bytes>(16);
    let (killed_tx, killed_rx) = oneshot::channel::<()>();
    let input = tokio::spawn(async move {
        let mut stdin = Some(stdin_tx);
        let mut decoder = shellv2::Decoder::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match rd.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            decoder.push(&buf[..n]);
            loop {
                match decoder.next_packet() {
                    Ok(None) => break,
                    Ok(Some(p)) if p.id == shellv2::ID_STDIN => {
                        if let Some(tx) = &stdin {
                            // The command may have stopped reading; that is not our failure.
                            let _ = tx.send(p.data).await;
                        }
                    }
                    Ok(Some(p)) if p.id == shellv2::ID_CLOSE_STDIN => stdin = None,
                    Ok(Some(_)) => {} // window size changes mean nothing without a pty
                    Err(e) => {
                        tracing::warn!("shell v2 client sent garbage: {e}");
                        let _ = killed_tx.send(());
                        return;
                    }
                }
            }
        }
        // A v2 client always sends close-stdin first; a bare EOF means it went away (SIGHUP).
        if stdin.is_some() {
            let _ = killed_tx.send(());
        }
    });
    let result = pump_command(
        target,
        command,
        stdin_rx,
        killed_rx,
        |chunk| {
            Some(match chunk {
                ShellChunk::Stdout(b) => shellv2::encode(shellv2::ID_STDOUT, &b),
                ShellChunk::Stderr(b) => shellv2::encode(shellv2::ID_STDERR, &b),
            })
        },
        &mut wr,
    )
    .await;
    input.abort();
    if let Some(code) = result? {
        wr.write_all(&shellv2::exit_packet(code)).await?;
    }
    wr.shutdown().await
}

/// Run the command, forwarding its output through `frame` until it exits (Some(code)) or the
/// client is gone (None; dropping the command's future kills it).
async fn pump_command<W, F>(
    target: Arc<dyn Target>,
    command: String,
    stdin: mpsc::Receiver<Bytes>,
    mut killed: oneshot::Receiver<()>,
    frame: F,
    wr: &mut W,
) -> std::io::Result<Option<i32>>
where
    W: AsyncWrite + Unpin,
    F: Fn(ShellChunk) -> Option<Bytes>,
{
    let (out_tx, mut out_rx) = mpsc::channel::<ShellChunk>(64);
    let command_future = target.shell(command, ShellIo { stdin, out: out_tx });
    tokio::pin!(command_future);
    let mut output_open = true;
    let mut killed_settled = false;
    let code = loop {
        tokio::select! {
            biased;
            chunk = out_rx.recv(), if output_open => match chunk {
                Some(chunk) => {
                    if let Some(bytes) = frame(chunk) {
                        wr.write_all(&bytes).await?;
                    }
                }
                None => output_open = false,
            },
            code = &mut command_future => break code,
            signal = &mut killed, if !killed_settled => {
                killed_settled = true;
                if signal.is_ok() {
                    return Ok(None);
                }
            }
        }
    };
    // Everything the command sent before it returned is already queued.
    while let Ok(chunk) = out_rx.try_recv() {
        if let Some(bytes) = frame(chunk) {
            wr.write_all(&bytes).await?;
        }
    }
    Ok(Some(code))
}

/// adb's `framebuffer_service` header, version 2 (with colorSpace), then the pixels.
pub fn framebuffer_header(width: u32, height: u32, size: u32) -> Vec<u8> {
    // version, bpp, colorSpace(sRGB=0), size, width, height, then offset/length pairs in
    // adb's order: red, blue, green, alpha. RGBA8888 byte order puts red at bit 0.
    let fields: [u32; 14] = [2, 32, 0, size, width, height, 0, 8, 16, 8, 8, 8, 24, 8];
    fields.iter().flat_map(|f| f.to_le_bytes()).collect()
}

async fn framebuffer<S: AsyncWrite + Unpin>(
    target: Arc<dyn Target>,
    mut stream: S,
) -> std::io::Result<()> {
    let fb = target.framebuffer();
    let size = u32::try_from(fb.rgba.len()).unwrap_or(u32::MAX);
    stream
        .write_all(&framebuffer_header(fb.width, fb.height, size))
        .await?;
    stream.write_all(&fb.rgba).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests;
