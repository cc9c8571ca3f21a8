//! Screen recording (an MP4; not a batch recording): one `screenrecord` per device, capped at three minutes. Stopping sends
//! SIGINT (not SIGKILL) so screenrecord writes the MP4 index on the way out, pulls the file
//! into the pull directory, and deletes the remote copy only once the pull has succeeded.
//!
//! Sessions live in the core's [`Recordings`], keyed by serial: a session is only a handle on
//! a command left running on the device, and belongs to the server that started it (two
//! servers in one process, as in the tests, never see each other's).
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::Utc;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::SerialOnly;
use super::files::pull_into_dir;
use crate::device::RunningShell;
use crate::guard::shell_quote;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Branch, Level, Meta, ToolDef};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::toolsets::Toolset;

pub const TIME_LIMIT_S: u64 = 180;
/// 2 Mbit/s keeps three minutes (~45 MB) under the 50 MB pull cap.
const BIT_RATE: u32 = 2_000_000;

struct Session {
    remote: String,
    started: Instant,
    started_at: chrono::DateTime<Utc>,
    shell: RunningShell,
}

/// The screen recordings running now, one per device (kept by the core: `Core::kept`).
#[derive(Default)]
pub struct Recordings(Mutex<HashMap<String, Session>>);

impl Recordings {
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, Session>>, ToolError> {
        self.0
            .lock()
            .map_err(|_| ToolError::internal("the recording table is poisoned"))
    }

    /// Devices recording now.
    pub fn serials(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StartArgs {
    pub serial: Option<String>,
    /// Stop by itself after this many seconds (default and maximum 180).
    pub time_limit_seconds: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    pub serial: String,
    pub device_path: String,
    pub time_limit_seconds: u64,
    pub started_at: String,
}

async fn start(ctx: Ctx, a: StartArgs) -> Result<Started, ToolError> {
    let limit = a.time_limit_seconds.unwrap_or(TIME_LIMIT_S);
    if !(1..=TIME_LIMIT_S).contains(&limit) {
        return Err(ToolError::invalid_args(format!(
            "timeLimitSeconds must be 1..={TIME_LIMIT_S}"
        )));
    }
    let dev = ctx.device(a.serial.as_deref()).await?;
    let serial = dev.serial().to_string();
    if let Some(s) = ctx.core.kept::<Recordings>().lock()?.get(&serial) {
        return Err(ToolError::refused(format!(
            "{serial} is already recording to {} (since {}); call android_stop_screen_recording first",
            s.remote,
            s.started_at.to_rfc3339()
        )));
    }
    let now = Utc::now();
    let remote = format!("/sdcard/spock-rec-{}.mp4", now.format("%Y%m%d-%H%M%S-%3f"));
    let cmd = format!(
        "screenrecord --time-limit {limit} --bit-rate {BIT_RATE} {}",
        shell_quote(&remote)
    );
    let mut shell = dev.spawn_shell(&cmd).await?;
    // screenrecord fails fast (no encoder, bad path, secure display); give it a moment to.
    if let Ok(out) = shell.wait(Duration::from_millis(400)).await {
        return Err(ToolError::device(format!(
            "screenrecord exited at once on {serial} (exit {}): {}",
            out.exit_code,
            out.stderr_text().trim()
        )));
    }
    let recordings = ctx.core.kept::<Recordings>();
    let mut table = recordings.lock()?;
    if table.contains_key(&serial) {
        // Another call won the race; ours is dropped, which hangs it up.
        return Err(ToolError::refused(format!("{serial} is already recording")));
    }
    table.insert(
        serial.clone(),
        Session {
            remote: remote.clone(),
            started: Instant::now(),
            started_at: now,
            shell,
        },
    );
    Ok(Started {
        serial,
        device_path: remote,
        time_limit_seconds: limit,
        started_at: now.to_rfc3339(),
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stopped {
    pub serial: String,
    pub local_path: String,
    pub bytes: u64,
    pub duration_ms: u64,
    /// The file starts with an MP4 `ftyp` box.
    pub valid_mp4: bool,
    pub remote_deleted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

async fn stop(ctx: Ctx, a: SerialOnly) -> Result<Stopped, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let serial = dev.serial().to_string();
    let Some(mut s) = ctx.core.kept::<Recordings>().lock()?.remove(&serial) else {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!("{serial} is not recording (start with android_start_screen_recording)"),
        ));
    };
    let duration_ms = s.started.elapsed().as_millis() as u64;
    if !s.shell.is_finished() {
        // SIGINT makes screenrecord finish the MP4; a kill would leave no index.
        ctx.sh(&dev, "pkill -INT screenrecord").await?;
    }
    let mut warning = None;
    let what = format!(
        "finishing the {:.0} s recording",
        duration_ms as f64 / 1000.0
    );
    let finishing = s.shell.wait(Duration::from_secs(15));
    match crate::progress::ticking(&what, Duration::from_secs(1), finishing).await {
        Ok(_) => {}
        Err(e) => warning = Some(format!("screenrecord did not report its end: {e}")),
    }
    let name = s
        .remote
        .rsplit('/')
        .next()
        .unwrap_or("recording.mp4")
        .to_string();
    let (path, data) = pull_into_dir(&ctx, &dev, &s.remote, &name)
        .await
        .map_err(|e| {
            ToolError::new(
                e.kind.clone(),
                format!(
                    "the recording stopped but could not be pulled ({}); it is still on the device at {}",
                    e.message, s.remote
                ),
            )
        })?;
    let valid_mp4 = data.get(4..8) == Some(b"ftyp".as_slice());
    if !valid_mp4 {
        warning = Some("the file does not start with an MP4 ftyp box; it may be damaged".into());
    }
    let removed = ctx
        .sh(&dev, &format!("rm -f {}", shell_quote(&s.remote)))
        .await;
    let remote_deleted = matches!(&removed, Ok(o) if o.success());
    Ok(Stopped {
        serial,
        local_path: path.display().to_string(),
        bytes: data.len() as u64,
        duration_ms,
        valid_mp4,
        remote_deleted,
        warning,
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_start_screen_recording",
            title: "Start screen recording",
            level: Level::SafeAction,
            toolset: Toolset::Files,
            description: "Start recording the screen (one per device, stops by itself after 3 minutes).",
        }
        .def(start)
        .in_branch(Branch::Inspect),
        Meta {
            name: "android_stop_screen_recording",
            title: "Stop screen recording",
            level: Level::SafeAction,
            toolset: Toolset::Files,
            description: "Stop the recording (SIGINT, so the MP4 is complete), pull it into the pull directory, \
                          then delete the device copy.",
        }
        .def(stop)
        .in_branch(Branch::Inspect),
    ]
}
