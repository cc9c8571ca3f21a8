//! `android_push_file` / `android_pull_file`, deliberately narrower than adb: device paths only
//! under /sdcard, /storage and /data/local/tmp (checked as written, then again after the
//! device resolves symlinks: the directory, and the file itself even when it is a dangling
//! link), push sources only from the project or the pull directory (push and pull compose into
//! an arbitrary local read otherwise), pulls only into the pull directory, staged beside their
//! final name and renamed when complete, 50 MB either way, enforced before the bytes are kept.
//!
//! Neither replaces anything unasked. A push onto an existing device file is refused, naming
//! it, unless the agent passes `overwrite: true`, and that call is destructive (the person is
//! asked; headless it is denied). A pull never replaces a file in the pull directory: a name in
//! use by other bytes gets `-2`, `-3`… before its extension.
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::paths::{private_dir, write_atomic};
use crate::device::{Device, DeviceError, RemoteStat};
use crate::guard::{self, PathRefusal, shell_quote};
use crate::mcp::claims::Target;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Branch, Level, Meta, ToolDef};
use crate::mcp::result::ToolError;
use crate::mcp::staged::Staged;
use crate::mcp::toolsets::Toolset;

pub const MAX_BYTES: u64 = 50 * 1024 * 1024;
/// Pulled files up to this size that are valid UTF-8 come back inline.
pub const INLINE_TEXT: usize = 64 * 1024;

fn path_refused(e: PathRefusal) -> ToolError {
    ToolError::refused(format!("refused: {e}"))
}

/// A device path as written: normalised and inside the allowed roots.
pub fn check_device_path(p: &str) -> Result<String, ToolError> {
    guard::device_path(p).map_err(path_refused)
}

/// A local file to push: resolved (symlinks too) inside `roots`, opened once without following
/// a link, a regular file with one link. Blocking: call off the runtime.
pub fn check_local_source(
    p: &Path,
    roots: &[PathBuf],
) -> Result<(PathBuf, std::fs::File), ToolError> {
    guard::open_local_source(p, roots).map_err(path_refused)
}

/// Where a push may read from: the project directories and the pull directory.
pub fn local_roots(ctx: &Ctx) -> Vec<PathBuf> {
    let mut roots = ctx.core.projects.dirs();
    roots.push(ctx.core.paths.pull_dir());
    roots
}

/// A file name safe to create in the pull directory.
pub fn local_name(remote: &str) -> String {
    let base = remote.rsplit('/').next().unwrap_or("");
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(120)
        .collect();
    let clean = clean.trim_start_matches('.').to_string();
    if clean.is_empty() {
        "pulled".into()
    } else {
        clean
    }
}

/// The device's own answer to where `p` leads (symlinks resolved), guarded again: a link under
/// /sdcard pointing into /data is refused here.
async fn resolve_on_device(ctx: &Ctx, dev: &Device, p: &str) -> Result<String, ToolError> {
    let q = shell_quote(p);
    let mut out = ctx.sh(dev, &format!("realpath {q}")).await?;
    if out.exit_code == 127 {
        out = ctx.sh(dev, &format!("readlink -f {q}")).await?;
    }
    let text = out.stdout_text();
    let resolved = text.trim();
    if !out.success() || resolved.is_empty() {
        return Err(ToolError::not_found(format!(
            "{p} does not exist on {}: {}",
            dev.serial(),
            out.stderr_text().trim()
        )));
    }
    guard::device_path(resolved).map_err(|e| {
        ToolError::refused(format!(
            "refused: {p} resolves on the device to {resolved}, and {e}"
        ))
    })
}

/// Where a file named `p` (which may not exist yet) really is on the device: toybox
/// `readlink -f` follows every link, a dangling last one included, and needs only the
/// directory to exist. Guarded again, so a link out of the allowed roots is refused even when
/// what it names does not exist yet (an old adbd writes through such a link; a current one
/// replaces it). A device without it (no toybox) falls back to `realpath` when the file exists.
async fn resolve_file_on_device(ctx: &Ctx, dev: &Device, p: &str) -> Result<String, ToolError> {
    let out = ctx
        .sh(dev, &format!("readlink -f {}", shell_quote(p)))
        .await?;
    let text = out.stdout_text();
    let resolved = text.trim();
    if out.exit_code == 127 || (!out.success() && resolved.is_empty()) {
        if out.exit_code != 127 {
            return Err(ToolError::not_found(format!(
                "{p} cannot be resolved on {}: {}",
                dev.serial(),
                out.stderr_text().trim()
            )));
        }
        return match dev.stat(p, ctx.timeout()).await? {
            Some(_) => resolve_on_device(ctx, dev, p).await,
            None => Ok(p.to_string()),
        };
    }
    guard::device_path(resolved).map_err(|e| {
        ToolError::refused(format!(
            "refused: {p} resolves on the device to {resolved}, and {e}"
        ))
    })
}

fn too_large(what: &str, size: u64) -> ToolError {
    ToolError::refused(format!(
        "{what} is {size} bytes; transfers are capped at {MAX_BYTES} bytes (50 MB)"
    ))
}

pub(crate) fn transfer_timeout(ctx: &Ctx, bytes: u64) -> Duration {
    // At least the command timeout, plus a second per MB for slow USB links.
    ctx.timeout() + Duration::from_secs(5 + bytes / (1024 * 1024))
}

pub(crate) use crate::mcp::staged::sha256_hex;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PushArgs {
    pub serial: Option<String>,
    /// A file in the project (relative paths are looked up there) or the pull directory.
    pub local_path: String,
    /// Destination under /sdcard, /storage or /data/local/tmp (a directory keeps the file name).
    pub device_path: String,
    /// Replace an existing file there (default false: refused). Replacing asks the person.
    #[serde(default)]
    pub overwrite: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pushed {
    pub serial: String,
    pub local_path: String,
    pub device_path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// Where a push lands, found on the device as the push itself finds it, and what is there now.
struct PushTarget {
    dev: Device,
    /// Every link resolved, guarded.
    path: String,
    existing: Option<RemoteStat>,
}

async fn push_target(ctx: &Ctx, a: &PushArgs, source: &Path) -> Result<PushTarget, ToolError> {
    let wanted = check_device_path(&a.device_path)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    let into_dir = dev
        .stat(&wanted, ctx.timeout())
        .await?
        .is_some_and(|s| s.is_dir());
    let (parent, name) = if into_dir {
        let name = source
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (wanted.clone(), name)
    } else {
        match wanted.rsplit_once('/') {
            Some((p, n)) if !n.is_empty() => (
                if p.is_empty() {
                    "/".into()
                } else {
                    p.to_string()
                },
                n.to_string(),
            ),
            _ => return Err(ToolError::invalid_args("devicePath names no file")),
        }
    };
    let dir = resolve_on_device(ctx, &dev, &parent).await?;
    let named = check_device_path(&format!("{dir}/{name}"))?;
    // The name itself may be a link out of the allowed roots, existing or dangling.
    let path = resolve_file_on_device(ctx, &dev, &named).await?;
    let existing = dev.stat(&path, ctx.timeout()).await?;
    if existing.as_ref().is_some_and(RemoteStat::is_dir) {
        return Err(ToolError::invalid_args(format!(
            "{path} is a directory on {}; name a file",
            dev.serial()
        )));
    }
    Ok(PushTarget {
        dev,
        path,
        existing,
    })
}

fn describe(st: &RemoteStat) -> String {
    let when = chrono::DateTime::from_timestamp(st.mtime, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| "at an unknown time".into());
    format!("{} bytes, modified {when}", st.size)
}

fn exists_refusal(t: &PushTarget, st: &RemoteStat) -> ToolError {
    ToolError::refused(format!(
        "refused: {} already exists on {} ({}); android_push_file does not replace a file \
         unasked. Push to a new name, or pass overwrite: true to replace it (the person at the \
         keyboard is asked first).",
        t.path,
        t.dev.serial(),
        describe(st)
    ))
    .with_details(serde_json::json!({ "existing": t.path }))
}

/// Reads a local file once, for the call's checks and its run alike ([`Staged`]).
pub(crate) async fn stage_source(ctx: &Ctx, local_path: &str) -> Result<Staged, ToolError> {
    let roots = local_roots(ctx);
    let local = PathBuf::from(local_path);
    // Read and hashed off the runtime: up to 50 MB.
    tokio::task::spawn_blocking(move || {
        read_source(&local, &roots).map(|(source, data)| Staged::new(source, data))
    })
    .await
    .map_err(|e| ToolError::internal(format!("file reader failed: {e}")))?
}

/// The bytes the call's checks read (and the person was shown), else read now: a call
/// nobody was asked about.
pub(crate) async fn staged_or_read(ctx: &Ctx, local_path: &str) -> Result<Staged, ToolError> {
    match ctx.staged.take() {
        Some(s) => Ok(s),
        None => stage_source(ctx, local_path).await,
    }
}

/// A call that waits for a person keeps its bytes in a private copy meanwhile.
pub(crate) async fn keep_for_approval(ctx: &Ctx, mut s: Staged) -> Result<Staged, ToolError> {
    let dir = ctx.core.paths.staging_dir();
    let call_id = ctx.call_id;
    tokio::task::spawn_blocking(move || s.keep_private(&dir, call_id).map(|()| s))
        .await
        .map_err(|e| ToolError::internal(format!("file stager failed: {e}")))?
}

/// The bytes to send, off the runtime (a private copy is read back and checked).
pub(crate) async fn approved_bytes(mut s: Staged) -> Result<(Staged, Vec<u8>), ToolError> {
    tokio::task::spawn_blocking(move || s.take_bytes().map(|d| (s, d)))
        .await
        .map_err(|e| ToolError::internal(format!("file reader failed: {e}")))?
}

/// A push onto an existing file destroys it: refused without `overwrite`, destructive with it.
/// The source is read here, once: the person is shown its size and digest, and the push sends
/// exactly those bytes.
async fn push_escalation(ctx: Ctx, a: PushArgs) -> Result<Option<String>, ToolError> {
    // The checks that need no device come first, as in the push itself.
    check_device_path(&a.device_path)?;
    let staged = stage_source(&ctx, &a.local_path).await?;
    let t = push_target(&ctx, &a, &staged.source).await?;
    let why = match &t.existing {
        None => None,
        Some(st) if !a.overwrite => return Err(exists_refusal(&t, st)),
        Some(st) => Some(format!(
            "overwrites {} on {} ({}) with {} ({}): what is there now cannot be brought back",
            t.path,
            t.dev.serial(),
            describe(st),
            staged.source.display(),
            staged.describe()
        )),
    };
    let staged = if why.is_some() {
        keep_for_approval(&ctx, staged).await?
    } else {
        staged
    };
    ctx.staged.put(staged);
    Ok(why)
}

async fn push(ctx: Ctx, a: PushArgs) -> Result<Pushed, ToolError> {
    check_device_path(&a.device_path)?;
    let staged = staged_or_read(&ctx, &a.local_path).await?;
    let source = staged.source.clone();
    let mut t = push_target(&ctx, &a, &source).await?;
    // Nothing else of ours creates this file between the last look and the write: a second
    // push to the same new path waits here, then finds the file and is refused or asks.
    let _claim = ctx
        .core
        .sessions
        .claims
        .claim(&device_key(&ctx, &t.dev), Target::File(&t.path))
        .await;
    t.existing = t.dev.stat(&t.path, ctx.timeout()).await?;
    if let Some(st) = &t.existing {
        if !a.overwrite {
            return Err(exists_refusal(&t, st));
        }
        if !ctx.approved {
            // It appeared after the call was checked: nobody approved replacing it.
            return Err(ToolError::refused(format!(
                "refused: {} appeared on {} while this call was being checked; it was not \
                 replaced. Call again to replace it (the person is asked).",
                t.path,
                t.dev.serial()
            )));
        }
    }
    let (staged, data) = approved_bytes(staged).await?;
    let (len, sha256) = (staged.len, staged.sha256.clone());
    let pushing = t.dev.push(
        Bytes::from(data),
        &t.path,
        0o644,
        transfer_timeout(&ctx, len),
    );
    crate::progress::transfer(format!("push to {}", t.path), len, pushing).await?;
    Ok(Pushed {
        serial: t.dev.serial().to_string(),
        local_path: source.display().to_string(),
        device_path: t.path,
        bytes: len,
        sha256,
    })
}

/// The device as claims tell targets apart: its identity when known (every name of one phone
/// is one device), else its full name.
pub(crate) fn device_key(ctx: &Ctx, dev: &Device) -> String {
    ctx.core
        .devices
        .identity(dev.serial())
        .unwrap_or_else(|| dev.serial().to_string())
}

/// Resolves, opens once and reads a push source from that handle, refusing before reading
/// more than the cap.
pub(crate) fn read_source(
    local: &Path,
    roots: &[PathBuf],
) -> Result<(PathBuf, Vec<u8>), ToolError> {
    use std::io::Read;
    let (source, f) = check_local_source(local, roots)?;
    let meta = f
        .metadata()
        .map_err(|e| ToolError::not_found(format!("{}: {e}", source.display())))?;
    if meta.len() > MAX_BYTES {
        return Err(too_large(&source.display().to_string(), meta.len()));
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    // A file growing while it is read is still held to the cap.
    f.take(MAX_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| ToolError::internal(format!("reading {}: {e}", source.display())))?;
    if data.len() as u64 > MAX_BYTES {
        return Err(too_large(&source.display().to_string(), data.len() as u64));
    }
    Ok((source, data))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PullArgs {
    pub serial: Option<String>,
    /// A file under /sdcard, /storage or /data/local/tmp.
    pub device_path: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pulled {
    pub serial: String,
    pub device_path: String,
    /// Where it landed, in the pull directory.
    pub local_path: String,
    /// Size and digest of the file; left out when redaction hides part of the file's text from
    /// agents, shown inline or not (they would tell the hidden part: its length, with the rest
    /// of the text, and a guess checked against the digest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The content, for text files up to 64 KiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Pull `remote` (already guarded and resolved) into the pull directory as `name`.
pub async fn pull_into_dir(
    ctx: &Ctx,
    dev: &Device,
    remote: &str,
    name: &str,
) -> Result<(PathBuf, Bytes), ToolError> {
    let size = match dev.stat(remote, ctx.timeout()).await? {
        None => {
            return Err(ToolError::not_found(format!(
                "{remote} does not exist on {}",
                dev.serial()
            )));
        }
        Some(s) if !s.is_file() => {
            return Err(ToolError::invalid_args(format!(
                "{remote} is not a regular file"
            )));
        }
        Some(s) => s.size,
    };
    if size > MAX_BYTES {
        return Err(too_large(remote, size));
    }
    let pulling = dev.pull(remote, MAX_BYTES, transfer_timeout(ctx, size));
    // Whole MiB only: the result may withhold the size (a file holding a hidden value).
    let data = crate::progress::transfer_in_mib(format!("pull of {remote}"), size, pulling)
        .await
        .map_err(|e| match e {
            DeviceError::TooLarge { .. } => too_large(remote, MAX_BYTES + 1),
            e => e.into(),
        })?;
    let dir = ctx.core.paths.pull_dir();
    let (name, bytes) = (name.to_string(), data.clone());
    let path = tokio::task::spawn_blocking(move || {
        private_dir(&dir)?;
        let path = claim_name(&dir, &name, &bytes)?;
        write_atomic(&path, &bytes).map(|()| path)
    })
    .await
    .map_err(|e| ToolError::internal(format!("file writer failed: {e}")))?
    .map_err(|e| ToolError::internal(format!("could not write into the pull directory: {e}")))?;
    Ok((path, data))
}

/// A name in the pull directory that replaces nothing: `name` when it is free or already holds
/// these very bytes, else `stem-2.ext`, `stem-3.ext`… Claimed (created empty, exclusively) so a
/// concurrent pull cannot take it too. Blocking.
fn claim_name(dir: &Path, name: &str, data: &[u8]) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, format!(".{e}")),
        _ => (name, String::new()),
    };
    for n in 1..10_000u32 {
        let candidate = if n == 1 {
            name.to_string()
        } else {
            format!("{stem}-{n}{ext}")
        };
        let p = dir.join(candidate);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&p)
        {
            Ok(_) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let same = crate::config::private::read(&p).is_ok_and(|old| old == data);
                if same {
                    return Ok(p);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!("no free name for {name}")))
}

/// Whether any part of `data`, read as text (invalid UTF-8 as U+FFFD: a database or a binary
/// holds text too), is hidden from agents. Such a file's size and digest are withheld whether
/// its text is shown or not: with the rest known, they would check a guess at the hidden part.
/// Up to 50 MB of regex work: on the blocking pool.
async fn holds_hidden_value(ctx: &Ctx, data: Bytes) -> Result<bool, ToolError> {
    let core = ctx.core.clone();
    tokio::task::spawn_blocking(move || {
        let text = String::from_utf8_lossy(&data);
        matches!(
            core.redactor
                .redact_str(&text, crate::redact::Audience::Agent),
            std::borrow::Cow::Owned(_)
        )
    })
    .await
    .map_err(|e| ToolError::internal(format!("the pulled file could not be checked: {e}")))
}

async fn pull(ctx: Ctx, a: PullArgs) -> Result<Pulled, ToolError> {
    let wanted = check_device_path(&a.device_path)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    let remote = resolve_on_device(&ctx, &dev, &wanted).await?;
    let (path, data) = pull_into_dir(&ctx, &dev, &remote, &local_name(&remote)).await?;
    let text = (data.len() <= INLINE_TEXT)
        .then(|| std::str::from_utf8(&data).ok().map(str::to_string))
        .flatten()
        .filter(|t| !t.contains('\0'));
    let hides = holds_hidden_value(&ctx, data.clone()).await?;
    Ok(Pulled {
        serial: dev.serial().to_string(),
        device_path: remote,
        local_path: path.display().to_string(),
        bytes: (!hides).then_some(data.len() as u64),
        sha256: (!hides).then(|| sha256_hex(&data)),
        text,
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_push_file",
            title: "Push file",
            level: Level::SafeAction,
            toolset: Toolset::Files,
            description: "Copy a file from the project (or the pull directory) to the device under /sdcard, /storage \
                          or /data/local/tmp. 50 MB cap. An existing file is replaced only with overwrite: true, \
                          which asks the person.",
        }
        .def(push)
        .escalates("`overwrite: true` onto an existing device file", push_escalation),
        Meta {
            name: "android_pull_file",
            title: "Pull file",
            level: Level::SafeAction,
            toolset: Toolset::Files,
            description: "Copy a device file (under /sdcard, /storage or /data/local/tmp) into the pull directory \
                          (never replacing a file there); text up to 64 KiB comes back inline. 50 MB cap.",
        }
        .def(pull)
        .in_branch(Branch::Inspect),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulled_names_stay_inside_the_pull_directory() {
        assert_eq!(local_name("/sdcard/Download/report.txt"), "report.txt");
        assert_eq!(local_name("/sdcard/.hidden"), "hidden");
        assert_eq!(local_name("/sdcard/a b;$(x).txt"), "a_b___x_.txt");
        assert_eq!(local_name("/sdcard/"), "pulled");
        assert_eq!(local_name("/sdcard/.."), "pulled");
        assert!(!local_name("/sdcard/x/../../y").contains('/'));
    }

    #[test]
    fn device_paths_are_normalised_or_refused() {
        assert_eq!(
            check_device_path("/sdcard//Download/./x").unwrap(),
            "/sdcard/Download/x"
        );
        for bad in [
            "/sdcard/../data/x",
            "/data/data/x",
            "/sdcard/%2e%2e/data",
            "x",
        ] {
            assert_eq!(
                check_device_path(bad).unwrap_err().kind,
                crate::mcp::result::ErrorKind::Refused,
                "{bad}"
            );
        }
    }

    #[test]
    fn a_pull_never_replaces_a_file_in_the_pull_directory() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let first = claim_name(d, "report.txt", b"one").unwrap();
        std::fs::write(&first, b"one").unwrap();
        assert_eq!(first, d.join("report.txt"));
        // The same bytes again: the same file. Other bytes: a new name beside it.
        assert_eq!(claim_name(d, "report.txt", b"one").unwrap(), first);
        let second = claim_name(d, "report.txt", b"two").unwrap();
        assert_eq!(second, d.join("report-2.txt"));
        assert_eq!(
            claim_name(d, "report.txt", b"three").unwrap(),
            d.join("report-3.txt")
        );
        assert_eq!(claim_name(d, "pulled", b"x").unwrap(), d.join("pulled"));
        std::fs::write(d.join("pulled"), b"x").unwrap();
        assert_eq!(claim_name(d, "pulled", b"y").unwrap(), d.join("pulled-2"));
        assert_eq!(std::fs::read(first).unwrap(), b"one");
    }

    #[test]
    fn a_push_source_over_the_cap_is_refused_before_reading() {
        let t = tempfile::tempdir().unwrap();
        let big = t.path().join("big.bin");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_BYTES + 1).unwrap();
        let err = read_source(&big, &[t.path().to_path_buf()]).unwrap_err();
        assert!(err.message.contains("capped"), "{}", err.message);
        std::fs::write(t.path().join("ok.bin"), b"ok").unwrap();
        let (p, data) = read_source(Path::new("ok.bin"), &[t.path().to_path_buf()]).unwrap();
        assert_eq!(
            (p.file_name().unwrap().to_str(), data.as_slice()),
            (Some("ok.bin"), &b"ok"[..])
        );
    }
}
